-- Imports of existing totals (`POST …/periods/{period}/imports`, `laurel import-totals`): one row
-- per import id of a board, so a repeat answers the first import's result and writes nothing. The
-- totals themselves arrive as `opening` entries in `entries` (value = the total, delta = the
-- change), so every total stays explainable from the member's history.
CREATE TABLE total_imports (
    board      TEXT NOT NULL REFERENCES boards (slug),
    import_id  TEXT NOT NULL,
    period     TEXT NOT NULL,
    mode       TEXT NOT NULL,
    -- SHA-256 of the import's mode, period and rows: a repeat with other content is refused.
    digest     TEXT NOT NULL,
    -- The report answered the first time, as JSON.
    result     TEXT NOT NULL,
    actor      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (board, import_id)
);
