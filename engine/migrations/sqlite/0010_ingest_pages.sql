-- Fewer pages changed per ingested event (docs/BENCHMARKS.md, ingest): every page a write
-- transaction changes is appended to the WAL and later copied back, and under sustained ingest
-- those copies are the cost. Keep migrations/postgres/ in step with this file.

-- Only revocations have `revokes`; the index of everything else's NULL grew by one entry per
-- event. Uniqueness of a revocation per entry is unchanged (writers name the index's condition
-- in ON CONFLICT).
DROP INDEX entries_revokes_key;
CREATE UNIQUE INDEX entries_revokes_key ON entries (revokes) WHERE revokes IS NOT NULL;

-- Totals are only ever reached by (board, period, member): stored in that key's order (WITHOUT
-- ROWID), a changed total is one B-tree page instead of a table page plus a page of the key's
-- index.
CREATE TABLE totals_by_key (
    board       TEXT NOT NULL,
    period      TEXT NOT NULL,
    member      TEXT NOT NULL,
    points      BIGINT NOT NULL,
    version     BIGINT NOT NULL,
    reach_seq   BIGINT NOT NULL,
    set_version BIGINT NOT NULL DEFAULT 0,
    updated_at  BIGINT NOT NULL,
    hidden      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (board, period, member),
    FOREIGN KEY (board, period) REFERENCES periods (board, period)
) WITHOUT ROWID;
INSERT INTO totals_by_key (board, period, member, points, version, reach_seq, set_version, updated_at, hidden)
    SELECT board, period, member, points, version, reach_seq, set_version, updated_at, hidden FROM totals;
DROP TABLE totals;
ALTER TABLE totals_by_key RENAME TO totals;
