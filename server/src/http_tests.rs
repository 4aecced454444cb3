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
    let ledger = engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
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
    let nonce = csp.split("'nonce-").nth(1).and_then(|rest| rest.split('\'').next()).expect(&csp).to_owned();
    assert!(nonce.len() >= 16, "{csp}");
    let html =
        String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap().to_vec()).unwrap();
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
    let cookie = res.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
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
    engine.boards().create_board(&board).await.unwrap();
    let write = |id: &str, member: &str, delta| domain::write::Write {
        member: domain::MemberId::parse(member).unwrap(),
        change: domain::write::Change::Point { event_id: domain::EventId::parse(id).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: Default::default(),
    };
    let written =
        engine.writes().record(&board, &[write("a", "ann", 30), write("b", "bob", 20)]).await.unwrap();
    assert!(written.iter().all(|w| !w.projected), "Redis is not there");

    let (status, top) = get(&router, "/api/v1/boards/weekly/periods/current/top?limit=10").await;
    assert_eq!(status, StatusCode::OK, "{top}");
    assert_eq!(top["source"], "ledger");
    let members: Vec<_> = top["entries"].as_array().unwrap().iter().map(|e| e["member"].clone()).collect();
    assert_eq!(members, [json!("ann"), json!("bob")]);
    let (status, count) = get(&router, "/api/v1/boards/weekly/periods/current/count?min_points=25").await;
    assert_eq!((status, &count["count"], &count["source"]), (StatusCode::OK, &json!(1), &json!("ledger")));

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
