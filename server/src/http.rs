//! The HTTP surface: operations endpoints, the REST API (`rest`), the Leptos pages and server
//! functions, and the embedded site. Every request's latency is recorded by route template.
//!
//! `app` (below) is the whole surface as `listen::serve` runs it ([`Site`]), plain tower layers
//! with no boxing, outermost first:
//!
//! - on-the-fly compression (brotli or gzip, quality 4) of answers of at least 1 KiB that are not
//!   images or event streams (compressing a stream would hold its events back), then the security
//!   headers (`security.rs`);
//! - [`CachedTop`]: a repeated top-N read answered before routing with the bytes the route made
//!   (`top_cache.rs`);
//! - the router: `/healthz` (the process lives), `/readyz` (pings both stores: 503 naming the
//!   unreachable one; a full Redis is still ready, its word says why), `/metrics`, the REST API,
//!   the Leptos routes and server functions, and the fallback — an embedded file if one exists at
//!   that path, the API's JSON 404 under `/api/v1/`, else the app's 404 page. The Leptos routes are
//!   listed once per process (`ROUTES`): listing them holds back every resource load of the process
//!   while it runs (a global flag of Leptos'), so a second server started in the same process would
//!   stall the first one's pages.
//!
//! One middleware per request, `observe_and_guard`: the client address (`peer.rs`), the cross-site
//! refusal (`refuse_cross_site`: a request that could change something — not GET, HEAD or OPTIONS —
//! whose `Sec-Fetch-Site` is neither `same-origin` nor `none`, or whose `Origin` is neither this
//! host nor the `--public-url` origin, answers 403 `cross_site`, whatever cookie it carries), the
//! anonymous allowance (`anonymous.rs`), the console gate (`console_gate`: 403 `Denied` to
//! `/api/admin_…` without a live session, before the arguments are read, so a new console function
//! cannot forget the check), a failed server function's status from its `AppError`
//! (`with_error_status`: 403, 404 or 400, not Leptos' 500 for every refusal), and latency by route.
//! `AppState` (`state.rs`) is one `Arc` because axum copies it per request.

use crate::assets;
use crate::security;
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
use domain::ErrorCode;
use engine::Engine;
use leptos::prelude::*;
use leptos_axum::{AxumRouteListing, LeptosRoutes, generate_route_list};
use serde::Serialize;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::LazyLock;
use std::task::{Context, Poll};
use std::time::Instant;
use tower::ServiceBuilder;
use tower_http::compression::predicate::{And, NotForContentType, Predicate, SizeAbove};
use tower_http::compression::{Compression, CompressionBody, CompressionLayer, CompressionLevel};
use tower_http::map_response_body::{MapResponseBody, MapResponseBodyLayer};
use tower_http::set_header::SetResponseHeader;

/// The app's routes, listed once per process. Listing them renders the app with resource loads
/// held back process-wide (leptos' `SuppressResourceLoad` is a global flag, not a per-render
/// one): a page rendering meanwhile in another server of the same process (the tests run many)
/// would wait for its data for ever.
static ROUTES: LazyLock<Vec<AxumRouteListing>> = LazyLock::new(|| generate_route_list(App));

fn router(state: AppState) -> Router {
    let routes = ROUTES.clone();
    let context = page_context(&state);
    let options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .merge(crate::rest::router())
        .leptos_routes_with_context(&state, routes, context, move || shell(options.clone()))
        .fallback(fallback)
        // One middleware for every request (each layer costs a boxed future per request).
        .layer(middleware::from_fn_with_state(state.clone(), observe_and_guard))
        .with_state(state)
}

/// What every page render and server function finds in its context: the engine and the bundle
/// names; a page also sets its script policy, with its nonce ([`security::page_headers`]).
fn page_context(state: &AppState) -> impl Fn() + Clone + Send + Sync + 'static {
    let engine = state.engine.clone();
    let files = state.web.site_files.clone();
    move || {
        provide_context(engine.clone());
        provide_context(files.clone());
        security::page_headers();
    }
}

/// HTML and JSON answers at least this long are compressed on the fly (when the browser accepts
/// it); shorter ones gain less than the work costs. The bundle files come compressed already.
const COMPRESS_ABOVE: u16 = 1024;

/// What is worth compressing on the fly: long enough, and not an image, gRPC or an event stream
/// (compressing a stream would hold its events back).
type Compressible = And<And<And<SizeAbove, NotForContentType>, NotForContentType>, NotForContentType>;

/// The security headers around [`CachedTop`] (`security::Headers`, innermost first).
type Secured = SetResponseHeader<
    SetResponseHeader<
        SetResponseHeader<
            SetResponseHeader<SetResponseHeader<CachedTop, HeaderValue>, HeaderValue>,
            HeaderValue,
        >,
        HeaderValue,
    >,
    Option<HeaderValue>,
>;

/// The whole HTTP surface, as `listen::serve` runs it.
pub type Site = MapResponseBody<Compression<Secured, Compressible>, fn(CompressionBody<Body>) -> Body>;

