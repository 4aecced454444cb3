-- The ledger's first tables. Instants are microseconds since the Unix epoch (UTC) in BIGINT, so
-- the same SQL runs on SQLite and PostgreSQL. Keep migrations/sqlite/ in step with this file.

-- A board's definition. Operator, tie policy and bounds never change once created.
CREATE TABLE boards (
    slug                 TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    cadence              TEXT NOT NULL,
    time_zone            TEXT NOT NULL,
    operator             TEXT NOT NULL,
    tie_policy           TEXT NOT NULL,
    min_points           BIGINT NOT NULL,
    max_points           BIGINT NOT NULL,
    -- B of the first_reached codec (1 under shared); min/max × B + B fits in 2^53.
    tie_base             BIGINT NOT NULL,
    freeze_grace_seconds BIGINT NOT NULL,
    -- The prize table as JSON: [{"from_rank", "to_rank", "prize"}], checked for overlaps.
    prizes               TEXT NOT NULL DEFAULT '[]',
    created_at           BIGINT NOT NULL
);

-- Display data, joined at read time; never part of a ranking.
CREATE TABLE profiles (
    member       TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    avatar_url   TEXT,
    updated_at   BIGINT NOT NULL
);

-- One row per period that has seen a write. A missing row means "open, nothing written".
CREATE TABLE periods (
    board    TEXT NOT NULL REFERENCES boards (slug),
    period   TEXT NOT NULL,
    state    TEXT NOT NULL,
    -- The next reach sequence to hand out in this period (first_reached ties).
    next_seq BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (board, period)
);

-- Each member's total in a period: what the projection mirrors. `version` rises by one with
-- every change and is what the projection script compares. `set_version` is the highest version a
-- `set` client sent (0 for other operators). `reach_seq` orders equal points under first_reached.
CREATE TABLE totals (
    board       TEXT NOT NULL,
    period      TEXT NOT NULL,
    member      TEXT NOT NULL,
    points      BIGINT NOT NULL,
    version     BIGINT NOT NULL,
    reach_seq   BIGINT NOT NULL,
    set_version BIGINT NOT NULL DEFAULT 0,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (board, period, member),
    FOREIGN KEY (board, period) REFERENCES periods (board, period)
);

-- Every applied write: point events (incr), absolute totals (set), submissions (best, including
-- those that were not higher, so a repeat is recognised). `external_id` is the event or
-- submission id; the unique (board, external_id) makes each count once (NULL for set writes,
-- whose versions are checked against totals.set_version instead).
CREATE TABLE entries (
    id          BIGSERIAL PRIMARY KEY,
    board       TEXT NOT NULL REFERENCES boards (slug),
    period      TEXT NOT NULL,
    member      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    external_id TEXT,
    delta       BIGINT,
    value       BIGINT,
    set_version BIGINT,
    occurred_at BIGINT NOT NULL,
    recorded_at BIGINT NOT NULL,
    metadata    TEXT,
    CONSTRAINT entries_board_external_id_key UNIQUE (board, external_id)
);
CREATE INDEX entries_by_member ON entries (board, period, member, id);

-- Writes that arrived for a period no longer open: kept, not applied, until an admin decides.
CREATE TABLE late_entries (
    id          BIGSERIAL PRIMARY KEY,
    board       TEXT NOT NULL REFERENCES boards (slug),
    period      TEXT NOT NULL,
    member      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    external_id TEXT,
    delta       BIGINT,
    value       BIGINT,
    set_version BIGINT,
    occurred_at BIGINT NOT NULL,
    received_at BIGINT NOT NULL,
    metadata    TEXT,
    status      TEXT NOT NULL DEFAULT 'pending',
    CONSTRAINT late_entries_board_external_id_key UNIQUE (board, external_id)
);
CREATE INDEX late_entries_by_period ON late_entries (board, period, status, id);

-- Bearer tokens for admin automation (`laurel admin token`); only a SHA-256 is kept.
CREATE TABLE admin_tokens (
    id         BIGSERIAL PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

-- Ingest keys (`laurel apikey create --board B`); only a SHA-256 is kept, with the first
-- characters for display. A key may write to the boards listed in api_key_boards.
CREATE TABLE api_keys (
    id         BIGSERIAL PRIMARY KEY,
    key_prefix TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE TABLE api_key_boards (
    key_id BIGINT NOT NULL REFERENCES api_keys (id),
    board  TEXT NOT NULL REFERENCES boards (slug),
    PRIMARY KEY (key_id, board)
);
