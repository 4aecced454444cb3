-- Previews: drafts of admin changes to one period (revokes, corrections, late decisions, hides),
-- answered with what they would do to the standings and kept for 15 minutes. A draft is the only
-- row a preview writes. `based_on` is the period's watermark when it was made (and the
-- settlement revision, when settled): an apply goes ahead only while it still holds. Keep
-- migrations/postgres/ in step with this file.
CREATE TABLE previews (
    id         TEXT PRIMARY KEY,
    board      TEXT NOT NULL,
    period     TEXT NOT NULL,
    actor      TEXT NOT NULL,
    reason     TEXT NOT NULL,
    -- The changes as JSON, in the order given.
    changes    TEXT NOT NULL,
    watermark  TEXT NOT NULL,
    revision   BIGINT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    -- draft → applied | cancelled (a draft past expires_at is expired).
    status     TEXT NOT NULL DEFAULT 'draft',
    decided_by TEXT,
    decided_at BIGINT
);
CREATE INDEX previews_by_period ON previews (board, period, created_at);
