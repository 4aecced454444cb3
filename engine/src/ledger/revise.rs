//! Applying a preview's draft in the ledger: its changes, in one transaction, only while the
//! period's watermark is the one the preview saw; for a settled or archived period, the new
//! settlement revision those changes make, with its rewards moved by deltas.
//!
//! The transaction locks the period row and compares the period's watermark with the draft's (else
//! `preview_stale`, whose detail names the new one). The changes go through the same steps as the
//! single-change routes (`adjust::revoke_in`, `correct_in`, `late::decide_late_in`,
//! `moderation::set_hidden_in`), each with its audit row, then `preview_applied` is audited, so a
//! draft applied is indistinguishable from the changes made one by one — except that it is all or
//! nothing, and that it may touch a settled period. The draft's status moves `draft → applied` with
//! a compare-and-set in the same transaction, and the answer is stored with it: a repeat, or the
//! loser of two concurrent applies, gets that answer and nothing happens twice.
//!
//! **Re-settlement** (revision N+1, written by `resettle.rs`): standings from the changed totals, as a settlement computes
//! them with the prize table the period was settled with (a later edit of the board's prizes
//! applies to periods settled later, never to this one), their digest and `previous_digest` (the
//! digest of revision N: the revisions form a hash chain; and the receipts' root with the chain
//! link over revision N's, `receipts.rs`), the entry watermark, the actor and the
//! reason. Rewards move by deltas only (`reward_deltas.rs`): for each member whose prize changed, a `revoke` row for the
//! grant it held (`compensates`) and a `grant` row for its new prize, each with its own idempotency
//! key; an unchanged prize writes nothing.
//!
//! The revision (migration 0013) also records the preview's id and its prize table
//! (`settlements.prizes`; a settlement written before 0013 recorded none and takes the board's
//! table), and writes its standings blocks as `settle.rs` does. What a member holds is its last
//! `grant` not followed by a `revoke`; the keys are `laurel:<board>:<period>:<N+1>:<member>:revoke`
//! and `laurel:<board>:<period>:<N+1>:<member>`, each delivered on its own (`crate::rewards`).
//! Audited `resettle`, and `reward_compensated` per member whose prize moved. Failpoints
//! `resettle.after_standings`, `resettle.before_commit` and `apply.before_commit` are inside the
//! transaction (a crash there leaves nothing); a rerun gives the same revision and digest and no
//! second delivery (`engine/tests/rewards.rs`).

use super::adjust::{Revoked, correct_in, counting_originals, original_of, revoke_in};
use super::audit::{Act, AuditRecord, record as audit};
use super::late::{LATE_COLUMNS, decide_late_in, late_from_row};
use super::lifecycle::lock_period_state;
use super::moderation::set_hidden_in;
use super::previews::{Draft, draft_from_row, watermark};
use super::resettle::{Cause, Revision, resettle};
use super::season_revise::{ResettledSeason, SeasonRevision, resettle_seasons};
use super::segment_moves::move_in;
use super::settle::Failpoint;
use super::{Backend, Ledger, LedgerError, Projected, Tx, micros};
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::preview::PreviewChange;
use domain::{Board, BoardSlug, MemberId, PeriodKey};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::Row;
use std::collections::HashMap;

/// What applying a draft did (stored with the draft: a repeated apply answers it again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Applied {
    pub preview_id: String,
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// The period's state, which an apply never changes.
    #[cfg_attr(feature = "openapi", schema(schema_with = domain::view::period_state))]
    pub state: State,
    /// How many changes were made.
    pub changes: usize,
    pub applied_by: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub applied_at: jiff::Timestamp,
    /// The period's watermark after the changes.
    pub watermark: String,
    /// For a settled or archived period: the settlement revision the changes wrote.
    pub revision: Option<Revision>,
    /// The settled or archived seasons holding the period, each re-settled in the same
    /// transaction (`season_revise.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seasons: Vec<SeasonRevision>,
}

