//! The console's ingest keys: list, create (the full key shown once), revoke. Every function is
//! under the console prefix (`admin_…`, gated by the server on a live session) and names the
//! signed-in admin first ([`super::admin::admin_actor`]); creating and revoking are audited under
//! that name.
//!
//! Showing a new key once, with or without JavaScript: a script's call gets the key in the answer.
//! A plain form post (no script; it accepts HTML) is redirected back to `/admin/keys`, so the key
//! travels in a short-lived cookie instead — HttpOnly, SameSite=Strict, only sent to
//! `/admin/keys`, cleared by the page that shows it — never in a URL, where history and logs
//! would keep it.

use crate::error::AppError;
use domain::apikey::ApiKeyView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// A key just made: the secret (shown this once) and the key as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewKey {
    pub key: String,
    pub view: ApiKeyView,
}

/// What `/admin/keys` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeysPage {
    /// Every key, live and revoked, oldest first (prefixes only).
    pub keys: Vec<ApiKeyView>,
    /// The slugs of every board, periodic and hot, a key may be made for.
    pub boards: Vec<String>,
    /// A key this browser just made through a plain form post, shown this once.
    pub created: Option<NewKey>,
}

/// The cookie carrying a new key across a plain form post's redirect.
#[cfg(feature = "ssr")]
const NEW_KEY_COOKIE: &str = "laurel_new_key";

/// The keys, the boards, and a key made by this browser's last plain form post (whose cookie is
/// then cleared: it is shown once).
#[server(endpoint = "admin_keys")]
pub async fn read_keys() -> Result<KeysPage, AppError> {
    super::admin::admin_actor().await?;
    let engine = super::engine()?;
    let headers = super::request_headers().await?;
    let keys = engine.access().api_keys().await?;
    let mut created = None;
    if let Some(secret) = super::session::cookie(&headers, NEW_KEY_COOKIE) {
        expect_context::<leptos_axum::ResponseOptions>().append_header(
            http::header::SET_COOKIE,
            http::HeaderValue::from_str(&format!(
                "{NEW_KEY_COOKIE}=; Path=/admin/keys; HttpOnly; SameSite=Strict; Max-Age=0"
            ))
            .expect("a constant cookie"),
        );
        // Only a live key of this ledger is shown (the cookie is the browser's to change).
        if let Some(scope) = engine.access().api_key_scope(secret).await?
            && let Some(view) = keys.iter().find(|k| k.id == scope.id)
        {
            created = Some(NewKey { key: secret.to_owned(), view: view.clone() });
        }
    }
    let mut boards: Vec<String> =
        engine.reads().boards().await?.into_iter().map(|b| b.slug.to_string()).collect();
    boards.extend(engine.hot().summaries().await?.into_iter().map(|b| b.slug.to_string()));
    boards.sort();
    Ok(KeysPage { keys, boards, created })
}

/// Makes an ingest key. `boards` are comma- or space-separated slugs; empty limits take the
/// defaults (50/s, burst twice the rate).
#[server(endpoint = "admin_create_key")]
pub async fn create_key(boards: String, rate_per_second: String, burst: String) -> Result<NewKey, AppError> {
    let actor = super::admin::admin_actor().await?;
    let l = crate::i18n::locale();
    let number = |field: &str, raw: &str| -> Result<Option<i64>, AppError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Ok(None);
        }
        raw.parse()
            .map(Some)
            .map_err(|_| AppError::Invalid(crate::i18n::tr!(l, "keys-not-whole", field = field.to_owned())))
    };
    let limits = domain::apikey::KeyLimits::parse(
        number("rate_per_second", &rate_per_second)?,
        number("burst", &burst)?,
    )
    .map_err(AppError::Invalid)?;
    let boards = boards
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| domain::BoardSlug::parse(s).map_err(|e| AppError::Invalid(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let issued = super::engine()?.access().issue_api_key(&boards, limits, &actor).await?;
    let headers = super::request_headers().await?;
    let plain_form_post = headers
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    if plain_form_post {
        let secure = if super::session::https(&headers) { "; Secure" } else { "" };
        let cookie = format!(
            "{NEW_KEY_COOKIE}={}; Path=/admin/keys; HttpOnly; SameSite=Strict; Max-Age=300{secure}",
            issued.key
        );
        expect_context::<leptos_axum::ResponseOptions>().append_header(
            http::header::SET_COOKIE,
            http::HeaderValue::from_str(&cookie).expect("keys are ASCII letters, digits and _"),
        );
        leptos_axum::redirect("/admin/keys");
    }
    Ok(NewKey { key: issued.key, view: issued.view })
}

/// Revokes an ingest key (it is refused from then on). Revoking it again changes nothing.
#[server(endpoint = "admin_revoke_key")]
pub async fn revoke_key(id: i64, reason: String) -> Result<ApiKeyView, AppError> {
    let actor = super::admin::admin_actor().await?;
    let reason = Some(reason.trim()).filter(|r| !r.is_empty());
    Ok(super::engine()?.access().revoke_api_key(id, &actor, reason).await?)
}
