use crate::api::{read_boards, read_hot_boards};
use crate::components::error_view::ErrorView;
use crate::i18n::tr;
use domain::Cadence;
use leptos::prelude::*;
use leptos_meta::Title;

/// `/`: every board, with its current period; then the hot boards, with their windows.
#[component]
pub fn HomePage() -> impl IntoView {
    let l = crate::i18n::locale();
    let boards = Resource::new(|| (), |_| read_boards());
    let hot = Resource::new(|| (), |_| read_hot_boards());
    view! {
        <Title text=tr!(l, "home-title")/>
        <h1>{tr!(l, "home-title")}</h1>
        <Suspense fallback=move || view! { <p>{tr!(l, "home-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    boards.await.map(|boards| {
                        if boards.is_empty() {
                            return view! { <p class="empty">{tr!(l, "home-empty")}</p> }.into_any();
                        }
                        view! {
                            <ul class="boards">
                                {boards.into_iter().map(|b| {
                                    let cadence = match b.cadence {
                                        Cadence::Weekly => tr!(l, "home-weekly"),
                                        Cadence::Daily => tr!(l, "home-daily"),
                                        Cadence::Monthly => tr!(l, "home-monthly"),
                                        Cadence::Season => tr!(l, "home-season"),
                                    };
                                    view! {
                                        <li>
                                            <a href=format!("/b/{}", b.slug)>{b.title}</a>
                                            <span class="meta">{format!(" {cadence} · {} · {}", b.current_period, b.time_zone)}</span>
                                        </li>
                                    }
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
                            <h2>{tr!(l, "home-trending")}</h2>
                            <ul class="boards">
                                {boards.into_iter().map(|b| view! {
                                    <li>
                                        <a href=format!("/hot/{}", b.slug)>{b.title}</a>
                                        <span class="meta">{format!(" {}", crate::pages::hot::window_said(l, &b.window_words))}</span>
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
