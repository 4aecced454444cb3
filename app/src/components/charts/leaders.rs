//! The leaders' race on the board page: the top of a period's public ranking, one step line each
//! of their points through the period, as `api::history::read_leaders_chart` reads them (the
//! member page's replay of each one's entries, thinned to what the chart can draw). The axis is
//! the period from its start to now (or its end, once over), in the board's zone; during a public
//! freeze it ends at the freeze, so the chart is the one the freeze's moment drew: like the rest
//! of the page, it says nothing during a freeze but the banner does (no mark, no words: the
//! public-freeze test in `server/src/rest/tests.rs` holds every page byte for byte).
//!
//! Five lines must be told apart by anyone: each has its colour (the Okabe–Ito palette, a lighter
//! shade in the dark scheme: `style/main.css`, `--leader-N`), its dash pattern and the shape of
//! the mark at its end, repeated in the key below the chart with the member's name. The table in
//! the chart's `<details>` says the same numbers for screen readers.

use super::{Frame, Scale, TimeAxis, YAxis, coord, ticks};
use crate::api::history::{LeaderLine, LeadersChart};
use crate::i18n::{Clock, Locale, Say, tr};
use domain::Sort;
use leptos::prelude::*;

/// Each line's dash pattern, by place (the first is solid).
const DASHES: [&str; 5] = ["none", "9 4", "2 4", "12 4 3 4", "5 5"];

/// The mark at a line's end, by place: circle, square, triangle, diamond, cross (an SVG path
/// centred on `x`, `y`).
fn mark(place: usize, x: f64, y: f64) -> String {
    let (x, y) = (coord(x), coord(y));
    match place % DASHES.len() {
        0 => format!("M{x} {y} m-5 0 a5 5 0 1 0 10 0 a5 5 0 1 0 -10 0 z"),
        1 => format!("M{x} {y} m-4.5 -4.5 h9 v9 h-9 z"),
        2 => format!("M{x} {y} m0 -6 l5.5 9.5 h-11 z"),
        3 => format!("M{x} {y} m0 -6 l6 6 l-6 6 l-6 -6 z"),
        _ => format!("M{x} {y} m-4.5 -4.5 l9 9 m0 -9 l-9 9"),
    }
}

/// A line's colour, dash and mark, by place (`leader-1` … `leader-5`).
fn class_of(place: usize) -> String {
    format!("leader leader-{}", place % DASHES.len() + 1)
}

/// The leaders in a sentence: "bo (45 points), ada (35 points)".
fn in_words(l: Locale, chart: &LeadersChart, unit: domain::Unit) -> String {
    chart
        .leaders
        .iter()
        .map(|line| {
            tr!(
                l,
                "chart-leaders-item",
                name = line.standing.name().to_owned(),
                points = l.labelled(last_points(line), unit)
            )
        })
        .collect::<Vec<_>>()
        .join(&tr!(l, "chart-leaders-separator"))
}

/// Where a line ends: the points after its last step (its standing when it has none).
fn last_points(line: &LeaderLine) -> i64 {
    line.steps.last().map_or(line.standing.points, |(_, points)| *points)
}

/// The chart, its key and its numbers as a table.
#[component]
pub fn LeadersRace(
    chart: LeadersChart,
    /// The board's slug: the table links each leader to their member page.
    board: String,
    /// The board's unit: `ms` totals read as times.
    #[prop(default = domain::Unit::Points)]
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let period = chart.period.to_string();
    let zone = chart.zone.clone();
    if chart.leaders.is_empty() {
        return view! { <p class="empty" data-testid="leaders-chart-empty">{tr!(l, "chart-leaders-empty", period = period)}</p> }
            .into_any();
    }
    let frame = Frame::WIDE;
    // The axis and the lines run to now, or to the period's end once it is over, or to the public
    // freeze, after which the public sees nothing.
    let axis_end = [Some(chart.read_at), Some(chart.until), chart.frozen_at].into_iter().flatten().min();
    let axis_end = axis_end.expect("an end").max(chart.from);
    let points = chart
        .leaders
        .iter()
        .flat_map(|line| line.steps.iter().map(|(_, p)| *p).chain([line.standing.points]));
    let (low, high) = points.fold((i64::MAX, i64::MIN), |(lo, hi), p| (lo.min(p), hi.max(p)));
    // More points rank higher: the scale starts at 0, where every member starts.
    let low = if chart.sort == Sort::Desc { low.min(0) } else { low };
    let marks = ticks(low, high.max(low.saturating_add(1)), 4);
    let y = frame.y((marks[0] as f64, *marks.last().expect("a tick") as f64));
    let seconds = |at: jiff::Timestamp| at.as_millisecond() as f64 / 1000.0;
    let x = frame.x((seconds(chart.from), seconds(axis_end)));
    let along = |at: jiff::Timestamp| x.at(seconds(at.clamp(chart.from, axis_end)));
    let time = |at: jiff::Timestamp| l.time(at, &zone, Clock::Short);
    let truncated = chart.leaders.iter().any(|line| line.truncated);
    let label = tr!(
        l,
        "chart-leaders-label",
        count = chart.leaders.len(),
        period = period.clone(),
        leaders = in_words(l, &chart, unit),
        truncated = if truncated { tr!(l, "chart-leaders-truncated") } else { String::new() },
    );
    let lines = race_lines(l, &chart.leaders, unit, &along, y, along(axis_end));
    let (first_time, last_time) = (time(chart.from), time(axis_end));
    let aria = label.clone();
    view! {
        <figure class="chart leaders-chart" data-testid="leaders-chart">
            <svg viewBox=frame.view_box() role="img" aria-label=aria preserveAspectRatio="xMidYMid meet">
                <title>{label.clone()}</title>
                <YAxis frame y ticks=marks/>
                {lines}
                <TimeAxis frame first=first_time last=last_time/>
            </svg>
            <figcaption>
                {label}
                <ol class="leaders-key" aria-hidden="true">{race_key(&chart.leaders)}</ol>
            </figcaption>
            {leaders_table(l, &chart, &board, unit)}
        </figure>
    }
    .into_any()
}

