//! Pieces of the console's forms: what an action answered, a field's refusal, and a button whose
//! consequence is stated before it runs.

use crate::error::AppError;
use leptos::prelude::*;

/// What the last run of a form's action answered: its message (a status) or its refusal (an
/// alert). Refusals of a named field are left to that field's [`FieldError`].
#[component]
pub fn ActionOutcome(#[prop(into)] outcome: Signal<Option<Result<String, AppError>>>) -> impl IntoView {
    move || match outcome.get() {
        Some(Ok(message)) => {
            Some(view! { <p class="notice" role="status" data-testid="outcome">{message}</p> }.into_any())
        }
        Some(Err(AppError::Field { .. })) | None => None,
        Some(Err(e)) => Some(
            view! { <p class="notice error" role="alert" data-testid="refusal">{e.to_string()}</p> }
                .into_any(),
        ),
    }
}

/// Under a form field: the server's refusal of that field, if the last answer was one.
#[component]
pub fn FieldError(#[prop(into)] error: Signal<Option<AppError>>, field: &'static str) -> impl IntoView {
    move || {
        error.get().and_then(|e| e.for_field(field)).map(|message| {
            view! { <p class="field-error error" role="alert" data-field=field>{message}</p> }
        })
    }
}

/// A console action behind a disclosure: the summary names the step, the open panel states its
/// consequence and holds the form that confirms it (plain HTML, so it works without JavaScript).
/// While the action runs, the button is disabled and a progress bar shows it is working.
#[component]
pub fn Confirm(
    /// The disclosure's label ("Freeze…").
    label: &'static str,
    /// What will happen, in a sentence.
    consequence: String,
    #[prop(into)] pending: Signal<bool>,
    children: Children,
) -> impl IntoView {
    view! {
        <details class="confirm" data-step=label>
            <summary class="button secondary">{label}</summary>
            <div class="confirm-body">
                <p>{consequence}</p>
                {children()}
                <Show when=move || pending.get()>
                    <p class="working" role="status"><progress aria-label="working"></progress> " Working…"</p>
                </Show>
            </div>
        </details>
    }
}
