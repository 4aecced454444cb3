//! The public freeze (admin): the public view of a period held still for its last stretch while
//! writes go on, and the reveal that ends it, at once or one step at a time. Every route checks
//! the admin token before it reads the body.

use super::auth::Admin;
use super::body::{JsonBody, ReasonIn};
use super::error::{ApiError, ErrorBody};
use super::params::{PeriodParams, PeriodScope};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::{MemberId, PeriodKey};
use engine::lifecycle::public::RevealMode;
use engine::scope::Scope;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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
    let done = s.engine.lifecycle().public_freeze(&scope, &admin.actor, body.reason.as_deref()).await?;
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
    let done = s.engine.lifecycle().reveal(&scope, mode, &admin.actor, body.reason.as_deref()).await?;
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
    done: engine::lifecycle::public::PublicFreeze,
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
