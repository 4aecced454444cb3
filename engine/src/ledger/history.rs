//! A member's entries as the chart of their points reads them: in ledger order, every kind, with
//! the id each revocation revokes, and only what the public sees of a publicly frozen period.

use super::public::Viewer;
use super::sql::entry_effect;
use super::{Ledger, LedgerError, instant};
use domain::write::Counted;
use domain::{BoardSlug, MemberId, PeriodKey};
use sqlx::Row;

/// One entry as the points chart replays it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineEntry {
    pub id: i64,
    pub kind: String,
    /// When it happened (for corrections and revocations: when they were made).
    pub occurred_at: jiff::Timestamp,
    /// What the entry does to the total (None for a revocation).
    pub counted: Option<Counted>,
    /// The entry a revocation revokes.
    pub revokes: Option<i64>,
}

impl Ledger {
    /// Up to `limit` of a member's entries in a period, first recorded first, as `seen_by` sees them:
    /// the public sees no entry after a public freeze's watermark (the rule of
    /// [`Ledger::member_entries`], read in the same statement).
    pub async fn member_timeline(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        member: &MemberId,
        limit: u64,
        seen_by: Viewer,
    ) -> Result<Vec<TimelineEntry>, LedgerError> {
        let until = seen_by.last_entry_seen();
        let rows = sqlx::query(&format!(
            "SELECT e.id, e.kind, e.delta, e.value, e.set_version, e.reach_seq, e.occurred_at, e.revokes \
             FROM entries e WHERE e.board = $1 AND e.period = $2 AND e.member = $3 AND e.id <= {until} \
             ORDER BY e.id LIMIT $4",
        ))
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(member.as_str())
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let effect = entry_effect(r)?;
                Ok(TimelineEntry {
                    id: r.try_get("id")?,
                    occurred_at: instant(r.try_get("occurred_at")?)?,
                    counted: match effect {
                        Some(effect) => Some(Counted { effect, reach_seq: r.try_get("reach_seq")? }),
                        None => None,
                    },
                    revokes: r.try_get("revokes")?,
                    kind: r.try_get("kind")?,
                })
            })
            .collect()
    }
}
