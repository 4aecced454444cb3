-- The settlement lifecycle: revocations and corrections in `entries`, late-event decisions,
-- settlements with their standings and rewards, the reward outbox's delivery attempts, the audit
-- trail and the scheduler's lease. Keep migrations/postgres/ in step with this file.

-- `reach_seq`: the reach sequence an entry was given when it moved the member's points (NULL when
-- it did not); a revoke recomputes a member's sequence from the entries that remain.
-- `revokes`: on a `revocation` entry, the id of the entry it cancels (one revocation per entry).
-- `actor` / `reason`: who made an admin entry (revocation, correction, accepted late event) and why.
ALTER TABLE entries ADD COLUMN reach_seq BIGINT;
ALTER TABLE entries ADD COLUMN revokes BIGINT REFERENCES entries (id);
ALTER TABLE entries ADD COLUMN actor TEXT;
ALTER TABLE entries ADD COLUMN reason TEXT;
CREATE UNIQUE INDEX entries_revokes_key ON entries (revokes);

-- An admin's decision on a late write: status moves pending → accepted | rejected, once.
ALTER TABLE late_entries ADD COLUMN decided_by TEXT;
ALTER TABLE late_entries ADD COLUMN decided_at BIGINT;
ALTER TABLE late_entries ADD COLUMN decision_reason TEXT;

-- When the period last changed state (the scheduler's auto-archive counts from settlement).
ALTER TABLE periods ADD COLUMN state_changed_at BIGINT;

-- A period's final result. The lifecycle settles a period once, so `revision` is 1; the key
-- keeps a later re-settlement additive instead of destructive.
CREATE TABLE settlements (
    board        TEXT NOT NULL,
    period       TEXT NOT NULL,
    revision     BIGINT NOT NULL,
    rule_version BIGINT NOT NULL,
    -- The highest entry id of the period when it was settled: what the standings account for.
    watermark    BIGINT NOT NULL,
    -- SHA-256 (hex) of the canonical standings (`domain::settlement::digest`).
    digest       TEXT NOT NULL,
    members      BIGINT NOT NULL,
    actor        TEXT NOT NULL,
    settled_at   BIGINT NOT NULL,
    PRIMARY KEY (board, period, revision),
    FOREIGN KEY (board, period) REFERENCES periods (board, period)
);

-- The standings of a settlement: every member with a total, best first. `position` is the
-- 0-based order (rank ties broken by member id under `shared`), so archived pages are exact.
-- A million-member settlement writes a million rows in one transaction, so the table carries
-- only what reads need: the key by position (pages; a count of members at or above some points
-- is a binary search over positions, as points never rise along them) and one index by member
-- (around-me and member reads). No foreign key to `settlements`: the settlement's own
-- transaction writes both, and a per-row check would cost more than the insert.
CREATE TABLE standings (
    board    TEXT NOT NULL,
    period   TEXT NOT NULL,
    revision BIGINT NOT NULL,
    position BIGINT NOT NULL,
    rank     BIGINT NOT NULL,
    member   TEXT NOT NULL,
    points   BIGINT NOT NULL,
    prize    TEXT,
    PRIMARY KEY (board, period, revision, position),
    CONSTRAINT standings_member_key UNIQUE (board, period, revision, member)
) WITHOUT ROWID;

-- The reward outbox: one row per prized member per settlement revision, written in the
-- settlement's transaction and delivered afterwards with `idempotency_key`.
CREATE TABLE rewards (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    board           TEXT NOT NULL,
    period          TEXT NOT NULL,
    revision        BIGINT NOT NULL,
    member          TEXT NOT NULL,
    rank            BIGINT NOT NULL,
    prize           TEXT NOT NULL,
    idempotency_key TEXT NOT NULL UNIQUE,
    -- pending → delivered, or failed after the last attempt.
    status          TEXT NOT NULL DEFAULT 'pending',
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    delivered_at    BIGINT,
    CONSTRAINT rewards_member_key UNIQUE (board, period, revision, member),
    FOREIGN KEY (board, period, revision) REFERENCES settlements (board, period, revision)
);
CREATE INDEX rewards_due ON rewards (status, next_attempt_at);

-- Every delivery attempt of a reward and what the receiver answered.
CREATE TABLE reward_attempts (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    reward_id    BIGINT NOT NULL REFERENCES rewards (id),
    attempted_at BIGINT NOT NULL,
    http_status  BIGINT,
    error        TEXT
);
CREATE INDEX reward_attempts_by_reward ON reward_attempts (reward_id, id);

-- The audit trail: who did what to which board, period or member, why, and the state before
-- and after (JSON). Written in the same transaction as the change it describes.
CREATE TABLE audit (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     BIGINT NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    board  TEXT,
    period TEXT,
    member TEXT,
    reason TEXT,
    before_state TEXT,
    after_state  TEXT
);
CREATE INDEX audit_by_board ON audit (board, period, id);

-- Leases for work that one process among several must do alone (the scheduler). `token` rises
-- with every new holder: a fencing token that lets a stale holder's writes be told apart.
CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    token      BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
