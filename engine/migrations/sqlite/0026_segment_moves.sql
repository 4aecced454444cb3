-- Moving a member between segment values (issue 43): an admin change made through a preview.
-- `segment_members` holds the value now; each move is kept here with the total's version it
-- wrote. The old value's ranking keeps that version as a tombstone (the member's entry in its
-- `:ver`, out of its `:rank`), so a projection of an older write cannot bring the member back
-- there, and the reconciler counts it in the value's version sum. Keep migrations/postgres/ in step.
CREATE TABLE segment_moves (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    board      TEXT NOT NULL REFERENCES boards (slug),
    period     TEXT NOT NULL,
    member     TEXT NOT NULL,
    dimension  TEXT NOT NULL,
    -- NULL when the member held no value in the dimension before.
    from_value TEXT,
    to_value   TEXT NOT NULL,
    version    BIGINT NOT NULL,
    actor      TEXT NOT NULL,
    reason     TEXT NOT NULL,
    moved_at   BIGINT NOT NULL
);
CREATE INDEX segment_moves_from ON segment_moves (board, period, dimension, from_value);
