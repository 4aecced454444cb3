//! The leaders' race on the board page: the current top [`LEADERS`] of a period's public ranking
//! and each one's points through the period, as steps (when an entry happened, the points after
//! it), replayed from the ledger's entries exactly as the member page's points chart replays one
//! member (`crate::reads::history`: the entries the public member events read lists, a revocation
//! taking its entry out from then on).
//!
//! Only what the public sees. The leaders are the public ranking's ([`Reads::top_shared`]), so a
//! hidden member is never one, and while a period is publicly frozen they are the standings of
//! the freeze; each line replays the entries the public reads (`Viewer::Public`: none after the
//! freeze's watermark, read in the same statement), so it ends at the member's public points, and
//! the chart says when the public view was taken (`frozen_at`) so the lines stop there. (During a
//! stepwise reveal a revealed member's rank already counts entries after the watermark; their
//! line, like their member page's chart, shows them after the whole reveal.)
//!
//! Lines are thinned for the page, which carries them: a step that leaves the points as they were
//! is left out, and of steps that fall in the same [`RESOLUTION`]-th of the chart's span (the
//! period's start to now, its end or the public freeze) only the last is kept (the chart could not
//! draw them apart), so a line has at most [`RESOLUTION`] steps however many entries it replays.
//!
//! Cost. The board page is the most-read page, so this process keeps one chart per board and
//! period for [`CHART_TTL`] (10 s), shared by every reader of those seconds; when several ask for
//! a chart that is not kept, one reads it and the others wait for its answer. So per process,
//! board and period, at most every 10 s: one top-[`LEADERS`] page (itself shared for a second,
//! `reads/caches.rs`) and [`LEADERS`] timeline reads of at most `history::TIMELINE_ENTRIES` + 1
//! rows each (on the entries' `(board, period, member, id)` index) — never per page view. A transition, public freeze, reveal or hide made through this
//! process moves the read epoch ([`Reads::read_epoch`]), which drops the kept charts at once;
//! other processes show it within [`CHART_TTL`], as their charts' time runs out.

use super::Reads;
use crate::EngineError;
use crate::ledger::Viewer;
use crate::reads::history::{TIMELINE_ENTRIES, steps};
use crate::scope::Scope;
use domain::view::{Entry, PointStep};
use domain::{BoardSlug, PeriodKey, Sort};
use jiff::Timestamp;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

/// How many members the chart follows: the top of the public ranking.
pub const LEADERS: u64 = 5;
/// How long this process answers a board period's chart from memory.
pub const CHART_TTL: Duration = Duration::from_secs(10);
/// The most steps a line keeps: about one per two units of the chart's width.
pub const RESOLUTION: i64 = 240;
/// The most charts kept at once (over all boards and periods).
const KEPT_CHARTS: usize = 256;

/// The leaders of a period and their points through it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeadersChart {
    pub period: PeriodKey,
    /// The period's start and end (in the board's zone).
    pub from: Timestamp,
    pub until: Timestamp,
    /// When the lines were read: they run up to here (or the period's end, if sooner).
    pub read_at: Timestamp,
    /// While the period is publicly frozen: when the public view was taken; the lines stop there.
    pub frozen_at: Option<Timestamp>,
    /// Which end of the points ranks first.
    pub sort: Sort,
    /// The leaders in ranking order, each with their line.
    pub leaders: Vec<LeaderLine>,
}

/// One leader: their standing in the public ranking and their points through the period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderLine {
    pub standing: Entry,
    /// The points after each (thinned) step, oldest first, inside the period.
    pub steps: Vec<LeaderStep>,
    /// The member has more entries than one timeline read replays: the line shows the first ones.
    pub truncated: bool,
}

/// A point of a line: the member's points after `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaderStep {
    pub at: Timestamp,
    pub points: i64,
}

/// This process's charts by board and period (see the module's "Cost").
#[derive(Default)]
pub struct LeadersCharts {
    kept: Mutex<HashMap<(BoardSlug, PeriodKey), Kept>>,
}

/// A chart being read or read: every reader of its time shares the one cell.
struct Kept {
    at: Instant,
    /// The read epoch it was asked in: a newer one means it may no longer hold.
    epoch: u64,
    chart: Arc<OnceCell<Arc<LeadersChart>>>,
}

impl Kept {
    fn holds(&self, epoch: u64) -> bool {
        self.epoch == epoch && self.at.elapsed() < CHART_TTL
    }
}

impl LeadersCharts {
    /// The cell of a board period's chart: the kept one while it holds, else a new, empty one.
    fn cell(&self, slug: &BoardSlug, period: PeriodKey, epoch: u64) -> Arc<OnceCell<Arc<LeadersChart>>> {
        let mut kept = self.kept.lock().expect("leaders charts");
        let key = (slug.clone(), period);
        if let Some(k) = kept.get(&key)
            && k.holds(epoch)
        {
            return Arc::clone(&k.chart);
        }
        if kept.len() >= KEPT_CHARTS {
            kept.retain(|_, k| k.holds(epoch));
        }
        let chart = Arc::new(OnceCell::new());
        kept.insert(key, Kept { at: Instant::now(), epoch, chart: Arc::clone(&chart) });
        chart
    }
}

