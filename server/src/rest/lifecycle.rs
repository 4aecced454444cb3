//! Lifecycle (admin): transitions, the settlement, late-write review, revoke, corrections, hidden
//! members and the audit trail. Every route checks the admin token before it reads the body, and
//! names the admin in the audit trail.

use super::auth::Admin;
use super::body::JsonBody;
use super::error::{ApiError, ApiPath, ApiQuery, ErrorBody};
use super::params::{EventParams, LateParams, MemberParams, PeriodParams, PeriodScope, offset, slug};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::lifecycle::Transition;
use domain::view::{AuditEntry, LateEntry, PeriodInfo, RewardView, Settlement, VisibilityChange};
use domain::write::Outcome;
use domain::{EventId, MemberId, PeriodKey};
use engine::AuditFilter;
use engine::lifecycle::Correction as NewCorrection;
use engine::public::RevealMode;
use engine::scope::Scope;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A settlement's rewards and every delivery attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct RewardList {
    pub rewards: Vec<RewardView>,
}

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

/// A page of the audit trail, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    /// Pass as `cursor` for older rows; null on the last page.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Reason)]
pub struct ReasonIn {
    /// Recorded in the audit trail; required to reject a late write, to revoke, to hide and to
    /// unhide.
    reason: Option<String>,
}

/// The body of the routes that need a reason (reject a late write, revoke, hide, unhide): the
/// same `ReasonIn`, described with the reason required.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RequiredReason)]
#[allow(dead_code, reason = "schema-only: these routes read ReasonIn and check the reason")]
pub struct RequiredReasonIn {
    /// Recorded in the audit trail: some non-blank text, at most 1000 characters.
    #[schema(pattern = r"\S", max_length = 1000)]
    reason: String,
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
    let info = state.engine.transition(&scope, transition, &admin.actor, body.reason.as_deref()).await?;
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
    Ok(Json(state.engine.settlement_revision(&scope, q.revision, offset, limit).await?))
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
    let rewards = state.engine.rewards(&scope).await?;
    Ok(Json(RewardList { rewards }))
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
    let entries = state.engine.late_entries(&scope, q.status.map(LateStatus::as_str)).await?;
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
    let decided = state.engine.decide_late(&scope, id, accept, &admin.actor, body.reason.as_deref()).await?;
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
    let r = state.engine.revoke(&slug(board)?, &event_id, &admin.actor, &reason).await?;
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
    let c = state.engine.correct(&scope, &correction, &admin.actor).await?;
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
        engine.hide_member(&scope, &member, &admin.actor, &reason).await?
    } else {
        engine.unhide_member(&scope, &member, &admin.actor, &reason).await?
    };
    Ok(Json(change))
}

/// How far a reveal goes.
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RevealStepIn {
    All,
    Next,
}

/// A period's public freeze after a change (contest mode).
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicFreezeView {
    pub board: domain::BoardSlug,
    pub period: PeriodKey,
    /// `frozen`, `already_frozen` (a repeat: nothing changed), `revealed` (the public sees live),
    /// `step` (a stepwise reveal made `revealed` public) or `not_frozen` (a reveal of a period
    /// that was not publicly frozen: nothing changed).
    #[schema(example = "frozen")]
    pub result: &'static str,
    /// When the public view was taken; absent once the public sees live.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub frozen_at: Option<jiff::Timestamp>,
    /// The members a reveal step made public.
    pub revealed: Vec<MemberId>,
    /// Members whose public standing still differs from their live one.
    pub pending: u64,
}

/// The body of a reveal.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Reveal)]
pub struct RevealIn {
    /// `all` (default): the public sees live at once. `next`: one step of a stepwise reveal —
    /// first every member below the last prize rank (the top 10 without prizes), then one member
    /// at a time from the last prize rank up to first; the step after the last ends the freeze.
    step: Option<RevealStepIn>,
    /// Recorded in the audit trail.
    reason: Option<String>,
}

