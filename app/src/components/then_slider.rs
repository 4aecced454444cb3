//! The board page's time slider: "the board at Fri 18:00". A plain GET form (`?at=<seconds>`),
//! so it works without JavaScript; as an island, its label follows the slider while it moves.
//! The labels are made on the server, in the board's zone (the contestants' bundle has no zone
//! database): one per step of the slider.

use crate::i18n::{Clock, Say, tr};
use leptos::prelude::*;

/// Most steps a slider has: a week is hourly.
const MAX_STEPS: i64 = 200;

/// The slider over `from`..`until`: its first value and step (seconds), and each step's words in
/// `zone`. None when the span is empty (a period not begun).
pub fn steps(from: jiff::Timestamp, until: jiff::Timestamp, zone: &str) -> Option<(i64, i64, Vec<String>)> {
    let (start, span) = (from.as_second(), until.as_second() - from.as_second());
    if span <= 0 {
        return None;
    }
    // Whole minutes, at most MAX_STEPS of them.
    let per_step = (span + MAX_STEPS - 1) / MAX_STEPS;
    let step = ((per_step + 59) / 60).max(1) * 60;
    let l = crate::i18n::locale();
    let labels = (0..=span / step)
        .map(|i| {
            let at = jiff::Timestamp::from_second(start + i * step).unwrap_or(until);
            l.time(at, zone, Clock::Minute)
        })
        .collect();
    Some((start, step, labels))
}

/// The slider and its button; `value` is the step it starts at and `shown` what its label says
/// until it moves (the instant the page shows, or "now").
#[island]
pub fn ThenSlider(start: i64, step: i64, labels: Vec<String>, value: usize, shown: String) -> impl IntoView {
    let l = crate::i18n::locale();
    let last = labels.len().saturating_sub(1);
    let (index, set_index) = signal(value.min(last));
    let moved = RwSignal::new(false);
    let label = move || {
        if moved.get() { labels.get(index.get()).cloned().unwrap_or_default() } else { shown.clone() }
    };
    view! {
        <form method="get" action="" class="then" data-testid="then-form">
            <label for="then-at">{tr!(l, "then-label")}</label>
            <input
                id="then-at"
                type="range"
                name="at"
                min=start
                max=start + step * last as i64
                step=step
                prop:value=move || (start + step * index.get() as i64).to_string()
                on:input=move |ev| {
                    let seconds = event_target_value(&ev).parse::<i64>().unwrap_or(start);
                    set_index.set(((seconds - start) / step).clamp(0, last as i64) as usize);
                    moved.set(true);
                }
                data-testid="then-slider"
            />
            <output for="then-at" data-testid="then-label">{label}</output>
            <button type="submit" class="secondary">{tr!(l, "then-submit")}</button>
        </form>
    }
}
