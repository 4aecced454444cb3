//! The charts' server functions: a member's history (the member page), a period's distribution,
//! its leaders' points over the period and the board's past periods (the board page); and the
//! period's segments: each dimension's values (the board page's switcher) and a member's rank in
//! each segment it holds (the member page). Public reads, like the rankings they chart, each
//! listed by name with its reason in the server's registry of public functions.

use crate::error::AppError;
use domain::view::{Distribution, Entry, MemberHistory, MemberSegment, PeriodResult, SegmentValues};
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
    Ok(super::engine()?.reads().member_history(&super::scope(board, Some(&period)).await?, &member).await?)
}

/// A period's distribution of points, with "me" in it when this browser opened a signed link.
#[server]
pub async fn read_ranking_distribution(
    board: String,
    period: Option<String>,
) -> Result<Distribution, AppError> {
    let me = super::contestant::read_me().await?.map(super::member_id).transpose()?;
    let engine = super::engine()?;
    Ok(engine.reads().distribution(&super::scope(board, period.as_deref()).await?, me.as_ref()).await?)
}

/// The board's last periods, newest first, with their states and winners (or leaders).
#[server]
pub async fn read_periods_with_winners(board: String) -> Result<Vec<PeriodResult>, AppError> {
    Ok(super::engine()?.reads().period_results(&super::board_slug(board)?).await?)
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
    let chart = super::engine()?.reads().leaders_chart(&scope).await?;
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

/// What the public may see of a period's segments: `Open` with what was read, or `Frozen` while
/// the period is publicly frozen (segments have no frozen view: they open at the reveal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Segments<T> {
    Open(T),
    Frozen,
}

/// The public's answer, or `Frozen` for the engine's `segment_frozen`.
#[cfg(feature = "ssr")]
fn unless_frozen<T>(read: Result<T, engine::EngineError>) -> Result<Segments<T>, AppError> {
    match read {
        Ok(found) => Ok(Segments::Open(found)),
        Err(engine::EngineError::Refused { code: domain::ErrorCode::SegmentFrozen, .. }) => {
            Ok(Segments::Frozen)
        }
        Err(e) => Err(e.into()),
    }
}

/// Each dimension the board declares, in its order, with its values in the period (at most 100
/// each, with member counts and leaders): the board page's segment switcher. Empty for a board
/// without segments. A `segment` the page shows is checked first (a malformed or undeclared one
/// is refused, frozen or not).
#[server]
pub async fn read_segment_values(
    board: String,
    period: Option<String>,
    segment: Option<String>,
) -> Result<Segments<Vec<SegmentValues>>, AppError> {
    let engine = super::engine()?;
    let scope = super::scope(board, period.as_deref()).await?;
    scope.clone().in_segment(segment.as_deref())?;
    let mut dimensions = Vec::with_capacity(scope.board().segments.len());
    for dimension in &scope.board().segments {
        match unless_frozen(engine.reads().segment_values(engine::Viewer::Public, &scope, dimension).await)? {
            Segments::Open(values) => dimensions.push(values),
            Segments::Frozen => return Ok(Segments::Frozen),
        }
    }
    Ok(Segments::Open(dimensions))
}

/// A member's rank, points and the segment's member count in each segment it holds in the period
/// (the member page). A hidden member is not found.
#[server]
pub async fn read_member_segments(
    board: String,
    period: String,
    member: String,
) -> Result<Segments<Vec<MemberSegment>>, AppError> {
    let member = super::member_id(member)?;
    let scope = super::scope(board, Some(&period)).await?;
    unless_frozen(super::engine()?.reads().member_segments(&scope, &member).await)
}

/// "Why this season total" on a season board's member page: what each period gave the member,
/// as the public sees those periods. None on any other board.
#[server]
pub async fn read_member_season(
    board: String,
    period: String,
    member: String,
) -> Result<Option<domain::season::MemberSeason>, AppError> {
    let member = super::member_id(member)?;
    let scope = super::scope(board, Some(&period)).await?;
    if scope.board().season.is_none() {
        return Ok(None);
    }
    Ok(Some(super::engine()?.seasons().member_season(engine::Viewer::Public, &scope, &member).await?))
}

/// "Why this season total" for the first rows a season's board page shows (at most
/// [`domain::season::SEASON_ROWS`]; None on other boards): one read of the ranks of those members
/// per period and one in the season.
#[server]
pub async fn read_season_rows(
    board: String,
    period: String,
    members: Vec<String>,
) -> Result<Option<Vec<domain::season::MemberSeason>>, AppError> {
    let members = members.into_iter().map(super::member_id).collect::<Result<Vec<_>, _>>()?;
    let scope = super::scope(board, Some(&period)).await?;
    if scope.board().season.is_none() {
        return Ok(None);
    }
    Ok(Some(super::engine()?.seasons().season_rows(&scope, &members).await?))
}
