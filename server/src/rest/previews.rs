//! Previews and settlement revisions (admin): what a set of changes would do to a period before
//! anyone makes them; applying exactly that set (for a settled or archived period, as its next
//! settlement revision) or cancelling it; and the revisions of a period's settlement (public, as
//! the settlement is), with each member's receipt of a revision (`domain::receipt`).

use super::auth::Admin;
use super::body::JsonBody;
use super::error::{ApiError, ApiPath, ErrorBody};
use super::params::{PeriodParams, PeriodScope, PreviewParams, ReceiptParams, member};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use domain::PeriodKey;
use domain::preview::PreviewChange;
use domain::receipt::Receipt;
use domain::view::SettlementSummary;
use engine::lifecycle::previews::{BasedOn, Preview};
use engine::{Applied, Draft};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The changes to preview and why.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewIn {
    /// 1 to 1000 changes, made in this order, each on the result of the ones before.
    #[schema(min_items = 1, max_items = 1000)]
    pub changes: Vec<PreviewChange>,
    /// Why (kept with the draft, and on every change an apply makes).
    #[schema(min_length = 1, max_length = 1000, pattern = r"\S")]
    pub reason: String,
}

/// A stored preview: what it holds and where it stands.
#[derive(Debug, Serialize, ToSchema)]
pub struct PreviewDraft {
    pub preview_id: String,
    pub board: String,
    pub period: PeriodKey,
    /// `draft` (can be applied), `applied`, `cancelled`, or `expired` (a draft past `expires_at`).
    #[schema(example = "draft")]
    pub status: &'static str,
    pub actor: String,
    pub reason: String,
    pub changes: Vec<PreviewChange>,
    pub based_on: BasedOn,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: jiff::Timestamp,
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: jiff::Timestamp,
    /// For a settled or archived period: the digest of the standings after, once computed (a
    /// large period's preview answers before it is known, with `digest_pending`).
    pub digest_after: Option<String>,
}

impl From<Draft> for PreviewDraft {
    fn from(d: Draft) -> Self {
        let status = match d.status.as_str() {
            "draft" if jiff::Timestamp::now() > d.expires_at => "expired",
            "draft" => "draft",
            "applied" => "applied",
            _ => "cancelled",
        };
        PreviewDraft {
            preview_id: d.id,
            board: d.board,
            period: d.period,
            status,
            actor: d.actor,
            reason: d.reason,
            changes: d.changes,
            based_on: BasedOn { watermark: d.watermark, revision: d.revision },
            created_at: d.created_at,
            expires_at: d.expires_at,
            digest_after: d.digest_after,
        }
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/previews",
    tag = "lifecycle",
    summary = "Preview changes to a period: rank moves, prize changes, the digest after",
    description = "Writes nothing but the draft (kept 15 minutes). Works on open, frozen, settled and \
        archived periods; applying the draft is the only way to change a settled or archived one.",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body = PreviewIn,
    responses(
        (status = 201, description = "The preview and its draft's id", body = Preview),
        (status = 404, description = "not_found: no such board, period, event, late write or member", body = ErrorBody),
        (status = 422, description = "invalid: a change that could not be made, no reason, 0 or over 1000 changes", body = ErrorBody),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    admin: Admin,
    PeriodScope(scope): PeriodScope,
    body: JsonBody,
) -> Result<(StatusCode, Json<Preview>), ApiError> {
    let body: PreviewIn = body.parse()?;
    let preview = state.engine.lifecycle().preview(&scope, &body.reason, body.changes, &admin.actor).await?;
    Ok((StatusCode::CREATED, Json(preview)))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/previews/{id}",
    tag = "lifecycle",
    summary = "A stored preview",
    security(("admin_token" = [])),
    params(PreviewParams),
    responses(
        (status = 200, description = "The draft", body = PreviewDraft),
        (status = 404, description = "not_found: no such preview of this period", body = ErrorBody),
    )
)]
pub async fn show(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(PreviewParams { id, .. }): ApiPath<PreviewParams>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<PreviewDraft>, ApiError> {
    Ok(Json(state.engine.lifecycle().preview_draft(&scope, &id).await?.into()))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/previews/{id}/apply",
    tag = "lifecycle",
    summary = "Apply a preview: exactly its changes, once, if the period has not moved",
    description = "One transaction. On a settled or archived period it writes the next settlement \
        revision and queues a revoke and a grant for each prize that changed hands. Repeating it \
        answers the same and changes nothing.",
    security(("admin_token" = [])),
    params(PreviewParams),
    responses(
        (status = 200, description = "What the apply did (the same for a repeat)", body = Applied),
        (status = 404, description = "not_found: no such preview of this period", body = ErrorBody),
        (status = 409, description = "preview_stale (the period moved: the detail names its watermark), \
            preview_cancelled, preview_expired, invalid_change", body = ErrorBody),
    )
)]
pub async fn apply(
    State(state): State<AppState>,
    admin: Admin,
    ApiPath(PreviewParams { id, .. }): ApiPath<PreviewParams>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<Applied>, ApiError> {
    Ok(Json(state.engine.lifecycle().apply_preview(&scope, &id, &admin.actor).await?))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/previews/{id}/cancel",
    tag = "lifecycle",
    summary = "Cancel a preview (it can no longer be applied)",
    security(("admin_token" = [])),
    params(PreviewParams),
    responses(
        (status = 200, description = "The cancelled draft (the same for a repeat)", body = PreviewDraft),
        (status = 404, description = "not_found: no such preview of this period", body = ErrorBody),
        (status = 409, description = "preview_applied", body = ErrorBody),
    )
)]
pub async fn cancel(
    State(state): State<AppState>,
    admin: Admin,
    ApiPath(PreviewParams { id, .. }): ApiPath<PreviewParams>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<PreviewDraft>, ApiError> {
    Ok(Json(state.engine.lifecycle().cancel_preview(&scope, &id, &admin.actor).await?.into()))
}

/// Every revision of the settlement is public, as the settlement is.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/settlements",
    tag = "lifecycle",
    summary = "Every settlement revision of a period, oldest first (public)",
    params(PeriodParams),
    responses(
        (status = 200, description = "The revisions (empty when never settled)", body = Vec<SettlementSummary>),
        (status = 404, description = "not_found: no such board or period", body = ErrorBody),
    )
)]
pub async fn settlements(
    State(state): State<AppState>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<Vec<SettlementSummary>>, ApiError> {
    Ok(Json(state.engine.lifecycle().settlements(&scope).await?))
}

/// A member's receipt of a settlement revision is public, as the settlement is: anyone may check
/// a standing (or its absence) against the revision's root and the chain to the latest revision.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/settlements/{revision}/receipts/{member}",
    tag = "lifecycle",
    summary = "A member's receipt of a settlement revision: leaf, proof, root and chain (public)",
    params(ReceiptParams),
    responses(
        (status = 200, description = "The receipt: an inclusion proof, or the proof of the member's absence", body = Receipt),
        (status = 404, description = "not_found: no such board or period, or no such settlement revision", body = ErrorBody),
    )
)]
pub async fn receipt(
    State(state): State<AppState>,
    ApiPath(ReceiptParams { revision, member: raw, .. }): ApiPath<ReceiptParams>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<Receipt>, ApiError> {
    Ok(Json(state.engine.receipts().receipt(&scope, revision, &member(raw)?).await?))
}
