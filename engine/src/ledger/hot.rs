//! Hot board definitions. A hot board's hits and rankings live in Redis alone; the ledger keeps
//! only what an admin created, so every instance knows the same boards.

use super::{Ledger, LedgerError, micros};
use domain::BoardSlug;
use domain::hot::{HotBoard, HotFilter, HotRules};
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

    /// Replaces a hot board's hit filter (the one rule that may change after creation), with an
    /// audit row (`hot_filter`, the filters before and after). Returns the board as it now is, or
    /// None when there is no such hot board.
    pub async fn set_hot_filter(
        &self,
        slug: &BoardSlug,
        filter: &HotFilter,
        actor: &str,
        now: jiff::Timestamp,
    ) -> Result<Option<HotBoard>, LedgerError> {
        let (ledger, slug, filter, actor) = (self.clone(), slug.clone(), filter.clone(), actor.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let row = sqlx::query("SELECT slug, title, rules FROM hot_boards WHERE slug = $1")
                .bind(slug.as_str())
                .fetch_optional(&mut *w.tx)
                .await?;
            let Some(row) = row else { return Ok(None) };
            let mut board = hot_board_from_row(&row)?;
            let before = std::mem::replace(&mut board.rules.filter, filter);
            let as_json = |f: &HotFilter| serde_json::to_value(f).expect("filter serialises");
            let record = super::audit::AuditRecord {
                actor: &actor,
                action: "hot_filter",
                board: Some(slug.as_str()),
                before: Some(as_json(&before)),
                after: Some(as_json(&board.rules.filter)),
                ..Default::default()
            };
            super::audit::record(&mut w.tx, &record, now).await?;
            sqlx::query("UPDATE hot_boards SET rules = $2 WHERE slug = $1")
                .bind(slug.as_str())
                .bind(serde_json::to_string(&board.rules).expect("rules serialise"))
                .execute(&mut *w.tx)
                .await?;
            w.tx.commit().await?;
            Ok(Some(board))
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
