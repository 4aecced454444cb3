use crate::api::{PAGE_SIZE, read_ranking};
use crate::components::error_view::ErrorView;
use crate::components::ranking_table::RankingTable;
use crate::error::AppError;
use domain::view::RankingPage;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// Most rows `?show=` may ask for in one server render.
const MAX_SHOWN: u64 = 200;

/// `/b/{board}`: the current period's live ranking. `?show=N` renders N rows on the server (how
/// "show more" works without JavaScript); with JavaScript the same control fetches the next
/// page through a server function and appends it without a reload.
#[component]
pub fn BoardPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let source = move || {
        let board = params.read().get("board").unwrap_or_default();
        let shown = query
            .read()
            .get("show")
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(PAGE_SIZE)
            .clamp(1, MAX_SHOWN);
        (board, shown)
    };
    let page = Resource::new(source, |(board, shown)| read_ranking(board, None, 0, shown));
    view! {
        <Suspense fallback=|| view! { <p>"Loading the board…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { page.await.map(|page| view! { <Board page/> }) })}
            </ErrorBoundary>
        </Suspense>
    }
}

#[component]
fn Board(page: RankingPage) -> impl IntoView {
    let RankingPage { board, period, ends_at, total, entries, has_more, .. } = page;
    let (entries, set_entries) = signal(entries);
    let (has_more, set_has_more) = signal(has_more);
    let (slug, period_key) = (board.slug.to_string(), period.to_string());
    let show_more = Action::new(move |_: &()| {
        let offset = entries.with_untracked(Vec::len) as u64;
        let (slug, period_key) = (slug.clone(), period_key.clone());
        async move {
            let next = read_ranking(slug, Some(period_key), offset, PAGE_SIZE).await?;
            set_entries.update(|e| e.extend(next.entries));
            set_has_more.set(next.has_more);
            Ok::<_, AppError>(())
        }
    });
    let more_href = move || format!("?show={}", entries.with(Vec::len) as u64 + PAGE_SIZE);
    let ends = ends_at.strftime("%Y-%m-%d %H:%M UTC").to_string();
    let caption = format!("{} — {period}", board.title);
    view! {
        <Title text=board.title.clone()/>
        <h1>{board.title.clone()}</h1>
        <p class="meta">
            {format!("Period {period} · ends {ends} · times in {} · {total} members · ", board.time_zone)}
            "Live ranking: rows may shift while you read."
        </p>
        <RankingTable entries caption/>
        <Show when=move || entries.with(Vec::is_empty)>
            <p class="empty">"No points in this period yet."</p>
        </Show>
        <Show when=move || has_more.get()>
            <a
                class="button more"
                href=more_href
                on:click=move |ev| {
                    ev.prevent_default();
                    show_more.dispatch(());
                }
            >
                {move || if show_more.pending().get() { "Loading…" } else { "Show more" }}
            </a>
        </Show>
        {move || {
            show_more.value().get().and_then(Result::err).map(|e| view! { <p class="error" role="alert">{e.to_string()}</p> })
        }}
    }
}
