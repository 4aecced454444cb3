//! Lifecycle (admin): transitions, the settlement and its rewards, revoke, corrections and hidden
//! members (late writes, the public freeze and the audit trail have modules of their own). Every
//! route checks the admin token before it reads the body, and names the admin in the audit trail.

use super::auth::Admin;
use super::body::{JsonBody, ReasonIn, RequiredReasonIn};
use super::error::{ApiError, ApiPath, ApiQuery, ErrorBody};
use super::params::{EventParams, MemberParams, PeriodParams, PeriodScope, offset, slug};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::lifecycle::Transition;
use domain::view::{PeriodInfo, RewardView, Settlement, VisibilityChange};
use domain::write::Outcome;
use domain::{EventId, MemberId, PeriodKey};
use engine::lifecycle::Correction as NewCorrection;
use engine::scope::Scope;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A settlement's rewards and every delivery attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct RewardList {
    pub rewards: Vec<RewardView>,
}

/// A revocation: the member's total is recomputed from the entries that still count.
#[derive(Debug, Serialize, ToSchema)]
pub struct Revocation {
    /// `revoked`, or `already_revoked` for a repeat.
    #[schema(example = "revoked")]
    pub result: &'static str,
    pub event_id: EventId,
    pub period: PeriodKey,
    pub member: MemberId,
    pub points: Option<i64>,
    pub projected: bool,
}

/// The correction entry written to the ledger.
#[derive(Debug, Serialize, ToSchema)]
pub struct Correction {
    /// `applied`, or `duplicate`: a correction with this `correction_id` was recorded before (its
    /// entry is answered; `points` and `version` are the member's current ones).
    pub result: Outcome,
    /// The id sent, or the one derived from the correction's content and the caller when none
    /// was (`correction-<hex>`): a retry of the same request answers `duplicate`.
    pub correction_id: EventId,
    pub entry_id: i64,
    /// Always `correction`.
    #[schema(example = "correction")]
    pub kind: &'static str,
    pub period: PeriodKey,
    pub member: MemberId,
    pub delta: i64,
    pub reason: String,
    /// The admin, as the audit trail names it (`token#<id>`).
    pub actor: String,
    pub points: i64,
    pub version: i64,
    pub projected: bool,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NewCorrection)]
pub struct CorrectionIn {
    #[schema(value_type = MemberId)]
    member: String,
    delta: i64,
    /// Some non-blank text, at most 1000 characters.
    #[schema(pattern = r"\S", max_length = 1000)]
    reason: String,
    /// Optional: a repeat with the same id answers the first correction (`duplicate`) instead of
    /// correcting twice. Shares the board's id space with event and submission ids. Without it,
    /// the id is derived from the member, delta, reason, period and caller, so a retried request
    /// never corrects twice; send an id of your own to apply the same correction again on purpose.
    #[schema(value_type = Option<EventId>)]
    correction_id: Option<String>,
}

