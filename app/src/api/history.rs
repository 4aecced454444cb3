//! The charts' server functions: a member's history (the member page), a period's distribution,
//! its leaders' points over the period and the board's past periods (the board page). Public
//! reads, like the rankings they chart, each listed by name with its reason in the server's
//! registry of public functions.

use crate::error::AppError;
use domain::view::{Distribution, Entry, MemberHistory, PeriodResult};
use domain::{PeriodKey, Sort};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

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

/// The leaders' race as the board page draws it (`components::charts::leaders`): the engine's
/// `leaders_chart::LeadersChart`, which the browser's bundle does not have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeadersChart {
    pub period: PeriodKey,
    /// The period's start and end.
    pub from: jiff::Timestamp,
    pub until: jiff::Timestamp,
    /// The board's time zone, the times' zone.
    pub zone: String,
    /// When the lines were read: they run up to here (or the period's end, if sooner).
    pub read_at: jiff::Timestamp,
    /// While the period is publicly frozen: when the public view was taken; the lines stop there.
    pub frozen_at: Option<jiff::Timestamp>,
    pub sort: Sort,
    /// The top of the public ranking, in its order.
    pub leaders: Vec<LeaderLine>,
}

/// One leader's standing and their points after each step through the period, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderLine {
    pub standing: Entry,
    pub steps: Vec<(jiff::Timestamp, i64)>,
    /// Longer than one read replays: the line shows the member's first entries only.
    pub truncated: bool,
}

/// The top of a period's public ranking and each one's points through the period (kept for a
/// few seconds per board and period: the board page is the most read).
#[server]
pub async fn read_leaders_chart(board: String, period: Option<String>) -> Result<LeadersChart, AppError> {
    let scope = super::scope(board, period.as_deref()).await?;
    let chart = super::engine()?.leaders_chart(&scope).await?;
    Ok(LeadersChart {
        period: chart.period,
        from: chart.from,
        until: chart.until,
        zone: scope.board().time_zone().to_owned(),
        read_at: chart.read_at,
        frozen_at: chart.frozen_at,
        sort: chart.sort,
        leaders: chart
            .leaders
            .iter()
            .map(|l| LeaderLine {
                standing: l.standing.clone(),
                steps: l.steps.iter().map(|s| (s.at, s.points)).collect(),
                truncated: l.truncated,
            })
            .collect(),
    })
}
