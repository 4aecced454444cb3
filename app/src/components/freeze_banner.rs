//! The banner of a public freeze (contest mode): what the page shows are the standings of the
//! freeze, and points scored since then count but are not shown until the reveal.

use leptos::prelude::*;

/// "Standings frozen at …" and `then`, what it means on this page.
#[component]
pub fn FreezeBanner(at: jiff::Timestamp, then: &'static str) -> impl IntoView {
    view! {
        <p class="notice frozen" role="status" data-testid="public-freeze">
            <strong>"Standings frozen"</strong>
            {format!(" at {} UTC{then}", at.strftime("%Y-%m-%d %H:%M"))}
        </p>
    }
}
