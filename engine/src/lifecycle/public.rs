//! Public freezes (contest mode): a period's writes keep counting, but the public sees the
//! standings as they were at the freeze — every public read, page and count — until a reveal,
//! either all at once or stepwise, the resolver's way (`Ledger::reveal_next`). Admins see live.
//!
//! The ledger holds the truth (`ledger/public.rs`: the period's `public_frozen_at` and the copied
//! `public_standings`). Redis holds the view where every public read already looks: while the
//! period's `:public` marker exists, `:rank` is the public view and the scripts write to `:live`
//! (`redis/public.rs`). So a write after the freeze cannot reach a public read, on any instance,
//! whatever a process has cached. The freeze sets the marker *before* the ledger commits, so
//! nothing committed after the ledger's freeze is ever public; the view is then put in place from
//! the ledger's rows. The reconciler brings Redis to the ledger's view when the two differ (a
//! Redis restart, a step whose Redis half failed).
//!
//! Reads that come from the ledger follow the same view: the fallback order while Redis is away
//! (`fallback.rs`: `public_standings` instead of totals) and "why this score" (no entry after the
//! view's watermark, no later revocation — in the same SQL statement).
//!
//! The steps, each the ledger first:
//!
//! - **Freeze** (`POST …/public-freeze`, admin, or the scheduler once a board's
//!   `public_freeze_seconds` before the end began): before the ledger's commit
//!   `public_begin.lua` sets the `:public` marker and copies `:rank` to `:live`; one transaction
//!   holding the period's row lock (so it waits for the writes in flight) sets
//!   `public_frozen_at`, the watermark (highest entry id) and copies the visible totals into
//!   `public_standings` (migration 0016); then the ledger's rows replace `:rank`
//!   (`public_commit.lua`).
//! - **Reveal** (`POST …/reveal {step}`): at once, `public_end.lua` renames `:live` back to
//!   `:rank`; stepwise, `Ledger::reveal_next` reveals one member a step — the lowest placed of
//!   the frozen board whose live standing differs (`domain::lifecycle::next_to_reveal`), so the
//!   winners come last — and `public_step.lua` copies its live total into the view in both
//!   stores. `Lifecycle::reveal_plan` says what the next step reveals (the console shows it).
//! - **Converge** (`converge_public`, also from the reconciler): the marker names the view
//!   (`<frozen_at>.<steps>`); when Redis holds another (a restart, a failed Redis half), the
//!   ledger's view is put in place before the period is levelled, and a view the ledger no
//!   longer has is taken down.
//!
//! Every public read — top, pages, cursors, new snapshots (made from `public_standings` while
//! publicly frozen), around, member rank, counts, ranks — answers the view with no check of its
//! own; `frozen_at` on answers and the banners come from the period-state cache (≤ 1 s). Admins
//! read `:live` (`Source::Unfrozen`: the console, an admin token on top, offset pages, member,
//! around, events), and a member sees its own live standing; `Viewer` (public or admin) tells the
//! ledger's reads apart. Settling uses the live ledger; archiving reveals; hiding a member takes
//! it out of the view at once. Known window: after Redis loses its data, writes projected before
//! the reconciler's next pass (≤ 2 s) are public until it puts the view back.

use super::Lifecycle;
use crate::EngineError;
use crate::ledger::PublicView;
use crate::scope::Scope;
use domain::{Board, MemberId, PeriodKey};
use std::time::Duration;

/// A marker a freeze set before its ledger commit is left alone this long by the reconciler (the
/// freeze in flight puts its view in place); older, it is a freeze that died half-way.
const PENDING_GRACE: Duration = Duration::from_secs(30);

/// How a reveal goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevealMode {
    /// The public view becomes live at once.
    All,
    /// One step of a stepwise reveal (`Ledger::reveal_next`).
    Next,
}

