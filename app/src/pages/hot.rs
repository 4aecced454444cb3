use crate::api::read_hot_list;
use crate::components::error_view::ErrorView;
use domain::hot::{HotBoardSummary, HotEntry, HotList};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

/// `/hot/{board}`: a hot board's published list — the same for every viewer until the next
/// snapshot — with rank-change arrows, "new" badges, when it was computed and the window in words.
#[component]
pub fn HotPage() -> impl IntoView {
    let params = use_params_map();
    let list = Resource::new(move || params.read().get("board").unwrap_or_default(), read_hot_list);
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
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
fn change(e: &HotEntry) -> (&'static str, String, String) {
    match e.change {
        0 => ("same", "–".into(), "no change".into()),
        n if n > 0 => ("up", format!("▲{n}"), format!("up {n}")),
        n => ("down", format!("▼{}", -n), format!("down {}", -n)),
    }
}

#[component]
fn Hot(board: HotBoardSummary, list: HotList) -> impl IntoView {
    let HotList { updated_at, snapshot_seconds, window: _, entries } = list;
    let updated = match updated_at {
        Some(at) => format!(
            "Updated {} UTC; a new list every {snapshot_seconds} s.",
            at.strftime("%Y-%m-%d %H:%M:%S")
        ),
        None => format!("No list yet: the first one is computed within {snapshot_seconds} s."),
    };
    view! {
        <Title text=board.title.clone()/>
        <h1>{board.title.clone()}</h1>
        <p class="window" data-testid="window">{board.window.clone()}</p>
        <p class="meta" data-testid="updated">
            {updated} " " <a href=format!("/hot/{}", board.slug)>"Refresh"</a>
        </p>
        {if entries.is_empty() {
            view! { <p class="empty">"Nothing in the window yet."</p> }.into_any()
        } else {
            view! {
                <table class="ranking hot">
                    <caption>{format!("Top {} — {}", entries.len(), board.window)}</caption>
                    <thead>
                        <tr>
                            <th scope="col" class="rank">"Rank"</th>
                            <th scope="col" class="change">"Change"</th>
                            <th scope="col">"Term"</th>
                            <th scope="col" class="points">"Score"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {entries.into_iter().map(|e| {
                            let (direction, arrow, words) = change(&e);
                            view! {
                                <tr data-rank=e.rank data-member=e.member.clone()>
                                    <td class="rank">{e.rank}</td>
                                    <td class=format!("change {direction}")>
                                        {if e.new {
                                            view! { <span class="new" data-testid="new">"new"</span> }.into_any()
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
