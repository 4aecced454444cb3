//! Public reads of a board period (`{period}` may be `current`). Ranks follow the board's tie
//! policy everywhere; display names are joined per page.
//!
//! Under `/api/v1/boards/{board}/periods/{period}/`: `top`, `entries?offset=` (live),
//! `entries?after=` (keyset, `next_cursor`), `snapshots` (pin) and `snapshots/{id}/entries`,
//! `members/{m}`, `members/{m}/around`, `members/{m}/events`, `count`, `ranks`, `segments/{dim}`,
//! `as-of?at=` and `changes?from=&to=` (the ranking's past, `as_of.rs`); an expired snapshot answers 410 `snapshot_expired`. `?segment=dim:value` reads one segment
//! value's ranking (`engine::segments`). What each may cost is bounded (docs/ARCHITECTURE.md,
//! "What a request may cost").

use super::auth::Reader;
use super::error::{ApiError, ApiPath, ApiQuery, ErrorBody};
use super::params::{
    BoardParams, MemberParams, PeriodParams, PeriodScope, SnapshotParams, member, offset, slug,
};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use domain::view::{Entry, LedgerEntry, PeriodInfo, RankingPage, ReadSource, SnapshotInfo};
use domain::{BoardSlug, MemberId, PeriodKey};
use engine::Viewer;
use engine::reads::segments::SegmentValues;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Live pages: the position (0-based) of the first entry; default 0.
    #[param(minimum = 0, maximum = 4294967295_u32)]
    offset: Option<u64>,
    /// Entries per page; default 50.
    #[param(minimum = 1, maximum = 200)]
    limit: Option<u64>,
    /// Keyset pages: the `next_cursor` of the previous page (empty for the first page). Not with
    /// `offset`.
    after: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SnapshotPageQuery {
    /// The position (0-based) of the first entry; default 0.
    #[param(minimum = 0, maximum = 4294967295_u32)]
    offset: Option<u64>,
    /// Entries per page; default 50.
    #[param(minimum = 1, maximum = 200)]
    limit: Option<u64>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LimitQuery {
    /// How many entries; default 10.
    #[param(minimum = 1, maximum = 200)]
    limit: Option<u64>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AroundQuery {
    /// Entries on each side of the member; default 2.
    #[param(minimum = 0, maximum = 50)]
    radius: Option<u64>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SegmentQuery {
    /// Read one segment value's ranking instead of the board's: `dimension:value`
    /// (`province:zj`), a dimension the board declares. A publicly frozen period's segments are
    /// 409 `segment_frozen` to the public.
    #[param(pattern = "^[a-z0-9_-]{1,32}:[A-Za-z0-9_.:@-]{1,64}$")]
    segment: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "board and period are described here and read by PeriodScope")]
pub struct DimensionParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    board: String,
    /// A period key or `current`.
    #[param(pattern = r"^(current|[0-9]{4}-(W[0-9]{2}|[0-9]{2}|[0-9]{2}-[0-9]{2}))$")]
    period: String,
    /// One of the board's segment dimensions.
    #[param(pattern = "^[a-z0-9_-]{1,32}$")]
    dimension: String,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CountQuery {
    /// Count the members with at least these points.
    min_points: i64,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RanksQuery {
    /// 1 to 100 member ids separated by commas (`u1,u2,u3`).
    #[param(pattern = r"^[A-Za-z0-9_.:@-]{1,64}(,[A-Za-z0-9_.:@-]{1,64}){0,99}$")]
    members: String,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The `next_before` of the previous page: entries older than this id.
    before: Option<i64>,
    /// Entries per page; default 50.
    #[param(minimum = 1, maximum = 200)]
    limit: Option<u64>,
}

/// A page of a period's ranking with the period's bounds, as every ranking read answers it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page {
    pub board: BoardSlug,
    pub period: PeriodKey,
    #[schema(value_type = String, format = DateTime)]
    pub starts_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    pub ends_at: Timestamp,
    /// Number of members on the period's board.
    pub total: u64,
    /// Position (0-based) of the first entry.
    pub offset: u64,
    pub entries: Vec<Entry>,
    /// `redis` (the live projection), `ledger` (the ledger's totals, while Redis cannot be
    /// read: the same order and ranks) or `standings` (an archived period).
    pub source: ReadSource,
    /// While the period is publicly frozen: when the standings answered were taken (writes
    /// since then count but are not shown until the reveal).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub frozen_at: Option<Timestamp>,
}

impl From<RankingPage> for Page {
    fn from(page: RankingPage) -> Self {
        Page {
            board: page.board.slug,
            period: page.period,
            starts_at: page.starts_at,
            ends_at: page.ends_at,
            total: page.total,
            offset: page.offset,
            entries: page.entries,
            source: page.source,
            frozen_at: page.frozen_at,
        }
    }
}

/// A live page (`offset`), or a keyset page (`after`) with the cursor that continues it.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntriesPage {
    #[serde(flatten)]
    pub page: Page,
    /// Only for `after`: pass it as `after` for the next page; null on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub next_cursor: Option<Option<String>>,
}

/// A page of a pinned copy of the ranking.
#[derive(Debug, Serialize, ToSchema)]
pub struct SnapshotPage {
    #[serde(flatten)]
    pub page: Page,
    pub snapshot_id: String,
}

/// The entries around a member, and the member's rank (null when absent).
#[derive(Debug, Serialize, ToSchema)]
pub struct AroundPage {
    #[serde(flatten)]
    pub page: Page,
    pub rank: Option<u64>,
    pub member: MemberId,
}

/// A member's rank and points, and where they were read from.
#[derive(Debug, Serialize, ToSchema)]
pub struct MemberRank {
    #[serde(flatten)]
    pub entry: Entry,
    /// `redis`, `ledger` (while Redis cannot be read) or `standings` (an archived period).
    pub source: ReadSource,
    /// While the period is publicly frozen: when the standings answered were taken (writes
    /// since then count but are not shown until the reveal).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub frozen_at: Option<Timestamp>,
}

/// The ledger entries behind a member's score, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct MemberEvents {
    pub entries: Vec<LedgerEntry>,
    /// Pass as `before` for older entries; null on the last page.
    pub next_before: Option<i64>,
    /// While the period is publicly frozen: entries recorded after this are not listed yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub frozen_at: Option<Timestamp>,
}

