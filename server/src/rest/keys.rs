//! Ingest keys (admin): list (prefixes only), create (the full key answered once) and revoke.
//! Every route checks the admin before it reads the body; creating and revoking are audited
//! (`apikey_create`, `apikey_revoke`) under the admin's name.

use super::auth::Admin;
use super::body::JsonBody;
use super::error::{ApiError, ApiPath, ErrorBody};
use super::params::KeyParams;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use domain::BoardSlug;
use domain::ErrorCode;
use domain::apikey::{ApiKeyView, KeyLimits};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NewKey)]
pub struct KeyIn {
    /// The boards (periodic or hot) the key may write to: at least one, each existing.
    #[schema(value_type = Vec<BoardSlug>, min_items = 1)]
    boards: Vec<String>,
    /// Requests per second on average, 1-10000; default 50.
    #[schema(minimum = 1, maximum = 10000)]
    rate_per_second: Option<i64>,
    /// Requests at once, 1-20000; default twice the rate (at most 20000).
    #[schema(minimum = 1, maximum = 20000)]
    burst: Option<i64>,
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = KeyRevocation)]
pub struct RevokeIn {
    /// Recorded in the audit trail; optional.
    reason: Option<String>,
}

/// The id in the path: anything but an integer names no key.
fn key_id(raw: &str) -> Result<i64, ApiError> {
    raw.parse().map_err(|_| ApiError::new(ErrorCode::NotFound, format!("api key {raw} not found")))
}

#[utoipa::path(
    get,
    path = "/api/v1/keys",
    tag = "keys",
    summary = "List ingest keys",
    description = "Every key, live and revoked, oldest first: its prefix, never the secret or its digest.",
    security(("admin_token" = [])),
    responses(
        (status = 200, description = "The keys", body = KeyList),
    )
)]
pub async fn list(State(state): State<AppState>, _admin: Admin) -> Result<Json<KeyList>, ApiError> {
    Ok(Json(KeyList { keys: state.engine.access().api_keys().await? }))
}

/// Every ingest key, oldest first.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct KeyList {
    pub keys: Vec<ApiKeyView>,
}

/// A new ingest key: the secret, shown this once, and the key as listed.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct NewKeyAnswer {
    /// The full key (`laurel_ik_…`): send it as `Authorization: Bearer <key>`. Only its digest is
    /// kept: copy it now, it cannot be shown again.
    pub key: String,
    #[serde(flatten)]
    pub view: ApiKeyView,
}

#[utoipa::path(
    post,
    path = "/api/v1/keys",
    tag = "keys",
    summary = "Create an ingest key",
    description = "Answers the full key once: only its digest is kept, so it cannot be shown again. \
        Audited as `apikey_create`.",
    security(("admin_token" = [])),
    request_body = KeyIn,
    responses(
        (status = 201, description = "The new key: `key` is the secret, shown this once", body = NewKeyAnswer),
        (status = 422, description = "invalid (no board, an unknown board, limits out of bounds) / \
            invalid_body; nothing was created", body = ErrorBody),
    )
)]
pub async fn create(
    State(state): State<AppState>,
    admin: Admin,
    body: JsonBody,
) -> Result<(StatusCode, Json<NewKeyAnswer>), ApiError> {
    let body: KeyIn = body.parse()?;
    let boards = body
        .boards
        .into_iter()
        .map(|b| BoardSlug::parse(b).map_err(|e| ApiError::invalid(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let limits = KeyLimits::parse(body.rate_per_second, body.burst).map_err(ApiError::invalid)?;
    let issued = state.engine.access().issue_api_key(&boards, limits, &admin.actor).await?;
    Ok((StatusCode::CREATED, Json(NewKeyAnswer { key: issued.key, view: issued.view })))
}

#[utoipa::path(
    post,
    path = "/api/v1/keys/{id}/revoke",
    tag = "keys",
    summary = "Revoke an ingest key",
    description = "The key answers 401 from then on. Revoking a revoked key answers it unchanged. Audited \
        as `apikey_revoke`.",
    security(("admin_token" = [])),
    params(KeyParams),
    request_body(content = Option<RevokeIn>, description = "Optional"),
    responses(
        (status = 200, description = "The key, revoked", body = ApiKeyView),
        (status = 404, description = "not_found: no such key", body = ErrorBody),
        (status = 422, description = "invalid / invalid_body", body = ErrorBody),
    )
)]
pub async fn revoke(
    State(state): State<AppState>,
    admin: Admin,
    ApiPath(KeyParams { id }): ApiPath<KeyParams>,
    body: JsonBody,
) -> Result<Json<ApiKeyView>, ApiError> {
    // No body, or JSON null (the document's `oneOf [null, KeyRevocation]`): no reason.
    let body: RevokeIn = body.parse_or_default()?;
    let id = key_id(&id)?;
    Ok(Json(state.engine.access().revoke_api_key(id, &admin.actor, body.reason.as_deref()).await?))
}
