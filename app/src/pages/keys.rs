//! The console's ingest keys, `/admin/keys` (server functions `admin_keys`, `admin_create_key`,
//! `admin_revoke_key` in `api::keys`): the table by prefix, the create form that shows the full
//! key once (with a copy button once hydrated: `navigator.clipboard`), and a confirmed revoke per
//! live key. Without JavaScript the new key crosses the form post in a one-time cookie.

use crate::api::keys::{CreateKey, KeysPage, NewKey, RevokeKey, read_keys};
use crate::components::error_view::ErrorView;
use crate::error::AppError;
use crate::i18n::tr;
use domain::apikey::{ApiKeyView, DEFAULT_RATE_PER_SECOND, MAX_BURST, MAX_RATE_PER_SECOND};
use leptos::prelude::*;
use leptos_meta::Title;

/// `/admin/keys`: the ingest keys — a table (prefixes only), a form that makes one and shows the
/// full key once, and a confirmed revoke per live key. Plain form posts without JavaScript; with
/// it, the new key and any refusal are shown in place.
#[component]
pub fn KeysConsolePage() -> impl IntoView {
    let create = ServerAction::<CreateKey>::new();
    let revoke = ServerAction::<RevokeKey>::new();
    let created = move || create.value().get().and_then(Result::ok);
    // Read again after a key was made or a revoke was tried (a refused create keeps the form as
    // typed).
    let page =
        Resource::new(move || (created().map(|new| new.view.id), revoke.version().get()), |_| read_keys());
    let l = crate::i18n::locale();
    view! {
        <Title text=tr!(l, "keys-title")/>
        <p class="meta"><a href="/admin">{tr!(l, "keys-console")}</a>" › "{tr!(l, "keys-title")}</p>
        <h1>{tr!(l, "keys-title")}</h1>
        {move || created().map(|new| view! { <NewKeyNotice new/> })}
        // A transition keeps the table in place while it is read again after a change.
        <Transition fallback=move || view! { <p>{tr!(l, "keys-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(data) => Ok(view! { <Keys data create revoke/> }.into_any()),
                        Err(AppError::Denied(reason)) => Ok(view! {
                            <p data-testid="signed-out">{reason} " " <a href="/admin/login">{tr!(l, "keys-sign-in")}</a></p>
                        }.into_any()),
                        Err(e) => Err(e),
                    }
                })}
            </ErrorBoundary>
        </Transition>
    }
}

/// The full key, this once.
#[component]
fn NewKeyNotice(new: NewKey) -> impl IntoView {
    let l = crate::i18n::locale();
    let limits = tr!(
        l,
        "keys-new-key-limits",
        rate = new.view.rate_per_second.to_string(),
        burst = new.view.burst.to_string(),
    );
    view! {
        <section class="notice new-key" role="status" data-testid="new-key">
            <p>
                {tr!(l, "keys-new-key")} " " <strong>{new.view.prefix.clone()} "…"</strong> " " {tr!(l, "keys-new-key-for")} " "
                {new.view.boards.join(", ")} {limits}
            </p>
            <p><code class="secret" data-testid="new-key-secret">{new.key.clone()}</code></p>
            <p>
                <strong>{tr!(l, "keys-copy-now")}</strong> " "
                <CopyButton text=new.key/>
            </p>
        </section>
    }
}

/// Copies `text` to the clipboard. Shown once the page is hydrated (without JavaScript it could
/// not copy: the key is then selected whole by a click, `user-select: all`); says whether the
/// browser took it.
#[component]
fn CopyButton(text: String) -> impl IntoView {
    let hydrated = RwSignal::new(false);
    // Effects run only in the browser.
    Effect::new(move |_| hydrated.set(true));
    let said = RwSignal::new(None::<String>);
    let l = crate::i18n::locale();
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::closure::Closure;
            let Some(window) = web_sys::window() else { return };
            let promise = window.navigator().clipboard().write_text(&text);
            let done = Closure::once(move |_: wasm_bindgen::JsValue| said.set(Some(tr!(l, "keys-copied"))));
            let failed =
                Closure::once(move |_: wasm_bindgen::JsValue| said.set(Some(tr!(l, "keys-copy-refused"))));
            let _ = promise.then2(&done, &failed);
            // The promise holds them until it settles.
            done.forget();
            failed.forget();
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (&text, said, l);
    };
    view! {
        <button type="button" class="secondary" hidden=move || !hydrated.get() on:click=copy data-testid="copy-key">
            {tr!(l, "keys-copy")}
        </button>
        <span role="status" data-testid="copy-said">{move || said.get()}</span>
    }
}

