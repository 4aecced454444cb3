//! The console's front page: what needs an admin's attention first, and each board's activity.
//!
//! "Needs attention" is five lists and a word on Redis, each empty when all is well:
//! - **due periods**: open or frozen periods past their end plus the board's grace (an open one
//!   means the scheduler has not run; a frozen one waits to be settled);
//! - **late writes pending**, counted per period;
//! - **rewards** that failed for good, or are being retried after a failed attempt;
//! - **projection lag**: open or frozen periods whose Redis ranking is not level with the ledger
//!   (the reconciler's `SUM(version)` against `vsum`), checked so that writes in flight cannot
//!   raise it — see `Boards::lagging_periods`;
//! - **keys near their limit**: live ingest keys whose shared GCRA cell leaves less than a
//!   quarter of their burst right now ([`burst_left`]). The cell is the fleet's own count, so
//!   this holds for every instance; it shows keys at their limit in the last `burst / rate`
//!   seconds (2 s with the defaults), not a history (that is `laurel_rate_limited_total`);
//! - **Redis full**: `maxmemory` reached (as `/readyz` tells it), or Redis could not be read.
//!
//! Every part reads only what it reports (the costs are on the ledger's queries,
//! `ledger/attention.rs`: pending late writes by the partial index `late_entries_pending`, the
//! activity by one index-only range of `entries_by_recorded_at (recorded_at, board)`, both
//! migration 0017); Redis is read once per live period and once per live key. The lag check
//! reads Redis before and after the ledger, and lists a period still behind after
//! `LAG_RECHECK` (250 ms). Each item links to the page or section that fixes it
//! (`app/src/pages/console.rs`).
//!
//! **Activity**: each board's entries per UTC hour over the last 24 hours (grouped by hour in the
//! ledger) and its current period's state. The console reads both through `admin_attention` and
//! `admin_activity`.

use super::Boards;
use crate::EngineError;
use domain::apikey::KeyLimits;
use domain::view::{Attention, BoardActivity, DuePeriod, KeyNearLimit, ProjectionLag};
use domain::{BoardSlug, PeriodKey};
use jiff::Timestamp;
use std::collections::HashMap;
use std::time::Duration;

/// Hours a board's activity covers: the current one and the 23 before it.
pub const ACTIVITY_HOURS: usize = 24;

/// How long to wait before looking again at a period found behind: a write committed just before
/// the ledger was read may not have been projected yet (the write path projects right after its
/// commit).
const LAG_RECHECK: Duration = Duration::from_millis(250);

/// Requests a key could still make at once, from how far its GCRA cell runs ahead of now (the
/// cell's TTL: `rate.lua` lets it expire when the whole burst is back). One request is one share
/// of a second; the cell's TTL is rounded up by a millisecond, so the count is rounded to the
/// nearest request.
pub fn burst_left(limits: KeyLimits, ahead: Duration) -> u32 {
    let (share, _) = crate::access::ratelimit::share_and_tolerance(limits);
    let share = share.as_micros().max(1);
    let used = (ahead.as_micros() + share / 2) / share;
    limits.burst.saturating_sub(u32::try_from(used).unwrap_or(u32::MAX))
}

/// Whether a key with `left` of its `burst` is near its limit: less than a quarter left.
pub fn near_limit(left: u32, burst: u32) -> bool {
    u64::from(left) * 4 < u64::from(burst)
}

impl Boards {
    /// Everything that needs an admin's attention now. The ledger's parts fail the call; when
    /// Redis cannot be read, its parts (lag, keys) are left out and the reason is answered.
    pub async fn attention(&self, now: Timestamp) -> Result<Attention, EngineError> {
        let live = self.core.readable("attention", self.core.ledger.live_periods().await?);
        let mut due = Vec::new();
        for (slug, period, state) in &live {
            let board = match self.reads.board(slug).await {
                Ok(board) => board,
                Err(error) => {
                    tracing::warn!(board = %slug, %period, %error, "period left out of the attention list");
                    continue;
                }
            };
            let due_at = board.closes_at(*period);
            if now >= due_at {
                due.push(DuePeriod { board: slug.clone(), period: *period, state: *state, due_at });
            }
        }
        due.sort_by(|a, b| (a.due_at, &a.board).cmp(&(b.due_at, &b.board)));
        let mut attention = Attention {
            due,
            late: self.core.readable("attention", self.core.ledger.pending_late_counts().await?),
            rewards: self.core.readable("attention", self.core.ledger.reward_troubles().await?),
            ..Attention::default()
        };
        let periods: Vec<_> = live.into_iter().map(|(slug, period, _)| (slug, period)).collect();
        let projection = async {
            Ok::<_, EngineError>((
                self.lagging_periods(&periods).await?,
                self.keys_near_limit().await?,
                self.core.projection.memory_full().await?,
            ))
        };
        match projection.await {
            Ok((lagging, keys, full)) => {
                (attention.lagging, attention.keys, attention.redis_full) = (lagging, keys, full)
            }
            Err(EngineError::Redis(error)) => attention.redis_unreadable = Some(error.to_string()),
            Err(error) => return Err(error),
        }
        Ok(attention)
    }

