//! Public reads of a board period (`{period}` may be `current`). Ranks follow the board's tie
//! policy everywhere; display names are joined per page.

use super::ApiError;
use super::boards::slug;
use super::error::ApiPath;
use super::error::ApiQuery;
use super::openapi::{
    AroundPage, BoardParams, Count, EntriesPage, ErrorBody, MemberEvents, MemberParams, Page, PeriodParams,
    Ranks, SnapshotPage, SnapshotParams,
};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use domain::MemberId;
use domain::view::{Entry, LedgerEntry, PeriodInfo, RankingPage, SnapshotInfo};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

type PeriodPath = ApiPath<(String, String)>;
type MemberPath = ApiPath<(String, String, String)>;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Live pages: the position (0-based) of the first entry; default 0.
    offset: Option<u64>,
    /// Entries per page; default 50.
    limit: Option<u64>,
    /// Keyset pages: the `next_cursor` of the previous page (empty for the first page). Not with
    /// `offset`.
    after: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LimitQuery {
    /// How many entries; default 10.
    limit: Option<u64>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AroundQuery {
    /// Entries on each side of the member; default 2.
    radius: Option<u64>,
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
    /// Member ids separated by commas (`u1,u2,u3`).
    members: String,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The `next_before` of the previous page: entries older than this id.
    before: Option<i64>,
    /// Entries per page; default 50.
    limit: Option<u64>,
}

/// A member id from the path; one that cannot exist is not found.
pub(super) fn member(raw: String) -> Result<MemberId, ApiError> {
    MemberId::parse(raw.clone())
        .map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("member {raw} not found")))
}

/// The page with its period's bounds, as every ranking read answers.
fn page_json(page: RankingPage) -> Value {
    json!({
        "board": page.board.slug,
        "period": page.period,
        "starts_at": page.starts_at,
        "ends_at": page.ends_at,
        "total": page.total,
        "offset": page.offset,
        "entries": page.entries,
        "source": page.source,
    })
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods",
    tag = "reads",
    summary = "The periods of a board",
    params(BoardParams),
    responses(
        (status = 200, description = "Periods with their state and bounds", body = Vec<PeriodInfo>),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
    )
)]
pub async fn periods(
    State(s): State<AppState>,
    ApiPath(board): ApiPath<String>,
) -> Result<Json<Vec<PeriodInfo>>, ApiError> {
    Ok(Json(s.engine.periods(&slug(board)?).await?))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/top",
    tag = "reads",
    summary = "The top of the ranking",
    params(PeriodParams, LimitQuery),
    responses(
        (status = 200, description = "The first entries", body = Page),
        (status = 400, description = "invalid_query", body = ErrorBody),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period or bound", body = ErrorBody),
    )
)]
pub async fn top(
    State(s): State<AppState>,
    ApiPath((board, period)): PeriodPath,
    uri: Uri,
    ApiQuery(q): ApiQuery<LimitQuery>,
) -> Result<Response, ApiError> {
    // The body is made once per cached page and shared by every reader of that second; kept
    // under the request target too, so the same request is answered before routing
    // (`http::CachedTop`).
    let (slug, limit, asked) =
        (slug(board)?, q.limit.unwrap_or(10), uri.path_and_query().map(|pq| pq.as_str()));
    let body = s.engine.top_rendered(&slug, Some(&period), limit, page_body, asked).await?;
    Ok(json_answer(body))
}

/// A JSON body made ahead, answered as `Json` answers one: also what `http::CachedTop` answers a
/// repeated top-N read with.
pub(crate) fn json_answer(body: impl Into<axum::body::Body>) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body.into()).into_response()
}

/// The JSON body of a ranking page, exactly as `Json(page_json(page))` answers it.
pub(super) fn page_body(page: &RankingPage) -> Vec<u8> {
    serde_json::to_vec(&page_json(page.clone())).expect("a JSON value always serializes")
}

