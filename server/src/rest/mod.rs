//! The HTTP API v1 (the contract is docs/API.md; the OpenAPI document is its exact form). Each
//! handler parses at the edge, checks who is calling, calls one engine use case and shapes the
//! answer. Errors are always `{"error": "<code>", "detail": "<sentence>"}`.
//!
//! One module per group of routes, each holding its request types, its typed answers (`Serialize`
//! and `ToSchema`, returned as `Json<T>`) and its handlers: `writes.rs`, `boards.rs` (with hot
//! boards' definitions), `hot.rs`, `reads.rs`, `as_of.rs`, `stream.rs`, `lifecycle.rs`, `late.rs` (late writes' review),
//! `public_freeze.rs`, `audit.rs`, `previews.rs` (previews, applies and settlement revisions), `totals_import.rs` (imports of
//! existing totals) and `keys.rs`. A module of routes
//! imports only the shared modules, never another module of routes (`imports_tests.rs` holds
//! it):
//!
//! - `auth.rs`: who is calling, as extractors (`Admin`; `Ingest`, with the key's boards and its
//!   rate limit); an admin token is named `token#<id>` in the audit trail, a console session
//!   `admin:<user>`;
//! - `params.rs`: the path parameters and what an impossible one means (404); `PeriodScope`, the
//!   extractor that resolves `{board}`/`{period}` to an `engine::scope::Scope` after the caller's
//!   check; a page's `offset`;
//! - `error.rs`: the one error shape (`ErrorBody` with a `domain::ErrorCode`, whose status it
//!   answers), the `ApiPath`/`ApiQuery` extractors, `Retry-After` on 429;
//! - `body.rs`: every JSON body through one extractor, `JsonBody`, and the bodies several
//!   modules read (`ReasonIn`);
//! - `slots.rs`: the live streams per client.
//!
//! The routes are one table, [`routes`]: an `OpenApiRouter` (`utoipa-axum`) adding each handler
//! with `routes!`, so a route's path and method are written once, in its `#[utoipa::path]`;
//! [`bounded`] puts [`REQUEST_DEADLINE`] on a route. The OpenAPI document is `openapi.rs`.

mod as_of;
mod audit;
mod auth;
mod boards;
mod body;
mod error;
mod hot;
mod keys;
mod late;
mod lifecycle;
mod openapi;
mod params;
mod previews;
mod public_freeze;
mod reads;
pub(crate) mod slots;
mod stream;
mod totals_import;
mod writes;

#[cfg(test)]
mod imports_tests;
#[cfg(test)]
mod openapi_tests;
#[cfg(test)]
mod tests;

pub use error::{ApiError, no_route};

use crate::state::AppState;
use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use std::sync::LazyLock;
use utoipa::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// How long a write or a read may take before it is answered 503 `unavailable`. A store that
/// stops answering with its connections open (a silent PostgreSQL) would otherwise hold every
/// request whose statement was sent for as long as it stays silent: the pool bounds only the wait
/// for a connection. Giving up is safe: a write either committed or will not, and its retry with
/// the same id is recorded once either way. Far above a healthy request (milliseconds; a full
/// batch well under a second). The lifecycle's admin calls (settle, corrections, rebuild…) are not
/// bounded: a settlement of a million members takes seconds, and a client's retry of one waits
/// for the first on the period's lock anyway.
pub const REQUEST_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// The REST router: every route of [`routes`], and 405 `method_not_allowed` for a method a
/// route does not serve.
pub fn router() -> Router<AppState> {
    let (router, _document) = routes().split_for_parts();
    router.method_not_allowed_fallback(error::wrong_method)
}

