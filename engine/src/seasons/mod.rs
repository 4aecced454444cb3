//! Seasons (issue 45): a season board's standings are made of another board's periods by a rule
//! (`domain::season`). The ledger stays the truth: a season's totals are computed from the source
//! totals of its weeks and written into the ledger as the season's own totals, then projected like
//! any board's — so every read mode, the ledger fallback and the reconciler work on a season
//! unchanged, and a live season read costs what a weekly read costs.
//!
//! How a season follows its weeks (`level.rs`):
//! - **Incrementally**: a write on a source board — or a correction, revocation, hide, late
//!   acceptance or applied preview, which all project through `Lifecycle::project_total` — notes its
//!   members for every season that holds the period ([`Seasons::noted`]); the season loop recomputes only those members from
//!   their totals in every week ([`Seasons::follow`]). A `placement` season depends on
//!   other members' ranks, so a write marks it whole instead.
//! - **By a check** in every reconciler pass ([`Seasons::check`]): a `sum`, `best` or
//!   `weighted` season total's version is the sum of the member's weekly versions, so the season
//!   is current exactly when its version sum equals its weeks' — otherwise (an import of totals,
//!   another instance's write, a note lost in a restart) it is recomputed whole, a page of members
//!   at a time. A `placement` season is recomputed whenever its weeks' version
//!   sum moved, from each week's ranking down to the last place its table pays.
//!
//! Versions make both paths safe together and across instances: a computation from older source
//! rows has a lower version and is never written over a newer one (`ledger/seasons.rs`). Nothing is
//! written to a season directly ([`refuse_direct`]). "Why this season total" is `explain.rs`.

mod explain;
mod level;
mod preview;

pub use level::SeasonReport;

use crate::live::Live;
use crate::reads::Reads;
use crate::{Core, EngineError};
use domain::{Board, BoardSlug, ErrorCode, MemberId, PeriodKey};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the list of seasons is kept before it is read again (seasons are created rarely and
/// never changed; a write on a source is noted for the seasons known then, the check finds the rest).
const INDEX_TTL: Duration = Duration::from_secs(5);

/// Every season board, as read at an instant.
type SeasonList = Arc<Vec<Arc<Board>>>;

/// What a season waits for: some members, or a whole recomputation.
enum Pending {
    Members(BTreeSet<MemberId>),
    Whole,
}

/// The season service: the list of seasons, the members writes changed, and what each
/// `placement` season was last computed from.
pub struct Seasons {
    core: Core,
    reads: Reads,
    live: Live,
    index: Mutex<Option<(Instant, SeasonList)>>,
    pending: Mutex<HashMap<BoardSlug, Pending>>,
    wake: tokio::sync::Notify,
    /// The weeks' version sum each `placement` season was last computed at, in this process.
    placed_at: Mutex<HashMap<BoardSlug, i64>>,
    /// Settled weeks' version sums, by their number of settlement revisions.
    settled_sums: Mutex<HashMap<(BoardSlug, PeriodKey), (usize, i64)>>,
}

/// Refuses a direct write, correction or import on a season board: its totals are computed from
/// its source's periods.
pub(crate) fn refuse_direct(board: &Board) -> Result<(), EngineError> {
    match &board.season {
        Some(season) => Err(EngineError::Refused {
            code: ErrorCode::SeasonBoard,
            detail: format!(
                "{} is a season: its totals come from {}'s periods; write to {} instead",
                board.slug, season.source, season.source
            ),
        }),
        None => Ok(()),
    }
}

impl Seasons {
    pub(crate) fn new(core: Core, reads: Reads, live: Live) -> Self {
        Self {
            core,
            reads,
            live,
            index: Mutex::default(),
            pending: Mutex::default(),
            wake: tokio::sync::Notify::new(),
            placed_at: Mutex::default(),
            settled_sums: Mutex::default(),
        }
    }

    /// Every season board, read from the ledger at most once per [`INDEX_TTL`].
    pub async fn seasons(&self) -> Result<SeasonList, EngineError> {
        if let Some((read, seasons)) = &*self.index.lock().expect("season index")
            && read.elapsed() < INDEX_TTL
        {
            return Ok(Arc::clone(seasons));
        }
        let seasons: SeasonList =
            Arc::new(self.core.ledger.season_boards().await?.into_iter().map(Arc::new).collect());
        *self.index.lock().expect("season index") = Some((Instant::now(), Arc::clone(&seasons)));
        Ok(seasons)
    }

    /// The seasons that hold `period` of `source` (none when the list cannot be read: logged).
    pub(crate) async fn holding(&self, source: &BoardSlug, period: PeriodKey) -> Vec<Arc<Board>> {
        match self.seasons().await {
            Ok(seasons) => seasons.iter().filter(|s| holds(s, source, period)).cloned().collect(),
            Err(error) => {
                tracing::warn!(%source, %period, %error, "seasons not read");
                Vec::new()
            }
        }
    }

    /// Forgets the list of seasons (a season was created here).
    pub(crate) fn forget(&self) {
        *self.index.lock().expect("season index") = None;
    }

    /// Notes that a write changed `members` of `source` in `period`, for every season known to
    /// hold that period, and wakes the season loop. Never waits: the seasons not known yet are
    /// found by the next check.
    pub(crate) fn noted<'m>(
        &self,
        source: &BoardSlug,
        period: PeriodKey,
        members: impl Iterator<Item = &'m MemberId>,
    ) {
        let seasons = match &*self.index.lock().expect("season index") {
            Some((_, seasons)) => Arc::clone(seasons),
            None => return,
        };
        let holding: Vec<&Arc<Board>> = seasons.iter().filter(|s| holds(s, source, period)).collect();
        if holding.is_empty() {
            return;
        }
        let members: Vec<&MemberId> = members.collect();
        let mut pending = self.pending.lock().expect("season pending");
        for season in holding {
            let whole = season.season.as_ref().is_some_and(|d| d.rule.reads_ranks());
            let entry =
                pending.entry(season.slug.clone()).or_insert_with(|| Pending::Members(BTreeSet::new()));
            match (entry, whole) {
                (entry, true) => *entry = Pending::Whole,
                (Pending::Members(set), false) => set.extend(members.iter().map(|m| (*m).clone())),
                (Pending::Whole, false) => {}
            }
        }
        drop(pending);
        self.wake.notify_one();
    }

    /// Takes what writes noted since the last call.
    fn take_pending(&self) -> HashMap<BoardSlug, Pending> {
        std::mem::take(&mut *self.pending.lock().expect("season pending"))
    }

    /// The version sum of a settled or archived week as last read, if its settlement revisions
    /// are still `revisions` (only a new revision changes a settled week's totals).
    fn settled_sum(&self, source: &BoardSlug, week: PeriodKey, revisions: usize) -> Option<i64> {
        let sums = self.settled_sums.lock().expect("settled sums");
        sums.get(&(source.clone(), week)).filter(|(r, _)| *r == revisions).map(|(_, sum)| *sum)
    }

    fn keep_settled_sum(&self, source: &BoardSlug, week: PeriodKey, revisions: usize, sum: i64) {
        self.settled_sums.lock().expect("settled sums").insert((source.clone(), week), (revisions, sum));
    }
}

/// Whether `season` is made of `period` of `source`.
fn holds(season: &Board, source: &BoardSlug, period: PeriodKey) -> bool {
    season.season.as_ref().is_some_and(|d| d.source == *source && d.week_of(period).is_some())
}
