use crate::api::contestant::claim_link;
use crate::components::error_view::ErrorView;
use crate::i18n::tr;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// `/me?member=…&expires=…&sig=…`: opens a signed contestant link. A valid one sets "me" (boards
/// then highlight you and offer your page); an expired or forged one is refused with the reason.
#[component]
pub fn MePage() -> impl IntoView {
    let l = crate::i18n::locale();
    let query = use_query_map();
    let link = move || {
        let q = query.read();
        let expires = q.get("expires").and_then(|e| e.parse::<i64>().ok()).unwrap_or_default();
        (q.get("member").unwrap_or_default(), expires, q.get("sig").unwrap_or_default())
    };
    let claimed = Resource::new(link, |(member, expires, sig)| claim_link(member, expires, sig));
    view! {
        <Title text=tr!(l, "me-title")/>
        <Suspense fallback=move || view! { <p>{tr!(l, "me-checking")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    claimed.await.map(|member| view! {
                        <h1>{tr!(l, "me-welcome", member = member.clone())}</h1>
                        <p data-testid="me">
                            {tr!(l, "me-highlight")} " " <strong>{member}</strong> " "
                            {tr!(l, "me-highlight-after")}
                        </p>
                        <p><a class="button" href="/">{tr!(l, "me-boards")}</a></p>
                    })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}
