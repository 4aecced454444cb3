//! Lifecycle use cases: freeze → settle → archive (and reopen), late-write review, revoke and
//! correct, and the audit trail. The ledger decides and records (`ledger/lifecycle.rs`, `late.rs`,
//! `adjust.rs`, `settle.rs`); this module projects what changed through the same versioned script
//! as every write, cross-checks the projection before a settlement and removes it after an archive.
//!
//! Nothing here edits Redis directly: every score that moves was first recomputed in the ledger.
//!
//! - **Before a settlement** ([`Lifecycle::cross_check`]): the projection's member count and version
//!   sum against the ledger's, and only if they differ score by score; a difference is repaired
//!   by a rebuild and audited `projection_repaired`. The standings never depend on it: they are
//!   computed from the ledger (`ledger/settle.rs`). Failpoint `settle.after_commit` stops after
//!   the commit, before any reward is delivered.
//! - **Revoke, correct, accept a late write**: the ledger recomputes the total (a new version),
//!   then it is projected like a write and announced to live streams.
//! - **After an archive**: the period's keys get a safety-net expiry ([`ARCHIVE_SAFETY_NET`],
//!   1 h) and are unlinked after [`ARCHIVE_GRACE`] (5 s: longer than other instances' 1 s cache
//!   of the period's state; `UNLINK` frees a big ranking off Redis's main thread, an expiry would
//!   not). The scheduler unlinks what a stopped process left. Every read of an archived period —
//!   top, pages, cursors, snapshots, around-me, member, count, ranks — comes from its standings
//!   (`reads`), with the ranks and order the live board had.

pub mod moderation;
pub mod previews;
pub mod public;

use crate::ledger::audit::{Act, AuditFilter, AuditRecord};
use crate::ledger::{Projected, Revoked, SETTLEMENT_PAGE};
use crate::live::Live;
use crate::progress::Progress;
use crate::reads::Reads;
use crate::redis::ProjectedTotal;
use crate::rewards::Rewards;
use crate::scope::Scope;
use crate::seasons::Seasons;
use crate::{Core, EngineError};
use domain::lifecycle::{State, Transition};
use domain::view::{AuditEntry, LateEntry, PeriodInfo, RevisionNote, Settlement, SettlementSummary};
use domain::write::Outcome;
use domain::{Board, BoardSlug, EventId, MemberId, PeriodKey};
use serde_json::json;
use std::sync::Arc;

/// How long an archived period's Redis keys outlive the archive: longer than any instance's
/// cached period state, so no reader meets an empty projection.
pub const ARCHIVE_GRACE: std::time::Duration = std::time::Duration::from_secs(5);
/// The expiry an archived period's keys get until they are unlinked: only reached if no process
/// unlinks them (see [`Lifecycle::expire_projection`]).
pub const ARCHIVE_SAFETY_NET: std::time::Duration = std::time::Duration::from_secs(3600);

/// The lifecycle service: transitions, settlements, late-write review, revocations, corrections
/// and the audit trail; previews and revisions (`previews.rs`); public freezes (`public.rs`);
/// hidden members (`moderation.rs`). It keeps no state of its own: what it changes is in the
/// ledger and the projection, and it tells the services that keep copies (reads' caches, live
/// feeds, seasons, rewards) through their methods. Cheap to clone.
#[derive(Clone)]
pub struct Lifecycle {
    core: Core,
    reads: Reads,
    live: Live,
    seasons: Arc<Seasons>,
    rewards: Rewards,
}

/// The answer to a revoke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevokeResult {
    /// `revoked` or `already_revoked`.
    pub result: &'static str,
    pub period: PeriodKey,
    pub member: MemberId,
    pub points: Option<i64>,
    pub projected: bool,
}

/// An admin's correction of a member's total in a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    pub member: MemberId,
    pub delta: i64,
    /// Makes a retried correction count once. Without one, the id is derived from the
    /// correction's content and its actor ([`derived_correction_id`]).
    pub correction_id: Option<EventId>,
    pub reason: String,
}

