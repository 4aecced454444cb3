-- Failed logins also count per client address (engine::admins: one address trying one password
-- against every username is throttled too). Rows written before this have no address. Keep both
-- backends' files in step.
ALTER TABLE login_failures ADD COLUMN address TEXT;
CREATE INDEX login_failures_by_address ON login_failures (address, at);
