-- Segment memberships stored in their primary key's b-tree (WITHOUT ROWID; issue 43, speed). A
-- rowid table answered every member's value and every value's member through its index, then a
-- lookup of the row; clustered, the by-value index holds the member too, so a settlement reads
-- each value's members from that index alone (`ledger/segments.rs::period_rosters`), and a write
-- reads a member's values from one b-tree. Keep migrations/postgres/ in step.
CREATE TABLE segment_members_clustered (
    board     TEXT NOT NULL REFERENCES boards (slug),
    period    TEXT NOT NULL,
    member    TEXT NOT NULL,
    dimension TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (board, period, member, dimension)
) WITHOUT ROWID;
INSERT INTO segment_members_clustered (board, period, member, dimension, value)
    SELECT board, period, member, dimension, value FROM segment_members;
DROP TABLE segment_members;
ALTER TABLE segment_members_clustered RENAME TO segment_members;
-- The members of one segment value (its ranking's ledger fallback, levelling, the list route,
-- settlement); it holds the primary key's member as well.
CREATE INDEX segment_members_by_value ON segment_members (board, period, dimension, value);
