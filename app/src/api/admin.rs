//! The console's server functions: sign in, sign out, and who is signed in. Sessions are checked
//! here, on the server; cross-site posts never reach these (the server refuses them first, see
//! `session::same_site`).
//!
//! Sign-in: `/admin/login` posts `login` (a plain form without JavaScript) → `Access::login` →
//! the session cookie → `/admin`. Admin REST routes accept that cookie as well as a bearer admin
//! token (`server/src/rest/auth.rs`); the audit trail names `admin:<user>` or `token#<id>`.

use crate::error::AppError;
use leptos::prelude::*;

/// Where the console's server functions live: every one is registered as `admin_<name>`, and the
/// server lets only a signed-in admin reach this prefix (`server::http::console_gate`).
pub const CONSOLE_FN_PREFIX: &str = "/api/admin_";

/// The signed-in admin's audit name, or `Denied`. Every console server function that reads admin
/// data or changes anything calls this first: the check is on the server, whatever the page shows.
#[cfg(feature = "ssr")]
pub(crate) async fn admin_actor() -> Result<String, AppError> {
    let headers = super::request_headers().await?;
    let token = super::session::session_token(&headers)
        .ok_or_else(|| AppError::Denied(crate::i18n::tr!(crate::i18n::locale(), "admin-sign-in-first")))?;
    super::engine()?
        .access()
        .session_actor(token, jiff::Timestamp::now())
        .await?
        .ok_or_else(|| AppError::Denied(crate::i18n::tr!(crate::i18n::locale(), "admin-session-ended")))
}

/// Signs an admin in: a new session cookie (any previous session of this browser ends), then to
/// the console.
#[server(endpoint = "login")]
pub async fn login(username: String, password: String) -> Result<(), AppError> {
    use super::session;
    use engine::access::admins::{LoginError, SESSION_TTL};
    let engine = super::engine()?;
    let headers = super::request_headers().await?;
    let client = use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<session::ClientAddr>().map(|addr| addr.0));
    let started =
        engine.access().login(username.trim(), &password, client, jiff::Timestamp::now()).await.map_err(
            |e| match e {
                LoginError::Engine(_) => {
                    tracing::error!(error = %e, "login failed on a store");
                    AppError::Unavailable
                }
                e => AppError::Denied(e.to_string()),
            },
        )?;
    if let Some(previous) = session::session_token(&headers) {
        engine.access().logout(previous).await?;
    }
    let response = expect_context::<leptos_axum::ResponseOptions>();
    response.append_header(
        http::header::SET_COOKIE,
        session::set_session(&headers, &started.token, SESSION_TTL.as_secs()),
    );
    leptos_axum::redirect("/admin");
    Ok(())
}

/// Ends this browser's session and clears its cookie.
#[server(endpoint = "logout")]
pub async fn logout() -> Result<(), AppError> {
    use super::session;
    let headers = super::request_headers().await?;
    if let Some(token) = session::session_token(&headers) {
        super::engine()?.access().logout(token).await?;
    }
    expect_context::<leptos_axum::ResponseOptions>()
        .append_header(http::header::SET_COOKIE, session::clear_session());
    leptos_axum::redirect("/admin/login");
    Ok(())
}

/// The signed-in admin's name in the audit trail (`admin:<username>`), or None.
#[server(endpoint = "signed_in")]
pub async fn read_signed_in() -> Result<Option<String>, AppError> {
    let headers = super::request_headers().await?;
    match super::session::session_token(&headers) {
        Some(token) => Ok(super::engine()?.access().session_actor(token, jiff::Timestamp::now()).await?),
        None => Ok(None),
    }
}
