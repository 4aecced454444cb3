use crate::api::contestant::claim_link;
use crate::components::error_view::ErrorView;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// `/me?member=…&expires=…&sig=…`: opens a signed contestant link. A valid one sets "me" (boards
/// then highlight you and offer your page); an expired or forged one is refused with the reason.
#[component]
pub fn MePage() -> impl IntoView {
    let query = use_query_map();
    let link = move || {
        let q = query.read();
        let expires = q.get("expires").and_then(|e| e.parse::<i64>().ok()).unwrap_or_default();
        (q.get("member").unwrap_or_default(), expires, q.get("sig").unwrap_or_default())
    };
    let claimed = Resource::new(link, |(member, expires, sig)| claim_link(member, expires, sig));
    view! {
        <Title text="Your link"/>
        <Suspense fallback=|| view! { <p>"Checking your link…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    claimed.await.map(|member| view! {
                        <h1>"Welcome, " {member.clone()}</h1>
                        <p data-testid="me">
                            "Boards now highlight " <strong>{member}</strong>
                            " and offer your page. Nothing else changes: rankings stay public."
                        </p>
                        <p><a class="button" href="/">"See the boards"</a></p>
                    })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}
