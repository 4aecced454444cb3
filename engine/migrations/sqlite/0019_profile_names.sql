-- Profiles found by the start of their display name ("Find me" on a board page): the name with
-- ASCII letters in lower case (`ledger::boards::name_key`; SQLite's lower() folds exactly those),
-- kept beside it and indexed, so a search is one index range with a LIMIT. Keep both backends'
-- files in step.
ALTER TABLE profiles ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE profiles SET name_key = lower(display_name);
CREATE INDEX profiles_by_name_key ON profiles (name_key, member);
