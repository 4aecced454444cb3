//! Boards: create (admin), list and show (public), rebuild a period's projection (admin). A hot
//! board (`cadence: "hot"`) shares the slug space and these routes; its own rules are parsed in
//! `hot.rs`.

use super::ApiError;
use super::auth::Admin;
use super::error::ApiPath;
use super::error::json_body;
use super::hot::HotBoardIn;
use super::openapi::{BoardParams, ErrorBody, PeriodParams, Rebuild};
use crate::state::AppState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use domain::board::BoardDraft;
use domain::board::HOT_CADENCE;
use domain::board::Prize;
use domain::{Board, BoardSlug, Cadence, Operator, TiePolicy};
use engine::boards::BoardDetails;
use engine::hot::HotBoardDetails;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = NewBoard)]
#[serde(deny_unknown_fields)]
pub struct BoardIn {
    #[schema(value_type = BoardSlug)]
    slug: String,
    /// 1-200 bytes.
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
    max_points: i64,
    min_points: Option<i64>,
    tie_base: Option<i64>,
    freeze_grace_seconds: Option<i64>,
    prizes: Option<Vec<Prize>>,
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
            prizes: self.prizes.unwrap_or_default(),
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
    request_body = super::openapi::NewAnyBoard,
    responses(
        (status = 201, description = "The board", body = super::openapi::AnyBoard),
        (status = 400, description = "malformed_json", body = ErrorBody),
        (status = 401, description = "unauthorized: no admin token", body = ErrorBody),
        (status = 409, description = "board_exists", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body: bounds that cannot be exact (max_points × \
            tie_base beyond 2^53), an unknown time zone, overlapping prizes; for a hot board a TTL below \
            1.5 × the window, weights that do not match the window, a bound out of range, …", body = ErrorBody),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    _admin: Admin,
    body: Bytes,
) -> Result<(StatusCode, Json<AnyBoard>), ApiError> {
    let shape: serde_json::Value = json_body(&body)?;
    let created = if shape.get("cadence").and_then(serde_json::Value::as_str) == Some(HOT_CADENCE) {
        let board = json_body::<HotBoardIn>(&body)?.parse()?;
        AnyBoard::Hot(HotBoardDetails::of(&state.engine.create_hot_board(&board).await?))
    } else {
        let board = json_body::<BoardIn>(&body)?.parse()?;
        AnyBoard::Periodic(state.engine.create_board(&board).await?)
    };
    Ok((StatusCode::CREATED, Json(created)))
}

/// A board of either kind, as the API shows it.
#[derive(Serialize)]
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
        hot ones with their window", body = Vec<super::openapi::AnyBoard>))
)]
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<AnyBoard>>, ApiError> {
    let (boards, hot) = state.engine.every_board().await?;
    let mut out = Vec::new();
    for board in boards {
        out.push(AnyBoard::Periodic(state.engine.board_details(&board).await?));
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
        (status = 200, description = "The board", body = super::openapi::AnyBoard),
        (status = 404, description = "not_found", body = ErrorBody),
    )
)]
pub async fn show(
    State(state): State<AppState>,
    ApiPath(board): ApiPath<String>,
) -> Result<Json<AnyBoard>, ApiError> {
    let slug = slug(board)?;
    match state.engine.board(&slug).await {
        Ok(board) => Ok(Json(AnyBoard::Periodic(state.engine.board_details(&board).await?))),
        Err(engine::EngineError::NotFound { .. }) => {
            Ok(Json(AnyBoard::Hot(super::hot::details(&state, &slug).await?)))
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
        (status = 401, description = "unauthorized: no admin token", body = ErrorBody),
        (status = 404, description = "not_found", body = ErrorBody),
        (status = 422, description = "invalid: an impossible period", body = ErrorBody),
    )
)]
pub async fn rebuild(
    State(state): State<AppState>,
    admin: Admin,
    ApiPath((board, period)): ApiPath<(String, String)>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let report = state.engine.rebuild(&slug(board)?, &period, &admin.actor).await?;
    Ok(Json(json!({ "members": report.members, "took_ms": report.took_ms })))
}

/// A board named in a path: an impossible slug is simply a board that does not exist.
pub fn slug(board: String) -> Result<BoardSlug, ApiError> {
    BoardSlug::parse(board.clone())
        .map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("board {board} not found")))
}
