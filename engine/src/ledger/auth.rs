//! Admin tokens and ingest keys. Only SHA-256 digests are stored; the secrets are shown once.
//! Creating and revoking a key write their audit rows in the same transaction.

use super::audit::{AuditRecord, record as audit};
use super::{Ledger, LedgerError, instant, micros};
use domain::BoardSlug;
use domain::apikey::{ApiKeyView, KeyLimits};
use serde_json::json;
use sqlx::Row;
use sqlx::any::AnyRow;
use std::collections::HashMap;

impl Ledger {
    pub async fn store_admin_token(&self, token_hash: &str, now: jiff::Timestamp) -> Result<(), LedgerError> {
        let mut w = self.begin_write().await?;
        sqlx::query("INSERT INTO admin_tokens (token_hash, created_at) VALUES ($1, $2)")
            .bind(token_hash)
            .bind(micros(now))
            .execute(&mut *w.tx)
            .await?;
        w.tx.commit().await?;
        Ok(())
    }

    /// The id of the admin token with this digest, if there is one.
    pub async fn admin_token_id(&self, token_hash: &str) -> Result<Option<i64>, LedgerError> {
        let row = sqlx::query("SELECT id FROM admin_tokens WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("id")).transpose()?)
    }

    /// Stores an ingest key allowed to write to `boards` (which must exist, checked by the
    /// engine), with its audit row (`apikey_create`, never the secret or its digest) in the same
    /// transaction. Answers the key as listed.
    pub async fn store_api_key(
        &self,
        new: NewApiKey,
        actor: &str,
        now: jiff::Timestamp,
    ) -> Result<ApiKeyView, LedgerError> {
        let (ledger, actor) = (self.clone(), actor.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let id: i64 = sqlx::query(
                "INSERT INTO api_keys (key_prefix, key_hash, created_at, rate_per_second, burst, created_by) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            )
            .bind(&new.prefix)
            .bind(&new.hash)
            .bind(micros(now))
            .bind(i64::from(new.limits.rate_per_second))
            .bind(i64::from(new.limits.burst))
            .bind(&actor)
            .fetch_one(&mut *w.tx)
            .await?
            .try_get("id")?;
            for board in &new.boards {
                sqlx::query("INSERT INTO api_key_boards (key_id, board) VALUES ($1, $2)")
                    .bind(id)
                    .bind(board.as_str())
                    .execute(&mut *w.tx)
                    .await?;
            }
            let view = ApiKeyView {
                id,
                prefix: new.prefix,
                boards: new.boards.iter().map(|b| b.as_str().to_owned()).collect(),
                rate_per_second: new.limits.rate_per_second,
                burst: new.limits.burst,
                // As stored: to the microsecond.
                created_at: instant(micros(now))?,
                created_by: Some(actor.clone()),
                revoked_at: None,
                revoked_by: None,
            };
            let record = AuditRecord {
                actor: &actor,
                action: "apikey_create",
                after: Some(audit_state(&view)),
                ..AuditRecord::default()
            };
            audit(&mut w.tx, &record, now).await?;
            w.tx.commit().await?;
            Ok(view)
        })
        .await
    }

    /// Every ingest key, live and revoked, oldest first.
    pub async fn api_keys(&self) -> Result<Vec<ApiKeyView>, LedgerError> {
        let rows = sqlx::query(&format!("{KEY_COLUMNS} ORDER BY id")).fetch_all(&self.pool).await?;
        let mut boards: HashMap<i64, Vec<String>> = HashMap::new();
        for row in sqlx::query("SELECT key_id, board FROM api_key_boards ORDER BY key_id, board")
            .fetch_all(&self.pool)
            .await?
        {
            boards.entry(row.try_get("key_id")?).or_default().push(row.try_get("board")?);
        }
        rows.iter()
            .map(|r| {
                let id: i64 = r.try_get("id")?;
                key_view(r, boards.remove(&id).unwrap_or_default())
            })
            .collect()
    }

    /// One ingest key, live or revoked.
    pub async fn api_key(&self, id: i64) -> Result<Option<ApiKeyView>, LedgerError> {
        let Some(row) =
            sqlx::query(&format!("{KEY_COLUMNS} WHERE id = $1")).bind(id).fetch_optional(&self.pool).await?
        else {
            return Ok(None);
        };
        let boards = key_boards(&self.pool, id).await?;
        Ok(Some(key_view(&row, boards)?))
    }

    /// Revokes an ingest key, with its audit row (`apikey_revoke`) in the same transaction. A key
    /// revoked before is answered as it is, and nothing is written; an unknown id is `Missing`.
    pub async fn revoke_api_key(
        &self,
        id: i64,
        actor: &str,
        reason: Option<&str>,
        now: jiff::Timestamp,
    ) -> Result<ApiKeyView, LedgerError> {
        let (ledger, actor, reason) = (self.clone(), actor.to_owned(), reason.map(str::to_owned));
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            // Only a live key changes: of two revokes at once, one updates and the other finds
            // the key revoked.
            let revoked = sqlx::query(
                "UPDATE api_keys SET revoked_at = $1, revoked_by = $2 WHERE id = $3 AND revoked_at IS NULL",
            )
            .bind(micros(now))
            .bind(&actor)
            .bind(id)
            .execute(&mut *w.tx)
            .await?
            .rows_affected()
                == 1;
            let row = sqlx::query(&format!("{KEY_COLUMNS} WHERE id = $1"))
                .bind(id)
                .fetch_optional(&mut *w.tx)
                .await?
                .ok_or_else(|| LedgerError::Missing(format!("api key {id}")))?;
            let boards = key_boards(&mut *w.tx, id).await?;
            let view = key_view(&row, boards)?;
            if revoked {
                let before = ApiKeyView { revoked_at: None, revoked_by: None, ..view.clone() };
                let record = AuditRecord {
                    actor: &actor,
                    action: "apikey_revoke",
                    reason: reason.as_deref(),
                    before: Some(audit_state(&before)),
                    after: Some(audit_state(&view)),
                    ..AuditRecord::default()
                };
                audit(&mut w.tx, &record, now).await?;
            }
            w.tx.commit().await?;
            Ok(view)
        })
        .await
    }

    /// What a live (not revoked) key may do; None when the key is unknown or revoked.
    pub async fn api_key_scope(&self, key_hash: &str) -> Result<Option<StoredScope>, LedgerError> {
        let Some(key) = sqlx::query(
            "SELECT id, key_prefix, rate_per_second, burst FROM api_keys \
             WHERE key_hash = $1 AND revoked_at IS NULL",
        )
        .bind(key_hash)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let id: i64 = key.try_get("id")?;
        Ok(Some(StoredScope {
            id,
            prefix: key.try_get("key_prefix")?,
            limits: limits(&key)?,
            boards: key_boards(&self.pool, id).await?,
        }))
    }
}

