//! Hot boards: hits (ingest key) and the public list served from the latest snapshot. A hot
//! board is created and shown with the others (`boards.rs`).

use super::auth::Ingest;
use super::body::JsonBody;
use super::error::{ApiError, ApiPath, ApiQuery, ErrorBody};
use super::params::{BoardParams, slug};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::hot::HotList;
use engine::hot::{Hit, HitOutcome};
use serde::Deserialize;

/// `POST /api/v1/boards/{board}/hits`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = HitIn)]
#[serde(deny_unknown_fields)]
pub struct HitIn {
    /// A member id or a search term: 1-64 characters (letters and digits of any script, inner
    /// spaces, `-_.:@#+&'/`).
    #[schema(example = "robot vacuum")]
    member: String,
    /// What the hit adds (`count`) or proposes (`best`); default 1.
    weight: Option<f64>,
    /// Who caused it: each actor counts once per member and at most `actor_cap` times per
    /// interval.
    #[schema(example = "u1001")]
    actor: Option<String>,
    /// One of the board's `action_weights`.
    #[schema(example = "click")]
    action: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/hits",
    tag = "hot",
    summary = "Count a hit on a hot board",
    description = "Into the bucket of the Redis server's clock, with dedup per actor and member, the \
        actor cap and the action weights checked in the same script. A hit refused by a rule answers \
        200 with `rejected` and the reason; nothing is counted.",
    security(("ingest_key" = []), ("admin_token" = [])),
    params(BoardParams),
    request_body = HitIn,
    responses(
        (status = 200, description = "counted, deduplicated, capped or rejected", body = HitOutcome),
        (status = 404, description = "not_found: no such hot board", body = ErrorBody),
    )
)]
pub async fn hits(
    State(state): State<AppState>,
    caller: Ingest,
    ApiPath(BoardParams { board }): ApiPath<BoardParams>,
    body: JsonBody,
) -> Result<Json<HitOutcome>, ApiError> {
    let board = state.engine.hot().board(&slug(board)?).await?;
    caller.may_write(&board.slug)?;
    let hit: HitIn = body.parse()?;
    let hit = Hit { member: hit.member, weight: hit.weight, actor: hit.actor, action: hit.action };
    Ok(Json(state.engine.hot().hit(&board.slug, &hit).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HotTopQuery {
    /// How many entries; default 10, at most 100.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<usize>,
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/hot/top",
    tag = "hot",
    summary = "A hot board's list",
    description = "Served from the latest snapshot: everyone sees the same list until the next one \
        (`snapshot_seconds`). Before the first snapshot, `updated_at` is null and the list is empty.",
    params(BoardParams, HotTopQuery),
    responses(
        (status = 200, description = "The latest list", body = HotList),
        (status = 404, description = "not_found: no such hot board", body = ErrorBody),
        (status = 422, description = "invalid: limit out of range", body = ErrorBody),
    )
)]
pub async fn top(
    State(state): State<AppState>,
    ApiPath(BoardParams { board }): ApiPath<BoardParams>,
    ApiQuery(q): ApiQuery<HotTopQuery>,
) -> Result<Json<HotList>, ApiError> {
    Ok(Json(state.engine.hot().top(&slug(board)?, q.limit.unwrap_or(10)).await?))
}