/// The answer to a correction: the ledger entry it made and the member's new total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectionResult {
    /// `applied`, or `duplicate` when a correction with this `correction_id` was recorded before
    /// (then `points` and `version` are the member's current ones).
    pub result: Outcome,
    /// The id given, or the one derived from the content when none was.
    pub correction_id: EventId,
    pub entry_id: i64,
    pub period: PeriodKey,
    pub member: MemberId,
    pub delta: i64,
    pub points: i64,
    pub version: i64,
    pub projected: bool,
}

/// The answer to a late-write decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateResult {
    pub entry: LateEntry,
    /// For an accept that was applied now: what the write did (`applied`, `stale`, …).
    pub result: Option<Outcome>,
    pub points: Option<i64>,
    pub projected: bool,
}

/// What the cross-check before a settlement found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CrossCheck {
    /// Members the ranking should hold (hidden members are not in it).
    pub members: u64,
    /// Members whose projected score differed from the ledger's (or were missing / extra).
    pub mismatched: u64,
}

impl Lifecycle {
    pub(crate) fn new(core: Core, reads: Reads, live: Live, seasons: Arc<Seasons>, rewards: Rewards) -> Self {
        Self { core, reads, live, seasons, rewards }
    }

    /// Applies a lifecycle transition to a period and answers the period as it now is.
    /// Repeating a transition that already happened answers the same period; an impossible one is
    /// `Refused { code: invalid_transition }`.
    pub async fn transition(
        &self,
        scope: &Scope,
        transition: Transition,
        actor: &str,
        reason: Option<&str>,
    ) -> Result<PeriodInfo, EngineError> {
        let (slug, period) = (scope.slug(), scope.period());
        // A settlement uses the prize table as the ledger has it now, not a copy from before an
        // edit made through another process.
        let board = match transition {
            Transition::Settle => self.reads.fresh_board(slug).await?,
            _ => scope.board().clone(),
        };
        match transition {
            Transition::Settle => {
                self.settle(&board, period, actor).await?;
            }
            Transition::Archive => {
                self.core
                    .ledger
                    .transition(&board, period, transition, actor, reason, jiff::Timestamp::now())
                    .await?;
                // An archived period is read from its standings, which are public: a public
                // freeze ends with the archive (audited as a reveal).
                self.reveal_at(&board, period, crate::lifecycle::public::RevealMode::All, actor, reason)
                    .await?;
                self.expire_projection(&board, period).await;
            }
            Transition::Freeze | Transition::Reopen => {
                self.core
                    .ledger
                    .transition(&board, period, transition, actor, reason, jiff::Timestamp::now())
                    .await?;
            }
        }
        self.reads.forget_cached(slug);
        self.live.announce(slug, &period);
        self.reads.period_info(&board, period).await
    }

    /// Settles a frozen period: cross-checks (and if needed repairs) the projection, then records
    /// the standings, digest and rewards from the ledger in one transaction. Settling again
    /// answers the same settlement.
    pub async fn settle(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
    ) -> Result<Settlement, EngineError> {
        self.settle_with_progress(board, period, actor, &Progress::new()).await
    }

    /// [`Lifecycle::settle`], reporting to `progress` (and to this process's registry of jobs, which
    /// the console polls): checking the projection (uncounted), then the ledger's phases
    /// (`Ledger::settle_with_progress`). A period settled before reports no phase.
    pub async fn settle_with_progress(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
        progress: &Progress,
    ) -> Result<Settlement, EngineError> {
        let _job = progress.track("settle", &board.slug, &period);
        if board.season.is_some() && self.core.ledger.state_of(&board.slug, &period).await? == State::Frozen {
            // Its standings are final only once its weeks' are, and then it is brought level.
            self.seasons.before_settling_season(board).await?;
        }
        if self.core.ledger.state_of(&board.slug, &period).await? == State::Frozen {
            progress.uncounted("checking the projection", "members");
            self.cross_check(board, period, actor).await?;
        }
        let now = jiff::Timestamp::now();
        let (settlement, _) = self
            .core
            .ledger
            .settle_with_progress(board, period, actor, now, self.core.failpoints.hook(), progress)
            .await?;
        self.core.failpoints.hit("settle.after_commit")?;
        self.rewards.wake();
        progress.done();
        Ok(settlement)
    }

