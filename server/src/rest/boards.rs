//! Boards: create (admin), list and show (public), rebuild a period's projection (admin). A hot
//! board (`cadence: "hot"`) shares the slug space and these routes; its hits and list are in
//! `hot.rs`.

use super::auth::Admin;
use super::body::JsonBody;
use super::error::{ApiError, ApiPath, ErrorBody};
use super::params::{BoardParams, PeriodParams, PeriodScope, slug};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use domain::board::BoardDraft;
use domain::board::HOT_CADENCE;
use domain::board::Prize;
use domain::hot::{Aggregate, HotBoard, HotRules, HotSpec, WriteMode};
use domain::{Board, BoardSlug, Cadence, Operator, Sort, TiePolicy, Unit};
use engine::boards::BoardDetails;
use engine::hot::HotBoardDetails;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::openapi::schema::{ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type};

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = NewBoard)]
#[serde(deny_unknown_fields)]
pub struct BoardIn {
    #[schema(value_type = BoardSlug)]
    slug: String,
    /// 1-200 characters, not all blank (trimmed when stored).
    #[schema(pattern = r"\S", max_length = 200)]
    title: String,
    /// `weekly`, `daily` or `monthly` (`hot` boards take the fields of `NewHotBoard`).
    #[schema(value_type = Cadence)]
    cadence: String,
    /// An IANA time zone name.
    #[schema(example = "Asia/Shanghai")]
    time_zone: String,
    #[schema(value_type = Operator)]
    operator: String,
    #[schema(value_type = TiePolicy)]
    tie_policy: String,
    /// With `min_points` and `tie_base`: the encoded scores must stay exact (below 2^53).
    #[schema(minimum = -9007199254740992_i64, maximum = 9007199254740992_i64)]
    max_points: i64,
    /// Default 0; at most `max_points`.
    #[schema(minimum = -9007199254740992_i64, maximum = 9007199254740992_i64)]
    min_points: Option<i64>,
    /// `first_reached` only (at least 2; default 1000000); ignored under `shared`.
    tie_base: Option<i64>,
    /// 0 to 7 days; default 300.
    #[schema(minimum = 0, maximum = 604800)]
    freeze_grace_seconds: Option<i64>,
    /// Contest mode: the last this many seconds of each period are publicly frozen (the public
    /// sees the standings of that moment until a reveal). 0 to 7 days; default 0 (never).
    #[schema(minimum = 0, maximum = 604800)]
    public_freeze_seconds: Option<i64>,
    prizes: Option<Vec<Prize>>,
    /// `desc` (default: more points rank first) or `asc` (fewer points rank first: times,
    /// strokes). Fixed at creation.
    #[schema(value_type = Option<Sort>)]
    sort: Option<String>,
    /// `points` (default) or `ms`: the points are milliseconds, shown as durations. Fixed at
    /// creation.
    #[schema(value_type = Option<Unit>)]
    unit: Option<String>,
    /// A bounded board: the live ranking keeps only the best this many members (1 to 1000000);
    /// the ledger keeps everyone, and members below are read from it (`source: ledger`). Absent:
    /// unbounded. Fixed at creation.
    #[schema(minimum = 1, maximum = 1000000)]
    keep_top: Option<i64>,
    /// Days a settled period's Redis keys live after its settlement (0 to 366; default 7); its
    /// reads then come from its standings.
    #[schema(minimum = 0, maximum = 366)]
    ranking_ttl_days: Option<i64>,
    /// Segment dimensions (at most 4, each `[a-z0-9_-]{1,32}`): writes then name the member's
    /// value in each (`"segments": {"province": "zj"}`) and every value ranks its members on a
    /// ranking of its own (`?segment=province:zj`). Not with `keep_top`. Fixed at creation.
    #[schema(max_items = 4)]
    segments: Option<Vec<String>>,
    /// Prize tables by declared dimension (`{"province": [{"from_rank": 1, "to_rank": 3, "prize":
    /// "medal"}]}`): each value's ranking of the dimension awards them at settlement, beside the
    /// board's own `prizes`; rewards name the ranking (`province:zj`). Fixed at creation.
    #[schema(value_type = Option<std::collections::BTreeMap<String, Vec<Prize>>>)]
    segment_prizes: Option<domain::board::SegmentPrizes>,
}

