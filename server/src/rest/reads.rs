//! Public reads of a board period (`{period}` may be `current`). Ranks follow the board's tie
//! policy everywhere; display names are joined per page.

use super::ApiError;
use super::boards::slug;
use super::error::ApiQuery;
use crate::http::AppState;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use domain::MemberId;
use domain::view::{Entry, LedgerEntry, PeriodInfo, RankingPage};
use serde::Deserialize;
use serde_json::{Value, json};

type PeriodPath = Path<(String, String)>;
type MemberPath = Path<(String, String, String)>;

#[derive(Debug, Deserialize)]
pub struct PageQuery {
    offset: Option<u64>,
    limit: Option<u64>,
    after: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct LimitQuery {
    limit: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub struct AroundQuery {
    radius: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub struct CountQuery {
    min_points: i64,
}

#[derive(Debug, Deserialize)]
pub struct RanksQuery {
    members: String,
}

#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    before: Option<i64>,
    limit: Option<u64>,
}

fn member(raw: String) -> Result<MemberId, ApiError> {
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
    })
}

pub async fn periods(
    State(s): State<AppState>,
    Path(board): Path<String>,
) -> Result<Json<Vec<PeriodInfo>>, ApiError> {
    Ok(Json(s.engine.periods(&slug(board)?).await?))
}

pub async fn top(
    State(s): State<AppState>,
    Path((board, period)): PeriodPath,
    ApiQuery(q): ApiQuery<LimitQuery>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(page_json(s.engine.top(&slug(board)?, Some(&period), q.limit.unwrap_or(10)).await?)))
}

/// Live offset pages (`offset`), or keyset pages (`after`, which also answers `next_cursor`).
/// Offset pages may shift while you read; cursor pages neither skip nor repeat.
pub async fn entries(
    State(s): State<AppState>,
    Path((board, period)): PeriodPath,
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

pub async fn create_snapshot(
    State(s): State<AppState>,
    Path((board, period)): PeriodPath,
) -> Result<(StatusCode, Json<domain::view::SnapshotInfo>), ApiError> {
    Ok((StatusCode::CREATED, Json(s.engine.create_snapshot(&slug(board)?, Some(&period)).await?)))
}

pub async fn snapshot_entries(
    State(s): State<AppState>,
    Path((board, period, id)): MemberPath,
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

pub async fn member_rank(
    State(s): State<AppState>,
    Path((board, period, m)): MemberPath,
) -> Result<Json<Entry>, ApiError> {
    Ok(Json(s.engine.member_rank(&slug(board)?, Some(&period), &member(m)?).await?))
}

pub async fn around(
    State(s): State<AppState>,
    Path((board, period, m)): MemberPath,
    ApiQuery(q): ApiQuery<AroundQuery>,
) -> Result<Json<Value>, ApiError> {
    let m = member(m)?;
    let page = s.engine.around(&slug(board)?, Some(&period), &m, q.radius.unwrap_or(2)).await?;
    let rank = page.entries.iter().find(|e| e.member == m).map(|e| e.rank);
    let mut out = page_json(page);
    out["rank"] = json!(rank);
    out["member"] = json!(m);
    Ok(Json(out))
}

pub async fn member_events(
    State(s): State<AppState>,
    Path((board, period, m)): MemberPath,
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

pub async fn count(
    State(s): State<AppState>,
    Path((board, period)): PeriodPath,
    ApiQuery(q): ApiQuery<CountQuery>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(json!({ "count": s.engine.count_at_least(&slug(board)?, Some(&period), q.min_points).await? })))
}

pub async fn ranks(
    State(s): State<AppState>,
    Path((board, period)): PeriodPath,
    ApiQuery(q): ApiQuery<RanksQuery>,
) -> Result<Json<Value>, ApiError> {
    let members = q
        .members
        .split(',')
        .map(|m| MemberId::parse(m.trim()).map_err(|e| ApiError::invalid(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Json(json!({ "entries": s.engine.ranks_of(&slug(board)?, Some(&period), &members).await? })))
}
