//! The HTTP surface: operations endpoints, the Leptos pages and server functions, and the
//! embedded site. REST routes of /api/v1 will live beside these.

use crate::assets;
use app::{App, shell};
use axum::body::Body;
use axum::extract::{FromRef, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use engine::Engine;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use serde_json::json;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub engine: Engine,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let engine = state.engine.clone();
    let options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(engine.clone()),
            move || shell(options.clone()),
        )
        .fallback(fallback)
        .with_state(state)
}

/// The process is alive (it answers).
async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "alive" }))
}

/// Both stores answer; otherwise 503 naming the one that does not.
async fn readyz(State(state): State<AppState>) -> Response {
    let r = state.engine.readiness().await;
    let word = |r: &Result<(), String>| r.as_ref().map_or_else(|e| e.clone(), |()| "ok".to_owned());
    if r.is_ready() {
        return Json(json!({ "status": "ready", "ledger": "ok", "redis": "ok" })).into_response();
    }
    let failing: Vec<&str> = [("ledger", &r.ledger), ("redis", &r.redis)]
        .into_iter()
        .filter(|(_, r)| r.is_err())
        .map(|(n, _)| n)
        .collect();
    let body = json!({
        "error": "not_ready",
        "detail": format!("unreachable: {}", failing.join(", ")),
        "ledger": word(&r.ledger),
        "redis": word(&r.redis),
    });
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}

/// Embedded files first; anything else is rendered by the app, whose fallback route answers 404.
async fn fallback(State(state): State<AppState>, req: Request<Body>) -> Response {
    if let Some(file) = assets::serve(&req) {
        return file;
    }
    let engine = state.engine.clone();
    let options = state.leptos_options.clone();
    let render = leptos_axum::render_app_to_stream_with_context(
        move || provide_context(engine.clone()),
        move || shell(options.clone()),
    );
    render(req).await.into_response()
}
