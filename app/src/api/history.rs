//! The charts' server functions: a member's history (the member page), a period's distribution
//! and the board's past periods (the board page). Public reads, like the rankings they chart,
//! each listed by name with its reason in the server's registry of public functions.

use crate::error::AppError;
use domain::view::{Distribution, MemberHistory, PeriodResult};
use leptos::prelude::*;

/// A member's points through a period, the points to the next ranks and their last periods.
#[server]
pub async fn read_member_history(
    board: String,
    period: String,
    member: String,
) -> Result<MemberHistory, AppError> {
    let member = super::member_id(member)?;
    Ok(super::engine()?.member_history(&super::scope(board, Some(&period)).await?, &member).await?)
}

/// A period's distribution of points, with "me" in it when this browser opened a signed link.
#[server]
pub async fn read_ranking_distribution(
    board: String,
    period: Option<String>,
) -> Result<Distribution, AppError> {
    let me = super::contestant::read_me().await?.map(super::member_id).transpose()?;
    let engine = super::engine()?;
    Ok(engine.distribution(&super::scope(board, period.as_deref()).await?, me.as_ref()).await?)
}

/// The board's last periods, newest first, with their states and winners (or leaders).
#[server]
pub async fn read_periods_with_winners(board: String) -> Result<Vec<PeriodResult>, AppError> {
    Ok(super::engine()?.period_results(&super::board_slug(board)?).await?)
}