/// Live offset pages (`offset`), or keyset pages (`after`, which also answers `next_cursor`).
/// Offset pages may shift while you read; cursor pages neither skip nor repeat.
#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/entries",
    tag = "reads",
    summary = "A page of the ranking: live (offset) or keyset (after)",
    params(PeriodParams, PageQuery),
    responses(
        (status = 200, description = "The page; with `after`, also `next_cursor`", body = EntriesPage),
        (status = 400, description = "invalid_query", body = ErrorBody),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 422, description = "invalid: offset with after, a cursor this server did not make, …", body = ErrorBody),
    )
)]
pub async fn entries(
    State(s): State<AppState>,
    ApiPath((board, period)): PeriodPath,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let board = slug(board)?;
    let limit = q.limit.unwrap_or(50);
    if q.offset.is_some() && q.after.is_some() {
        return Err(ApiError::invalid("use either offset (live pages) or after (cursor pages), not both"));
    }
    if let Some(after) = q.after {
        let cursor = (!after.is_empty()).then_some(after.as_str());
        let found = s.engine.entries_after(&board, Some(&period), cursor, limit).await?;
        let mut out = page_json(found.page);
        out["next_cursor"] = json!(found.next_cursor);
        return Ok(Json(out));
    }
    let page = s.engine.ranking_page(&board, Some(&period), q.offset.unwrap_or(0), limit).await?;
    Ok(Json(page_json(page)))
}

#[utoipa::path(
    post,
    path = "/api/v1/boards/{board}/periods/{period}/snapshots",
    tag = "reads",
    summary = "Pin a copy of the ranking (10 minutes)",
    params(PeriodParams),
    responses(
        (status = 201, description = "The snapshot", body = SnapshotInfo),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period or bound", body = ErrorBody),
    )
)]
pub async fn create_snapshot(
    State(s): State<AppState>,
    ApiPath((board, period)): PeriodPath,
) -> Result<(StatusCode, Json<domain::view::SnapshotInfo>), ApiError> {
    Ok((StatusCode::CREATED, Json(s.engine.create_snapshot(&slug(board)?, Some(&period)).await?)))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/snapshots/{snapshot}/entries",
    tag = "reads",
    summary = "A page of a pinned copy",
    params(SnapshotParams, PageQuery),
    responses(
        (status = 200, description = "The page", body = SnapshotPage),
        (status = 400, description = "invalid_query", body = ErrorBody),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 410, description = "snapshot_expired", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period or bound", body = ErrorBody),
    )
)]
pub async fn snapshot_entries(
    State(s): State<AppState>,
    ApiPath((board, period, id)): MemberPath,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let page = s
        .engine
        .snapshot_page(&slug(board)?, Some(&period), &id, q.offset.unwrap_or(0), q.limit.unwrap_or(50))
        .await?;
    let mut out = page_json(page);
    out["snapshot_id"] = json!(id);
    Ok(Json(out))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}",
    tag = "reads",
    summary = "A member's rank",
    params(MemberParams),
    responses(
        (status = 200, description = "The member's entry", body = MemberRank),
        (status = 404, description = "not_found: no such board or period, or the member has no points", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period or bound", body = ErrorBody),
    )
)]
pub async fn member_rank(
    State(s): State<AppState>,
    ApiPath((board, period, m)): MemberPath,
) -> Result<Json<MemberRank>, ApiError> {
    let m = member(m)?;
    let page = s.engine.around(&slug(board)?, Some(&period), &m, 0).await?;
    let entry = page
        .entries
        .into_iter()
        .next()
        .ok_or_else(|| engine::EngineError::NotFound { what: format!("member {m}") })?;
    Ok(Json(MemberRank { entry, source: page.source }))
}

