use leptos::prelude::*;
use leptos_meta::Title;

/// Any path without a route.
#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found"/>
        <section class="notice">
            <h1>"Page not found"</h1>
            <p><a href="/">"See all boards"</a></p>
        </section>
    }
}