    /// Cross-checks the projection of a period with the ledger before a settlement. First the
    /// summary — ranked member count and version sum, both sides: the scripts write a score (or,
    /// for a hidden member, its absence from the ranking) only with its version, so equal
    /// summaries mean every member's projected version (and score) is the ledger's. Only when
    /// they differ, every score is compared — hidden members are expected absent; a difference
    /// (Redis lost keys, was restarted empty) is repaired by a rebuild from the ledger and written
    /// to the audit trail. The standings never depend on it: they are computed from the ledger.
    pub async fn cross_check(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
    ) -> Result<CrossCheck, EngineError> {
        let (members, vsum) = self.core.ledger.version_summary(&board.slug, &period).await?;
        // A bounded board's summary never matches the ledger's (trimmed members have no version
        // in Redis): its scores are compared with the ledger's best `keep_top`.
        let bounded = board.keep_top.is_some();
        match self.core.projection.version_summary(&board.slug, &period).await {
            Ok(summary) if !bounded && summary == (members, vsum) => {
                return Ok(CrossCheck { members, mismatched: 0 });
            }
            Ok(_) => {}
            Err(error) => {
                // The settlement does not need Redis; the reconciler levels the projection later.
                tracing::warn!(board = %board.slug, %period, %error, "projection not cross-checked: Redis unavailable");
                return Ok(CrossCheck { members, mismatched: 0 });
            }
        }
        let (expected, floor) = crate::totals::kept(board, self.core.projected_totals(board, &period).await?);
        let projected = match self.core.projection.scores(&board.slug, &period).await {
            Ok(scores) => scores,
            Err(error) => {
                // The settlement does not need Redis; the check is repeated by the reconciler.
                tracing::warn!(board = %board.slug, %period, %error, "projection not cross-checked: Redis unavailable");
                let members = expected.iter().filter(|t| !t.hidden).count() as u64;
                return Ok(CrossCheck { members, mismatched: 0 });
            }
        };
        // Hidden members are expected absent from the ranking: one that is there counts as extra.
        let ranked: Vec<&ProjectedTotal> = expected.iter().filter(|t| !t.hidden).collect();
        let mut mismatched =
            ranked.iter().filter(|t| projected.get(t.member.as_str()) != Some(&t.score)).count();
        mismatched += projected.len().saturating_sub(ranked.len() - mismatched);
        let check = CrossCheck { members: ranked.len() as u64, mismatched: mismatched as u64 };
        if mismatched > 0 {
            self.core.projection.rebuild(&board.slug, &period, &expected, floor).await?;
            let key = period.to_string();
            let record = AuditRecord {
                actor,
                action: "projection_repaired",
                board: Some(board.slug.as_str()),
                period: Some(&key),
                reason: Some("the projection differed from the ledger before settlement"),
                before: Some(json!({ "projected_members": projected.len(), "mismatched": mismatched })),
                after: Some(
                    json!({ "members": ranked.len(), "hidden_members": expected.len() - ranked.len() }),
                ),
                ..Default::default()
            };
            self.core.ledger.audit(&record, jiff::Timestamp::now()).await?;
            tracing::warn!(board = %board.slug, %period, mismatched, "projection repaired before settlement");
        }
        Ok(check)
    }

