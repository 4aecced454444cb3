-- Ascending boards (lower is better) and the unit their points stand for: both fixed at
-- creation (`domain::board::BoardDraft`). Existing boards rank more points first and show plain
-- points, as before. The order is read back into the board's score codec, which negates the
-- points of ascending boards in the projection (`domain::score`). Keep both backends' files in
-- step.
ALTER TABLE boards ADD COLUMN sort TEXT NOT NULL DEFAULT 'desc';
ALTER TABLE boards ADD COLUMN unit TEXT NOT NULL DEFAULT 'points';
