//! Hot boards: hits (ingest key) and the public list served from the latest snapshot. A hot
//! board is created and shown with the others (`boards.rs`).

use super::auth::{Admin, Ingest};
use super::body::JsonBody;
use super::error::{ApiError, ApiPath, ApiQuery, ErrorBody};
use super::params::{BoardParams, slug};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::hot::{HotFilter, HotList};
use engine::hot::{Hit, HitOutcome, HotBoardDetails};
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
    /// How many results the search found: a board with `count_only_with_results` counts only
    /// hits above 0.
    #[schema(example = 12)]
    results: Option<u64>,
    /// When the actor's account was made: a board with `min_actor_age_seconds` counts only
    /// actors at least that old.
    #[schema(value_type = Option<String>, format = DateTime, example = "2026-01-31T09:00:00Z")]
    actor_created_at: Option<jiff::Timestamp>,
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/hits",
    tag = "hot",
    summary = "Count a hit on a hot board",
    description = "Into the bucket of the Redis server's clock, with dedup per actor and member, the \
        actor cap and the action weights checked in the same script. A hit refused by a rule answers \
        200 with `rejected` (malformed) or `filtered` (the board's filter does not count it) and the \
        reason; nothing is counted.",
    security(("ingest_key" = []), ("admin_token" = [])),
    params(BoardParams),
    request_body = HitIn,
    responses(
        (status = 200, description = "counted, deduplicated, capped, not_raised, filtered or rejected", body = HitOutcome),
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
    let hit = Hit {
        member: hit.member,
        weight: hit.weight,
        actor: hit.actor,
        action: hit.action,
        results: hit.results,
        actor_created_at: hit.actor_created_at,
    };
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

#[utoipa::path(
    put,
    path = "/api/v1/boards/{board}/hot/filter",
    tag = "hot",
    summary = "Replace a hot board's hit filter",
    description = "The one rule of a hot board that may change after creation. This instance applies \
        it to the next hit, the others within 5 seconds; hits already counted stay counted.",
    security(("admin_token" = [])),
    params(BoardParams),
    request_body = HotFilter,
    responses(
        (status = 200, description = "The board with its new filter", body = HotBoardDetails),
        (status = 404, description = "not_found: no such hot board", body = ErrorBody),
        (status = 422, description = "invalid: a blocked member no hit could name, a duplicate, too many, or an age out of range", body = ErrorBody),
    )
)]
pub async fn set_filter(
    State(state): State<AppState>,
    admin: Admin,
    ApiPath(BoardParams { board }): ApiPath<BoardParams>,
    body: JsonBody,
) -> Result<Json<HotBoardDetails>, ApiError> {
    let filter: HotFilter = body.parse()?;
    let board = state.engine.hot().set_filter(&slug(board)?, filter, &admin.actor).await?;
    Ok(Json(HotBoardDetails::of(&board)))
}
