-- Profiles found by the start of their display name ("Find me" on a board page): the name with
-- ASCII letters in lower case (`ledger::boards::name_key`; translate() folds exactly those, as
-- SQLite's lower() does), kept beside it and indexed, so a search is one index range with a
-- LIMIT. Byte order ("C"), so the range the engine computes is the index's order. Keep both
-- backends' files in step.
ALTER TABLE profiles ADD COLUMN name_key TEXT COLLATE "C" NOT NULL DEFAULT '';
UPDATE profiles SET name_key = translate(display_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
CREATE INDEX profiles_by_name_key ON profiles (name_key, member);
