-- The public freeze of a contest period (engine::public): writes keep counting, but the public sees
-- the standings as they were at `public_frozen_at` — the rows of `public_standings` — until a
-- reveal. `public_watermark` is the highest entry id in that view ("why this score" lists no
-- entry after it); `revealed_at` keeps a scheduled freeze from freezing a revealed period again.
-- Keep both backends' files in step.
ALTER TABLE periods ADD COLUMN public_frozen_at BIGINT;
ALTER TABLE periods ADD COLUMN public_watermark BIGINT;
ALTER TABLE periods ADD COLUMN revealed_at BIGINT;
-- Reveal steps taken so far (each names a new public view: engine::public)
ALTER TABLE periods ADD COLUMN public_steps BIGINT NOT NULL DEFAULT 0;

-- The last N seconds of each period are publicly frozen by the scheduler (0: never).
ALTER TABLE boards ADD COLUMN public_freeze_seconds BIGINT NOT NULL DEFAULT 0;

-- The publicly visible total of each member while the period is publicly frozen: a copy of the
-- visible totals at the freeze, changed only by a stepwise reveal (one member at a time).
CREATE TABLE public_standings (
    board     TEXT NOT NULL,
    period    TEXT NOT NULL,
    member    TEXT NOT NULL,
    points    BIGINT NOT NULL,
    reach_seq BIGINT NOT NULL,
    PRIMARY KEY (board, period, member)
);
