use crate::api::read_hot_list;
use crate::components::error_view::ErrorView;
use crate::i18n::{Clock, Locale, tr};
use domain::hot::{HotBoardSummary, HotEntry, HotList};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

/// `/hot/{board}`: a hot board's published list — the same for every viewer until the next
/// snapshot — with rank-change arrows, "new" badges, when it was computed and the window in words.
#[component]
pub fn HotPage() -> impl IntoView {
    let l = crate::i18n::locale();
    let params = use_params_map();
    let list = Resource::new(move || params.read().get("board").unwrap_or_default(), read_hot_list);
    view! {
        <Suspense fallback=move || view! { <p>{tr!(l, "hot-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { list.await.map(|(board, list)| view! { <Hot board list/> }) })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// A score without float noise: `12`, `12.5`, `0.33`.
fn score(s: f64) -> String {
    let text = format!("{s:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The arrow and its accessible wording for a change of places.
fn change(l: Locale, e: &HotEntry) -> (&'static str, String, String) {
    match e.change {
        0 => ("same", "–".into(), tr!(l, "hot-same")),
        n if n > 0 => ("up", format!("▲{n}"), tr!(l, "hot-up", places = n.to_string())),
        n => ("down", format!("▼{}", -n), tr!(l, "hot-down", places = (-n).to_string())),
    }
}

#[component]
fn Hot(board: HotBoardSummary, list: HotList) -> impl IntoView {
    let l = crate::i18n::locale();
    let HotList { updated_at, snapshot_seconds, window: _, entries } = list;
    let seconds = snapshot_seconds.to_string();
    let updated = match updated_at {
        Some(at) => {
            // In UTC whatever zone database the build has.
            let time = domain::local::in_zone(at, &jiff::tz::TimeZone::UTC, Clock::Second, l);
            tr!(l, "hot-updated", time = time, seconds = seconds)
        }
        None => tr!(l, "hot-no-list", seconds = seconds),
    };
    view! {
        <Title text=board.title.clone()/>
        <h1>{board.title.clone()}</h1>
        <p class="window" data-testid="window">{board.window.clone()}</p>
        <p class="meta" data-testid="updated">
            {updated} " " <a href=format!("/hot/{}", board.slug)>{tr!(l, "hot-refresh")}</a>
        </p>
        {if entries.is_empty() {
            view! { <p class="empty">{tr!(l, "hot-empty")}</p> }.into_any()
        } else {
            view! {
                <table class="ranking hot">
                    <caption>{tr!(l, "hot-caption", count = entries.len().to_string(), window = board.window.clone())}</caption>
                    <thead>
                        <tr>
                            <th scope="col" class="rank">{tr!(l, "hot-rank")}</th>
                            <th scope="col" class="change">{tr!(l, "hot-change")}</th>
                            <th scope="col">{tr!(l, "hot-term")}</th>
                            <th scope="col" class="points">{tr!(l, "hot-score")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {entries.into_iter().map(|e| {
                            let (direction, arrow, words) = change(l, &e);
                            view! {
                                <tr data-rank=e.rank data-member=e.member.clone()>
                                    <td class="rank">{e.rank}</td>
                                    <td class=format!("change {direction}")>
                                        {if e.new {
                                            view! { <span class="new" data-testid="new">{tr!(l, "hot-new")}</span> }.into_any()
                                        } else {
                                            view! {
                                                <span aria-hidden="true" title=words.clone() data-change=e.change>{arrow}</span>
                                                <span class="visually-hidden">{words}</span>
                                            }.into_any()
                                        }}
                                    </td>
                                    <th scope="row" class="name">{e.member.clone()}</th>
                                    <td class="points">{score(e.score)}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
    }
}
