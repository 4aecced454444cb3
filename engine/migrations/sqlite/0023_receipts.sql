-- Receipts (domain::receipt, docs/RECEIPTS.md): each settlement revision commits to its standings
-- with a Merkle root, and its chain `link` = SHA-256 over board, period, revision, the previous
-- revision's link, the digest and the root, so a receipt of revision 1 still verifies after
-- revision 3. NULL for revisions written before this migration: their root and link are computed
-- on read from their standings (engine/src/ledger/receipts.rs), which gives the same values.
-- Keep migrations/postgres/ in step with this file.
ALTER TABLE settlements ADD COLUMN merkle_root TEXT;
ALTER TABLE settlements ADD COLUMN link TEXT;
