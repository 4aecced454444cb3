//! On real stores (SQLite and the test Redis, `LAUREL_TEST_REDIS_URL`), through the whole
//! site as `listen` runs it. Behaviour only: which request gets the kept page, what it holds.

use super::*;
use crate::http::{Site, app};
use crate::state::AppState;
use engine::redis::keys::KeySpace;
use engine::redis::{Projection, RedisTarget};
use leptos::prelude::LeptosOptions;
use std::io::Read;
use tower::ServiceExt;

const LINK_SECRET: &str = "a secret only the page cache tests and their server know";

struct Pages {
    site: Site,
    state: AppState,
    engine: Engine,
    board: domain::Board,
    dir: std::path::PathBuf,
}

/// An answer: its status, headers and body as sent.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn header(&self, name: &str) -> String {
        let values: Vec<_> = self.headers.get_all(name).iter().map(|v| v.to_str().unwrap()).collect();
        values.join(", ")
    }

    /// The nonce the page's script policy names (each render has its own).
    fn nonce(&self) -> String {
        let csp = self.header("content-security-policy");
        csp.split("'nonce-").nth(1).and_then(|rest| rest.split('\'').next()).expect(&csp).to_owned()
    }

    fn html(&self) -> String {
        String::from_utf8(self.body.to_vec()).unwrap()
    }

    /// The HTML with its nonce blanked: two renders of the same data are then equal.
    fn without_nonce(&self) -> String {
        self.html().replace(&self.nonce(), "NONCE")
    }
}

impl Pages {
    async fn start(name: &str) -> Self {
        let prefix = format!("laurel-pages-{name}-{}", std::process::id());
        let dir = std::env::temp_dir().join(&prefix);
        let url = std::env::var("LAUREL_TEST_REDIS_URL").expect("LAUREL_TEST_REDIS_URL: run scripts/test");
        let ledger =
            engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
        ledger.migrate().await.unwrap();
        let projection = Projection::new(RedisTarget::parse(&url).unwrap(), KeySpace::new(prefix));
        let secret = engine::access::links::LinkSecret::new(LINK_SECRET).unwrap();
        let engine = Engine::from_parts(ledger, projection).with_link_secret(secret);
        let state = AppState::new(LeptosOptions::builder().output_name("laurel").build(), engine.clone());
        let site = app(state.clone());
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
        engine.boards().create_board(&board).await.unwrap();
        let pages = Pages { site, state, engine, board, dir };
        pages.write("a", "ann", 30).await;
        pages.write("b", "bob", 20).await;
        pages
    }

    async fn write(&self, id: &str, member: &str, delta: i64) {
        let write = domain::write::Write {
            member: domain::MemberId::parse(member).unwrap(),
            change: domain::write::Change::Point { event_id: domain::EventId::parse(id).unwrap(), delta },
            occurred_at: jiff::Timestamp::now(),
            metadata: None,
            segments: Default::default(),
        };
        self.engine.writes().record(&self.board, &[write]).await.unwrap();
    }

