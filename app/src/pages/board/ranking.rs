//! The board page's ranking and what sits right above and below it: the time slider, the segment
//! switcher with the ranking's heading, the rows (live, found, pinned, stable or as they were)
//! and the rules of the order.

use super::then::BoardThen;
use super::{Mode, Rows, frozen_then, order_words};
use crate::api::history::Segments;
use crate::components::freeze_banner::freeze_words;
use crate::components::segments::{SegmentSwitcher, ranking_heading};
use crate::components::then_slider::{ThenSlider, steps};
use crate::i18n::{Clock, Say, tr};
use domain::asof::AsOfPage;
use domain::board::Prize;
use domain::segment::Segment;
use domain::view::{RankingPage, SegmentValues};
use leptos::prelude::*;

/// The time slider, from the period's start to its end or now, at the instant shown. Not on a
/// segment's view: the engine replays the whole board only.
#[component]
pub(super) fn TimeSlider(
    starts_at: jiff::Timestamp,
    ends_at: jiff::Timestamp,
    /// The board's time zone: the slider's labels are its times.
    zone: String,
    /// `?at=`: the instant shown (None: now).
    at: Option<jiff::Timestamp>,
    /// A segment's view, which has no slider.
    in_segment: bool,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let until = ends_at.min(jiff::Timestamp::now());
    steps(starts_at, until, &zone).filter(|_| !in_segment).map(|(start, step, labels)| {
        let value = usize::try_from((at.unwrap_or(until).as_second() - start) / step).unwrap_or(0);
        let shown = match at {
            Some(at) => l.time(at, &zone, Clock::Minute),
            None => tr!(l, "then-now"),
        };
        view! { <ThenSlider start step labels value shown/> }
    })
}

/// The segment switcher and the ranking's heading, where the board declares dimensions (a freeze
/// that closed the segment's rows is the switcher's to say). Nothing on a board without them.
#[component]
pub(super) fn SegmentHeading(
    /// The switcher's lists (None: not read).
    choices: Option<Segments<Vec<SegmentValues>>>,
    /// The segment's rows are closed by a public freeze.
    segment_frozen: bool,
    segment: Option<Segment>,
    /// `/b/{board}/{period}`: the switcher's form goes there.
    base: String,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let choices = if segment_frozen { Some(Segments::Frozen) } else { choices };
    let segmented = match &choices {
        Some(Segments::Open(dimensions)) => !dimensions.is_empty(),
        Some(Segments::Frozen) => true,
        None => segment.is_some(),
    };
    segmented.then(|| {
        view! {
            <SegmentSwitcher dimensions=choices current=segment.clone() action=base/>
            <h2 id="ranking-heading" data-testid="ranking-heading">{ranking_heading(l, segment.as_ref())}</h2>
        }
    })
}

/// The rows the query string asks for: a page of the board as it was (`?at=`, server-rendered),
/// or the ranking's island (`Rows`: live, found, pinned or stable pages). Nothing while a public
/// freeze closes a segment's rows: the switcher says why.
#[component]
pub(super) fn Ranking(
    page: RankingPage,
    mode: Mode,
    next_cursor: Option<String>,
    /// `?at=`: the page of the ranking then (`page` is then only the period's header).
    then: Option<AsOfPage>,
    segment_frozen: bool,
    /// A signed link's contestant, highlighted unless a member was asked for.
    me: Option<String>,
    /// `/b/{board}/{period}`.
    base: String,
    /// The board's prize lines (none on a segment's view).
    prizes: Vec<Prize>,
    segment: Option<Segment>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let RankingPage { board, period, total, offset, entries, has_more, state, frozen_at, .. } = page;
    // Contest mode: the public sees the standings of the freeze until the reveal. The banner is
    // the rows' island's: the stream says when a reveal ends the freeze.
    let frozen_words = frozen_at.map(|at| freeze_words(at, &board.time_zone, &frozen_then(l)));
    // A found member, else "me" (a signed link's contestant).
    let highlight = match &mode {
        Mode::Find { member } => Some(member.clone()),
        _ => me,
    };
    let caption = match &segment {
        Some(s) => tr!(
            l,
            "segment-caption",
            caption = format!("{} — {period}", board.title),
            dimension = s.dimension.as_str(),
            value = s.value.as_str(),
        ),
        None => format!("{} — {period}", board.title),
    };
    match then {
        Some(then) => view! {
            <BoardThen then zone=board.time_zone.clone() base caption highlight prizes unit=board.unit/>
        }
        .into_any(),
        None if segment_frozen => ().into_any(),
        None => view! {
            <Rows
                entries
                has_more
                next_cursor
                mode
                board=board.slug.to_string()
                period=period.to_string()
                state=state.as_str().to_owned()
                caption
                base
                highlight
                offset
                total
                frozen_words
                prizes
                unit=board.unit
                segment=segment.as_ref().map(ToString::to_string)
            />
        }
        .into_any(),
    }
}

/// How the ranking orders members, said under the table: which end ranks first, wherever lower
/// is better ("fastest first" when the points are times), and how equal points rank (rather than
/// only in the "=" mark's tooltip).
#[component]
pub(super) fn RankingRules(
    sort: domain::Sort,
    unit: domain::Unit,
    tie_policy: domain::TiePolicy,
) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        {order_words(l, sort, unit).map(|words| view! { <p class="hint" data-testid="order-rule">{words}</p> })}
        <p class="hint" data-testid="tie-rule">
            {match tie_policy {
                domain::TiePolicy::Shared => tr!(l, "board-tie-shared"),
                domain::TiePolicy::FirstReached => tr!(l, "board-tie-first-reached"),
            }}
        </p>
    }
}
