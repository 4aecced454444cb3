//! Every server function of the UI. Each one takes the engine from context, calls one use case
//! and converts the error — nothing else. Reads only, for now; mutations will check the session
//! here, in one reviewable place.

use crate::error::AppError;
use domain::view::{BoardSummary, RankingPage};
use leptos::prelude::*;

/// Entries per page of the board view.
pub const PAGE_SIZE: u64 = 10;

#[cfg(feature = "ssr")]
fn engine() -> Result<engine::Engine, AppError> {
    use_context::<engine::Engine>().ok_or(AppError::Unavailable)
}

#[cfg(feature = "ssr")]
fn board_slug(board: String) -> Result<domain::BoardSlug, AppError> {
    domain::BoardSlug::parse(board).map_err(|_| AppError::NotFound("this board does not exist".into()))
}

/// All boards with their current period.
#[server]
pub async fn read_boards() -> Result<Vec<BoardSummary>, AppError> {
    Ok(engine()?.boards().await?)
}

/// A live page of a board's period (`None`: the current one).
#[server]
pub async fn read_ranking(
    board: String,
    period: Option<String>,
    offset: u64,
    limit: u64,
) -> Result<RankingPage, AppError> {
    Ok(engine()?.ranking_page(&board_slug(board)?, period.as_deref(), offset, limit).await?)
}
