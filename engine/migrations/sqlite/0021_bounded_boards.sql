-- Bounded boards and the life of settled periods' Redis keys (domain::board).
-- keep_top: the live projection keeps only the best this many members (NULL: unbounded); fixed at
-- creation. ranking_ttl_days: a settled period's Redis keys are unlinked this long after its
-- settlement (reads then come from its standings). Keep both backends' files in step.
ALTER TABLE boards ADD COLUMN keep_top BIGINT;
ALTER TABLE boards ADD COLUMN ranking_ttl_days BIGINT NOT NULL DEFAULT 7;