/// A member's rank and points, and where they were read from.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MemberRank {
    #[serde(flatten)]
    entry: Entry,
    /// `redis`, `ledger` (while Redis cannot be read) or `standings` (an archived period).
    source: domain::view::ReadSource,
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}/around",
    tag = "reads",
    summary = "The entries around a member",
    params(MemberParams, AroundQuery),
    responses(
        (status = 200, description = "The member's rank and the entries around it", body = AroundPage),
        (status = 400, description = "invalid_query", body = ErrorBody),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period or bound", body = ErrorBody),
    )
)]
pub async fn around(
    State(s): State<AppState>,
    ApiPath((board, period, m)): MemberPath,
    ApiQuery(q): ApiQuery<AroundQuery>,
) -> Result<Response, ApiError> {
    let m = member(m)?;
    let page = s.engine.around(&slug(board)?, Some(&period), &m, q.radius.unwrap_or(2)).await?;
    let body = serde_json::to_vec(&AroundBody::new(&page, &m)).expect("strings and numbers always serialize");
    Ok(json_answer(body))
}

/// The around-me answer: `page_json` plus `rank` and `member`, written straight from the page
/// instead of through a `serde_json::Value` per request (a hot path). Fields are declared in the
/// order `Value` writes its keys (sorted), so the bytes are the same (a test holds them to it).
#[derive(Serialize)]
struct AroundBody<'a> {
    board: &'a domain::BoardSlug,
    ends_at: &'a jiff::Timestamp,
    entries: Vec<SortedEntry<'a>>,
    member: &'a MemberId,
    offset: u64,
    period: &'a domain::PeriodKey,
    rank: Option<u64>,
    source: domain::view::ReadSource,
    starts_at: &'a jiff::Timestamp,
    total: u64,
}

/// An [`Entry`] with its fields in sorted order (see [`AroundBody`]).
#[derive(Serialize)]
struct SortedEntry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    display_name: Option<&'a str>,
    member: &'a MemberId,
    points: i64,
    rank: u64,
    tied: bool,
}

impl<'a> AroundBody<'a> {
    fn new(page: &'a RankingPage, member: &'a MemberId) -> Self {
        let entries = page
            .entries
            .iter()
            .map(|e| SortedEntry {
                display_name: e.display_name.as_deref(),
                member: &e.member,
                points: e.points,
                rank: e.rank,
                tied: e.tied,
            })
            .collect();
        AroundBody {
            board: &page.board.slug,
            ends_at: &page.ends_at,
            entries,
            member,
            offset: page.offset,
            period: &page.period,
            rank: page.entries.iter().find(|e| e.member == *member).map(|e| e.rank),
            source: page.source,
            starts_at: &page.starts_at,
            total: page.total,
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/members/{member}/events",
    tag = "reads",
    summary = "Why this score: the ledger entries behind it",
    params(MemberParams, EventsQuery),
    responses(
        (status = 200, description = "Entries newest first, revocations and corrections included", body = MemberEvents),
        (status = 400, description = "invalid_query", body = ErrorBody),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period or bound", body = ErrorBody),
    )
)]
pub async fn member_events(
    State(s): State<AppState>,
    ApiPath((board, period, m)): MemberPath,
    ApiQuery(q): ApiQuery<EventsQuery>,
) -> Result<Json<Value>, ApiError> {
    let limit = q.limit.unwrap_or(50);
    let entries: Vec<LedgerEntry> =
        s.engine.member_entries(&slug(board)?, Some(&period), &member(m)?, q.before, limit).await?;
    let next_before = (entries.len() as u64 == limit).then(|| entries.last().map(|e| e.id)).flatten();
    let entries: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            let metadata = e.metadata.as_deref().and_then(|m| serde_json::from_str::<Value>(m).ok());
            let mut v = json!(e);
            v["metadata"] = metadata.unwrap_or(Value::Null);
            v
        })
        .collect();
    Ok(Json(json!({ "entries": entries, "next_before": next_before })))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/count",
    tag = "reads",
    summary = "How many members have at least min_points",
    params(PeriodParams, CountQuery),
    responses(
        (status = 200, description = "The count", body = Count),
        (status = 400, description = "invalid_query", body = ErrorBody),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period or bound", body = ErrorBody),
    )
)]
pub async fn count(
    State(s): State<AppState>,
    ApiPath((board, period)): PeriodPath,
    ApiQuery(q): ApiQuery<CountQuery>,
) -> Result<Json<Value>, ApiError> {
    let counted = s.engine.count_at_least(&slug(board)?, Some(&period), q.min_points).await?;
    Ok(Json(json!({ "count": counted.value, "source": counted.source })))
}

