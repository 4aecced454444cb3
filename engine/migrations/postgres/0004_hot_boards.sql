-- Hot boards (sliding windows kept in Redis alone, domain/src/hot.rs): only their definitions live
-- in the ledger. A slug names one board of either kind; both inserts check the other table.
CREATE TABLE hot_boards (
    slug       TEXT PRIMARY KEY,
    title      TEXT NOT NULL,
    -- domain::hot::HotRules as JSON, checked before it was stored.
    rules      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
