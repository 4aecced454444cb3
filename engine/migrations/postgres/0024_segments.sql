-- Segments (issue 43): a board declares up to 4 dimensions (`province`, `class`) at creation, as
-- a JSON array of names ('[]': none); fixed afterwards, like keep_top. A member's value in each
-- dimension is fixed per period by the first recorded write that names it; a write naming another
-- value is rejected (`segment_conflict`). Each value ranks its members in a sorted set of its own
-- (`engine/src/redis/keys.rs`). Keep both backends' files in step.
ALTER TABLE boards ADD COLUMN segments TEXT NOT NULL DEFAULT '[]';
CREATE TABLE segment_members (
    board     TEXT NOT NULL REFERENCES boards (slug),
    period    TEXT NOT NULL,
    member    TEXT NOT NULL,
    dimension TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (board, period, member, dimension)
);
-- The members of one segment value (its ranking's ledger fallback, levelling, the list route).
CREATE INDEX segment_members_by_value ON segment_members (board, period, dimension, value);