/// Each leader's step line, from the last place up so the leader's is drawn on top: from the
/// member's first step (before it they were not on the board), across to each step, then up or
/// down to its points, then across to `end_x`, where the lines end; and the mark of its place
/// there. `along` places an instant on the time axis.
fn race_lines(
    l: Locale,
    leaders: &[LeaderLine],
    unit: domain::Unit,
    along: &dyn Fn(jiff::Timestamp) -> f64,
    y: Scale,
    end_x: f64,
) -> impl IntoView + use<> {
    leaders
        .iter()
        .enumerate()
        .rev()
        .map(|(place, line)| {
            let end = last_points(line);
            let path = line.steps.first().map(|(first, points)| {
                let mut d = format!("M{} {}", coord(along(*first)), coord(y.at(*points as f64)));
                for (at, points) in &line.steps[1..] {
                    d.push_str(&format!(" H{} V{}", coord(along(*at)), coord(y.at(*points as f64))));
                }
                d.push_str(&format!(" H{}", coord(end_x)));
                view! { <path class="race" d=d stroke-dasharray=DASHES[place % DASHES.len()]></path> }
            });
            let tip = tr!(
                l,
                "chart-leaders-tip",
                rank = line.standing.rank.to_string(),
                name = line.standing.name().to_owned(),
                points = l.labelled(end, unit),
            );
            view! {
                <g class=class_of(place) data-member=line.standing.member.to_string() data-points=end.to_string()>
                    <title>{tip}</title>
                    {path}
                    <path class="end" d=mark(place, end_x, y.at(end as f64))></path>
                </g>
            }
        })
        .collect_view()
}

/// The key below the chart: each leader's colour, dash and end mark beside their name.
fn race_key(leaders: &[LeaderLine]) -> impl IntoView + use<> {
    leaders
        .iter()
        .enumerate()
        .map(|(place, line)| {
            view! {
                <li>
                    <svg class=class_of(place) viewBox="0 0 34 14" width="34" height="14" aria-hidden="true">
                        <line class="race" x1="1" y1="7" x2="26" y2="7" stroke-dasharray=DASHES[place % DASHES.len()]></line>
                        <path class="end" d=mark(place, 27.0, 7.0)></path>
                    </svg>
                    {line.standing.name().to_owned()}
                </li>
            }
        })
        .collect_view()
}

