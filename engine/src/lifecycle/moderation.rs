//! Hidden members (moderation). An admin hides a member of a board period: it leaves every public
//! view of the period — the ranking and its pages, counts and ranks, the member's own reads — and
//! the standings, while its ledger history stays; every change is audited (`hide`, `unhide`).
//!
//! Hiding is a versioned state of the member's total (`ledger/moderation.rs`), so it reaches Redis
//! through the same version-guarded scripts as every score: `:rank` loses the member, `:ver` and
//! `vsum` keep its version (the reconciler's comparison stays level), and no replayed or reordered
//! projection can bring it back. Writes to a hidden member are recorded and projected as usual;
//! the member stays out of the ranking until it is shown again.
//!
//! The scripts (`project.lua`, `level.lua`, rebuilds) treat a hidden version as "record the
//! version in `:ver` and `vsum`, `ZREM` from `:rank`" and an unhidden one as a plain `ZADD`, under
//! the same version guard. So every ranking read (top, pages, cursors, new snapshots, around-me,
//! counts, ranks) leaves the member out with no check of its own; the member reads that come
//! from the ledger (`…/members/{m}/events`, the member page) answer 404 for a hidden member
//! (`Reads::refuse_hidden`), and the console reads it with `Lifecycle::member_view_admin`. A
//! publicly frozen period drops the member from the public view at once
//! (`Lifecycle::hide_from_public_view`: moderation does not wait for the reveal).
//!
//! Allowed while the period is open or frozen (409 `period_settled` after: the flag is final with
//! the standings, which leave hidden members out). A repeat answers `already_hidden` /
//! `already_visible`, changes nothing and writes no audit row. A snapshot pinned before a hide
//! keeps its copy until it expires (5 to 10 minutes).

use super::Lifecycle;
use crate::EngineError;
use crate::ledger::audit::Act;
use crate::lifecycle::required_reason;
use crate::scope::Scope;
use domain::MemberId;
use domain::lifecycle::State;
use domain::view::{MemberAdminView, VisibilityChange, VisibilityOutcome};

impl Lifecycle {
    /// Hides a member of a period (open or frozen; `Refused { code: period_settled }` after).
    /// `NotFound` when the member has no total in the period. A repeat answers `already_hidden`
    /// and changes nothing. If Redis is away the ledger still changes (`projected: false`) and
    /// the reconciler levels the projection.
    pub async fn hide_member(
        &self,
        scope: &Scope,
        member: &MemberId,
        actor: &str,
        reason: &str,
    ) -> Result<VisibilityChange, EngineError> {
        // A season's members are hidden in its weeks, where their points come from.
        crate::seasons::refuse_direct(scope.board())?;
        self.set_hidden(scope, member, true, actor, reason).await
    }

    /// Shows a hidden member again, with its total as the ledger has it now (writes recorded
    /// while it was hidden included). The same rules as [`Lifecycle::hide_member`]; a repeat answers
    /// `already_visible`.
    pub async fn unhide_member(
        &self,
        scope: &Scope,
        member: &MemberId,
        actor: &str,
        reason: &str,
    ) -> Result<VisibilityChange, EngineError> {
        self.set_hidden(scope, member, false, actor, reason).await
    }

    async fn set_hidden(
        &self,
        scope: &Scope,
        member: &MemberId,
        hidden: bool,
        actor: &str,
        reason: &str,
    ) -> Result<VisibilityChange, EngineError> {
        let reason = required_reason(reason)?;
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let change = self
            .core
            .ledger
            .set_hidden(board, period, member, hidden, &Act::new(actor, Some(reason), jiff::Timestamp::now()))
            .await?;
        let result = match (hidden, change.changed) {
            (true, true) => VisibilityOutcome::Hidden,
            (true, false) => VisibilityOutcome::AlreadyHidden,
            (false, true) => VisibilityOutcome::Unhidden,
            (false, false) => VisibilityOutcome::AlreadyVisible,
        };
        let version = change.total.version;
        // A repeat projects the current version again (a no-op unless an earlier call could not
        // reach Redis), so `projected` is true only when Redis has it. An archived period is read
        // from its standings: its keys are expiring and must not be written again.
        let projected = match self.reads.state_for_reads(slug, period).await? {
            State::Archived => true,
            _ => self.project_total(board, Some(change.total)).await,
        };
        if hidden && change.changed {
            self.hide_from_public_view(board, period, member).await?;
        }
        if change.changed {
            // This process's cached top pages must not show the member for another second.
            self.reads.forget_cached(slug);
        }
        Ok(VisibilityChange { result, period, member: member.clone(), version, projected })
    }

    /// A member of a period as the console's drill-down shows it: everything the public member
    /// page shows, also for a hidden member, with its ledger total and hidden state.
    pub async fn member_view_admin(
        &self,
        scope: &Scope,
        member: &MemberId,
        before: Option<i64>,
        limit: u64,
    ) -> Result<MemberAdminView, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let total = self.core.ledger.member_total(slug, &period, member).await?;
        let view = self
            .reads
            .member_view_unchecked(board, period, member, before, limit, crate::ledger::Viewer::Admin)
            .await?;
        Ok(MemberAdminView {
            view,
            hidden: total.is_some_and(|t| t.hidden),
            points: total.map(|t| t.points),
            version: total.map(|t| t.version),
        })
    }
}
