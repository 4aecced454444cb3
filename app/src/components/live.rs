//! The board page's live top N. The server renders the table as before (and without JavaScript
//! that is all there is: reload for news). After hydration an `EventSource` on the period's
//! stream (`GET …/periods/{period}/stream`, same origin: the CSP's `connect-src 'self'`) replaces
//! the rows in place with each `ranking` event — members who moved up or entered are marked for
//! a moment (`tr.moved-up`) — and a line above the table says that the board is live and the
//! period's state from each `state` event.

use crate::components::movement::SeenRanks;
use crate::components::ranking_table::RankingTable;
use crate::i18n::{Locale, tr};
use domain::board::Prize;
use domain::view::Entry;
use leptos::prelude::*;
use std::collections::HashMap;

/// How long a row that moved up stays marked.
#[cfg(feature = "hydrate")]
const MOVED_UP_FOR_MS: i32 = 2000;
/// The stream opens this long after hydration: a page left at once costs the server no stream,
/// and the page's own loading is over first (tools that wait for the network to be idle, like
/// the end-to-end tests, see it idle).
#[cfg(feature = "hydrate")]
const CONNECT_AFTER: std::time::Duration = std::time::Duration::from_millis(1500);

/// The ranking table of a page, kept up to date while the page is open when `live` names how
/// many rows the stream carries (the page's `?show=`, at most 200); without it, the plain table.
#[component]
pub fn LiveRanking(
    live: Option<u64>,
    board: String,
    period: String,
    /// The period's state: as the page was rendered with, then as the stream says.
    state: RwSignal<String>,
    /// The public ranking's member count, and whether it is a public freeze's: as rendered,
    /// then as each `ranking` event says (the page's count and freeze banner follow them).
    total: RwSignal<u64>,
    frozen: RwSignal<bool>,
    entries: ReadSignal<Vec<Entry>>,
    set_entries: WriteSignal<Vec<Entry>>,
    caption: String,
    base: String,
    #[prop(optional, into)] highlight: Option<String>,
    /// The board's prize lines: the table marks their zones.
    #[prop(optional)]
    prizes: Vec<Prize>,
    /// The ranks of the visitor's last visit: the table shows who moved since.
    #[prop(default = None)]
    seen: Option<Signal<SeenRanks>>,
    /// The board's unit: `ms` points are shown as durations.
    #[prop(default = domain::Unit::Points)]
    unit: domain::Unit,
) -> impl IntoView {
    let Some(limit) = live else {
        return view! { <RankingTable entries caption base highlight=highlight.unwrap_or_default() prizes seen unit/> }
            .into_any();
    };
    // In the rows' island, the page's `<html lang>`.
    let l = crate::i18n::locale();
    let connected = RwSignal::new(false);
    let moved_up = RwSignal::new(Vec::<String>::new());
    #[cfg(feature = "hydrate")]
    {
        let limit = limit.clamp(1, 200);
        let url = format!("/api/v1/boards/{board}/periods/{period}/stream?limit={limit}");
        // Effects run only in the browser, after hydration.
        Effect::new(move |_| {
            let (url, owner) = (url.clone(), Owner::current());
            let open = move || {
                let follow = || {
                    browser::follow(
                        &url,
                        limit as usize,
                        connected,
                        state,
                        (total, frozen),
                        set_entries,
                        moved_up,
                    )
                };
                // Under the component's owner, so the stream closes when the component goes.
                if let Some(owner) = owner {
                    owner.with(follow);
                }
            };
            if let Ok(pending) = set_timeout_with_handle(open, CONNECT_AFTER) {
                on_cleanup(move || pending.clear());
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (board, period, limit, set_entries, total, frozen);
    view! {
        <p class="live-status" data-testid="live-status" hidden=move || !connected.get() role="status">
            <span class="live-dot" aria-hidden="true"></span>
            {tr!(l, "ranking-live")}
            <span data-testid="live-state" class=move || format!("live-state state-{}", state.get())>
                {move || state_word(l, &state.get())}
            </span>
        </p>
        <RankingTable entries caption base highlight=highlight.unwrap_or_default() moved_up prizes seen unit/>
    }
    .into_any()
}

/// A period's state (a `lifecycle::State` word: `open`, `frozen`, …) as a reader reads it; an
/// unknown one as it is.
pub fn state_word(l: Locale, state: &str) -> String {
    use crate::i18n::Say;
    domain::lifecycle::State::parse(state).map_or_else(|| state.to_owned(), |s| l.state(s))
}

/// The rows after a `ranking` event: the new top `limit`, then the rows a reader added below it
/// ("Show more"), without the members the new top now holds. And the members that moved up or
/// entered the top.
pub fn merge(rows: &[Entry], top: Vec<Entry>, limit: usize) -> (Vec<Entry>, Vec<String>) {
    let before: HashMap<&str, u64> = rows.iter().map(|e| (e.member.as_str(), e.rank)).collect();
    let moved: Vec<String> = top
        .iter()
        .filter(|e| before.get(e.member.as_str()).is_none_or(|&was| e.rank < was))
        .map(|e| e.member.to_string())
        .collect();
    let mut merged = top;
    let below = rows.iter().skip(limit).filter(|e| !merged.iter().any(|t| t.member == e.member)).cloned();
    let below: Vec<Entry> = below.collect();
    merged.extend(below);
    (merged, moved)
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::{MOVED_UP_FOR_MS, merge};
    use domain::live::{LiveRanking, LiveState, RANKING_EVENT, STATE_EVENT};
    use domain::view::Entry;
    use leptos::prelude::*;
    use send_wrapper::SendWrapper;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    use web_sys::{EventSource, MessageEvent};

    type Listener = Closure<dyn FnMut(MessageEvent)>;

    /// Opens the stream and applies its events until the component is gone. The browser
    /// reconnects by itself after a drop; the first events after a reconnect are full.
    pub fn follow(
        url: &str,
        limit: usize,
        live: RwSignal<bool>,
        state: RwSignal<String>,
        (total, frozen): (RwSignal<u64>, RwSignal<bool>),
        set_entries: WriteSignal<Vec<Entry>>,
        moved_up: RwSignal<Vec<String>>,
    ) {
        let Ok(source) = EventSource::new(url) else { return };
        let on_ranking: Listener = Closure::new(move |event: MessageEvent| {
            let Some(ranking) =
                event.data().as_string().and_then(|t| serde_json::from_str::<LiveRanking>(&t).ok())
            else {
                return;
            };
            total.set(ranking.total);
            frozen.set(ranking.frozen_at.is_some());
            let mut moved = Vec::new();
            set_entries.update(|rows| {
                let (merged, up) = merge(rows, ranking.entries, limit);
                *rows = merged;
                moved = up;
            });
            if !moved.is_empty() {
                moved_up.set(moved.clone());
                let clear = Closure::once_into_js(move || {
                    moved_up.update(|m| m.retain(|member| !moved.contains(member)));
                });
                if let Some(window) = web_sys::window() {
                    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
                        clear.unchecked_ref(),
                        MOVED_UP_FOR_MS,
                    );
                }
            }
        });
        let on_state: Listener = Closure::new(move |event: MessageEvent| {
            if let Some(s) = event.data().as_string().and_then(|t| serde_json::from_str::<LiveState>(&t).ok())
            {
                state.set(s.state.as_str().to_owned());
            }
        });
        let on_open: Listener = Closure::new(move |_| live.set(true));
        let on_error: Listener = Closure::new(move |_| live.set(false));
        for (name, listener) in
            [(RANKING_EVENT, &on_ranking), (STATE_EVENT, &on_state), ("open", &on_open), ("error", &on_error)]
        {
            let _ = source.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
        }
        // The listeners live as long as the source; both go when the page does.
        let held = SendWrapper::new((source, [on_ranking, on_state, on_open, on_error]));
        on_cleanup(move || held.take().0.close());
    }
}

#[cfg(test)]
mod tests {
    use super::{Locale, merge, state_word};
    use domain::MemberId;
    use domain::view::Entry;

    fn entry(rank: u64, member: &str) -> Entry {
        let member = MemberId::parse(member).unwrap();
        Entry { rank, member, points: 0, display_name: None, avatar_url: None, tied: false }
    }

    #[test]
    fn a_new_top_replaces_the_streamed_rows_keeps_the_rows_below_and_names_who_moved_up() {
        let rows = vec![entry(1, "a"), entry(2, "b"), entry(3, "c"), entry(4, "d")];
        // The stream carries the top 2: d overtook everyone, b moved down.
        let (merged, moved) = merge(&rows, vec![entry(1, "d"), entry(2, "a")], 2);
        let members: Vec<&str> = merged.iter().map(|e| e.member.as_str()).collect();
        assert_eq!(members, ["d", "a", "c"], "d is not repeated below");
        assert_eq!(moved, ["d"], "a kept its rank; d moved up");
        let (merged, moved) = merge(&[], vec![entry(1, "x")], 10);
        assert_eq!((merged.len(), moved), (1, vec!["x".to_owned()]), "a new member entered");
    }

    #[test]
    fn every_state_has_its_word_in_each_language() {
        for state in domain::lifecycle::State::ALL {
            assert_eq!(state_word(Locale::En, state.as_str()), state.as_str());
            assert_ne!(state_word(Locale::ZhCn, state.as_str()), state.as_str());
        }
        assert_eq!(state_word(Locale::ZhCn, "frozen"), "已冻结");
        assert_eq!(state_word(Locale::ZhCn, "unheard-of"), "unheard-of");
    }
}
