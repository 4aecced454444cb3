//! Previews (dry runs): what a set of admin changes — revoke an event, correct a member by a
//! delta, accept or reject a late write, hide, unhide, revoke every counting entry of a member
//! (`revoke_member`, oldest first) — would do to a period's standings, in any state, before
//! anyone makes them. A preview reads the
//! ledger once (`ledger/previews.rs` simulates the changes with the real rules), compares the
//! standings before and after with `domain::preview::compare` (the settlement's own order, ranks
//! and prizes), and stores its draft: the only row it writes. No other table, no Redis key and no
//! audit row changes.
//!
//! The standings before: an open or frozen period's are ranked in memory from its totals; a
//! settled or archived period's are its latest settlement revision, read from the stored blocks
//! only where the comparison looks (`ledger::StoredStandings`: the member directory,
//! `standing_blocks_by_points`, and a tie's reach sequences from `totals`), so a one-change
//! preview costs a few lookups however many members the period has. Its `digest_after` needs every standing:
//! up to [`DIGEST_INLINE_MEMBERS`] members it is in the answer, above it is computed after the
//! answer (`digest_pending`) and recorded with the draft (migration 0014), where
//! `GET …/previews/{id}` reads it. The draft (`previews`: changes, reason, actor, watermark,
//! revision, `expires_at`, status `draft → applied | cancelled`) is all a preview writes:
//! `engine/tests/previews.rs` dumps every table, every Redis key and the audit trail around one.
//!
//! A draft lives 15 minutes and is `based_on` the period's watermark (and settlement revision):
//! whatever moves the period's standings moves the watermark, so an apply can tell whether the
//! answer still holds. Applying a draft (`POST …/previews/{id}/apply`) makes exactly its changes
//! (`ledger/revise.rs`), or answers 409 `preview_stale` naming the new watermark; expired and
//! cancelled drafts are refused (`cancel_preview`). The moved totals are projected after the
//! commit (not for an archived period: it is read from its standings, and no key comes back to
//! Redis); failpoint `apply.after_commit` stops between. On a settled or archived period applying
//! is the only way to change it, and it writes the next settlement revision. Contestants read
//! each later revision in words (`Lifecycle::revision_notes`, `domain::preview::describe`) on the
//! board page, and on a member's page how its rank moved.

use super::Lifecycle;
use crate::EngineError;
use crate::ledger::{
    Applied, ApplyOutcome, Draft, LedgerError, PreviewBase, ResettledSeason, StoredStandings,
};
use crate::lifecycle::required_reason;
use crate::scope::Scope;
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::preview::{
    Comparison, Move, Plan, PreviewChange, PrizeChange, Ranked, SeasonChange, SegmentChange, StandingsBefore,
    compare, segment_changes, top_after,
};
use domain::settlement::{Standing, segment_standings};
use domain::{BoardSlug, MemberId, PeriodKey};
use serde::Serialize;

/// How long a draft can be applied.
pub const PREVIEW_TTL: jiff::SignedDuration = jiff::SignedDuration::from_mins(15);
/// At most this many changes in one preview.
pub const MAX_PREVIEW_CHANGES: usize = 1000;
/// At most this many shifted members are listed (all are counted).
pub const SHIFTED_LISTED: usize = 100;
/// Up to this many members a settled period's preview answers with its `digest_after`; above,
/// the digest follows on the draft (reading every standing costs about 0.4 s per million).
pub const DIGEST_INLINE_MEMBERS: u64 = 100_000;

/// What a preview was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BasedOn {
    /// The period's watermark (`ledger/previews.rs`): changes whenever its standings may.
    pub watermark: String,
    /// The settlement's revision, when the period is settled or archived.
    pub revision: Option<i64>,
}

/// The answer to a preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Preview {
    pub preview_id: String,
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// The period's state the preview saw.
    pub state: &'static str,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: jiff::Timestamp,
    pub based_on: BasedOn,
    /// Members whose points or rank change because of the changes themselves.
    pub moves: Vec<Move>,
    /// How many other members only shift because of those moves.
    pub shifted: u64,
    /// The first [`SHIFTED_LISTED`] of them, best first after the changes.
    pub shifted_members: Vec<Move>,
    /// Every prize that changes hands.
    pub prizes: Vec<PrizeChange>,
    /// Each segment ranking the changes touch: the touched members' moves in it and the prizes
    /// of its dimension's table that change hands (none on a board without segments).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<SegmentChange>,
    /// Each season made of the period (none when no season holds it): what the changes do to
    /// it, and whether applying re-settles it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<SeasonChange>,
    /// For a settled or archived period: the digest the standings after would have.
    pub digest_after: Option<String>,
    /// True when `digest_after` is still being computed (a period over
    /// [`DIGEST_INLINE_MEMBERS`] members): the stored draft has it once it is known.
    pub digest_pending: bool,
}

