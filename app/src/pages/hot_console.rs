//! The console's hot board, `/admin/hot/{board}` (server functions `admin_hot_board` and
//! `admin_set_hot_filter` in `api::hot_console`): the board's window and rules, and the form that
//! replaces its hit filter — the one rule that may change after creation.

use crate::api::hot_console::{HotConsole, SetHotFilter, read_hot_console};
use crate::components::console::{ActionOutcome, FieldError};
use crate::components::error_view::ErrorView;
use crate::error::AppError;
use crate::i18n::{Say, tr};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

#[component]
pub fn HotConsolePage() -> impl IntoView {
    let params = use_params_map();
    let board = move || params.read().get("board").unwrap_or_default();
    let save = ServerAction::<SetHotFilter>::new();
    // Read again after each save, so the form shows the filter as stored (lower-cased terms).
    let page = Resource::new(move || (board(), save.version().get()), |(board, _)| read_hot_console(board));
    let l = crate::i18n::locale();
    view! {
        <Title text=tr!(l, "hotc-title")/>
        <p class="meta"><a href="/admin">{tr!(l, "hotc-console")}</a>" › "{tr!(l, "hotc-title")}</p>
        <Transition fallback=move || view! { <p>{tr!(l, "hotc-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(hot) => Ok(view! { <HotFilterForm hot save/> }.into_any()),
                        Err(AppError::Denied(reason)) => Ok(view! {
                            <p data-testid="signed-out">{reason} " " <a href="/admin/login">{tr!(l, "hotc-sign-in")}</a></p>
                        }.into_any()),
                        Err(e) => Err(e),
                    }
                })}
            </ErrorBoundary>
        </Transition>
    }
}

#[component]
fn HotFilterForm(hot: HotConsole, save: ServerAction<SetHotFilter>) -> impl IntoView {
    // The window in the reader's words, from the rules' numbers.
    let HotConsole { slug, title, rules } = hot;
    let l = crate::i18n::locale();
    let window = crate::pages::hot::window_said(l, &rules.window_words());
    let filter = rules.filter;
    let blocked = filter.blocked_members.join("\n");
    let hours = filter.min_actor_age_seconds.map(|s| (s / 3_600).to_string()).unwrap_or_default();
    let refused = Signal::derive(move || save.value().get().and_then(Result::err));
    let outcome = Signal::derive(move || save.value().get());
    view! {
        <h1>{title}</h1>
        <p class="meta" data-testid="hot-window">{format!("{slug} · {window}")}</p>
        <p><a href=format!("/hot/{slug}")>{tr!(l, "hotc-public-list")}</a></p>
        <h2>{tr!(l, "hotc-filter-heading")}</h2>
        <p class="hint">
            {tr!(l, "hotc-filter-hint-start")} <code>"filtered"</code>
            {tr!(l, "hotc-filter-hint-end", seconds = l.number(5))}
        </p>
        <ActionForm action=save attr:class="stacked" attr:data-testid="hot-filter">
            <input type="hidden" name="board" value=slug.clone()/>
            <label class="check">
                <input type="checkbox" name="count_only_with_results" value="on"
                    checked=filter.count_only_with_results data-testid="only-with-results"/>
                {tr!(l, "hotc-only-with-results-start")} <code>"results"</code> {tr!(l, "hotc-only-with-results-end")}
            </label>
            <label>
                {tr!(l, "hotc-blocked")}
                // The text is the server's HTML; `prop:value` sets it again when a save re-renders the
                // form, where the typed text would otherwise stay.
                <textarea name="blocked_members" rows="6" data-testid="blocked-members"
                    prop:value=blocked.clone()>{blocked.clone()}</textarea>
                <span class="hint">{tr!(l, "hotc-blocked-hint", max = l.number(1_000))}</span>
            </label>
            <FieldError error=refused field="blocked_members"/>
            <label>
                {tr!(l, "hotc-min-age")}
                <input type="number" name="min_actor_age_hours" min="1" max="87840" value=hours
                    data-testid="min-actor-age"/>
                <span class="hint">
                    {tr!(l, "hotc-min-age-hint-start")} <code>"actor_created_at"</code> {tr!(l, "hotc-min-age-hint-end")}
                </span>
            </label>
            <FieldError error=refused field="min_actor_age_hours"/>
            <button type="submit" data-testid="save-filter">{tr!(l, "hotc-save")}</button>
        </ActionForm>
        <ActionOutcome outcome/>
    }
}
