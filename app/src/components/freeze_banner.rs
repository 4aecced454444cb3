//! The banner of a public freeze (contest mode): what the page shows are the standings of the
//! freeze, and points scored since then count but are not shown until the reveal.

use leptos::prelude::*;

/// What follows "Standings frozen": when (in the board's zone) and `then`, what it means on the
/// page. Made on the server: the contestants' bundle has no zone database.
pub fn freeze_words(at: jiff::Timestamp, zone: &str, then: &str) -> String {
    format!(
        " at {} ({zone}){then}",
        domain::local::in_named_zone(at, zone, domain::local::Clock::Minute, crate::i18n::locale())
    )
}

/// "Standings frozen" and its words ([`freeze_words`]).
#[component]
pub fn FreezeBanner(words: String) -> impl IntoView {
    view! {
        <p class="notice frozen" role="status" data-testid="public-freeze">
            <strong>"Standings frozen"</strong>
            {words}
        </p>
    }
}
