//! Writes: recorded in the ledger first (the truth, exactly once), then projected into Redis.
//! A projection failure never fails a write: the answer says `projected: false` and the
//! reconciler brings the projection level from the ledger.
//!
//! A write's way (`POST /api/v1/boards/{board}/events`, `PUT …/members/{m}/total`,
//! `POST …/submissions`), each step in the file that owns it:
//!
//! 1. `server/src/rest/auth.rs`: the bearer is an ingest key scoped to the board and within its
//!    rate limit (else 429 `rate_limited` with `Retry-After`, before the body is read) or an admin
//!    token; `server/src/rest/writes.rs` parses each item (ids, `occurred_at` at most 5 minutes
//!    ahead, metadata at most 4 KiB).
//! 2. [`Writes::record`]: [`check_batch`] (the board's operator, else 409; at most
//!    [`MAX_BATCH`] writes — the REST edge calls it before it parses a batch), and
//!    `domain::write::admit` for every write, whoever the caller: a write no period of the board
//!    can hold is `rejected` with its reason and stores nothing.
//! 3. The ledger (`ledger/writes.rs`, whose module doc has the steps): one transaction, shared by
//!    the board's calls waiting at the same moment (`ledger/group.rs`).
//! 4. The projection: the totals that changed go through `Projection::project_grouped`
//!    (`level.lua`: per member, compare the version, `ZADD`, `HSET`, `HINCRBY vsum`), one call for
//!    every request on the period that waited while the previous call was in flight, each member
//!    at its highest version (`redis/grouped.rs`); on a board with segments, then into each
//!    segment ranking its members hold (`crate::segments`). A Redis failure answers
//!    `projected: false` and pauses projections for a second. Then the period is announced to
//!    live streams (`crate::live`).
//!
//! A write or a read with no answer within `REQUEST_DEADLINE` (10 s, `server/src/rest/mod.rs`)
//! is answered 503 `unavailable`. The write committed or it did not; the caller's retry with the
//! same id is recorded once either way.

pub mod totals_import;

use crate::ledger::Recorded;
use crate::live::Live;
use crate::reads::Reads;
use crate::redis::ProjectedTotal;
use crate::seasons::Seasons;
use crate::{Core, EngineError};
use domain::segment::Values;
use domain::write::{Outcome, Write};
use domain::{Board, MemberId, Operator, PeriodKey};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// The most writes one batch may carry.
pub const MAX_BATCH: usize = 1000;

/// A write's answer after the ledger and the projection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteResult {
    pub recorded: Recorded,
    /// For writes that changed a total: whether Redis reflects it yet.
    pub projected: bool,
}

/// What a batch of `len` writes with operator `sent` must meet before any of it is recorded: the
/// board's operator, and at most [`MAX_BATCH`] writes. [`Writes::record`] checks it; an edge may
/// check it before it parses the writes, so a refused batch costs no parsing.
pub fn check_batch(board: &Board, sent: Operator, len: usize) -> Result<(), EngineError> {
    crate::seasons::refuse_direct(board)?;
    if sent != board.operator {
        return Err(EngineError::WrongOperator { board: board.operator, sent });
    }
    if len > MAX_BATCH {
        return Err(EngineError::BatchTooLarge { max: MAX_BATCH, got: len });
    }
    Ok(())
}

/// The writes service: records writes and imported totals in the ledger, then projects what
/// changed, tells the live feeds and notes the members for the seasons made of the period. It
/// keeps no state of its own (the ledger's group commit and the projection's grouped rounds are
/// the stores'). Cheap to clone.
#[derive(Clone)]
pub struct Writes {
    core: Core,
    reads: Reads,
    live: Live,
    seasons: Arc<Seasons>,
}

impl Writes {
    pub(crate) fn new(core: Core, reads: Reads, live: Live, seasons: Arc<Seasons>) -> Self {
        Self { core, reads, live, seasons }
    }

    /// Records writes on `board` in one ledger transaction, then projects the totals that changed.
    /// The batch must meet [`check_batch`].
    pub async fn record(&self, board: &Board, writes: &[Write]) -> Result<Vec<WriteResult>, EngineError> {
        self.record_at(board, writes, jiff::Timestamp::now()).await
    }

