//! The banner of a public freeze (contest mode): what the page shows are the standings of the
//! freeze, and points scored since then count but are not shown until the reveal.

use crate::i18n::{Clock, Say, tr};
use leptos::prelude::*;

/// What follows "Standings frozen": when (in the board's zone) and `then`, what it means on the
/// page. Made on the server: the contestants' bundle has no zone database.
pub fn freeze_words(at: jiff::Timestamp, zone: &str, then: &str) -> String {
    let l = crate::i18n::locale();
    let at = tr!(l, "freeze-at", when = l.time(at, zone, Clock::Minute), zone = zone);
    format!("{at}{then}")
}

/// "Standings frozen" and its words ([`freeze_words`]).
#[component]
pub fn FreezeBanner(words: String) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <p class="notice frozen" role="status" data-testid="public-freeze">
            <strong>{tr!(l, "freeze-standings")}</strong>
            {words}
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;

    #[test]
    fn the_freeze_is_said_in_the_boards_zone_in_each_language() {
        let at: jiff::Timestamp = "2026-12-06T17:00:00Z".parse().unwrap();
        assert_eq!(
            freeze_words(at, "Asia/Shanghai", "."),
            " at Mon 2026-12-07 01:00 (Asia/Shanghai).",
            "without a request: English"
        );
        let when = Locale::ZhCn.time(at, "Asia/Shanghai", Clock::Minute);
        assert_eq!(
            tr!(Locale::ZhCn, "freeze-at", when = when, zone = "Asia/Shanghai"),
            "于 2026年12月7日 周一 01:00（Asia/Shanghai）"
        );
        assert_eq!(tr!(Locale::ZhCn, "freeze-standings"), "封榜");
    }
}
