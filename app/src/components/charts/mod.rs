//! Charts: small SVG components of our own, rendered on the server like every other piece of a
//! page, so they show without JavaScript and in the SSR HTML, and hydrate as plain markup. (A
//! charting crate would draw in the browser or add to both bundles what these few shapes need.)
//!
//! Each chart is a `<figure>`: an `<svg role="img">` with a `<title>` and an `aria-label` that
//! say what it shows in a sentence, scaled by its `viewBox` to the width it is given (readable at
//! 390 px), and the same numbers as text in its caption or a list beside it. This module holds
//! what the charts share: linear scales, "nice" axis ticks, number formatting and the frame.

pub mod histogram;
pub mod history;
pub mod leaders;
pub mod points;
pub mod sparkline;

use leptos::prelude::*;

/// The drawing area of a chart in `viewBox` units: the SVG scales it to the width it is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub width: f64,
    pub height: f64,
    /// Room for the axis labels: left, right, top, bottom.
    pub margin: (f64, f64, f64, f64),
}

impl Frame {
    /// The frame of a full-width chart: the stylesheet caps its width (36rem), so its 15-unit
    /// text reads as 11–18 px from a 390 px phone to a desktop.
    pub const WIDE: Frame = Frame { width: 480.0, height: 200.0, margin: (44.0, 12.0, 12.0, 26.0) };
    /// The frame of a small chart beside a list.
    pub const SMALL: Frame = Frame { width: 320.0, height: 140.0, margin: (36.0, 10.0, 12.0, 26.0) };

    /// The `viewBox` attribute of the SVG.
    pub fn view_box(&self) -> String {
        format!("0 0 {} {}", self.width, self.height)
    }

    pub fn left(&self) -> f64 {
        self.margin.0
    }

    pub fn right(&self) -> f64 {
        self.width - self.margin.1
    }

    pub fn top(&self) -> f64 {
        self.margin.2
    }

    pub fn bottom(&self) -> f64 {
        self.height - self.margin.3
    }

    /// The horizontal scale of `domain` over the plot area.
    pub fn x(&self, domain: (f64, f64)) -> Scale {
        Scale::new(domain, (self.left(), self.right()))
    }

    /// The vertical scale of `domain` over the plot area, higher values up.
    pub fn y(&self, domain: (f64, f64)) -> Scale {
        Scale::new(domain, (self.bottom(), self.top()))
    }
}

/// A linear map from a domain of values to a range of `viewBox` units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    domain: (f64, f64),
    range: (f64, f64),
}

impl Scale {
    /// An empty domain (one value) maps to the middle of the range.
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        Scale { domain, range }
    }

    pub fn at(&self, value: f64) -> f64 {
        let (d0, d1) = self.domain;
        let (r0, r1) = self.range;
        if (d1 - d0).abs() < f64::EPSILON {
            return (r0 + r1) / 2.0;
        }
        r0 + (value - d0) / (d1 - d0) * (r1 - r0)
    }
}

/// Axis ticks for whole numbers from `min` to `max`: about `count` values on a step of 1, 2 or 5
/// times a power of ten, covering both ends (the first at or below `min`, the last at or above
/// `max`).
pub fn ticks(min: i64, max: i64, count: u32) -> Vec<i64> {
    let (min, max) = if min <= max { (min, max) } else { (max, min) };
    let step = nice_step(max.saturating_sub(min), count);
    let first = min.div_euclid(step) * step;
    let mut out = vec![first];
    while *out.last().expect("one") < max {
        let next = out.last().expect("one").saturating_add(step);
        if next == *out.last().expect("one") {
            break;
        }
        out.push(next);
    }
    out
}

/// A step of 1, 2 or 5 times a power of ten that cuts `span` into about `count` parts.
pub fn nice_step(span: i64, count: u32) -> i64 {
    let raw = (span.max(1) as f64 / f64::from(count.max(1))).max(1.0);
    let power = 10f64.powi(raw.log10().floor() as i32);
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(raw);
    (step as i64).max(1)
}