/// A period's public freeze as the API shows it after a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicFreeze {
    /// When the public view was taken; None once revealed (the public sees live).
    pub frozen_at: Option<jiff::Timestamp>,
    /// False when the call changed nothing (a repeat).
    pub changed: bool,
    /// The members a reveal step made public.
    pub revealed: Vec<MemberId>,
    /// Members whose public total still differs from their live one.
    pub pending: u64,
}

/// What the next reveal step of a publicly frozen period makes public.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextReveal {
    /// None: nothing differs any more; the step ends the freeze.
    pub next: Option<RevealNext>,
    /// Members whose public standing differs from their live one, the next one included.
    pub pending: u64,
}

/// The member the next reveal step makes public.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealNext {
    pub member: MemberId,
    pub display_name: Option<String>,
    /// Their place in the public view now (None: they had no points at the freeze).
    pub place: Option<u64>,
}

impl Lifecycle {
    /// Freezes a period publicly (admin, audited; a repeat changes nothing).
    pub async fn public_freeze(
        &self,
        scope: &Scope,
        actor: &str,
        reason: Option<&str>,
    ) -> Result<PublicFreeze, EngineError> {
        let (board, period) = (scope.board(), scope.period());
        // The ledger keeps microseconds; answer the instant it keeps.
        let now = jiff::Timestamp::from_microsecond(jiff::Timestamp::now().as_microsecond()).expect("now");
        self.public_freeze_at(board, period, actor, reason, now).await
    }

    pub(crate) async fn public_freeze_at(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
        reason: Option<&str>,
        now: jiff::Timestamp,
    ) -> Result<PublicFreeze, EngineError> {
        let slug = &board.slug;
        // Writes go to `:live` before the ledger commits the view, so none committed after it
        // reaches `:rank`. Without Redis the ledger still freezes; the reconciler catches up.
        let pending = format!("pending:{}", now.as_millisecond());
        let begun = self.core.projection.public_begin(slug, &period, &pending).await;
        if let Err(error) = &begun {
            tracing::warn!(board = %slug, %period, %error, "public freeze: Redis not prepared; the reconciler will");
        }
        let frozen = self.core.ledger.public_freeze(board, period, actor, reason, now).await;
        let result = match frozen {
            Ok((view, changed)) => {
                if begun.is_ok() {
                    let rows = self.core.public_rows(board, &period).await?;
                    let put = self
                        .core
                        .projection
                        .public_commit(slug, &period, &rows, &pending, &view.marker())
                        .await;
                    if !matches!(put, Ok(true)) {
                        self.converge_or_log(board, period, Some(view), true).await;
                    }
                }
                let pending = self.pending_members(board, &period).await?;
                if changed {
                    self.freeze_seasons_of(board, period, actor, reason, now).await;
                }
                Ok(PublicFreeze { frozen_at: Some(view.frozen_at), changed, revealed: vec![], pending })
            }
            Err(error) => {
                // Take back what was prepared (or put the view that is in force back in place).
                if begun.is_ok() {
                    let view = self.core.ledger.public_view(slug, &period).await?;
                    self.converge_or_log(board, period, view, true).await;
                }
                Err(error.into())
            }
        };
        self.reads.forget_cached(slug);
        self.live.announce(slug, &period);
        result
    }

    /// Reveals a publicly frozen period, at once or one step (admin, audited). Revealing a
    /// period that is not publicly frozen changes nothing.
    pub async fn reveal(
        &self,
        scope: &Scope,
        mode: RevealMode,
        actor: &str,
        reason: Option<&str>,
    ) -> Result<PublicFreeze, EngineError> {
        let (board, period) = (scope.board(), scope.period());
        self.reveal_at(board, period, mode, actor, reason).await
    }

    /// What the next step of a stepwise reveal would make public, with the member's display
    /// name (the console says it before the step); None when the period is not publicly frozen.
    pub async fn reveal_plan(&self, scope: &Scope) -> Result<Option<NextReveal>, EngineError> {
        let (board, period) = (scope.board(), scope.period());
        let Some(plan) = self.core.ledger.reveal_plan(board, &period).await? else {
            return Ok(None);
        };
        let next = match plan.next {
            Some((member, place)) => {
                let name = self.reads.display_names(std::slice::from_ref(&member)).await?.remove(&member);
                Some(RevealNext { member, display_name: name, place })
            }
            None => None,
        };
        Ok(Some(NextReveal { next, pending: plan.pending }))
    }

