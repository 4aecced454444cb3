//! Leases: work that exactly one process among several must do (the scheduler) is done by the
//! holder of a named lease row. A lease is taken when it is free, expired, or already ours; it
//! lasts `ttl` and is renewed by taking it again. Every change of holder raises `token`, a fencing
//! token: work done under a lease checks that the token is still the current one.
//!
//! Taking a lease is one statement, `INSERT … ON CONFLICT (name) DO UPDATE … WHERE <expired or
//! ours> RETURNING`: PostgreSQL locks the conflicting row and evaluates the `WHERE` against its
//! latest version, so of several concurrent takers exactly one gets a row back. On SQLite the
//! statement runs under the ledger's in-process writer lock; several processes on one SQLite
//! file are not supported (the ledger's rule: one process per SQLite file, PostgreSQL for
//! several instances), so there the lease only matters between engines of one process.
//!
//! Instants are the callers' clocks (BIGINT microseconds, like every ledger instant): holders
//! on different hosts must have clocks that agree to well within the lease's TTL.

use super::{Ledger, LedgerError, instant, micros};
use sqlx::Row;
use std::time::Duration;

/// A lease as its holder sees it after taking or renewing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    /// Rises by one with every new holder; unchanged by a renewal.
    pub token: i64,
    /// The holder must renew before this instant; afterwards anyone may take the lease.
    pub expires_at: jiff::Timestamp,
}

/// A lease row as stored (whoever holds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRow {
    pub holder: String,
    pub token: i64,
    pub expires_at: jiff::Timestamp,
}

impl Ledger {
    /// Takes or renews the lease `name` for `holder` until `now + ttl`. Answers None when another
    /// holder has it and it has not expired at `now`. A renewal keeps the token; a new holder gets
    /// the previous token + 1 (1 for a lease never taken before).
    pub async fn acquire_lease(
        &self,
        name: &str,
        holder: &str,
        ttl: Duration,
        now: jiff::Timestamp,
    ) -> Result<Option<Lease>, LedgerError> {
        let ttl = jiff::SignedDuration::try_from(ttl).unwrap_or(jiff::SignedDuration::MAX);
        let expires_at = now.checked_add(ttl).unwrap_or(jiff::Timestamp::MAX);
        let (ledger, name, holder) = (self.clone(), name.to_owned(), holder.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            // SET expressions read the row as it was, so the token compares the old holder.
            let row = sqlx::query(
                "INSERT INTO leases (name, holder, token, expires_at) VALUES ($1, $2, 1, $3) \
                 ON CONFLICT (name) DO UPDATE SET \
                   token = CASE WHEN leases.holder = excluded.holder THEN leases.token \
                                ELSE leases.token + 1 END, \
                   holder = excluded.holder, \
                   expires_at = excluded.expires_at \
                 WHERE leases.holder = excluded.holder OR leases.expires_at <= $4 \
                 RETURNING token, expires_at",
            )
            .bind(&name)
            .bind(&holder)
            .bind(micros(expires_at))
            .bind(micros(now))
            .fetch_optional(&mut *w.tx)
            .await?;
            w.tx.commit().await?;
            row.map(|r| {
                Ok(Lease { token: r.try_get("token")?, expires_at: instant(r.try_get("expires_at")?)? })
            })
            .transpose()
        })
        .await
    }

    /// Gives the lease up at once (if `holder` has it), so another process can take it without
    /// waiting for the TTL. The row stays, so the next holder's token still rises.
    pub async fn release_lease(&self, name: &str, holder: &str) -> Result<bool, LedgerError> {
        let (ledger, name, holder) = (self.clone(), name.to_owned(), holder.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let done = sqlx::query("UPDATE leases SET expires_at = $1 WHERE name = $2 AND holder = $3")
                .bind(0_i64)
                .bind(&name)
                .bind(&holder)
                .execute(&mut *w.tx)
                .await?;
            w.tx.commit().await?;
            Ok(done.rows_affected() > 0)
        })
        .await
    }

    /// Whether `holder` still holds `name` with `token` at `now`: the fence checked before each
    /// piece of work done under a lease.
    pub async fn holds_lease(
        &self,
        name: &str,
        holder: &str,
        token: i64,
        now: jiff::Timestamp,
    ) -> Result<bool, LedgerError> {
        let row = sqlx::query(
            "SELECT 1 AS held FROM leases WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > $4",
        )
        .bind(name)
        .bind(holder)
        .bind(token)
        .bind(micros(now))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_some())
    }

    /// The lease row `name`, if it was ever taken (expired or not).
    pub async fn lease(&self, name: &str) -> Result<Option<LeaseRow>, LedgerError> {
        let row = sqlx::query("SELECT holder, token, expires_at FROM leases WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            Ok(LeaseRow {
                holder: r.try_get("holder")?,
                token: r.try_get("token")?,
                expires_at: instant(r.try_get("expires_at")?)?,
            })
        })
        .transpose()
    }
}
