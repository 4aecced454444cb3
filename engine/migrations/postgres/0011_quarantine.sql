-- Rows `laurel doctor --fix` moved out of the tables the jobs read, because no job could read
-- them (a period key outside the supported years, a late write no total could take). Kept with
-- the reason, never deleted silently; the move is audited (`row_quarantine`). Keep
-- migrations/sqlite/ in step with this file.
CREATE TABLE quarantine (
    id             BIGSERIAL PRIMARY KEY,
    source_table   TEXT NOT NULL,
    row_key        TEXT NOT NULL,
    row_data       TEXT NOT NULL,
    reason         TEXT NOT NULL,
    quarantined_at BIGINT NOT NULL
);