/// How many members have at least `min_points`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Count {
    pub count: u64,
    pub source: ReadSource,
    /// While the period is publicly frozen: when the standings answered were taken (writes
    /// since then count but are not shown until the reveal).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub frozen_at: Option<Timestamp>,
}

/// The ranks of the members asked for (members without points are left out).
#[derive(Debug, Serialize, ToSchema)]
pub struct Ranks {
    pub entries: Vec<Entry>,
    pub source: ReadSource,
    /// While the period is publicly frozen: when the standings answered were taken (writes
    /// since then count but are not shown until the reveal).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub frozen_at: Option<Timestamp>,
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods",
    tag = "reads",
    summary = "The periods of a board",
    params(BoardParams),
    responses(
        (status = 200, description = "Periods with their state and bounds", body = Vec<PeriodInfo>),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
    )
)]
pub async fn periods(
    State(s): State<AppState>,
    ApiPath(BoardParams { board }): ApiPath<BoardParams>,
) -> Result<Json<Vec<PeriodInfo>>, ApiError> {
    Ok(Json(s.engine.reads().periods(&slug(board)?).await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/top",
    tag = "reads",
    summary = "The top of the ranking",
    params(PeriodParams, LimitQuery, SegmentQuery),
    responses(
        (status = 200, description = "The first entries", body = Page),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, a segment the board does not declare", body = ErrorBody),
    )
)]
pub async fn top(
    State(s): State<AppState>,
    uri: Uri,
    Reader(viewer): Reader,
    ApiQuery(q): ApiQuery<LimitQuery>,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Response, ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    if viewer == Viewer::Admin || scope.segment().is_some() {
        // A segment's top is not kept (`Reads::top_shared`).
        let live = s.engine.reads().ranking_page_as(viewer, &scope, 0, q.limit.unwrap_or(10)).await?;
        return Ok(Json(Page::from(live)).into_response());
    }
    // Read the epoch first: a change after it makes the kept answer stale, never the reverse.
    let epoch = s.engine.reads().read_epoch();
    let top = s.engine.reads().top_shared(&scope, q.limit.unwrap_or(10)).await?;
    let page = Page::from(top.page.as_ref().clone());
    let body = serde_json::to_vec(&page).expect("a page always serializes");
    Ok(s.top_bytes.answer(uri.path_and_query().map(|pq| pq.as_str()), body.into(), top.until, epoch))
}

/// Live offset pages (`offset`), or keyset pages (`after`, which also answers `next_cursor`).
/// Offset pages may shift while you read; cursor pages neither skip nor repeat.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/entries",
    tag = "reads",
    summary = "A page of the ranking: live (offset) or keyset (after)",
    params(PeriodParams, PageQuery, SegmentQuery),
    responses(
        (status = 200, description = "The page; with `after`, also `next_cursor`", body = EntriesPage),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: offset with after, a cursor this server did not make, a segment the board does not declare, …", body = ErrorBody),
    )
)]
pub async fn entries(
    State(s): State<AppState>,
    Reader(viewer): Reader,
    ApiQuery(q): ApiQuery<PageQuery>,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<EntriesPage>, ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    let limit = q.limit.unwrap_or(50);
    let from = offset(q.offset)?;
    if q.offset.is_some() && q.after.is_some() {
        return Err(ApiError::invalid("use either offset (live pages) or after (cursor pages), not both"));
    }
    if let Some(after) = q.after {
        let cursor = (!after.is_empty()).then_some(after.as_str());
        let found = s.engine.reads().entries_after(&scope, cursor, limit).await?;
        return Ok(Json(EntriesPage { page: found.page.into(), next_cursor: Some(found.next_cursor) }));
    }
    let page = s.engine.reads().ranking_page_as(viewer, &scope, from, limit).await?;
    Ok(Json(EntriesPage { page: page.into(), next_cursor: None }))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/snapshots",
    tag = "reads",
    summary = "Pin a copy of the ranking (10 minutes)",
    params(PeriodParams, SegmentQuery),
    responses(
        (status = 201, description = "The snapshot", body = SnapshotInfo),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, a segment the board does not declare", body = ErrorBody),
    )
)]
pub async fn create_snapshot(
    State(s): State<AppState>,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<(StatusCode, Json<SnapshotInfo>), ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    Ok((StatusCode::CREATED, Json(s.engine.reads().create_snapshot(&scope).await?)))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/snapshots/{snapshot}/entries",
    tag = "reads",
    summary = "A page of a pinned copy",
    params(SnapshotParams, SnapshotPageQuery, SegmentQuery),
    responses(
        (status = 200, description = "The page", body = SnapshotPage),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 410, description = "snapshot_expired", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, a segment the board does not declare", body = ErrorBody),
    )
)]
pub async fn snapshot_entries(
    State(s): State<AppState>,
    ApiPath(SnapshotParams { snapshot, .. }): ApiPath<SnapshotParams>,
    ApiQuery(q): ApiQuery<SnapshotPageQuery>,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<SnapshotPage>, ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    let from = offset(q.offset)?;
    let page = s.engine.reads().snapshot_page(&scope, &snapshot, from, q.limit.unwrap_or(50)).await?;
    Ok(Json(SnapshotPage { page: page.into(), snapshot_id: snapshot }))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}",
    tag = "reads",
    summary = "A member's rank",
    params(MemberParams, SegmentQuery),
    responses(
        (status = 200, description = "The member's entry", body = MemberRank),
        (status = 404, description = "not_found: no such board or period, or the member has no points (in the segment)", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, a segment the board does not declare", body = ErrorBody),
    )
)]
pub async fn member_rank(
    State(s): State<AppState>,
    ApiPath(MemberParams { member: m, .. }): ApiPath<MemberParams>,
    Reader(viewer): Reader,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<MemberRank>, ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    let m = member(m)?;
    let page = s.engine.reads().around_as(viewer, &scope, &m, 0).await?;
    let entry = page
        .entries
        .into_iter()
        .next()
        .ok_or_else(|| engine::EngineError::NotFound { what: engine::Missing::Member(m.clone()) })?;
    Ok(Json(MemberRank { entry, source: page.source, frozen_at: page.frozen_at }))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}/around",
    tag = "reads",
    summary = "The entries around a member",
    params(MemberParams, AroundQuery, SegmentQuery),
    responses(
        (status = 200, description = "The member's rank and the entries around it", body = AroundPage),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, a segment the board does not declare", body = ErrorBody),
    )
)]
pub async fn around(
    State(s): State<AppState>,
    ApiPath(MemberParams { member: m, .. }): ApiPath<MemberParams>,
    Reader(viewer): Reader,
    ApiQuery(q): ApiQuery<AroundQuery>,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<AroundPage>, ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    let m = member(m)?;
    let page = s.engine.reads().around_as(viewer, &scope, &m, q.radius.unwrap_or(2)).await?;
    let rank = page.entries.iter().find(|e| e.member == m).map(|e| e.rank);
    Ok(Json(AroundPage { page: page.into(), rank, member: m }))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}/events",
    tag = "reads",
    summary = "Why this score: the ledger entries behind it",
    params(MemberParams, EventsQuery),
    responses(
        (status = 200, description = "Entries newest first, revocations and corrections included", body = MemberEvents),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range", body = ErrorBody),
    )
)]
pub async fn member_events(
    State(s): State<AppState>,
    ApiPath(MemberParams { member: m, .. }): ApiPath<MemberParams>,
    Reader(viewer): Reader,
    ApiQuery(q): ApiQuery<EventsQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<MemberEvents>, ApiError> {
    let limit = q.limit.unwrap_or(50);
    let entries = s.engine.reads().member_entries_as(viewer, &scope, &member(m)?, q.before, limit).await?;
    let next_before = (entries.len() as u64 == limit).then(|| entries.last().map(|e| e.id)).flatten();
    let frozen_at = match viewer {
        Viewer::Public => s.engine.reads().public_frozen_at(scope.slug(), scope.period()).await?,
        Viewer::Admin => None,
    };
    Ok(Json(MemberEvents { entries, next_before, frozen_at }))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}/season",
    tag = "reads",
    summary = "Why this season total: what each period of a season gave the member",
    params(MemberParams),
    responses(
        (status = 200, description = "Every period of the season in order, with the member's points and rank there and what it gave", body = domain::season::MemberSeason),
        (status = 404, description = "not_found: no such board or period, or the board is not a season", body = ErrorBody),
    )
)]
pub async fn member_season(
    State(s): State<AppState>,
    ApiPath(MemberParams { member: m, .. }): ApiPath<MemberParams>,
    Reader(viewer): Reader,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<domain::season::MemberSeason>, ApiError> {
    Ok(Json(s.engine.seasons().member_season(viewer, &scope, &member(m)?).await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/count",
    tag = "reads",
    summary = "How many members have at least min_points",
    params(PeriodParams, CountQuery, SegmentQuery),
    responses(
        (status = 200, description = "The count", body = Count),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: a bound out of range, a segment the board does not declare", body = ErrorBody),
    )
)]
pub async fn count(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<CountQuery>,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<Count>, ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    let counted = s.engine.reads().count_at_least(&scope, q.min_points).await?;
    Ok(Json(Count { count: counted.value, source: counted.source, frozen_at: counted.frozen_at }))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/ranks",
    tag = "reads",
    summary = "The ranks of a list of members",
    params(PeriodParams, RanksQuery, SegmentQuery),
    responses(
        (status = 200, description = "Their entries", body = Ranks),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: a segment of a publicly frozen period", body = ErrorBody),
        (status = 422, description = "invalid: a malformed member id, a segment the board does not declare", body = ErrorBody),
    )
)]
pub async fn ranks(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<RanksQuery>,
    ApiQuery(SegmentQuery { segment }): ApiQuery<SegmentQuery>,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<Ranks>, ApiError> {
    let scope = scope.in_segment(segment.as_deref())?;
    let members = q
        .members
        .split(',')
        .map(|m| MemberId::parse(m).map_err(|e| ApiError::invalid(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let ranks = s.engine.reads().ranks_of(&scope, &members).await?;
    Ok(Json(Ranks { entries: ranks.value, source: ranks.source, frozen_at: ranks.frozen_at }))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/segments/{dimension}",
    tag = "reads",
    summary = "A segment dimension's values, with member counts and leaders",
    params(DimensionParams),
    responses(
        (status = 200, description = "At most 100 values in byte order (`more`: others exist)", body = SegmentValues),
        (status = 404, description = "not_found: no such board, period (an impossible key, or one of another cadence) or member", body = ErrorBody),
        (status = 409, description = "segment_frozen: the period is publicly frozen", body = ErrorBody),
        (status = 422, description = "invalid: a dimension the board does not declare", body = ErrorBody),
    )
)]
pub async fn segment_values(
    State(s): State<AppState>,
    ApiPath(DimensionParams { dimension, .. }): ApiPath<DimensionParams>,
    Reader(viewer): Reader,
    PeriodScope(scope): PeriodScope,
) -> Result<Json<SegmentValues>, ApiError> {
    Ok(Json(s.engine.reads().segment_values(viewer, &scope, &dimension).await?))
}
