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
-- boards exist (of either kind) instead of a foreign key to `boards`. SQLite cannot drop a
-- constraint, so the table is rebuilt.
CREATE TABLE api_key_boards_any (
    key_id BIGINT NOT NULL REFERENCES api_keys (id),
    board  TEXT NOT NULL,
    PRIMARY KEY (key_id, board)
);
INSERT INTO api_key_boards_any (key_id, board) SELECT key_id, board FROM api_key_boards;
DROP TABLE api_key_boards;
ALTER TABLE api_key_boards_any RENAME TO api_key_boards;
