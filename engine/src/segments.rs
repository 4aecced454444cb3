//! Segments (issue 43): one write ranks a member on the board and on one ranking per segment
//! value it holds (`province:zj`, `class:c-17`). The rules are `domain::segment`; the memberships
//! are fixed in the write's own ledger transaction (`ledger/segments.rs`, `ledger/writes.rs`).
//!
//! - Projection: after the ledger commit (and after the board's own projection), each changed
//!   total goes into the ranking of every segment its member holds, one `level.lua` call per
//!   segment on that segment's slot (`redis/segments.rs`), never a script across slots. Writes,
//!   corrections, revocations and hides all go through [`Engine::project_segments`]. A failure
//!   answers `projected: false` like the board's, and the reconciler levels it.
//! - Levelling: the reconciler compares each segment's ledger `SUM(version)` with its ranking's
//!   `vsum` and levels the ones behind ([`Engine::level_segments`], `segments_levelled`); a
//!   rebuild rebuilds every segment; the scheduler's expiry and unlink of a period's keys take its
//!   segments' keys too.
//! - Reads: a `Scope` may name a segment; pages, cursor pages, around-me, member ranks, counts
//!   and ranks of a list then read its ranking (`Source::Segment`; `count.lua` and `ranks.lua` on
//!   the segment's keys), or, when Redis cannot be read or the period is read from its standings,
//!   the segment's totals in the ledger, in the same order. A snapshot of a segment is a copy of
//!   its ranking under the segment's own hash tag, on its slot (`reads/snapshots.rs`). A segment
//!   has no public view: while a period is publicly frozen, a public segment read (a snapshot
//!   too) is 409 `segment_frozen` (admins read pages live), so nothing recorded after the freeze
//!   leaks through a segment. Exports carry each member's values (format 5).
//! - [`Engine::segment_values`]: a dimension's values with member counts and leaders, from one
//!   ledger read per period and dimension per [`SEGMENT_LIST_TTL`] per process.
//! - [`Engine::member_segments`]: a member's rank and points in each segment it holds (the member
//!   page), one member-rank read per segment — at most one per declared dimension.

use crate::ledger::Viewer;
use crate::reads::PeriodStatus;
use crate::reconciler::{ReconcileReport, encode};
use crate::redis::ProjectedTotal;
use crate::scope::Scope;
use crate::{Engine, EngineError};
use domain::ErrorCode;
use domain::segment::{Segment, Values};
use domain::view::{Entry, MemberSegment};
use domain::{Board, BoardSlug, MemberId, PeriodKey};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one ledger read of a dimension answers the list route in this process.
pub const SEGMENT_LIST_TTL: Duration = Duration::from_secs(2);
/// The most values the list route answers (`more: true` beyond).
pub const MAX_SEGMENT_VALUES: usize = 100;

/// A dimension's values and one value's count and leader: the domain's read models (the board
/// page's switcher reads them too).
pub use domain::view::{SegmentValue, SegmentValues};

/// One value's members as the list route counts them.
#[derive(Default)]
struct Tally {
    members: u64,
    /// The leader: the best score, then the greatest member id.
    best: Option<(i64, MemberId)>,
    /// Members with the leader's points.
    at_best: u64,
}

/// The lists read recently, by board, period and dimension.
#[derive(Default)]
pub struct SegmentLists(Mutex<HashMap<ListKey, (Instant, Arc<SegmentValues>)>>);

/// A board, a period and one of the board's dimensions.
type ListKey = (BoardSlug, PeriodKey, String);

impl Engine {
    /// Projects changed totals of `period` into the rankings of the segments their members hold.
    /// Nothing on a board without segments.
    pub(crate) async fn project_segments(
        &self,
        board: &Board,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
    ) -> Result<(), EngineError> {
        if board.segments.is_empty() || totals.is_empty() {
            return Ok(());
        }
        let members: Vec<&MemberId> = totals.iter().map(|t| &t.member).collect();
        let held = self.core.ledger.segments_of(&board.slug, period, &members).await?;
        let held: HashMap<&MemberId, &Values> = held.iter().collect();
        self.project_segments_held(board, period, totals, &held).await
    }

