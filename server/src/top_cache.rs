//! The top-N answer cache: the bytes of `GET …/top` answers, kept under the request target they
//! were asked with, so a repeat within the page's second is answered before routing
//! ([`CachedTop`]). The engine shares the page itself (`Engine::top_shared`); this is the HTTP
//! layer's copy of what it made of it. Most top-N reads are such repeats; answering them without
//! a route to match, nothing to extract and no board or period to resolve removes about a third
//! of a cached read's cost (docs/BENCHMARKS.md, reads).

use crate::rest::Page;
use crate::state::AppState;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, Method, header};
use axum::response::{IntoResponse, Response};
use axum::routing::future::RouteFuture;
use engine::reads::SharedTop;
use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Instant;

/// The most answers kept at once.
const KEPT_ANSWERS: usize = 1024;

/// The route whose repeated reads [`CachedTop`] answers; they are recorded under it.
const TOP_ROUTE: &str = "/api/v1/boards/{board}/periods/{period}/top";

/// Top-N answer bodies by request target.
#[derive(Default)]
pub struct TopBytes {
    kept: Mutex<HashMap<Box<str>, Kept>>,
}

/// An answer and how long it may be given again: until the page's time is up
/// ([`SharedTop::until`]) and while the engine's read epoch is the one it was made in.
struct Kept {
    until: Instant,
    epoch: u64,
    body: Bytes,
}

impl TopBytes {
    /// The answer for `top`, kept under `asked` (the request target) when there is one.
    pub fn answer(&self, asked: Option<&str>, top: SharedTop, epoch: u64) -> Response {
        let page = Page::from(top.page.as_ref().clone());
        let body = Bytes::from(serde_json::to_vec(&page).expect("a page always serializes"));
        if let Some(asked) = asked {
            self.keep(asked, Kept { until: top.until, epoch, body: body.clone() });
        }
        json_response(body)
    }

    /// The answer kept under `asked`, if it still holds.
    pub fn get(&self, asked: &str, epoch: u64) -> Option<Bytes> {
        let kept = self.kept.lock().expect("top answers");
        let answer = kept.get(asked)?;
        (answer.epoch == epoch && Instant::now() < answer.until).then(|| answer.body.clone())
    }

    fn keep(&self, asked: &str, answer: Kept) {
        let mut kept = self.kept.lock().expect("top answers");
        if kept.len() >= KEPT_ANSWERS {
            let now = Instant::now();
            kept.retain(|_, a| a.until > now);
        }
        // Whatever else readers ask with, the answers of the readers before them stay.
        if kept.len() < KEPT_ANSWERS || kept.contains_key(asked) {
            kept.insert(asked.into(), answer);
        }
    }

    #[cfg(test)]
    pub(crate) fn keep_for_test(&self, asked: &str, body: Bytes, epoch: u64) {
        let until = Instant::now() + std::time::Duration::from_secs(1);
        self.keep(asked, Kept { until, epoch, body });
    }
}

/// A JSON body made ahead, answered as `Json` answers one.
fn json_response(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], Body::from(body)).into_response()
}

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
        let mut response = json_response(body);
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