/// The chart's numbers as a table, for screen readers and anyone who wants them: each leader
/// (a link to their member page), their points, how many changes and the last one's time.
fn leaders_table(l: Locale, chart: &LeadersChart, board: &str, unit: domain::Unit) -> impl IntoView + use<> {
    let (period, zone) = (chart.period.to_string(), &chart.zone);
    let rows = chart
        .leaders
        .iter()
        .map(|line| {
            let member = line.standing.member.to_string();
            let changed = line.steps.last().map(|(at, _)| l.time(*at, zone, Clock::Second));
            view! {
                <tr data-leader=member.clone()>
                    <td class="num">{line.standing.rank}</td>
                    <td><a href=format!("/b/{board}/{period}/m/{member}")>{line.standing.name().to_owned()}</a></td>
                    <td class="num">{l.points(last_points(line), unit)}</td>
                    <td class="num">{l.number(line.steps.len() as i64)}</td>
                    <td>{changed}</td>
                </tr>
            }
        })
        .collect_view();
    let points_heading = match unit {
        domain::Unit::Points => tr!(l, "ranking-points"),
        domain::Unit::Ms => tr!(l, "ranking-time"),
    };
    view! {
        <details class="chart-data">
            <summary>{tr!(l, "chart-numbers")}</summary>
            <table class="entries" data-testid="leaders-table">
                <caption class="visually-hidden">{tr!(l, "chart-leaders-caption", period = period.clone())}</caption>
                <thead>
                    <tr>
                        <th scope="col">{tr!(l, "ranking-rank")}</th>
                        <th scope="col">{tr!(l, "ranking-member")}</th>
                        <th scope="col">{points_heading}</th>
                        <th scope="col">{tr!(l, "chart-leaders-changes")}</th>
                        <th scope="col">{tr!(l, "chart-leaders-last-change", zone = zone.clone())}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::history::LeaderLine;
    use domain::view::Entry;

    fn at(minute: i64) -> jiff::Timestamp {
        jiff::Timestamp::from_second(1_800_000_000 + minute * 60).unwrap()
    }

    fn line(rank: u64, member: &str, steps: &[(i64, i64)]) -> LeaderLine {
        let points = steps.last().map_or(0, |s| s.1);
        LeaderLine {
            standing: Entry {
                rank,
                member: domain::MemberId::parse(member).unwrap(),
                points,
                display_name: (member == "ada").then(|| "Ada <L>".to_owned()),
                avatar_url: None,
                tied: false,
            },
            steps: steps.iter().map(|(m, p)| (at(*m), *p)).collect(),
            truncated: false,
        }
    }

    fn chart(leaders: Vec<LeaderLine>, frozen_at: Option<jiff::Timestamp>) -> LeadersChart {
        LeadersChart {
            period: domain::PeriodKey::parse("2027-W02").unwrap(),
            from: at(0),
            until: at(100),
            zone: "UTC".into(),
            read_at: at(60),
            frozen_at,
            sort: Sort::Desc,
            leaders,
        }
    }

    fn html(chart: LeadersChart) -> String {
        view! { <LeadersRace chart board="b".to_owned()/> }.to_html().replace("<!>", "")
    }

    /// The `d` of the line of `member`.
    fn path_of<'a>(html: &'a str, member: &str) -> &'a str {
        let group = html.split(&format!(r#"data-member="{member}""#)).nth(1).unwrap();
        group.split(r#"<path d=""#).nth(1).unwrap().split('"').next().unwrap()
    }

    #[test]
    fn each_leader_has_a_line_of_their_own_that_ends_at_their_points() {
        let leaders = vec![
            line(1, "bo", &[(10, 30), (40, 45)]),
            line(2, "ada", &[(5, 10), (20, 35)]),
            line(3, "cy", &[(30, 25)]),
        ];
        let out = html(chart(leaders, None));
        // One group per member in the SVG, one row each in the table.
        let svg = out.split("</svg>").next().unwrap();
        assert_eq!(svg.matches("<g data-member=").count(), 3, "{out}");
        for (member, points) in [("bo", 45), ("ada", 35), ("cy", 25)] {
            assert!(
                svg.contains(&format!(r#"data-member="{member}" data-points="{points}""#)),
                "{member}: {out}"
            );
            assert!(out.contains(&format!(r#"<tr data-leader="{member}">"#)), "{member}");
        }
        // The axis runs 0 → 60 minutes over x 44 → 468 and 0 → 60 points over y 174 → 12. bo's
        // line starts at his first step, climbs at his second and runs on to now at 45 points.
        assert_eq!(path_of(&out, "bo"), "M114.7 93 H326.7 V52.5 H468");
        // Told apart without colour: a dash pattern and a mark of its own for each.
        assert!(out.contains(r#"stroke-dasharray="none""#) && out.contains(r#"stroke-dasharray="9 4""#));
        assert!(out.contains(r#"stroke-dasharray="2 4""#));
        // Names are text, never markup; the label says the points where the lines end.
        assert!(out.contains("Ada &lt;L&gt;") && !out.contains("Ada <L>"), "{out}");
        assert!(out.contains("Points of the top 3 of 2027-W02 through the period: bo (45 points), Ada &lt;L&gt; (35 points), cy (25 points)."), "{out}");
        assert!(!out.contains("public freeze"), "{out}");
    }

    #[test]
    fn a_public_freeze_stops_the_lines_and_nobody_yet_is_said() {
        let out = html(chart(vec![line(1, "bo", &[(10, 30)])], Some(at(30))));
        // The axis ends at the freeze, not now: the chart the freeze's moment drew, with no word
        // of the freeze (the banner says it).
        assert!(out.contains("01-15 08:30</text>") && !out.contains("freeze"), "{out}");
        assert_eq!(path_of(&out, "bo"), "M185.3 12 H468");
        let empty = html(chart(Vec::new(), None));
        assert!(empty.contains("Nobody has points in 2027-W02 yet.") && !empty.contains("<svg"), "{empty}");
    }

    #[test]
    fn the_label_reads_in_each_language() {
        let said = |l: Locale, count: usize| {
            let item =
                tr!(l, "chart-leaders-item", name = "bo", points = l.labelled(1_234, domain::Unit::Points));
            let leaders = [item.clone(), item].join(&tr!(l, "chart-leaders-separator"));
            tr!(
                l,
                "chart-leaders-label",
                count = count,
                period = "2027-W02",
                leaders = leaders,
                truncated = "",
            )
        };
        assert_eq!(
            said(Locale::En, 1),
            "Points of the leader of 2027-W02 through the period: bo (1\u{202f}234 points), bo (1\u{202f}234 points)."
        );
        assert_eq!(
            said(Locale::ZhCn, 2),
            "2027-W02 前 2 名在本周期内的积分：bo（1,234 分）、bo（1,234 分）。"
        );
    }
}