    async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        let mut req = Request::builder().uri(path);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let res = self.site.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
        let (parts, body) = res.into_parts();
        let body = axum::body::to_bytes(body, 1 << 24).await.unwrap();
        Answer { status: parts.status, headers: parts.headers, body }
    }

    /// A render for this request alone: a cookie the page does not know keeps it personal.
    async fn rendered(&self, path: &str) -> Answer {
        self.get(path, &[("cookie", "unknown=1")]).await
    }

    async fn scope(&self) -> engine::scope::Scope {
        self.engine.reads().scope(&self.board.slug, None).await.unwrap()
    }

    async fn stop(self) {
        let mut conn = self.engine.projection().conn().await.unwrap();
        let pattern = self.engine.projection().keys().pattern();
        let keys: Vec<String> = redis::cmd("KEYS").arg(&pattern).query_async(&mut conn).await.unwrap();
        for key in keys {
            redis::cmd("UNLINK").arg(key).exec_async(&mut conn).await.unwrap();
        }
        self.engine.close().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A "me" cookie as a valid signed link for `member` sets it.
fn me_cookie(member: &str) -> String {
    let secret = engine::access::links::LinkSecret::new(LINK_SECRET).unwrap();
    let member = domain::MemberId::parse(member).unwrap();
    let link = secret.sign(&member, jiff::SignedDuration::from_hours(1), jiff::Timestamp::now()).unwrap();
    format!("laurel_me={}", link.cookie_value())
}

#[tokio::test]
async fn an_anonymous_page_is_kept_and_answered_as_a_render_answers_it() {
    let pages = Pages::start("kept").await;
    let first = pages.get("/b/weekly", &[]).await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(first.html().contains("ann") && first.html().contains("bob"), "{}", first.html());
    assert_eq!(pages.state.pages.len(), 1, "the page is kept");
    let again = pages.get("/b/weekly", &[]).await;
    assert_eq!(again.nonce(), first.nonce(), "answered from the kept page, not rendered");
    assert_eq!(again.body, first.body);
    for name in ["content-type", "cache-control", "vary", "x-frame-options", "x-content-type-options"] {
        assert_eq!(again.header(name), first.header(name), "{name}");
    }
    assert!(first.header("vary").contains("accept-language"), "{:?}", first.headers);

    // The same page rendered for one request alone: the same HTML but for its own nonce.
    let rendered = pages.rendered("/b/weekly").await;
    assert_ne!(rendered.nonce(), first.nonce(), "rendered");
    assert_eq!(rendered.without_nonce(), again.without_nonce());
    assert_eq!(rendered.header("content-type"), again.header("content-type"));
    assert_eq!(rendered.header("cache-control"), again.header("cache-control"));

    // The period named in the path, the switcher's `?period=` and `?show=` are pages of
    // their own; made-up parameters and the other views are never kept.
    let period = pages.board.period_at(jiff::Timestamp::now()).to_string();
    let named = pages.get(&format!("/b/weekly/{period}"), &[]).await;
    assert_eq!(named.nonce(), pages.get(&format!("/b/weekly/{period}"), &[]).await.nonce());
    let show = pages.get("/b/weekly?show=1", &[]).await;
    assert!(show.html().contains("ann"), "{}", show.html());
    assert_eq!(show.nonce(), pages.get("/b/weekly?show=1", &[]).await.nonce());
    assert_ne!(show.nonce(), first.nonce());
    for path in ["/b/weekly?utm=1", "/b/weekly?find=ann"] {
        let one = pages.get(path, &[]).await;
        assert_eq!(one.status, StatusCode::OK, "{path}");
        assert_ne!(one.nonce(), pages.get(path, &[]).await.nonce(), "{path} is rendered each time");
    }
    assert_eq!(pages.state.pages.len(), 3);
    // A kept page is answered for a second at most.
    tokio::time::sleep(PAGE_TTL).await;
    assert_ne!(pages.get("/b/weekly", &[]).await.nonce(), first.nonce());
    pages.stop().await;
}

#[tokio::test]
async fn a_write_a_transition_and_a_public_freeze_show_at_once_and_the_freeze_leaks_nothing() {
    let pages = Pages::start("fresh").await;
    let first = pages.get("/b/weekly", &[]).await;
    assert!(!first.html().contains("cq7"), "{}", first.html());

    // A write through this process: the next anonymous visitor sees it.
    pages.write("c", "cq7", 50).await;
    let written = pages.get("/b/weekly", &[]).await;
    assert!(written.html().contains("cq7"), "{}", written.html());
    assert_ne!(written.nonce(), first.nonce());
    assert_eq!(written.without_nonce(), pages.rendered("/b/weekly").await.without_nonce());

    // A public freeze: the page says so at once, and a write after it is not shown.
    let kept = pages.get("/b/weekly", &[]).await;
    assert_eq!(kept.nonce(), pages.get("/b/weekly", &[]).await.nonce(), "kept again");
    let scope = pages.scope().await;
    pages.engine.lifecycle().public_freeze(&scope, "test", None).await.unwrap();
    let frozen = pages.get("/b/weekly", &[]).await;
    assert_ne!(frozen.nonce(), kept.nonce(), "the freeze dropped the kept page");
    assert!(frozen.html().contains("Points scored since then still count"), "{}", frozen.html());
    assert_eq!(frozen.without_nonce(), pages.rendered("/b/weekly").await.without_nonce());
    pages.write("d", "dq7", 90).await;
    let after = pages.get("/b/weekly", &[]).await;
    assert!(!after.html().contains("dq7"), "a write after the freeze is not public: {}", after.html());
    assert_eq!(after.without_nonce(), pages.rendered("/b/weekly").await.without_nonce());

    // A transition (frozen): the badge changes at once.
    let kept = pages.get("/b/weekly", &[]).await;
    assert!(kept.html().contains("state-open"));
    let scope = pages.scope().await;
    let transition = domain::lifecycle::Transition::Freeze;
    pages.engine.lifecycle().transition(&scope, transition, "test", None).await.unwrap();
    let moved = pages.get("/b/weekly", &[]).await;
    assert!(moved.html().contains("state-frozen"), "{}", moved.html());
    assert_eq!(moved.without_nonce(), pages.rendered("/b/weekly").await.without_nonce());
    pages.stop().await;
}

#[tokio::test]
async fn a_me_link_a_session_or_any_other_cookie_never_gets_the_kept_page() {
    let pages = Pages::start("personal").await;
    let kept = pages.get("/b/weekly", &[]).await;
    assert!(!kept.html().contains("data-testid=\"me\""));
    let me = me_cookie("bob");
    for cookie in [me.as_str(), "laurel_session=anything", "lang=en; laurel_me=x", "lang=en; other=1"] {
        let answer = pages.get("/b/weekly", &[("cookie", cookie)]).await;
        assert_eq!(answer.status, StatusCode::OK, "{cookie}");
        assert_ne!(answer.nonce(), kept.nonce(), "{cookie}: rendered for itself");
    }
    let mine = pages.get("/b/weekly", &[("cookie", &me)]).await;
    assert!(mine.html().contains("data-testid=\"me\""), "{}", mine.html());
    // Nor does a request with credentials; and the kept page is still the anonymous one.
    let admin = pages.get("/b/weekly", &[("authorization", "Bearer x")]).await;
    assert_ne!(admin.nonce(), kept.nonce());
    let again = pages.get("/b/weekly", &[]).await;
    assert_eq!(again.nonce(), kept.nonce());
    assert!(!again.html().contains("data-testid=\"me\""));
    assert_eq!(pages.state.pages.len(), 1, "nothing personal was kept");

    // The language cookie and `Accept-Language` pick the kept page of their language;
    // `?lang=` sets the cookie, so its answer is never kept.
    let zh = pages.get("/b/weekly", &[("accept-language", "zh-CN")]).await;
    assert!(zh.html().contains("<html lang=\"zh-CN\""), "{}", zh.html());
    let by_cookie = pages.get("/b/weekly", &[("cookie", "lang=zh-CN")]).await;
    assert_eq!(by_cookie.nonce(), zh.nonce());
    assert_eq!(pages.get("/b/weekly", &[]).await.nonce(), kept.nonce());
    let chosen = pages.get("/b/weekly?lang=zh-CN", &[]).await;
    assert!(chosen.header("set-cookie").starts_with("lang=zh-CN"), "{:?}", chosen.headers);
    assert_eq!(pages.state.pages.len(), 2);
    pages.stop().await;
}

#[tokio::test]
async fn compressed_pages_decode_to_the_kept_html_and_say_how_they_are_sent() {
    let pages = Pages::start("encodings").await;
    let plain = pages.get("/b/weekly", &[]).await;
    assert_eq!(plain.header("content-encoding"), "");
    assert!(plain.header("vary").contains("accept-encoding"), "{:?}", plain.headers);

    let br = pages.get("/b/weekly", &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(br.header("content-encoding"), "br");
    assert!(br.header("vary").contains("accept-encoding") && br.header("vary").contains("accept-language"));
    assert_eq!(br.header("content-length"), br.body.len().to_string());
    let mut html = Vec::new();
    brotli::Decompressor::new(&br.body[..], 4096).read_to_end(&mut html).unwrap();
    assert_eq!(html, plain.body);
    assert!(br.body.len() < plain.body.len() / 3, "{} of {}", br.body.len(), plain.body.len());

    let gz = pages.get("/b/weekly", &[("accept-encoding", "gzip")]).await;
    assert_eq!(gz.header("content-encoding"), "gzip");
    assert!(gz.header("vary").contains("accept-encoding"));
    let mut html = Vec::new();
    flate2::read::GzDecoder::new(&gz.body[..]).read_to_end(&mut html).unwrap();
    assert_eq!(html, plain.body);

    // The same kept page each time (its nonce), in every encoding.
    assert_eq!((br.nonce(), gz.nonce()), (plain.nonce(), plain.nonce()));
    // The browser's preferences as the compression layer reads them.
    let preferred = pages.get("/b/weekly", &[("accept-encoding", "br;q=0.5, gzip")]).await;
    assert_eq!(preferred.header("content-encoding"), "gzip");
    let none = pages.get("/b/weekly", &[("accept-encoding", "br;q=0, gzip;q=0")]).await;
    assert_eq!(none.header("content-encoding"), "");
    assert_eq!(none.body, plain.body);
    pages.stop().await;
}

#[test]
fn the_encoding_is_the_one_the_compression_layer_would_pick() {
    let of = |value: &str| {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(value).unwrap());
        Encoding::of(&headers)
    };
    assert_eq!(Encoding::of(&HeaderMap::new()), Encoding::Identity);
    assert_eq!(of("br, gzip"), Encoding::Br);
    assert_eq!(of("gzip, br"), Encoding::Br, "a tie goes to brotli");
    assert_eq!(of("gzip"), Encoding::Gzip);
    assert_eq!(of("x-gzip"), Encoding::Gzip);
    assert_eq!(of("gzip;q=0.9, br;q=0.8"), Encoding::Gzip);
    assert_eq!(of("br;q=0.800, gzip;q=0.75"), Encoding::Br);
    assert_eq!(of("br;q=0, gzip;q=0"), Encoding::Identity);
    assert_eq!(of("identity;q=1, gzip;q=0.5"), Encoding::Identity);
    assert_eq!(of("deflate, zstd"), Encoding::Identity);
    assert_eq!(of("br;q=2, gzip;q=0.1"), Encoding::Gzip, "a q-value out of range is ignored");
    assert_eq!(of("BR"), Encoding::Br);
}
