//! The board page for anonymous visitors, shared: `GET /b/{board}[/{period}]` rendered once and
//! answered to every anonymous visitor who asks for it in the same words within a second, with
//! its brotli and gzip bodies compressed once.
//!
//! Why: a render reads the ranking, the distribution, the past periods and more, and builds
//! about 25 KB of HTML (2–3 ms of CPU), and compressing it on the fly costs a third more. Every
//! contestant opens this page, most of them without a "me" link, so most renders are repeats of
//! one a moment old (docs/BENCHMARKS.md, reads: the board page for anonymous visitors).
//!
//! What may be shared, and with whom:
//!
//! - **Only anonymous requests**: a `GET` without `Authorization`, whose only cookie, if any, is
//!   the language (`lang`). A session, a "me" link (`laurel_me`) or any other cookie is rendered
//!   for its request as before and never kept, so nobody is ever given another visitor's page.
//! - **The key is everything else that changes the HTML**: the path (board, period) and the
//!   query, which may only name `period`, `show` and `segment` (`?lang=` sets a cookie, `?find=`
//!   and the other views are rendered each time; an unknown parameter too, so made-up queries
//!   cannot fill the cache), and the language the page is written in (`app::i18n::of_request`:
//!   the cookie or `Accept-Language`).
//! - **Only a plain 200 page** without `Set-Cookie` is kept, with its headers (its script policy
//!   names the nonce of its inline scripts: a kept page keeps its nonce, as its body does; the
//!   body is fixed when it is rendered, so nothing a later request brings can carry that nonce).
//!
//! How fresh: a render reads its rows live, so a kept page is as fresh as a top-N read (the
//! freshness issue 47 set for it): answered for at most [`PAGE_TTL`] (the top-N cache's second,
//! `engine::reads::caches`) after its render began, never past the end of the current period
//! (`/b/{board}` then names the next one), and only while nothing this process knows of has
//! changed what it shows: the engine's read epoch (a transition, a public freeze or reveal, a
//! hide, an import, a rebuild, a board edit), the changes it announced for the board
//! (`Live::announced_of`: every write's projection, revokes, corrections, transitions), and
//! its copy of the display names (`Reads::names_revision`). Those are read before the render,
//! so a change during it already makes the page old. So this process's own writes and
//! transitions show at once, as before; another instance's show within the second, as its
//! top-N reads do. A public freeze leaks nothing: a kept page holds only what public reads
//! answered when it was rendered, and a freeze made here drops it at once.
//!
//! Answers by `Accept-Encoding` as the compression layer would choose (`http::app`: brotli, then
//! gzip, by the browser's q-values), with `Content-Encoding` and `Vary: accept-encoding`. The
//! plain page passes through that layer as any page does. At most [`KEPT_PAGES`] pages are kept.

use app::i18n::Locale;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use engine::Engine;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a kept page is answered again: the top-N cache's time (`engine::reads::caches`).
pub const PAGE_TTL: Duration = Duration::from_secs(1);

/// The most pages kept at once.
const KEPT_PAGES: usize = 256;

/// The routes whose pages are kept (the board page's two paths, as the router names them).
const ROUTES: [&str; 2] = ["/b/{board}", "/b/{board}/{period}"];

/// The query parameters a kept page may be asked with.
const PARAMETERS: [&str; 3] = ["period", "show", "segment"];

/// Quality of the bodies compressed once per kept page (brotli 0–11, gzip 0–9): a little more
/// than the on-the-fly layer's 4, as the work is shared by every visitor of the second, but not
/// much: a page is compressed on a request's thread, and on a 25 KB page brotli 9 took about
/// 15 ms more than 4 for 7 % fewer bytes (5: 6 %, in a few ms).
const BROTLI_QUALITY: i32 = 5;
/// Brotli's window (2^19 bytes): longer than any page, without the default's 4 MB of tables to
/// clear for each.
const BROTLI_WINDOW: i32 = 19;
const GZIP_LEVEL: u32 = 6;

/// The board pages kept for anonymous visitors.
#[derive(Default)]
pub struct PageCache {
    kept: Mutex<HashMap<Key, Arc<Page>>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    /// The path and query, as asked.
    target: Box<str>,
    locale: Locale,
}

