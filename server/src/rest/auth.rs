//! Who is calling: `Authorization: Bearer <admin token | ingest key>`, or for admin routes the
//! console's session cookie. Missing or unknown → 401; a key scoped to other boards → 403; a key
//! over its rate limit → 429. Admin tokens and sessions may do everything, unlimited. Cross-site
//! browser requests never get here (`http::refuse_cross_site`).
//!
//! A handler says what it needs in its signature: an [`Admin`] or an [`Ingest`] argument is
//! checked before any other argument (the body last), so an anonymous caller learns nothing about
//! a body.

use super::error::ApiError;
use crate::state::AppState;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use domain::BoardSlug;
use domain::ErrorCode;
use engine::Engine;

fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| unauthorized("send Authorization: Bearer <key>"))
}

fn unauthorized(detail: &str) -> ApiError {
    ApiError::new(ErrorCode::Unauthorized, detail)
}

/// An authenticated admin, named as the audit trail shows it.
pub struct Admin {
    pub actor: String,
}

impl axum::extract::FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        admin(&state.engine, &parts.headers).await
    }
}

impl axum::extract::FromRequestParts<AppState> for Ingest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        ingest(&state.engine, &parts.headers).await
    }
}

/// The caller holds an admin token, or (from the console in a browser) a live session cookie.
async fn admin(engine: &Engine, headers: &HeaderMap) -> Result<Admin, ApiError> {
    if headers.get(header::AUTHORIZATION).is_none()
        && let Some(session) = app::api::session::session_token(headers)
    {
        return match engine.access().session_actor(session, jiff::Timestamp::now()).await? {
            Some(actor) => Ok(Admin { actor }),
            None => Err(unauthorized("the session has ended; sign in again")),
        };
    }
    match engine.access().admin_actor(bearer(headers)?).await? {
        Some(actor) => Ok(Admin { actor }),
        None => Err(unauthorized("this endpoint needs an admin token (laurel admin token)")),
    }
}

/// Who reads a public route: an admin token (`Authorization: Bearer`) reads live during a
/// public freeze; anyone else — no header, or credentials that are not an admin's — reads the
/// public view (a read never fails for its credentials).
pub struct Reader(pub engine::Viewer);

impl axum::extract::FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        use engine::Viewer;
        let Ok(secret) = bearer(&parts.headers) else { return Ok(Reader(Viewer::Public)) };
        Ok(Reader(match state.engine.access().admin_actor(secret).await? {
            Some(_) => Viewer::Admin,
            None => Viewer::Public,
        }))
    }
}

/// The caller may write to some board: returns the check for a particular one.
pub struct Ingest {
    scope: Option<engine::access::keys::KeyScope>,
}

impl Ingest {
    pub fn may_write(&self, board: &BoardSlug) -> Result<(), ApiError> {
        match &self.scope {
            None => Ok(()), // an admin token
            Some(scope) if scope.allows(board) => Ok(()),
            Some(_) => {
                Err(ApiError::new(ErrorCode::Forbidden, format!("this key may not write to board {board}")))
            }
        }
    }
}

/// The caller holds a live ingest key within its rate limit, or an admin token (never limited).
/// A key over its limit is refused 429 with `Retry-After` before anything is read or written.
async fn ingest(engine: &Engine, headers: &HeaderMap) -> Result<Ingest, ApiError> {
    let secret = bearer(headers)?;
    if let Some(scope) = engine.access().api_key_scope(secret).await? {
        engine.access().admit(&scope).await.map_err(ApiError::rate_limited)?;
        return Ok(Ingest { scope: Some(scope) });
    }
    if engine.access().admin_actor(secret).await?.is_some() {
        return Ok(Ingest { scope: None });
    }
    Err(unauthorized("unknown or revoked key"))
}
