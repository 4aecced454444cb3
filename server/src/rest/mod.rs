//! The HTTP API v1 (the contract is ../shared/api.md, mirrored in docs/ARCHITECTURE.md). Each
//! handler parses at the edge, checks who is calling, calls one engine use case and shapes the
//! answer. Errors are always `{"error": "<code>", "detail": "<sentence>"}`.

mod auth;
mod boards;
mod error;
mod writes;

#[cfg(test)]
mod tests;

pub use error::ApiError;

use crate::http::AppState;
use axum::Router;
use axum::routing::{get, post, put};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/boards", post(boards::create).get(boards::list))
        .route("/api/v1/boards/{board}", get(boards::show))
        .route("/api/v1/boards/{board}/events", post(writes::events))
        .route("/api/v1/boards/{board}/members/{member}/total", put(writes::total))
        .route("/api/v1/boards/{board}/submissions", post(writes::submission))
        .route("/api/v1/members/{member}/profile", put(writes::profile))
        .route("/api/v1/boards/{board}/periods/{period}/rebuild", post(boards::rebuild))
}