#[utoipa::path(
    get,
    path = "/api/v1/boards/{board}/periods/{period}/ranks",
    tag = "reads",
    summary = "The ranks of a list of members",
    params(PeriodParams, RanksQuery),
    responses(
        (status = 200, description = "Their entries", body = Ranks),
        (status = 400, description = "invalid_query", body = ErrorBody),
        (status = 404, description = "not_found: no such board, period or member", body = ErrorBody),
        (status = 422, description = "invalid: a malformed member id", body = ErrorBody),
    )
)]
pub async fn ranks(
    State(s): State<AppState>,
    ApiPath((board, period)): PeriodPath,
    ApiQuery(q): ApiQuery<RanksQuery>,
) -> Result<Json<Value>, ApiError> {
    let members = q
        .members
        .split(',')
        .map(|m| MemberId::parse(m.trim()).map_err(|e| ApiError::invalid(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let ranks = s.engine.ranks_of(&slug(board)?, Some(&period), &members).await?;
    Ok(Json(json!({ "entries": ranks.value, "source": ranks.source })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::view::BoardSummary;
    use domain::{BoardSlug, Cadence, Operator, PeriodKey, TiePolicy};

    /// The around-me answer as it was first built: through `serde_json::Value`.
    fn around_as_value(page: RankingPage, m: &MemberId) -> Vec<u8> {
        let rank = page.entries.iter().find(|e| e.member == *m).map(|e| e.rank);
        let mut out = page_json(page);
        out["rank"] = json!(rank);
        out["member"] = json!(m);
        serde_json::to_vec(&out).unwrap()
    }

    fn entry(rank: u64, member: &str, points: i64, name: Option<&str>, tied: bool) -> Entry {
        let member = MemberId::parse(member).unwrap();
        Entry { rank, member, points, display_name: name.map(str::to_owned), tied }
    }

    #[test]
    fn the_around_me_answer_is_byte_for_byte_the_value_built_one() {
        let period = PeriodKey::parse("2026-W49").unwrap();
        let page = RankingPage {
            board: BoardSummary {
                slug: BoardSlug::parse("weekly").unwrap(),
                title: "Weekly".into(),
                cadence: Cadence::Weekly,
                time_zone: "Asia/Shanghai".into(),
                operator: Operator::Incr,
                tie_policy: TiePolicy::Shared,
                current_period: period,
            },
            period,
            starts_at: "2026-11-29T16:00:00Z".parse().unwrap(),
            ends_at: "2026-12-06T16:00:00Z".parse().unwrap(),
            ends_local: "Mon 2026-12-07 00:00".into(),
            total: 1_000_000,
            offset: 41,
            entries: vec![
                entry(42, "u1", 90, Some("Ann \"<b>\" \u{e9}\u{1F600}"), true),
                entry(42, "u2", 90, None, true),
                entry(44, "m:000000000007", -3, Some(""), false),
            ],
            has_more: true,
            source: domain::view::ReadSource::Ledger,
            state: domain::lifecycle::State::Frozen,
        };
        for (who, page) in [("u2", page.clone()), ("nobody", RankingPage { entries: vec![], ..page })] {
            let m = MemberId::parse(who).unwrap();
            let direct = serde_json::to_vec(&AroundBody::new(&page, &m)).unwrap();
            assert_eq!(
                String::from_utf8(direct).unwrap(),
                String::from_utf8(around_as_value(page, &m)).unwrap()
            );
        }
    }
}