    /// The latest settlement of a period, with its first [`SETTLEMENT_PAGE`] standings.
    pub async fn settlement(&self, scope: &Scope) -> Result<Settlement, EngineError> {
        self.settlement_page(scope, 0, SETTLEMENT_PAGE).await
    }

    /// The latest settlement of a period, with `limit` (at most 10 000) standings from `offset`.
    pub async fn settlement_page(
        &self,
        scope: &Scope,
        offset: u64,
        limit: u64,
    ) -> Result<Settlement, EngineError> {
        self.settlement_revision(scope, None, offset, limit).await
    }

    /// A settlement revision of a period (the latest for `None`; every revision stays
    /// readable), with `limit` (at most 10 000) standings from `offset`.
    pub async fn settlement_revision(
        &self,
        scope: &Scope,
        revision: Option<i64>,
        offset: u64,
        limit: u64,
    ) -> Result<Settlement, EngineError> {
        if limit == 0 || limit > 10_000 {
            return Err(EngineError::Invalid("limit must be between 1 and 10000".into()));
        }
        let (slug, period) = (scope.slug(), scope.period());
        let what = match revision {
            Some(r) => format!("settlement revision {r} of {slug} {period}"),
            None => format!("settlement of {slug} {period}"),
        };
        self.core
            .ledger
            .settlement_revision(slug, &period, revision, offset, limit)
            .await?
            .ok_or(EngineError::NotFound { what: crate::Missing::Other(what) })
    }

    /// Every settlement revision of a period, oldest first (empty when it was never settled).
    pub async fn settlements(&self, scope: &Scope) -> Result<Vec<SettlementSummary>, EngineError> {
        let (slug, period) = (scope.slug(), scope.period());
        Ok(self.core.ledger.settlements(slug, &period).await?)
    }

    /// The settlement revisions of a period as contestants read them, oldest first: when, why,
    /// what changed in words, the digest — and with a `member`, its standing in each revision
    /// (a hidden member is not found, as on every public read).
    pub async fn revision_notes(
        &self,
        scope: &Scope,
        member: Option<&MemberId>,
    ) -> Result<Vec<RevisionNote>, EngineError> {
        let (slug, period) = (scope.slug(), scope.period());
        let revisions = match member {
            Some(member) => {
                self.reads.refuse_hidden(slug, &period, member).await?;
                self.core.ledger.member_revisions(slug, &period, member).await?
            }
            None => {
                self.core.ledger.settlements(slug, &period).await?.into_iter().map(|s| (s, None)).collect()
            }
        };
        let mut notes = Vec::with_capacity(revisions.len());
        for (s, standing) in revisions {
            let changes = match &s.preview_id {
                Some(id) => Some(domain::preview::summarize(
                    &self.core.ledger.draft(slug.as_str(), id).await?.changes,
                )),
                None => None,
            };
            notes.push(RevisionNote {
                revision: s.revision,
                settled_at: s.settled_at,
                digest: s.digest,
                changes,
                reason: s.reason,
                standing,
            });
        }
        Ok(notes)
    }

    /// Late writes of a period, oldest first.
    pub async fn late_entries(
        &self,
        scope: &Scope,
        status: Option<&str>,
    ) -> Result<Vec<LateEntry>, EngineError> {
        if let Some(s) = status.filter(|s| !matches!(*s, "pending" | "accepted" | "rejected")) {
            return Err(EngineError::Invalid(format!("status {s:?} is not pending, accepted or rejected")));
        }
        let (slug, period) = (scope.slug(), scope.period());
        Ok(self.core.ledger.late_entries(slug, &period, status).await?)
    }

