-- A profile may name the member's segment values (issue 43): `{"province": "zj"}` as JSON, NULL
-- when it names none. A write on a board declaring one of those dimensions, for a member holding
-- no value in it yet that period, fixes the profile's value as if the write had named it
-- (`ledger/writes.rs`), so that hosts need not repeat the values on every write.
ALTER TABLE profiles ADD COLUMN segments TEXT;
