//! Admin tokens and ingest keys. Only SHA-256 digests are stored; the secrets are shown once.

use super::{Ledger, LedgerError, micros};
use domain::BoardSlug;
use sqlx::Row;

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

    /// Stores an ingest key allowed to write to `boards` (which must exist).
    pub async fn store_api_key(
        &self,
        key_prefix: &str,
        key_hash: &str,
        boards: &[BoardSlug],
        now: jiff::Timestamp,
    ) -> Result<(), LedgerError> {
        let mut w = self.begin_write().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO api_keys (key_prefix, key_hash, created_at) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(key_prefix)
        .bind(key_hash)
        .bind(micros(now))
        .fetch_one(&mut *w.tx)
        .await?
        .try_get("id")?;
        for board in boards {
            sqlx::query("INSERT INTO api_key_boards (key_id, board) VALUES ($1, $2)")
                .bind(id)
                .bind(board.as_str())
                .execute(&mut *w.tx)
                .await?;
        }
        w.tx.commit().await?;
        Ok(())
    }

    /// The boards a live (not revoked) key may write to; None when the key is unknown or revoked.
    pub async fn api_key_boards(&self, key_hash: &str) -> Result<Option<Vec<String>>, LedgerError> {
        let Some(key) = sqlx::query("SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL")
            .bind(key_hash)
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let id: i64 = key.try_get("id")?;
        let rows = sqlx::query("SELECT board FROM api_key_boards WHERE key_id = $1")
            .bind(id)
            .fetch_all(&self.pool)
            .await?;
        Ok(Some(rows.iter().map(|r| r.try_get("board")).collect::<Result<_, _>>()?))
    }
}
