-- Settling a million members in seconds. Keep migrations/postgres/ in step with this file.
--
-- The standings' unique (board, period, revision, member) index was filled in rank order, i.e. at
-- a random place for every row, and cost most of a large settlement (docs/BENCHMARKS.md, settle).
-- The standings keep only their key by position, which a settlement fills in order; the
-- member → position lookup moves to the member directory `standing_members` (below), a few rows
-- of blocks of members.
-- SQLite cannot drop the index of a UNIQUE constraint, so the table is rebuilt with its rows.
CREATE TABLE standings_by_position (
    board    TEXT NOT NULL,
    period   TEXT NOT NULL,
    revision BIGINT NOT NULL,
    position BIGINT NOT NULL,
    rank     BIGINT NOT NULL,
    member   TEXT NOT NULL,
    points   BIGINT NOT NULL,
    prize    TEXT,
    PRIMARY KEY (board, period, revision, position)
) WITHOUT ROWID;
INSERT INTO standings_by_position (board, period, revision, position, rank, member, points, prize)
SELECT board, period, revision, position, rank, member, points, prize FROM standings;
DROP TABLE standings;
ALTER TABLE standings_by_position RENAME TO standings;

-- The member directory of a settlement's standings: where each member stands (around-me and
-- member reads of archived periods). A row holds a block of up to 1 000 members in byte order,
-- `members` = `member,position` items separated by spaces (member ids hold neither), keyed by the
-- block's first member: a lookup reads the last block starting at or before the member. A
-- million-member settlement writes a thousand rows here instead of a million.
CREATE TABLE standing_members (
    board        TEXT NOT NULL,
    period       TEXT NOT NULL,
    revision     BIGINT NOT NULL,
    first_member TEXT NOT NULL,
    members      TEXT NOT NULL,
    PRIMARY KEY (board, period, revision, first_member)
) WITHOUT ROWID;
INSERT INTO standing_members (board, period, revision, first_member, members)
SELECT board, period, revision, MIN(member), group_concat(member || ',' || position, ' ' ORDER BY member)
FROM (SELECT board, period, revision, member, position,
             (ROW_NUMBER() OVER (PARTITION BY board, period, revision ORDER BY member) - 1) / 1000 AS block
      FROM standings) AS numbered
GROUP BY board, period, revision, block;