/// The key made by this browser's last plain form post, the table, and the form for a new key.
#[component]
fn Keys(data: KeysPage, create: ServerAction<CreateKey>, revoke: ServerAction<RevokeKey>) -> impl IntoView {
    let KeysPage { keys, boards, created } = data;
    let l = crate::i18n::locale();
    let boards_hint = if boards.is_empty() {
        tr!(l, "keys-boards-hint-none")
    } else {
        tr!(l, "keys-boards-hint", boards = boards.join(", "))
    };
    let create_refused = move || create.value().get().and_then(Result::err).map(|e| e.to_string());
    let revoke_refused = move || revoke.value().get().and_then(Result::err).map(|e| e.to_string());
    view! {
        {created.map(|new| view! { <NewKeyNotice new/> })}
        {if keys.is_empty() {
            view! { <p class="empty" data-testid="no-keys">{tr!(l, "keys-none")}</p> }.into_any()
        } else {
            view! {
                <table class="keys" data-testid="keys">
                    <thead>
                        <tr>
                            <th scope="col">{tr!(l, "keys-col-key")}</th>
                            <th scope="col">{tr!(l, "keys-col-boards")}</th>
                            <th scope="col">{tr!(l, "keys-col-limit")}</th>
                            <th scope="col">{tr!(l, "keys-col-created")}</th>
                            <th scope="col">{tr!(l, "keys-col-state")}</th>
                            <th scope="col"><span class="visually-hidden">{tr!(l, "keys-col-actions")}</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        {keys.into_iter().map(|key| view! { <KeyRow key revoke/> }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
        {move || revoke_refused().map(|e| view! {
            <p class="notice error" role="alert" data-testid="revoke-error">{e}</p>
        })}
        <h2>{tr!(l, "keys-create-heading")}</h2>
        <ActionForm action=create attr:class="stacked">
            <label>
                {tr!(l, "keys-boards")}
                <input type="text" name="boards" required placeholder="weekly-study, trending"
                    autocomplete="off" data-testid="new-key-boards"/>
                <span class="hint" data-testid="boards-hint">{boards_hint}</span>
            </label>
            <label>
                {tr!(l, "keys-rate")}
                <input type="number" name="rate_per_second" min="1" max=MAX_RATE_PER_SECOND
                    placeholder=DEFAULT_RATE_PER_SECOND.to_string() data-testid="new-key-rate"/>
                <span class="hint">
                    {tr!(
                        l,
                        "keys-rate-hint",
                        max = MAX_RATE_PER_SECOND.to_string(),
                        default = DEFAULT_RATE_PER_SECOND.to_string(),
                    )}
                </span>
            </label>
            <label>
                {tr!(l, "keys-burst")}
                <input type="number" name="burst" min="1" max=MAX_BURST placeholder=tr!(l, "keys-burst-placeholder")
                    data-testid="new-key-burst"/>
                <span class="hint">{tr!(l, "keys-burst-hint", max = MAX_BURST.to_string())}</span>
            </label>
            <button type="submit" data-testid="create-key">{tr!(l, "keys-create")}</button>
        </ActionForm>
        {move || create_refused().map(|e| view! {
            <p class="notice error" role="alert" data-testid="create-error">{e}</p>
        })}
        <p class="hint">{tr!(l, "keys-limits-hint")}</p>
    }
}

fn when(at: jiff::Timestamp) -> String {
    at.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

#[component]
fn KeyRow(key: ApiKeyView, revoke: ServerAction<RevokeKey>) -> impl IntoView {
    let live = key.is_live();
    let l = crate::i18n::locale();
    let state = match (&key.revoked_at, &key.revoked_by) {
        (None, _) => tr!(l, "keys-state-live"),
        (Some(at), Some(by)) => tr!(l, "keys-state-revoked-by", at = when(*at), by = by.clone()),
        (Some(at), None) => tr!(l, "keys-state-revoked", at = when(*at)),
    };
    let created = match &key.created_by {
        Some(by) => tr!(l, "keys-created-by", at = when(key.created_at), by = by.clone()),
        None => when(key.created_at),
    };
    let prefix = key.prefix.clone();
    view! {
        <tr data-testid="key-row" data-key-id=key.id data-prefix=key.prefix.clone() class:revoked=!live>
            <td><code data-testid="key-prefix">{key.prefix.clone()} "…"</code></td>
            <td>{key.boards.join(", ")}</td>
            <td class="limits">
                {tr!(l, "keys-limits", rate = key.rate_per_second.to_string(), burst = key.burst.to_string())}
            </td>
            <td>{created}</td>
            <td data-testid="key-state">{state}</td>
            <td>
                {live.then(|| view! {
                    <details class="confirm">
                        <summary data-testid="revoke-key">{tr!(l, "keys-revoke")}</summary>
                        <ActionForm action=revoke attr:class="stacked">
                            <input type="hidden" name="id" value=key.id/>
                            <label>
                                {tr!(l, "keys-reason")}
                                <input type="text" name="reason" maxlength="1000" data-testid="revoke-reason"/>
                            </label>
                            <button type="submit" class="danger" data-testid="confirm-revoke">
                                {tr!(l, "keys-revoke-confirm", prefix = prefix.clone())}
                            </button>
                            <span class="hint">{tr!(l, "keys-revoke-hint")}</span>
                        </ActionForm>
                    </details>
                })}
            </td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use crate::i18n::{Locale, tr};

    #[test]
    fn a_keys_limits_read_in_each_language_with_the_space_before_them() {
        let en = tr!(Locale::En, "keys-new-key-limits", rate = "1", burst = "2");
        assert_eq!(en, " (1/s, burst 2)");
        let zh = tr!(Locale::ZhCn, "keys-limits", rate = "50", burst = "100");
        assert_eq!(zh, "每秒 50 次，突发 100 次");
    }
}