/// A preview's comparison with what it was compared against.
struct Compared {
    comparison: Comparison,
    /// A settled or archived period's stored standings (its digest after reads them all).
    stored: Option<StoredStandings>,
    /// Every standing before, for a segmented board's segment rankings.
    before_all: Option<Vec<Standing>>,
    /// The week's top after, for its `placement` seasons.
    week_top: Option<Vec<Standing>>,
}

impl Lifecycle {
    /// Previews `changes` to a period of a board (any state) and stores the draft. A change that
    /// could not be made is refused with its reason (`Invalid`, or `NotFound` for an unknown
    /// event or late write) and nothing is stored.
    pub async fn preview(
        &self,
        scope: &Scope,
        reason: &str,
        changes: Vec<PreviewChange>,
        actor: &str,
    ) -> Result<Preview, EngineError> {
        let reason = required_reason(reason)?;
        crate::seasons::refuse_direct(scope.board())?;
        if changes.is_empty() || changes.len() > MAX_PREVIEW_CHANGES {
            return Err(EngineError::Invalid(format!(
                "a preview holds 1 to {MAX_PREVIEW_CHANGES} changes, got {}",
                changes.len()
            )));
        }
        // The prize table as the ledger has it now, as a settlement reads it.
        let board = self.reads.fresh_board(scope.slug()).await?;
        let (slug, period) = (scope.slug(), scope.period());
        let mut base =
            self.core.ledger.preview_base(&board, period, &changes).await.map_err(|e| match e {
                LedgerError::Refused { code: ErrorCode::InvalidChange, detail } => {
                    EngineError::Invalid(detail)
                }
                e => e.into(),
            })?;
        // The seasons made of the period, and how deep a `placement` one reads the week after.
        let (seasons, depth) = self.seasons.seasons_of_week(&board, period).await;
        let Compared { comparison, stored, before_all, week_top } =
            self.compare_before(&board, period, &mut base, depth).await?;
        let (segments, segment_digest_after) = match before_all {
            Some(before) => self.segment_effects(&board, period, &base, before, &comparison.plan).await?,
            None => (Vec::new(), None),
        };
        let seasons =
            self.seasons.season_changes(&seasons, period, &base.touched, week_top.as_deref()).await?;
        // In the ledger's precision, so the answer is what the draft holds.
        let now = jiff::Timestamp::from_microsecond(jiff::Timestamp::now().as_microsecond())
            .expect("now is within the supported range");
        let mut draft = Draft {
            id: preview_id()?,
            board: slug.to_string(),
            period,
            actor: actor.to_owned(),
            reason: reason.to_owned(),
            changes,
            watermark: base.watermark,
            revision: base.revision,
            created_at: now,
            expires_at: now + PREVIEW_TTL,
            status: "draft".into(),
            digest_after: None,
        };
        let digest_pending = match (stored, segment_digest_after) {
            // Every standing was read already: the digest folds the segment rankings in.
            (Some(_), Some(digest)) => {
                draft.digest_after = Some(digest);
                self.core.ledger.save_draft(&draft).await?;
                false
            }
            (Some(stored), None) => {
                self.save_with_digest(slug, &mut draft, stored, base.members, &comparison.plan).await?
            }
            (None, _) => {
                self.core.ledger.save_draft(&draft).await?;
                false
            }
        };
        Ok(Preview {
            preview_id: draft.id,
            board: slug.clone(),
            period,
            state: base.state.as_str(),
            expires_at: draft.expires_at,
            based_on: BasedOn { watermark: draft.watermark, revision: draft.revision },
            moves: comparison.moves,
            shifted: comparison.shifted,
            shifted_members: comparison.shifted_members,
            prizes: comparison.prizes,
            segments,
            seasons,
            digest_after: draft.digest_after,
            digest_pending,
        })
    }

