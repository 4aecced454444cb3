-- Settlement revisions: a settled or archived period changes only through an applied preview,
-- which writes settlement revision N+1 (the revisions form a hash chain by `previous_digest`) and
-- moves rewards by deltas: for each member whose prize changed, a `revoke` row for the reward it
-- held (`compensates`) and a `grant` row for the new one, each with its own idempotency key.
-- Keep migrations/sqlite/ in step with this file.
ALTER TABLE settlements ADD COLUMN previous_digest TEXT;
ALTER TABLE settlements ADD COLUMN reason TEXT;
ALTER TABLE settlements ADD COLUMN preview_id TEXT;
-- The prize table the revision was computed with (JSON): a later revision keeps it, whatever the
-- board's table became since. NULL for settlements written before this migration.
ALTER TABLE settlements ADD COLUMN prizes TEXT;

ALTER TABLE rewards ADD COLUMN kind TEXT NOT NULL DEFAULT 'grant' CHECK (kind IN ('grant', 'revoke'));
ALTER TABLE rewards ADD COLUMN compensates BIGINT REFERENCES rewards (id);
ALTER TABLE rewards DROP CONSTRAINT rewards_member_key;
ALTER TABLE rewards ADD CONSTRAINT rewards_member_key UNIQUE (board, period, revision, member, kind);

-- What an apply answered, as JSON: a repeated apply answers it again.
ALTER TABLE previews ADD COLUMN result TEXT;
