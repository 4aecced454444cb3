//! Receipts in the ledger: each settlement revision's Merkle root and chain link (migration 0023,
//! `domain::receipt`). A settlement, a re-settlement and an import store both; a revision written
//! before 0023 stored neither, and gets them computed here on read from its standings, so a
//! receipt of it verifies as one of a newer revision does.

use super::standings::read_standings;
use super::{Ledger, LedgerError};
use domain::receipt::{ChainLink, Tree, link};
use domain::{BoardSlug, PeriodKey};
use sqlx::Row;

/// Every settlement revision of a period as a chain link, oldest first (empty when never settled).
pub(super) async fn chain_in(
    conn: &mut sqlx::AnyConnection,
    board: &str,
    period: &str,
) -> Result<Vec<ChainLink>, LedgerError> {
    let rows = sqlx::query(
        "SELECT revision, digest, merkle_root, link FROM settlements WHERE board = $1 AND period = $2 \
         ORDER BY revision",
    )
    .bind(board)
    .bind(period)
    .fetch_all(&mut *conn)
    .await?;
    let mut chain: Vec<ChainLink> = Vec::with_capacity(rows.len());
    for row in &rows {
        let revision: i64 = row.try_get("revision")?;
        let digest: String = row.try_get("digest")?;
        let root = match row.try_get::<Option<String>, _>("merkle_root")? {
            Some(root) => root,
            None => {
                let standings = read_standings(&mut *conn, board, period, revision, 0, u64::MAX).await?;
                Tree::of_standings(&standings).root()
            }
        };
        let previous_link = chain.last().map(|c| c.link.clone());
        let link = match row.try_get::<Option<String>, _>("link")? {
            Some(link) => link,
            None => link(board, period, revision, previous_link.as_deref(), &digest, &root),
        };
        chain.push(ChainLink { revision, previous_link, digest, root, link });
    }
    Ok(chain)
}

/// A settlement revision's chain fields as stored: root and link are None before migration 0023.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLink {
    pub revision: i64,
    pub digest: String,
    pub root: Option<String>,
    pub link: Option<String>,
}

impl Ledger {
    /// Every settlement revision's chain fields as stored, oldest first (one indexed range read).
    pub async fn settlement_links(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Vec<StoredLink>, LedgerError> {
        let rows = sqlx::query(
            "SELECT revision, digest, merkle_root, link FROM settlements WHERE board = $1 AND period = $2 \
             ORDER BY revision",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(StoredLink {
                    revision: r.try_get("revision")?,
                    digest: r.try_get("digest")?,
                    root: r.try_get("merkle_root")?,
                    link: r.try_get("link")?,
                })
            })
            .collect()
    }

    /// The receipts tree of one settlement revision: all its standings, read and hashed.
    pub async fn receipt_tree(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        revision: i64,
    ) -> Result<Tree, LedgerError> {
        Ok(Tree::of_standings(&self.standings(board, period, revision, 0, u64::MAX).await?))
    }
}
