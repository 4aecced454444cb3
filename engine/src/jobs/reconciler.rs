//! The reconciler keeps the projection level with the ledger without anyone's help: after Redis
//! was unreachable, restarted empty, or the process died between commit and projection.
//!
//! Every pass compares, for each live period, the ledger's `SUM(version)` with the projection's
//! `vsum` (maintained by the scripts). A difference means some member's projected version is
//! behind: the period's totals are re-applied through `level.lua`, whose version guard makes this
//! safe while writes continue. `rebuild` instead replaces a period's projection outright
//! (`laurel rebuild`, `POST …/rebuild`): pipelined batches into the period's rebuild keys, then
//! one atomic `swap.lua`.
//!
//! `laurel serve` runs a pass every 2 s over the open and frozen periods; before it levels, it
//! puts a public freeze's view in place when Redis holds another (`crate::lifecycle::public`). A period that
//! cannot be levelled fails alone.
//!
//! Segment rankings are levelled the same way, each by its own version sum, and rebuilt with
//! their period (`crate::segments`). Hidden members are part of both: their versions count in `SUM(version)` and `vsum` alike, and
//! both paths record the version while leaving the member out of the ranking.

use super::Jobs;
use crate::EngineError;
use crate::ledger::audit::AuditRecord;
use crate::progress::Progress;
use crate::scope::Scope;
use crate::totals::{encode, kept};
use domain::{BoardSlug, PeriodKey};
use std::time::{Duration, Instant};

/// What one reconciliation pass found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    pub periods_checked: u64,
    pub periods_levelled: u64,
    pub members_levelled: u64,
    /// Sum over periods of (ledger version sum − projected version sum) before levelling.
    pub lag: i64,
    /// Periods that could not be levelled (logged); the next pass tries them again.
    pub periods_failed: u64,
    /// Segment rankings levelled (`crate::segments`); their members count in `members_levelled`.
    pub segments_levelled: u64,
}

/// What a rebuild did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebuildReport {
    /// Members in the rebuilt ranking (hidden members get their versions back, not a place).
    pub members: u64,
    pub took_ms: u64,
}

impl Jobs {
    /// One pass over every live period.
    pub async fn reconcile_once(&self) -> Result<ReconcileReport, EngineError> {
        let mut report = ReconcileReport::default();
        // Public views first: levelling writes to `:live` only once a view's marker is there.
        self.lifecycle.converge_public_views().await?;
        // Seasons behind their weeks are recomputed into the ledger, then levelled below.
        match self.seasons.check().await {
            Ok(seasons) => self.seasons.announce(&seasons),
            Err(error) => tracing::warn!(%error, "seasons not checked; the next pass retries"),
        }
        let live = self.core.ledger.live_periods().await?;
        for (slug, period, _) in self.core.readable("reconciler", live) {
            report.periods_checked += 1;
            match self.level_period(&slug, &period, &mut report).await {
                Ok(()) => {}
                // Redis away: every other period would fail the same way; the next pass retries.
                Err(EngineError::Redis(error)) => return Err(EngineError::Redis(error)),
                Err(error) => {
                    report.periods_failed += 1;
                    tracing::warn!(board = %slug, %period, %error, "period not levelled; the others go on");
                }
            }
        }
        self.core.metrics.projection_lag.set(report.lag);
        Ok(report)
    }

