//! A period's distribution of points: one bar per range of points (round numbers, equal widths),
//! its height the number of members in it, and "you are here" on the bar of "me".

use super::{Frame, YAxis, compact, coord, ticks};
use crate::i18n::{Locale, Say, tr};
use domain::Unit;
use domain::view::{Entry, PointsBin};
use leptos::prelude::*;

/// A range of points in words ("10–19", or "10" when it holds one value), in the board's unit.
fn range(l: Locale, bin: &PointsBin, unit: Unit) -> String {
    let last = bin.to - 1;
    let shown = |p| l.points(p, unit);
    if last == bin.from { shown(bin.from) } else { format!("{}–{}", shown(bin.from), shown(last)) }
}

/// The chart and its numbers as a table.
#[component]
pub fn Histogram(
    bins: Vec<PointsBin>,
    me: Option<Entry>,
    period: String,
    /// The board's unit: `ms` ranges read as times.
    #[prop(default = Unit::Points)]
    unit: Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    if bins.is_empty() {
        return view! { <p class="empty" data-testid="histogram-empty">{tr!(l, "chart-histogram-empty", period = period)}</p> }
            .into_any();
    }
    let frame = Frame::WIDE;
    let members: u64 = bins.iter().map(|b| b.members).sum();
    let most = bins.iter().map(|b| b.members).max().unwrap_or(0).max(1);
    // A quarter more than the highest bar: room above it for "you are here".
    let marks = ticks(0, most as i64 + most as i64 / 4 + 1, 4);
    let y = frame.y((0.0, *marks.last().expect("a tick") as f64));
    let width = (frame.right() - frame.left()) / bins.len() as f64;
    let mine = me.as_ref().and_then(|m| bins.iter().position(|b| b.from <= m.points && m.points < b.to));
    let every = bins.len().div_ceil(6);
    let you = match (&me, mine) {
        (Some(m), Some(i)) => tr!(
            l,
            "chart-histogram-you",
            points = l.labelled(m.points, unit),
            rank = m.rank.to_string(),
            range = range(l, &bins[i], unit),
        ),
        _ => String::new(),
    };
    let label = tr!(
        l,
        "chart-histogram-label",
        period = period,
        members = l.number(members as i64),
        ranges = bins.len().to_string(),
        from = l.points(bins[0].from, unit),
        to = l.points(bins.last().expect("a bin").to - 1, unit),
        you = you,
    );
    let bars = bins
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let left = frame.left() + i as f64 * width;
            let top = y.at(b.members as f64);
            let is_me = mine == Some(i);
            let (span, members) = (range(l, b, unit), l.number(b.members as i64));
            let tip = match unit {
                Unit::Points => tr!(l, "chart-histogram-tip-points", range = span, members = members),
                Unit::Ms => tr!(l, "chart-histogram-tip-time", range = span, members = members),
            };
            view! {
                <rect class="bar" class:me=is_me x=coord(left + 1.0) y=coord(top) width=coord((width - 2.0).max(1.0)) height=coord(frame.bottom() - top)>
                    <title>{tip}</title>
                </rect>
                {(i % every == 0).then(|| view! {
                    <text class="axis" x=coord(left + 1.0) y=coord(frame.height - 6.0)>{compact(b.from)}</text>
                })}
                {is_me.then(|| {
                    let centre = left + width / 2.0;
                    let anchor = if centre > frame.width * 0.75 { "end" } else if centre < frame.width * 0.25 { "start" } else { "middle" };
                    view! {
                        <path class="you" d=format!("M{} {} l-6 -9 h12 z", coord(centre), coord(top - 3.0))></path>
                        <text class="you" x=coord(centre) y=coord(top - 16.0) text-anchor=anchor>{tr!(l, "chart-you-are-here")}</text>
                    }
                })}
            }
        })
        .collect_view();
    let rows = bins
        .iter()
        .enumerate()
        .map(|(i, b)| {
            view! {
                <tr class:me=mine == Some(i)>
                    <td>{range(l, b, unit)}</td>
                    <td class="num">{l.number(b.members as i64)}</td>
                    <td>{(mine == Some(i)).then(|| tr!(l, "chart-you-are-here"))}</td>
                </tr>
            }
        })
        .collect_view();
    let aria = label.clone();
    view! {
        <figure class="chart histogram" data-testid="histogram">
            <svg viewBox=frame.view_box() role="img" aria-label=aria preserveAspectRatio="xMidYMid meet">
                <title>{label.clone()}</title>
                <YAxis frame y ticks=marks/>
                {bars}
            </svg>
            <figcaption>{label}</figcaption>
            <details class="chart-data">
                <summary>{tr!(l, "chart-numbers")}</summary>
                <table class="entries">
                    <caption class="visually-hidden">{tr!(l, "chart-histogram-caption")}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{tr!(l, "chart-histogram-points")}</th>
                            <th scope="col">{tr!(l, "chart-histogram-members")}</th>
                            <th scope="col">{tr!(l, "chart-histogram-note")}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        </figure>
    }
    .into_any()
}
