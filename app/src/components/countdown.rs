use crate::i18n::{Locale, Say, tr};
use leptos::prelude::*;

/// Time left until `ends_at`, ticking in the browser ("2d 4h 17m", "ended").
#[component]
pub fn Countdown(ends_at: jiff::Timestamp) -> impl IntoView {
    // In an island, the page's `<html lang>`: the browser ticks in the page's language.
    let l = crate::i18n::locale();
    let left = ticking(ends_at);
    view! { <span class="countdown">{move || remaining_in(l, left())}</span> }
}

/// A period's end as a sentence that stays true when the time runs out: "ends in 2d 4h 17m",
/// then "ended" (never "ends in ended"). An island, for the contestants' pages (server
/// components): it alone hydrates.
#[island]
pub fn CountdownIsland(ends_at: jiff::Timestamp) -> impl IntoView {
    let l = crate::i18n::locale();
    let left = ticking(ends_at);
    view! { <span class="countdown">{move || ends_in(l, left())}</span> }
}

/// Seconds left until `at`, recounted every 20 s in the browser (the server renders the value
/// at render time: effects run only in the browser).
fn ticking(at: jiff::Timestamp) -> impl Fn() -> i64 + Copy {
    let now = RwSignal::new(jiff::Timestamp::now());
    Effect::new(move |_| {
        set_interval(move || now.set(jiff::Timestamp::now()), std::time::Duration::from_secs(20));
    });
    move || at.as_second() - now.get().as_second()
}

/// "ends in 2d 4h 17m" while time is left, else "ended".
pub fn ends_in(l: Locale, seconds: i64) -> String {
    if seconds <= 0 {
        tr!(l, "countdown-ended")
    } else {
        tr!(l, "countdown-ends-in", left = remaining_in(l, seconds))
    }
}

/// "2d 4h 17m" for a number of seconds, "ended" when none are left, in `l` ("2 天 4 小时 17 分").
pub fn remaining_in(l: Locale, seconds: i64) -> String {
    if seconds <= 0 {
        return tr!(l, "countdown-ended");
    }
    let (d, h, m) = (seconds / 86_400, seconds % 86_400 / 3600, (seconds % 3600 + 59) / 60);
    let (days, hours, minutes) = (l.number(d), l.number(h), l.number(m));
    match (d, h) {
        (0, 0) => tr!(l, "countdown-minutes", minutes = minutes),
        (0, _) => tr!(l, "countdown-hours", hours = hours, minutes = minutes),
        _ => tr!(l, "countdown-days", days = days, hours = hours, minutes = minutes),
    }
}

#[cfg(test)]
mod tests {
    use super::{Locale, ends_in, remaining_in};

    #[test]
    fn remaining_time_reads_naturally() {
        let remaining = |seconds| remaining_in(Locale::En, seconds);
        assert_eq!(remaining(0), "ended");
        assert_eq!(remaining(59), "1m");
        assert_eq!(remaining(3600 + 61), "1h 2m");
        assert_eq!(remaining(2 * 86_400 + 4 * 3600 + 17 * 60), "2d 4h 17m");
    }

    #[test]
    fn remaining_time_reads_naturally_in_chinese() {
        assert_eq!(remaining_in(Locale::ZhCn, 0), "已结束");
        assert_eq!(remaining_in(Locale::ZhCn, 3600 + 61), "1 小时 2 分");
        assert_eq!(remaining_in(Locale::ZhCn, 2 * 86_400 + 4 * 3600 + 17 * 60), "2 天 4 小时 17 分");
    }

    #[test]
    fn a_period_end_reads_as_a_sentence_before_and_after_it() {
        assert_eq!(ends_in(Locale::En, 3600 + 61), "ends in 1h 2m");
        assert_eq!(ends_in(Locale::En, 0), "ended");
        assert_eq!(ends_in(Locale::En, -5), "ended");
        assert_eq!(ends_in(Locale::ZhCn, 59), "1 分后结束");
    }
}