    /// Levels one period if its projection is behind the ledger.
    async fn level_period(
        &self,
        slug: &BoardSlug,
        period: &PeriodKey,
        report: &mut ReconcileReport,
    ) -> Result<(), EngineError> {
        let board = self.reads.shared_board(slug).await?;
        // Segment rankings are levelled apart, each by its own version sum.
        self.core.level_segments(&board, period, report).await?;
        let ledger_sum = self.core.ledger.version_sum(slug, period).await?;
        let (projected_sum, marker) = self.core.projection.version_sum_and_marker(slug, period).await?;
        if marker.is_some() {
            // A public view in Redis that the ledger no longer has (a reveal whose Redis half
            // failed) is taken down; the ones it has were put in place above.
            if self.core.ledger.public_view(slug, period).await?.is_none() {
                self.lifecycle.converge_public(&board, *period, None, false).await?;
            }
        }
        if ledger_sum == projected_sum {
            return Ok(());
        }
        // A bounded board's projection holds no versions of trimmed members, so its sum is below
        // the ledger's by design: it is rebuilt here, with its floor, when Redis lost it (nothing
        // projected) or asked for a refill (a kept member fell to the floor), from the ledger's
        // best `keep_top`. A member whose projection failed is levelled by its next write or by
        // a rebuild.
        if board.keep_top.is_some() {
            let lost = projected_sum == 0;
            if lost || self.core.projection.take_refill(slug, period).await? {
                let (totals, floor) = kept(&board, self.core.projected_totals(&board, period).await?);
                self.core.projection.rebuild(slug, period, &totals, floor).await?;
                if lost {
                    report.lag += ledger_sum;
                }
                report.periods_levelled += 1;
                self.live.announce(slug, period);
                tracing::info!(board = %slug, %period, "bounded projection refilled from the ledger");
                return Ok(());
            }
            // Members let in without the version guard: levelled if the ledger's version is newer.
            let blind = self.core.projection.take_blind(slug, period).await?;
            if !blind.is_empty() {
                let totals = self.core.ledger.totals_of(slug, period, &blind).await?;
                let totals = totals.into_iter().map(|t| encode(&board, t)).collect::<Result<Vec<_>, _>>()?;
                let keep = board.keep_top.unwrap_or(0);
                let levelled = self.core.projection.level_kept(slug, period, &totals, keep).await?;
                if levelled > 0 {
                    report.members_levelled += levelled;
                    report.periods_levelled += 1;
                    self.live.announce(slug, period);
                    tracing::info!(board = %slug, %period, levelled, "bounded projection: reordered writes levelled");
                }
            }
            return Ok(());
        }
        let totals = self.core.projected_totals(&board, period).await?;
        report.lag += ledger_sum - projected_sum;
        report.members_levelled += self.core.projection.level(slug, period, &totals).await?;
        report.periods_levelled += 1;
        self.live.announce(slug, period);
        tracing::info!(board = %slug, %period, behind = ledger_sum - projected_sum, "projection levelled from the ledger");
        Ok(())
    }

