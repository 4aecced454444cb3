//! The HTTP API v1 (the contract is docs/API.md; the OpenAPI document is its exact form). Each
//! handler parses at the edge, checks who is calling, calls one engine use case and shapes the
//! answer. Errors are always `{"error": "<code>", "detail": "<sentence>"}`.

mod auth;
mod boards;
mod error;
mod hot;
mod keys;
mod lifecycle;
mod openapi;
mod params;
mod previews;
mod reads;
mod stream;
mod writes;

#[cfg(test)]
mod tests;

pub use error::{ApiError, no_route};
pub use stream::StreamSlots;

use crate::state::AppState;
use axum::Router;
use axum::routing::{get, post, put};

/// How long a write or a read may take before it is answered 503 `unavailable`. A store that
/// stops answering with its connections open (a silent PostgreSQL) would otherwise hold every
/// request whose statement was sent for as long as it stays silent: the pool bounds only the wait
/// for a connection. Giving up is safe: a write either committed or will not, and its retry with
/// the same id is recorded once either way. Far above a healthy request (milliseconds; a full
/// batch well under a second). The lifecycle's admin calls (settle, corrections, rebuild…) are not
/// bounded: a settlement of a million members takes seconds, and a client's retry of one waits
/// for the first on the period's lock anyway.
pub const REQUEST_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

pub fn router() -> Router<AppState> {
    Router::new()
        // Bounded by REQUEST_DEADLINE: writes and reads.
        .route("/api/v1/boards", post(boards::create).get(boards::list))
        .route("/api/v1/boards/{board}", get(boards::show))
        .route("/api/v1/boards/{board}/events", post(writes::events))
        .route("/api/v1/boards/{board}/members/{member}/total", put(writes::total))
        .route("/api/v1/boards/{board}/submissions", post(writes::submission))
        .route("/api/v1/members/{member}/profile", put(writes::profile))
        .route("/api/v1/boards/{board}/periods", get(reads::periods))
        .route("/api/v1/boards/{board}/periods/{period}/top", get(reads::top))
        .route("/api/v1/boards/{board}/periods/{period}/entries", get(reads::entries))
        .route("/api/v1/boards/{board}/periods/{period}/snapshots", post(reads::create_snapshot))
        .route(
            "/api/v1/boards/{board}/periods/{period}/snapshots/{snapshot}/entries",
            get(reads::snapshot_entries),
        )
        .route("/api/v1/boards/{board}/periods/{period}/members/{member}", get(reads::member_rank))
        .route("/api/v1/boards/{board}/periods/{period}/members/{member}/around", get(reads::around))
        .route("/api/v1/boards/{board}/periods/{period}/members/{member}/events", get(reads::member_events))
        .route("/api/v1/boards/{board}/periods/{period}/count", get(reads::count))
        .route("/api/v1/boards/{board}/periods/{period}/ranks", get(reads::ranks))
        .route("/api/v1/boards/{board}/periods/{period}/settlement", get(lifecycle::settlement))
        .route("/api/v1/boards/{board}/periods/{period}/settlements", get(previews::settlements))
        .route("/api/v1/boards/{board}/hits", post(hot::hits))
        .route("/api/v1/boards/{board}/hot/top", get(hot::top))
        .route_layer(axum::middleware::from_fn(deadline))
        // Not bounded: the lifecycle's admin calls, and the live stream (it answers at once and
        // then streams).
        .route("/api/v1/boards/{board}/periods/{period}/stream", get(stream::stream))
        .route("/api/v1/boards/{board}/periods/{period}/rebuild", post(boards::rebuild))
        .route("/api/v1/boards/{board}/periods/{period}/freeze", post(lifecycle::freeze))
        .route("/api/v1/boards/{board}/periods/{period}/reopen", post(lifecycle::reopen))
        .route("/api/v1/boards/{board}/periods/{period}/settle", post(lifecycle::settle))
        .route("/api/v1/boards/{board}/periods/{period}/archive", post(lifecycle::archive))
        .route("/api/v1/boards/{board}/periods/{period}/public-freeze", post(lifecycle::public_freeze))
        .route("/api/v1/boards/{board}/periods/{period}/reveal", post(lifecycle::reveal))
        .route("/api/v1/boards/{board}/periods/{period}/rewards", get(lifecycle::rewards))
        .route("/api/v1/boards/{board}/periods/{period}/late", get(lifecycle::late))
        .route("/api/v1/boards/{board}/periods/{period}/late/{id}/accept", post(lifecycle::accept_late))
        .route("/api/v1/boards/{board}/periods/{period}/late/{id}/reject", post(lifecycle::reject_late))
        .route("/api/v1/boards/{board}/periods/{period}/corrections", post(lifecycle::correct))
        .route("/api/v1/boards/{board}/periods/{period}/members/{member}/hide", post(lifecycle::hide))
        .route("/api/v1/boards/{board}/periods/{period}/members/{member}/unhide", post(lifecycle::unhide))
        .route("/api/v1/boards/{board}/events/{event_id}/revoke", post(lifecycle::revoke))
        .route("/api/v1/boards/{board}/periods/{period}/previews", post(previews::create))
        .route("/api/v1/boards/{board}/periods/{period}/previews/{id}", get(previews::show))
        .route("/api/v1/boards/{board}/periods/{period}/previews/{id}/apply", post(previews::apply))
        .route("/api/v1/boards/{board}/periods/{period}/previews/{id}/cancel", post(previews::cancel))
        .route("/api/v1/audit", get(lifecycle::audit))
        .route("/api/v1/keys", get(keys::list).post(keys::create))
        .route("/api/v1/keys/{id}/revoke", post(keys::revoke))
        .route("/api/v1/openapi.json", get(openapi::serve))
        .method_not_allowed_fallback(error::wrong_method)
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
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
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
