use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;

/// The one error view: a readable message, a page title saying what went wrong, and during server
/// rendering the matching HTTP status.
#[component]
pub fn ErrorView(errors: ArcRwSignal<Errors>) -> impl IntoView {
    let app_errors = move || -> Vec<AppError> {
        errors
            .get()
            .into_iter()
            .map(|(_, e)| e.downcast_ref::<AppError>().cloned().unwrap_or(AppError::Unavailable))
            .collect()
    };
    #[cfg(feature = "ssr")]
    if let (Some(response), Some(first)) =
        (use_context::<leptos_axum::ResponseOptions>(), app_errors().first())
    {
        response.set_status(
            http::StatusCode::from_u16(first.status()).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR),
        );
    }
    let title = match app_errors().first().map(AppError::status) {
        Some(404) => "Not found",
        Some(403) => "Not allowed",
        _ => "Something went wrong",
    };
    view! {
        <Title text=title/>
        <section class="notice error" role="alert">
            <h1>"Something went wrong"</h1>
            <ul>{let app_errors = app_errors.clone(); move || app_errors().into_iter().map(|e| view! { <li>{e.to_string()}</li> }).collect_view()}</ul>
            {let app_errors = app_errors.clone(); move || {
                app_errors().iter().any(|e| matches!(e, AppError::Denied(_))).then(|| view! {
                    <p><a href="/admin/login">"Sign in to the console"</a></p>
                })
            }}
            <p><a href="/">"See all boards"</a></p>
        </section>
    }
}