    /// Accepts (applies) or rejects a late write of a period.
    pub async fn decide_late(
        &self,
        scope: &Scope,
        id: i64,
        accept: bool,
        actor: &str,
        reason: Option<&str>,
    ) -> Result<LateResult, EngineError> {
        if !accept {
            required_reason(reason.unwrap_or_default()).map_err(|_| {
                EngineError::Invalid("a rejection needs a reason (at most 1000 characters)".into())
            })?;
        }
        let (board, period) = (scope.board(), scope.period());
        let decision = self
            .core
            .ledger
            .decide_late(board, period, id, accept, &Act::new(actor, reason, jiff::Timestamp::now()))
            .await?;
        let (result, points, total) = match decision.applied {
            Some(r) => (Some(r.outcome), r.points, r.total),
            None => (None, None, None),
        };
        let projected = self.project_total(board, total).await;
        Ok(LateResult { entry: decision.entry, result, points, projected })
    }

    /// Revokes an applied event or submission (once) and projects the member's recomputed total.
    pub async fn revoke(
        &self,
        slug: &BoardSlug,
        event_id: &EventId,
        actor: &str,
        reason: &str,
    ) -> Result<RevokeResult, EngineError> {
        let reason = required_reason(reason)?;
        let board = self.reads.board(slug).await?;
        match self.core.ledger.revoke(&board, event_id, actor, reason, jiff::Timestamp::now()).await? {
            Revoked::AlreadyRevoked { period, member } => {
                Ok(RevokeResult { result: "already_revoked", period, member, points: None, projected: true })
            }
            Revoked::Revoked { period, member, total } => {
                let points = total.as_ref().map(|t| t.points);
                let projected = self.project_total(&board, total).await;
                Ok(RevokeResult { result: "revoked", period, member, points, projected })
            }
        }
    }

    /// Records an admin's correction and projects it.
    pub async fn correct(
        &self,
        scope: &Scope,
        correction: &Correction,
        actor: &str,
    ) -> Result<CorrectionResult, EngineError> {
        let reason = required_reason(&correction.reason)?;
        let (board, period) = (scope.board(), scope.period());
        crate::seasons::refuse_direct(board)?;
        let Correction { member, delta, .. } = correction;
        let correction_id = match &correction.correction_id {
            Some(id) => id.clone(),
            None => derived_correction_id(scope, correction, reason, actor),
        };
        let now = jiff::Timestamp::now();
        let (recorded, entry_id) = self
            .core
            .ledger
            .correct(board, period, member, *delta, Some(&correction_id), &Act::new(actor, Some(reason), now))
            .await?;
        let (points, version) = (recorded.points.unwrap_or_default(), recorded.version.unwrap_or_default());
        let result = recorded.outcome;
        let projected = self.project_total(board, recorded.total).await;
        Ok(CorrectionResult {
            result,
            correction_id,
            entry_id,
            period,
            member: member.clone(),
            delta: *delta,
            points,
            version,
            projected,
        })
    }

    /// Audit rows, newest first; `before` is the cursor (an id from the previous page).
    pub async fn audit(
        &self,
        filter: &AuditFilter,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<AuditEntry>, EngineError> {
        Ok(self.core.ledger.audit_page(filter, before, limit.clamp(1, 500)).await?)
    }

    /// Projects one recomputed total through the versioned script. A failure leaves the work to
    /// the reconciler (the ledger has it) and answers false.
    pub(crate) async fn project_total(&self, board: &Board, total: Option<Projected>) -> bool {
        let Some(t) = total else { return true };
        // Seasons made of the period follow the member (`crate::seasons`); this only takes note.
        self.seasons.noted(&board.slug, t.period, std::iter::once(&t.member));
        // A settled period past its keys' life is read from its standings (a revision rewrites
        // them): projecting one total would bring back a ranking of that member alone.
        match self.ranking_expired(board, t.period).await {
            Ok(true) => return true,
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(board = %board.slug, period = %t.period, %error, "settlement time not read; projecting")
            }
        }
        let one = [ProjectedTotal { member: t.member, version: t.version, score: t.score, hidden: t.hidden }];
        let keep = board.keep_top.unwrap_or(0);
        let projected = match self.core.projection.project_kept(&board.slug, &t.period, &one, keep).await {
            // And into the member's segment rankings, when the board has segments.
            Ok(_) => self.core.project_segments(board, &t.period, &one).await,
            Err(error) => Err(error.into()),
        };
        self.live.announce(&board.slug, &t.period);
        match projected {
            Ok(_) => true,
            Err(error) => {
                self.core.metrics.redis_errors.inc();
                tracing::warn!(board = %board.slug, period = %t.period, %error, "projection failed; the reconciler will level it");
                false
            }
        }
    }

