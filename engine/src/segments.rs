//! Segments (issue 43): one write ranks a member on the board and on one ranking per segment
//! value it holds (`province:zj`, `class:c-17`). The rules are `domain::segment`; the memberships
//! are fixed in the write's own ledger transaction (`ledger/segments.rs`, `ledger/writes.rs`).
//!
//! - Projection: after the ledger commit (and after the board's own projection), each changed
//!   total goes into the ranking of every segment its member holds, one `level.lua` call per
//!   segment on that segment's slot (`redis/segments.rs`), never a script across slots. Writes,
//!   corrections, revocations and hides all go through [`Core::project_segments`]. A failure
//!   answers `projected: false` like the board's, and the reconciler levels it.
//! - Levelling: the reconciler compares each segment's ledger `SUM(version)` with its ranking's
//!   `vsum` and levels the ones behind ([`Core::level_segments`], `segments_levelled`); a
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
//! - Reads of segments (a dimension's values, a member's segments, the public-freeze rule):
//!   `crate::reads::segments`.

use crate::jobs::reconciler::ReconcileReport;
use crate::redis::ProjectedTotal;
use crate::totals::encode;
use crate::{Core, EngineError};
use domain::segment::{Segment, Values};
use domain::{Board, BoardSlug, MemberId, PeriodKey};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

impl Core {
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
        let held = self.ledger.segments_of(&board.slug, period, &members).await?;
        let held: HashMap<&MemberId, &Values> = held.iter().collect();
        self.project_segments_held(board, period, totals, &held).await
    }

    /// [`Core::project_segments`] with the members' values known (the write path has them from
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
            let (projection, slug, period) = (self.projection.clone(), board.slug.clone(), *period);
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
        for t in self.ledger.segment_tombstones(&board.slug, period, segment).await? {
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
        for (dimension, value, ledger_sum) in self.ledger.segment_version_sums(&board.slug, period).await? {
            let segment = Segment { dimension, value };
            let projected = self.projection.segment_version_sum(&board.slug, period, &segment).await?;
            // Versions only rise, so a projection ahead of the ledger's sum only holds writes
            // committed after that sum was read (the sums of hundreds of values are read one by
            // one, long after the ledger's): nothing to level. Levelling those anyway cost a
            // busy segmented board hundreds of needless levellings a minute (docs/BENCHMARKS.md).
            if projected >= ledger_sum {
                continue;
            }
            let totals = self.segment_levelling(board, period, &segment).await?;
            report.members_levelled +=
                self.projection.level_segment(&board.slug, period, &segment, &totals).await?;
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
            let mut rebuild = self.projection.start_segment_rebuild(&board.slug, period, segment).await?;
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
        let values = self.ledger.segment_values(slug, period).await?;
        Ok(values.into_iter().map(|(dimension, value)| Segment { dimension, value }).collect())
    }

    /// Unlinks a period's keys and its segments' (archived periods, settled ones past their keys'
    /// life).
    pub(crate) async fn unlink_period_keys(
        &self,
        slug: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<(), EngineError> {
        self.projection.unlink_period(slug, period).await?;
        let segments = self.period_segments(slug, period).await?;
        self.projection.unlink_segments(slug, period, &segments).await?;
        Ok(())
    }

    /// Gives a period's keys and its segments' an expiry of `ttl`.
    pub(crate) async fn expire_period_keys(
        &self,
        slug: &BoardSlug,
        period: &PeriodKey,
        ttl: Duration,
    ) -> Result<(), EngineError> {
        self.projection.expire(slug, period, ttl).await?;
        let segments = self.period_segments(slug, period).await?;
        self.projection.expire_segments(slug, period, &segments, ttl).await?;
        Ok(())
    }
}