    pub(crate) async fn reveal_at(
        &self,
        board: &Board,
        period: PeriodKey,
        mode: RevealMode,
        actor: &str,
        reason: Option<&str>,
    ) -> Result<PublicFreeze, EngineError> {
        let slug = &board.slug;
        let now = jiff::Timestamp::now();
        let before = self.core.ledger.public_view(slug, &period).await?;
        let answer = match mode {
            RevealMode::All => {
                let changed = self.core.ledger.reveal_all(slug, period, actor, reason, now).await?;
                if let Err(error) = self.core.projection.public_end(slug, &period).await {
                    tracing::warn!(board = %slug, %period, %error, "reveal: Redis not changed; the reconciler will");
                }
                PublicFreeze { frozen_at: None, changed, revealed: vec![], pending: 0 }
            }
            RevealMode::Next => {
                match self.core.ledger.reveal_next(board, period, actor, reason, now).await? {
                    None => PublicFreeze { frozen_at: None, changed: false, revealed: vec![], pending: 0 },
                    Some(step) => {
                        let applied = match (&step.view, before) {
                            (None, _) => self.core.projection.public_end(slug, &period).await.map(|_| true),
                            (Some(after), Some(before)) => {
                                self.core
                                    .projection
                                    .public_step(
                                        slug,
                                        &period,
                                        &step.revealed,
                                        &before.marker(),
                                        &after.marker(),
                                    )
                                    .await
                            }
                            (Some(_), None) => Ok(false),
                        };
                        if !matches!(applied, Ok(true)) {
                            self.converge_or_log(board, period, step.view, false).await;
                        }
                        PublicFreeze {
                            frozen_at: step.view.map(|v| v.frozen_at),
                            changed: true,
                            revealed: step.revealed.into_iter().map(|(m, _)| m).collect(),
                            pending: step.pending,
                        }
                    }
                }
            }
        };
        self.reads.forget_cached(slug);
        // Live boards follow each step (the pushes read the public view, as every reader).
        self.live.announce(slug, &period);
        if answer.changed && answer.frozen_at.is_none() {
            self.reveal_seasons_of(board, period, actor, reason).await;
        }
        Ok(answer)
    }

    /// A season holding a publicly frozen week is publicly frozen with it, at the same instant,
    /// so that nothing the week hides shows through the season. A season that cannot be frozen
    /// is logged; the week's freeze stands.
    async fn freeze_seasons_of(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
        reason: Option<&str>,
        now: jiff::Timestamp,
    ) {
        for season in self.seasons.holding(&board.slug, period).await {
            let key = season.season.as_ref().map(|s| s.key()).expect("a season");
            let frozen = Box::pin(self.public_freeze_at(&season, key, actor, reason, now)).await;
            if let Err(error) = frozen {
                tracing::warn!(season = %season.slug, week = %period, %error, "season not publicly frozen with its week");
            }
        }
    }

    /// A season is revealed once none of its weeks is publicly frozen any more.
    async fn reveal_seasons_of(&self, board: &Board, period: PeriodKey, actor: &str, reason: Option<&str>) {
        for season in self.seasons.holding(&board.slug, period).await {
            let Some(definition) = &season.season else { continue };
            let mut still_frozen = false;
            for week in &definition.periods {
                still_frozen |= matches!(self.core.ledger.public_view(&board.slug, week).await, Ok(Some(_)));
            }
            if still_frozen {
                continue;
            }
            let revealed =
                Box::pin(self.reveal_at(&season, definition.key(), RevealMode::All, actor, reason)).await;
            if let Err(error) = revealed {
                tracing::warn!(season = %season.slug, week = %period, %error, "season not revealed with its week");
            }
        }
    }