/// What applying a draft did, and what the projection must mirror afterwards.
#[derive(Debug)]
pub struct ApplyOutcome {
    pub applied: Applied,
    /// The last total of each member the changes moved (none for a repeat).
    pub totals: Vec<Projected>,
    /// Each season the apply re-settled, with the season totals it wrote.
    pub seasons: Vec<ResettledSeason>,
}

impl ApplyOutcome {
    /// A repeated apply: the stored answer, nothing to project.
    fn repeated(applied: Applied) -> Self {
        Self { applied, totals: Vec::new(), seasons: Vec::new() }
    }
}

impl Ledger {
    /// Applies a draft of `board`'s `period` (`Missing` for a draft of another period; see the
    /// module's doc). Answers what it did and the totals to project (none for a repeat).
    /// Refused: `preview_cancelled`, `preview_expired`, `preview_stale` (the period moved since
    /// the preview; the detail names the new watermark), `invalid_change` (a change can no longer
    /// be made: only when the draft's changes contradict each other in a way its preview let
    /// through).
    pub async fn apply_draft(
        &self,
        board: &Board,
        period: PeriodKey,
        id: &str,
        actor: &str,
        now: jiff::Timestamp,
        failpoint: Failpoint,
    ) -> Result<ApplyOutcome, LedgerError> {
        let (ledger, board, id, actor) = (self.clone(), board.clone(), id.to_owned(), actor.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let slug = board.slug.as_str();
            let draft = read_draft(&mut w.tx, slug, &id).await?;
            if draft.draft.period != period {
                return Err(LedgerError::Missing(format!("preview {id} of {slug} {period}")));
            }
            if let Some(applied) = answered(&draft)? {
                return Ok(ApplyOutcome::repeated(applied));
            }
            let key = period.to_string();
            let state = lock_period_state(&mut w.tx, ledger.backend, slug, &key).await?;
            // Whoever held the period row before may have applied or cancelled this very draft.
            let draft = read_draft(&mut w.tx, slug, &id).await?;
            if let Some(applied) = answered(&draft)? {
                return Ok(ApplyOutcome::repeated(applied));
            }
            let StoredDraft { draft, .. } = draft;
            claim(&mut w.tx, slug, &draft, state, &actor, now).await?;
            let projected = make_all(&mut w.tx, ledger.backend, &board, &draft, &actor, now).await?;
            let cause = Cause { draft: &draft, actor: &actor, now, failpoint: &failpoint };
            let (revision, seasons) = if state.is_adjustable() {
                (None, Vec::new())
            } else {
                let revision = resettle(&mut w.tx, ledger.backend, &board, draft.period, &cause).await?;
                let moved: Vec<MemberId> = projected.keys().cloned().collect();
                let seasons = resettle_seasons(&mut w.tx, ledger.backend, &board, &moved, &cause).await?;
                (Some(revision), seasons)
            };
            let record = AuditRecord {
                actor: &actor,
                action: "preview_applied",
                board: Some(slug),
                period: Some(&key),
                reason: Some(&draft.reason),
                before: Some(
                    json!({ "preview_id": id, "watermark": draft.watermark, "revision": draft.revision }),
                ),
                after: Some(json!({
                    "preview_id": id,
                    "changes": draft.changes,
                    "revision": revision.as_ref().map(|r| r.revision),
                    "digest": revision.as_ref().map(|r| &r.digest),
                    "seasons": seasons.iter().map(|s| json!({
                        "board": s.revision.board, "revision": s.revision.revision.revision,
                    })).collect::<Vec<_>>(),
                })),
                ..Default::default()
            };
            audit(&mut w.tx, &record, now).await?;
            let applied = Applied {
                preview_id: id.clone(),
                board: board.slug.clone(),
                period: draft.period,
                state,
                changes: draft.changes.len(),
                applied_by: actor.clone(),
                applied_at: now,
                watermark: watermark(&mut w.tx, slug, &key, state).await?,
                revision,
                seasons: seasons.iter().map(|s| s.revision.clone()).collect(),
            };
            let result = serde_json::to_string(&applied).map_err(|e| LedgerError::Corrupt(e.to_string()))?;
            sqlx::query("UPDATE previews SET result = $1 WHERE board = $2 AND id = $3")
                .bind(&result)
                .bind(slug)
                .bind(&id)
                .execute(&mut *w.tx)
                .await?;
            failpoint("apply.before_commit")?;
            w.tx.commit().await?;
            let mut totals: Vec<Projected> = projected.into_values().collect();
            totals.sort_by(|a, b| a.member.cmp(&b.member));
            Ok(ApplyOutcome { applied, totals, seasons })
        })
        .await
    }
}

