-- Hot boards (sliding windows kept in Redis alone, domain/src/hot.rs): only their definitions live
-- in the ledger. A slug names one board of either kind; both inserts check the other table.
CREATE TABLE hot_boards (
    slug       TEXT PRIMARY KEY,
    title      TEXT NOT NULL,
    -- domain::hot::HotRules as JSON, checked before it was stored.
    rules      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- An ingest key may name hot boards, which are not in `boards`: the engine checks that a key's
-- boards exist (of either kind) instead of a foreign key to `boards`.
ALTER TABLE api_key_boards DROP CONSTRAINT api_key_boards_board_fkey;