    /// Compares the standings before a preview with those after: a settled or archived period's
    /// latest revision read from its stored blocks only where the comparison looks, any other
    /// period's totals ranked in memory. Reads every standing before for a segmented board, and
    /// the week's top after down to `depth` for its `placement` seasons.
    async fn compare_before(
        &self,
        board: &domain::Board,
        period: PeriodKey,
        base: &mut PreviewBase,
        depth: Option<u64>,
    ) -> Result<Compared, EngineError> {
        let (sort, policy) = (board.sort(), board.tie_policy());
        // A settled period keeps the prize table it was settled with.
        let prizes = base.prizes.clone().unwrap_or_else(|| board.prizes.clone());
        // A segmented board's previews compare every segment ranking too, from all the standings.
        let segmented = !board.segments.is_empty();
        let touched = base.touched.len();
        if let Some(revision) = base.revision.filter(|_| !base.state.is_adjustable()) {
            let mut stored =
                self.core.ledger.stored_standings(&board.slug, &period, sort, policy, revision, base.members);
            let comparison =
                compare(sort, policy, &prizes, &mut stored, &base.touched, SHIFTED_LISTED).await?;
            let before_all = match segmented {
                true => Some(stored.window(0, stored.members()).await?),
                false => None,
            };
            let week_top = match depth {
                Some(depth) => Some(top_after(&mut stored, &comparison.plan, touched, depth).await?),
                None => None,
            };
            return Ok(Compared { comparison, stored: Some(stored), before_all, week_top });
        }
        let mut before = std::mem::take(&mut base.before);
        domain::settlement::order(sort, policy, &mut before);
        let mut ranked = Ranked::new(sort, policy, before, &prizes);
        let comparison = compare(sort, policy, &prizes, &mut ranked, &base.touched, SHIFTED_LISTED)
            .await
            .unwrap_or_else(|never| match never {});
        let before_all = segmented.then(|| ranked.standings().to_vec());
        let week_top = match depth {
            Some(depth) => Some(
                top_after(&mut ranked, &comparison.plan, touched, depth)
                    .await
                    .unwrap_or_else(|never| match never {}),
            ),
            None => None,
        };
        Ok(Compared { comparison, stored: None, before_all, week_top })
    }

    /// What a segmented board's preview changes in each segment ranking, and the digest a
    /// re-settlement would record with them folded in (`before`: every standing before).
    async fn segment_effects(
        &self,
        board: &domain::Board,
        period: PeriodKey,
        base: &PreviewBase,
        before: Vec<Standing>,
        plan: &Plan,
    ) -> Result<(Vec<SegmentChange>, Option<String>), EngineError> {
        let slug = &board.slug;
        let tables = base.segment_prizes.clone().unwrap_or_else(|| board.segment_prizes.clone());
        let after = plan.after(before.clone());
        let held = self.core.ledger.memberships(slug, period).await?;
        let policy = board.tie_policy();
        let was = segment_standings(policy, &before, |m| held.get(m.as_str()), &tables);
        let values = |m: &MemberId| base.moved.get(m.as_str()).or_else(|| held.get(m.as_str()));
        let now = segment_standings(policy, &after, values, &tables);
        let touched: Vec<MemberId> = base.touched.iter().map(|t| t.member.clone()).collect();
        let key = period.to_string();
        let settled = domain::receipt::segments_settled(slug.as_str(), &key, &now);
        let digest = domain::receipt::settlement_digest(slug.as_str(), &key, &after, &settled);
        Ok((segment_changes(&was, &now, &touched), Some(digest)))
    }

    /// Saves the draft of a settled or archived period with the digest a re-settlement of its
    /// standings would record: computed now up to [`DIGEST_INLINE_MEMBERS`] members, after the
    /// answer above (answers true: pending).
    async fn save_with_digest(
        &self,
        slug: &BoardSlug,
        draft: &mut Draft,
        mut stored: StoredStandings,
        members: u64,
        plan: &Plan,
    ) -> Result<bool, EngineError> {
        let (slug, period) = (slug.clone(), draft.period);
        if members <= DIGEST_INLINE_MEMBERS {
            draft.digest_after = Some(digest_after(&slug, period, &mut stored, plan).await?);
            self.core.ledger.save_draft(draft).await?;
            return Ok(false);
        }
        self.core.ledger.save_draft(draft).await?;
        let (ledger, id, plan) = (self.core.ledger.clone(), draft.id.clone(), plan.clone());
        tokio::spawn(async move {
            let digest = digest_after(&slug, period, &mut stored, &plan).await;
            let stored = match digest {
                Ok(digest) => ledger.set_draft_digest(slug.as_str(), &id, &digest).await,
                Err(e) => Err(e),
            };
            if let Err(error) = stored {
                tracing::warn!(board = %slug, %period, preview = %id, %error, "no digest_after for the preview");
            }
        });
        Ok(true)
    }