impl Reads {
    /// The top [`LEADERS`] of the period's public ranking and their points through it, shared by
    /// this process's readers for [`CHART_TTL`]. Always the board's ranking (a segment named in
    /// `scope` is not read). A failed read is not kept: the next reader tries again.
    pub async fn leaders_chart(&self, scope: &Scope) -> Result<Arc<LeadersChart>, EngineError> {
        let (slug, period) = (scope.slug(), scope.period());
        let cell = self.leaders_charts.cell(slug, period, self.read_epoch());
        let chart =
            cell.get_or_try_init(|| async { self.read_leaders_chart(scope).await.map(Arc::new) }).await?;
        Ok(Arc::clone(chart))
    }

    /// [`Reads::leaders_chart`] read from the stores.
    async fn read_leaders_chart(&self, scope: &Scope) -> Result<LeadersChart, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let read_at = Timestamp::now();
        let top = self.top_shared(&self.scope_of(slug, period).await?, LEADERS).await?;
        let span = period.span(&board.zone);
        // When the public view was taken, as the ranking read says (none once archived).
        let frozen_at = top.page.frozen_at;
        let last = [Some(span.end), Some(read_at), frozen_at].into_iter().flatten().min().expect("an end");
        let mut leaders = Vec::with_capacity(top.page.entries.len());
        for standing in &top.page.entries {
            let mut entries = self
                .core
                .ledger
                .member_timeline(slug, &period, &standing.member, TIMELINE_ENTRIES + 1, Viewer::Public)
                .await?;
            let truncated = entries.len() as u64 > TIMELINE_ENTRIES;
            entries.truncate(TIMELINE_ENTRIES as usize);
            leaders.push(LeaderLine {
                standing: standing.clone(),
                steps: thin(&steps(&entries, board.sort()), span.start, last),
                truncated,
            });
        }
        Ok(LeadersChart {
            period,
            from: span.start,
            until: span.end,
            read_at,
            frozen_at,
            sort: board.sort(),
            leaders,
        })
    }
}

/// A line's steps as the chart draws them, from `from` to `last`: each step's instant inside
/// that span (a correction made after the period's end sits at its end), only the steps that
/// change the points, and of those in the same [`RESOLUTION`]-th of the span only the last.
fn thin(steps: &[PointStep], from: Timestamp, last: Timestamp) -> Vec<LeaderStep> {
    let last = last.max(from);
    let span = i128::from(last.as_microsecond() - from.as_microsecond()).max(1);
    // The span's end is in the last slot.
    let slot = |at: Timestamp| {
        (i128::from(at.as_microsecond() - from.as_microsecond()) * i128::from(RESOLUTION) / span)
            .min(i128::from(RESOLUTION) - 1)
    };
    let mut out: Vec<LeaderStep> = Vec::new();
    for s in steps {
        let step = LeaderStep { at: s.at.clamp(from, last), points: s.points };
        if out.last().is_some_and(|kept| slot(kept.at) == slot(step.at)) {
            out.pop();
        }
        // A step that leaves the line where it is draws nothing.
        if out.last().is_none_or(|kept| kept.points != step.points) {
            out.push(step);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + second).unwrap()
    }

    fn step(second: i64, points: i64) -> PointStep {
        PointStep { entry: second, kind: "point".into(), at: at(second), points, revoked: false }
    }

    fn shown(steps: &[LeaderStep]) -> Vec<(i64, i64)> {
        steps.iter().map(|s| (s.at.as_second() - 1_800_000_000, s.points)).collect()
    }

    #[test]
    fn a_line_keeps_the_steps_that_move_it_inside_the_span() {
        // The span is 2400 s, so a slot is 10 s.
        let steps = [step(5, 3), step(100, 3), step(200, 8), step(3000, 9)];
        assert_eq!(shown(&thin(&steps, at(0), at(2400))), [(5, 3), (200, 8), (2400, 9)]);
    }

    #[test]
    fn steps_in_one_slot_keep_the_last_and_a_return_drops_the_step() {
        let steps = [step(20, 5), step(31, 7), step(33, 9), step(35, 5), step(50, 4)];
        // 31–35 share a slot: the last (5) is kept, which is where the line already was.
        assert_eq!(shown(&thin(&steps, at(0), at(2400))), [(20, 5), (50, 4)]);
        let many: Vec<PointStep> = (0..10_000).map(|i| step(i, i)).collect();
        let thinned = thin(&many, at(0), at(10_000));
        assert!(thinned.len() as i64 <= RESOLUTION, "{}", thinned.len());
        assert_eq!(thinned.last().map(|s| s.points), Some(9_999));
    }
}
