//! A member's entries as the chart of their points reads them: in ledger order, every kind, with
//! the id each revocation revokes, and only what the public sees of a publicly frozen period.

use super::public::Viewer;
use super::{Ledger, LedgerError, instant};
use domain::write::{Counted, Effect};
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
        let until = match seen_by {
            Viewer::Public => {
                "(SELECT COALESCE(MAX(p.public_watermark), 9223372036854775807) FROM periods p \
                 WHERE p.board = $1 AND p.period = $2)"
            }
            Viewer::Admin => "9223372036854775807",
        };
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
                let kind: String = r.try_get("kind")?;
                let (delta, value): (Option<i64>, Option<i64>) = (r.try_get("delta")?, r.try_get("value")?);
                let effect = match kind.as_str() {
                    "point" | "correction" => delta.map(Effect::Add),
                    "total" => value
                        .zip(r.try_get::<Option<i64>, _>("set_version")?)
                        .map(|(total, version)| Effect::Total { version, total }),
                    "submission" => value.map(Effect::Submission),
                    _ => None,
                };
                if effect.is_none() && kind != "revocation" {
                    return Err(LedgerError::Corrupt(format!("entry of kind {kind} without its value")));
                }
                Ok(TimelineEntry {
                    id: r.try_get("id")?,
                    occurred_at: instant(r.try_get("occurred_at")?)?,
                    counted: match effect {
                        Some(effect) => Some(Counted { effect, reach_seq: r.try_get("reach_seq")? }),
                        None => None,
                    },
                    revokes: r.try_get("revokes")?,
                    kind,
                })
            })
            .collect()
    }
}