    /// [`Engine::project_segments`] with the members' values known (the write path has them from
    /// its transaction): nothing is read from the ledger.
    pub(crate) async fn project_segments_held(
        &self,
        board: &Board,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
        held: &HashMap<&MemberId, &Values>,
    ) -> Result<(), EngineError> {
        let mut by_segment: BTreeMap<Segment, Vec<ProjectedTotal>> = BTreeMap::new();
        for t in totals {
            for (dimension, value) in held.get(&t.member).into_iter().flat_map(|v| v.iter()) {
                let segment = Segment { dimension: dimension.clone(), value: value.clone() };
                by_segment.entry(segment).or_default().push(t.clone());
            }
        }
        // Each segment is its own slot (and often its own node): the calls go out together, so a
        // write waits one round trip for all its segments rather than one per segment, and each
        // joins the other requests' call for that segment (`Projection::project_segment`).
        let mut calls = tokio::task::JoinSet::new();
        for (segment, totals) in by_segment {
            let (projection, slug, period) = (self.core.projection.clone(), board.slug.clone(), *period);
            calls.spawn(async move { projection.project_segment(&slug, &period, &segment, totals).await });
        }
        let mut failed = None;
        while let Some(done) = calls.join_next().await {
            match done {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => failed = Some(EngineError::from(e)),
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => failed = Some(EngineError::Invalid(format!("a segment projection stopped: {e}"))),
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// A segment's totals as the projection holds them (hidden members' versions included).
    pub(crate) async fn segment_totals(
        &self,
        board: &Board,
        period: &PeriodKey,
        segment: &Segment,
    ) -> Result<Vec<ProjectedTotal>, EngineError> {
        let stored =
            self.core.ledger.segment_totals(&board.slug, period, &segment.dimension, &segment.value).await?;
        stored.into_iter().map(|t| encode(board, t)).collect()
    }

    /// What levelling or rebuilding a segment writes: its totals and the tombstones of members
    /// that moved out of it (hidden, at the version of their move: `ledger/segment_moves.rs`).
    async fn segment_levelling(
        &self,
        board: &Board,
        period: &PeriodKey,
        segment: &Segment,
    ) -> Result<Vec<ProjectedTotal>, EngineError> {
        let mut totals = self.segment_totals(board, period, segment).await?;
        // A tombstone ranks nowhere: any score in the board's bounds will do.
        let floor = board.codec.bounds().0;
        for t in self.core.ledger.segment_tombstones(&board.slug, period, segment).await? {
            totals.push(encode(board, crate::ledger::StoredTotal { points: floor, ..t })?);
        }
        Ok(totals)
    }

    /// Levels every segment ranking of a period whose `vsum` differs from the ledger's.
    pub(crate) async fn level_segments(
        &self,
        board: &Board,
        period: &PeriodKey,
        report: &mut ReconcileReport,
    ) -> Result<(), EngineError> {
        if board.segments.is_empty() {
            return Ok(());
        }
        for (dimension, value, ledger_sum) in
            self.core.ledger.segment_version_sums(&board.slug, period).await?
        {
            let segment = Segment { dimension, value };
            let projected = self.core.projection.segment_version_sum(&board.slug, period, &segment).await?;
            // Versions only rise, so a projection ahead of the ledger's sum only holds writes
            // committed after that sum was read (the sums of hundreds of values are read one by
            // one, long after the ledger's): nothing to level. Levelling those anyway cost a
            // busy segmented board hundreds of needless levellings a minute (docs/BENCHMARKS.md).
            if projected >= ledger_sum {
                continue;
            }
            let totals = self.segment_levelling(board, period, &segment).await?;
            report.members_levelled +=
                self.core.projection.level_segment(&board.slug, period, &segment, &totals).await?;
            report.segments_levelled += 1;
            tracing::info!(board = %board.slug, %period, %segment, behind = ledger_sum - projected,
                "segment ranking levelled from the ledger");
        }
        Ok(())
    }

    /// Replaces every segment ranking of a period with the ledger's totals (a rebuild).
    pub(crate) async fn rebuild_segments(
        &self,
        board: &Board,
        period: &PeriodKey,
    ) -> Result<u64, EngineError> {
        let segments = self.period_segments(&board.slug, period).await?;
        for segment in &segments {
            let totals = self.segment_levelling(board, period, segment).await?;
            let mut rebuild =
                self.core.projection.start_segment_rebuild(&board.slug, period, segment).await?;
            rebuild.push(&totals).await?;
            rebuild.finish().await?;
        }
        Ok(segments.len() as u64)
    }

    /// Every segment value a period has.
    async fn period_segments(
        &self,
        slug: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Vec<Segment>, EngineError> {
        let values = self.core.ledger.segment_values(slug, period).await?;
        Ok(values.into_iter().map(|(dimension, value)| Segment { dimension, value }).collect())
    }

    /// Unlinks a period's keys and its segments' (archived periods, settled ones past their keys'
    /// life).
    pub(crate) async fn unlink_period_keys(
        &self,
        slug: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<(), EngineError> {
        self.core.projection.unlink_period(slug, period).await?;
        let segments = self.period_segments(slug, period).await?;
        self.core.projection.unlink_segments(slug, period, &segments).await?;
        Ok(())
    }

    /// Gives a period's keys and its segments' an expiry of `ttl`.
    pub(crate) async fn expire_period_keys(
        &self,
        slug: &BoardSlug,
        period: &PeriodKey,
        ttl: Duration,
    ) -> Result<(), EngineError> {
        self.core.projection.expire(slug, period, ttl).await?;
        let segments = self.period_segments(slug, period).await?;
        self.core.projection.expire_segments(slug, period, &segments, ttl).await?;
        Ok(())
    }

    /// Refuses a public read of a segment while its period is publicly frozen: a segment has no
    /// frozen view, and its live ranking would show what the freeze hides. An archived period is
    /// read from its final standings, which hide nothing.
    pub(crate) fn refuse_frozen_segment(
        &self,
        segment: &Segment,
        status: &PeriodStatus,
    ) -> Result<(), EngineError> {
        match status.public_freeze() {
            None => Ok(()),
            Some(at) => Err(EngineError::Refused {
                code: ErrorCode::SegmentFrozen,
                detail: format!(
                    "the period is publicly frozen since {at}: segment {segment} opens at the reveal"
                ),
            }),
        }
    }

    /// A dimension's values in a period with member counts and leaders, at most
    /// [`MAX_SEGMENT_VALUES`] (by value), shared for [`SEGMENT_LIST_TTL`] per process. An
    /// undeclared dimension is 422 `invalid`; a public caller in a publicly frozen period gets
    /// 409 `segment_frozen`.
    pub async fn segment_values(
        &self,
        viewer: Viewer,
        scope: &Scope,
        dimension: &str,
    ) -> Result<SegmentValues, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let probe = Segment::of(&board.segments, dimension, "x").map_err(EngineError::Invalid)?;
        if viewer == Viewer::Public {
            let status = self.status_for_reads(slug, period).await?;
            self.refuse_frozen_segment(&Segment { value: "*".into(), ..probe }, &status)?;
        }
        let key = (slug.clone(), period, dimension.to_owned());
        if let Some((at, list)) = self.segment_lists.0.lock().expect("segment lists").get(&key)
            && at.elapsed() < SEGMENT_LIST_TTL
        {
            return Ok(list.as_ref().clone());
        }
        let rows = self.core.ledger.dimension_members(slug, &period, dimension).await?;
        // Per value: ranked members, the best (score, member) — ties by member id descending, as
        // Redis orders them — and how many members have the best points.
        let mut values: BTreeMap<String, Tally> = BTreeMap::new();
        for row in rows {
            let tally = values.entry(row.value).or_default();
            if row.total.hidden {
                continue;
            }
            let t = encode(board, row.total)?;
            tally.members += 1;
            let points = board.codec.points(t.score);
            match &tally.best {
                Some((best, _)) if board.codec.points(*best) > points => {}
                Some((best, member)) if board.codec.points(*best) == points => {
                    tally.at_best += 1;
                    if (t.score, &t.member) > (*best, member) {
                        tally.best = Some((t.score, t.member));
                    }
                }
                _ => (tally.best, tally.at_best) = (Some((t.score, t.member)), 1),
            }
        }
        let more = values.len() > MAX_SEGMENT_VALUES;
        let shown: Vec<_> = values.into_iter().take(MAX_SEGMENT_VALUES).collect();
        let leaders: Vec<MemberId> =
            shown.iter().filter_map(|(_, t)| t.best.as_ref().map(|b| b.1.clone())).collect();
        let mut names = self.display_names(&leaders).await?;
        // Under `first_reached` no two members share a rank, whatever their points.
        let shared = board.tie_policy() == domain::TiePolicy::Shared;
        let values = shown
            .into_iter()
            .map(|(value, tally)| SegmentValue {
                value,
                members: tally.members,
                leader: tally.best.map(|(score, member)| Entry {
                    rank: 1,
                    points: board.codec.points(score),
                    display_name: names.remove(&member),
                    avatar_url: None,
                    member,
                    tied: shared && tally.at_best > 1,
                }),
            })
            .collect();
        let list = Arc::new(SegmentValues { dimension: dimension.to_owned(), values, more });
        let mut lists = self.segment_lists.0.lock().expect("segment lists");
        lists.retain(|_, (at, _)| at.elapsed() < SEGMENT_LIST_TTL);
        lists.insert(key, (Instant::now(), Arc::clone(&list)));
        Ok(list.as_ref().clone())
    }
    /// A member's rank, points and the segment's member count in each segment it holds in the
    /// period, in the order the board declares its dimensions: one member-rank read per segment
    /// (`scope.in_segment`), so the same rules as every public read. A hidden member is
    /// `NotFound`, as if absent; during a public freeze (but for an archived period, read from its
    /// standings) the answer is 409 `segment_frozen`, whatever the member holds, so nothing of a
    /// segment shows before the reveal. A segment where the member has no points is left out.
    pub async fn member_segments(
        &self,
        scope: &Scope,
        member: &MemberId,
    ) -> Result<Vec<MemberSegment>, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        if board.segments.is_empty() {
            return Ok(Vec::new());
        }
        self.refuse_hidden(slug, &period, member).await?;
        let status = self.status_for_reads(slug, period).await?;
        if let Some(first) = board.segments.first() {
            let every = Segment { dimension: first.clone(), value: "*".into() };
            self.refuse_frozen_segment(&every, &status)?;
        }
        let mut held = self.core.ledger.segments_of(slug, &period, &[member]).await?;
        let Some(values) = held.remove(member) else { return Ok(Vec::new()) };
        let mut out = Vec::with_capacity(values.len());
        for dimension in &board.segments {
            let Some(value) = values.get(dimension) else { continue };
            let named = Segment { dimension: dimension.clone(), value: value.clone() }.to_string();
            let in_segment = scope.clone().in_segment(Some(&named))?;
            let page = match self.around(&in_segment, member, 0).await {
                Ok(page) => page,
                Err(EngineError::NotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            if let Some(entry) = page.entries.into_iter().find(|e| &e.member == member) {
                out.push(MemberSegment {
                    dimension: dimension.clone(),
                    value: value.clone(),
                    rank: entry.rank,
                    // Under `first_reached` no two members share a rank, whatever a one-row
                    // window of equal points says.
                    tied: entry.tied && board.tie_policy() == domain::TiePolicy::Shared,
                    points: entry.points,
                    members: page.total,
                });
            }
        }
        Ok(out)
    }
}
