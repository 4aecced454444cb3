-- A batch's duplicate check looks each id up by (board, external_id), the unique key. For a board
-- whose entries came after the last ANALYZE, PostgreSQL estimates one entry and took
-- entries_by_member (board, period, member, id) instead, with external_id as a filter: every
-- entry of the board read for each id of the batch, over a second per statement
-- (docs/BENCHMARKS.md, ingest). With the period first, the unique key is the only index that
-- starts with the board, so a lookup by id can only take it. Reads of a member's entries name the
-- board, the period and the member, which the index still answers. The same for late writes.
-- Keep both backends' files in step (SQLite's planner takes the unique key whatever its
-- statistics: its file changes nothing).
DROP INDEX entries_by_member;
CREATE INDEX entries_by_member ON entries (period, board, member, id);
DROP INDEX late_entries_by_period;
CREATE INDEX late_entries_by_period ON late_entries (period, board, status, id);