/// Every route of the API, each declared once: its path and method are those of its handler's
/// `#[utoipa::path]`, and the OpenAPI document's paths are collected from this table, in its
/// order. Only `routes!` adds a route here (a test holds it), so none is served undocumented.
/// [`bounded`] ones answer within [`REQUEST_DEADLINE`]: writes and reads. The lifecycle's admin
/// calls and the live stream (it answers at once and then streams) are not bounded.
fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(bounded(routes!(boards::create, boards::list)))
        .routes(bounded(routes!(boards::show)))
        .routes(bounded(routes!(writes::events)))
        .routes(bounded(routes!(writes::total)))
        .routes(bounded(routes!(writes::submission)))
        .routes(bounded(routes!(writes::profile)))
        .routes(bounded(routes!(reads::periods)))
        .routes(bounded(routes!(reads::top)))
        .routes(bounded(routes!(reads::entries)))
        .routes(bounded(routes!(reads::create_snapshot)))
        .routes(bounded(routes!(reads::snapshot_entries)))
        .routes(bounded(routes!(reads::member_rank)))
        .routes(bounded(routes!(reads::around)))
        .routes(bounded(routes!(reads::member_events)))
        .routes(bounded(routes!(reads::member_season)))
        .routes(bounded(routes!(reads::count)))
        .routes(bounded(routes!(reads::ranks)))
        .routes(bounded(routes!(reads::segment_values)))
        .routes(bounded(routes!(as_of::as_of)))
        .routes(bounded(routes!(as_of::changes)))
        .routes(routes!(stream::stream))
        .routes(routes!(lifecycle::freeze))
        .routes(routes!(lifecycle::reopen))
        .routes(routes!(lifecycle::settle))
        .routes(routes!(lifecycle::archive))
        .routes(routes!(public_freeze::public_freeze))
        .routes(routes!(public_freeze::reveal))
        .routes(bounded(routes!(lifecycle::settlement)))
        .routes(routes!(lifecycle::rewards))
        .routes(routes!(late::late))
        .routes(routes!(late::accept_late))
        .routes(routes!(late::reject_late))
        .routes(routes!(lifecycle::correct))
        .routes(routes!(lifecycle::revoke))
        .routes(routes!(lifecycle::hide))
        .routes(routes!(lifecycle::unhide))
        .routes(routes!(totals_import::import))
        .routes(routes!(previews::create))
        .routes(routes!(previews::show))
        .routes(routes!(previews::apply))
        .routes(routes!(previews::cancel))
        .routes(bounded(routes!(previews::settlements)))
        .routes(bounded(routes!(previews::receipt)))
        .routes(routes!(boards::rebuild))
        .routes(routes!(audit::audit))
        .routes(bounded(routes!(hot::hits)))
        .routes(bounded(routes!(hot::top)))
        .routes(routes!(hot::set_filter))
        .routes(routes!(keys::list, keys::create))
        .routes(routes!(keys::revoke))
        .routes(routes!(serve))
}

/// The route under [`REQUEST_DEADLINE`] (the layer `Router::route_layer` would put on it).
fn bounded(route: UtoipaMethodRouter<AppState>) -> UtoipaMethodRouter<AppState> {
    route.layer(axum::middleware::from_fn(deadline))
}

/// The OpenAPI document of [`routes`], as served.
static DOCUMENT: LazyLock<String> = LazyLock::new(|| openapi::document(routes().into_openapi()));

/// `GET /api/v1/openapi.json`: this document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "operations",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API", content_type = "application/json", body = Object))
)]
async fn serve() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT.as_str())
}

/// Answers 503 `unavailable` when the request has no answer within [`REQUEST_DEADLINE`].
async fn deadline(request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    use axum::response::IntoResponse;
    let target = request.uri().path().to_owned();
    match tokio::time::timeout(REQUEST_DEADLINE, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(%target, "no answer from the stores within the request deadline");
            let seconds = REQUEST_DEADLINE.as_secs();
            ApiError {
                retry_after: Some(1),
                ..ApiError::new(
                    domain::ErrorCode::Unavailable,
                    format!(
                        "no answer from the stores within {seconds} s; retry (a write sent again with \
                         the same id is recorded once)"
                    ),
                )
            }
            .into_response()
        }
    }
}