/// What a kept page was made from: when any of it moves, the page is made again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    epoch: u64,
    announced: u64,
    names: i64,
}

impl Stamp {
    fn now(engine: &Engine, board: &domain::BoardSlug) -> Self {
        Self {
            epoch: engine.reads().read_epoch(),
            announced: engine.live().announced_of(board),
            names: engine.reads().names_revision(),
        }
    }
}

/// A rendered page: its headers and body, and its compressed bodies once someone asked for them.
struct Page {
    until: Instant,
    stamp: Stamp,
    headers: HeaderMap,
    plain: Bytes,
    br: OnceLock<Bytes>,
    gzip: OnceLock<Bytes>,
}

/// How an answer's body is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Encoding {
    Identity,
    Gzip,
    Br,
}

impl Encoding {
    /// What `tower_http`'s compression layer (brotli and gzip on) picks for these headers: the
    /// highest q-value above 0, brotli before gzip before identity on a tie; identity if none.
    fn of(headers: &HeaderMap) -> Self {
        headers
            .get_all(header::ACCEPT_ENCODING)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|item| {
                let mut item = item.splitn(2, ';');
                let name = item.next().unwrap_or_default().trim();
                let encoding = if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
                    Encoding::Gzip
                } else if name.eq_ignore_ascii_case("br") {
                    Encoding::Br
                } else if name.eq_ignore_ascii_case("identity") {
                    Encoding::Identity
                } else {
                    return None;
                };
                let q = match item.next() {
                    Some(q) => qvalue(q.trim())?,
                    None => 1000,
                };
                Some((encoding, q))
            })
            .filter(|&(_, q)| q > 0)
            .max_by_key(|&(encoding, q)| (q, encoding))
            .map_or(Encoding::Identity, |(encoding, _)| encoding)
    }
}

/// A q-value (`q=0.8`) in thousandths, read as `tower_http` reads it (None: the item is ignored).
fn qvalue(s: &str) -> Option<u16> {
    let rest = s.strip_prefix(['q', 'Q'])?.strip_prefix('=')?;
    let (whole, fraction) = rest.split_once('.').unwrap_or((rest, ""));
    let mut value = match whole {
        "0" => 0u16,
        "1" => 1000,
        _ => return None,
    };
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    for (digit, factor) in fraction.bytes().zip([100u16, 10, 1]) {
        value += factor * u16::from(digit - b'0');
    }
    (value <= 1000).then_some(value)
}

/// A request whose page may be shared: its key and its board. None: render it for itself.
fn shareable(req: &Request, route: Option<&str>) -> Option<(Key, domain::BoardSlug)> {
    if req.method() != Method::GET
        || !route.is_some_and(|r| ROUTES.contains(&r))
        || req.headers().contains_key(header::AUTHORIZATION)
    {
        return None;
    }
    // Only the language cookie: a session, a "me" link or anything else is personal.
    let cookies = req.headers().get_all(header::COOKIE).iter();
    for cookie in cookies.map(|v| v.to_str().ok()).flat_map(|v| v.unwrap_or("\u{0}").split(';')) {
        let name = cookie.split_once('=').map_or(cookie, |(name, _)| name).trim();
        if !name.is_empty() && name != app::i18n::COOKIE {
            return None;
        }
    }
    let query = req.uri().query().unwrap_or_default();
    if !form_names(query).all(|name| PARAMETERS.contains(&name)) {
        return None;
    }
    let board = req.uri().path().strip_prefix("/b/")?.split('/').next()?;
    let board = domain::BoardSlug::parse(board).ok()?;
    let target = req.uri().path_and_query()?.as_str().into();
    Some((Key { target, locale: locale(req) }, board))
}

/// The names of a query string's parameters (not decoded: a known name needs no decoding).
fn form_names(query: &str) -> impl Iterator<Item = &str> {
    query.split('&').filter(|p| !p.is_empty()).map(|p| p.split_once('=').map_or(p, |(name, _)| name))
}

