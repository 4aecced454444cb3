//! The HTTP surface: operations endpoints, the REST API (`rest`), the Leptos pages and server
//! functions, and the embedded site. Every request's latency is recorded by route template.

use crate::assets;
use crate::state::AppState;
use app::{App, shell};
use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::future::RouteFuture;
use axum::routing::get;
use axum::{Json, Router};
use engine::Engine;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use serde::Serialize;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let engine = state.engine.clone();
    let options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .merge(crate::rest::router())
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(engine.clone()),
            move || shell(options.clone()),
        )
        .fallback(fallback)
        // One middleware for every request (each layer costs a boxed future per request).
        .layer(middleware::from_fn_with_state(state.clone(), observe_and_guard))
        .with_state(state)
}

/// The whole HTTP surface: the routes, behind [`CachedTop`].
pub fn app(state: AppState) -> CachedTop {
    CachedTop::new(state.clone(), router(state))
}

/// The route whose repeated reads [`CachedTop`] answers; they are recorded under it.
const TOP_ROUTE: &str = "/api/v1/boards/{board}/periods/{period}/top";

/// In front of the routes: a top-N read asked exactly as one answered less than a second ago
/// (and within the same period) gets the same bytes. Anything else goes on to the routes; a
/// plain service rather than a middleware, so that costs them nothing but the check.
#[derive(Clone)]
pub struct CachedTop {
    state: AppState,
    routes: Router,
}

impl CachedTop {
    pub fn new(state: AppState, routes: Router) -> Self {
        Self { state, routes }
    }

    fn answer(&self, req: &Request) -> Option<Response> {
        if req.method() != Method::GET || !req.uri().path().ends_with("/top") {
            return None;
        }
        let started = Instant::now();
        let asked = req.uri().path_and_query()?.as_str();
        let body = self.state.top_bytes.get(asked, self.state.engine.read_epoch())?;
        // Exactly the routed answer (the routes add the length).
        let length = HeaderValue::from(body.len());
        let mut response = crate::top_cache::json_response(body);
        response.headers_mut().insert(header::CONTENT_LENGTH, length);
        self.state.engine.metrics().observe_request("GET", TOP_ROUTE, 200, started.elapsed().as_secs_f64());
        Some(response)
    }
}

impl tower::Service<Request> for CachedTop {
    type Response = Response;
    type Error = Infallible;
    type Future = CachedTopFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        tower::Service::<Request>::poll_ready(&mut self.routes, cx)
    }

    fn call(&mut self, req: Request) -> CachedTopFuture {
        match self.answer(&req) {
            Some(response) => CachedTopFuture::Answered(Some(response)),
            None => CachedTopFuture::Routed(self.routes.call(req)),
        }
    }
}

/// The answer of [`CachedTop`]: from memory, or from the routes.
pub enum CachedTopFuture {
    Answered(Option<Response>),
    Routed(RouteFuture<Infallible>),
}

impl Future for CachedTopFuture {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            CachedTopFuture::Answered(response) => {
                Poll::Ready(Ok(response.take().expect("an answer is polled once")))
            }
            CachedTopFuture::Routed(routed) => Pin::new(routed).poll(cx),
        }
    }
}

/// Every request passes here: the two guards, then the handler, then its latency is recorded
/// under its route template (never the raw path, which would make one series per member).
async fn observe_and_guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    let method = req.method().clone();
    let route = req.extensions().get::<MatchedPath>().cloned();
    let response = match refuse_cross_site(&req) {
        Some(refused) => refused,
        None => match console_gate(&state.engine, req.uri().path(), req.headers()).await {
            Some(refused) => refused,
            None => next.run(req).await,
        },
    };
    let status = response.status().as_u16();
    let route = route.as_ref().map_or("(other)", MatchedPath::as_str);
    state.engine.metrics().observe_request(method.as_str(), route, status, started.elapsed().as_secs_f64());
    response
}

