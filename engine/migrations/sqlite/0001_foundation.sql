-- The ledger's first tables. Instants are microseconds since the Unix epoch (UTC) in BIGINT, so
-- the same SQL runs on SQLite and PostgreSQL. Keep migrations/postgres/ in step with this file.

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
-- every change and is what the projection script compares.
CREATE TABLE totals (
    board      TEXT NOT NULL,
    period     TEXT NOT NULL,
    member     TEXT NOT NULL,
    points     BIGINT NOT NULL,
    version    BIGINT NOT NULL,
    reach_seq  BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (board, period, member),
    FOREIGN KEY (board, period) REFERENCES periods (board, period)
);

-- Point events of incr boards. The unique (board, event_id) makes every event count once.
CREATE TABLE point_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    board       TEXT NOT NULL REFERENCES boards (slug),
    event_id    TEXT NOT NULL,
    period      TEXT NOT NULL,
    member      TEXT NOT NULL,
    delta       BIGINT NOT NULL,
    occurred_at BIGINT NOT NULL,
    recorded_at BIGINT NOT NULL,
    metadata    TEXT,
    CONSTRAINT point_events_board_event_id_key UNIQUE (board, event_id)
);
CREATE INDEX point_events_by_member ON point_events (board, period, member, id);