/// The language the page will be written in, as the app resolves it.
fn locale(req: &Request) -> Locale {
    let mut parts = Request::builder().uri(req.uri().clone()).body(()).expect("a copied URI").into_parts().0;
    for name in [header::COOKIE, header::ACCEPT_LANGUAGE] {
        for value in req.headers().get_all(&name) {
            parts.headers.append(name.clone(), value.clone());
        }
    }
    app::i18n::of_request(&parts).0
}

impl PageCache {
    fn get(&self, key: &Key, stamp: Stamp) -> Option<Arc<Page>> {
        let kept = self.kept.lock().expect("pages");
        let page = kept.get(key)?;
        (page.stamp == stamp && Instant::now() < page.until).then(|| Arc::clone(page))
    }

    fn keep(&self, key: Key, page: Arc<Page>) {
        let mut kept = self.kept.lock().expect("pages");
        if kept.len() >= KEPT_PAGES {
            let now = Instant::now();
            kept.retain(|_, p| p.until > now);
        }
        if kept.len() < KEPT_PAGES || kept.contains_key(&key) {
            kept.insert(key, page);
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.kept.lock().expect("pages").len()
    }
}

/// The board page from the kept copy when there is one for these words, else rendered (`next`)
/// and kept if it may be; any other request goes to `next` untouched. `route` is the matched
/// route's template.
pub async fn serve(
    pages: &PageCache,
    engine: &Engine,
    req: Request,
    next: Next,
    route: Option<&str>,
) -> Response {
    let Some((key, board)) = shareable(&req, route) else { return next.run(req).await };
    let encoding = Encoding::of(req.headers());
    let stamp = Stamp::now(engine, &board);
    if let Some(page) = pages.get(&key, stamp) {
        return page.answer(encoding);
    }
    let started = Instant::now();
    let response = next.run(req).await;
    if response.status() != StatusCode::OK
        || response.headers().contains_key(header::SET_COOKIE)
        || response.headers().contains_key(header::CONTENT_ENCODING)
    {
        return response;
    }
    let (parts, body) = response.into_parts();
    let plain = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(plain) => plain,
        Err(error) => {
            tracing::error!(%error, "a board page's body failed");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let mut headers = parts.headers;
    headers.remove(header::CONTENT_LENGTH);
    let until = match period_end(engine, &board).await {
        Some(end) => (started + PAGE_TTL).min(end),
        None => started,
    };
    let page = Arc::new(Page { until, stamp, headers, plain, br: OnceLock::new(), gzip: OnceLock::new() });
    if Instant::now() < until {
        pages.keep(key, Arc::clone(&page));
    }
    page.answer(encoding)
}

/// When the board's current period ends, as an instant of this process's clock (None: the board
/// cannot be read; the page is then not kept).
async fn period_end(engine: &Engine, board: &domain::BoardSlug) -> Option<Instant> {
    let board = engine.reads().board(board).await.ok()?;
    let now = jiff::Timestamp::now();
    let left = board.period_at(now).span(&board.zone).end.duration_since(now);
    Some(Instant::now() + Duration::try_from(left).unwrap_or(Duration::ZERO))
}

impl Page {
    fn answer(&self, encoding: Encoding) -> Response {
        let body = match encoding {
            Encoding::Identity => self.plain.clone(),
            Encoding::Br => self.br.get_or_init(|| brotli(&self.plain)).clone(),
            Encoding::Gzip => self.gzip.get_or_init(|| gzip(&self.plain)).clone(),
        };
        let mut response = Response::new(Body::from(body.clone()));
        *response.headers_mut() = self.headers.clone();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        let name = match encoding {
            // The compression layer passes it on and adds `Vary` itself.
            Encoding::Identity => return response,
            Encoding::Br => "br",
            Encoding::Gzip => "gzip",
        };
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
        headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
        response
    }
}

fn brotli(plain: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(plain.len() / 3);
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY,
        lgwin: BROTLI_WINDOW,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &plain[..], &mut out, &params).expect("compressing in memory");
    out.into()
}

fn gzip(plain: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(GZIP_LEVEL));
    encoder.write_all(plain).expect("compressing in memory");
    encoder.finish().expect("compressing in memory").into()
}

#[cfg(test)]
#[path = "page_cache_tests.rs"]
mod tests;