    /// [`Writes::record`] as if received at `now`: the demo seeds past weeks with it, so their
    /// writes are on time rather than late.
    pub(crate) async fn record_at(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<WriteResult>, EngineError> {
        for w in writes {
            let Some(sent) = w.change.operator() else {
                return Err(EngineError::Invalid("corrections go through Lifecycle::correct".into()));
            };
            check_batch(board, sent, writes.len())?;
        }
        // Writes no period of the board can hold are answered here and never reach the ledger.
        let admitted: Vec<Result<(), String>> =
            writes.iter().map(|w| domain::write::admit(board, w).map(|_| ())).collect();
        let to_ledger: Vec<Write> =
            writes.iter().zip(&admitted).filter(|(_, a)| a.is_ok()).map(|(w, _)| w.clone()).collect();
        let mut from_ledger = if to_ledger.is_empty() {
            Vec::new().into_iter()
        } else {
            self.core.ledger.record(board, &to_ledger, now).await?.into_iter()
        };
        let recorded: Vec<Recorded> = admitted
            .into_iter()
            .map(|a| match a {
                Ok(()) => from_ledger.next().expect("one answer per admitted write"),
                Err(reason) => Recorded {
                    outcome: Outcome::Rejected,
                    period: None,
                    reason: Some(reason),
                    total: None,
                    points: None,
                    version: None,
                    segments: None,
                },
            })
            .collect();
        // Counted as soon as the ledger has them: a caller that hangs up during projection
        // cannot make the counters miss a committed write.
        for r in &recorded {
            self.core.metrics.count_write(&board.slug, board.operator, r.outcome);
        }
        // One projection per period of the batch, grouped with other requests'
        // (`Projection::project_grouped`); a member changed twice in the batch is projected
        // once, at its last version.
        let mut by_period: BTreeMap<PeriodKey, BTreeMap<&MemberId, ProjectedTotal>> = BTreeMap::new();
        // The members' segment values, when the ledger answered them (all or none per period).
        let mut values: BTreeMap<PeriodKey, HashMap<&MemberId, &Values>> = BTreeMap::new();
        for r in &recorded {
            let Some(t) = r.total.as_ref() else { continue };
            let total = ProjectedTotal {
                member: t.member.clone(),
                version: t.version,
                score: t.score,
                hidden: t.hidden,
            };
            by_period.entry(t.period).or_default().insert(&t.member, total);
            if let Some(held) = &r.segments {
                values.entry(t.period).or_default().insert(&t.member, held);
            }
        }
        let mut failed = BTreeSet::new();
        let keep = board.keep_top.unwrap_or(0);
        let totals_of =
            |totals: &BTreeMap<&MemberId, ProjectedTotal>| totals.values().cloned().collect::<Vec<_>>();
        for (period, totals) in &by_period {
            let members = totals.len();
            // The board's ranking and its segments' are separate keys (separate slots), each
            // guarded by versions: both calls go out at once, so a write waits for the slower of
            // them rather than for one after the other.
            let on_board = self.core.projection.project_grouped(&board.slug, period, totals_of(totals), keep);
            let in_segments = async {
                match values.get(period).filter(|v| v.len() == members) {
                    Some(held) => {
                        self.core.project_segments_held(board, period, &totals_of(totals), held).await
                    }
                    None => self.core.project_segments(board, period, &totals_of(totals)).await,
                }
            };
            let (on_board, in_segments) = tokio::join!(on_board, in_segments);
            if let Err(error) = on_board.map(drop).map_err(EngineError::from).and(in_segments) {
                self.core.metrics.redis_errors.inc();
                tracing::warn!(board = %board.slug, %period, members, %error,
                    "projection failed; the ledger has the writes and the reconciler will level them");
                failed.insert(*period);
            }
            self.live.announce(&board.slug, period);
            // Seasons made of this period follow it (`crate::seasons`); this only takes note.
            self.seasons.noted(&board.slug, *period, totals.keys().copied());
        }
        let results = recorded
            .into_iter()
            .map(|recorded| {
                let projected = recorded.total.as_ref().is_some_and(|t| !failed.contains(&t.period));
                WriteResult { recorded, projected }
            })
            .collect::<Vec<_>>();
        Ok(results)
    }

    /// Creates or replaces a member's profile; reads of this engine show the new name and avatar
    /// at once. `segments` (none: empty) are the member's values in the dimensions they name,
    /// taken by later writes that name none there (`ledger/decide.rs`, `Held`).
    pub async fn put_profile(
        &self,
        member: &MemberId,
        display_name: &str,
        avatar_url: Option<&str>,
        segments: &domain::segment::Values,
        now: jiff::Timestamp,
    ) -> Result<(), EngineError> {
        // The task needs the ledger and the reads' names only, not the whole service.
        let (ledger, reads, member) = (self.core.ledger.clone(), self.reads.clone(), member.clone());
        let (name, avatar, segments) =
            (display_name.to_owned(), avatar_url.map(str::to_owned), segments.clone());
        // Its own task, like the ledger write inside it: a caller that hangs up cannot leave
        // this process's copy without a name that committed.
        let work = tokio::spawn(async move {
            let written = ledger.put_profile(&member, &name, avatar.as_deref(), &segments, now).await;
            // Also after a failure: the write may have committed before the error reached us.
            let levelled = reads.catch_up_names(true).await;
            written?;
            levelled
        });
        match work.await {
            Ok(done) => done,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(EngineError::Invalid(format!("profile write interrupted: {e}"))),
        }
    }
}