/// An ingest key to store: its shown prefix, the digest of its secret, its boards and limits.
#[derive(Debug, Clone)]
pub struct NewApiKey {
    pub prefix: String,
    pub hash: String,
    pub boards: Vec<BoardSlug>,
    pub limits: KeyLimits,
}

/// A live key as the ledger holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredScope {
    pub id: i64,
    pub prefix: String,
    pub limits: KeyLimits,
    pub boards: Vec<String>,
}

const KEY_COLUMNS: &str = "SELECT id, key_prefix, rate_per_second, burst, created_at, created_by, \
    revoked_at, revoked_by FROM api_keys";

/// What the audit trail keeps of a key: the listing fields, never the secret or its digest.
fn audit_state(key: &ApiKeyView) -> serde_json::Value {
    json!({
        "id": key.id,
        "prefix": key.prefix,
        "boards": key.boards,
        "rate_per_second": key.rate_per_second,
        "burst": key.burst,
        "revoked": !key.is_live(),
    })
}

fn limits(row: &AnyRow) -> Result<KeyLimits, LedgerError> {
    let bounded = |name: &str| -> Result<u32, LedgerError> {
        let n: i64 = row.try_get(name)?;
        u32::try_from(n).map_err(|_| LedgerError::Corrupt(format!("api key {name} {n}")))
    };
    Ok(KeyLimits { rate_per_second: bounded("rate_per_second")?, burst: bounded("burst")? })
}

fn key_view(row: &AnyRow, boards: Vec<String>) -> Result<ApiKeyView, LedgerError> {
    let limits = limits(row)?;
    Ok(ApiKeyView {
        id: row.try_get("id")?,
        prefix: row.try_get("key_prefix")?,
        boards,
        rate_per_second: limits.rate_per_second,
        burst: limits.burst,
        created_at: instant(row.try_get("created_at")?)?,
        created_by: row.try_get("created_by")?,
        revoked_at: row.try_get::<Option<i64>, _>("revoked_at")?.map(instant).transpose()?,
        revoked_by: row.try_get("revoked_by")?,
    })
}

async fn key_boards<'e>(
    executor: impl sqlx::Executor<'e, Database = sqlx::Any>,
    id: i64,
) -> Result<Vec<String>, LedgerError> {
    let rows = sqlx::query("SELECT board FROM api_key_boards WHERE key_id = $1 ORDER BY board")
        .bind(id)
        .fetch_all(executor)
        .await?;
    Ok(rows.iter().map(|r| r.try_get("board")).collect::<Result<_, _>>()?)
}
