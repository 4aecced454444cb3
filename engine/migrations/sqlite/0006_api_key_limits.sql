-- Per-key rate limits of ingest keys (domain/src/apikey.rs): a key may make `rate_per_second`
-- requests a second on average and `burst` at once, counted in each process
-- (engine/src/ratelimit.rs). Keys made before this migration get the defaults, 50/s and 100.
-- Who created and who revoked a key are named as the audit trail names them (`admin:ann`,
-- `token#3`, `cli`); keys made before this migration have no creator.
ALTER TABLE api_keys ADD COLUMN rate_per_second BIGINT NOT NULL DEFAULT 50;
ALTER TABLE api_keys ADD COLUMN burst BIGINT NOT NULL DEFAULT 100;
ALTER TABLE api_keys ADD COLUMN created_by TEXT;
ALTER TABLE api_keys ADD COLUMN revoked_by TEXT;