    /// A member hidden during a public freeze leaves the public view too (moderation does not
    /// wait for the reveal; unhidden, it comes back with the reveal).
    pub(crate) async fn hide_from_public_view(
        &self,
        board: &Board,
        period: PeriodKey,
        member: &MemberId,
    ) -> Result<(), EngineError> {
        let Some((before, after)) =
            self.core.ledger.drop_from_public_view(&board.slug, period, member).await?
        else {
            return Ok(());
        };
        let out = [(member.clone(), None)];
        let applied = self
            .core
            .projection
            .public_step(&board.slug, &period, &out, &before.marker(), &after.marker())
            .await;
        if !matches!(applied, Ok(true)) {
            self.converge_or_log(board, period, Some(after), false).await;
        }
        Ok(())
    }

    /// Members whose public total differs from their live one (0 when not publicly frozen).
    async fn pending_members(&self, board: &Board, period: &PeriodKey) -> Result<u64, EngineError> {
        let public: std::collections::HashMap<_, _> =
            self.core.public_rows(board, period).await?.into_iter().collect();
        let live = self.core.projected_totals(board, period).await?;
        let live: std::collections::HashMap<_, _> =
            live.into_iter().filter(|t| !t.hidden).map(|t| (t.member, t.score)).collect();
        let mut pending = public.iter().filter(|(m, s)| live.get(*m) != Some(*s)).count();
        pending += live.keys().filter(|m| !public.contains_key(*m)).count();
        Ok(pending as u64)
    }

    /// Brings the period's public view in Redis to the ledger's `view` (None: the public reads
    /// live): puts the view in place, or takes it down. A freeze in flight elsewhere (its marker
    /// set less than [`PENDING_GRACE`] ago) is left to finish, unless `ours`: the caller is that
    /// freeze.
    pub(crate) async fn converge_public(
        &self,
        board: &Board,
        period: PeriodKey,
        view: Option<PublicView>,
        ours: bool,
    ) -> Result<(), EngineError> {
        let slug = &board.slug;
        let marker = self.core.projection.public_marker(slug, &period).await?;
        if !ours
            && let Some(since) = marker.as_deref().and_then(|m| m.strip_prefix("pending:"))
            && let Ok(ms) = since.parse::<i64>()
            && let Ok(at) = jiff::Timestamp::from_millisecond(ms)
            && jiff::Timestamp::now().duration_since(at).unsigned_abs() < PENDING_GRACE
        {
            return Ok(());
        }
        match view {
            None if marker.is_some() => {
                self.core.projection.public_end(slug, &period).await?;
                tracing::info!(board = %slug, %period, "public view taken down to match the ledger");
            }
            None => {}
            Some(view) if marker.as_deref() == Some(view.marker().as_str()) => {}
            Some(view) => {
                let assembling = format!("loading:{}", view.marker());
                self.core.projection.public_begin(slug, &period, &assembling).await?;
                let rows = self.core.public_rows(board, &period).await?;
                self.core.projection.public_commit(slug, &period, &rows, &assembling, &view.marker()).await?;
                tracing::info!(board = %slug, %period, "public view put in place from the ledger");
            }
        }
        Ok(())
    }

    /// [`Lifecycle::converge_public`] after a change the ledger already holds: a Redis that cannot
    /// be reached fails nothing (the reconciler puts the view in place within its next pass).
    async fn converge_or_log(&self, board: &Board, period: PeriodKey, view: Option<PublicView>, ours: bool) {
        if let Err(error) = self.converge_public(board, period, view, ours).await {
            tracing::warn!(board = %board.slug, %period, %error, "public view not in place in Redis; the reconciler will");
        }
    }

    /// One reconciler step: every publicly frozen period's view in place in Redis.
    pub(crate) async fn converge_public_views(&self) -> Result<(), EngineError> {
        for (slug, period, view) in self.core.ledger.public_views().await? {
            let board = self.reads.board(&slug).await?;
            self.converge_public(&board, period, Some(view), false).await?;
        }
        Ok(())
    }
}
