use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_location;

/// What a page says for each kind of error: the tab's title and the heading are the same words,
/// and the message below them says what was wrong.
fn heading(error: Option<&AppError>) -> &'static str {
    match error {
        Some(AppError::NotFound(_)) => "Not found",
        Some(AppError::Invalid(_) | AppError::Field { .. }) => "Not a valid request",
        Some(AppError::Denied(_)) => "Not allowed",
        Some(AppError::Unavailable) => "Temporarily unavailable",
        Some(AppError::Transport(_)) | None => "The server could not be reached",
    }
}

/// The one error view: a heading saying which kind of error it is (the page's title says the
/// same), the message in words, during server rendering the matching HTTP status, and a way back
/// that stays where the reader was (the console's front page from a console page).
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
    let title = heading(app_errors().first());
    let in_console = use_location().pathname.with_untracked(|p| p == "/admin" || p.starts_with("/admin/"));
    let back = if in_console {
        view! { <p><a href="/admin">"Back to the console"</a></p> }.into_any()
    } else {
        view! { <p><a href="/">"See all boards"</a></p> }.into_any()
    };
    view! {
        <Title text=title/>
        <section class="notice error" role="alert" data-testid="error">
            <h1>{title}</h1>
            <ul>{let app_errors = app_errors.clone(); move || app_errors().into_iter().map(|e| view! { <li>{words(&e)}</li> }).collect_view()}</ul>
            {let app_errors = app_errors.clone(); move || {
                app_errors().iter().any(|e| matches!(e, AppError::Denied(_))).then(|| view! {
                    <p><a href="/admin/login">"Sign in to the console"</a></p>
                })
            }}
            {back}
        </section>
    }
}

/// An error's message as a sentence: capitalised and ended.
fn words(error: &AppError) -> String {
    let text = match error {
        AppError::Field { field, message } => format!("{field}: {message}"),
        other => other.to_string(),
    };
    let mut chars = text.chars();
    let mut said =
        chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default();
    if !said.ends_with(['.', '!', '?']) {
        said.push('.');
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_error_has_its_own_heading_and_a_sentence() {
        let not_found = AppError::NotFound("there is no period 2026-W99 on this board".into());
        assert_eq!(heading(Some(&not_found)), "Not found");
        assert_eq!(words(&not_found), "There is no period 2026-W99 on this board.");
        let invalid = AppError::Invalid("\"a b\" is not a member id".into());
        assert_ne!(heading(Some(&invalid)), heading(Some(&not_found)));
        assert_eq!(heading(Some(&AppError::Unavailable)), "Temporarily unavailable");
    }
}
