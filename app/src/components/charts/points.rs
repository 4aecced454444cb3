//! A member's points through a period: a step line of the total after each entry, by when it
//! happened (a correction or revocation: when it was made), across the period, with corrections,
//! revocations and revoked entries marked. The axis is the period, in the board's zone: a change
//! made after the period's end (a correction after settlement) is drawn at its end, and the
//! table says when it was made.

use super::{Frame, Scale, TimeAxis, YAxis, coord, ticks};
use crate::i18n::{Clock, Locale, Say, tr};
use domain::view::PointStep;
use leptos::prelude::*;

/// How many steps the chart's table lists (the newest; the line shows them all).
const LISTED: usize = 50;

/// What a step is, in the chart's words.
fn what(l: Locale, step: &PointStep, before: i64, unit: domain::Unit) -> String {
    let change = step.points - before;
    let sign = if change < 0 { "−" } else { "+" };
    let moved = if change == 0 {
        tr!(l, "chart-points-no-change")
    } else {
        format!("{sign}{}", l.points(change.saturating_abs(), unit))
    };
    let kind = match step.kind.as_str() {
        "point" => tr!(l, "chart-points-kind-point"),
        "total" => tr!(l, "chart-points-kind-total"),
        "submission" => tr!(l, "chart-points-kind-submission"),
        "correction" => tr!(l, "chart-points-kind-correction"),
        "revocation" => tr!(l, "chart-points-kind-revocation"),
        other => other.to_owned(),
    };
    if step.revoked {
        tr!(l, "chart-points-step-revoked", kind = kind, moved = moved)
    } else {
        tr!(l, "chart-points-step", kind = kind, moved = moved)
    }
}

/// The chart and, below it, its numbers as text.
#[component]
pub fn PointsChart(
    steps: Vec<PointStep>,
    who: String,
    period: String,
    truncated: bool,
    /// The time axis: the period's start and end.
    span: (jiff::Timestamp, jiff::Timestamp),
    /// The board's time zone, the times' zone.
    zone: String,
    /// The board's unit: `ms` totals read as times.
    #[prop(default = domain::Unit::Points)]
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    if steps.is_empty() {
        return view! { <p class="empty" data-testid="points-chart-empty">{tr!(l, "chart-points-empty", period = period)}</p> }
            .into_any();
    }
    let frame = Frame::WIDE;
    let last = steps.last().map_or(0, |s| s.points);
    let low = steps.iter().map(|s| s.points).min().unwrap_or(0).min(0);
    let high = steps.iter().map(|s| s.points).max().unwrap_or(0).max(1);
    let marks = ticks(low, high, 4);
    let y = frame.y((marks[0] as f64, *marks.last().expect("a tick") as f64));
    let seconds = |at: jiff::Timestamp| at.as_millisecond() as f64 / 1000.0;
    let (from, until) = span;
    let (start, end) = (seconds(from), seconds(until));
    let x = frame.x((start, end));
    // On the axis: a change outside the period sits at its edge.
    let along = |at: jiff::Timestamp| x.at(seconds(at.clamp(from, until)));
    // A step line from 0 before the first entry: across to each entry, then up or down to its
    // total. It stops at the last entry: what comes after has not happened yet (or is not public).
    let mut path = format!("M{} {}", coord(frame.left()), coord(y.at(0.0)));
    for s in &steps {
        path.push_str(&format!(" H{} V{}", coord(along(s.at)), coord(y.at(s.points as f64))));
    }
    let count = |kind: &str| steps.iter().filter(|s| s.kind == kind).count();
    let (corrections, revocations) = (count("correction"), count("revocation"));
    let revoked = steps.iter().filter(|s| s.revoked).count();
    let label = tr!(
        l,
        "chart-points-label",
        who = who,
        period = period,
        last = l.points(last, unit),
        entries = steps.len().to_string(),
        truncated = if truncated { tr!(l, "chart-points-truncated") } else { String::new() },
        corrections = corrections.to_string(),
        revocations = revocations.to_string(),
        revoked = revoked.to_string(),
    );
    let time = |at: jiff::Timestamp| l.time(at, &zone, Clock::Short);
    let marks_view = step_marks(l, &steps, unit, &along, y, &time);
    let (first_time, last_time) = (time(from), time(until));
    let aria = label.clone();
    view! {
        <figure class="chart points-chart" data-testid="points-chart">
            <svg viewBox=frame.view_box() role="img" aria-label=aria preserveAspectRatio="xMidYMid meet">
                <title>{label.clone()}</title>
                <YAxis frame y ticks=marks/>
                <path class="line" d=path></path>
                {marks_view}
                <TimeAxis frame first=first_time last=last_time/>
            </svg>
            <figcaption>
                {label}
                <span class="legend" aria-hidden="true">
                    " " <span class="key correction">{tr!(l, "chart-points-legend-correction")}</span>
                    " " <span class="key revocation">{tr!(l, "chart-points-legend-revocation")}</span>
                    " " <span class="key revoked">{tr!(l, "chart-points-legend-revoked")}</span>
                </span>
            </figcaption>
            {steps_table(l, &steps, &zone, unit)}
        </figure>
    }
    .into_any()
}

