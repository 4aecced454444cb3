//! The ledger's side of the console's front page (`engine::boards::attention`): counts that read only
//! what they count. Each is one statement; its cost is in its doc comment.

use super::rows::text;
use super::sql::{period_key, slug};
use super::{Ledger, LedgerError, Listing, micros};
use domain::view::{PeriodCount, RewardTrouble};
use domain::{BoardSlug, PeriodKey};
use sqlx::Row;
use std::collections::HashMap;

/// One hour in microseconds: the sparkline's step.
const HOUR_US: i64 = 3_600_000_000;

impl Ledger {
    /// Pending late writes per period, by board and period. Reads the partial index
    /// `late_entries_pending` (migration 0017): the pending rows only, never the decided ones.
    pub async fn pending_late_counts(&self) -> Result<Listing<PeriodCount>, LedgerError> {
        let rows = sqlx::query(
            "SELECT board, period, COUNT(*) AS n FROM late_entries WHERE status = 'pending' \
             GROUP BY board, period ORDER BY board, period",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(Listing::read("late_entries", &rows, super::schedule::period_row_key, |r| {
            Ok(PeriodCount {
                board: slug(r.try_get("board")?)?,
                period: period_key(&r.try_get::<String, _>("period")?)?,
                count: r.try_get::<i64, _>("n")?.max(0) as u64,
            })
        }))
    }

    /// Rewards that failed for good, and pending ones already tried at least once, per period.
    /// Two ranges of the index `rewards_due (status, next_attempt_at)`: the failed rows and the
    /// pending ones (the outbox's undelivered rows; delivered rows are never read).
    pub async fn reward_troubles(&self) -> Result<Listing<RewardTrouble>, LedgerError> {
        let rows = sqlx::query(
            "SELECT board, period, \
                    CAST(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS BIGINT) AS failed, \
                    CAST(SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END) AS BIGINT) AS retrying \
             FROM rewards WHERE status IN ('failed', 'pending') AND (status = 'failed' OR attempts > 0) \
             GROUP BY board, period ORDER BY board, period",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(Listing::read("rewards", &rows, super::schedule::period_row_key, |r| {
            Ok(RewardTrouble {
                board: slug(r.try_get("board")?)?,
                period: period_key(&r.try_get::<String, _>("period")?)?,
                failed: r.try_get::<i64, _>("failed")?.max(0) as u64,
                retrying: r.try_get::<i64, _>("retrying")?.max(0) as u64,
            })
        }))
    }

    /// The ledger's `SUM(version)` of every open or frozen period that has totals, in one
    /// statement: the reconciler's comparison, made once for all live periods (a range of the
    /// totals' key per period, as each reconciler pass reads).
    pub async fn live_version_sums(&self) -> Result<Listing<(BoardSlug, PeriodKey, i64)>, LedgerError> {
        let rows = sqlx::query(
            "SELECT t.board, t.period, CAST(SUM(t.version) AS BIGINT) AS vsum \
             FROM periods p JOIN totals t ON t.board = p.board AND t.period = p.period \
             WHERE p.state IN ('open', 'frozen') GROUP BY t.board, t.period ORDER BY t.board, t.period",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(Listing::read("periods", &rows, super::schedule::period_row_key, |r| {
            Ok((
                slug(r.try_get("board")?)?,
                period_key(&r.try_get::<String, _>("period")?)?,
                r.try_get("vsum")?,
            ))
        }))
    }

    /// Entries recorded per board in each of `hours` hours from `since` (oldest first), by board
    /// slug as stored. One index-only range scan of `entries_by_recorded_at (recorded_at, board)`
    /// (migration 0017) over those hours' entries: its cost grows with the activity of the last
    /// day, never with the ledger's size (SQLite on a 2-core machine: 40 ms for 83 000 entries,
    /// 1.2 s for 2 million). Grouped by hour first: grouped by board first, SQLite's planner
    /// walks `entries_by_member` (in board order) over the whole table instead.
    pub async fn entries_per_hour(
        &self,
        since: jiff::Timestamp,
        hours: usize,
    ) -> Result<HashMap<String, Vec<u64>>, LedgerError> {
        let rows = sqlx::query(&format!(
            "SELECT CAST((recorded_at - $1) / {HOUR_US} AS BIGINT) AS slot, board, COUNT(*) AS n \
             FROM entries WHERE recorded_at >= $1 GROUP BY 1, 2"
        ))
        .bind(micros(since))
        .fetch_all(&self.pool)
        .await?;
        let mut out: HashMap<String, Vec<u64>> = HashMap::new();
        for r in &rows {
            let (slot, n): (i64, i64) = (r.try_get("slot")?, r.try_get("n")?);
            // An entry recorded after the last hour (a clock that stepped back) is not drawn.
            let Some(slot) = usize::try_from(slot).ok().filter(|s| *s < hours) else { continue };
            out.entry(text(r, "board")).or_insert_with(|| vec![0; hours])[slot] += n.max(0) as u64;
        }
        Ok(out)
    }
}
