-- Fewer pages changed per ingested event (docs/BENCHMARKS.md, ingest). Keep migrations/sqlite/
-- in step with this file (there, totals are also rebuilt WITHOUT ROWID; PostgreSQL's tables are
-- heaps either way).

-- Only revocations have `revokes`; the index of everything else's NULL grew by one entry per
-- event. Uniqueness of a revocation per entry is unchanged (writers name the index's condition
-- in ON CONFLICT).
DROP INDEX entries_revokes_key;
CREATE UNIQUE INDEX entries_revokes_key ON entries (revokes) WHERE revokes IS NOT NULL;
