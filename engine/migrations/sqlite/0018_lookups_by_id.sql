-- PostgreSQL reorders two indexes here so that a lookup by id can only take the unique key
-- (see postgres/0018_lookups_by_id.sql). SQLite's planner takes the unique key for those
-- lookups whatever its statistics, and an index rebuilt here would change the plans of reads
-- tuned for SQLite (engine/src/ledger/attention.rs): nothing changes. Keep both backends' files
-- in step.
SELECT 1;
