-- Settlement revisions: a settled or archived period changes only through an applied preview,
-- which writes settlement revision N+1 (the revisions form a hash chain by `previous_digest`) and
-- moves rewards by deltas: for each member whose prize changed, a `revoke` row for the reward it
-- held (`compensates`) and a `grant` row for the new one, each with its own idempotency key.
-- Keep migrations/postgres/ in step with this file.
--
-- SQLite cannot drop the index of a UNIQUE constraint, so `rewards` is rebuilt with its rows. The
-- migration runs in a transaction, where foreign keys cannot be switched off; they are deferred
-- instead: dropping `rewards` counts a violation for each `reward_attempts` row, and putting the
-- rows back into the new `rewards` clears them before the commit checks.
PRAGMA defer_foreign_keys = ON;
CREATE TABLE rewards_copy AS SELECT * FROM rewards;
DROP TABLE rewards;
CREATE TABLE rewards (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    board           TEXT NOT NULL,
    period          TEXT NOT NULL,
    revision        BIGINT NOT NULL,
    member          TEXT NOT NULL,
    rank            BIGINT NOT NULL,
    prize           TEXT NOT NULL,
    idempotency_key TEXT NOT NULL UNIQUE,
    status          TEXT NOT NULL DEFAULT 'pending',
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    delivered_at    BIGINT,
    kind            TEXT NOT NULL DEFAULT 'grant' CHECK (kind IN ('grant', 'revoke')),
    compensates     BIGINT REFERENCES rewards (id),
    CONSTRAINT rewards_member_key UNIQUE (board, period, revision, member, kind),
    FOREIGN KEY (board, period, revision) REFERENCES settlements (board, period, revision)
);
INSERT INTO rewards (id, board, period, revision, member, rank, prize, idempotency_key, status,
                     attempts, next_attempt_at, delivered_at)
SELECT id, board, period, revision, member, rank, prize, idempotency_key, status,
       attempts, next_attempt_at, delivered_at FROM rewards_copy ORDER BY id;
DROP TABLE rewards_copy;
CREATE INDEX rewards_due ON rewards (status, next_attempt_at);

ALTER TABLE settlements ADD COLUMN previous_digest TEXT;
ALTER TABLE settlements ADD COLUMN reason TEXT;
ALTER TABLE settlements ADD COLUMN preview_id TEXT;
-- The prize table the revision was computed with (JSON): a later revision keeps it, whatever the
-- board's table became since. NULL for settlements written before this migration.
ALTER TABLE settlements ADD COLUMN prizes TEXT;

-- What an apply answered, as JSON: a repeated apply answers it again.
ALTER TABLE previews ADD COLUMN result TEXT;
