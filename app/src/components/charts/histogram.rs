//! A period's distribution of points: one bar per range of points (round numbers, equal widths),
//! its height the number of members in it, and "you are here" on the bar of "me".

use super::{Frame, YAxis, compact, coord, grouped, ticks};
use domain::Unit;
use domain::view::{Entry, PointsBin};
use leptos::prelude::*;

/// A range of points in words ("10–19", or "10" when it holds one value), in the board's unit.
fn range(bin: &PointsBin, unit: Unit) -> String {
    let last = bin.to - 1;
    let shown = |p| domain::format::points(p, unit, crate::i18n::locale());
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
    if bins.is_empty() {
        return view! { <p class="empty" data-testid="histogram-empty">{format!("Nobody had points in {period} when this page was loaded; reload to chart the points since.")}</p> }
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
        (Some(m), Some(i)) => {
            format!(
                " You ({}, rank {}) are in the range {}.",
                crate::i18n::Say::labelled(crate::i18n::locale(), m.points, unit),
                m.rank,
                range(&bins[i], unit)
            )
        }
        _ => String::new(),
    };
    let label = format!(
        "Distribution of points in {period}: {} members in {} ranges of points from {} to {}.{you}",
        grouped(members as i64),
        bins.len(),
        domain::format::points(bins[0].from, unit, crate::i18n::locale()),
        domain::format::points(bins.last().expect("a bin").to - 1, unit, crate::i18n::locale()),
    );
    let bars = bins
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let left = frame.left() + i as f64 * width;
            let top = y.at(b.members as f64);
            let is_me = mine == Some(i);
            let tip = match unit {
                Unit::Points => format!("{} points: {} members", range(b, unit), grouped(b.members as i64)),
                Unit::Ms => format!("{}: {} members", range(b, unit), grouped(b.members as i64)),
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
                        <text class="you" x=coord(centre) y=coord(top - 16.0) text-anchor=anchor>"you are here"</text>
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
                    <td>{range(b, unit)}</td>
                    <td class="num">{grouped(b.members as i64)}</td>
                    <td>{(mine == Some(i)).then_some("you are here")}</td>
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
                <summary>"The chart's numbers"</summary>
                <table class="entries">
                    <caption class="visually-hidden">"Members by range of points"</caption>
                    <thead>
                        <tr><th scope="col">"Points"</th><th scope="col">"Members"</th><th scope="col">"Note"</th></tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        </figure>
    }
    .into_any()
}