    /// The live periods whose projection is not level with the ledger. Redis is read before and
    /// after the ledger, so that writes committed meanwhile cannot make a level period look off:
    /// the ledger's sum only grows, so Redis *ahead* of it before it was read is ahead for sure
    /// (the reconciler never lowers a version: a rebuild fixes it), and Redis *behind* it after it
    /// was read is behind unless a projection was still on its way — looked at again after
    /// [`LAG_RECHECK`]. A period that is behind is levelled by the reconciler within a pass; one
    /// listed here for long means the reconciler cannot level it.
    async fn lagging_periods(
        &self,
        periods: &[(BoardSlug, PeriodKey)],
    ) -> Result<Vec<ProjectionLag>, EngineError> {
        let mut before = Vec::with_capacity(periods.len());
        for (slug, period) in periods {
            before.push(self.core.projection.version_sum(slug, period).await?);
        }
        let ledger: HashMap<(BoardSlug, PeriodKey), i64> = self
            .core
            .readable("attention", self.core.ledger.live_version_sums().await?)
            .into_iter()
            .map(|(slug, period, sum)| ((slug, period), sum))
            .collect();
        let mut lagging = Vec::new();
        let mut behind = Vec::new();
        for ((slug, period), projected_before) in periods.iter().zip(before) {
            let in_ledger = ledger.get(&(slug.clone(), *period)).copied().unwrap_or(0);
            let lag = |projected| ProjectionLag {
                board: slug.clone(),
                period: *period,
                ledger: in_ledger,
                projected,
            };
            if projected_before > in_ledger {
                lagging.push(lag(projected_before));
                continue;
            }
            let projected_after = self.core.projection.version_sum(slug, period).await?;
            if projected_after < in_ledger {
                behind.push(lag(projected_after));
            }
        }
        if !behind.is_empty() {
            tokio::time::sleep(LAG_RECHECK).await;
            for mut lag in behind {
                lag.projected = self.core.projection.version_sum(&lag.board, &lag.period).await?;
                if lag.projected < lag.ledger {
                    lagging.push(lag);
                }
            }
        }
        lagging.sort_by(|a, b| (&a.board, a.period).cmp(&(&b.board, b.period)));
        Ok(lagging)
    }

    /// Live ingest keys with less than a quarter of their burst left right now, read from their
    /// shared cells (`PTTL <prefix>:rl:{k<id>}`: a missing cell is a full burst).
    async fn keys_near_limit(&self) -> Result<Vec<KeyNearLimit>, EngineError> {
        let keys = self.core.ledger.api_keys().await?;
        let mut near = Vec::new();
        for key in keys.into_iter().filter(|k| k.is_live()) {
            let ahead = self.core.projection.rate_ahead(key.id).await?;
            let left = burst_left(key.limits(), ahead);
            if near_limit(left, key.burst) {
                near.push(KeyNearLimit {
                    id: key.id,
                    prefix: key.prefix,
                    rate_per_second: key.rate_per_second,
                    burst: key.burst,
                    burst_left: left,
                });
            }
        }
        Ok(near)
    }

    /// Every board with its entries per hour over the last [`ACTIVITY_HOURS`] whole UTC hours
    /// (the current one still running) and its current period's state: one indexed count for all
    /// boards, and one period row per board.
    pub async fn board_activity(&self, now: Timestamp) -> Result<Vec<BoardActivity>, EngineError> {
        let boards = self.core.readable("boards", self.core.ledger.boards().await?);
        let hour = now.as_second().div_euclid(3600);
        let since = Timestamp::from_second((hour - ACTIVITY_HOURS as i64 + 1) * 3600)
            .map_err(|e| EngineError::Invalid(e.to_string()))?;
        let mut counts = self.core.ledger.entries_per_hour(since, ACTIVITY_HOURS).await?;
        let mut out = Vec::with_capacity(boards.len());
        for board in boards {
            let summary = crate::reads::summary(&board, now);
            let state = self.core.ledger.state_of(&board.slug, &summary.current_period).await?;
            let per_hour = counts.remove(board.slug.as_str()).unwrap_or_else(|| vec![0; ACTIVITY_HOURS]);
            out.push(BoardActivity { board: summary, state, since, per_hour });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(rate_per_second: u32, burst: u32) -> KeyLimits {
        KeyLimits { rate_per_second, burst }
    }

    #[test]
    fn the_burst_left_counts_the_requests_the_cell_runs_ahead() {
        // No cell: the whole burst.
        assert_eq!(burst_left(limits(1, 2), Duration::ZERO), 2);
        // rate.lua's TTL is the cell's lead rounded up by a millisecond.
        assert_eq!(burst_left(limits(1, 2), Duration::from_millis(1001)), 1);
        assert_eq!(burst_left(limits(1, 2), Duration::from_millis(2001)), 0);
        assert_eq!(burst_left(limits(50, 100), Duration::from_millis(1000)), 50);
        assert_eq!(burst_left(limits(50, 100), Duration::from_secs(60)), 0);
    }

    #[test]
    fn near_means_less_than_a_quarter_left() {
        assert!(near_limit(0, 1));
        assert!(!near_limit(1, 1));
        assert!(near_limit(24, 100));
        assert!(!near_limit(25, 100));
        assert!(!near_limit(20_000, 20_000));
    }
}
