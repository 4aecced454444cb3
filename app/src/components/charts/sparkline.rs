//! A sparkline: a small line of counts over equal steps (a board's entries per hour), with no
//! axes — the numbers are in its text alternative: the sentence the SVG is labelled with, and a
//! visually hidden table of every step, which screen readers and text browsers read.

use super::{Frame, coord};
use crate::i18n::tr;
use leptos::prelude::*;

/// The sparkline's drawing area: wide and low, with room for the last point's dot.
const FRAME: Frame = Frame { width: 240.0, height: 48.0, margin: (2.0, 5.0, 5.0, 3.0) };

/// The line's points and the area under it, in `viewBox` units (a single value is a flat line).
fn shapes(values: &[u64]) -> (String, String, (f64, f64)) {
    let max = values.iter().copied().max().unwrap_or(0).max(1) as f64;
    let last = values.len().saturating_sub(1).max(1) as f64;
    let (x, y) = (FRAME.x((0.0, last)), FRAME.y((0.0, max)));
    let mut points: Vec<(f64, f64)> =
        values.iter().enumerate().map(|(i, v)| (x.at(i as f64), y.at(*v as f64))).collect();
    if points.len() == 1 {
        points.push((FRAME.right(), points[0].1));
    }
    let line = points.iter().map(|(px, py)| format!("{},{}", coord(*px), coord(*py))).collect::<Vec<_>>();
    let (first_x, last_x) =
        (points.first().map_or(FRAME.left(), |p| p.0), points.last().map_or(FRAME.right(), |p| p.0));
    let area = format!(
        "{},{} {} {},{}",
        coord(first_x),
        coord(FRAME.bottom()),
        line.join(" "),
        coord(last_x),
        coord(FRAME.bottom())
    );
    (line.join(" "), area, points.last().copied().unwrap_or((FRAME.right(), FRAME.bottom())))
}

/// Counts over equal steps as a line. `label` says what it shows in a sentence (the SVG's title
/// and accessible name); `steps` names each step for the table of numbers (`caption`).
#[component]
pub fn Sparkline(values: Vec<u64>, label: String, steps: Vec<String>, caption: String) -> impl IntoView {
    let l = crate::i18n::locale();
    let (line, area, (dot_x, dot_y)) = shapes(&values);
    let name = label.clone();
    view! {
        <figure class="sparkline">
            <svg viewBox=FRAME.view_box() role="img" aria-label=name focusable="false">
                <title>{label}</title>
                <polygon class="spark-area" points=area/>
                <polyline class="spark-line" points=line fill="none"/>
                <circle class="spark-dot" cx=coord(dot_x) cy=coord(dot_y) r="3"/>
            </svg>
            // In a box of its own: a table grows to its content, whatever width it is given.
            <div class="visually-hidden">
                <table>
                    <caption>{caption}</caption>
                    <thead><tr><th scope="col">{tr!(l, "chart-sparkline-hour")}</th><th scope="col">{tr!(l, "chart-sparkline-count")}</th></tr></thead>
                    <tbody>
                        {steps.into_iter().zip(values).map(|(step, v)| view! {
                            <tr><th scope="row">{step}</th><td>{v}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_spans_the_frame_and_the_highest_count_reaches_the_top() {
        let (line, area, dot) = shapes(&[0, 4, 2]);
        assert_eq!(line, "2,45 118.5,5 235,25");
        assert_eq!(area, "2,45 2,45 118.5,5 235,25 235,45");
        assert_eq!(dot, (235.0, 25.0));
        // No activity: a flat line on the bottom, never a division by zero.
        let (line, _, _) = shapes(&[0, 0]);
        assert_eq!(line, "2,45 235,45");
        let (line, _, _) = shapes(&[7]);
        assert_eq!(line, "2,5 235,5");
    }
}