/// Refuses any request that could change something (not GET, HEAD or OPTIONS) when a browser
/// says it comes from another site: a cross-site form post to a server function or an admin
/// route never runs, whatever cookie it carries (`app::api::session::same_site`).
fn refuse_cross_site(req: &Request) -> Option<Response> {
    if matches!(
        *req.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS
    ) {
        return None;
    }
    let detail = app::api::session::same_site(req.headers()).err()?;
    Some(crate::rest::ApiError::new(StatusCode::FORBIDDEN, "cross_site", detail).into_response())
}

/// Lets only a signed-in admin reach a console server function (`/api/admin_…`), before its
/// arguments are even read. Each function checks again and names the actor
/// (`app::api::admin::admin_actor`); this gate makes the rule hold for every function of that
/// prefix, including ones added later.
async fn console_gate(engine: &Engine, path: &str, headers: &axum::http::HeaderMap) -> Option<Response> {
    if !path.starts_with(app::api::admin::CONSOLE_FN_PREFIX) {
        return None;
    }
    let refused = match app::api::session::session_token(headers) {
        None => "sign in to the console first",
        Some(token) => match engine.session_actor(token, jiff::Timestamp::now()).await {
            Ok(Some(_)) => return None,
            Ok(None) => "your session has ended; sign in again",
            Err(error) => {
                tracing::error!(%error, "session check failed");
                return Some(
                    (StatusCode::SERVICE_UNAVAILABLE, Json(app::error::AppError::Unavailable))
                        .into_response(),
                );
            }
        },
    };
    Some((StatusCode::FORBIDDEN, Json(app::error::AppError::Denied(refused.into()))).into_response())
}

