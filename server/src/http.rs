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
mod tests {
    use super::*;
    use engine::redis::keys::KeySpace;
    use engine::redis::{Projection, RedisTarget};
    use serde_json::json;
    use tower::ServiceExt;

    /// A router over a fresh SQLite ledger and a Redis address where nothing listens.
    async fn router_without_redis(name: &str) -> (Site, Engine, std::path::PathBuf) {
        router_with_web(name, crate::state::Web::default()).await
    }

    async fn router_with_web(name: &str, web: crate::state::Web) -> (Site, Engine, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("laurel-{name}-{}", std::process::id()));
        let ledger =
            engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
        ledger.migrate().await.unwrap();
        // Port 9 (discard) on loopback: connections are refused at once.
        let target = RedisTarget::parse("redis://127.0.0.1:9").unwrap();
        let engine = Engine::from_parts(ledger, Projection::new(target, KeySpace::new("readyz")));
        let leptos_options = LeptosOptions::builder().output_name("laurel").build();
        (app(AppState::with_web(leptos_options, engine.clone(), web)), engine, dir)
    }

    /// The answer to `method path` with these request headers.
    async fn answer(router: &Site, method: &str, path: &str, headers: &[(&str, &str)]) -> Response {
        let mut req = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        router.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap()
    }

    fn header<'a>(res: &'a Response, name: &str) -> &'a str {
        res.headers().get(name).map_or("", |v| v.to_str().unwrap())
    }

    #[tokio::test]
    async fn every_answer_carries_the_security_headers_and_a_page_the_nonce_of_its_scripts() {
        let (router, _, dir) = router_without_redis("security-headers").await;
        for path in ["/healthz", "/api/v1/boards", "/no-such-page", "/api/v1/nothing"] {
            let res = answer(&router, "GET", path, &[]).await;
            assert_eq!(header(&res, "x-content-type-options"), "nosniff", "{path}");
            assert_eq!(header(&res, "referrer-policy"), "same-origin", "{path}");
            assert_eq!(header(&res, "x-frame-options"), "DENY", "{path}");
            let csp = header(&res, "content-security-policy");
            assert!(
                csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'self'"),
                "{path}: {csp}"
            );
            assert_eq!(header(&res, "strict-transport-security"), "", "{path}: no https public URL");
        }
        let res = answer(&router, "GET", "/healthz", &[]).await;
        assert!(!header(&res, "content-security-policy").contains("nonce-"), "no page, no nonce");

        // A page: its policy names the nonce that every inline script of the page carries, and
        // browsers ask for it again on every visit.
        let res = answer(&router, "GET", "/", &[]).await;
        assert_eq!(header(&res, "cache-control"), "no-cache");
        let csp = header(&res, "content-security-policy").to_owned();
        let nonce =
            csp.split("'nonce-").nth(1).and_then(|rest| rest.split('\'').next()).expect(&csp).to_owned();
        assert!(nonce.len() >= 16, "{csp}");
        let html = String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap().to_vec())
            .unwrap();
        let scripts = html.matches("<script").count();
        assert!(scripts >= 1, "the hydration loader is inline: {html}");
        assert_eq!(
            html.matches(&format!("<script type=\"module\" nonce=\"{nonce}\"")).count()
                + html.matches(&format!("<script nonce=\"{nonce}\"")).count(),
            scripts,
            "{html}"
        );
        // Another page render has another nonce.
        let again = answer(&router, "GET", "/", &[]).await;
        assert!(!header(&again, "content-security-policy").contains(&nonce));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn a_page_speaks_the_readers_language_and_remembers_a_chosen_one() {
        let (router, _, dir) = router_without_redis("page-language").await;
        let body = |res: Response| async {
            String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap().to_vec()).unwrap()
        };
        let res = answer(&router, "GET", "/", &[]).await;
        assert!(header(&res, "vary").contains("accept-language"), "{:?}", res.headers());
        assert_eq!(header(&res, "set-cookie"), "", "nothing chosen, nothing remembered");
        assert!(body(res).await.contains("<html lang=\"en\""));

        let zh = [("accept-language", "zh-CN,zh;q=0.9,en;q=0.8")];
        let html = body(answer(&router, "GET", "/", &zh).await).await;
        assert!(html.contains("<html lang=\"zh-CN\""), "{html}");
        assert!(html.contains("跳到正文"), "the skip link in Chinese: {html}");

        // The switch's link: English although the browser asks for Chinese, and remembered.
        let res = answer(&router, "GET", "/?lang=en", &zh).await;
        assert_eq!(header(&res, "set-cookie"), "lang=en; Path=/; Max-Age=31536000; SameSite=Lax");
        assert!(body(res).await.contains("<html lang=\"en\""));
        let remembered = [("accept-language", "zh-CN"), ("cookie", "lang=en")];
        assert!(body(answer(&router, "GET", "/", &remembered).await).await.contains("<html lang=\"en\""));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn an_https_public_url_turns_on_hsts_and_its_origin_passes_the_cross_site_check() {
        let web = crate::state::Web {
            public_url: Some(crate::cli::PublicUrl::parse("https://boards.example").unwrap()),
            ..Default::default()
        };
        let (router, _, dir) = router_with_web("public-url", web).await;
        let res = answer(&router, "GET", "/healthz", &[]).await;
        assert_eq!(header(&res, "strict-transport-security"), "max-age=31536000");
        // Behind a proxy that rewrites Host: the public origin is let through (to the auth
        // check, here: no token), another origin is refused before it.
        let proxied = [("host", "10.0.0.7:3000"), ("origin", "https://boards.example")];
        let res = answer(&router, "POST", "/api/v1/boards", &proxied).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        let evil = [("host", "10.0.0.7:3000"), ("origin", "https://evil.example")];
        let res = answer(&router, "POST", "/api/v1/boards", &evil).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn console_logins_through_the_listener_are_throttled_per_client_address() {
        use engine::access::admins::MAX_FAILURES_PER_ADDRESS;
        // The test client connects from 127.0.0.1, trusted here as a proxy: it names the client.
        let web = crate::state::Web {
            trusted_proxies: crate::peer::TrustedProxies::parse("127.0.0.1").unwrap(),
            ..Default::default()
        };
        let (site, engine, dir) = router_with_web("login-addresses", web).await;
        const PASSWORD: &str = "correct horse battery";
        engine.access().create_admin("kay", PASSWORD).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(crate::listen::serve(listener, site, std::future::pending()));
        let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let login = |username: String, password: &'static str, from: &'static str| {
            client
                .post(format!("http://{addr}/api/login"))
                .header("x-forwarded-for", from)
                .form(&[("username", username.as_str()), ("password", password)])
                .send()
        };
        let text = |res: reqwest::Response| async move { (res.status(), res.text().await.unwrap()) };
        for i in 0..MAX_FAILURES_PER_ADDRESS {
            let (_, body) =
                text(login(format!("user{i}"), "a wrong password", "203.0.113.9").await.unwrap()).await;
            assert!(body.contains("wrong username or password"), "attempt {i}: {body}");
        }
        let (status, body) = text(login("kay".into(), PASSWORD, "203.0.113.9").await.unwrap()).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(body.contains("too many failed logins"), "{body}");
        // Another client behind the same proxy signs in.
        let res = login("kay".into(), PASSWORD, "198.51.100.4").await.unwrap();
        let cookie =
            res.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        assert!(cookie.starts_with("laurel_session="), "{:?}: {cookie}", res.status());
        server.abort();
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test]
    async fn long_answers_are_compressed_when_the_browser_accepts_it_short_ones_never() {
        let (router, _, dir) = router_without_redis("compression").await;
        let plain = answer(&router, "GET", "/", &[]).await;
        assert_eq!(header(&plain, "content-encoding"), "");
        let html = axum::body::to_bytes(plain.into_body(), 1 << 22).await.unwrap();
        assert!(html.len() > usize::from(COMPRESS_ABOVE), "the home page is long enough: {}", html.len());

        let gzipped = answer(&router, "GET", "/", &[("accept-encoding", "gzip")]).await;
        assert_eq!(header(&gzipped, "content-encoding"), "gzip");
        // A page also varies by language (`security::page_headers`): Vary may come as two headers.
        let vary: Vec<_> = gzipped.headers().get_all("vary").iter().map(|v| v.to_str().unwrap()).collect();
        assert!(vary.iter().any(|v| v.contains("accept-encoding")), "{vary:?}");
        let body = axum::body::to_bytes(gzipped.into_body(), 1 << 22).await.unwrap();
        assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
        assert!(body.len() < html.len());

        let brotli = answer(&router, "GET", "/", &[("accept-encoding", "gzip, deflate, br")]).await;
        assert_eq!(header(&brotli, "content-encoding"), "br");

        let short = answer(&router, "GET", "/healthz", &[("accept-encoding", "gzip, br")]).await;
        assert_eq!(header(&short, "content-encoding"), "", "a short answer is sent as it is");
        std::fs::remove_dir_all(dir).unwrap();
    }

    async fn get_text(router: &Site, path: &str) -> (StatusCode, String) {
        let req = Request::builder().uri(path).body(Body::empty()).unwrap();
        let res = router.clone().oneshot(req).await.unwrap();
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    async fn get(router: &Site, path: &str) -> (StatusCode, serde_json::Value) {
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
            segments: Default::default(),
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