    /// A stored draft of a board period (`NotFound` for an unknown id, or one of another period).
    pub async fn preview_draft(&self, scope: &Scope, id: &str) -> Result<Draft, EngineError> {
        let (slug, period) = (scope.slug(), scope.period());
        let draft = self.core.ledger.draft(slug.as_str(), id).await?;
        if draft.period != period {
            return Err(EngineError::NotFound {
                what: crate::Missing::Other(format!("preview {id} of {slug} {period}")),
            });
        }
        Ok(draft)
    }

    /// Cancels a draft: it can no longer be applied. Cancelling again answers the same; an applied
    /// draft is `Refused { code: preview_applied }`.
    pub async fn cancel_preview(&self, scope: &Scope, id: &str, actor: &str) -> Result<Draft, EngineError> {
        self.preview_draft(scope, id).await?;
        let slug = scope.slug();
        self.core.ledger.close_draft(slug.as_str(), id, "cancelled", actor, jiff::Timestamp::now()).await?;
        let draft = self.core.ledger.draft(slug.as_str(), id).await?;
        if draft.status == "applied" {
            return Err(EngineError::Refused {
                code: ErrorCode::PreviewApplied,
                detail: format!("preview {id} was applied; it cannot be cancelled"),
            });
        }
        Ok(draft)
    }

    /// Applies a draft: exactly its changes, in one ledger transaction, only while the period's
    /// watermark is the one the preview saw (`Refused { code: preview_stale }` otherwise, with
    /// the new watermark in the detail). On a settled or archived period it writes the next
    /// settlement revision and queues its reward deltas (`ledger/revise.rs`). A repeat — or the
    /// loser of two concurrent applies — answers the same and changes nothing; a cancelled draft
    /// is `preview_cancelled`, an expired one `preview_expired`.
    ///
    /// The moved totals are projected afterwards (not for an archived period: its keys are gone
    /// and stay gone); if Redis is away the reconciler levels them, as after every change.
    pub async fn apply_preview(&self, scope: &Scope, id: &str, actor: &str) -> Result<Applied, EngineError> {
        // The prize table as the ledger has it now, as the preview read it.
        let board = self.reads.fresh_board(scope.slug()).await?;
        let (slug, period) = (scope.slug(), scope.period());
        let now = jiff::Timestamp::from_microsecond(jiff::Timestamp::now().as_microsecond())
            .expect("now is within the supported range");
        // A move leaves a tombstone in the value the member left, written by a levelling below.
        let moves = !board.segments.is_empty()
            && self
                .core
                .ledger
                .draft(slug.as_str(), id)
                .await
                .is_ok_and(|d| d.changes.iter().any(|c| matches!(c, PreviewChange::Move { .. })));
        let ApplyOutcome { applied, totals, seasons } =
            self.core.ledger.apply_draft(&board, period, id, actor, now, self.core.failpoints.hook()).await?;
        self.core.failpoints.hit("apply.after_commit")?;
        if !totals.is_empty() {
            if applied.state != State::Archived {
                for total in totals {
                    self.project_total(&board, Some(total)).await;
                }
            }
            if moves && applied.state != State::Archived {
                let mut report = crate::jobs::reconciler::ReconcileReport::default();
                if let Err(error) = self.core.level_segments(&board, &period, &mut report).await {
                    tracing::warn!(board = %slug, %period, %error, "segment rankings left to the reconciler");
                }
            }
            self.reads.forget_cached(slug);
            self.live.announce(slug, &period);
        }
        // Each season the apply re-settled: its recomputed totals, unless it is archived.
        for ResettledSeason { season, state, totals, revision } in seasons {
            if state != State::Archived {
                self.seasons.project_season(&season, &revision.period, totals).await;
            }
            self.reads.forget_cached(&season.slug);
            self.live.announce(&season.slug, &revision.period);
        }
        let rewarded = |r: &crate::ledger::Revision| !r.rewards.is_empty();
        if applied.revision.as_ref().is_some_and(rewarded)
            || applied.seasons.iter().any(|s| rewarded(&s.revision))
        {
            self.rewards.wake();
        }
        Ok(applied)
    }
}

/// The digest of the standings after `plan`, from every standing before.
async fn digest_after(
    slug: &BoardSlug,
    period: PeriodKey,
    stored: &mut StoredStandings,
    plan: &Plan,
) -> Result<String, LedgerError> {
    let before = stored.window(0, stored.members()).await?;
    Ok(crate::ledger::digest(slug.as_str(), &period.to_string(), &plan.after(before)))
}

/// A draft's id: `pv_` and 32 random hex digits.
fn preview_id() -> Result<String, EngineError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| EngineError::Invalid(format!("no randomness available: {e}")))?;
    Ok(format!("pv_{}", crate::hex(&bytes)))
}