/// Prometheus text exposition.
async fn metrics(State(state): State<AppState>) -> Response {
    let body = state.engine.metrics().render();
    ([(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], body).into_response()
}

/// The process is alive (it answers).
async fn healthz() -> Json<Health> {
    Json(Health { status: "alive" })
}

#[derive(Serialize)]
struct Health {
    status: &'static str,
}

/// Both stores answer; otherwise 503 naming the one that does not.
async fn readyz(State(state): State<AppState>) -> Response {
    let r = state.engine.readiness().await;
    let word = |r: &Result<(), String>| r.as_ref().map_or_else(|e| e.clone(), |()| "ok".to_owned());
    let (ledger, redis) = (word(&r.ledger), word(&r.redis));
    if r.is_ready() {
        return Json(Readiness { status: Some("ready"), error: None, detail: None, ledger, redis })
            .into_response();
    }
    let failing: Vec<&str> = [("ledger", &r.ledger), ("redis", &r.redis)]
        .into_iter()
        .filter(|(_, r)| r.is_err())
        .map(|(n, _)| n)
        .collect();
    let detail = Some(format!("unreachable: {}", failing.join(", ")));
    let body = Readiness { status: None, error: Some("not_ready"), detail, ledger, redis };
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}

/// `/readyz`: `status: ready`, or the error shape with each store's word.
#[derive(Serialize)]
struct Readiness {
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    ledger: String,
    redis: String,
}

/// Embedded files first; an unknown API path is the API's JSON 404; anything else is rendered
/// by the app, whose fallback route answers 404.
async fn fallback(State(state): State<AppState>, req: Request<Body>) -> Response {
    if let Some(file) = assets::serve(&req) {
        return file;
    }
    if req.uri().path().starts_with("/api/v1/") {
        return crate::rest::no_route(req.uri().path()).into_response();
    }
    let engine = state.engine.clone();
    let options = state.leptos_options.clone();
    let render = leptos_axum::render_app_to_stream_with_context(
        move || provide_context(engine.clone()),
        move || shell(options.clone()),
    );
    render(req).await.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::redis::keys::KeySpace;
    use engine::redis::{Projection, RedisTarget};
    use serde_json::json;
    use tower::ServiceExt;

    /// A router over a fresh SQLite ledger and a Redis address where nothing listens.
    async fn router_without_redis(name: &str) -> (CachedTop, Engine, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("laurel-{name}-{}", std::process::id()));
        let ledger =
            engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
        ledger.migrate().await.unwrap();
        // Port 9 (discard) on loopback: connections are refused at once.
        let target = RedisTarget::parse("redis://127.0.0.1:9").unwrap();
        let engine = Engine::from_parts(ledger, Projection::new(target, KeySpace::new("readyz")));
        let leptos_options = LeptosOptions::builder().output_name("laurel").build();
        (app(AppState::new(leptos_options, engine.clone())), engine, dir)
    }

    async fn get_text(router: &CachedTop, path: &str) -> (StatusCode, String) {
        let req = Request::builder().uri(path).body(Body::empty()).unwrap();
        let res = router.clone().oneshot(req).await.unwrap();
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    async fn get(router: &CachedTop, path: &str) -> (StatusCode, serde_json::Value) {
        let req = Request::builder().uri(path).body(Body::empty()).unwrap();
        let res = router.clone().oneshot(req).await.unwrap();
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn readiness_names_the_unreachable_store_while_health_stays_up() {
        let (router, _, dir) = router_without_redis("readyz").await;
        let (status, body) = get(&router, "/healthz").await;
        assert_eq!((status, body), (StatusCode::OK, json!({ "status": "alive" })));
        let (status, body) = get(&router, "/readyz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body["error"], "not_ready");
        assert_eq!(body["detail"], "unreachable: redis");
        assert_eq!(body["ledger"], "ok");
        assert_ne!(body["redis"], "ok");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn without_redis_the_board_reads_the_ledger_and_says_so() {
        let (router, engine, dir) = router_without_redis("no-redis-board").await;
        let draft = domain::board::BoardDraft {
            slug: "weekly".into(),
            title: "Weekly".into(),
            cadence: "weekly".into(),
            time_zone: "UTC".into(),
            operator: "incr".into(),
            tie_policy: "shared".into(),
            max_points: 1000,
            ..Default::default()
        };
        let board = draft.parse().unwrap();
        engine.create_board(&board).await.unwrap();
        let write = |id: &str, member: &str, delta| domain::write::Write {
            member: domain::MemberId::parse(member).unwrap(),
            change: domain::write::Change::Point { event_id: domain::EventId::parse(id).unwrap(), delta },
            occurred_at: jiff::Timestamp::now(),
            metadata: None,
        };
        let written = engine.record(&board, &[write("a", "ann", 30), write("b", "bob", 20)]).await.unwrap();
        assert!(written.iter().all(|w| !w.projected), "Redis is not there");

        let (status, top) = get(&router, "/api/v1/boards/weekly/periods/current/top?limit=10").await;
        assert_eq!(status, StatusCode::OK, "{top}");
        assert_eq!(top["source"], "ledger");
        let members: Vec<_> =
            top["entries"].as_array().unwrap().iter().map(|e| e["member"].clone()).collect();
        assert_eq!(members, [json!("ann"), json!("bob")]);
        let (status, count) = get(&router, "/api/v1/boards/weekly/periods/current/count?min_points=25").await;
        assert_eq!(
            (status, &count["count"], &count["source"]),
            (StatusCode::OK, &json!(1), &json!("ledger"))
        );

        let (status, html) = get_text(&router, "/b/weekly").await;
        assert_eq!(status, StatusCode::OK);
        assert!(html.contains("data-testid=\"from-ledger\""), "the page says where the rows came from");
        assert!(html.contains("ann") && html.contains("bob"), "the rows are in the server HTML");
        assert!(html.contains("state-open"), "the badge is the period's state as read with the rows");
        let period = board.period_at(jiff::Timestamp::now());
        let (status, html) = get_text(&router, &format!("/b/weekly/{period}/m/ann")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(html.contains("data-testid=\"from-ledger\""), "the member page says so too");
        assert!(html.contains("data-testid=\"rank\">1<"), "ann is first: {html}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