    /// When a settled period's Redis keys stop serving: its settlement + the board's
    /// `ranking_ttl_days`. None unless the period is settled and not publicly frozen (a public
    /// view lives in Redis alone, so its keys stay until the reveal).
    pub(crate) async fn ranking_deadline(
        &self,
        board: &Board,
        period: PeriodKey,
    ) -> Result<Option<jiff::Timestamp>, EngineError> {
        let Some((settled_at, frozen)) = self.core.ledger.settled_at(&board.slug, &period).await? else {
            return Ok(None);
        };
        Ok(crate::reads::keys_deadline(board, settled_at, frozen))
    }

    /// Whether a settled period's keys are past their life: its reads then come from the
    /// standings, whether or not the scheduler has unlinked the keys yet.
    pub(crate) async fn ranking_expired(
        &self,
        board: &Board,
        period: PeriodKey,
    ) -> Result<bool, EngineError> {
        let deadline = self.ranking_deadline(board, period).await?;
        Ok(deadline.is_some_and(|d| d <= jiff::Timestamp::now()))
    }

    /// Removes an archived period's projection after [`ARCHIVE_GRACE`], with UNLINK: an expiry
    /// would free a big ranking on Redis's main thread. The keys get an expiry at once as a
    /// safety net, and the scheduler's next pass unlinks them should this process stop first.
    pub async fn expire_projection(&self, board: &Board, period: PeriodKey) {
        if let Err(error) = self.core.expire_period_keys(&board.slug, &period, ARCHIVE_SAFETY_NET).await {
            tracing::warn!(board = %board.slug, %period, %error, "archived period's keys not removed yet");
        }
        let (engine, slug) = (self.clone(), board.slug.clone());
        tokio::spawn(async move {
            tokio::time::sleep(ARCHIVE_GRACE).await;
            if let Err(error) = engine.core.unlink_period_keys(&slug, &period).await {
                tracing::warn!(board = %slug, %period, %error, "archived period's keys not removed yet");
            }
        });
    }
}

/// The most characters a reason may hold (as sent, before trimming: the document's `maxLength`).
pub const MAX_REASON_CHARS: usize = 1000;

/// A trimmed, bounded reason: revokes, corrections, hiding, unhiding and rejections need one.
pub(crate) fn required_reason(reason: &str) -> Result<&str, EngineError> {
    if reason.chars().count() > MAX_REASON_CHARS {
        return Err(EngineError::Invalid(format!("a reason holds at most {MAX_REASON_CHARS} characters")));
    }
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(EngineError::Invalid("a reason is required".into()));
    }
    Ok(reason)
}

/// The id of a correction sent without one: the same actor sending the same correction (board,
/// period, member, delta, reason) gets the same id, so a retry answers `duplicate` instead of
/// correcting twice. A deliberate repeat says so with an id of its own.
pub fn derived_correction_id(scope: &Scope, correction: &Correction, reason: &str, actor: &str) -> EventId {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    // Lengths first, so no two different contents hash the same bytes.
    for part in [
        scope.board().slug.as_str(),
        &scope.period().to_string(),
        correction.member.as_str(),
        &correction.delta.to_string(),
        reason,
        actor,
    ] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    EventId::parse(format!("correction-{}", crate::hex(&hash.finalize()[..16])))
        .expect("ASCII hex within the id's length")
}
