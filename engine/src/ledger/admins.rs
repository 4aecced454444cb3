//! Admin accounts, their sessions and failed logins. Passwords arrive here already hashed
//! (argon2id, `engine/src/access/admins.rs`); session tokens as SHA-256 digests.

use super::{Ledger, LedgerError, instant, micros};
use sqlx::Row;

/// Whose failed logins a throttle counts.
#[derive(Debug, Clone, Copy)]
pub enum FailuresOf<'a> {
    Username(&'a str),
    /// A client address, as `IpAddr` displays it.
    Address(&'a str),
}

/// An admin account as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminRow {
    pub id: i64,
    pub username: String,
    pub password_hash: String,
}

impl Ledger {
    /// Stores a new admin. Returns false (and changes nothing) when the username is taken.
    pub async fn create_admin(
        &self,
        username: &str,
        password_hash: &str,
        now: jiff::Timestamp,
    ) -> Result<bool, LedgerError> {
        let mut w = self.begin_write().await?;
        let created = sqlx::query(
            "INSERT INTO admins (username, password_hash, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (username) DO NOTHING",
        )
        .bind(username)
        .bind(password_hash)
        .bind(micros(now))
        .execute(&mut *w.tx)
        .await?
        .rows_affected()
            == 1;
        w.tx.commit().await?;
        Ok(created)
    }

    pub async fn admin_by_username(&self, username: &str) -> Result<Option<AdminRow>, LedgerError> {
        let row = sqlx::query("SELECT id, username, password_hash FROM admins WHERE username = $1")
            .bind(username)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            Ok(AdminRow {
                id: r.try_get("id")?,
                username: r.try_get("username")?,
                password_hash: r.try_get("password_hash")?,
            })
        })
        .transpose()
    }

    /// How many failed logins `of` counts at or after `since`, and the oldest of them (when a
    /// throttle lifts).
    pub async fn login_failures_since(
        &self,
        of: FailuresOf<'_>,
        since: jiff::Timestamp,
    ) -> Result<(u64, Option<jiff::Timestamp>), LedgerError> {
        let (column, value) = match of {
            FailuresOf::Username(username) => ("username", username),
            FailuresOf::Address(address) => ("address", address),
        };
        let sql = format!(
            "SELECT CAST(COUNT(*) AS BIGINT) AS n, MIN(at) AS oldest FROM login_failures \
             WHERE {column} = $1 AND at >= $2"
        );
        let row = sqlx::query(&sql).bind(value).bind(micros(since)).fetch_one(&self.pool).await?;
        let oldest = row.try_get::<Option<i64>, _>("oldest")?.map(instant).transpose()?;
        Ok((row.try_get::<i64, _>("n")? as u64, oldest))
    }

    /// Records a failed login of `username` from `address` (when known), dropping those older
    /// than `forget_before`.
    pub async fn record_login_failure(
        &self,
        username: &str,
        address: Option<&str>,
        now: jiff::Timestamp,
        forget_before: jiff::Timestamp,
    ) -> Result<(), LedgerError> {
        let mut w = self.begin_write().await?;
        sqlx::query("DELETE FROM login_failures WHERE at < $1")
            .bind(micros(forget_before))
            .execute(&mut *w.tx)
            .await?;
        sqlx::query("INSERT INTO login_failures (username, at, address) VALUES ($1, $2, $3)")
            .bind(username)
            .bind(micros(now))
            .bind(address)
            .execute(&mut *w.tx)
            .await?;
        w.tx.commit().await?;
        Ok(())
    }

    /// A successful login: clears the admin's failures and stores a new session, in one
    /// transaction.
    pub async fn start_session(
        &self,
        admin: &AdminRow,
        token_hash: &str,
        now: jiff::Timestamp,
        expires_at: jiff::Timestamp,
    ) -> Result<(), LedgerError> {
        let mut w = self.begin_write().await?;
        sqlx::query("DELETE FROM login_failures WHERE username = $1")
            .bind(&admin.username)
            .execute(&mut *w.tx)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(micros(now))
            .execute(&mut *w.tx)
            .await?;
        sqlx::query(
            "INSERT INTO sessions (token_hash, admin_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(admin.id)
        .bind(micros(now))
        .bind(micros(expires_at))
        .execute(&mut *w.tx)
        .await?;
        w.tx.commit().await?;
        Ok(())
    }

    /// The username of a live session.
    pub async fn session_username(
        &self,
        token_hash: &str,
        now: jiff::Timestamp,
    ) -> Result<Option<String>, LedgerError> {
        let row = sqlx::query(
            "SELECT a.username FROM sessions s JOIN admins a ON a.id = s.admin_id \
             WHERE s.token_hash = $1 AND s.expires_at > $2",
        )
        .bind(token_hash)
        .bind(micros(now))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| r.try_get("username")).transpose()?)
    }

    /// Ends a session (logout). Returns whether there was one.
    pub async fn end_session(&self, token_hash: &str) -> Result<bool, LedgerError> {
        let mut w = self.begin_write().await?;
        let ended = sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&mut *w.tx)
            .await?
            .rows_affected()
            == 1;
        w.tx.commit().await?;
        Ok(ended)
    }
}
