//! Reads without Redis. When the projection cannot be read, a period's live ranking is served
//! from the ledger's totals — the truth the projection mirrors — in exactly the projection's
//! order: the same encoded scores (`ScoreCodec::encode`), equal scores by member id descending
//! (byte order, as Redis orders them), hidden members left out. Pages built from it say
//! `source: ledger`. A failed read is therefore never taken for an empty board.
//!
//! After a failure the projection pauses ranking reads and write-path projections for a second
//! (`Projection::guarded`), so a read does not wait for a reconnect: a live read that fails, or is
//! paused, is answered from here. Pages, counts and ranks carry `source` (`redis`, `ledger`, or
//! `standings` for an archived period); the board page shows a notice for `ledger`.
//!
//! Cost: one read of the period's totals per [`LEDGER_ORDER_TTL`] per process, sorted in memory
//! and shared by every reader meanwhile (about 60 bytes a member). Nothing is added to the write
//! path (no index on the totals' order), which is why the order is held in memory instead of
//! asked of SQL page by page. Snapshots are Redis copies and have no fallback (503).

use super::Reads;
use crate::EngineError;
use crate::redis::{ProjectedTotal, RawPage, Window};
use domain::segment::Segment;
use domain::{Board, BoardSlug, MemberId, PeriodKey, TiePolicy};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one read of a period's totals answers the reads that fall back to the ledger.
pub const LEDGER_ORDER_TTL: Duration = Duration::from_secs(2);

/// A period's ranking as the ledger holds it, best first.
pub(crate) struct LedgerOrder {
    at: Instant,
    rows: Vec<(MemberId, i64)>,
    positions: HashMap<MemberId, usize>,
    tie_base: i64,
}

/// The orders read recently, by board and period. Loading holds the one lock, so concurrent
/// readers wait for that read instead of starting their own — readers of other periods too, which
/// is acceptable only because this path runs while Redis is down (a lock per period would lift it).
#[derive(Default)]
/// Keyed by period, whether the order is the public view of a publicly frozen period, and the
/// segment value whose ranking it is (None: the board's).
pub struct LedgerOrders(tokio::sync::Mutex<HashMap<OrderKey, Arc<LedgerOrder>>>);

type OrderKey = (BoardSlug, PeriodKey, bool, Option<Segment>);

impl LedgerOrder {
    fn new(totals: Vec<ProjectedTotal>, tie_base: i64) -> Self {
        let mut rows: Vec<(MemberId, i64)> =
            totals.into_iter().filter(|t| !t.hidden).map(|t| (t.member, t.score)).collect();
        rows.sort_unstable_by(|(m1, s1), (m2, s2)| s2.cmp(s1).then_with(|| m2.cmp(m1)));
        let positions = rows.iter().enumerate().map(|(i, (m, _))| (m.clone(), i)).collect();
        Self { at: Instant::now(), rows, positions, tie_base }
    }

    fn points(&self, score: i64) -> i64 {
        score.div_euclid(self.tie_base)
    }

    /// The window `Projection::window` would answer (`window.lua`), or None for an absent member.
    pub(crate) fn window(&self, window: Window<'_>, limit: u64) -> Option<RawPage> {
        let total = self.rows.len();
        let (offset, limit) = match window {
            Window::Offset(offset) => (usize::try_from(offset).unwrap_or(usize::MAX), limit as usize),
            Window::Around { member, radius } => {
                let at = *self.positions.get(member)?;
                let from = at.saturating_sub(radius as usize);
                (from, at - from + radius as usize + 1)
            }
            // Everything strictly after (score, member) in (score desc, member desc) order: the
            // cursor itself sorts before (or at) it.
            Window::After { score, member } => (
                self.rows.partition_point(|(m, s)| *s > score || (*s == score && m >= member)),
                limit as usize,
            ),
        };
        let page = self.rows.get(offset.min(total)..offset.saturating_add(limit).min(total)).unwrap_or(&[]);
        let next = self.rows.get(offset.saturating_add(limit)).map(|(_, s)| *s);
        let ahead = page.first().map_or(0, |(_, first)| {
            let first = self.points(*first);
            self.rows.partition_point(|(_, s)| self.points(*s) > first)
        });
        Some(RawPage {
            total: total as u64,
            offset: offset as u64,
            ahead: ahead as u64,
            rows: page.to_vec(),
            next,
            // The ledger holds everyone.
            exact: true,
        })
    }