/// Marks a draft applied, inside the apply's transaction with the period row locked: refused
/// when it expired or when the period's watermark moved since it was made.
async fn claim(
    tx: &mut Tx,
    slug: &str,
    draft: &Draft,
    state: State,
    actor: &str,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    let (id, key) = (draft.id.as_str(), draft.period.to_string());
    if now > draft.expires_at {
        return Err(LedgerError::refused(
            ErrorCode::PreviewExpired,
            format!("preview {id} expired at {}: make a new one", draft.expires_at),
        ));
    }
    let seen = watermark(tx, slug, &key, state).await?;
    if seen != draft.watermark {
        return Err(LedgerError::refused(
            ErrorCode::PreviewStale,
            format!(
                "{slug} {key} moved since preview {id}: its watermark is {seen}, the preview \
                 was based on {}; make a new preview",
                draft.watermark
            ),
        ));
    }
    let moved = sqlx::query(
        "UPDATE previews SET status = 'applied', decided_by = $1, decided_at = $2 \
         WHERE board = $3 AND id = $4 AND status = 'draft'",
    )
    .bind(actor)
    .bind(micros(now))
    .bind(slug)
    .bind(id)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if moved != 1 {
        return Err(LedgerError::Corrupt(format!("preview {id} changed under the period's lock")));
    }
    Ok(())
}

/// Makes every change of a draft in order; answers the last total of each member they moved:
/// what the projection must mirror.
async fn make_all(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    draft: &Draft,
    actor: &str,
    now: jiff::Timestamp,
) -> Result<HashMap<MemberId, Projected>, LedgerError> {
    let mut projected: HashMap<MemberId, Projected> = HashMap::new();
    for (n, change) in draft.changes.iter().enumerate() {
        let total = make(tx, backend, board, draft, change, actor, now).await.map_err(|e| match e {
            LedgerError::Refused { code: ErrorCode::InvalidChange, detail } => {
                LedgerError::refused(ErrorCode::InvalidChange, format!("change {}: {detail}", n + 1))
            }
            e => e,
        })?;
        for t in total {
            projected.insert(t.member.clone(), t);
        }
    }
    Ok(projected)
}

/// A draft with what its apply answered, if it was applied.
struct StoredDraft {
    draft: Draft,
    result: Option<String>,
}

async fn read_draft(tx: &mut Tx, board: &str, id: &str) -> Result<StoredDraft, LedgerError> {
    let row = sqlx::query(&format!(
        "SELECT {}, result FROM previews WHERE board = $1 AND id = $2",
        super::previews::DRAFT_COLUMNS
    ))
    .bind(board)
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| LedgerError::Missing(format!("preview {id} of {board}")))?;
    Ok(StoredDraft { draft: draft_from_row(&row)?, result: row.try_get("result")? })
}

