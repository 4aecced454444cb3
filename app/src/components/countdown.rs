use leptos::prelude::*;

/// Time left until `ends_at`, ticking in the browser ("2d 4h 17m", "ended").
#[component]
pub fn Countdown(ends_at: jiff::Timestamp) -> impl IntoView {
    let now = RwSignal::new(jiff::Timestamp::now());
    // Effects run only in the browser: the server renders the value at render time.
    Effect::new(move |_| {
        set_interval(move || now.set(jiff::Timestamp::now()), std::time::Duration::from_secs(20));
    });
    view! { <span class="countdown">{move || remaining(ends_at.as_second() - now.get().as_second())}</span> }
}

/// [`Countdown`] as an island, for the contestants' pages (server components): it alone hydrates.
#[island]
pub fn CountdownIsland(ends_at: jiff::Timestamp) -> impl IntoView {
    view! { <Countdown ends_at/> }
}

/// "2d 4h 17m" for a number of seconds; "ended" when none are left.
pub fn remaining(seconds: i64) -> String {
    if seconds <= 0 {
        return "ended".into();
    }
    let (d, h, m) = (seconds / 86_400, seconds % 86_400 / 3600, (seconds % 3600 + 59) / 60);
    match (d, h) {
        (0, 0) => format!("{m}m"),
        (0, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h {m}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::remaining;

    #[test]
    fn remaining_time_reads_naturally() {
        assert_eq!(remaining(0), "ended");
        assert_eq!(remaining(59), "1m");
        assert_eq!(remaining(3600 + 61), "1h 2m");
        assert_eq!(remaining(2 * 86_400 + 4 * 3600 + 17 * 60), "2d 4h 17m");
    }
}