impl BoardIn {
    fn parse(self) -> Result<Board, ApiError> {
        let draft = BoardDraft {
            slug: self.slug,
            title: self.title,
            cadence: self.cadence,
            time_zone: self.time_zone,
            operator: self.operator,
            tie_policy: self.tie_policy,
            max_points: self.max_points,
            min_points: self.min_points,
            tie_base: self.tie_base,
            freeze_grace_seconds: self.freeze_grace_seconds,
            public_freeze_seconds: self.public_freeze_seconds,
            prizes: self.prizes.unwrap_or_default(),
            sort: self.sort,
            unit: self.unit,
            keep_top: self.keep_top,
            ranking_ttl_days: self.ranking_ttl_days,
            segments: self.segments,
            segment_prizes: self.segment_prizes,
        };
        draft.parse().map_err(|e| ApiError::invalid(e.message))
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/boards",
    tag = "boards",
    summary = "Create a board",
    security(("admin_token" = [])),
    request_body = NewAnyBoard,
    responses(
        (status = 201, description = "The board", body = AnyBoard),
        (status = 409, description = "board_exists", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body: bounds that cannot be exact (max_points × \
            tie_base beyond 2^53), an unknown time zone, overlapping prizes, a `sort` or `unit` not listed; for a hot board a TTL below \
            1.5 × the window, weights that do not match the window, a bound out of range, …", body = ErrorBody),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    admin: Admin,
    body: JsonBody,
) -> Result<(StatusCode, Json<AnyBoard>), ApiError> {
    let created = match NewAnyBoard::read(&body)? {
        NewAnyBoard::Hot(board) => {
            AnyBoard::Hot(HotBoardDetails::of(&state.engine.hot().create_board(&board.parse()?).await?))
        }
        NewAnyBoard::Periodic(board) => {
            AnyBoard::Periodic(state.engine.boards().create_board(&board.parse()?).await?)
        }
        NewAnyBoard::Season(season) => {
            AnyBoard::Periodic(state.engine.boards().create_season(season.draft(), &admin.actor).await?)
        }
    };
    Ok((StatusCode::CREATED, Json(created)))
}

/// `POST /api/v1/boards`: a periodic board, or a hot one (`cadence: "hot"`).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum NewAnyBoard {
    Periodic(BoardIn),
    Hot(HotBoardIn),
    Season(SeasonBoardIn),
}

impl NewAnyBoard {
    /// The kind is chosen by `cadence`, so a body's errors are those of the kind it names.
    fn read(body: &JsonBody) -> Result<Self, ApiError> {
        let shape: serde_json::Value = body.parse()?;
        match shape.get("cadence").and_then(serde_json::Value::as_str) {
            Some(HOT_CADENCE) => Ok(NewAnyBoard::Hot(body.parse()?)),
            Some(cadence) if cadence == Cadence::Season.as_str() => Ok(NewAnyBoard::Season(body.parse()?)),
            _ => Ok(NewAnyBoard::Periodic(body.parse()?)),
        }
    }
}

/// `POST /api/v1/boards` with `cadence: "season"`: a board made of another board's periods
/// (docs/API.md, "Seasons"). Time zone and unit come from the source; nothing is written to it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = NewSeasonBoard)]
#[serde(deny_unknown_fields)]
pub struct SeasonBoardIn {
    #[schema(value_type = BoardSlug)]
    slug: String,
    /// 1-200 characters, not all blank (trimmed when stored).
    #[schema(pattern = r"\S", max_length = 200)]
    title: String,
    /// `season`.
    #[allow(dead_code, reason = "read by NewAnyBoard::read to choose this shape")]
    #[schema(pattern = "^season$")]
    cadence: String,
    /// The periodic board whose periods the season is made of.
    #[schema(value_type = BoardSlug)]
    source: String,
    /// The source's periods, in order (`["2026-W40", "2026-W41"]`); or `from` and `to`.
    #[schema(max_items = 53)]
    periods: Option<Vec<String>>,
    /// With `to`: the source's periods whose first day is from `from` to `to`, both inclusive
    /// (`2027-01-01` to `2027-03-31`: the ISO weeks that start in that quarter).
    #[schema(format = Date)]
    from: Option<String>,
    #[schema(format = Date)]
    to: Option<String>,
    /// `{"kind": "sum"}`, `{"kind": "best", "k": 2}`, `{"kind": "weighted", "weights": [1, 1, 2]}`
    /// (one whole number per period) or `{"kind": "placement", "points": [25, 18, 15]}`.
    #[schema(value_type = Object)]
    rule: domain::season::SeasonRule,
    #[schema(value_type = TiePolicy)]
    tie_policy: String,
    prizes: Option<Vec<Prize>>,
    /// A soft reset: each member ranked in the final standings of the settled season `from`
    /// starts with `share_percent` (1-100) % of their points above `floor` (0 or more).
    carry_over: Option<CarryOverIn>,
}

/// `carry_over` of a new season.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CarryOverIn {
    /// The earlier season board, settled.
    #[schema(value_type = BoardSlug)]
    from: String,
    #[schema(minimum = 1, maximum = 100)]
    share_percent: i64,
    #[schema(minimum = 0)]
    floor: Option<i64>,
}

impl SeasonBoardIn {
    fn draft(self) -> domain::board::SeasonDraft {
        domain::board::SeasonDraft {
            slug: self.slug,
            title: self.title,
            source: self.source,
            periods: self.periods,
            from: self.from,
            to: self.to,
            rule: self.rule,
            tie_policy: self.tie_policy,
            prizes: self.prizes.unwrap_or_default(),
            carry_over: self.carry_over.map(|c| domain::board::CarryOverDraft {
                from: c.from,
                share_percent: c.share_percent,
                floor: c.floor.unwrap_or(0),
            }),
        }
    }
}

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
    /// Which hits count at all (default: every well-formed hit); the one rule that may change
    /// later, with `PUT …/hot/filter`.
    filter: Option<domain::hot::HotFilter>,
    /// Refused: hot boards have no segments (read so that the refusal says so).
    #[schema(value_type = Option<Vec<String>>)]
    segments: Option<serde_json::Value>,
}

