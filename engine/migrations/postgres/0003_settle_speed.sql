-- Settling a million members in seconds. Keep migrations/sqlite/ in step with this file.
--
-- The standings' unique (board, period, revision, member) index was filled in rank order, i.e. at
-- a random place for every row, and cost most of a large settlement (docs/BENCHMARKS.md, settle).
-- The standings keep only their key by position, which a settlement fills in order; the
-- member → position lookup moves to the member directory `standing_members` (below), a few rows
-- of blocks of members.
ALTER TABLE standings DROP CONSTRAINT standings_member_key;

-- The member directory of a settlement's standings: where each member stands (around-me and
-- member reads of archived periods). A row holds a block of up to 1 000 members in byte order,
-- `members` = `member,position` items separated by spaces (member ids hold neither), keyed by the
-- block's first member: a lookup reads the last block starting at or before the member. A
-- million-member settlement writes a thousand rows here instead of a million.
CREATE TABLE standing_members (
    board        TEXT NOT NULL,
    period       TEXT NOT NULL,
    revision     BIGINT NOT NULL,
    first_member TEXT COLLATE "C" NOT NULL,
    members      TEXT NOT NULL,
    PRIMARY KEY (board, period, revision, first_member)
);
INSERT INTO standing_members (board, period, revision, first_member, members)
SELECT board, period, revision, MIN(member COLLATE "C"), string_agg(member || ',' || position, ' ' ORDER BY member COLLATE "C")
FROM (SELECT board, period, revision, member, position,
             (ROW_NUMBER() OVER (PARTITION BY board, period, revision ORDER BY member COLLATE "C") - 1) / 1000 AS block
      FROM standings) AS numbered
GROUP BY board, period, revision, block;
