//! The path parameters of the routes, as handlers extract them (`ApiPath<PeriodParams>`) and as
//! the OpenAPI document describes them. Values are checked where they are used: an impossible
//! slug, member id or period is a resource that does not exist (404).

use super::error::{ApiError, ApiPath};
use domain::ErrorCode;
use domain::{BoardSlug, EventId, MemberId};
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BoardParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PeriodParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// A period key (`2026-W34`, `2026-08-20`, `2026-08`) or `current`.
    #[param(pattern = r"^(current|[0-9]{4}-(W[0-9]{2}|[0-9]{2}|[0-9]{2}-[0-9]{2}))$")]
    pub period: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "board and period are described here and read by PeriodScope")]
pub struct MemberParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// A period key or `current`.
    #[param(pattern = r"^(current|[0-9]{4}-(W[0-9]{2}|[0-9]{2}|[0-9]{2}-[0-9]{2}))$")]
    pub period: String,
    /// The member's id.
    #[param(value_type = MemberId)]
    pub member: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "board and period are described here and read by PeriodScope")]
pub struct ReceiptParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// A period key or `current`.
    #[param(pattern = r"^(current|[0-9]{4}-(W[0-9]{2}|[0-9]{2}|[0-9]{2}-[0-9]{2}))$")]
    pub period: String,
    /// A settlement revision (1, 2, …).
    #[param(minimum = 1)]
    pub revision: i64,
    /// The member's id.
    #[param(value_type = MemberId)]
    pub member: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "board and period are described here and read by PeriodScope")]
pub struct SnapshotParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// A period key or `current`.
    #[param(pattern = r"^(current|[0-9]{4}-(W[0-9]{2}|[0-9]{2}|[0-9]{2}-[0-9]{2}))$")]
    pub period: String,
    /// The `snapshot_id` answered when the snapshot was made.
    #[param(pattern = "^[0-9A-Fa-f]{1,64}$")]
    pub snapshot: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "board and period are described here and read by PeriodScope")]
pub struct LateParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// A period key or `current`.
    #[param(pattern = r"^(current|[0-9]{4}-(W[0-9]{2}|[0-9]{2}|[0-9]{2}-[0-9]{2}))$")]
    pub period: String,
    /// The late write's id.
    pub id: i64,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct EventParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// The event's id.
    #[param(value_type = EventId)]
    pub event_id: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ProfileParams {
    /// The member's id.
    #[param(value_type = MemberId)]
    pub member: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BoardMemberParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// The member's id.
    #[param(value_type = MemberId)]
    pub member: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct KeyParams {
    /// The key's id (from the listing). Anything but an integer names no key (404).
    #[param(value_type = i64)]
    pub id: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code, reason = "board and period are described here and read by PeriodScope")]
pub struct PreviewParams {
    /// The board's slug.
    #[param(value_type = BoardSlug)]
    pub board: String,
    /// A period key or `current`.
    #[param(pattern = r"^(current|[0-9]{4}-(W[0-9]{2}|[0-9]{2}|[0-9]{2}-[0-9]{2}))$")]
    pub period: String,
    /// The `preview_id` answered when the preview was made.
    #[param(pattern = "^pv_[0-9a-f]{32}$")]
    pub id: String,
}

/// A board named in a path: an impossible slug is simply a board that does not exist.
pub(super) fn slug(board: String) -> Result<BoardSlug, ApiError> {
    BoardSlug::parse(board.clone())
        .map_err(|_| ApiError::new(ErrorCode::NotFound, format!("board {board} not found")))
}

/// The board and period named in a path, resolved once (`current` is the period containing
/// now): an impossible slug or period is a board or period that does not exist (404).
pub(super) async fn scope(
    state: &crate::state::AppState,
    board: String,
    period: &str,
) -> Result<engine::scope::Scope, ApiError> {
    Ok(state.engine.reads().scope(&slug(board)?, Some(period)).await?)
}

/// The board and period of a route whose path has `{board}` and `{period}`, resolved once before
/// the handler runs: an impossible slug or period is a board or period that does not exist (404
/// `not_found`), a segment that is not UTF-8 is 400 `invalid_path` (as `ApiPath`). Other segments
/// of the path are left to the handler's `ApiPath`. Extractors run in argument order: it goes
/// after the caller's check (`Admin`, `Ingest`) so an unauthorized caller learns nothing.
pub struct PeriodScope(pub engine::scope::Scope);

/// The two segments [`PeriodScope`] reads (the others are ignored).
#[derive(Deserialize)]
struct ScopeSegments {
    board: String,
    period: String,
}

impl axum::extract::FromRequestParts<crate::state::AppState> for PeriodScope {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &crate::state::AppState,
    ) -> Result<Self, ApiError> {
        let ApiPath(ScopeSegments { board, period }) = ApiPath::from_request_parts(parts, state).await?;
        Ok(Self(scope(state, board, &period).await?))
    }
}

/// A member id from the path; one that cannot exist is not found.
pub(super) fn member(raw: String) -> Result<MemberId, ApiError> {
    MemberId::parse(raw.clone())
        .map_err(|_| ApiError::new(ErrorCode::NotFound, format!("member {raw} not found")))
}

/// The largest `offset` a page may start at: no ranking holds more members (a Redis sorted set
/// holds at most 2^32 - 1), and beyond 2^53 the window script cannot even read the number (the
/// read fell back to the ledger, a full scan, and answered `source: ledger`).
const MAX_OFFSET: u64 = u32::MAX as u64;

/// An `offset` from the query, refused beyond [`MAX_OFFSET`] before anything is read.
pub(super) fn offset(offset: Option<u64>) -> Result<u64, ApiError> {
    match offset.unwrap_or(0) {
        o if o > MAX_OFFSET => Err(ApiError::invalid(format!("offset must be at most {MAX_OFFSET}"))),
        o => Ok(o),
    }
}