impl HotBoardIn {
    pub fn parse(self) -> Result<HotBoard, ApiError> {
        if self.segments.is_some() {
            return Err(ApiError::invalid("hot boards have no segments: leave segments out"));
        }
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
            filter: self.filter,
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

/// A board of either kind, as the API shows it.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum AnyBoard {
    Periodic(BoardDetails),
    Hot(HotBoardDetails),
}

impl AnyBoard {
    fn slug(&self) -> &BoardSlug {
        match self {
            AnyBoard::Periodic(b) => &b.summary.slug,
            AnyBoard::Hot(b) => &b.slug,
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/boards",
    tag = "boards",
    summary = "List the boards",
    responses((status = 200, description = "Every board, by slug: periodic ones with their current period, \
        hot ones with their window", body = Vec<AnyBoard>))
)]
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<AnyBoard>>, ApiError> {
    let (boards, hot) = state.engine.boards().every_board().await?;
    let mut out = Vec::new();
    for board in boards {
        out.push(AnyBoard::Periodic(state.engine.boards().board_details(&board).await?));
    }
    for board in hot {
        out.push(AnyBoard::Hot(HotBoardDetails::of(&board)));
    }
    out.sort_by(|a, b| a.slug().cmp(b.slug()));
    Ok(Json(out))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}",
    tag = "boards",
    summary = "A board with its current period",
    params(BoardParams),
    responses(
        (status = 200, description = "The board", body = AnyBoard),
        (status = 404, description = "not_found", body = ErrorBody),
    )
)]
pub async fn show(
    State(state): State<AppState>,
    ApiPath(BoardParams { board }): ApiPath<BoardParams>,
) -> Result<Json<AnyBoard>, ApiError> {
    let slug = slug(board)?;
    match state.engine.reads().board(&slug).await {
        Ok(board) => Ok(Json(AnyBoard::Periodic(state.engine.boards().board_details(&board).await?))),
        Err(engine::EngineError::NotFound { .. }) => {
            Ok(Json(AnyBoard::Hot(HotBoardDetails::of(&state.engine.hot().board(&slug).await?))))
        }
        Err(e) => Err(e.into()),
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/rebuild",
    tag = "lifecycle",
    summary = "Rebuild a period's projection from the ledger",
    security(("admin_token" = [])),
    params(PeriodParams),
    responses(
        (status = 200, description = "Members projected and the time it took", body = Rebuild),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period", body = ErrorBody),
    )
)]
pub async fn rebuild(
    State(state): State<AppState>,
    admin: Admin,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<Rebuild>, ApiError> {
    let report = state.engine.jobs().rebuild(&scope, &admin.actor).await?;
    Ok(Json(Rebuild { members: report.members, took_ms: report.took_ms }))
}

/// A projection rebuilt from the ledger.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Rebuild {
    /// Members in the rebuilt ranking.
    pub members: u64,
    pub took_ms: u64,
}
