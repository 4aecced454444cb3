//! A period's entries as they stood at an instant, for the board as of that moment
//! (`domain::asof` replays them, `engine::asof` serves them).
//!
//! One read transaction (one snapshot on either backend) reads the entries recorded by the
//! instant, each member's together in ledger order — the order of the index `entries_by_member`
//! (board, period, member, id), so neither backend sorts — in pages of [`PAGE`] by the row value
//! (member, id), and the members hidden now. No index of its own: `recorded_at` is filtered on the
//! rows the index walks, so writes pay nothing for this read.

use super::public::Viewer;
use super::sql::{entry_effect, member_id};
use super::{Backend, Ledger, LedgerError, micros};
use domain::asof::PastEntry;
use domain::write::Counted;
use domain::{BoardSlug, MemberId, PeriodKey};
use sqlx::Row;
use std::collections::HashSet;

/// Entries per statement.
const PAGE: i64 = 50_000;

/// What [`Ledger::past`] read.
#[derive(Debug, Default)]
pub struct Past {
    /// Each member's entries together, in ledger order.
    pub entries: Vec<PastEntry>,
    /// Members hidden in the period now: out of every view of it, as on the ranking.
    pub hidden: HashSet<MemberId>,
}

impl Ledger {
    /// The entries of a period recorded by `at` (revocations included), as `seen_by` sees them:
    /// the public sees no entry after a public freeze's watermark, read in the same statement.
    pub async fn past(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        at: jiff::Timestamp,
        seen_by: Viewer,
    ) -> Result<Past, LedgerError> {
        let (slug, key) = (board.as_str(), period.to_string());
        let mut tx = self.pool.begin().await?;
        if self.backend == Backend::Postgres {
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ").execute(&mut *tx).await?;
        }
        let until = seen_by.last_entry_seen();
        let sql = format!(
            "SELECT e.id, e.member, e.kind, e.delta, e.value, e.set_version, e.reach_seq, e.revokes \
             FROM entries e WHERE e.board = $1 AND e.period = $2 AND (e.member, e.id) > ($3, $4) \
             AND e.recorded_at <= $5 AND e.id <= {until} ORDER BY e.member, e.id LIMIT $6"
        );
        let mut past = Past::default();
        let (mut after_member, mut after_id) = (String::new(), 0i64);
        loop {
            let rows = sqlx::query(&sql)
                .bind(slug)
                .bind(&key)
                .bind(&after_member)
                .bind(after_id)
                .bind(micros(at))
                .bind(PAGE)
                .fetch_all(&mut *tx)
                .await?;
            let full = rows.len() as i64 == PAGE;
            for r in &rows {
                let member: String = r.try_get("member")?;
                let id: i64 = r.try_get("id")?;
                let reach_seq = r.try_get("reach_seq")?;
                let counted = entry_effect(r)?.map(|effect| Counted { effect, reach_seq });
                // A member's entries come together: parse their id once.
                let member = match past.entries.last() {
                    Some(last) if last.member.as_str() == member => last.member.clone(),
                    _ => member_id(member)?,
                };
                past.entries.push(PastEntry { id, member, counted, revokes: r.try_get("revokes")? });
            }
            match past.entries.last() {
                Some(last) if full => (after_member, after_id) = (last.member.as_str().to_owned(), last.id),
                _ => break,
            }
        }
        let hidden = sqlx::query("SELECT member FROM totals WHERE board = $1 AND period = $2 AND hidden = 1")
            .bind(slug)
            .bind(&key)
            .fetch_all(&mut *tx)
            .await?;
        for r in hidden {
            past.hidden.insert(member_id(r.try_get("member")?)?);
        }
        tx.commit().await?;
        Ok(past)
    }
}
