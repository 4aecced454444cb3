use crate::api::{read_boards, read_hot_boards};
use crate::components::error_view::ErrorView;
use leptos::prelude::*;
use leptos_meta::Title;

/// `/`: every board, with its current period; then the hot boards, with their windows.
#[component]
pub fn HomePage() -> impl IntoView {
    let boards = Resource::new(|| (), |_| read_boards());
    let hot = Resource::new(|| (), |_| read_hot_boards());
    view! {
        <Title text="Boards"/>
        <h1>"Boards"</h1>
        <Suspense fallback=|| view! { <p>"Loading boards…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    boards.await.map(|boards| {
                        if boards.is_empty() {
                            return view! { <p class="empty">"No boards yet."</p> }.into_any();
                        }
                        view! {
                            <ul class="boards">
                                {boards.into_iter().map(|b| view! {
                                    <li>
                                        <a href=format!("/b/{}", b.slug)>{b.title}</a>
                                        <span class="meta">{format!(" {} · {} · {}", b.cadence, b.current_period, b.time_zone)}</span>
                                    </li>
                                }).collect_view()}
                            </ul>
                        }.into_any()
                    })
                })}
            </ErrorBoundary>
        </Suspense>
        <Suspense fallback=|| ()>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    hot.await.map(|boards| {
                        (!boards.is_empty()).then(|| view! {
                            <h2>"Trending"</h2>
                            <ul class="boards">
                                {boards.into_iter().map(|b| view! {
                                    <li>
                                        <a href=format!("/hot/{}", b.slug)>{b.title}</a>
                                        <span class="meta">{format!(" {}", b.window)}</span>
                                    </li>
                                }).collect_view()}
                            </ul>
                        })
                    })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}
