//! "Find me" by a name several members' names start with: the members to pick from.

use crate::components::segments::segment_query;
use crate::i18n::{Say, tr};
use domain::segment::Segment;
use domain::view::NameMatches;
use leptos::prelude::*;

/// "Find me" found several members: each as a link to find them (by id), best ranked first.
#[component]
pub(super) fn NameChoices(
    asked: String,
    found: NameMatches,
    base: String,
    unit: domain::Unit,
    /// In a segment's view the names are found on the whole board: their board rank is not
    /// said, and each link finds the member in the segment.
    segment: Option<Segment>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let seg_q = segment_query(segment.as_ref());
    let items = found
        .entries
        .into_iter()
        .map(|e| {
            let line = match segment {
                Some(_) => tr!(
                    l,
                    "segment-choice-line",
                    member = e.member.to_string(),
                    points = l.labelled(e.points, unit),
                ),
                None => tr!(
                    l,
                    "board-choice-line",
                    member = e.member.to_string(),
                    rank = e.rank.to_string(),
                    points = l.labelled(e.points, unit),
                ),
            };
            view! {
                <li data-member=e.member.to_string()>
                    <a href=format!("{base}?find={}{seg_q}", e.member)>{e.name().to_owned()}</a>
                    {line}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="notice choices" role="status" data-testid="find-choices">
            <p>{tr!(l, "board-choices", asked = asked)}</p>
            <ul>{items}</ul>
            {found.more.then(|| view! { <p class="hint">{tr!(l, "board-choices-more")}</p> })}
        </section>
    }
}
