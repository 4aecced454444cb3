use crate::i18n::tr;
use leptos::prelude::*;
use leptos_meta::Title;

/// Any path without a route.
#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    let l = crate::i18n::locale();
    view! {
        <Title text=tr!(l, "notfound-title")/>
        <section class="notice">
            <h1>{tr!(l, "notfound-heading")}</h1>
            <p><a href="/">{tr!(l, "notfound-back")}</a></p>
        </section>
    }
}