/// The whole HTTP surface: the routes, behind [`CachedTop`], every answer with the security
/// headers (`security`) and compressed when it is worth it. Plain layers, no boxing: a cached
/// top-N answer costs a few header inserts more.
pub fn app(state: AppState) -> Site {
    let headers = security::Headers::new(state.web.public_url.as_ref().is_some_and(|url| url.is_https()));
    let compressible = SizeAbove::new(COMPRESS_ABOVE)
        .and(NotForContentType::GRPC)
        .and(NotForContentType::IMAGES)
        .and(NotForContentType::SSE);
    // Quality 4 of 11 (brotli) or 9 (gzip): most of the gain for a fraction of the best level's CPU.
    let compression =
        CompressionLayer::new().quality(CompressionLevel::Precise(4)).compress_when(compressible);
    let to_body: fn(CompressionBody<Body>) -> Body = Body::new;
    ServiceBuilder::new()
        .layer(MapResponseBodyLayer::new(to_body))
        .layer(compression)
        .layer(headers.hsts)
        .layer(headers.referrer)
        .layer(headers.nosniff)
        .layer(headers.frame)
        .layer(headers.csp)
        .service(CachedTop::new(state.clone(), router(state)))
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
        // A caller with credentials may be an admin, who reads live during a public freeze: routed.
        if req.method() != Method::GET
            || !req.uri().path().ends_with("/top")
            || req.headers().contains_key(header::AUTHORIZATION)
        {
            return None;
        }
        let started = Instant::now();
        let asked = req.uri().path_and_query()?.as_str();
        let body = self.state.top_bytes.get(asked, self.state.engine.reads().read_epoch())?;
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

/// Every request passes here: who sent it (`peer`), the guards, then the handler, then its latency is recorded
/// under its route template (never the raw path, which would make one series per member).
async fn observe_and_guard(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    if let Some(peer) = req.extensions().get::<crate::peer::PeerAddr>().copied() {
        let client = state.web.trusted_proxies.client(peer.0, req.headers());
        req.extensions_mut().insert(client);
    }
    let method = req.method().clone();
    let route = req.extensions().get::<MatchedPath>().cloned();
    let server_fn = is_server_fn(req.uri().path());
    let refused = match refuse_cross_site(&req, state.web.public_url.as_ref().map(|url| url.origin())) {
        Some(refused) => Some(refused),
        None => {
            let client = req.extensions().get::<app::api::session::ClientAddr>().map(|c| c.0);
            guard(&state, req.uri().path(), req.headers(), client).await
        }
    };
    let response = match refused {
        Some(refused) => refused,
        // An anonymous board page may be answered from the shared copy (`page_cache`).
        None => {
            let route = route.as_ref().map(MatchedPath::as_str);
            crate::page_cache::serve(&state.pages, &state.engine, req, next, route).await
        }
    };
    let response = if server_fn { with_error_status(response).await } else { response };
    let status = response.status().as_u16();
    let route = route.as_ref().map_or("(other)", MatchedPath::as_str);
    state.engine.metrics().observe_request(method.as_str(), route, status, started.elapsed().as_secs_f64());
    response
}

/// The guards after the cross-site check: a client over its anonymous allowance (`anonymous`),
/// then a console function without a session. Some: the refusal.
async fn guard(
    state: &AppState,
    path: &str,
    headers: &axum::http::HeaderMap,
    client: Option<std::net::IpAddr>,
) -> Option<Response> {
    if let Some(refused) = crate::anonymous::limit(state, path, headers, client).await {
        return Some(refused);
    }
    console_gate(&state.engine, path, headers).await
}

/// A server function's path (`/api/<name>`; the REST API is `/api/v1/…`).
fn is_server_fn(path: &str) -> bool {
    path.starts_with("/api/") && !path.starts_with("/api/v1/")
}

/// Leptos answers every failed server function with 500; this gives the answer the status of
/// its [`app::error::AppError`] — a wrong password 403, a missing board 404, a refused input 400
/// — so only a server failure is a 5xx. The browser side reads any 4xx or 5xx as the error.
/// Only a 500 is read (a short JSON error); other answers pass untouched.
async fn with_error_status(response: Response) -> Response {
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, Json(app::error::AppError::Unavailable)).into_response();
    };
    if let Ok(error) = serde_json::from_slice::<app::error::AppError>(&bytes) {
        parts.status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// Refuses any request that could change something (not GET, HEAD or OPTIONS) when a browser
/// says it comes from another site: a cross-site form post to a server function or an admin
/// route never runs, whatever cookie it carries (`app::api::session::same_site`).
fn refuse_cross_site(req: &Request, public_origin: Option<&str>) -> Option<Response> {
    if matches!(
        *req.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS
    ) {
        return None;
    }
    let detail = app::api::session::same_site(req.headers(), public_origin).err()?;
    Some(crate::rest::ApiError::new(ErrorCode::CrossSite, detail).into_response())
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
        Some(token) => match engine.access().session_actor(token, jiff::Timestamp::now()).await {
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
    let ledger = word(&r.ledger);
    // A full Redis still serves: ready, with the reason in its word.
    let redis = match &r.redis_full {
        Some(full) => format!(
            "full: {full}; writes are recorded in the ledger and reach the rankings once there is room"
        ),
        None => word(&r.redis),
    };
    let redis_version = r.redis_versions.join(", ");
    if r.is_ready() {
        let body =
            Readiness { status: Some("ready"), error: None, detail: None, ledger, redis, redis_version };
        return Json(body).into_response();
    }
    let failing: Vec<&str> = [("ledger", &r.ledger), ("redis", &r.redis)]
        .into_iter()
        .filter(|(_, r)| r.is_err())
        .map(|(n, _)| n)
        .collect();
    let detail = Some(format!("unreachable: {}", failing.join(", ")));
    let body = Readiness { status: None, error: Some("not_ready"), detail, ledger, redis, redis_version };
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
    /// Every Redis node's version (comma-separated on a Cluster); empty when Redis does not tell.
    redis_version: String,
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
    let options = state.leptos_options.clone();
    let render =
        leptos_axum::render_app_to_stream_with_context(page_context(&state), move || shell(options.clone()));
    render(req).await.into_response()
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
