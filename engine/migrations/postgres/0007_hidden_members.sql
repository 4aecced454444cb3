-- Hidden members (moderation): a member hidden in a period leaves every public view of it — the
-- ranking, member reads and the standings — and keeps its ledger history. Keep migrations/sqlite/
-- in step with this file.
--
-- `hidden` (0 or 1) is part of the member's versioned total: hiding or unhiding raises
-- `version`, so the projection scripts carry it with the same version guard as every score, and
-- a write to a hidden member keeps it hidden.
ALTER TABLE totals ADD COLUMN hidden BIGINT NOT NULL DEFAULT 0;