    /// Members whose score is at least `min_score`.
    pub(crate) fn count_at_least(&self, min_score: i64) -> u64 {
        self.rows.partition_point(|(_, s)| *s >= min_score) as u64
    }

    /// A member's score and rank under `policy`, as `Projection::ranks` answers them.
    pub(crate) fn rank_of(&self, member: &MemberId, policy: TiePolicy) -> Option<(i64, u64)> {
        let at = *self.positions.get(member)?;
        let score = self.rows[at].1;
        let rank = match policy {
            TiePolicy::FirstReached => at + 1,
            TiePolicy::Shared => {
                let points = self.points(score);
                self.rows.partition_point(|(_, s)| self.points(*s) > points) + 1
            }
        };
        Some((score, rank as u64))
    }
}

impl Reads {
    /// The period's ranking read from the ledger (see the module docs).
    /// `public`: the public view of a publicly frozen period (its `public_standings`) rather
    /// than the live totals.
    pub(crate) async fn ledger_order(
        &self,
        board: &Board,
        period: PeriodKey,
        public: bool,
    ) -> Result<Arc<LedgerOrder>, EngineError> {
        self.ledger_order_in(board, period, public, None).await
    }

    /// [`Reads::ledger_order`] of one segment value's ranking (Some), or the board's (None):
    /// the segment's members' live totals (a segment has no public view: `crate::segments`).
    pub(crate) async fn ledger_order_in(
        &self,
        board: &Board,
        period: PeriodKey,
        public: bool,
        segment: Option<&Segment>,
    ) -> Result<Arc<LedgerOrder>, EngineError> {
        let mut orders = self.ledger_orders.0.lock().await;
        let key = (board.slug.clone(), period, public, segment.cloned());
        if let Some(order) = orders.get(&key)
            && order.at.elapsed() < LEDGER_ORDER_TTL
        {
            return Ok(Arc::clone(order));
        }
        orders.retain(|_, o| o.at.elapsed() < LEDGER_ORDER_TTL);
        let totals = match (segment, public) {
            (Some(segment), _) => self.core.segment_totals(board, &period, segment).await?,
            (None, true) => self.core.public_totals(board, &period).await?,
            (None, false) => self.core.projected_totals(board, &period).await?,
        };
        let order = Arc::new(LedgerOrder::new(totals, board.codec.tie_base()));
        orders.insert(key, Arc::clone(&order));
        self.core.metrics.reads_from_ledger.inc();
        Ok(order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(member: &str, score: i64, hidden: bool) -> ProjectedTotal {
        ProjectedTotal { member: MemberId::parse(member).unwrap(), version: 1, score, hidden }
    }

    #[test]
    fn the_ledger_order_is_the_projections() {
        // Shared ties order by member id descending, bytes; hidden members are out.
        let order = LedgerOrder::new(
            vec![total("a", 10, false), total("c", 10, false), total("b", 30, false), total("h", 99, true)],
            1,
        );
        let members: Vec<&str> = order.rows.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(members, ["b", "c", "a"]);
        let page = order.window(Window::Offset(1), 1).unwrap();
        assert_eq!((page.total, page.offset, page.ahead, page.next), (3, 1, 1, Some(10)));
        let a = MemberId::parse("a").unwrap();
        assert_eq!(order.window(Window::Around { member: &a, radius: 5 }, 11).unwrap().rows.len(), 3);
        assert!(
            order.window(Window::Around { member: &MemberId::parse("h").unwrap(), radius: 0 }, 1).is_none()
        );
        let c = MemberId::parse("c").unwrap();
        let after = order.window(Window::After { score: 10, member: &c }, 5).unwrap();
        assert_eq!(after.rows, vec![(a.clone(), 10)]);
        assert_eq!(order.rank_of(&a, TiePolicy::Shared), Some((10, 2)));
        assert_eq!(order.rank_of(&a, TiePolicy::FirstReached), Some((10, 3)));
        assert_eq!(order.count_at_least(10), 3);
        assert_eq!(order.count_at_least(11), 1);
        assert_eq!(order.window(Window::Offset(7), 2).unwrap().rows, vec![]);
    }
}
