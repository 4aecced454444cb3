-- Admin accounts for the console (`laurel admin create --username U`): argon2id password hashes
-- (PHC strings), browser sessions and failed logins (for throttling).
CREATE TABLE admins (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);

-- A session is a random cookie value; only its SHA-256 is kept. Logging in always makes a new one.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    admin_id   BIGINT NOT NULL REFERENCES admins (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- Failed logins by username, counted over a sliding window; a success clears them.
CREATE TABLE login_failures (
    username TEXT NOT NULL,
    at       BIGINT NOT NULL
);
CREATE INDEX login_failures_by_username ON login_failures (username, at);