/// A number with thin groups of three digits ("12 345"), as the text beside a chart says it: the
/// domain's formatter (`domain::format`), so counts and points read alike everywhere.
/// A count grouped as the reader's locale writes it.
pub fn grouped(n: i64) -> String {
    domain::format::grouped(n, crate::i18n::locale())
}

/// A short axis label: "950", "12k", "3.5M" (an axis has room for a few characters).
pub fn compact(n: i64) -> String {
    let sign = if n < 0 { "−" } else { "" };
    let a = n.unsigned_abs() as f64;
    let (value, unit) = match a {
        a if a >= 1e12 => (a / 1e12, "T"),
        a if a >= 1e9 => (a / 1e9, "G"),
        a if a >= 1e6 => (a / 1e6, "M"),
        a if a >= 1e4 => (a / 1e3, "k"),
        a => return format!("{sign}{a}"),
    };
    let text = if value < 10.0 { format!("{value:.1}") } else { format!("{value:.0}") };
    format!("{sign}{}{unit}", text.trim_end_matches(".0"))
}

/// A coordinate as the SVG gets it: one decimal is finer than a pixel at any width.
pub fn coord(v: f64) -> String {
    let text = format!("{v:.1}");
    text.strip_suffix(".0").map(str::to_owned).unwrap_or(text)
}

/// The time under a chart's span: its first instant's words at the left end, its last's at the
/// right.
#[component]
pub fn TimeAxis(frame: Frame, first: String, last: String) -> impl IntoView {
    let y = coord(frame.height - 6.0);
    view! {
        <g class="axis">
            <text x=coord(frame.left()) y=y.clone()>{first}</text>
            <text x=coord(frame.right()) y=y text-anchor="end">{last}</text>
        </g>
    }
}

/// Horizontal grid lines at `ticks` of the vertical scale `y`, labelled on the left. (Inside an
/// `svg role="img"`: the chart's label and text say the numbers.)
#[component]
pub fn YAxis(frame: Frame, y: Scale, ticks: Vec<i64>) -> impl IntoView {
    let (left, right) = (coord(frame.left()), coord(frame.right()));
    view! {
        <g class="axis">
            {ticks
                .into_iter()
                .map(|t| {
                    let at = coord(y.at(t as f64));
                    view! {
                        <line x1=left.clone() x2=right.clone() y1=at.clone() y2=at.clone()></line>
                        <text x=coord(frame.left() - 5.0) y=at dy="0.35em" text-anchor="end">{compact(t)}</text>
                    }
                })
                .collect_view()}
        </g>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_range_on_nice_steps() {
        assert_eq!(ticks(0, 10, 5), vec![0, 2, 4, 6, 8, 10]);
        assert_eq!(ticks(3, 97, 4), vec![0, 50, 100]);
        assert_eq!(ticks(-7, 7, 2), vec![-10, 0, 10]);
        assert_eq!(ticks(5, 5, 4), vec![5]);
        assert!(ticks(0, i64::MAX, 4).len() <= 6);
    }

    #[test]
    fn numbers_read_as_words() {
        assert_eq!(grouped(1234567), "1\u{202f}234\u{202f}567");
        assert_eq!(grouped(-12), "−12");
        assert_eq!(compact(950), "950");
        assert_eq!(compact(12_400), "12k");
        assert_eq!(compact(3_500_000), "3.5M");
        assert_eq!(compact(-2_000_000), "−2M");
        assert_eq!(coord(12.0), "12");
        assert_eq!(coord(12.345), "12.3");
    }

    #[test]
    fn scales_map_linearly_and_centre_an_empty_domain() {
        let s = Scale::new((0.0, 10.0), (100.0, 0.0));
        assert_eq!(s.at(5.0), 50.0);
        assert_eq!(Scale::new((3.0, 3.0), (0.0, 10.0)).at(3.0), 5.0);
    }
}
