//! The console's ingest keys, `/admin/keys` (server functions `admin_keys`, `admin_create_key`,
//! `admin_revoke_key` in `api::keys`): the table by prefix, the create form that shows the full
//! key once (with a copy button once hydrated: `navigator.clipboard`), and a confirmed revoke per
//! live key. Without JavaScript the new key crosses the form post in a one-time cookie.

use crate::api::keys::{CreateKey, KeysPage, NewKey, RevokeKey, read_keys};
use crate::components::error_view::ErrorView;
use crate::error::AppError;
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
    view! {
        <Title text="Ingest keys"/>
        <p class="meta"><a href="/admin">"Console"</a>" › Ingest keys"</p>
        <h1>"Ingest keys"</h1>
        {move || created().map(|new| view! { <NewKeyNotice new/> })}
        // A transition keeps the table in place while it is read again after a change.
        <Transition fallback=|| view! { <p>"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(data) => Ok(view! { <Keys data create revoke/> }.into_any()),
                        Err(AppError::Denied(reason)) => Ok(view! {
                            <p data-testid="signed-out">{reason} " " <a href="/admin/login">"Sign in"</a></p>
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
    view! {
        <section class="notice new-key" role="status" data-testid="new-key">
            <p>
                "New key " <strong>{new.view.prefix.clone()} "…"</strong> " for "
                {new.view.boards.join(", ")} {format!(" ({}/s, burst {})", new.view.rate_per_second, new.view.burst)}
            </p>
            <p><code class="secret" data-testid="new-key-secret">{new.key.clone()}</code></p>
            <p>
                <strong>"Copy it now; it will not be shown again."</strong> " "
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
    let said = RwSignal::new(None::<&'static str>);
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::closure::Closure;
            let Some(window) = web_sys::window() else { return };
            let promise = window.navigator().clipboard().write_text(&text);
            let done = Closure::once(move |_: wasm_bindgen::JsValue| said.set(Some("Copied.")));
            let failed = Closure::once(move |_: wasm_bindgen::JsValue| {
                said.set(Some("The browser refused; select the key and copy it."))
            });
            let _ = promise.then2(&done, &failed);
            // The promise holds them until it settles.
            done.forget();
            failed.forget();
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (&text, said);
    };
    view! {
        <button type="button" class="secondary" hidden=move || !hydrated.get() on:click=copy data-testid="copy-key">
            "Copy the key"
        </button>
        <span role="status" data-testid="copy-said">{move || said.get()}</span>
    }
}

/// The key made by this browser's last plain form post, the table, and the form for a new key.
#[component]
fn Keys(data: KeysPage, create: ServerAction<CreateKey>, revoke: ServerAction<RevokeKey>) -> impl IntoView {
    let KeysPage { keys, boards, created } = data;
    let boards_hint = if boards.is_empty() {
        "Slugs, separated by commas. There are no boards yet.".to_owned()
    } else {
        format!("Slugs, separated by commas, of: {}.", boards.join(", "))
    };
    let create_refused = move || create.value().get().and_then(Result::err).map(|e| e.to_string());
    let revoke_refused = move || revoke.value().get().and_then(Result::err).map(|e| e.to_string());
    view! {
        {created.map(|new| view! { <NewKeyNotice new/> })}
        {if keys.is_empty() {
            view! { <p class="empty" data-testid="no-keys">"No ingest keys yet."</p> }.into_any()
        } else {
            view! {
                <table class="keys" data-testid="keys">
                    <thead>
                        <tr>
                            <th scope="col">"Key"</th>
                            <th scope="col">"Boards"</th>
                            <th scope="col">"Limit"</th>
                            <th scope="col">"Created"</th>
                            <th scope="col">"State"</th>
                            <th scope="col"><span class="visually-hidden">"Actions"</span></th>
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
        <h2>"New key"</h2>
        <ActionForm action=create attr:class="stacked">
            <label>
                "Boards"
                <input type="text" name="boards" required placeholder="weekly-study, trending"
                    autocomplete="off" data-testid="new-key-boards"/>
                <span class="hint" data-testid="boards-hint">{boards_hint}</span>
            </label>
            <label>
                "Requests per second"
                <input type="number" name="rate_per_second" min="1" max=MAX_RATE_PER_SECOND
                    placeholder=DEFAULT_RATE_PER_SECOND.to_string() data-testid="new-key-rate"/>
                <span class="hint">{format!("1–{MAX_RATE_PER_SECOND}; empty: {DEFAULT_RATE_PER_SECOND}.")}</span>
            </label>
            <label>
                "Burst"
                <input type="number" name="burst" min="1" max=MAX_BURST placeholder="twice the rate"
                    data-testid="new-key-burst"/>
                <span class="hint">{format!("Requests at once, 1–{MAX_BURST}; empty: twice the rate.")}</span>
            </label>
            <button type="submit" data-testid="create-key">"Create key"</button>
        </ActionForm>
        {move || create_refused().map(|e| view! {
            <p class="notice error" role="alert" data-testid="create-error">{e}</p>
        })}
        <p class="hint">
            "Limits are counted across all server instances together (in Redis). Only while Redis cannot "
            "be reached does each instance count on its own, so a key may then make that many requests in "
            "each. Requests over the limit are answered 429 with Retry-After and change nothing."
        </p>
    }
}

fn when(at: jiff::Timestamp) -> String {
    at.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

#[component]
fn KeyRow(key: ApiKeyView, revoke: ServerAction<RevokeKey>) -> impl IntoView {
    let live = key.is_live();
    let state = match (&key.revoked_at, &key.revoked_by) {
        (None, _) => "live".to_owned(),
        (Some(at), Some(by)) => format!("revoked {} by {by}", when(*at)),
        (Some(at), None) => format!("revoked {}", when(*at)),
    };
    let created = match &key.created_by {
        Some(by) => format!("{} by {by}", when(key.created_at)),
        None => when(key.created_at),
    };
    let prefix = key.prefix.clone();
    view! {
        <tr data-testid="key-row" data-key-id=key.id data-prefix=key.prefix.clone() class:revoked=!live>
            <td><code data-testid="key-prefix">{key.prefix.clone()} "…"</code></td>
            <td>{key.boards.join(", ")}</td>
            <td class="limits">{format!("{}/s, burst {}", key.rate_per_second, key.burst)}</td>
            <td>{created}</td>
            <td data-testid="key-state">{state}</td>
            <td>
                {live.then(|| view! {
                    <details class="confirm">
                        <summary data-testid="revoke-key">"Revoke…"</summary>
                        <ActionForm action=revoke attr:class="stacked">
                            <input type="hidden" name="id" value=key.id/>
                            <label>
                                "Reason (optional)"
                                <input type="text" name="reason" maxlength="1000" data-testid="revoke-reason"/>
                            </label>
                            <button type="submit" class="danger" data-testid="confirm-revoke">
                                {format!("Revoke {prefix}…")}
                            </button>
                            <span class="hint">"Requests with this key are refused at once, for good."</span>
                        </ActionForm>
                    </details>
                })}
            </td>
        </tr>
    }
}
