//! Late writes (admin): the writes kept for review because they reached a frozen period, and the
//! decision on each — accept (applied as if on time, audited) or reject (kept as rejected, with a
//! reason). Every route checks the admin token before it reads the body.

use super::auth::Admin;
use super::body::{JsonBody, ReasonIn, RequiredReasonIn};
use super::error::{ApiError, ApiPath, ApiQuery, ErrorBody};
use super::params::{LateParams, PeriodParams, PeriodScope};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::view::LateEntry;
use domain::write::Outcome;
use engine::scope::Scope;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Late writes kept for review.
#[derive(Debug, Serialize, ToSchema)]
pub struct LateList {
    pub entries: Vec<LateEntry>,
}

/// A late write after the decision, and for an accept what applying it did.
#[derive(Debug, Serialize, ToSchema)]
pub struct LateDecision {
    pub late: LateEntry,
    /// Null for a reject or a repeated decision.
    pub result: Option<Outcome>,
    pub points: Option<i64>,
    pub projected: bool,
}

/// The review states of a late write.
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LateStatus {
    Pending,
    Accepted,
    Rejected,
}

impl LateStatus {
    fn as_str(self) -> &'static str {
        match self {
            LateStatus::Pending => "pending",
            LateStatus::Accepted => "accepted",
            LateStatus::Rejected => "rejected",
        }
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LateQuery {
    /// Only the late writes in this state; default: all.
    #[param(inline)]
    status: Option<LateStatus>,
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/late",
    tag = "lifecycle",
    summary = "Late writes kept for review",
    security(("admin_token" = [])),
    params(PeriodParams, LateQuery),
    responses(
        (status = 200, description = "The late writes", body = LateList),
        (status = 404, description = "not_found", body = ErrorBody),
    )
)]
pub async fn late(
    State(state): State<AppState>,
    _admin: Admin,
    ApiQuery(q): ApiQuery<LateQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<LateList>, ApiError> {
    let entries = state.engine.lifecycle().late_entries(&scope, q.status.map(LateStatus::as_str)).await?;
    Ok(Json(LateList { entries }))
}

async fn decide_late(
    state: AppState,
    admin: Admin,
    (LateParams { id, .. }, scope): (LateParams, Scope),
    body: JsonBody,
    accept: bool,
) -> Result<Json<LateDecision>, ApiError> {
    let body: ReasonIn = body.parse_or_default()?;
    let decided = state
        .engine
        .lifecycle()
        .decide_late(&scope, id, accept, &admin.actor, body.reason.as_deref())
        .await?;
    Ok(Json(LateDecision {
        late: decided.entry,
        result: decided.result,
        points: decided.points,
        projected: decided.projected,
    }))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/late/{id}/accept",
    tag = "lifecycle",
    summary = "Accept a late write: apply it",
    security(("admin_token" = [])),
    params(LateParams),
    request_body(content = Option<ReasonIn>, description = "Optional"),
    responses(
        (status = 200, description = "The decision and what applying the write did", body = LateDecision),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "already_decided, period_settled", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn accept_late(
    State(s): State<AppState>,
    h: Admin,
    ApiPath(p): ApiPath<LateParams>,
    PeriodScope(scope): PeriodScope,
    b: JsonBody,
) -> Result<Json<LateDecision>, ApiError> {
    decide_late(s, h, (p, scope), b, true).await
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/late/{id}/reject",
    tag = "lifecycle",
    summary = "Reject a late write",
    security(("admin_token" = [])),
    params(LateParams),
    request_body = RequiredReasonIn,
    responses(
        (status = 200, description = "The decision", body = LateDecision),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "already_decided, period_settled", body = ErrorBody),
        (status = 422, description = "invalid: a rejection needs a reason", body = ErrorBody),
    )
)]
pub async fn reject_late(
    State(s): State<AppState>,
    h: Admin,
    ApiPath(p): ApiPath<LateParams>,
    PeriodScope(scope): PeriodScope,
    b: JsonBody,
) -> Result<Json<LateDecision>, ApiError> {
    decide_late(s, h, (p, scope), b, false).await
}
