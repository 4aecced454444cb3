//! Segments on the contestants' pages (issue 43). The board page's switcher between the whole
//! board's ranking and each segment's (`?segment=province:zj`): a GET form with one `<select>`,
//! the dimensions as its groups and each value with its member count, so it works without
//! JavaScript and stays one line at 390 px however many values there are. The heading that says
//! which ranking the table shows, and the member page's list of the member's segment ranks
//! ("#3 of 41 in province zj"), each a link to the board page in that segment. Server-rendered
//! only: nothing here moves.
//!
//! Segment values are shaped like member ids (`[A-Za-z0-9_.:@-]`), none of which a query string
//! needs to escape, so links write them as they are.

use crate::api::history::Segments;
use crate::i18n::{Locale, Say, tr};
use domain::segment::Segment;
use domain::view::{MemberSegment, SegmentValues};
use leptos::prelude::*;

/// `&segment=…` to append to a board page's query string (nothing on the whole board).
pub fn segment_query(segment: Option<&Segment>) -> String {
    segment.map(|s| format!("&segment={s}")).unwrap_or_default()
}

/// The ranking a board page's table shows, as its heading says it.
pub fn ranking_heading(l: Locale, segment: Option<&Segment>) -> String {
    match segment {
        Some(s) => tr!(l, "segment-heading", dimension = s.dimension.as_str(), value = s.value.as_str()),
        None => tr!(l, "segment-heading-board"),
    }
}

/// The switcher: "the whole board" and each dimension's values, the one shown selected. `action`
/// is the board page's path (`/b/{board}/{period}`), so a switch keeps the period; `dimensions`
/// is None when the values could not be read.
#[component]
pub fn SegmentSwitcher(
    dimensions: Option<Segments<Vec<SegmentValues>>>,
    current: Option<Segment>,
    action: String,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let shown = current.as_ref().map(ToString::to_string);
    let body = match dimensions {
        Some(Segments::Open(dimensions)) => {
            let groups = dimensions
                .into_iter()
                .map(|d| {
                    let dimension = d.dimension.clone();
                    let options = d
                        .values
                        .into_iter()
                        .map(|v| {
                            let value = format!("{dimension}:{}", v.value);
                            let selected = shown.as_deref() == Some(value.as_str());
                            let text = tr!(
                                l,
                                "segment-option",
                                value = v.value.as_str(),
                                members = v.members,
                                shown = l.number(v.members as i64),
                            );
                            view! { <option value=value selected=selected>{text}</option> }
                        })
                        .collect_view();
                    let more = d.more.then(|| {
                        let words = tr!(l, "segment-more-values", dimension = dimension.as_str());
                        view! { <option disabled=true>{words}</option> }
                    });
                    view! { <optgroup label=d.dimension>{options}{more}</optgroup> }
                })
                .collect_view();
            view! {
                <form method="get" action=action class="segment-pick">
                    <label for="segment-pick">{tr!(l, "segment-pick")}</label>
                    " "
                    <select id="segment-pick" name="segment" data-testid="segment-pick">
                        <option value="" selected=shown.is_none()>{tr!(l, "segment-whole-board")}</option>
                        {groups}
                    </select>
                    " "
                    <button type="submit" class="secondary">{tr!(l, "segment-show")}</button>
                </form>
            }
            .into_any()
        }
        // Segments have no frozen view: say so, and leave the way back to the whole board.
        Some(Segments::Frozen) => view! {
            <p class="notice" role="status" data-testid="segments-frozen">
                {tr!(l, "segment-frozen")}
                {shown.is_some().then(|| view! {
                    " "
                    <a href=action.clone()>{tr!(l, "segment-back-to-board")}</a>
                })}
            </p>
        }
        .into_any(),
        None => view! { <p class="error" role="alert">{tr!(l, "segment-unread")}</p> }.into_any(),
    };
    view! {
        <nav class="segments" aria-label=tr!(l, "segment-switcher") data-testid="segments">
            {body}
        </nav>
    }
}

/// The member page's segment ranks: one line per segment the member holds, each a link to the
/// board page in that segment; during a public freeze, that they are hidden until the reveal.
/// `base` is the board page's path (`/b/{board}/{period}`); nothing for a board without segments
/// or a member that holds none.
#[component]
pub fn MemberSegments(
    segments: Segments<Vec<MemberSegment>>,
    base: String,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let body = match segments {
        Segments::Open(found) if found.is_empty() => return None,
        Segments::Open(found) => {
            let items = found
                .into_iter()
                .map(|s| {
                    let href = format!("{base}?segment={}", s.name());
                    let rank = tr!(
                        l,
                        "member-segment-rank",
                        rank = l.number(s.rank as i64),
                        members = l.number(s.members as i64),
                        dimension = s.dimension.as_str(),
                        value = s.value.as_str(),
                    );
                    let tied = s.tied.then(|| tr!(l, "member-segment-tied"));
                    let points = tr!(l, "member-segment-points", points = l.labelled(s.points, unit));
                    view! {
                        <li data-segment=s.name()>
                            <a href=href>{rank}</a>
                            {tied}
                            {points}
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="member-segments" data-testid="member-segments">{items}</ul> }.into_any()
        }
        Segments::Frozen => view! {
            <p class="notice" role="status" data-testid="member-segments-frozen">
                {tr!(l, "member-segments-frozen")}
            </p>
        }
        .into_any(),
    };
    Some(view! {
        <section aria-labelledby="segments-heading">
            <h2 id="segments-heading">{tr!(l, "member-segments-heading")}</h2>
            {body}
        </section>
    })
}