/// Writes keep counting, but every public read answers the standings as they are now (with
/// `frozen_at`) until a reveal. Admins (this token, the console) read live.
#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/public-freeze",
    tag = "lifecycle",
    summary = "Freeze the period's public standings",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body(content = Option<ReasonIn>, description = "Optional"),
    responses(
        (status = 200, description = "frozen, or already_frozen for a repeat", body = PublicFreezeView),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 409, description = "period_settled: a settled period's standings are final", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn public_freeze(
    State(s): State<AppState>,
    admin: Admin,
    PeriodScope(scope): PeriodScope,
    body: JsonBody,
) -> Result<Json<PublicFreezeView>, ApiError> {
    let body: ReasonIn = body.parse_or_default()?;
    let done = s.engine.public_freeze(&scope, &admin.actor, body.reason.as_deref()).await?;
    let result = if done.changed { "frozen" } else { "already_frozen" };
    Ok(public_view(&scope, result, done))
}

/// Ends a public freeze at once, or one step at a time (`step: "next"`, the resolver's way).
#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/reveal",
    tag = "lifecycle",
    summary = "Reveal the period's standings",
    security(("admin_token" = [])),
    params(PeriodParams),
    request_body(content = Option<RevealIn>, description = "Optional"),
    responses(
        (status = 200, description = "revealed, step, or not_frozen (nothing changed)", body = PublicFreezeView),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 422, description = "invalid_body: step is not all or next", body = ErrorBody),
    )
)]
pub async fn reveal(
    State(s): State<AppState>,
    admin: Admin,
    PeriodScope(scope): PeriodScope,
    body: JsonBody,
) -> Result<Json<PublicFreezeView>, ApiError> {
    let body: RevealIn = body.parse_or_default()?;
    let mode = match body.step {
        None | Some(RevealStepIn::All) => RevealMode::All,
        Some(RevealStepIn::Next) => RevealMode::Next,
    };
    let done = s.engine.reveal(&scope, mode, &admin.actor, body.reason.as_deref()).await?;
    let result = match (done.changed, done.frozen_at) {
        (false, _) => "not_frozen",
        (true, Some(_)) => "step",
        (true, None) => "revealed",
    };
    Ok(public_view(&scope, result, done))
}

fn public_view(
    scope: &Scope,
    result: &'static str,
    done: engine::public::PublicFreeze,
) -> Json<PublicFreezeView> {
    Json(PublicFreezeView {
        board: scope.slug().clone(),
        period: scope.period(),
        result,
        frozen_at: done.frozen_at,
        revealed: done.revealed,
        pending: done.pending,
    })
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

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    board: Option<String>,
    period: Option<String>,
    member: Option<String>,
    /// `token#<id>`, `ingest`, …
    actor: Option<String>,
    /// `freeze`, `settle`, `revoke`, `correct`, `hide`, `unhide`, `write_rejected`, …
    action: Option<String>,
    /// Rows at or after this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    since: Option<jiff::Timestamp>,
    /// Rows before this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    until: Option<jiff::Timestamp>,
    /// Rows per page (1-500); default 50.
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    #[param(pattern = "^[1-9][0-9]{0,17}$")]
    cursor: Option<String>,
}

/// `GET /api/v1/audit`: newest first; `next_cursor` continues (absent on the last page).
#[utoipa::path(
    get,
    path = "/api/v1/audit",
    tag = "lifecycle",
    summary = "The audit trail, newest first",
    security(("admin_token" = [])),
    params(AuditQuery),
    responses(
        (status = 200, description = "A page of the audit trail", body = AuditPage),
        (status = 422, description = "invalid: a cursor this server did not make, a limit out of range", body = ErrorBody),
    )
)]
pub async fn audit(
    State(state): State<AppState>,
    _admin: Admin,
    ApiQuery(q): ApiQuery<AuditQuery>,
) -> Result<Json<AuditPage>, ApiError> {
    let before = q
        .cursor
        .as_deref()
        .map(|c| {
            // Exactly the cursors the pattern describes (next_cursor is a row id: 1, 2, …).
            let canonical = !c.is_empty()
                && c.len() <= 18
                && !c.starts_with('0')
                && c.bytes().all(|b| b.is_ascii_digit());
            canonical
                .then(|| c.parse::<i64>().ok())
                .flatten()
                .ok_or_else(|| ApiError::invalid("the cursor is not one this server made"))
        })
        .transpose()?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::invalid("limit must be between 1 and 500"));
    }
    let filter = AuditFilter {
        board: q.board,
        period: q.period,
        member: q.member,
        actor: q.actor,
        action: q.action,
        since: q.since,
        until: q.until,
    };
    let entries = state.engine.audit(&filter, before, limit).await?;
    let next_cursor =
        (entries.len() as u64 == limit).then(|| entries.last().map(|e| e.id.to_string())).flatten();
    Ok(Json(AuditPage { entries, next_cursor }))
}