async fn transition(
    state: AppState,
    admin: Admin,
    scope: Scope,
    body: JsonBody,
    transition: Transition,
) -> Result<Json<PeriodInfo>, ApiError> {
    let body: ReasonIn = body.parse_or_default()?;
    let info =
        state.engine.lifecycle().transition(&scope, transition, &admin.actor, body.reason.as_deref()).await?;
    Ok(Json(info))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/freeze",
    tag = "lifecycle",
    summary = "Freeze the period",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body(content = Option<ReasonIn>, description = "Optional"),
    responses(
        (status = 200, description = "The period (a repeated transition answers it unchanged)", body = PeriodInfo),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "invalid_transition", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn freeze(
    State(s): State<AppState>,
    h: Admin,
    PeriodScope(p): PeriodScope,
    b: JsonBody,
) -> Result<Json<PeriodInfo>, ApiError> {
    transition(s, h, p, b, Transition::Freeze).await
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/reopen",
    tag = "lifecycle",
    summary = "Reopen the period",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body(content = Option<ReasonIn>, description = "Optional"),
    responses(
        (status = 200, description = "The period (a repeated transition answers it unchanged)", body = PeriodInfo),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "invalid_transition", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn reopen(
    State(s): State<AppState>,
    h: Admin,
    PeriodScope(p): PeriodScope,
    b: JsonBody,
) -> Result<Json<PeriodInfo>, ApiError> {
    transition(s, h, p, b, Transition::Reopen).await
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/settle",
    tag = "lifecycle",
    summary = "Settle the period",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body(content = Option<ReasonIn>, description = "Optional"),
    responses(
        (status = 200, description = "The period (a repeated transition answers it unchanged)", body = PeriodInfo),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "invalid_transition (waits for no pending late write: late_pending)", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn settle(
    State(s): State<AppState>,
    h: Admin,
    PeriodScope(p): PeriodScope,
    b: JsonBody,
) -> Result<Json<PeriodInfo>, ApiError> {
    transition(s, h, p, b, Transition::Settle).await
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/archive",
    tag = "lifecycle",
    summary = "Archive the period",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body(content = Option<ReasonIn>, description = "Optional"),
    responses(
        (status = 200, description = "The period (a repeated transition answers it unchanged)", body = PeriodInfo),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "invalid_transition", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn archive(
    State(s): State<AppState>,
    h: Admin,
    PeriodScope(p): PeriodScope,
    b: JsonBody,
) -> Result<Json<PeriodInfo>, ApiError> {
    transition(s, h, p, b, Transition::Archive).await
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StandingsQuery {
    /// Position (0-based) of the first standing; default 0.
    #[param(minimum = 0, maximum = 4294967295_u32)]
    offset: Option<u64>,
    /// How many standings (1–10000); default 1000. `members` tells how many there are.
    #[param(minimum = 1, maximum = 10000)]
    limit: Option<u64>,
    /// A settlement revision (every one stays readable); default the latest.
    #[param(minimum = 1)]
    revision: Option<i64>,
}

/// The settlement is public: anyone may check the standings and the digest.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/settlement",
    tag = "lifecycle",
    summary = "The settlement: standings (paged) and digest (public)",
    params(PeriodParams, StandingsQuery),
    responses(
        (status = 200, description = "The settlement", body = Settlement),
        (status = 404, description = "not_found: no such board or period, not settled, or no such revision", body = ErrorBody),
        (status = 422, description = "invalid: offset or limit out of range", body = ErrorBody),
    )
)]
pub async fn settlement(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<StandingsQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<Settlement>, ApiError> {
    let (offset, limit) = (offset(q.offset)?, q.limit.unwrap_or(engine::SETTLEMENT_PAGE));
    if q.revision.is_some_and(|r| r < 1) {
        return Err(ApiError::invalid("revision must be 1 or more"));
    }
    Ok(Json(state.engine.lifecycle().settlement_revision(&scope, q.revision, offset, limit).await?))
}

/// The rewards of a period's settlement with their delivery attempts (admin: attempts carry the
/// receiver's answers).
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/rewards",
    tag = "lifecycle",
    summary = "Rewards of the settlement and their deliveries",
    security(("admin_token" = [])),
    params(PeriodParams),
    responses(
        (status = 200, description = "The rewards, oldest first", body = RewardList),
        (status = 404, description = "not_found", body = ErrorBody),
    )
)]
pub async fn rewards(
    State(state): State<AppState>,
    _admin: Admin,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<RewardList>, ApiError> {
    let rewards = state.engine.rewards().of(&scope).await?;
    Ok(Json(RewardList { rewards }))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/events/{event_id}/revoke",
    tag = "lifecycle",
    summary = "Revoke an event",
    security(("admin_token" = [])),
    params(EventParams),
    request_body = RequiredReasonIn,
    responses(
        (status = 200, description = "revoked, or already_revoked for a repeat", body = Revocation),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "the period is settled", body = ErrorBody),
        (status = 422, description = "invalid: a reason is required", body = ErrorBody),
    )
)]
pub async fn revoke(
    State(state): State<AppState>,
    admin: Admin,
    ApiPath(EventParams { board, event_id }): ApiPath<EventParams>,
    body: JsonBody,
) -> Result<Json<Revocation>, ApiError> {
    let body: ReasonIn = body.parse()?;
    let reason = body.reason.ok_or_else(|| ApiError::invalid("a reason is required"))?;
    let event_id = EventId::parse(event_id).map_err(|e| ApiError::invalid(e.to_string()))?;
    let r = state.engine.lifecycle().revoke(&slug(board)?, &event_id, &admin.actor, &reason).await?;
    Ok(Json(Revocation {
        result: r.result,
        event_id,
        period: r.period,
        member: r.member,
        points: r.points,
        projected: r.projected,
    }))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/corrections",
    tag = "lifecycle",
    summary = "Correct a member's points",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body= CorrectionIn,
    responses(
        (status = 200, description = "The ledger entry", body = Correction),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "the period is settled", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn correct(
    State(state): State<AppState>,
    admin: Admin,
    PeriodScope(scope): PeriodScope,
    body: JsonBody,
) -> Result<Json<Correction>, ApiError> {
    let body: CorrectionIn = body.parse()?;
    let member = MemberId::parse(body.member).map_err(|e| ApiError::invalid(e.to_string()))?;
    let correction_id =
        body.correction_id.map(EventId::parse).transpose().map_err(|e| ApiError::invalid(e.to_string()))?;
    let reason = body.reason.trim().to_owned();
    let correction = NewCorrection { member, delta: body.delta, correction_id, reason: body.reason };
    let c = state.engine.lifecycle().correct(&scope, &correction, &admin.actor).await?;
    Ok(Json(Correction {
        result: c.result,
        correction_id: c.correction_id,
        entry_id: c.entry_id,
        kind: "correction",
        period: c.period,
        member: c.member,
        delta: c.delta,
        reason,
        actor: admin.actor,
        points: c.points,
        version: c.version,
        projected: c.projected,
    }))
}

async fn set_hidden(
    state: AppState,
    admin: Admin,
    (MemberParams { member, .. }, scope): (MemberParams, Scope),
    body: JsonBody,
    hidden: bool,
) -> Result<Json<VisibilityChange>, ApiError> {
    // No body at all is a missing reason too (422), not malformed JSON.
    let body: ReasonIn = body.parse_or_default()?;
    let reason = body.reason.ok_or_else(|| ApiError::invalid("a reason is required"))?;
    let member = super::params::member(member)?;
    let engine = &state.engine;
    let change = if hidden {
        engine.lifecycle().hide_member(&scope, &member, &admin.actor, &reason).await?
    } else {
        engine.lifecycle().unhide_member(&scope, &member, &admin.actor, &reason).await?
    };
    Ok(Json(change))
}

/// The member leaves every public view of the period (rankings, counts, ranks, its member reads)
/// and the period's standings and prizes; its ledger entries stay, and writes to it are still
/// recorded.
#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}/hide",
    tag = "lifecycle",
    summary = "Hide a member in the period",
    security(("admin_token" = [])),
    params(MemberParams),
    request_body = RequiredReasonIn,
    responses(
        (status = 200, description = "hidden, or already_hidden for a repeat (nothing changed)", body = VisibilityChange),
        (status = 404, description = "not_found: no such board, or the member has no total in the period", body = ErrorBody),
        (status = 409, description = "period_settled: the standings change only through an applied preview", body = ErrorBody),
        (status = 422, description = "invalid: a reason is required / invalid_body", body = ErrorBody),
    )
)]
pub async fn hide(
    State(s): State<AppState>,
    h: Admin,
    ApiPath(p): ApiPath<MemberParams>,
    PeriodScope(scope): PeriodScope,
    b: JsonBody,
) -> Result<Json<VisibilityChange>, ApiError> {
    set_hidden(s, h, (p, scope), b, true).await
}

/// The member is ranked again with its current total (writes recorded while hidden included).
#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}/unhide",
    tag = "lifecycle",
    summary = "Show a hidden member again",
    security(("admin_token" = [])),
    params(MemberParams),
    request_body = RequiredReasonIn,
    responses(
        (status = 200, description = "unhidden, or already_visible for a repeat (nothing changed)", body = VisibilityChange),
        (status = 404, description = "not_found: no such board, or the member has no total in the period", body = ErrorBody),
        (status = 409, description = "period_settled: the standings change only through an applied preview", body = ErrorBody),
        (status = 422, description = "invalid: a reason is required / invalid_body", body = ErrorBody),
    )
)]
pub async fn unhide(
    State(s): State<AppState>,
    h: Admin,
    ApiPath(p): ApiPath<MemberParams>,
    PeriodScope(scope): PeriodScope,
    b: JsonBody,
) -> Result<Json<VisibilityChange>, ApiError> {
    set_hidden(s, h, (p, scope), b, false).await
}