    /// Runs [`Jobs::reconcile_once`] every `every` until the process ends.
    pub fn spawn_reconciler(&self, every: Duration) -> tokio::task::JoinHandle<()> {
        let engine = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let pass = engine.reconcile_once().await;
                engine.core.metrics.count_pass("reconciler", pass.is_ok());
                if let Err(error) = pass {
                    // Redis or the ledger is away; the next pass tries again.
                    tracing::debug!(%error, "reconciliation pass failed");
                }
            }
        })
    }

    /// Replaces a period's projection with the ledger's totals (audited as `actor`).
    pub async fn rebuild(&self, scope: &Scope, actor: &str) -> Result<RebuildReport, EngineError> {
        self.rebuild_in_pages(scope, actor, REBUILD_PAGE).await
    }

    /// [`Jobs::rebuild`], reading the ledger `page` totals at a time (tests use small pages).
    pub async fn rebuild_in_pages(
        &self,
        scope: &Scope,
        actor: &str,
        page: u64,
    ) -> Result<RebuildReport, EngineError> {
        self.rebuild_with_progress(scope, actor, page, &Progress::new()).await
    }

    /// [`Jobs::rebuild_in_pages`], reporting to `progress` (and to this process's registry of
    /// jobs) one phase, `projecting`: ranked members pushed to Redis, page by page, out of the
    /// ledger's count when the rebuild began. Writes go on meanwhile (an open period), so the
    /// count may move: the last report is what was rebuilt.
    pub async fn rebuild_with_progress(
        &self,
        scope: &Scope,
        actor: &str,
        page: u64,
        progress: &Progress,
    ) -> Result<RebuildReport, EngineError> {
        let started = Instant::now();
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let _job = progress.track("rebuild", slug, &period);
        if board.keep_top.is_some() {
            return self.rebuild_kept(scope, actor, progress, started).await;
        }
        let (ranked, _) = self.core.ledger.version_summary(slug, &period).await?;
        progress.phase("projecting", "members", ranked);
        // The ledger is read page by page on a task of its own while the pages already read go
        // to Redis: a large period's rebuild takes about as long as the slower of the two.
        let (pages, mut received) = tokio::sync::mpsc::channel(2);
        let (ledger, reader_slug) = (self.core.ledger.clone(), slug.clone());
        let reader = tokio::spawn(async move {
            let mut after = None;
            loop {
                let found = ledger.totals_page(&reader_slug, &period, after.as_ref(), page).await;
                let last = found.as_ref().ok().and_then(|p| p.last().map(|t| t.member.clone()));
                let full = found.as_ref().is_ok_and(|p| p.len() as u64 == page);
                if pages.send(found).await.is_err() || !full {
                    return;
                }
                after = last;
            }
        });
        let mut rebuild = self.core.projection.start_rebuild(slug, &period).await?;
        let (mut members, mut hidden) = (0, 0);
        while let Some(page) = received.recv().await {
            let totals = page?.into_iter().map(|t| encode(board, t)).collect::<Result<Vec<_>, _>>()?;
            let hidden_here = totals.iter().filter(|t| t.hidden).count() as u64;
            (members, hidden) = (members + totals.len() as u64 - hidden_here, hidden + hidden_here);
            rebuild.push(&totals).await?;
            progress.advance(totals.len() as u64 - hidden_here);
        }
        reader.await.map_err(|e| EngineError::Invalid(format!("the ledger reader stopped: {e}")))?;
        rebuild.finish().await?;
        self.core.rebuild_segments(board, &period).await?;
        self.rebuilt(scope, actor, progress, started, members, hidden).await
    }

    /// A bounded board's rebuild: the ledger's best `keep_top` (and hidden members' versions),
    /// sorted in memory, since the ledger has no index on the totals' order.
    async fn rebuild_kept(
        &self,
        scope: &Scope,
        actor: &str,
        progress: &Progress,
        started: Instant,
    ) -> Result<RebuildReport, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let (totals, floor) = kept(board, self.core.projected_totals(board, &period).await?);
        let hidden = totals.iter().filter(|t| t.hidden).count() as u64;
        let members = totals.len() as u64 - hidden;
        progress.phase("projecting", "members", members);
        self.core.projection.rebuild(slug, &period, &totals, floor).await?;
        progress.advance(members);
        self.rebuilt(scope, actor, progress, started, members, hidden).await
    }

    /// Ends a rebuild, bounded or not: its report, audited `rebuild` (with `keep_top` when set).
    async fn rebuilt(
        &self,
        scope: &Scope,
        actor: &str,
        progress: &Progress,
        started: Instant,
        members: u64,
        hidden: u64,
    ) -> Result<RebuildReport, EngineError> {
        progress.settle_count();
        let report = RebuildReport { members, took_ms: started.elapsed().as_millis() as u64 };
        let key = scope.period().to_string();
        let mut after = serde_json::json!({
            "members": report.members, "hidden_members": hidden, "took_ms": report.took_ms,
        });
        if let Some(keep) = scope.board().keep_top {
            after["keep_top"] = keep.into();
        }
        let record = AuditRecord {
            actor,
            action: "rebuild",
            board: Some(scope.slug().as_str()),
            period: Some(&key),
            after: Some(after),
            ..Default::default()
        };
        self.core.ledger.audit(&record, jiff::Timestamp::now()).await?;
        progress.done();
        Ok(report)
    }
}

/// Ledger totals per page of a streamed rebuild.
pub const REBUILD_PAGE: u64 = 20_000;