/// The marks on the line: corrections, revocations and revoked entries, each with its tooltip
/// (when, what it did, the total after). `along` places an instant on the time axis, `time` says
/// it.
fn step_marks(
    l: Locale,
    steps: &[PointStep],
    unit: domain::Unit,
    along: &dyn Fn(jiff::Timestamp) -> f64,
    y: Scale,
    time: &dyn Fn(jiff::Timestamp) -> String,
) -> impl IntoView + use<> {
    steps
        .iter()
        .scan(0, |before, s| {
            let b = *before;
            *before = s.points;
            Some((s, b))
        })
        .filter(|(s, _)| s.revoked || s.kind == "correction" || s.kind == "revocation")
        .map(|(s, before)| {
            let (cx, cy) = (along(s.at), y.at(s.points as f64));
            let tip = tr!(
                l,
                "chart-points-tip",
                time = time(s.at),
                step = what(l, s, before, unit),
                points = l.labelled(s.points, unit),
            );
            match (s.kind.as_str(), s.revoked) {
                ("correction", _) => view! {
                    <path class="mark correction" d=format!("M{} {} l6 6 l-6 6 l-6 -6 z", coord(cx), coord(cy - 6.0))><title>{tip}</title></path>
                }
                .into_any(),
                ("revocation", _) => view! {
                    <path class="mark revocation" d=format!("M{} {} l10 10 m0 -10 l-10 10", coord(cx - 5.0), coord(cy - 5.0))><title>{tip}</title></path>
                }
                .into_any(),
                _ => view! {
                    <circle class="mark revoked" cx=coord(cx) cy=coord(cy) r="5"><title>{tip}</title></circle>
                }
                .into_any(),
            }
        })
        .collect_view()
}

/// The chart's numbers as a table: the newest `LISTED` steps, each with its time, what it did
/// and the total after it.
fn steps_table(l: Locale, steps: &[PointStep], zone: &str, unit: domain::Unit) -> impl IntoView + use<> {
    let mut rows: Vec<(PointStep, i64)> = Vec::with_capacity(steps.len());
    let mut before = 0;
    for s in steps {
        rows.push((s.clone(), before));
        before = s.points;
    }
    let listed = rows.len().min(LISTED);
    let rows_view = rows
        .iter()
        .rev()
        .take(LISTED)
        .map(|(s, before)| {
            view! {
                <tr class:revoked=s.revoked>
                    <td>{l.time(s.at, zone, Clock::Second)}</td>
                    <td>{what(l, s, *before, unit)}</td>
                    <td class="num">{l.points(s.points, unit)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <details class="chart-data">
            <summary>{tr!(l, "chart-points-numbers", listed = listed.to_string(), steps = rows.len().to_string())}</summary>
            <table class="entries">
                <caption class="visually-hidden">{tr!(l, "chart-points-caption", zone = zone.to_owned())}</caption>
                <thead>
                    <tr>
                        <th scope="col">{tr!(l, "chart-points-when", zone = zone.to_owned())}</th>
                        <th scope="col">{tr!(l, "chart-points-entry")}</th>
                        <th scope="col">{tr!(l, "chart-points-after")}</th>
                    </tr>
                </thead>
                <tbody>{rows_view}</tbody>
            </table>
        </details>
    }
}
