-- Every process keeps a copy of all display names and brings it level with the ledger at most
-- a second after a read finds it older (engine/src/names.rs): reads then join names from memory
-- instead of one ledger query per page (docs/BENCHMARKS.md, reads). A profile's `revision` is
-- the ledger-wide number of its last change, so "what changed since revision R" is one indexed
-- range read.
ALTER TABLE profiles ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
UPDATE profiles SET revision = numbered.n
FROM (SELECT member, ROW_NUMBER() OVER (ORDER BY member) AS n FROM profiles) AS numbered
WHERE profiles.member = numbered.member;
CREATE INDEX profiles_by_revision ON profiles (revision);

-- The last revision handed out. A profile write takes the next one by updating this single row,
-- whose lock it holds until it commits: revisions therefore commit in order, and a reader that
-- sees revision R has seen every revision below R (a sequence would not promise that: a smaller
-- number can commit after a larger one, and a catch-up "after R" would skip it for good).
CREATE TABLE profile_clock (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    revision  BIGINT NOT NULL
);
INSERT INTO profile_clock (singleton, revision) SELECT 1, COALESCE(MAX(revision), 0) FROM profiles;
