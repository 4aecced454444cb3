//! Hot board definitions. A hot board's hits and rankings live in Redis alone; the ledger keeps
//! only what an admin created, so every instance knows the same boards.

use super::{Ledger, LedgerError, micros};
use domain::BoardSlug;
use domain::hot::{HotBoard, HotRules};
use sqlx::Row;
use sqlx::any::AnyRow;

impl Ledger {
    /// Stores a new hot board. Returns false (and changes nothing) when the slug names a board of
    /// either kind.
    pub async fn create_hot_board(
        &self,
        board: &HotBoard,
        now: jiff::Timestamp,
    ) -> Result<bool, LedgerError> {
        let (ledger, board) = (self.clone(), board.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            ledger.lock_board_slugs(&mut w.tx).await?;
            let inserted = sqlx::query(
                "INSERT INTO hot_boards (slug, title, rules, created_at) \
                 SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM boards WHERE slug = $1) \
                 ON CONFLICT (slug) DO NOTHING",
            )
            .bind(board.slug.as_str())
            .bind(&board.title)
            .bind(serde_json::to_string(&board.rules).expect("rules serialise"))
            .bind(micros(now))
            .execute(&mut *w.tx)
            .await?
            .rows_affected()
                == 1;
            w.tx.commit().await?;
            Ok(inserted)
        })
        .await
    }

    pub async fn hot_board(&self, slug: &BoardSlug) -> Result<Option<HotBoard>, LedgerError> {
        sqlx::query("SELECT slug, title, rules FROM hot_boards WHERE slug = $1")
            .bind(slug.as_str())
            .fetch_optional(&self.pool)
            .await?
            .map(|row| hot_board_from_row(&row))
            .transpose()
    }

    pub async fn hot_boards(&self) -> Result<super::Listing<HotBoard>, LedgerError> {
        let rows = sqlx::query("SELECT slug, title, rules FROM hot_boards ORDER BY slug")
            .fetch_all(&self.pool)
            .await?;
        Ok(super::Listing::read("hot_boards", &rows, |r| super::rows::text(r, "slug"), hot_board_from_row))
    }
}

fn hot_board_from_row(row: &AnyRow) -> Result<HotBoard, LedgerError> {
    let corrupt = |what: String| LedgerError::Corrupt(what);
    let rules: HotRules = serde_json::from_str(&row.try_get::<String, _>("rules")?)
        .map_err(|e| corrupt(format!("hot board rules: {e}")))?;
    Ok(HotBoard {
        slug: BoardSlug::parse(row.try_get::<String, _>("slug")?).map_err(|e| corrupt(e.to_string()))?,
        title: row.try_get("title")?,
        rules,
    })
}
