//! Hot boards: creation (`POST /api/v1/boards` with `cadence: "hot"`, dispatched here from
//! `boards.rs`), hits (ingest key) and the public list served from the latest snapshot.

use super::ApiError;
use super::auth::Ingest;
use super::body::JsonBody;
use super::error::ApiPath;
use super::error::ApiQuery;
use super::error::ErrorBody;
use super::params::{BoardParams, slug};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use domain::BoardSlug;
use domain::hot::HotList;
use domain::hot::{Aggregate, HotBoard, HotRules, HotSpec, WriteMode};
use engine::hot::{Hit, HitOutcome, HotBoardDetails};
use serde::Deserialize;
use std::collections::BTreeMap;
use utoipa::openapi::schema::{ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type};

/// `POST /api/v1/boards` with `cadence: "hot"`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = NewHotBoard)]
#[serde(deny_unknown_fields)]
pub struct HotBoardIn {
    #[schema(value_type = BoardSlug)]
    slug: String,
    /// 1-200 characters, not all blank (trimmed when stored).
    #[schema(pattern = r"\S", max_length = 200)]
    title: String,
    /// `hot`.
    #[schema(value_type = HotCadence)]
    #[allow(dead_code, reason = "read by the dispatch in boards::create")]
    cadence: String,
    /// 1 s to 1 day.
    #[schema(minimum = 1, maximum = 86400)]
    bucket_seconds: u64,
    /// Buckets merged by a read: 1-288.
    #[schema(minimum = 1, maximum = 288)]
    window_buckets: u64,
    /// Each bucket's TTL, set at its first write and never extended: at least 1.5 × the window,
    /// at most 366 days.
    #[schema(minimum = 2, maximum = 31622400)]
    ttl_seconds: u64,
    /// `count` (default) or `best`.
    #[schema(value_type = Option<HotWriteMode>)]
    write_mode: Option<String>,
    /// `sum` (default for count) or `max` (default and only choice for best).
    #[schema(value_type = Option<HotAggregate>)]
    aggregate: Option<String>,
    /// One weight per bucket of the window (above 0, at most 1000), oldest first (default all 1):
    /// newer may count more.
    #[schema(schema_with = bucket_weights)]
    weights: Option<Vec<f64>>,
    /// How often the public list is recomputed, and the dedup/cap interval (default
    /// min(bucket_seconds, 300)); at most the TTL.
    #[schema(minimum = 1, maximum = 3600)]
    snapshot_seconds: Option<u64>,
    /// Size bound of a bucket (default 100000).
    #[schema(minimum = 1, maximum = 1000000)]
    max_members: Option<u64>,
    /// Most hits one actor may count per interval.
    #[schema(minimum = 1, maximum = 1000000)]
    actor_cap: Option<u64>,
    /// Weight per action (above 0, at most 1000), e.g. `{"search": 1, "click": 3, "order": 10}`:
    /// at most 32 actions named with 1-32 of `[a-z0-9_]`.
    #[schema(schema_with = action_weights)]
    action_weights: Option<BTreeMap<String, f64>>,
}

impl HotBoardIn {
    pub fn parse(self) -> Result<HotBoard, ApiError> {
        let slug = BoardSlug::parse(self.slug).map_err(|e| ApiError::invalid(e.to_string()))?;
        // Counted as sent, as the document's maxLength counts it.
        if self.title.trim().is_empty() || self.title.chars().count() > 200 {
            return Err(ApiError::invalid("title must be 1-200 characters"));
        }
        let title = self.title.trim().to_owned();
        let write_mode =
            self.write_mode.map(|m| m.parse::<WriteMode>()).transpose().map_err(ApiError::invalid)?;
        let aggregate =
            self.aggregate.map(|a| a.parse::<Aggregate>()).transpose().map_err(ApiError::invalid)?;
        let rules = HotRules::new(HotSpec {
            bucket_seconds: self.bucket_seconds,
            window_buckets: self.window_buckets,
            ttl_seconds: self.ttl_seconds,
            write_mode,
            aggregate,
            weights: self.weights,
            snapshot_seconds: self.snapshot_seconds,
            max_members: self.max_members,
            actor_cap: self.actor_cap,
            action_weights: self.action_weights,
        })
        .map_err(ApiError::invalid)?;
        Ok(HotBoard { slug, title, rules })
    }
}

/// `cadence` of a hot board: the one word `hot`.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code, reason = "schema-only")]
pub enum HotCadence {
    Hot,
}

/// `write_mode` of a hot board.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code, reason = "schema-only: parsed as domain::hot::WriteMode")]
pub enum HotWriteMode {
    Count,
    Best,
}

/// `aggregate` of a hot board.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code, reason = "schema-only: parsed as domain::hot::Aggregate")]
pub enum HotAggregate {
    Sum,
    Max,
}

/// A bucket's or an action's weight: above 0, at most `MAX_WEIGHT`.
fn weight() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::Number)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Double)))
        .exclusive_minimum(Some(0))
        .maximum(Some(domain::hot::MAX_WEIGHT))
}

/// `weights`: one weight per bucket of the window (1-288 of them; how many must match
/// `window_buckets`, which the schema cannot say), or null.
fn bucket_weights() -> ArrayBuilder {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(weight())
        .min_items(Some(1))
        .max_items(Some(domain::hot::MAX_WINDOW_BUCKETS as usize))
}

/// `action_weights`: at most 32 actions named with 1-32 of `[a-z0-9_]`, or null.
fn action_weights() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .additional_properties(Some(weight()))
        .property_names(Some(
            ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[a-z0-9_]{1,32}$")),
        ))
        .max_properties(Some(32))
}

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
    let board = state.engine.hot_board(&slug(board)?).await?;
    caller.may_write(&board.slug)?;
    let hit: HitIn = body.parse()?;
    let hit = Hit { member: hit.member, weight: hit.weight, actor: hit.actor, action: hit.action };
    Ok(Json(state.engine.hit(&board.slug, &hit).await?))
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
    Ok(Json(state.engine.hot_top(&slug(board)?, q.limit.unwrap_or(10)).await?))
}

/// A hot board's definition as the API shows it.
pub async fn details(state: &AppState, board: &BoardSlug) -> Result<HotBoardDetails, ApiError> {
    Ok(HotBoardDetails::of(&state.engine.hot_board(board).await?))
}
