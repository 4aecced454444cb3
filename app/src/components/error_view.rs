use crate::error::AppError;
use crate::i18n::tr;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_location;

/// What a page says for each kind of error, in the reader's language: the tab's title and the
/// heading are the same words, and the message below them says what was wrong.
fn heading(error: Option<&AppError>) -> String {
    let l = crate::i18n::locale();
    match error {
        Some(AppError::NotFound(_)) => tr!(l, "error-heading-not-found"),
        Some(AppError::Invalid(_) | AppError::Field { .. }) => tr!(l, "error-heading-invalid"),
        Some(AppError::Denied(_)) => tr!(l, "error-heading-denied"),
        Some(AppError::Unavailable) => tr!(l, "error-heading-unavailable"),
        Some(AppError::Transport(_)) | None => tr!(l, "error-heading-unreachable"),
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
    let l = crate::i18n::locale();
    let title = heading(app_errors().first());
    let in_console = use_location().pathname.with_untracked(|p| p == "/admin" || p.starts_with("/admin/"));
    let back = if in_console {
        view! { <p><a href="/admin">{tr!(l, "error-back-console")}</a></p> }.into_any()
    } else {
        view! { <p><a href="/">{tr!(l, "error-back-boards")}</a></p> }.into_any()
    };
    view! {
        <Title text=title.clone()/>
        <section class="notice error" role="alert" data-testid="error">
            <h1>{title}</h1>
            <ul>{let app_errors = app_errors.clone(); move || app_errors().into_iter().map(|e| view! { <li>{words(&e)}</li> }).collect_view()}</ul>
            {let app_errors = app_errors.clone(); move || {
                app_errors().iter().any(|e| matches!(e, AppError::Denied(_))).then(|| view! {
                    <p><a href="/admin/login">{tr!(l, "error-sign-in")}</a></p>
                })
            }}
            {back}
        </section>
    }
}

/// An error's message as a sentence: capitalised and ended (as the reader's language ends one).
fn words(error: &AppError) -> String {
    let text = match error {
        AppError::Field { field, message } => format!("{field}: {message}"),
        other => other.to_string(),
    };
    let mut chars = text.chars();
    let said = chars.next().map(|c| c.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default();
    if said.ends_with(['.', '!', '?', '。', '！', '？']) {
        said
    } else {
        tr!(crate::i18n::locale(), "error-sentence", text = said)
    }
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

    #[test]
    fn the_words_the_app_makes_read_in_chinese_too() {
        use crate::i18n::Locale;
        assert_eq!(tr!(Locale::ZhCn, "error-heading-not-found"), "未找到");
        assert_eq!(tr!(Locale::ZhCn, "error-sentence", text = "该榜单不存在"), "该榜单不存在。");
        assert_eq!(
            words(&AppError::Unavailable),
            "The leaderboard is temporarily unavailable; please try again shortly."
        );
        assert_eq!(words(&AppError::Transport("timeout".into())), "Request failed: timeout.");
    }
}
