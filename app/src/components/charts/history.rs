//! A member's rank in the board's last periods: a small chart (rank 1 at the top, oldest period
//! on the left; a period without points marked on the floor) and the list it draws, each period
//! linking to the member's page of that period.

use super::{Frame, YAxis, coord, ticks};
use crate::i18n::{Locale, Say, tr};
use domain::PeriodKey;
use domain::view::PeriodStanding;
use leptos::prelude::*;

/// A period's standing in words, its points in the board's unit.
fn said(l: Locale, p: &PeriodStanding, unit: domain::Unit) -> String {
    match (p.rank, p.points) {
        (Some(rank), Some(points)) => tr!(
            l,
            "chart-history-standing",
            rank = rank.to_string(),
            members = l.number(p.members as i64),
            points = l.labelled(points, unit),
        ),
        _ => tr!(l, "chart-history-no-points"),
    }
}

/// The chart and the list of periods (given newest first).
#[component]
pub fn RankHistory(
    periods: Vec<PeriodStanding>,
    board: String,
    member: String,
    current: PeriodKey,
    /// The board's unit: `ms` points read as times.
    #[prop(default = domain::Unit::Points)]
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let frame = Frame::SMALL;
    let oldest_first: Vec<&PeriodStanding> = periods.iter().rev().collect();
    let worst = periods.iter().filter_map(|p| p.rank).max().unwrap_or(1).max(2);
    let marks: Vec<i64> = ticks(1, worst as i64, 3).into_iter().map(|t| t.max(1)).collect::<Vec<_>>();
    let mut marks = marks;
    marks.dedup();
    let bottom = (*marks.last().expect("a tick") as u64).max(worst);
    let y = frame.y((bottom as f64, 1.0));
    let x = frame.x((0.0, oldest_first.len().saturating_sub(1) as f64));
    let at = |i: usize| {
        if oldest_first.len() == 1 { (frame.left() + frame.right()) / 2.0 } else { x.at(i as f64) }
    };
    // The line joins consecutive periods with a rank; a period without points breaks it.
    let mut path = String::new();
    let mut joined = false;
    for (i, p) in oldest_first.iter().enumerate() {
        match p.rank {
            Some(rank) => {
                path.push_str(&format!(
                    "{}{} {} ",
                    if joined { "L" } else { "M" },
                    coord(at(i)),
                    coord(y.at(rank as f64))
                ));
                joined = true;
            }
            None => joined = false,
        }
    }
    let dots = oldest_first
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let tip = tr!(
                l,
                "chart-history-tip",
                period = p.period.to_string(),
                state = l.state(p.state),
                standing = said(l, p, unit),
            );
            let now = p.period == current;
            match p.rank {
                Some(rank) => view! {
                    <circle class="dot" class:current=now cx=coord(at(i)) cy=coord(y.at(rank as f64)) r=if now { "5" } else { "3.5" }>
                        <title>{tip}</title>
                    </circle>
                }
                .into_any(),
                None => view! {
                    <text class="missing" x=coord(at(i)) y=coord(frame.bottom() - 2.0) text-anchor="middle">"–"<title>{tip}</title></text>
                }
                .into_any(),
            }
        })
        .collect_view();
    let label = tr!(
        l,
        "chart-history-label",
        member = member.clone(),
        count = oldest_first.len().to_string(),
        periods = oldest_first
            .iter()
            .map(|p| tr!(l, "chart-history-item", period = p.period.to_string(), standing = said(l, p, unit)))
            .collect::<Vec<_>>()
            .join(&tr!(l, "chart-history-separator")),
    );
    let (first, last) = (
        oldest_first.first().map(|p| p.period.to_string()).unwrap_or_default(),
        oldest_first.last().map(|p| p.period.to_string()).unwrap_or_default(),
    );
    let items = periods
        .iter()
        .map(|p| {
            let href = format!("/b/{board}/{}/m/{member}", p.period);
            let now = p.period == current;
            view! {
                <li data-period=p.period.to_string()>
                    <a href=href aria-current=now.then_some("page")>{p.period.to_string()}</a>
                    " " <span class=format!("state state-{}", p.state)>{l.state(p.state)}</span>
                    {format!(" {}", said(l, p, unit))}
                </li>
            }
        })
        .collect_view();
    let aria = label.clone();
    view! {
        <div class="rank-history">
            <figure class="chart history-chart" data-testid="rank-history">
                <svg viewBox=frame.view_box() role="img" aria-label=aria preserveAspectRatio="xMidYMid meet">
                    <title>{label.clone()}</title>
                    <YAxis frame y ticks=marks/>
                    <path class="line" d=path></path>
                    {dots}
                    <g class="axis">
                        <text x=coord(frame.left()) y=coord(frame.height - 6.0)>{first}</text>
                        <text x=coord(frame.right()) y=coord(frame.height - 6.0) text-anchor="end">{last}</text>
                    </g>
                </svg>
                <figcaption>{tr!(l, "chart-history-caption")}</figcaption>
            </figure>
            <ol class="period-history" data-testid="period-history" aria-label=tr!(l, "chart-history-list")>
                {items}
            </ol>
        </div>
    }
}