/// The stored answer of an applied draft; a refusal for a cancelled one; None for a draft.
fn answered(stored: &StoredDraft) -> Result<Option<Applied>, LedgerError> {
    let id = &stored.draft.id;
    match stored.draft.status.as_str() {
        "draft" => Ok(None),
        "applied" => {
            let text = stored
                .result
                .as_deref()
                .ok_or_else(|| LedgerError::Corrupt(format!("preview {id} is applied without its answer")))?;
            serde_json::from_str(text)
                .map(Some)
                .map_err(|e| LedgerError::Corrupt(format!("preview {id}'s answer: {e}")))
        }
        "cancelled" => {
            Err(LedgerError::refused(ErrorCode::PreviewCancelled, format!("preview {id} was cancelled")))
        }
        other => Err(LedgerError::Corrupt(format!("preview {id} has status {other:?}"))),
    }
}

/// Makes one change of a draft; answers the totals it moved.
async fn make(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    draft: &Draft,
    change: &PreviewChange,
    actor: &str,
    now: jiff::Timestamp,
) -> Result<Vec<Projected>, LedgerError> {
    let (slug, key, reason) = (board.slug.as_str(), draft.period.to_string(), draft.reason.as_str());
    let act = Act::new(actor, Some(reason), now);
    let refuse = |detail: String| LedgerError::refused(ErrorCode::InvalidChange, detail);
    Ok(match change {
        PreviewChange::Revoke(event_id) => {
            let original = original_of(tx, board, event_id).await?;
            if original.period != draft.period {
                return Err(refuse(format!("event {event_id} belongs to {}, not {key}", original.period)));
            }
            match revoke_in(tx, backend, board, &original, actor, reason, now).await? {
                Revoked::Revoked { total, .. } => total.into_iter().collect(),
                Revoked::AlreadyRevoked { .. } => {
                    return Err(refuse(format!("event {event_id} is already revoked")));
                }
            }
        }
        PreviewChange::RevokeMember(member) => {
            let originals = counting_originals(tx, slug, &key, member).await?;
            if originals.is_empty() {
                return Err(refuse(format!("{member} has no entry that counts in {key}")));
            }
            let mut last = None;
            for original in &originals {
                if let Revoked::Revoked { total, .. } =
                    revoke_in(tx, backend, board, original, actor, reason, now).await?
                {
                    last = total.or(last);
                }
            }
            last.into_iter().collect()
        }
        PreviewChange::Correct { member, delta } => {
            let (recorded, _) = correct_in(tx, backend, board, draft.period, member, *delta, None, &act)
                .await
                .map_err(|e| match e {
                    LedgerError::Refused { code: ErrorCode::CorrectionRejected, detail } => refuse(detail),
                    e => e,
                })?;
            recorded.total.into_iter().collect()
        }
        PreviewChange::AcceptLate(id) | PreviewChange::RejectLate(id) => {
            let row = sqlx::query(&format!(
                "SELECT {LATE_COLUMNS} FROM late_entries WHERE board = $1 AND period = $2 AND id = $3"
            ))
            .bind(slug)
            .bind(&key)
            .bind(*id)
            .fetch_optional(&mut **tx)
            .await?
            .ok_or_else(|| LedgerError::Missing(format!("late write {id} of {slug} {key}")))?;
            let entry = late_from_row(&row)?;
            if entry.status != "pending" {
                return Err(refuse(format!("late write {id} is {}, not pending", entry.status)));
            }
            let accept = matches!(change, PreviewChange::AcceptLate(..));
            let decision = decide_late_in(tx, backend, board, draft.period, entry, accept, &act).await?;
            decision.applied.and_then(|r| r.total).into_iter().collect()
        }
        PreviewChange::Hide(member) | PreviewChange::Unhide(member) => {
            let hide = matches!(change, PreviewChange::Hide(..));
            let done = set_hidden_in(tx, backend, board, draft.period, member, hide, &act, || None).await?;
            if !done.changed {
                let already = if hide { "hidden" } else { "visible" };
                return Err(refuse(format!("{member} is already {already}")));
            }
            vec![done.total]
        }
        PreviewChange::Move { member, dimension, value } => {
            let to = domain::segment::Segment::of(&board.segments, dimension, value).map_err(refuse)?;
            vec![move_in(tx, backend, board, draft.period, member, &to, &act).await?]
        }
    })
}
