//! The console's corrections: a change to a period (revoke an entry, revoke every entry of a
//! member, correct points, hide or show a member) is first previewed — its rank moves and prize
//! changes shown as a table — and then applied as previewed, or not at all. On a settled or archived period the apply
//! writes the next settlement revision. Registered as `admin_*`, as every console function.

use crate::error::AppError;
use domain::preview::{Move, PrizeChange};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What a change would do, as the console shows it before "Apply".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrectionPreview {
    pub preview_id: String,
    pub board: String,
    pub period: String,
    /// The period's state the preview saw.
    pub state: String,
    /// The change in words ("1 entry revoked").
    pub change: String,
    pub moves: Vec<Move>,
    /// The board's unit, so that points read as the board shows them.
    pub unit: domain::Unit,
    /// How many members only shift because of the moves.
    pub shifted: u64,
    pub prizes: Vec<PrizeChange>,
    /// Each segment ranking the change touches, with the prizes changing hands there.
    pub segments: Vec<domain::preview::SegmentChange>,
    /// Each season made of the period: what the change does to it, and whether applying
    /// re-settles it.
    pub seasons: Vec<domain::preview::SeasonChange>,
    /// For a settled or archived period: the digest the new revision will have.
    pub digest_after: Option<String>,
    /// The digest is still being computed (a period of over 100 000 members).
    pub digest_pending: bool,
    pub expires_at: jiff::Timestamp,
}

/// Previews one change to a period. `change` is `revoke` (an event or submission id in
/// `target`), `revoke_member`, `hide`, `unhide` (a member id), `correct` (a member id and a
/// signed `delta`), `move` (a member id and the `segment` to move it to, `province:zj`),
/// `accept_late` or `reject_late` (a late write's id).
#[server(endpoint = "admin_preview")]
pub async fn preview_correction(
    board: String,
    period: String,
    change: String,
    target: String,
    delta: String,
    reason: String,
    #[server(default)] segment: String,
) -> Result<CorrectionPreview, AppError> {
    use crate::i18n::tr;
    use domain::preview::PreviewChange;
    let l = crate::i18n::locale();
    let actor = super::admin::admin_actor().await?;
    let reason = super::console::reason(&reason)?;
    let field = |message: String| AppError::Field { field: "target".into(), message };
    let member = || domain::MemberId::parse(target.trim()).map_err(|e| field(e.to_string()));
    let change = match change.as_str() {
        "revoke" => {
            PreviewChange::Revoke(domain::EventId::parse(target.trim()).map_err(|e| field(e.to_string()))?)
        }
        "revoke_member" => PreviewChange::RevokeMember(member()?),
        "accept_late" | "reject_late" => {
            let id = target.trim().parse::<i64>().map_err(|_| field(tr!(l, "correct-late-id")))?;
            match change.as_str() {
                "accept_late" => PreviewChange::AcceptLate(id),
                _ => PreviewChange::RejectLate(id),
            }
        }
        "hide" => PreviewChange::Hide(member()?),
        "move" => {
            let (dimension, value) = segment.trim().split_once(':').ok_or_else(|| AppError::Field {
                field: "segment".into(),
                message: tr!(l, "correct-segment-invalid"),
            })?;
            PreviewChange::Move { member: member()?, dimension: dimension.into(), value: value.into() }
        }
        "unhide" => PreviewChange::Unhide(member()?),
        "correct" => {
            let delta =
                super::console::optional_number("delta", &delta)?.filter(|d| *d != 0).ok_or_else(|| {
                    AppError::Field { field: "delta".into(), message: tr!(l, "correct-delta-invalid") }
                })?;
            PreviewChange::Correct { member: member()?, delta }
        }
        other => {
            return Err(AppError::Invalid(tr!(l, "correct-unknown-change", change = format!("{other:?}"))));
        }
    };
    let words = changed(l, std::slice::from_ref(&change));
    let scope = super::scope(board, Some(&period)).await?;
    let p = super::engine()?.lifecycle().preview(&scope, reason, vec![change], &actor).await?;
    Ok(CorrectionPreview {
        preview_id: p.preview_id,
        board: p.board.to_string(),
        period: p.period.to_string(),
        state: p.state.to_owned(),
        change: words,
        moves: p.moves,
        unit: scope.board().unit,
        shifted: p.shifted,
        prizes: p.prizes,
        segments: p.segments,
        seasons: p.seasons,
        digest_after: p.digest_after,
        digest_pending: p.digest_pending,
        expires_at: p.expires_at,
    })
}

/// Cancels a preview: it can no longer be applied, and nothing changed.
#[server(endpoint = "admin_cancel_preview")]
pub async fn cancel_correction(
    board: String,
    period: String,
    preview_id: String,
) -> Result<String, AppError> {
    let actor = super::admin::admin_actor().await?;
    let scope = super::scope(board, Some(&period)).await?;
    let draft = super::engine()?.lifecycle().cancel_preview(&scope, preview_id.trim(), &actor).await?;
    let l = crate::i18n::locale();
    Ok(crate::i18n::tr!(l, "correct-cancelled", change = changed(l, &draft.changes)))
}

/// Applies a previewed change, exactly as previewed; refused when the period moved since.
#[server(endpoint = "admin_apply_preview")]
pub async fn apply_correction(board: String, period: String, preview_id: String) -> Result<String, AppError> {
    use crate::i18n::{Say, tr};
    let l = crate::i18n::locale();
    let actor = super::admin::admin_actor().await?;
    let scope = super::scope(board, Some(&period)).await?;
    let engine = super::engine()?;
    let draft = engine.lifecycle().preview_draft(&scope, preview_id.trim()).await?;
    let applied = engine.lifecycle().apply_preview(&scope, preview_id.trim(), &actor).await?;
    let words = changed(l, &draft.changes);
    Ok(match applied.revision {
        Some(r) => {
            let short = r.digest.get(..12).unwrap_or(&r.digest);
            let deliveries = i64::try_from(r.rewards.len()).unwrap_or(i64::MAX);
            tr!(
                l,
                "correct-applied-revision",
                change = words,
                revision = r.revision.to_string(),
                digest = short.to_owned(),
                deliveries = l.number(deliveries),
            )
        }
        None => tr!(l, "correct-applied", change = words),
    })
}

/// A preview's changes in the admin's words.
#[cfg(feature = "ssr")]
fn changed(l: crate::i18n::Locale, changes: &[domain::preview::PreviewChange]) -> String {
    crate::components::revisions::changes_said(l, &domain::preview::summarize(changes))
}
