-- Settling a million members in a few seconds on PostgreSQL. Keep migrations/postgres/ in step
-- with this file.
--
-- Writing one `standings` row per member cost most of a large settlement on PostgreSQL: a million
-- rows took 20 s and more, even packed into a few statements (docs/BENCHMARKS.md, settle), and
-- COPY is out of reach through sqlx's `Any` driver. The standings move to blocks: a row holds up
-- to 1 000 consecutive standings in position order, so a million-member settlement writes a
-- thousand rows. Reads only ever need consecutive positions (pages, windows, the whole list for an
-- export) or a count of members at or above some points, which the blocks answer as well:
--
-- `first_position`: the 0-based position of the block's first standing. A page from `offset` reads
--   the last block starting at or before `offset` and the ones after it up to the page's end.
-- `members`: how many standings the block holds.
-- `last_points`: the points of the block's last standing, the block's lowest (points never rise
--   along positions): the members at or above some points end in the first block whose
--   `last_points` is below them, found through `standing_blocks_by_points` without unpacking any.
-- `rows`: the standings, a JSON array of `[rank, member, points, prize]` (prize a string or
--   null) in position order. JSON quotes any prize text safely. It is the last column, so that
--   reading the others does not read its overflow pages.
CREATE TABLE standing_blocks (
    board          TEXT NOT NULL,
    period         TEXT NOT NULL,
    revision       BIGINT NOT NULL,
    first_position BIGINT NOT NULL,
    members        BIGINT NOT NULL,
    last_points    BIGINT NOT NULL,
    rows           TEXT NOT NULL,
    PRIMARY KEY (board, period, revision, first_position)
);
CREATE INDEX standing_blocks_by_points ON standing_blocks (board, period, revision, last_points, first_position);

-- Existing standings become blocks of 1 000 positions (positions are 0, 1, 2, … per settlement).
INSERT INTO standing_blocks (board, period, revision, first_position, members, last_points, rows)
SELECT board, period, revision, MIN(position), COUNT(*), MIN(points),
       json_group_array(json_array(rank, member, points, prize) ORDER BY position)
FROM standings
GROUP BY board, period, revision, position / 1000;
DROP TABLE standings;
