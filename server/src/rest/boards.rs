//! Boards: create (admin), list and show (public), rebuild a period's projection (admin).

use super::error::json_body;
use super::{ApiError, auth};
use crate::http::AppState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use domain::board::Prize;
use domain::{Board, BoardSlug, Cadence, Operator, ScoreCodec, TiePolicy};
use engine::boards::BoardDetails;
use serde::Deserialize;
use serde_json::json;

/// Default B for first_reached boards: a million reach sequences per period.
const DEFAULT_TIE_BASE: i64 = 1_000_000;
const DEFAULT_GRACE_SECONDS: i64 = 300;
const MAX_GRACE_SECONDS: i64 = 7 * 24 * 3600;

#[derive(Debug, Deserialize)]
pub struct BoardIn {
    slug: String,
    title: String,
    cadence: String,
    time_zone: String,
    operator: String,
    tie_policy: String,
    max_points: i64,
    min_points: Option<i64>,
    tie_base: Option<i64>,
    freeze_grace_seconds: Option<i64>,
    prizes: Option<Vec<Prize>>,
}

impl BoardIn {
    fn parse(self) -> Result<Board, ApiError> {
        let slug = BoardSlug::parse(self.slug).map_err(|e| ApiError::invalid(e.to_string()))?;
        let title = self.title.trim().to_owned();
        if title.is_empty() || title.len() > 200 {
            return Err(ApiError::invalid("title must be 1-200 bytes"));
        }
        if self.cadence == "hot" {
            return Err(ApiError::invalid("hot boards are not available yet"));
        }
        let cadence: Cadence = self.cadence.parse().map_err(ApiError::invalid)?;
        let operator: Operator = self.operator.parse().map_err(ApiError::invalid)?;
        let policy: TiePolicy = self.tie_policy.parse().map_err(ApiError::invalid)?;
        let zone = jiff::tz::TimeZone::get(&self.time_zone).map_err(|_| {
            ApiError::invalid(format!("unknown time zone {:?}; use an IANA name", self.time_zone))
        })?;
        let tie_base = match policy {
            TiePolicy::Shared => self.tie_base.unwrap_or(1),
            TiePolicy::FirstReached => self.tie_base.unwrap_or(DEFAULT_TIE_BASE),
        };
        let codec = ScoreCodec::new(policy, self.min_points.unwrap_or(0), self.max_points, tie_base)
            .map_err(|e| ApiError::invalid(e.to_string()))?;
        let freeze_grace_seconds = self.freeze_grace_seconds.unwrap_or(DEFAULT_GRACE_SECONDS);
        if !(0..=MAX_GRACE_SECONDS).contains(&freeze_grace_seconds) {
            return Err(ApiError::invalid(format!("freeze_grace_seconds must be 0-{MAX_GRACE_SECONDS}")));
        }
        let prizes = self.prizes.unwrap_or_default();
        domain::board::check_prizes(&prizes).map_err(ApiError::invalid)?;
        Ok(Board { slug, title, cadence, zone, operator, codec, freeze_grace_seconds, prizes })
    }
}

pub async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<BoardDetails>), ApiError> {
    auth::admin(&state.engine, &headers).await?;
    let board = json_body::<BoardIn>(&body)?.parse()?;
    Ok((StatusCode::CREATED, Json(state.engine.create_board(&board).await?)))
}

pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<BoardDetails>>, ApiError> {
    let mut out = Vec::new();
    for board in state.engine.ledger().boards().await.map_err(engine::EngineError::from)? {
        out.push(state.engine.board_details(&board).await?);
    }
    Ok(Json(out))
}

pub async fn show(
    State(state): State<AppState>,
    Path(board): Path<String>,
) -> Result<Json<BoardDetails>, ApiError> {
    let board = state.engine.board(&slug(board)?).await?;
    Ok(Json(state.engine.board_details(&board).await?))
}

pub async fn rebuild(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path((board, period)): Path<(String, String)>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let admin = auth::admin(&state.engine, &headers).await?;
    let report = state.engine.rebuild(&slug(board)?, &period, &admin.actor).await?;
    Ok(Json(json!({ "members": report.members, "took_ms": report.took_ms })))
}

/// A board named in a path: an impossible slug is simply a board that does not exist.
pub fn slug(board: String) -> Result<BoardSlug, ApiError> {
    BoardSlug::parse(board.clone())
        .map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("board {board} not found")))
}
