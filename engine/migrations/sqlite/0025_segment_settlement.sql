-- Settlement per segment (issue 43): a board's prize tables by dimension (JSON object, '{}':
-- none); each settlement revision records the tables it awarded and every segment ranking's
-- member count and digest (JSON array; NULL: the board had no segment rankings), which its own
-- digest folds in (`domain::settlement::folded_text`). A reward names the ranking that earned it
-- (`''`: the board's own; `province:zj`: that segment's), so one member may hold a reward per
-- ranking in a revision. Keep migrations/postgres/ in step with this file.
--
-- The reward key's UNIQUE constraint gains `ranking`; SQLite cannot drop it, so `rewards` is
-- rebuilt with its rows, foreign keys deferred as in 0013.
ALTER TABLE boards ADD COLUMN segment_prizes TEXT NOT NULL DEFAULT '{}';
ALTER TABLE settlements ADD COLUMN segment_prizes TEXT;
ALTER TABLE settlements ADD COLUMN segments TEXT;

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
    ranking         TEXT NOT NULL DEFAULT '',
    CONSTRAINT rewards_member_key UNIQUE (board, period, revision, member, kind, ranking),
    FOREIGN KEY (board, period, revision) REFERENCES settlements (board, period, revision)
);
INSERT INTO rewards (id, board, period, revision, member, rank, prize, idempotency_key, status,
                     attempts, next_attempt_at, delivered_at, kind, compensates)
SELECT id, board, period, revision, member, rank, prize, idempotency_key, status,
       attempts, next_attempt_at, delivered_at, kind, compensates FROM rewards_copy ORDER BY id;
DROP TABLE rewards_copy;
CREATE INDEX rewards_due ON rewards (status, next_attempt_at);
