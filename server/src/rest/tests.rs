//! The API on real stores (SQLite and the test Redis started by scripts/test): bad input gets a
//! clear 4xx with a machine-readable reason and changes nothing; auth boundaries hold.
//!
//! Also: operators and their endpoints, board validation, late events, rebuild, metrics;
//! readiness without Redis; every lifecycle route refuses anonymous callers and ingest keys and
//! answers the contract; every mutating route and server function refuses anonymous callers and
//! "me", and every server function is public by a stated reason or under the console's gated
//! prefix; ingest keys made, listed and revoked over REST (422 for bad input with nothing written,
//! a revoked key 401); a key at 1/s with a burst of 2 answered 429 with `Retry-After` on the third
//! quick request, the refused event in neither the ledger nor the board, the admin token never
//! limited; the console's keys page without JavaScript (the key shown once through its cookie,
//! then prefixes only; a refusal readable in the page; revoke); the security headers on every kind
//! of answer and a page's nonce on each of its inline scripts, HSTS and the public origin behind
//! `--public-url`, compression above 1 KiB only; console logins through a real listener throttled
//! per client address behind a trusted proxy; public freezes over HTTP, pages included; hot
//! boards.

use crate::http::{Site, app};
use crate::state::AppState;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use domain::apikey::KeyLimits;
use engine::Engine;
use engine::redis::keys::KeySpace;
use engine::redis::{Projection, RedisTarget};
use leptos::prelude::LeptosOptions;
use serde_json::{Value, json};
use tower::ServiceExt;

/// The secret the test server signs contestant links with.
const TEST_LINK_SECRET: &str = "a secret only the tests and their server know";

/// A "me" cookie as a valid signed link for `member` sets it.
fn me_cookie(member: &str) -> String {
    let secret = engine::access::links::LinkSecret::new(TEST_LINK_SECRET).unwrap();
    let member = domain::MemberId::parse(member).unwrap();
    let link = secret.sign(&member, jiff::SignedDuration::from_hours(1), jiff::Timestamp::now()).unwrap();
    format!("laurel_me={}", link.cookie_value())
}

struct Api {
    router: Site,
    state: AppState,
    engine: Engine,
    admin: String,
    key: String,
    dir: std::path::PathBuf,
}

impl Api {
    async fn start() -> Self {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("laurel-api-{}-{n}", std::process::id());
        let dir = std::env::temp_dir().join(&name);
        let url = std::env::var("LAUREL_TEST_REDIS_URL").expect("LAUREL_TEST_REDIS_URL: run scripts/test");
        let ledger =
            engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
        ledger.migrate().await.unwrap();
        let projection = Projection::new(RedisTarget::parse(&url).unwrap(), KeySpace::new(name));
        let secret = engine::access::links::LinkSecret::new(TEST_LINK_SECRET).unwrap();
        let engine = Engine::from_parts(ledger, projection).with_link_secret(secret);
        let leptos_options = LeptosOptions::builder().output_name("laurel").build();
        let state = AppState::new(leptos_options, engine.clone());
        let router = app(state.clone());
        let admin = engine.access().issue_admin_token().await.unwrap();
        let mut api = Api { router, state, engine, admin, key: String::new(), dir };
        for (slug, operator, policy) in [
            ("inc", "incr", "first_reached"),
            ("tot", "set", "shared"),
            ("top", "best", "shared"),
            ("other", "incr", "shared"),
        ] {
            let body = json!({"slug": slug, "title": slug, "cadence": "weekly", "time_zone": "Asia/Shanghai",
                "operator": operator, "tie_policy": policy, "max_points": 1000, "min_points": -1000});
            let (status, out) =
                api.call("POST", "/api/v1/boards", Some(&api.admin.clone()), Some(body)).await;
            assert_eq!(status, StatusCode::CREATED, "{out}");
        }
        let slugs = ["inc", "tot", "top"].map(|s| domain::BoardSlug::parse(s).unwrap());
        api.key = api.engine.access().issue_api_key(&slugs, KeyLimits::default(), "test").await.unwrap().key;
        api
    }

    async fn call(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        self.raw(method, path, bearer, body.map(|b| b.to_string())).await
    }

    async fn raw(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        body: Option<String>,
    ) -> (StatusCode, Value) {
        let mut req = Request::builder().method(method).uri(path);
        if let Some(token) = bearer {
            req = req.header("authorization", format!("Bearer {token}"));
        }
        if body.is_some() {
            req = req.header("content-type", "application/json");
        }
        let res = self
            .router
            .clone()
            .oneshot(req.body(body.map(Body::from).unwrap_or_default()).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    async fn post_events(&self, board: &str, body: Value) -> (StatusCode, Value) {
        self.call("POST", &format!("/api/v1/boards/{board}/events"), Some(&self.key.clone()), Some(body))
            .await
    }

    /// Nothing was written to the board's current period.
    async fn assert_untouched(&self, board: &str) {
        let board = self.engine.reads().board(&domain::BoardSlug::parse(board).unwrap()).await.unwrap();
        let period = board.period_at(jiff::Timestamp::now());
        assert!(self.engine.ledger().totals(&board.slug, &period).await.unwrap().is_empty());
    }

    /// Removes this test's keys (its own prefix, never anything else) and its ledger.
    async fn stop(self) {
        let mut conn = self.engine.projection().conn().await.unwrap();
        let pattern = self.engine.projection().keys().pattern();
        let keys: Vec<String> = redis::cmd("KEYS").arg(&pattern).query_async(&mut conn).await.unwrap();
        for key in keys {
            redis::cmd("UNLINK").arg(key).exec_async(&mut conn).await.unwrap();
        }
        self.engine.close().await;
        std::fs::remove_dir_all(self.dir).unwrap();
    }
}

fn error_of(body: &Value) -> &str {
    body["error"].as_str().unwrap_or_else(|| panic!("no error code in {body}"))
}

#[tokio::test]
async fn bad_event_input_gets_a_clear_4xx_and_changes_nothing() {
    let api = Api::start().await;
    let key = api.key.clone();
    let cases: Vec<(&str, Option<String>, StatusCode, &str)> = vec![
        ("malformed json", Some("{\"event_id\": ".into()), StatusCode::BAD_REQUEST, "malformed_json"),
        ("not an object", Some("[1, 2]".into()), StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        (
            "missing delta",
            Some(json!({"event_id": "e1", "member": "u1"}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rejected",
        ),
        (
            "bad member",
            Some(json!({"event_id": "e1", "member": "u 1", "delta": 1}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rejected",
        ),
        (
            "long member",
            Some(json!({"event_id": "e1", "member": "u".repeat(65), "delta": 1}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rejected",
        ),
        (
            "long event id",
            Some(json!({"event_id": "e".repeat(129), "member": "u1", "delta": 1}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rejected",
        ),
        (
            "delta out of bounds",
            Some(json!({"event_id": "e1", "member": "u1", "delta": 1001}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rejected",
        ),
        (
            "bad time",
            Some(
                json!({"event_id": "e1", "member": "u1", "delta": 1, "occurred_at": "yesterday"}).to_string(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rejected",
        ),
        (
            "future time",
            Some(
                json!({"event_id": "e1", "member": "u1", "delta": 1, "occurred_at": "2999-01-01T00:00:00Z"})
                    .to_string(),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "rejected",
        ),
        ("empty batch", Some(json!({"events": []}).to_string()), StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
    ];
    for (name, body, status, code) in cases {
        let (got, out) = api.raw("POST", "/api/v1/boards/inc/events", Some(&key), body).await;
        assert_eq!((got, error_of(&out)), (status, code), "{name}: {out}");
        assert!(!out["detail"].as_str().unwrap().is_empty(), "{name}: a reason is given");
    }
    let too_many: Vec<Value> =
        (0..1001).map(|i| json!({"event_id": format!("e{i}"), "member": "u1", "delta": 0})).collect();
    let (got, out) = api.post_events("inc", json!({ "events": too_many })).await;
    assert_eq!((got, error_of(&out)), (StatusCode::PAYLOAD_TOO_LARGE, "batch_too_large"));
    // A body over the server's limit (axum's 2 MiB) is refused in the API's shape too.
    let huge = format!("{{\"events\": [{}]}}", vec!["0"; 1_100_000].join(","));
    let (got, out) = api.raw("POST", "/api/v1/boards/inc/events", Some(&key), Some(huge)).await;
    assert_eq!((got, error_of(&out)), (StatusCode::PAYLOAD_TOO_LARGE, "body_too_large"), "{out}");
    assert!(!out["detail"].as_str().unwrap().is_empty());
    api.assert_untouched("inc").await;
    api.stop().await;
}

#[tokio::test]
async fn a_batch_applies_valid_items_and_reports_invalid_ones() {
    let api = Api::start().await;
    let (status, out) = api
        .post_events(
            "inc",
            json!({"events": [
                {"event_id": "a", "member": "u1", "delta": 5, "metadata": {"task": 7}},
                {"event_id": "b", "member": "bad member", "delta": 5},
                {"event_id": "c", "member": "u1", "delta": 5000},
                {"event_id": "a", "member": "u1", "delta": 5},
                {"event_id": "d", "member": "u2", "delta": 3}
            ]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{out}");
    let results: Vec<(&str, &str)> = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["event_id"].as_str().unwrap(), r["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        results,
        vec![("a", "applied"), ("b", "rejected"), ("c", "rejected"), ("a", "duplicate"), ("d", "applied")]
    );
    assert_eq!(out["results"][0]["points"], 5);
    assert_eq!(out["results"][0]["version"], 1);
    assert_eq!(out["results"][0]["projected"], true);
    assert!(out["results"][2]["reason"].as_str().unwrap().contains("bounds"));
    api.stop().await;
}

#[tokio::test]
async fn each_operator_has_its_own_endpoint() {
    let api = Api::start().await;
    let key = api.key.clone();
    let (status, out) = api.post_events("tot", json!({"event_id": "e", "member": "u1", "delta": 1})).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "wrong_operator"));
    let put = |v: i64, t: i64| json!({"version": v, "total": t});
    let (status, out) =
        api.call("PUT", "/api/v1/boards/tot/members/u1/total", Some(&key), Some(put(2, 40))).await;
    assert_eq!((status, out["result"].as_str()), (StatusCode::OK, Some("applied")), "{out}");
    let (_, out) = api.call("PUT", "/api/v1/boards/tot/members/u1/total", Some(&key), Some(put(1, 99))).await;
    assert_eq!(out["result"], "stale");
    let (status, out) =
        api.call("PUT", "/api/v1/boards/tot/members/u1/total", Some(&key), Some(put(3, 5000))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "rejected"));
    let (status, out) =
        api.call("PUT", "/api/v1/boards/tot/members/u1/total", Some(&key), Some(put(0, 1))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"));
    let sub = |id: &str, score: i64| json!({"submission_id": id, "member": "u1", "score": score});
    let (_, out) = api.call("POST", "/api/v1/boards/top/submissions", Some(&key), Some(sub("s1", 80))).await;
    assert_eq!(out["result"], "improved", "{out}");
    let (_, out) = api.call("POST", "/api/v1/boards/top/submissions", Some(&key), Some(sub("s2", 70))).await;
    assert_eq!(out["result"], "not_higher");
    let (_, out) = api.call("POST", "/api/v1/boards/top/submissions", Some(&key), Some(sub("s1", 80))).await;
    assert_eq!(out["result"], "duplicate");
    let (status, out) =
        api.call("POST", "/api/v1/boards/inc/submissions", Some(&key), Some(sub("s3", 1))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "wrong_operator"));
    api.stop().await;
}

#[tokio::test]
async fn writes_need_a_key_for_the_board() {
    let api = Api::start().await;
    let event = json!({"event_id": "e", "member": "u1", "delta": 1});
    let path = "/api/v1/boards/inc/events";
    let (status, out) = api.call("POST", path, None, Some(event.clone())).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNAUTHORIZED, "unauthorized"));
    let (status, _) = api.call("POST", path, Some("laurel_ik_forged"), Some(event.clone())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, out) =
        api.call("POST", "/api/v1/boards/other/events", Some(&api.key.clone()), Some(event.clone())).await;
    assert_eq!((status, error_of(&out)), (StatusCode::FORBIDDEN, "forbidden"));
    let (status, out) =
        api.call("POST", "/api/v1/boards/nope/events", Some(&api.key.clone()), Some(event.clone())).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"));
    // An ingest key cannot create boards; the admin token can write anywhere.
    let (status, _) = api.call("POST", "/api/v1/boards", Some(&api.key.clone()), Some(json!({}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) =
        api.call("POST", "/api/v1/boards/other/events", Some(&api.admin.clone()), Some(event)).await;
    assert_eq!(status, StatusCode::OK);
    api.assert_untouched("inc").await;
    api.stop().await;
}

#[tokio::test]
async fn board_creation_refuses_inexact_or_inconsistent_definitions() {
    let api = Api::start().await;
    let admin = api.admin.clone();
    let base = json!({"slug": "x", "title": "X", "cadence": "weekly", "time_zone": "Asia/Shanghai",
        "operator": "incr", "tie_policy": "first_reached", "max_points": 1000});
    let with = |k: &str, v: Value| {
        let mut b = base.clone();
        b[k] = v;
        b
    };
    let cases = [
        ("beyond 2^53", with("max_points", json!(1_000_000_000_000i64)), "2^53"),
        ("unknown zone", with("time_zone", json!("Mars/Olympus")), "time zone"),
        (
            "overlapping prizes",
            with(
                "prizes",
                json!([{"from_rank": 1, "to_rank": 3, "prize": "a"}, {"from_rank": 3, "to_rank": 5, "prize": "b"}]),
            ),
            "overlap",
        ),
        ("bad operator", with("operator", json!("max")), "operator"),
        ("bad slug", with("slug", json!("Not A Slug")), "slug"),
        ("keep_top 0", with("keep_top", json!(0)), "keep_top"),
        ("keep_top negative", with("keep_top", json!(-5)), "keep_top"),
        ("negative ranking TTL", with("ranking_ttl_days", json!(-1)), "ranking_ttl_days"),
    ];
    for (name, body, words) in cases {
        let (status, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(body)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}: {out}");
        assert!(out["error"].is_string(), "{name}: {out}");
        assert!(out["detail"].as_str().unwrap().contains(words), "{name}: {out}");
        let (status, _) = api.call("GET", "/api/v1/boards/x", None, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{name}: nothing was created");
    }
    // A bounded board tells its limit and its keys' life.
    let bounded = json!({"slug": "kept", "keep_top": 1000, "ranking_ttl_days": 3});
    let mut body = base.clone();
    body.as_object_mut().unwrap().extend(bounded.as_object().unwrap().clone());
    let (status, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{out}");
    let (_, out) = api.call("GET", "/api/v1/boards/kept", None, None).await;
    assert_eq!((&out["keep_top"], &out["ranking_ttl_days"]), (&json!(1000), &json!(3)), "{out}");
    let (status, out) =
        api.call("POST", "/api/v1/boards", Some(&admin), Some(with("slug", json!("inc")))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "board_exists"));
    let (status, out) = api.call("GET", "/api/v1/boards/inc", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(out["state"], "open");
    assert_eq!(out["tie_base"], 1_000_000);
    api.stop().await;
}

#[tokio::test]
async fn a_season_is_created_from_a_board_and_refuses_what_would_be_written_to_it() {
    let api = Api::start().await;
    let admin = Some(api.admin.clone());
    let season = |extra: Value| {
        let mut body = json!({"slug": "spring", "title": "Spring", "cadence": "season", "source": "inc",
            "periods": ["2026-W40", "2026-W41", "2026-W42"], "rule": {"kind": "sum"}, "tie_policy": "shared"});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        body
    };
    for (bad, why) in [
        (json!({"source": "nope"}), "no periodic board"),
        (json!({"rule": {"kind": "best", "k": 4}}), "rule"),
        (json!({"periods": ["2026-10"]}), "periods"),
        (json!({"rule": {"kind": "average"}}), ""),
    ] {
        let (status, out) =
            api.call("POST", "/api/v1/boards", admin.as_deref(), Some(season(bad.clone()))).await;
        assert!(status.is_client_error() && status != StatusCode::NOT_FOUND, "{bad}: {status} {out}");
        assert!(out["detail"].as_str().unwrap().contains(why), "{bad}: {out}");
    }
    let (status, out) = api.call("GET", "/api/v1/boards/spring", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a refused season was not created: {out}");

    let (status, out) = api.call("POST", "/api/v1/boards", admin.as_deref(), Some(season(json!({})))).await;
    assert_eq!(status, StatusCode::CREATED, "{out}");
    assert_eq!(out["cadence"], "season");
    assert_eq!(out["current_period"], "2026-W40..2026-W42");
    assert_eq!(out["season"]["source"], "inc");
    assert_eq!(out["season"]["rule"], json!({"kind": "sum"}));
    let (status, out) = api.call("GET", "/api/v1/boards/spring/periods", None, None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(
        out.as_array().unwrap().iter().map(|p| &p["period"]).collect::<Vec<_>>(),
        ["2026-W40..2026-W42"]
    );
    // A season has that one period: any other key names nothing.
    for other in ["2026-W40..2026-W41", "2026-W40"] {
        let (status, out) =
            api.call("GET", &format!("/api/v1/boards/spring/periods/{other}/top"), None, None).await;
        assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "{other}: {out}");
    }

    // Nothing is written to a season: its totals come from its source.
    let events = json!({"event_id": "s1", "member": "u1", "delta": 5});
    let (status, out) =
        api.call("POST", "/api/v1/boards/spring/events", admin.as_deref(), Some(events)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "season_board"), "{out}");
    let correction = json!({"member": "u1", "delta": 1, "reason": "bonus"});
    let path = "/api/v1/boards/spring/periods/current/corrections";
    let (status, out) = api.call("POST", path, admin.as_deref(), Some(correction)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "season_board"), "{out}");

    let (status, out) =
        api.call("GET", "/api/v1/boards/spring/periods/current/members/u1/season", None, None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(out["rule"], "sum");
    assert_eq!(out["periods"].as_array().unwrap().len(), 3);
    let (status, out) =
        api.call("GET", "/api/v1/boards/inc/periods/current/members/u1/season", None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "{out}");

    // A carry-over needs a settled season to carry from; a refused one creates nothing.
    let next = |carry: Value| {
        let mut body = season(json!({"carry_over": carry}));
        body["slug"] = json!("summer");
        body
    };
    for (carry, status_wanted, error) in [
        (json!({"from": "spring", "share_percent": 50}), StatusCode::CONFLICT, "invalid_transition"),
        (json!({"from": "inc", "share_percent": 50}), StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        (json!({"from": "spring", "share_percent": 0}), StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
    ] {
        let (status, out) =
            api.call("POST", "/api/v1/boards", admin.as_deref(), Some(next(carry.clone()))).await;
        assert_eq!((status, error_of(&out)), (status_wanted, error), "{carry}: {out}");
    }
    let (status, out) = api.call("GET", "/api/v1/boards/summer", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a refused season was not created: {out}");
    api.stop().await;
}

#[tokio::test]
async fn metrics_count_writes_by_result() {
    let api = Api::start().await;
    api.post_events("inc", json!({"events": [{"event_id": "a", "member": "u1", "delta": 1}, {"event_id": "a", "member": "u1", "delta": 1}]})).await;
    let res =
        api.router.clone().oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
    let text =
        String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap();
    assert!(
        text.contains(r#"laurel_writes_total{board="inc",operator="incr",result="applied"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(r#"laurel_writes_total{board="inc",operator="incr",result="duplicate"} 1"#),
        "{text}"
    );
    assert!(text.contains("laurel_http_request_duration_seconds_bucket"), "{text}");
    api.stop().await;
}

/// A top-N read asked again within its second is answered before routing with the same bytes,
/// headers and status, and is still recorded under the route's template.
#[tokio::test]
async fn a_repeated_top_read_is_answered_from_memory_as_the_route_answers_it() {
    let api = Api::start().await;
    api.post_events("inc", json!({"event_id": "a", "member": "u1", "delta": 5})).await;
    let get = |path: &str| {
        let req = Request::get(path).body(Body::empty()).unwrap();
        let router = api.router.clone();
        async move {
            let res = router.oneshot(req).await.unwrap();
            let (parts, body) = res.into_parts();
            (parts.status, parts.headers, axum::body::to_bytes(body, 1 << 20).await.unwrap())
        }
    };
    let path = "/api/v1/boards/inc/periods/current/top?limit=3";
    let routed = get(path).await;
    assert_eq!(routed.0, StatusCode::OK);
    let epoch = api.engine.reads().read_epoch();
    let asked =
        api.state.top_bytes.get(path, epoch).expect("the routed answer is kept under its request target");
    assert_eq!(asked, routed.2);
    let remembered = get(path).await;
    assert_eq!(remembered, routed, "the same status, headers and body");
    // It is answered before routing: words the routes would refuse (no such board) but kept
    // with an answer are answered with that answer.
    let ghost = "/api/v1/boards/ghost/periods/current/top";
    api.state.top_bytes.keep_for_test(ghost, routed.2.clone(), epoch);
    assert_eq!(get(ghost).await.2, routed.2);
    // Other words are routed (and answered) on their own; an unknown board is still a 404.
    assert_eq!(api.state.top_bytes.get("/api/v1/boards/inc/periods/current/top?limit=2", epoch), None);
    let (status, out) = api.call("GET", "/api/v1/boards/nope/periods/current/top", None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"));
    let res =
        api.router.clone().oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
    let text =
        String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap();
    let series = r#"laurel_http_request_duration_seconds_count{method="GET",route="/api/v1/boards/{board}/periods/{period}/top",status="200"} 3"#;
    assert!(text.contains(series), "both reads are counted under the route: {text}");
    api.stop().await;
}

#[tokio::test]
async fn late_events_are_kept_and_answered_late() {
    let api = Api::start().await;
    let old = (jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * 9)).to_string();
    let event = json!({"event_id": "old", "member": "u1", "delta": 4, "occurred_at": old});
    let (status, out) = api.post_events("inc", event.clone()).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(out["results"][0]["result"], "late");
    assert!(out["results"][0]["reason"].as_str().unwrap().contains("kept for review"));
    let (_, again) = api.post_events("inc", event).await;
    assert_eq!(again["results"][0]["result"], "late", "a retry gets the same answer");
    api.assert_untouched("inc").await;
    api.stop().await;
}

#[tokio::test]
async fn an_admin_rebuilds_a_period_from_the_ledger() {
    let api = Api::start().await;
    api.post_events(
        "inc",
        json!({"events": [
            {"event_id": "a", "member": "u1", "delta": 5},
            {"event_id": "b", "member": "u2", "delta": 7}
        ]}),
    )
    .await;
    let path = "/api/v1/boards/inc/periods/current/rebuild";
    let (status, _) = api.call("POST", path, Some(&api.key.clone()), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "ingest keys cannot rebuild");
    let (status, out) = api.call("POST", path, Some(&api.admin.clone()), None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(out["members"], 2);
    assert!(out["took_ms"].is_u64());
    let (status, out) =
        api.call("POST", "/api/v1/boards/inc/periods/2026-13/rebuild", Some(&api.admin.clone()), None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "no such period");
    api.stop().await;
}

#[tokio::test]
async fn reads_answer_ranks_pages_cursors_snapshots_and_reasons() {
    let api = Api::start().await;
    api.post_events(
        "inc",
        json!({"events": [
            {"event_id": "a", "member": "u1", "delta": 50, "metadata": {"why": "quiz"}},
            {"event_id": "b", "member": "u2", "delta": 70},
            {"event_id": "c", "member": "u3", "delta": 50},
            {"event_id": "d", "member": "u4", "delta": 10}
        ]}),
    )
    .await;
    let base = "/api/v1/boards/inc/periods/current";
    let (status, top) = api.call("GET", &format!("{base}/top?limit=3"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{top}");
    // first_reached: u1 reached 50 before u3, so the ranks are unique.
    let members: Vec<&str> =
        top["entries"].as_array().unwrap().iter().map(|e| e["member"].as_str().unwrap()).collect();
    assert_eq!(members, vec!["u2", "u1", "u3"]);
    assert_eq!(top["entries"][1]["rank"], 2);
    assert_eq!(top["entries"][2]["rank"], 3);

    let (_, first) = api.call("GET", &format!("{base}/entries?after=&limit=2"), None, None).await;
    let cursor = first["next_cursor"].as_str().unwrap().to_owned();
    let (_, second) = api.call("GET", &format!("{base}/entries?after={cursor}&limit=2"), None, None).await;
    assert_eq!(second["entries"][0]["member"], "u3");
    assert_eq!(second["next_cursor"], Value::Null);
    let (status, out) = api.call("GET", &format!("{base}/entries?after=zz"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"));
    let (status, out) = api.call("GET", &format!("{base}/entries?limit=abc"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::BAD_REQUEST, "invalid_query"));

    let (status, snap) = api.call("POST", &format!("{base}/snapshots"), None, None).await;
    assert_eq!(status, StatusCode::CREATED, "{snap}");
    assert_eq!(snap["total"], 4);
    let id = snap["snapshot_id"].as_str().unwrap();
    let (status, page) =
        api.call("GET", &format!("{base}/snapshots/{id}/entries?offset=2&limit=2"), None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["entries"][0]["rank"], 3);
    let (status, out) =
        api.call("GET", &format!("{base}/snapshots/0123456789abcdef01234567/entries"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::GONE, "snapshot_expired"));

    let (_, me) = api.call("GET", &format!("{base}/members/u3"), None, None).await;
    assert_eq!((me["rank"].as_u64(), me["points"].as_i64()), (Some(3), Some(50)));
    let (status, out) = api.call("GET", &format!("{base}/members/nobody"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"));
    let (_, around) = api.call("GET", &format!("{base}/members/u2/around?radius=1"), None, None).await;
    assert_eq!(around["rank"], 1);
    assert_eq!(around["entries"].as_array().unwrap().len(), 2, "the leader's neighbourhood starts at rank 1");
    let (_, count) = api.call("GET", &format!("{base}/count?min_points=50"), None, None).await;
    assert_eq!(count["count"], 3);
    let (_, ranks) = api.call("GET", &format!("{base}/ranks?members=u4,u2,ghost"), None, None).await;
    assert_eq!(ranks["entries"].as_array().unwrap().len(), 2);
    let (_, why) = api.call("GET", &format!("{base}/members/u1/events"), None, None).await;
    assert_eq!(why["entries"][0]["external_id"], "a");
    assert_eq!(why["entries"][0]["metadata"]["why"], "quiz");
    let (_, periods) = api.call("GET", "/api/v1/boards/inc/periods", None, None).await;
    assert_eq!(periods[0]["state"], "open");
    api.stop().await;
}

/// A correction retried without an id is the same correction: its id is derived from the content
/// and the caller, so the retry answers `duplicate` and the total does not move twice. An id of
/// the caller's own applies it again on purpose.
#[tokio::test]
async fn a_correction_retried_without_an_id_never_applies_twice() {
    let api = Api::start().await;
    let admin = Some(api.admin.as_str());
    let event = json!({"event_id": "c1", "member": "u2", "delta": 7});
    api.call("POST", "/api/v1/boards/inc/events", Some(api.key.as_str()), Some(event)).await;
    let period = "/api/v1/boards/inc/periods/current";
    let correct = async |body: serde_json::Value| {
        let (status, out) = api.call("POST", &format!("{period}/corrections"), admin, Some(body)).await;
        assert_eq!(status, StatusCode::OK, "{out}");
        out
    };
    let penalty = json!({"member": "u2", "delta": -2, "reason": "penalty"});
    let first = correct(penalty.clone()).await;
    assert_eq!((first["result"].as_str(), first["points"].as_i64()), (Some("applied"), Some(5)), "{first}");
    let first_id = first["correction_id"].as_str().unwrap();
    assert!(first_id.starts_with("correction-"), "{first}");
    let retry = correct(penalty).await;
    assert_eq!(
        (
            retry["result"].as_str(),
            retry["correction_id"].as_str(),
            retry["entry_id"].as_i64(),
            retry["points"].as_i64()
        ),
        (Some("duplicate"), Some(first_id), first["entry_id"].as_i64(), Some(5)),
        "a retry never corrects twice"
    );
    // Another reason makes another correction; so does an id of the caller's own.
    let again =
        correct(json!({"member": "u2", "delta": -2, "reason": "penalty", "correction_id": "second"})).await;
    assert_eq!((again["result"].as_str(), again["points"].as_i64()), (Some("applied"), Some(3)), "{again}");
    let other = correct(json!({"member": "u2", "delta": -2, "reason": "another penalty"})).await;
    assert_eq!((other["result"].as_str(), other["points"].as_i64()), (Some("applied"), Some(1)), "{other}");
    let (_, audit) = api.call("GET", "/api/v1/audit?action=correct&member=u2", admin, None).await;
    assert_eq!(audit["entries"].as_array().map(Vec::len), Some(3), "one audit row per correction: {audit}");
    api.stop().await;
}

#[tokio::test]
async fn lifecycle_routes_need_an_admin_and_answer_the_contract() {
    let api = Api::start().await;
    let admin = Some(api.admin.as_str());
    let ingest = Some(api.key.as_str());
    let ev = |id: &str, member: &str, delta: i64| json!({"event_id": id, "member": member, "delta": delta});
    let (status, _) = api.call("POST", "/api/v1/boards/inc/events", ingest, Some(ev("r1", "u1", 5))).await;
    assert_eq!(status, StatusCode::OK);
    api.call("POST", "/api/v1/boards/inc/events", ingest, Some(ev("r2", "u2", 7))).await;
    let period = "/api/v1/boards/inc/periods/current";

    // Every admin route refuses anonymous callers and ingest keys, and changes nothing.
    let admin_routes = [
        ("POST", format!("{period}/freeze")),
        ("POST", format!("{period}/reopen")),
        ("POST", format!("{period}/settle")),
        ("POST", format!("{period}/archive")),
        ("POST", format!("{period}/corrections")),
        ("POST", format!("{period}/members/u1/hide")),
        ("POST", format!("{period}/members/u1/unhide")),
        ("GET", format!("{period}/late")),
        ("GET", format!("{period}/rewards")),
        ("POST", format!("{period}/late/1/accept")),
        ("POST", format!("{period}/late/1/reject")),
        ("POST", "/api/v1/boards/inc/events/r1/revoke".to_owned()),
        ("GET", "/api/v1/audit".to_owned()),
    ];
    for (method, path) in &admin_routes {
        for caller in [None, ingest] {
            let (status, out) = api.call(method, path, caller, Some(json!({"reason": "x"}))).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path}: {out}");
        }
    }
    let (_, periods) = api.call("GET", "/api/v1/boards/inc/periods", None, None).await;
    assert_eq!(periods[0]["state"], "open", "{periods}");

    // An impossible transition names the current state.
    let (status, out) = api.call("POST", &format!("{period}/archive"), admin, None).await;
    assert_eq!((status, out["error"].as_str()), (StatusCode::CONFLICT, Some("invalid_transition")), "{out}");
    assert!(out["detail"].as_str().unwrap().contains("open"), "{out}");

    // Revoke needs a reason; a repeat is already_revoked.
    let revoke = "/api/v1/boards/inc/events/r1/revoke";
    let (status, out) = api.call("POST", revoke, admin, Some(json!({}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{out}");
    let (status, out) = api.call("POST", revoke, admin, Some(json!({"reason": "test account"}))).await;
    assert_eq!(
        (status, out["result"].as_str(), out["points"].as_i64()),
        (StatusCode::OK, Some("revoked"), Some(0))
    );
    let (_, out) = api.call("POST", revoke, admin, Some(json!({"reason": "test account"}))).await;
    assert_eq!(out["result"], "already_revoked", "{out}");
    let (status, out) =
        api.call("POST", "/api/v1/boards/inc/events/nope/revoke", admin, Some(json!({"reason": "x"}))).await;
    assert_eq!((status, out["error"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{out}");

    // A correction answers its ledger entry.
    let body = json!({"member": "u2", "delta": -2, "reason": "penalty"});
    let (status, out) = api.call("POST", &format!("{period}/corrections"), admin, Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(
        (out["kind"].as_str(), out["points"].as_i64(), out["reason"].as_str()),
        (Some("correction"), Some(5), Some("penalty"))
    );
    assert!(out["actor"].as_str().unwrap().starts_with("token#"), "{out}");
    // Freeze (twice: the same answer), a late event, review, settle, read the settlement.
    let (status, frozen) = api.call("POST", &format!("{period}/freeze"), admin, None).await;
    assert_eq!((status, frozen["state"].as_str()), (StatusCode::OK, Some("frozen")), "{frozen}");
    let (_, again) =
        api.call("POST", &format!("{period}/freeze"), admin, Some(json!({"reason": "again"}))).await;
    assert_eq!(again, frozen);
    let (_, out) = api.call("POST", "/api/v1/boards/inc/events", ingest, Some(ev("r3", "u3", 1))).await;
    assert_eq!(out["results"][0]["result"], "late", "{out}");
    let (_, late) = api.call("GET", &format!("{period}/late?status=pending"), admin, None).await;
    let late_id = late["entries"][0]["id"].as_i64().unwrap();
    let (status, out) = api.call("POST", &format!("{period}/settle"), admin, None).await;
    assert_eq!((status, out["error"].as_str()), (StatusCode::CONFLICT, Some("late_pending")), "{out}");
    let (status, out) = api.call("POST", &format!("{period}/late/{late_id}/reject"), admin, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a rejection without a reason: {out}");
    let reject = json!({"reason": "after the deadline"});
    let (status, out) =
        api.call("POST", &format!("{period}/late/{late_id}/reject"), admin, Some(reject)).await;
    assert_eq!((status, out["late"]["status"].as_str()), (StatusCode::OK, Some("rejected")), "{out}");
    let (status, settled) = api.call("POST", &format!("{period}/settle"), admin, None).await;
    assert_eq!((status, settled["state"].as_str()), (StatusCode::OK, Some("settled")), "{settled}");
    let (status, rewards) = api.call("GET", &format!("{period}/rewards"), admin, None).await;
    assert_eq!((status, rewards["rewards"].as_array().map(Vec::len)), (StatusCode::OK, Some(0)), "{rewards}");
    let (status, s) = api.call("GET", &format!("{period}/settlement"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{s}");
    assert_eq!(s["digest"].as_str().unwrap().len(), 64, "{s}");
    assert_eq!(
        s["standings"],
        json!([{"rank": 1, "member": "u2", "points": 5}, {"rank": 2, "member": "u1", "points": 0}])
    );
    let (status, out) =
        api.call("POST", revoke.replace("r1", "r2").as_str(), admin, Some(json!({"reason": "x"}))).await;
    assert_eq!((status, out["error"].as_str()), (StatusCode::CONFLICT, Some("period_settled")), "{out}");

    // The audit trail, newest first, in pages.
    let (status, page1) = api.call("GET", "/api/v1/audit?board=inc&limit=2", admin, None).await;
    assert_eq!(status, StatusCode::OK, "{page1}");
    let actions = |p: &Value| {
        p["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["action"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(actions(&page1), ["settle", "late_rejected"]);
    let cursor = page1["next_cursor"].as_str().unwrap();
    let (_, page2) =
        api.call("GET", &format!("/api/v1/audit?board=inc&limit=10&cursor={cursor}"), admin, None).await;
    assert_eq!(actions(&page2), ["freeze", "correct", "revoke"]);
    assert!(page2["next_cursor"].is_null(), "{page2}");
    let (_, only) = api.call("GET", "/api/v1/audit?action=revoke&member=u1", admin, None).await;
    assert_eq!(only["entries"][0]["reason"], "test account", "{only}");
    let (status, out) = api.call("GET", "/api/v1/audit?since=yesterday", admin, None).await;
    assert_eq!((status, out["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_query")), "{out}");
    api.stop().await;
}

#[tokio::test]
async fn an_admin_hides_a_member_from_every_public_read_and_shows_it_again() {
    let api = Api::start().await;
    let (admin, ingest) = (Some(api.admin.as_str()), Some(api.key.as_str()));
    let events: Vec<Value> = [("h1", "u1", 50), ("h2", "u2", 30), ("h3", "u3", 30)]
        .iter()
        .map(|(id, member, delta)| json!({"event_id": id, "member": member, "delta": delta}))
        .collect();
    let (status, _) = api
        .call("POST", "/api/v1/boards/other/events", Some(&api.admin), Some(json!({"events": events})))
        .await;
    assert_eq!(status, StatusCode::OK);
    let base = "/api/v1/boards/other/periods/current";
    let hide = format!("{base}/members/u1/hide");
    let unhide = format!("{base}/members/u1/unhide");

    // A reason is required, with or without a body; ingest keys are refused.
    for body in [None, Some(json!({})), Some(json!({"reason": "  "}))] {
        let (status, out) = api.call("POST", &hide, admin, body.clone()).await;
        assert_eq!(
            (status, error_of(&out)),
            (StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
            "{body:?}: {out}"
        );
    }
    let (status, _) = api.call("POST", &hide, ingest, Some(json!({"reason": "spam"}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, out) = api.call("POST", &hide, admin, Some(json!({"reason": "spam", "extra": 1}))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"), "{out}");

    let (status, out) = api.call("POST", &hide, admin, Some(json!({"reason": "spam"}))).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(
        (out["result"].as_str(), out["member"].as_str(), out["version"].as_i64()),
        (Some("hidden"), Some("u1"), Some(2))
    );
    assert_eq!(out["projected"], true, "{out}");
    let (_, out) = api.call("POST", &hide, admin, Some(json!({"reason": "spam"}))).await;
    assert_eq!((out["result"].as_str(), out["version"].as_i64()), (Some("already_hidden"), Some(2)), "{out}");

    // Gone from every public read: the others close up (u2 and u3 now share rank 1).
    let (_, top) = api.call("GET", &format!("{base}/top"), None, None).await;
    let ranks: Vec<_> =
        top["entries"].as_array().unwrap().iter().map(|e| (e["member"].clone(), e["rank"].clone())).collect();
    assert_eq!(ranks, [(json!("u3"), json!(1)), (json!("u2"), json!(1))], "{top}");
    assert_eq!(top["total"], 2, "{top}");
    for path in ["/members/u1", "/members/u1/around", "/members/u1/events"] {
        let (status, out) = api.call("GET", &format!("{base}{path}"), None, None).await;
        assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "{path}: {out}");
    }
    let (_, count) = api.call("GET", &format!("{base}/count?min_points=1"), None, None).await;
    assert_eq!(count["count"], 2);
    let (_, ranks) = api.call("GET", &format!("{base}/ranks?members=u1,u2"), None, None).await;
    assert_eq!(ranks["entries"].as_array().unwrap().len(), 1, "{ranks}");

    // Shown again; both changes are in the audit trail with the admin and the reason.
    let (status, out) = api.call("POST", &unhide, admin, Some(json!({"reason": "appeal upheld"}))).await;
    assert_eq!((status, out["result"].as_str()), (StatusCode::OK, Some("unhidden")), "{out}");
    let (status, me) = api.call("GET", &format!("{base}/members/u1"), None, None).await;
    assert_eq!(
        (status, me["rank"].as_u64(), me["points"].as_i64()),
        (StatusCode::OK, Some(1), Some(50)),
        "{me}"
    );
    let (_, trail) = api.call("GET", "/api/v1/audit?board=other&member=u1", admin, None).await;
    let rows: Vec<_> = trail["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["reason"].as_str().unwrap(),
                e["actor"].as_str().unwrap().starts_with("token#"),
            )
        })
        .collect();
    assert_eq!(rows, [("unhide", "appeal upheld", true), ("hide", "spam", true)], "{trail}");

    // Unknown members and settled periods are refused.
    let (status, _) =
        api.call("POST", &format!("{base}/members/ghost/hide"), admin, Some(json!({"reason": "x"}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    api.call("POST", &format!("{base}/freeze"), admin, None).await;
    api.call("POST", &format!("{base}/settle"), admin, None).await;
    let (status, out) = api.call("POST", &hide, admin, Some(json!({"reason": "after all"}))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "period_settled"), "{out}");
    api.stop().await;
}

/// Every route the OpenAPI document lists is served by a handler (not the API's 404 for a path
/// no route serves, nor 405), and every other method on its path is 405: the router and the
/// document are one table.
#[tokio::test]
async fn the_router_serves_exactly_the_documented_methods() {
    let api = Api::start().await;
    let documented = super::openapi_tests::router_routes();
    let paths: std::collections::BTreeSet<&String> = documented.iter().map(|(path, _)| path).collect();
    assert!(paths.len() > 25, "{paths:?}");
    for template in paths {
        let path = template
            .replace("{board}", "inc")
            .replace("{period}", "current")
            .replace("{member}", "u1")
            .replace("{id}", "1")
            .replace("{event_id}", "e1")
            .replace("{snapshot}", "ab");
        for method in ["get", "post", "put", "delete", "patch"] {
            let verb = method.to_uppercase();
            let request = Request::builder().method(verb.as_str()).uri(&path).body(Body::empty()).unwrap();
            // Only the status and an error's code: the live stream answers at once, then streams.
            let res = api.router.clone().oneshot(request).await.unwrap();
            let status = res.status();
            let out = if status.is_client_error() {
                let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap();
                serde_json::from_slice(&bytes).unwrap_or(Value::Null)
            } else {
                Value::Null
            };
            let code = out["error"].as_str().unwrap_or_default();
            if documented.contains(&(template.clone(), method.to_owned())) {
                assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{verb} {template}: {out}");
                let unrouted = out["detail"].as_str().is_some_and(|d| d.starts_with("no API route"));
                assert!(!unrouted, "{verb} {template} is not routed: {out}");
            } else {
                assert_eq!(
                    (status, code),
                    (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
                    "{verb} {template}"
                );
            }
        }
    }
    api.stop().await;
}

#[tokio::test]
async fn the_openapi_document_is_served_and_describes_the_answers() {
    let api = Api::start().await;
    let request = Request::get("/api/v1/openapi.json").body(Body::empty()).unwrap();
    let res = api.router.clone().oneshot(request).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "application/json");
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap();
    let doc: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");

    // Real answers, success and error, have exactly the fields the document gives them.
    let (admin, key) = (Some(api.admin.clone()), Some(api.key.clone()));
    macro_rules! answer {
        ($method:literal, $template:expr, $path:expr, $bearer:expr, $body:expr) => {{
            let (status, out) = api.call($method, &$path, $bearer.as_deref(), $body).await;
            let method = $method.to_lowercase();
            super::openapi_tests::assert_answer_matches(&doc, &method, $template, status.as_u16(), &out);
            out
        }};
    }
    const P: &str = "/api/v1/boards/{board}/periods/{period}";
    let t = |rest: &str| format!("{P}{rest}");
    let p = |rest: &str| format!("/api/v1/boards/inc/periods/current{rest}");
    let none: Option<String> = None;
    answer!("GET", "/api/v1/boards", "/api/v1/boards", none, None);
    answer!("GET", "/api/v1/boards/{board}", "/api/v1/boards/inc", none, None);
    answer!("GET", "/api/v1/boards/{board}", "/api/v1/boards/nope", none, None);
    let events = "/api/v1/boards/{board}/events";
    let one = json!({"event_id": "e1", "member": "u1", "delta": 5, "metadata": {"level": 3}});
    answer!("POST", events, "/api/v1/boards/inc/events", key, Some(one));
    let batch = json!({"events": [{"event_id": "e2", "member": "u2", "delta": 3}, {"event_id": "e9"}]});
    answer!("POST", events, "/api/v1/boards/inc/events", key, Some(batch));
    answer!("POST", events, "/api/v1/boards/inc/events", none, Some(json!({})));
    let total = json!({"version": 1, "total": 7});
    answer!(
        "PUT",
        "/api/v1/boards/{board}/members/{member}/total",
        "/api/v1/boards/tot/members/u1/total",
        key,
        Some(total)
    );
    let submission = json!({"submission_id": "s1", "member": "u1", "score": 9});
    answer!(
        "POST",
        "/api/v1/boards/{board}/submissions",
        "/api/v1/boards/top/submissions",
        key,
        Some(submission)
    );
    let profile = json!({"display_name": "Ann", "avatar_url": "https://example.com/a.png"});
    answer!("PUT", "/api/v1/members/{member}/profile", "/api/v1/members/u1/profile", key, Some(profile));
    answer!("GET", "/api/v1/boards/{board}/periods", "/api/v1/boards/inc/periods", none, None);
    answer!("GET", &t("/top"), p("/top"), none, None);
    answer!("GET", &t("/entries"), p("/entries?offset=0&limit=1"), none, None);
    answer!("GET", &t("/entries"), p("/entries?after="), none, None);
    let snapshot = answer!("POST", &t("/snapshots"), p("/snapshots"), none, None);
    let id = snapshot["snapshot_id"].as_str().unwrap();
    answer!("GET", &t("/snapshots/{snapshot}/entries"), p(&format!("/snapshots/{id}/entries")), none, None);
    answer!("GET", &t("/members/{member}"), p("/members/u1"), none, None);
    answer!("GET", &t("/members/{member}/around"), p("/members/u1/around?radius=1"), none, None);
    answer!("GET", &t("/members/{member}/events"), p("/members/u1/events"), none, None);
    let season = json!({"slug": "inc-season", "title": "Season", "cadence": "season", "source": "inc",
        "from": "2026-01-01", "to": "2026-03-31", "rule": {"kind": "best", "k": 2}, "tie_policy": "shared"});
    answer!("POST", "/api/v1/boards", "/api/v1/boards", admin, Some(season));
    answer!("GET", "/api/v1/boards/{board}", "/api/v1/boards/inc-season", none, None);
    let season_member = "/api/v1/boards/inc-season/periods/current/members/u1/season";
    answer!("GET", &t("/members/{member}/season"), season_member, none, None);
    answer!("GET", &t("/members/{member}/season"), p("/members/u1/season"), none, None);
    answer!("GET", &t("/count"), p("/count?min_points=1"), none, None);
    answer!("GET", &t("/ranks"), p("/ranks?members=u1,u2"), none, None);
    answer!("POST", &t("/rebuild"), p("/rebuild"), admin, None);
    let correction = json!({"member": "u2", "delta": 1, "reason": "bonus"});
    answer!("POST", &t("/corrections"), p("/corrections"), admin, Some(correction));
    let imported = json!({"import_id": "i1", "mode": "nx", "rows": [{"member": "n1", "points": 3}]});
    answer!("POST", &t("/imports"), p("/imports"), admin, Some(imported));
    let refused = json!({"import_id": "i2", "mode": "replace", "rows": [{"member": "bad id", "points": 3}]});
    answer!("POST", &t("/imports"), p("/imports"), admin, Some(refused));
    let revoke = "/api/v1/boards/{board}/events/{event_id}/revoke";
    answer!("POST", revoke, "/api/v1/boards/inc/events/e2/revoke", admin, Some(json!({"reason": "test"})));
    let reason = || Some(json!({"reason": "test"}));
    answer!("POST", &t("/members/{member}/hide"), p("/members/u2/hide"), admin, reason());
    answer!("POST", &t("/members/{member}/hide"), p("/members/u2/hide"), admin, None);
    answer!("POST", &t("/members/{member}/hide"), p("/members/ghost/hide"), admin, reason());
    answer!("POST", &t("/members/{member}/unhide"), p("/members/u2/unhide"), admin, reason());
    answer!("POST", &t("/freeze"), p("/freeze"), admin, None);
    let late = json!({"event_id": "e3", "member": "u3", "delta": 1});
    answer!("POST", events, "/api/v1/boards/inc/events", key, Some(late));
    let kept = answer!("GET", &t("/late"), p("/late"), admin, None);
    let late_id = kept["entries"][0]["id"].as_i64().unwrap();
    answer!("POST", &t("/late/{id}/accept"), p(&format!("/late/{late_id}/accept")), admin, None);
    answer!(
        "POST",
        &t("/late/{id}/reject"),
        p(&format!("/late/{late_id}/reject")),
        admin,
        Some(json!({"reason": "x"}))
    );
    answer!("POST", &t("/reopen"), p("/reopen"), none, None);
    answer!("POST", &t("/settle"), p("/settle"), admin, None);
    answer!("POST", &t("/reopen"), p("/reopen"), admin, None);
    answer!("GET", &t("/settlement"), p("/settlement"), none, None);
    answer!("POST", &t("/archive"), p("/archive"), admin, None);
    answer!("GET", &t("/top"), p("/top"), none, None);
    answer!("GET", "/api/v1/audit", "/api/v1/audit?board=inc&limit=3", admin, None);

    let hot = json!({"slug": "trending", "title": "Trending", "cadence": "hot", "bucket_seconds": 60,
        "window_buckets": 10, "ttl_seconds": 900, "actor_cap": 3, "action_weights": {"search": 1}});
    answer!("POST", "/api/v1/boards", "/api/v1/boards", admin, Some(hot));
    answer!("GET", "/api/v1/boards/{board}", "/api/v1/boards/trending", none, None);
    answer!("GET", "/api/v1/boards", "/api/v1/boards", none, None);
    let hits = "/api/v1/boards/{board}/hits";
    answer!(
        "POST",
        hits,
        "/api/v1/boards/trending/hits",
        admin,
        Some(json!({"member": "air fryer", "actor": "u1"}))
    );
    answer!("POST", hits, "/api/v1/boards/trending/hits", admin, Some(json!({"member": " "})));
    answer!(
        "POST",
        hits,
        "/api/v1/boards/trending/hits",
        admin,
        Some(json!({"member": "x", "colour": "red"}))
    );
    let filter = "/api/v1/boards/{board}/hot/filter";
    let only_found = json!({"count_only_with_results": true, "blocked_members": ["Spam"]});
    let changed = answer!("PUT", filter, "/api/v1/boards/trending/hot/filter", admin, Some(only_found));
    assert_eq!(changed["filter"]["blocked_members"], json!(["spam"]), "{changed}");
    answer!("PUT", filter, "/api/v1/boards/trending/hot/filter", key, Some(json!({})));
    answer!(
        "PUT",
        filter,
        "/api/v1/boards/trending/hot/filter",
        admin,
        Some(json!({"blocked_members": ["<b>"]}))
    );
    answer!("PUT", filter, "/api/v1/boards/nope/hot/filter", admin, Some(json!({})));
    let filtered = answer!(
        "POST",
        hits,
        "/api/v1/boards/trending/hits",
        admin,
        Some(json!({"member": "spam", "results": 3}))
    );
    assert_eq!(filtered["result"], "filtered", "{filtered}");
    let found = json!({"member": "air fryer", "actor": "u2", "results": 3, "actor_created_at": "2026-01-31T09:00:00Z"});
    answer!("POST", hits, "/api/v1/boards/trending/hits", admin, Some(found));
    answer!("PUT", filter, "/api/v1/boards/trending/hot/filter", admin, Some(json!({})));
    let top = "/api/v1/boards/{board}/hot/top";
    answer!("GET", top, "/api/v1/boards/trending/hot/top", none, None);
    api.engine.hot().snapshot(&domain::BoardSlug::parse("trending").unwrap(), None).await.unwrap();
    answer!("GET", top, "/api/v1/boards/trending/hot/top?limit=5", none, None);
    answer!("GET", top, "/api/v1/boards/trending/hot/top?limit=101", none, None);

    let keys = "/api/v1/keys";
    let new_key = json!({"boards": ["inc", "trending"], "rate_per_second": 1, "burst": 1});
    let created = answer!("POST", keys, keys, admin, Some(new_key));
    answer!("POST", keys, keys, admin, Some(json!({"boards": []})));
    answer!("POST", keys, keys, admin, Some(json!({"boards": "inc"})));
    answer!("GET", keys, keys, admin, None);
    answer!("GET", keys, keys, key, None);
    let limited = Some(created["key"].as_str().unwrap().to_owned());
    answer!(
        "POST",
        events,
        "/api/v1/boards/inc/events",
        limited,
        Some(json!({"event_id": "k1", "member": "u1", "delta": 1}))
    );
    answer!(
        "POST",
        events,
        "/api/v1/boards/inc/events",
        limited,
        Some(json!({"event_id": "k2", "member": "u1", "delta": 1}))
    );
    let revoke = "/api/v1/keys/{id}/revoke";
    let id = created["id"].as_i64().unwrap();
    answer!("POST", revoke, format!("/api/v1/keys/{id}/revoke"), admin, Some(json!({"reason": "done"})));
    answer!("POST", revoke, "/api/v1/keys/999999/revoke", admin, None);
    api.stop().await;
}

#[tokio::test]
async fn hot_boards_are_created_with_checked_rules_and_count_hits() {
    let api = Api::start().await;
    let admin = Some(api.admin.as_str());
    let board = |extra: Value| {
        let mut b = json!({"slug": "trending", "title": "Trending searches", "cadence": "hot",
            "bucket_seconds": 3600, "window_buckets": 24, "ttl_seconds": 129600});
        b.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        b
    };
    for (case, body, reason) in [
        ("ttl below 1.5 windows", board(json!({"ttl_seconds": 129599})), "1.5 × the window"),
        ("weights off the window", board(json!({"weights": [1, 2]})), "one weight per bucket"),
        ("too many buckets", board(json!({"window_buckets": 289})), "window_buckets"),
        ("best summed", board(json!({"write_mode": "best", "aggregate": "sum"})), "aggregate max"),
        ("unknown mode", board(json!({"write_mode": "avg"})), "count, best"),
        ("bad action", board(json!({"action_weights": {"Click": 3}})), "[a-z0-9_]"),
        ("not a number", board(json!({"bucket_seconds": "1h"})), "invalid type"),
    ] {
        let (status, out) = api.call("POST", "/api/v1/boards", admin, Some(body)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{case}: {out}");
        assert!(out["detail"].as_str().unwrap().contains(reason), "{case}: {out}");
    }
    let (_, boards) = api.call("GET", "/api/v1/boards", None, None).await;
    assert_eq!(boards.as_array().unwrap().len(), 4, "nothing was created: {boards}");
    let (status, _) = api.call("POST", "/api/v1/boards", None, Some(board(json!({})))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, out) = api.call("POST", "/api/v1/boards", admin, Some(board(json!({"slug": "inc"})))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "board_exists"), "{out}");

    let rising: Vec<f64> = (1..=24).map(|i| f64::from(i) / 24.0).collect();
    let (status, created) =
        api.call("POST", "/api/v1/boards", admin, Some(board(json!({"weights": rising})))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(
        (
            created["cadence"].as_str(),
            created["aggregate"].as_str(),
            created["window"]["description"].as_str()
        ),
        (Some("hot"), Some("sum"), Some("last 24 hours, newer counts more"))
    );
    let (_, shown) = api.call("GET", "/api/v1/boards/trending", None, None).await;
    assert_eq!(shown, created);

    // Hits need a key for this board: the test key is scoped to inc, tot and top.
    let hits = "/api/v1/boards/trending/hits";
    let (status, _) = api.call("POST", hits, None, Some(json!({"member": "a"}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, out) = api.call("POST", hits, Some(api.key.as_str()), Some(json!({"member": "a"}))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::FORBIDDEN, "forbidden"), "{out}");
    let (status, out) =
        api.call("POST", "/api/v1/boards/nope/hits", admin, Some(json!({"member": "a"}))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "{out}");
    let (status, out) = api.call("POST", hits, admin, Some(json!({"member": 7}))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"), "{out}");

    let (status, out) = api.call("POST", hits, admin, Some(json!({"member": "洗地机", "actor": "u1"}))).await;
    assert_eq!((status, &out), (StatusCode::OK, &json!({"result": "counted", "score": 1.0})));
    let (_, out) = api.call("POST", hits, admin, Some(json!({"member": "洗地机", "actor": "u1"}))).await;
    assert_eq!(out["result"], "deduplicated", "{out}");
    let (_, out) = api.call("POST", hits, admin, Some(json!({"member": "<b>"}))).await;
    assert_eq!(
        (out["result"].as_str(), out["reason"].as_str()),
        (Some("rejected"), Some("member may not contain '<'"))
    );

    let (_, top) = api.call("GET", "/api/v1/boards/trending/hot/top", None, None).await;
    assert_eq!((top["updated_at"].is_null(), top["entries"].as_array().unwrap().len()), (true, 0), "{top}");
    api.engine.hot().snapshot(&domain::BoardSlug::parse("trending").unwrap(), None).await.unwrap();
    let (_, top) = api.call("GET", "/api/v1/boards/trending/hot/top", None, None).await;
    assert_eq!(
        top["entries"],
        json!([{"rank": 1, "member": "洗地机", "score": 1.0, "change": 0, "new": false, "share": 1.0}])
    );
    assert!(top["updated_at"].is_string(), "{top}");
    // An ingest key may be scoped to a hot board.
    let trending = [domain::BoardSlug::parse("trending").unwrap()];
    let key = api.engine.access().issue_api_key(&trending, KeyLimits::default(), "test").await.unwrap().key;
    let (status, out) =
        api.call("POST", hits, Some(key.as_str()), Some(json!({"member": "air fryer"}))).await;
    assert_eq!((status, out["result"].as_str()), (StatusCode::OK, Some("counted")), "{out}");
    // A periodic board's routes do not take a hot board.
    let (status, _) = api.call("GET", "/api/v1/boards/trending/periods/current/top", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    api.stop().await;
}

#[tokio::test]
async fn an_admin_imports_totals_all_or_nothing_and_once() {
    let api = Api::start().await;
    let path = "/api/v1/boards/inc/periods/current/imports";
    api.post_events("inc", json!({"event_id": "e1", "member": "u1", "delta": 50})).await;
    let body = json!({"import_id": "move-1", "mode": "nx",
        "rows": [{"member": "u1", "points": 5}, {"member": "n1", "points": 40}]});
    // Only admins: the ingest key of the board is refused, before the body is read.
    let (status, out) = api.call("POST", path, Some(&api.key.clone()), Some(body.clone())).await;
    assert!(matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN), "{status} {out}");
    // Bad rows: 422 naming each, nothing imported. Malformed rows are named first; rows outside
    // the board's bounds once every row is well formed.
    let bad = json!({"import_id": "move-1", "mode": "nx",
        "rows": [{"member": "n2", "points": 1}, {"member": "n3", "points": "5"}, {"member": "n2", "points": 2}]});
    let (status, out) = api.call("POST", path, Some(&api.admin.clone()), Some(bad)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{out}");
    let detail = out["detail"].as_str().unwrap();
    assert!(detail.contains("row 2:") && detail.contains("row 3:") && !detail.contains("row 1:"), "{detail}");
    let bounds = json!({"import_id": "move-1", "mode": "nx",
        "rows": [{"member": "n2", "points": 1}, {"member": "n3", "points": 5000}]});
    let (status, out) = api.call("POST", path, Some(&api.admin.clone()), Some(bounds)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{out}");
    let detail = out["detail"].as_str().unwrap();
    assert!(detail.contains("row 2:") && !detail.contains("row 1:"), "{detail}");
    let (status, out) = api
        .call(
            "POST",
            path,
            Some(&api.admin.clone()),
            Some(json!({"import_id": "x", "mode": "merge", "rows": []})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{out}");
    api.assert_untouched("tot").await;
    // The import, then its repeat: the same answer, marked repeated.
    let (status, first) = api.call("POST", path, Some(&api.admin.clone()), Some(body.clone())).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!((first["imported"].as_u64(), first["kept"].as_u64()), (Some(1), Some(1)), "{first}");
    assert_eq!(first["repeated"], false);
    let (status, again) = api.call("POST", path, Some(&api.admin.clone()), Some(body)).await;
    assert_eq!(
        (status, &again["repeated"], &again["imported_at"]),
        (StatusCode::OK, &json!(true), &first["imported_at"])
    );
    let (_, top) =
        api.call("GET", "/api/v1/boards/inc/periods/current/entries?offset=0&limit=10", None, None).await;
    let ranked: Vec<(String, i64)> = top["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["member"].as_str().unwrap().to_owned(), e["points"].as_i64().unwrap()))
        .collect();
    assert_eq!(ranked, [("u1".to_owned(), 50), ("n1".to_owned(), 40)]);
    api.stop().await;
}

#[tokio::test]
async fn settlement_standings_come_in_pages() {
    let api = Api::start().await;
    let (admin, ingest) = (Some(api.admin.as_str()), Some(api.key.as_str()));
    let events: Vec<Value> = (1..=5)
        .map(|i| json!({"event_id": format!("p{i}"), "member": format!("u{i}"), "delta": i}))
        .collect();
    let (status, _) =
        api.call("POST", "/api/v1/boards/inc/events", ingest, Some(json!({"events": events}))).await;
    assert_eq!(status, StatusCode::OK);
    let period = "/api/v1/boards/inc/periods/current";
    api.call("POST", &format!("{period}/freeze"), admin, None).await;
    let (status, _) = api.call("POST", &format!("{period}/settle"), admin, None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, all) = api.call("GET", &format!("{period}/settlement"), None, None).await;
    let (_, page) = api.call("GET", &format!("{period}/settlement?offset=1&limit=2"), None, None).await;
    assert_eq!(
        (all["members"].as_u64(), page["members"].as_u64(), page["offset"].as_u64()),
        (Some(5), Some(5), Some(1))
    );
    assert_eq!(page["standings"], json!([all["standings"][1], all["standings"][2]]), "{page}");
    assert_eq!(page["standings"][0], json!({"rank": 2, "member": "u4", "points": 4}));
    assert_eq!(page["digest"], all["digest"]);
    let (status, out) = api.call("GET", &format!("{period}/settlement?limit=0"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{out}");
    api.stop().await;
}

/// A browser-like request: headers as given, an optional form body.
async fn browser(
    api: &Api,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    form: Option<&str>,
) -> axum::http::Response<Body> {
    // A plain form post (no JavaScript) accepts HTML: server functions then answer with redirects.
    // A hydrated page's call says it accepts JSON instead.
    let mut req = Request::builder().method(method).uri(path).header("host", "laurel.test");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("accept")) {
        req = req.header("accept", "text/html");
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if form.is_some() {
        req = req.header("content-type", "application/x-www-form-urlencoded");
    }
    let body = form.map(|f| Body::from(f.to_owned())).unwrap_or_default();
    api.router.clone().oneshot(req.body(body).unwrap()).await.unwrap()
}

fn set_cookie(res: &axum::http::Response<Body>) -> Option<String> {
    res.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_owned())
}

/// Creates admin `username` and signs in as it: the session cookie (`laurel_session=…`).
async fn sign_in(api: &Api, username: &str) -> String {
    api.engine.access().create_admin(username, "correct horse battery").await.unwrap();
    let form = format!("username={username}&password=correct+horse+battery");
    let res = browser(api, "POST", "/api/login", &[("sec-fetch-site", "same-origin")], Some(&form)).await;
    assert!(res.status().is_redirection(), "{:?}", res.status());
    set_cookie(&res).expect("a session cookie").split(';').next().unwrap().to_owned()
}

async fn body_text(res: axum::http::Response<Body>) -> String {
    String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap()
}

#[tokio::test]
async fn the_console_creates_boards_refusing_the_field_at_fault_and_acts_as_the_admin() {
    let api = Api::start().await;
    let session = sign_in(&api, "cora").await;
    let headers =
        [("cookie", session.as_str()), ("sec-fetch-site", "same-origin"), ("accept", "application/json")];
    let board = |max_points: &str, prizes: &str| {
        format!(
            "slug=fin&title=Final&cadence=weekly&time_zone=Asia%2FShanghai&operator=incr&tie_policy=first_reached\
             &max_points={max_points}&min_points=&tie_base=&freeze_grace_seconds=&prizes={prizes}"
        )
    };
    for (form, field, words) in [
        (board("10000000000", ""), "max_points", "2^53"),
        (board("1000", "1-3%3A+Gold%0A3%3A+Silver"), "prizes", "overlap"),
        (board("1000", "first%3A+Gold"), "prizes", "a rank or a range"),
        (board("lots", ""), "max_points", "not a whole number"),
    ] {
        // Without JavaScript the form's page is shown again, carrying the refusal.
        let plain = [headers[0], headers[1], ("referer", "http://laurel.test/admin")];
        let res = browser(&api, "POST", "/api/admin_create_board", &plain, Some(&form)).await;
        let location = res.headers()["location"].to_str().unwrap();
        assert!(
            location.starts_with("http://laurel.test/admin?") && location.contains("&__err="),
            "{location}"
        );
        // With it, the refusal comes back as data the form shows next to the field.
        let res = browser(&api, "POST", "/api/admin_create_board", &headers, Some(&form)).await;
        assert!(!res.status().is_success());
        let text = body_text(res).await;
        let refusal: app::error::AppError = serde_json::from_str(&text).unwrap();
        assert_eq!(refusal.for_field(field).map(|m| m.contains(words)), Some(true), "{text}");
        let (status, _) = api.call("GET", "/api/v1/boards/fin", None, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "a refused form creates nothing");
    }
    let res = browser(
        &api,
        "POST",
        "/api/admin_create_board",
        &headers,
        Some(&board("1000", "1%3A+Gold%0A2-3%3A+Silver")),
    )
    .await;
    assert!(res.status().is_success() || res.status().is_redirection(), "{:?}", res.status());
    let (status, created) = api.call("GET", "/api/v1/boards/fin", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(created["time_zone"], "Asia/Shanghai", "{created}");
    assert_eq!(created["prizes"][1], json!({"from_rank": 2, "to_rank": 3, "prize": "Silver"}), "{created}");

    // Lifecycle steps from the console act as the signed-in admin, audited under that name.
    let res = browser(
        &api,
        "POST",
        "/api/admin_transition",
        &headers,
        Some("board=fin&period=current&step=freeze&reason=end+of+round"),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(body_text(res).await.contains("is now frozen"));
    let res = browser(
        &api,
        "POST",
        "/api/admin_transition",
        &headers,
        Some("board=fin&period=current&step=reopen&reason="),
    )
    .await;
    assert!(body_text(res).await.contains("say why the period reopens"), "reopening needs a reason");
    let (_, audit) =
        api.call("GET", "/api/v1/audit?board=fin&action=freeze", Some(&api.admin.clone()), None).await;
    assert_eq!(audit["entries"][0]["actor"], "admin:cora", "{audit}");
    assert_eq!(audit["entries"][0]["reason"], "end of round", "{audit}");

    // Settings that may change are edited in place; a refused field changes nothing.
    let edit = |prizes: &str| format!("board=fin&title=Final+round&freeze_grace_seconds=600&prizes={prizes}");
    let res =
        browser(&api, "POST", "/api/admin_edit_board", &headers, Some(&edit("1-2%3A+Gold%0A2%3A+Silver")))
            .await;
    let refusal: app::error::AppError = serde_json::from_str(&body_text(res).await).unwrap();
    assert!(refusal.for_field("prizes").is_some_and(|m| m.contains("overlap")), "{refusal:?}");
    let (_, unchanged) = api.call("GET", "/api/v1/boards/fin", None, None).await;
    assert_eq!((&unchanged["title"], &unchanged["freeze_grace_seconds"]), (&json!("Final"), &json!(300)));
    let res = browser(
        &api,
        "POST",
        "/api/admin_edit_board",
        &headers,
        Some(&format!("{}&ranking_ttl_days=-1", edit("1%3A+Cup"))),
    )
    .await;
    let refusal: app::error::AppError = serde_json::from_str(&body_text(res).await).unwrap();
    assert!(refusal.for_field("ranking_ttl_days").is_some(), "{refusal:?}");
    let (_, unchanged) = api.call("GET", "/api/v1/boards/fin", None, None).await;
    assert_eq!((&unchanged["title"], &unchanged["ranking_ttl_days"]), (&json!("Final"), &json!(7)));
    let res = browser(&api, "POST", "/api/admin_edit_board", &headers, Some(&edit("1%3A+Cup"))).await;
    assert_eq!(res.status(), StatusCode::OK);
    let (_, edited) = api.call("GET", "/api/v1/boards/fin", None, None).await;
    assert_eq!(edited["title"], "Final round");
    assert_eq!(edited["freeze_grace_seconds"], 600);
    assert_eq!(edited["prizes"], json!([{"from_rank": 1, "to_rank": 1, "prize": "Cup"}]));
    let (_, audit) =
        api.call("GET", "/api/v1/audit?board=fin&action=board_edit", Some(&api.admin.clone()), None).await;
    let row = &audit["entries"][0];
    assert_eq!(
        (&row["actor"], &row["before"]["title"], &row["after"]["title"]),
        (&json!("admin:cora"), &json!("Final"), &json!("Final round")),
        "{audit}"
    );

    // A session that has ended reaches no console function.
    api.engine.access().logout(session.trim_start_matches("laurel_session=")).await.unwrap();
    let res = browser(&api, "POST", "/api/admin_activity", &headers, Some("")).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(body_text(res).await.contains("session has ended"));
    api.stop().await;
}

#[tokio::test]
async fn a_console_session_acts_as_an_admin_and_cross_site_posts_are_refused() {
    let api = Api::start().await;
    api.engine.access().create_admin("ann", "correct horse battery").await.unwrap();
    let same_origin = ("sec-fetch-site", "same-origin");

    let refused =
        browser(&api, "POST", "/api/login", &[same_origin], Some("username=ann&password=wrong+guess+x"))
            .await;
    assert!(set_cookie(&refused).is_none(), "a wrong password sets no cookie");
    let res = browser(
        &api,
        "POST",
        "/api/login",
        &[same_origin],
        Some("username=ann&password=correct+horse+battery"),
    )
    .await;
    assert!(res.status().is_redirection(), "{:?}", res.status());
    assert_eq!(res.headers()["location"], "/admin");
    let cookie = set_cookie(&res).expect("a session cookie");
    assert!(cookie.contains("; HttpOnly; SameSite=Strict; Max-Age=43200"), "{cookie}");
    let session = cookie.split(';').next().unwrap().to_owned();

    // The session is an admin for the REST API, named in the audit trail.
    let freeze = "/api/v1/boards/inc/periods/current/freeze";
    let res = browser(&api, "POST", freeze, &[("cookie", &session), same_origin], None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let (_, audit) = api.call("GET", "/api/v1/audit?action=freeze", Some(&api.admin.clone()), None).await;
    assert_eq!(audit["entries"][0]["actor"], "admin:ann", "{audit}");

    // From another site, nothing runs — with the cookie, to a route or a server function.
    let reopen = "/api/v1/boards/inc/periods/current/reopen";
    for (path, headers) in [
        (reopen, [("cookie", session.as_str()), ("sec-fetch-site", "cross-site")]),
        (reopen, [("cookie", session.as_str()), ("origin", "https://evil.example")]),
        ("/api/logout", [("cookie", session.as_str()), ("sec-fetch-site", "cross-site")]),
    ] {
        let res = browser(&api, "POST", path, &headers, Some("reason=x")).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{path} {headers:?}");
    }
    let (_, periods) = api.call("GET", "/api/v1/boards/inc/periods", None, None).await;
    assert_eq!(periods[0]["state"], "frozen", "nothing was reopened: {periods}");

    // Signing out ends the session for good.
    let res = browser(&api, "POST", "/api/logout", &[("cookie", &session), same_origin], None).await;
    assert!(set_cookie(&res).unwrap().contains("Max-Age=0"));
    let res = browser(&api, "GET", "/api/v1/audit", &[("cookie", &session)], None).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    api.stop().await;
}

/// Server functions anyone may call, and why. Every other server function must refuse anonymous
/// callers; the registry check below makes a new one pick a side.
const PUBLIC_SERVER_FNS: &[(&str, &str)] = &[
    ("read_boards", "reads the public boards"),
    ("read_hot_boards", "reads the public hot boards"),
    ("read_hot_list", "reads a public hot list"),
    ("read_periods", "reads public periods"),
    ("read_ranking", "reads a public ranking"),
    ("read_after", "reads a public ranking"),
    ("read_around", "reads a public ranking"),
    ("read_named", "finds members of a public ranking by display name"),
    ("read_snapshot", "reads a public pinned copy"),
    ("read_as_of", "reads a public ranking as it stood at an instant, never past a public freeze"),
    ("pin_view", "pins a short-lived copy of a public ranking for stable paging (a read)"),
    ("read_member", "reads a public member page"),
    ("read_revisions", "reads a period's public settlement revisions"),
    ("read_member_history", "reads a member's public history (the public member page's charts)"),
    ("read_ranking_distribution", "reads a public ranking's distribution, prizes and winners"),
    ("read_periods_with_winners", "reads a board's public periods with their winners"),
    ("read_leaders_chart", "reads a public ranking's top five and their public points through the period"),
    ("read_segment_values", "reads a public dimension's values with their member counts and leaders"),
    (
        "read_member_segments",
        "reads a member's public ranks in their segments (closed during a public freeze)",
    ),
    ("read_member_season", "reads what each period of a public season gave a member"),
    (
        "read_season_rows",
        "reads what each period of a public season gave the rows its board page shows (at most 10, one read of their ranks per period)",
    ),
    ("login", "signing in is how one stops being anonymous"),
    ("logout", "ends only the caller's own session"),
    ("signed_in", "says whether the caller is signed in"),
    ("claim_link", "checks a signed link and sets \"me\", a display preference that grants nothing"),
    ("read_me", "reads the caller's own \"me\""),
    ("read_my_live", "reads the caller's own live points during a public freeze (only with a valid \"me\")"),
];

/// Routes anyone may call that are not GETs, and why.
const PUBLIC_ROUTES: &[(&str, &str, &str)] = &[(
    "post",
    "/api/v1/boards/{board}/periods/{period}/snapshots",
    "pins a copy of a public ranking (a read)",
)];

#[tokio::test]
async fn every_mutating_route_and_server_function_refuses_anonymous_callers() {
    let api = Api::start().await;
    // Every route the router declares (read from its source), so a new one cannot be missed.
    let routes = super::openapi_tests::router_routes();
    let mutating: Vec<_> = routes.iter().filter(|(_, method)| method != "get").collect();
    assert!(mutating.len() >= 15, "the route parser found only {mutating:?}");
    for (template, method) in mutating {
        if PUBLIC_ROUTES.iter().any(|(m, p, _)| m == method && p == template) {
            continue;
        }
        let path = template
            .replace("{board}", "inc")
            .replace("{period}", "current")
            .replace("{member}", "u1")
            .replace("{id}", "1")
            .replace("{event_id}", "e1")
            .replace("{snapshot}", "ab");
        let verb = method.to_uppercase();
        let (status, out) = api.call(&verb, &path, None, Some(json!({"reason": "x"}))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{verb} {template} anonymously: {out}");
        let forged = [("cookie", "laurel_session=laurel_s_forged"), ("sec-fetch-site", "same-origin")];
        let res = browser(&api, &verb, &path, &forged, None).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{verb} {template} with a forged session");
        // A contestant's valid "me" cookie names someone; it authorises nothing.
        let contestant = [("cookie", me_cookie("u1")), ("sec-fetch-site", "same-origin".to_owned())];
        let contestant: Vec<(&str, &str)> = contestant.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let res = browser(&api, &verb, &path, &contestant, None).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{verb} {template} with a contestant cookie");
    }
    assert_eq!(
        api.engine
            .ledger()
            .periods_changed(domain::State::Frozen, None, jiff::Timestamp::MAX)
            .await
            .unwrap()
            .rows,
        []
    );

    // Every registered server function is public by a stated reason, or refuses anonymous callers.
    let registered: Vec<(&str, _)> = leptos::server_fn::axum::server_fn_paths().collect();
    assert!(registered.len() >= PUBLIC_SERVER_FNS.len(), "{registered:?}");
    for (path, _) in registered {
        let name = path.trim_start_matches("/api/");
        // A function without an explicit endpoint is registered with a numeric suffix; any other
        // suffix is another function (`read_member_history` is not `read_member`).
        let listed =
            |n: &str| name.strip_prefix(n).is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()));
        if PUBLIC_SERVER_FNS.iter().any(|(n, _)| listed(n)) {
            continue;
        }
        // The rest are the console's: under the prefix the server gates before reading arguments.
        assert!(
            path.starts_with(app::api::admin::CONSOLE_FN_PREFIX),
            "server function {path} is neither public nor under {}",
            app::api::admin::CONSOLE_FN_PREFIX
        );
        let res = browser(&api, "POST", path, &[("sec-fetch-site", "same-origin")], Some("")).await;
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap();
        assert!(
            !status.is_success() && String::from_utf8_lossy(&bytes).contains("Denied"),
            "server function {path} answered an anonymous caller {status}"
        );
    }
    api.stop().await;
}

#[tokio::test]
async fn a_signed_link_sets_me_and_a_forged_or_expired_one_is_refused() {
    let api = Api::start().await;
    let secret = engine::access::links::LinkSecret::new(TEST_LINK_SECRET).unwrap();
    let u1 = domain::MemberId::parse("u1").unwrap();
    let link = secret.sign(&u1, jiff::SignedDuration::from_hours(1), jiff::Timestamp::now()).unwrap();

    let res = browser(&api, "GET", &format!("/me?{}", link.query()), &[], None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = set_cookie(&res).expect("a me cookie");
    assert!(cookie.starts_with(&format!(
        "laurel_me={}; Path=/; HttpOnly; SameSite=Lax; Max-Age=",
        link.cookie_value()
    )));
    let html =
        String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap();
    assert!(html.contains("data-testid=\"me\"") && html.contains("<strong>u1</strong>"), "{html}");

    let forged = format!("/me?member=u2&expires={}&sig={}", link.expires, link.sig);
    let expired = secret.sign(
        &u1,
        jiff::SignedDuration::from_secs(1),
        jiff::Timestamp::from_second(1_700_000_000).unwrap(),
    );
    for (path, reason) in
        [(forged, "this link is not valid"), (format!("/me?{}", expired.unwrap().query()), "expired")]
    {
        let res = browser(&api, "GET", &path, &[], None).await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{path}");
        assert!(set_cookie(&res).is_none(), "{path}");
        let html = String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap().to_vec())
            .unwrap();
        assert!(html.contains(reason), "{path}: {html}");
    }
    api.stop().await;
}

/// A request with a bearer and a JSON body, answered with its headers.
async fn call_with_headers(
    api: &Api,
    method: &str,
    path: &str,
    bearer: &str,
    body: Value,
) -> (StatusCode, axum::http::HeaderMap, Value) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {bearer}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let res = api.router.clone().oneshot(req).await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap();
    (status, headers, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn admins_create_list_and_revoke_ingest_keys_and_the_secret_is_answered_once() {
    let api = Api::start().await;
    let admin = Some(api.admin.as_str());
    let keys = "/api/v1/keys";
    let (_, before) = api.call("GET", keys, admin, None).await;
    let existing = before["keys"].as_array().unwrap().len();
    assert_eq!(existing, 1, "the test key: {before}");

    // Bad input: a clear 422 (or 400), and nothing is created.
    let cases: Vec<(&str, Option<String>, StatusCode, &str, &str)> = vec![
        (
            "no board",
            Some(json!({"boards": []}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
            "at least one board",
        ),
        (
            "unknown board",
            Some(json!({"boards": ["inc", "nope"]}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
            "board nope does not exist",
        ),
        (
            "bad slug",
            Some(json!({"boards": ["Not A Slug"]}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
            "slug",
        ),
        (
            "rate zero",
            Some(json!({"boards": ["inc"], "rate_per_second": 0}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
            "rate_per_second must be 1-10000",
        ),
        (
            "rate too high",
            Some(json!({"boards": ["inc"], "rate_per_second": 10_001}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
            "rate_per_second",
        ),
        (
            "burst too high",
            Some(json!({"boards": ["inc"], "burst": 1_000_000}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
            "burst must be 1-20000",
        ),
        (
            "boards not a list",
            Some(json!({"boards": "inc"}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
            "sequence",
        ),
        (
            "unknown field",
            Some(json!({"boards": ["inc"], "rate": 5}).to_string()),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
            "rate",
        ),
        ("malformed", Some("{\"boards\": [".to_owned()), StatusCode::BAD_REQUEST, "malformed_json", ""),
    ];
    for (name, body, status, code, words) in cases {
        let (got, out) = api.raw("POST", keys, admin, body).await;
        assert_eq!((got, error_of(&out)), (status, code), "{name}: {out}");
        assert!(out["detail"].as_str().unwrap().contains(words), "{name}: {out}");
    }
    // Only admins: anonymous callers and ingest keys are refused, and learn nothing.
    for caller in [None, Some(api.key.as_str())] {
        let (status, _) = api.call("GET", keys, caller, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let (status, _) = api.call("POST", keys, caller, Some(json!({"boards": ["inc"]}))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let (_, after) = api.call("GET", keys, admin, None).await;
    assert_eq!(after["keys"].as_array().unwrap().len(), existing, "nothing was created: {after}");

    // Created: the full key once, with the listing's fields; defaults follow the rate.
    let (status, created) =
        api.call("POST", keys, admin, Some(json!({"boards": ["inc"], "rate_per_second": 5}))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = created["key"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("laurel_ik_"), "{created}");
    assert_eq!(created["prefix"], secret[..16]);
    assert_eq!((created["rate_per_second"].as_u64(), created["burst"].as_u64()), (Some(5), Some(10)));
    assert_eq!(created["boards"], json!(["inc"]));
    assert!(created["created_by"].as_str().unwrap().starts_with("token#"), "{created}");
    assert_eq!(created["revoked_at"], Value::Null);
    let id = created["id"].as_i64().unwrap();

    // Listed by prefix only: never the secret (nor its digest, which the listing has no field for).
    let (status, listed) = api.call("GET", keys, admin, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!listed.to_string().contains(&secret), "{listed}");
    assert!(!listed.to_string().contains(&api.key), "{listed}");
    let row = listed["keys"].as_array().unwrap().iter().find(|k| k["id"] == id).unwrap().clone();
    let mut expected = created.clone();
    expected.as_object_mut().unwrap().remove("key");
    assert_eq!(row, expected);

    let event = |id: &str| json!({"event_id": id, "member": "u1", "delta": 1});
    let (status, _) = api.call("POST", "/api/v1/boards/inc/events", Some(&secret), Some(event("k1"))).await;
    assert_eq!(status, StatusCode::OK, "the new key writes");
    let (status, _) = api
        .call(
            "PUT",
            "/api/v1/boards/tot/members/u1/total",
            Some(&secret),
            Some(json!({"version": 1, "total": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only to its boards");

    // Revoked: audited with the reason, refused from then on; a repeat answers the same.
    let revoke = format!("/api/v1/keys/{id}/revoke");
    let (status, revoked) = api.call("POST", &revoke, admin, Some(json!({"reason": "rotated"}))).await;
    assert_eq!(status, StatusCode::OK, "{revoked}");
    assert!(revoked["revoked_at"].is_string(), "{revoked}");
    assert!(revoked.get("key").is_none(), "{revoked}");
    let (status, again) = api.call("POST", &revoke, admin, None).await;
    assert_eq!((status, &again), (StatusCode::OK, &revoked));
    let (status, out) = api.call("POST", "/api/v1/boards/inc/events", Some(&secret), Some(event("k2"))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNAUTHORIZED, "unauthorized"), "{out}");
    for missing in ["/api/v1/keys/999999/revoke", "/api/v1/keys/abc/revoke"] {
        let (status, out) = api.call("POST", missing, admin, None).await;
        assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "{missing}: {out}");
    }
    let (status, out) = api.call("POST", &revoke, admin, Some(json!({"why": "x"}))).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"), "{out}");

    let (_, created_rows) = api.call("GET", "/api/v1/audit?action=apikey_create", admin, None).await;
    let rows = created_rows["entries"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "the test key and this one: {created_rows}");
    assert_eq!(rows[0]["after"]["prefix"], secret[..16]);
    assert!(!created_rows.to_string().contains(&secret));
    let (_, revoked_rows) = api.call("GET", "/api/v1/audit?action=apikey_revoke", admin, None).await;
    assert_eq!(revoked_rows["entries"].as_array().unwrap().len(), 1, "{revoked_rows}");
    assert_eq!(revoked_rows["entries"][0]["reason"], "rotated");
    assert_eq!(revoked_rows["entries"][0]["actor"], created["created_by"]);
    api.stop().await;
}

#[tokio::test]
async fn a_key_over_its_rate_limit_is_refused_429_with_retry_after_and_nothing_is_written() {
    let api = Api::start().await;
    let admin = api.admin.clone();
    let body = json!({"boards": ["inc", "top"], "rate_per_second": 1, "burst": 2});
    let (status, created) = api.call("POST", "/api/v1/keys", Some(&admin), Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let key = created["key"].as_str().unwrap().to_owned();
    let event = |id: &str, member: &str| json!({"event_id": id, "member": member, "delta": 1});
    let events = "/api/v1/boards/inc/events";
    for (id, member) in [("r1", "u1"), ("r2", "u2")] {
        let (status, _, out) = call_with_headers(&api, "POST", events, &key, event(id, member)).await;
        assert_eq!(status, StatusCode::OK, "{id}: {out}");
    }
    let (status, headers, out) = call_with_headers(&api, "POST", events, &key, event("r3", "u3")).await;
    assert_eq!((status, error_of(&out)), (StatusCode::TOO_MANY_REQUESTS, "rate_limited"), "{out}");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    assert!(out["detail"].as_str().unwrap().contains("retry in"), "{out}");
    // The refused event is nowhere: not ranked, not in the ledger.
    let (status, _) = api.call("GET", "/api/v1/boards/inc/periods/current/members/u3", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let board = api.engine.reads().board(&domain::BoardSlug::parse("inc").unwrap()).await.unwrap();
    let period = board.period_at(jiff::Timestamp::now());
    let members: Vec<String> = api
        .engine
        .ledger()
        .totals(&board.slug, &period)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.member.to_string())
        .collect();
    assert_eq!(members.len(), 2, "{members:?}");
    assert!(!members.contains(&"u3".to_owned()));
    // Every route of the key shares its allowance; another key and the admin token are not limited.
    let submission = json!({"submission_id": "s1", "member": "u3", "score": 1});
    let (status, _, _) =
        call_with_headers(&api, "POST", "/api/v1/boards/top/submissions", &key, submission).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let (status, _) = api.call("POST", events, Some(&api.key.clone()), Some(event("other", "u9"))).await;
    assert_eq!(status, StatusCode::OK);
    for i in 0..20 {
        let (status, _) = api.call("POST", events, Some(&admin), Some(event(&format!("a{i}"), "u8"))).await;
        assert_eq!(status, StatusCode::OK, "admin request {i}");
    }
    // Counted in /metrics by the key's shown prefix, never the key.
    let res =
        api.router.clone().oneshot(Request::get("/metrics").body(Body::empty()).unwrap()).await.unwrap();
    let text =
        String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap();
    assert!(
        text.contains(&format!("laurel_rate_limited_total{{key_prefix=\"{}\"}} 2", &key[..16])),
        "{text}"
    );
    assert!(!text.contains(&key));
    // Once the interval has passed, the key writes again.
    tokio::time::sleep(std::time::Duration::from_secs(retry)).await;
    let (status, _, out) = call_with_headers(&api, "POST", events, &key, event("r3", "u3")).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    api.stop().await;
}

#[tokio::test]
async fn the_console_makes_a_key_shown_once_without_javascript_and_revokes_it() {
    let api = Api::start().await;
    api.engine.access().create_admin("ann", "correct horse battery").await.unwrap();
    let same_origin = ("sec-fetch-site", "same-origin");
    let login = "username=ann&password=correct+horse+battery";
    let res = browser(&api, "POST", "/api/login", &[same_origin], Some(login)).await;
    let session = set_cookie(&res).unwrap().split(';').next().unwrap().to_owned();
    let html = |res: axum::http::Response<Body>| async move {
        String::from_utf8(axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap().to_vec()).unwrap()
    };

    // Signed out, the page says so and shows no key.
    let res = browser(&api, "GET", "/admin/keys", &[], None).await;
    let page = html(res).await;
    assert!(page.contains("data-testid=\"signed-out\""), "{page}");
    assert!(!page.contains("laurel_ik_"), "{page}");

    // A plain form post (no script): redirected to the page, the key in a short-lived cookie.
    let form = "boards=inc%2C+top&rate_per_second=3&burst=";
    let res =
        browser(&api, "POST", "/api/admin_create_key", &[("cookie", &session), same_origin], Some(form))
            .await;
    assert!(res.status().is_redirection(), "{:?}", res.status());
    assert_eq!(res.headers()["location"], "/admin/keys");
    let flash = set_cookie(&res).expect("the new key's cookie");
    assert!(flash.contains("; Path=/admin/keys; HttpOnly; SameSite=Strict; Max-Age=300"), "{flash}");
    let flash = flash.split(';').next().unwrap().to_owned();
    let secret = flash.trim_start_matches("laurel_new_key=").to_owned();
    assert!(secret.starts_with("laurel_ik_"), "{flash}");
    let cookies = format!("{session}; {flash}");
    let res = browser(&api, "GET", "/admin/keys", &[("cookie", &cookies)], None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        set_cookie(&res).unwrap().starts_with("laurel_new_key=; Path=/admin/keys"),
        "shown once, then cleared"
    );
    let page = html(res).await;
    assert!(page.contains(&format!("class=\"secret\">{secret}</code>")), "{page}");
    assert!(page.contains("data-testid=\"new-key-secret\""));
    assert!(page.contains("Copy it now; it will not be shown again."), "{page}");
    assert!(page.contains("3/s, burst 6"), "{page}");
    // Without the cookie the page lists the key by prefix only.
    let res = browser(&api, "GET", "/admin/keys", &[("cookie", &session)], None).await;
    let page = html(res).await;
    assert!(!page.contains(&secret), "{page}");
    assert!(page.contains(&format!("data-prefix=\"{}\"", &secret[..16])), "{page}");
    let (status, _) = api
        .call(
            "POST",
            "/api/v1/boards/top/submissions",
            Some(&secret),
            Some(json!({"submission_id": "s", "member": "u1", "score": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    // A refusal comes back to the page, readable, and creates nothing.
    let res = browser(
        &api,
        "POST",
        "/api/admin_create_key",
        &[("cookie", &session), same_origin, ("referer", "http://laurel.test/admin/keys")],
        Some("boards=nope&rate_per_second=&burst="),
    )
    .await;
    assert!(res.status().is_redirection());
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    assert!(set_cookie(&res).is_none());
    let path = location.trim_start_matches("http://laurel.test");
    let res = browser(&api, "GET", path, &[("cookie", &session)], None).await;
    let page = html(res).await;
    assert!(page.contains("board nope does not exist"), "{location}: {page}");
    assert_eq!(api.engine.access().api_keys().await.unwrap().len(), 2, "the test key and the console's");

    // Revoked from the console: named in the audit trail, refused from then on.
    let id = api
        .engine
        .access()
        .api_keys()
        .await
        .unwrap()
        .iter()
        .find(|k| secret.starts_with(&k.prefix))
        .unwrap()
        .id;
    let form = format!("id={id}&reason=leaked");
    let res =
        browser(&api, "POST", "/api/admin_revoke_key", &[("cookie", &session), same_origin], Some(&form))
            .await;
    assert!(res.status().is_redirection(), "{:?}", res.status());
    let (status, _) = api
        .call(
            "POST",
            "/api/v1/boards/top/submissions",
            Some(&secret),
            Some(json!({"submission_id": "s2", "member": "u1", "score": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (_, audit) =
        api.call("GET", "/api/v1/audit?action=apikey_revoke", Some(&api.admin.clone()), None).await;
    assert_eq!(
        (audit["entries"][0]["actor"].as_str(), audit["entries"][0]["reason"].as_str()),
        (Some("admin:ann"), Some("leaked")),
        "{audit}"
    );
    let res = browser(&api, "GET", "/admin/keys", &[("cookie", &session)], None).await;
    let page = html(res).await;
    assert!(page.contains("revoked ") && page.contains("by admin:ann"), "{page}");
    api.stop().await;
}

#[tokio::test]
async fn unknown_routes_wrong_methods_and_bad_path_segments_answer_the_error_shape() {
    let api = Api::start().await;
    let admin = api.admin.clone();
    let cases = [
        ("GET", "/api/v1/nothing-here", StatusCode::NOT_FOUND, "not_found"),
        ("POST", "/api/v1/boards/inc/periods/current/nothing", StatusCode::NOT_FOUND, "not_found"),
        ("DELETE", "/api/v1/boards/inc", StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
        ("GET", "/api/v1/boards/inc/events", StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
        // An id that overflows i64, and a segment that is not UTF-8.
        (
            "POST",
            "/api/v1/boards/inc/periods/current/late/99999999999999999999/accept",
            StatusCode::BAD_REQUEST,
            "invalid_path",
        ),
        ("GET", "/api/v1/boards/%FF%FE/periods", StatusCode::BAD_REQUEST, "invalid_path"),
        // Periods no board can have do not exist in any route, and are not created.
        ("GET", "/api/v1/boards/inc/periods/0001-W01/top", StatusCode::NOT_FOUND, "not_found"),
        ("GET", "/api/v1/boards/inc/periods/9999-W53/count?min_points=1", StatusCode::NOT_FOUND, "not_found"),
        ("POST", "/api/v1/boards/inc/periods/0254-W40/freeze", StatusCode::NOT_FOUND, "not_found"),
    ];
    for (method, path, status, code) in cases {
        let (got, out) = api.call(method, path, Some(&admin), None).await;
        assert_eq!((got, error_of(&out)), (status, code), "{method} {path}: {out}");
        assert!(out["detail"].as_str().is_some_and(|d| !d.is_empty()), "{method} {path}: {out}");
    }
    let (status, periods) = api.call("GET", "/api/v1/boards/inc/periods", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(periods.as_array().unwrap().len(), 1, "only the current period: {periods}");
    api.stop().await;
}

#[tokio::test]
async fn writes_no_period_can_hold_are_rejected_at_the_edge_and_never_kept_as_late() {
    let api = Api::start().await;
    let (status, out) = api
        .post_events(
            "inc",
            json!({"events": [
                {"event_id": "y254", "member": "u1", "delta": 5, "occurred_at": "0254-10-01T00:00:00Z"},
                {"event_id": "y1", "member": "u1", "delta": 5, "occurred_at": "0001-01-01T00:00:00Z"},
                {"event_id": "y1969", "member": "u1", "delta": 5, "occurred_at": "1969-12-27T00:00:00Z"},
                {"event_id": "huge", "member": "u1", "delta": -54240551891543696_i64, "occurred_at": "2026-01-05T00:00:00Z"},
            ]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{out}");
    for r in out["results"].as_array().unwrap() {
        assert_eq!(r["result"], "rejected", "{out}");
        assert!(r.get("period").is_none(), "no period for {r}");
        assert!(r["reason"].as_str().is_some_and(|x| !x.is_empty()), "{r}");
    }
    let (status, out) = api
        .post_events(
            "inc",
            json!({"event_id": "one", "member": "u1", "delta": 1, "occurred_at": "1887-03-01T00:00:00Z"}),
        )
        .await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "rejected"), "{out}");
    let (_, periods) = api.call("GET", "/api/v1/boards/inc/periods", None, None).await;
    assert_eq!(periods.as_array().unwrap().len(), 1, "nothing but the current period: {periods}");
    assert!(api.engine.ledger().find_invalid_rows().await.unwrap().is_empty());
    api.stop().await;
}

#[tokio::test]
async fn an_ascending_board_is_created_with_its_order_and_unit_and_a_bad_one_changes_nothing() {
    let api = Api::start().await;
    let admin = api.admin.clone();
    let board = |sort: Value, unit: Value| {
        json!({"slug": "lap", "title": "Lap times", "cadence": "weekly", "time_zone": "UTC", "operator": "best",
            "tie_policy": "shared", "max_points": 3_600_000, "sort": sort, "unit": unit})
    };
    for (sort, unit, status, code, field) in [
        (json!("up"), json!("ms"), StatusCode::UNPROCESSABLE_ENTITY, "invalid", "sort"),
        (json!("ASC"), json!("ms"), StatusCode::UNPROCESSABLE_ENTITY, "invalid", "sort"),
        (json!("asc"), json!("seconds"), StatusCode::UNPROCESSABLE_ENTITY, "invalid", "unit"),
        // Not a string: the body's shape is wrong (its detail says what was expected).
        (json!(1), json!("ms"), StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", "expected a string"),
    ] {
        let (got, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(board(sort, unit))).await;
        assert_eq!((got, error_of(&out)), (status, code), "{out}");
        assert!(out["detail"].as_str().is_some_and(|d| d.contains(field)), "{out}");
        let (status, _) = api.call("GET", "/api/v1/boards/lap", None, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "nothing was created: {out}");
    }

    // Left out: a descending board of plain points, as before.
    let (status, out) = api.call("GET", "/api/v1/boards/inc", None, None).await;
    assert_eq!(
        (status, out["sort"].as_str(), out["unit"].as_str()),
        (StatusCode::OK, Some("desc"), Some("points"))
    );

    let (status, out) =
        api.call("POST", "/api/v1/boards", Some(&admin), Some(board(json!("asc"), json!("ms")))).await;
    assert_eq!(status, StatusCode::CREATED, "{out}");
    assert_eq!((out["sort"].as_str(), out["unit"].as_str()), (Some("asc"), Some("ms")), "{out}");
    let (_, details) = api.call("GET", "/api/v1/boards/lap", None, None).await;
    assert_eq!((details["sort"].as_str(), details["unit"].as_str()), (Some("asc"), Some("ms")), "{details}");

    // The fastest time ranks first; a slower one is recorded but changes nothing.
    let slugs = [domain::BoardSlug::parse("lap").unwrap()];
    let key = api.engine.access().issue_api_key(&slugs, KeyLimits::default(), "test").await.unwrap().key;
    let sub =
        |id: &str, member: &str, score: i64| json!({"submission_id": id, "member": member, "score": score});
    let path = "/api/v1/boards/lap/submissions";
    for (id, member, score, result) in [
        ("s1", "u1", 62_345, "improved"),
        ("s2", "u2", 59_000, "improved"),
        ("s3", "u1", 61_000, "improved"),
        ("s4", "u2", 70_000, "not_higher"),
    ] {
        let (_, out) = api.call("POST", path, Some(&key), Some(sub(id, member, score))).await;
        assert_eq!(out["result"], result, "{id}: {out}");
    }
    let (_, top) = api.call("GET", "/api/v1/boards/lap/periods/current/top?limit=5", None, None).await;
    let rows: Vec<(u64, &str, i64)> = top["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["rank"].as_u64().unwrap(), e["member"].as_str().unwrap(), e["points"].as_i64().unwrap()))
        .collect();
    assert_eq!(rows, [(1, "u2", 59_000), (2, "u1", 61_000)], "{top}");
    api.stop().await;
}

#[tokio::test]
async fn a_body_with_a_field_the_route_does_not_know_is_refused_naming_it() {
    let api = Api::start().await;
    let admin = api.admin.clone();
    let board = json!({"slug": "seg", "title": "S", "cadence": "weekly", "time_zone": "UTC", "operator": "incr",
        "tie_policy": "shared", "max_points": 100, "divisions": ["province"]});
    let (status, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(board)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"), "{out}");
    assert!(out["detail"].as_str().unwrap().contains("divisions"), "{out}");
    let (status, _) = api.call("GET", "/api/v1/boards/seg", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "nothing was created");
    let misspelt = json!({"slug": "seg", "title": "S", "cadence": "weekly", "time_zone": "UTC", "operator": "incr",
        "tie_policy": "shared", "max_point": 100});
    let (status, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(misspelt)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"), "{out}");

    // A single event refused is 422 `rejected`, with the reason a batch item would get.
    let (status, out) =
        api.post_events("inc", json!({"event_id": "e", "member": "u1", "delta": 1, "weight": 2})).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "rejected"), "{out}");
    assert!(out["detail"].as_str().unwrap().contains("weight"), "{out}");
    let (status, out) = api
        .post_events(
            "inc",
            json!({"events": [{"event_id": "e", "member": "u1", "delta": 1}], "dry_run": true}),
        )
        .await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"), "{out}");
    assert!(out["detail"].as_str().unwrap().contains("dry_run"), "{out}");
    api.assert_untouched("inc").await;
    api.stop().await;
}

#[tokio::test]
async fn a_settled_period_is_corrected_through_a_preview_and_every_revision_stays_readable() {
    let api = Api::start().await;
    let admin = Some(api.admin.as_str());
    let prizes = json!([{"from_rank": 1, "to_rank": 1, "prize": "gold"}, {"from_rank": 2, "to_rank": 2, "prize": "silver"}]);
    let body = json!({"slug": "pz", "title": "pz", "cadence": "weekly", "time_zone": "UTC", "operator": "incr",
        "tie_policy": "shared", "max_points": 1000, "min_points": -1000, "prizes": prizes});
    let (status, out) = api.call("POST", "/api/v1/boards", admin, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{out}");
    let events = json!({"events": [{"event_id": "e1", "member": "u1", "delta": 50},
        {"event_id": "e2", "member": "u2", "delta": 30}, {"event_id": "e3", "member": "u3", "delta": 20}]});
    let (status, out) = api.call("POST", "/api/v1/boards/pz/events", admin, Some(events)).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    let period = "/api/v1/boards/pz/periods/current";
    for step in ["freeze", "settle"] {
        let (status, out) = api.call("POST", &format!("{period}/{step}"), admin, None).await;
        assert_eq!(status, StatusCode::OK, "{step}: {out}");
    }
    let (_, first) = api.call("GET", &format!("{period}/settlement"), None, None).await;

    // Bad previews are refused with their reason, and anonymous callers learn nothing.
    let previews = format!("{period}/previews");
    let revoke_e1 = json!({"changes": [{"revoke": "e1"}], "reason": "u1 cheated"});
    let (status, _) = api.call("POST", &previews, None, Some(revoke_e1.clone())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    for (body, code) in [
        (json!({"changes": [{"bogus": "e1"}], "reason": "x"}), "invalid_body"),
        (json!({"changes": [{"revoke": "e1", "hide": "u2"}], "reason": "x"}), "invalid_body"),
        (json!({"changes": [], "reason": "x"}), "invalid"),
        (json!({"changes": [{"hide": "u9"}], "reason": "x"}), "not_found"),
        (json!({"changes": [{"correct": {"member": "u2", "delta": 5000}}], "reason": "x"}), "invalid"),
        (json!({"changes": [{"revoke": "e1"}], "reason": " "}), "invalid"),
    ] {
        let (status, out) = api.call("POST", &previews, admin, Some(body.clone())).await;
        assert!(status.is_client_error(), "{body}: {status} {out}");
        assert_eq!(error_of(&out), code, "{body}: {out}");
    }

    // A preview: u1 loses gold to u2, u2's silver goes to u3.
    let (status, preview) = api.call("POST", &previews, admin, Some(revoke_e1)).await;
    assert_eq!(status, StatusCode::CREATED, "{preview}");
    assert_eq!(preview["based_on"]["revision"], 1, "{preview}");
    let prizes: Vec<(String, Value, Value)> = preview["prizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["member"].as_str().unwrap().to_owned(), p["before"].clone(), p["after"].clone()))
        .collect();
    assert_eq!(prizes.len(), 3, "{preview}");
    let id = preview["preview_id"].as_str().unwrap();
    let (status, draft) = api.call("GET", &format!("{previews}/{id}"), admin, None).await;
    assert_eq!((status, draft["status"].as_str()), (StatusCode::OK, Some("draft")), "{draft}");
    assert_eq!(draft["changes"], json!([{"revoke": "e1"}]), "{draft}");

    // Applied: revision 2, chained to the first, as previewed; a repeat answers the same.
    let (status, applied) = api.call("POST", &format!("{previews}/{id}/apply"), admin, None).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    assert_eq!(applied["revision"]["revision"], 2, "{applied}");
    assert_eq!(applied["revision"]["previous_digest"], first["digest"], "{applied}");
    assert_eq!(applied["revision"]["digest"], preview["digest_after"], "{applied}");
    let (_, again) = api.call("POST", &format!("{previews}/{id}/apply"), admin, None).await;
    assert_eq!(again, applied);
    let (status, out) = api.call("POST", &format!("{previews}/{id}/cancel"), admin, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "preview_applied"), "{out}");

    let (_, list) = api.call("GET", &format!("{period}/settlements"), None, None).await;
    let chain: Vec<(i64, Value)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["revision"].as_i64().unwrap(), s["previous_digest"].clone()))
        .collect();
    assert_eq!(chain, vec![(1, Value::Null), (2, first["digest"].clone())], "{list}");
    let (_, latest) = api.call("GET", &format!("{period}/settlement"), None, None).await;
    assert_eq!(
        (latest["revision"].as_i64(), latest["reason"].as_str()),
        (Some(2), Some("u1 cheated")),
        "{latest}"
    );
    let (_, old) = api.call("GET", &format!("{period}/settlement?revision=1"), None, None).await;
    assert_eq!(
        (old["digest"].clone(), old["standings"].clone()),
        (first["digest"].clone(), first["standings"].clone())
    );
    let (status, out) = api.call("GET", &format!("{period}/settlement?revision=0"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{out}");
    let (status, out) = api.call("GET", &format!("{period}/settlement?revision=3"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "{out}");

    // Receipts (public): u2's of revision 1 verifies with the chain to revision 2; a member with
    // no standing gets the proof of its absence; an unknown revision is 404, a bad one 400.
    let receipt_of =
        |revision: &str, member: &str| format!("{period}/settlements/{revision}/receipts/{member}");
    let (status, receipt) = api.call("GET", &receipt_of("1", "u2"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{receipt}");
    assert_eq!(
        receipt["inclusion"]["leaf"],
        json!({"ranking": "board", "member": "u2", "rank": 2, "points": 30, "prize": "silver"}),
        "{receipt}"
    );
    assert_eq!((&receipt["digest"], receipt["chain"].as_array().map(Vec::len)), (&first["digest"], Some(2)));
    assert_eq!(receipt["chain"][1]["digest"], latest["digest"], "{receipt}");
    let report = domain::receipt::verify_json(&receipt.to_string());
    assert!(report.ok(), "{report:?}");
    let (status, absent) = api.call("GET", &receipt_of("2", "u9"), None, None).await;
    assert_eq!((status, absent["inclusion"].is_null()), (StatusCode::OK, true), "{absent}");
    assert!(domain::receipt::verify_json(&absent.to_string()).ok(), "{absent}");
    for (revision, member, status, code) in [
        ("3", "u2", StatusCode::NOT_FOUND, "not_found"),
        ("0", "u2", StatusCode::NOT_FOUND, "not_found"),
        ("x", "u2", StatusCode::BAD_REQUEST, "invalid_path"),
        ("1", "no%20one", StatusCode::NOT_FOUND, "not_found"),
    ] {
        let (got, out) = api.call("GET", &receipt_of(revision, member), None, None).await;
        assert_eq!((got, error_of(&out)), (status, code), "{revision} {member}: {out}");
    }
    // The member page offers the latest revision's receipt; `/verify` checks one in the browser.
    let key = latest["period"].as_str().unwrap();
    let (status, page) = page_text(&api, &format!("/b/pz/{key}/m/u2"), None).await;
    assert_eq!(status, StatusCode::OK);
    let href = format!("href=\"/api/v1/boards/pz/periods/{key}/settlements/2/receipts/u2\"");
    assert!(page.contains(&href) && page.contains("Download my receipt"), "{page}");
    let (status, page) = page_text(&api, "/verify", None).await;
    assert!(status == StatusCode::OK && page.contains("data-testid=\"receipt-input\""), "{page}");

    // Rewards moved by deltas: u1's gold and u2's silver revoked, u2's gold and u3's silver granted.
    let (_, rewards) = api.call("GET", &format!("{period}/rewards"), admin, None).await;
    let moved: Vec<(i64, &str, &str, &str)> = rewards["rewards"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["revision"] == 2)
        .map(|r| {
            (
                r["rank"].as_i64().unwrap(),
                r["member"].as_str().unwrap(),
                r["kind"].as_str().unwrap(),
                r["prize"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(moved.len(), 4, "{rewards}");
    for delta in [
        ("u1", "revoke", "gold"),
        ("u2", "revoke", "silver"),
        ("u2", "grant", "gold"),
        ("u3", "grant", "silver"),
    ] {
        assert!(moved.iter().any(|m| (m.1, m.2, m.3) == delta), "{delta:?} in {moved:?}");
    }

    // Two previews of the same state: the second applied is stale. A cancelled one cannot apply.
    let make = async |changes: Value| {
        let (status, out) =
            api.call("POST", &previews, admin, Some(json!({"changes": changes, "reason": "r"}))).await;
        assert_eq!(status, StatusCode::CREATED, "{out}");
        out["preview_id"].as_str().unwrap().to_owned()
    };
    let (a, b) =
        (make(json!([{"hide": "u3"}])).await, make(json!([{"correct": {"member": "u2", "delta": 1}}])).await);
    let (status, _) = api.call("POST", &format!("{previews}/{b}/apply"), admin, None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, out) = api.call("POST", &format!("{previews}/{a}/apply"), admin, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "preview_stale"), "{out}");
    let c = make(json!([{"hide": "u3"}])).await;
    let (status, out) = api.call("POST", &format!("{previews}/{c}/cancel"), admin, None).await;
    assert_eq!((status, out["status"].as_str()), (StatusCode::OK, Some("cancelled")), "{out}");
    let (status, out) = api.call("POST", &format!("{previews}/{c}/apply"), admin, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::CONFLICT, "preview_cancelled"), "{out}");
    let (status, out) =
        api.call("GET", &format!("{previews}/pv_0123456789abcdef0123456789abcdef"), admin, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::NOT_FOUND, "not_found"), "{out}");
    api.stop().await;
}

/// The text of a page as a browser with `cookie` gets it, without its per-answer nonce and with
/// its countdown's time left masked (a slow run crosses a minute between two reads).
async fn page_text(api: &Api, path: &str, cookie: Option<&str>) -> (StatusCode, String) {
    let mut req = Request::builder().uri(path);
    if let Some(cookie) = cookie {
        req = req.header("cookie", cookie);
    }
    let res = api.router.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 22).await.unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // Each answer carries a new CSP nonce; nothing else in it may differ.
    let nonce = regex_free_nonce(&text);
    let text = nonce.map_or(text.clone(), |n| text.replace(&n, "NONCE"));
    (status, without_time_left(&text))
}

/// `text` with each countdown's time left (`<span class="countdown">3d 9h 31m</span>`) replaced
/// by `TIME LEFT`.
fn without_time_left(text: &str) -> String {
    const OPEN: &str = "<span class=\"countdown\">";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at + OPEN.len()]);
        out.push_str("TIME LEFT");
        let value = &rest[at + OPEN.len()..];
        rest = &value[value.find("</span>").expect("the countdown's end")..];
    }
    out.push_str(rest);
    out
}

/// A page's text without the `frozen_at` labels of the data it carries for hydration.
fn without_frozen_at(text: &str) -> String {
    const LABEL: &str = ",\\\"frozen_at\\\":\\\"";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(LABEL) {
        out.push_str(&rest[..at]);
        let value = &rest[at + LABEL.len()..];
        rest = &value[value.find("\\\"").expect("the label's end") + 2..];
    }
    out.push_str(rest);
    out
}

/// A board page's text with the freeze banner's words in the rows' island's props (the banner is
/// the island's, so the page follows a reveal) said as none, like the banner itself above.
fn without_freeze_words(text: &str) -> String {
    const WORDS: &str = "&quot;frozen_words&quot;:&quot;";
    match text.find(WORDS) {
        Some(at) => {
            let value = &text[at + WORDS.len()..];
            let end = value.find("&quot;").expect("the words' end") + "&quot;".len();
            format!("{}&quot;frozen_words&quot;:null{}", &text[..at], &value[end..])
        }
        None => text.to_owned(),
    }
}

/// The page's nonce (`nonce="…"`), if it has one.
fn regex_free_nonce(text: &str) -> Option<String> {
    let at = text.find("nonce=\"")? + 7;
    let end = text[at..].find('"')? + at;
    Some(text[at..end].to_owned())
}

#[tokio::test]
async fn a_public_freeze_leaks_nothing_on_any_public_route_or_page_until_the_reveal() {
    let api = Api::start().await;
    let admin = Some(api.admin.as_str());
    let events: Vec<Value> = [("f1", "u1", 50), ("f2", "u2", 30), ("f3", "u3", 30), ("f4", "u4", 5)]
        .iter()
        .map(|(id, member, delta)| json!({"event_id": id, "member": member, "delta": delta}))
        .collect();
    let (status, _) = api.post_events("inc", json!({"events": events})).await;
    assert_eq!(status, StatusCode::OK);
    let base = "/api/v1/boards/inc/periods/current";
    let routes: Vec<String> = [
        "/top?limit=10",
        "/entries?offset=0&limit=2",
        "/entries?offset=2&limit=2",
        "/entries?after=&limit=2",
        "/members/u1",
        "/members/u4",
        "/members/u9",
        "/members/u3/around?radius=1",
        "/members/u4/events",
        "/members/u2/events",
        "/count?min_points=6",
        "/count?min_points=31",
        "/ranks?members=u1,u2,u3,u4,u9",
        // The board as of any moment: a moment after the freeze is answered as of the freeze.
        "/as-of?at=2999-01-01T00:00:00Z&limit=10",
        "/as-of?at=2999-01-01T00:00:00Z&around=u3&radius=1",
        "/as-of?at=2999-01-01T00:00:00Z&around=u9",
        "/changes?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z&top=3",
    ]
    .iter()
    .map(|r| format!("{base}{r}"))
    .collect();
    let pages = ["/b/inc", "/b/inc?show=2", "/b/inc?find=u4", "/b/inc?after=", "/b/inc/current/m/u4"];
    let read_all = async |frozen: bool| {
        let mut answers = Vec::new();
        for route in &routes {
            let (status, mut out) = api.call("GET", route, None, None).await;
            if status == StatusCode::OK {
                assert_eq!(out.get("frozen_at").is_some(), frozen, "{route}: {out}");
                if let Some(o) = out.as_object_mut() {
                    o.remove("frozen_at");
                    // The instant an as-of read answered: the one asked for, then the freeze's.
                    for instant in ["at", "to"] {
                        if let Some(at) = o.remove(instant) {
                            let at: jiff::Timestamp = at.as_str().unwrap().parse().unwrap();
                            assert_eq!(at.as_microsecond() < 32_000_000_000_000_000, frozen, "{route}: {at}");
                        }
                    }
                }
            }
            answers.push(format!("{route} {status} {out}"));
        }
        for page in pages {
            let (status, text) = page_text(&api, page, None).await;
            assert_eq!(text.contains("Standings frozen"), frozen, "{page}");
            // The banner names the freeze (where the page has `<!>` without it); everything
            // else must be byte for byte the same.
            let text = match text.find("data-testid=\"public-freeze\"") {
                Some(at) => {
                    let start = text[..at].rfind("<p").unwrap();
                    let end = text[at..].find("</p>").unwrap() + at + "</p>".len();
                    format!("{}<!>{}", &text[..start], &text[end..])
                }
                None => text,
            };
            answers.push(format!("{page} {status} {}", without_frozen_at(&without_freeze_words(&text))));
        }
        answers
    };
    let before = read_all(false).await;

    // Only admins freeze; a repeat changes nothing.
    let freeze = format!("{base}/public-freeze");
    let (status, _) = api.call("POST", &freeze, Some(&api.key), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, out) = api.call("POST", &freeze, admin, Some(json!({"reason": "last hour"}))).await;
    assert_eq!((status, out["result"].as_str()), (StatusCode::OK, Some("frozen")), "{out}");
    let frozen_at = out["frozen_at"].clone();
    assert!(frozen_at.is_string(), "{out}");
    let (_, again) = api.call("POST", &freeze, admin, None).await;
    assert_eq!((again["result"].as_str(), &again["frozen_at"]), (Some("already_frozen"), &frozen_at));

    // Writes after the freeze: a jump to first, a new member, a revocation, a correction.
    let events = json!({"events": [
        {"event_id": "g1", "member": "u4", "delta": 100},
        {"event_id": "g2", "member": "u9", "delta": 40},
    ]});
    let (status, out) = api.post_events("inc", events).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    let (status, _) = api
        .call("POST", "/api/v1/boards/inc/events/f2/revoke", admin, Some(json!({"reason": "duplicate"})))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api
        .call(
            "POST",
            &format!("{base}/corrections"),
            admin,
            Some(json!({"member": "u3", "delta": 1, "reason": "bonus"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let after = read_all(true).await;
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a, b, "a public answer changed during the public freeze");
    }

    // An admin token reads live (and the cached public top is not what it gets).
    let (_, live) = api.call("GET", &format!("{base}/top?limit=10"), admin, None).await;
    assert_eq!(
        (live["entries"][0]["member"].as_str(), live["total"].as_u64()),
        (Some("u4"), Some(5)),
        "{live}"
    );
    assert!(live.get("frozen_at").is_none(), "{live}");
    let (_, page) = api.call("GET", &format!("{base}/entries?offset=0&limit=2"), admin, None).await;
    assert_eq!(page["entries"][0]["points"].as_i64(), Some(105), "{page}");
    let (_, mine) = api.call("GET", &format!("{base}/members/u4"), admin, None).await;
    assert_eq!((mine["rank"].as_u64(), mine["points"].as_i64()), (Some(1), Some(105)), "{mine}");
    let (_, events) = api.call("GET", &format!("{base}/members/u4/events"), admin, None).await;
    assert_eq!(events["entries"].as_array().unwrap().len(), 2, "{events}");
    let (_, public) = api.call("GET", &format!("{base}/top?limit=10"), Some(&api.key), None).await;
    assert_eq!(public["entries"][0]["member"].as_str(), Some("u1"), "an ingest key reads the public view");

    // "Me" sees their own live points and what is pending, nobody else's.
    let (_, mine) = page_text(&api, "/b/inc", Some(&me_cookie("u4"))).await;
    assert!(mine.contains("Your live points: 105 (1 of your entries is not public yet)"), "{mine}");
    assert!(!mine.contains("u9"), "nobody else's live points");

    // Reveal: a bad step is refused; stepwise, then all at once.
    let reveal = format!("{base}/reveal");
    for step in ["some", ""] {
        let (status, out) = api.call("POST", &reveal, admin, Some(json!({"step": step}))).await;
        assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"), "{out}");
    }
    let (status, out) = api.call("POST", &reveal, admin, Some(json!({"step": "next"}))).await;
    assert_eq!((status, out["result"].as_str()), (StatusCode::OK, Some("step")), "{out}");
    let (_, out) = api.call("POST", &reveal, admin, Some(json!({"step": "all"}))).await;
    assert_eq!(out["result"].as_str(), Some("revealed"), "{out}");
    assert!(out.get("frozen_at").is_none(), "{out}");
    let (_, top) = api.call("GET", &format!("{base}/top"), None, None).await;
    assert_eq!((top["entries"][0]["member"].as_str(), top["total"].as_u64()), (Some("u4"), Some(5)), "{top}");
    assert!(top.get("frozen_at").is_none());
    let (_, out) = api.call("POST", &reveal, admin, None).await;
    assert_eq!(out["result"].as_str(), Some("not_frozen"), "{out}");
    api.stop().await;
}

/// The board as of an instant over HTTP: bad instants are refused with the error shape, an
/// instant before any write is an empty board, a later one the board as the ledger had it, and
/// `changes` names who moved.
#[tokio::test]
async fn as_of_answers_the_board_at_an_instant_and_refuses_bad_instants() {
    let api = Api::start().await;
    let base = "/api/v1/boards/inc/periods/current";
    let before = jiff::Timestamp::now();
    let events = json!({"events": [
        {"event_id": "a1", "member": "u1", "delta": 50},
        {"event_id": "a2", "member": "u2", "delta": 30},
    ]});
    assert_eq!(api.post_events("inc", events).await.0, StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let middle = jiff::Timestamp::now();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let events = json!({"events": [{"event_id": "a3", "member": "u2", "delta": 40}]});
    assert_eq!(api.post_events("inc", events).await.0, StatusCode::OK);
    for (query, status, code) in [
        ("/as-of", StatusCode::BAD_REQUEST, "invalid_query"),
        ("/as-of?at=yesterday", StatusCode::BAD_REQUEST, "invalid_query"),
        ("/as-of?at=2026-13-01T00:00:00Z", StatusCode::BAD_REQUEST, "invalid_query"),
        ("/as-of?at=2026-12-01T00:00:00Z&limit=0", StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        ("/as-of?at=2026-12-01T00:00:00Z&around=u1&offset=1", StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        ("/as-of?at=2026-12-01T00:00:00Z&around=u1&radius=51", StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        ("/changes?from=2026-12-01T00:00:00Z", StatusCode::BAD_REQUEST, "invalid_query"),
        ("/changes?from=x&to=2026-12-01T00:00:00Z", StatusCode::BAD_REQUEST, "invalid_query"),
        (
            "/changes?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z",
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
        ),
        (
            "/changes?from=2026-12-01T00:00:00Z&to=2026-12-02T00:00:00Z&top=201",
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid",
        ),
    ] {
        let (got, out) = api.call("GET", &format!("{base}{query}"), None, None).await;
        assert_eq!((got, error_of(&out)), (status, code), "{query}: {out}");
        assert!(out["detail"].is_string(), "{query}: {out}");
    }
    let (status, empty) = api.call("GET", &format!("{base}/as-of?at={before}"), None, None).await;
    assert_eq!((status, empty["total"].as_u64()), (StatusCode::OK, Some(0)), "{empty}");
    let (_, then) = api.call("GET", &format!("{base}/as-of?at={middle}"), None, None).await;
    let rows = |page: &Value| -> Vec<(String, i64)> {
        page["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["member"].as_str().unwrap().to_owned(), e["points"].as_i64().unwrap()))
            .collect()
    };
    assert_eq!(rows(&then), [("u1".to_owned(), 50), ("u2".to_owned(), 30)], "{then}");
    assert_eq!(then["at"].as_str().unwrap().parse::<jiff::Timestamp>().unwrap(), middle);
    let now = jiff::Timestamp::now();
    let (_, later) = api.call("GET", &format!("{base}/as-of?at={now}&around=u1&radius=0"), None, None).await;
    assert_eq!((rows(&later), later["offset"].as_u64()), (vec![("u1".to_owned(), 50)], Some(1)), "{later}");
    let (status, c) =
        api.call("GET", &format!("{base}/changes?from={middle}&to={now}&top=1"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{c}");
    assert_eq!(
        (c["entered"][0]["member"].as_str(), c["left"][0]["member"].as_str()),
        (Some("u2"), Some("u1")),
        "{c}"
    );
    assert_eq!(c["moves"].as_array().unwrap().len(), 2, "{c}");
    api.stop().await;
}

/// Starting a server lists the app's routes, and listing them holds back every resource load of
/// the process meanwhile (leptos' flag is global). Pages of a server already running must answer
/// all the same (the tests, and a fleet in one process, run several servers).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_answer_while_another_server_of_the_process_starts() {
    let api = Api::start().await;
    let starting = {
        let state = api.state.clone();
        tokio::task::spawn_blocking(move || {
            for _ in 0..100 {
                drop(app(state.clone()));
            }
        })
    };
    let mut pages = 0;
    while !starting.is_finished() || pages == 0 {
        let page = tokio::time::timeout(std::time::Duration::from_secs(30), page_text(&api, "/b/inc", None));
        let (status, text) = page.await.expect("the board page answered while another server started");
        assert_eq!(status, StatusCode::OK, "{text}");
        assert!(text.contains("<h1>inc</h1>"), "{text}");
        pages += 1;
    }
    starting.await.unwrap();
    api.stop().await;
}

#[tokio::test]
async fn a_profile_names_segment_values_that_writes_leaving_them_out_take() {
    let api = Api::start().await;
    let admin = api.admin.clone();
    let board = json!({"slug": "segp", "title": "Seg", "cadence": "weekly", "time_zone": "UTC",
        "operator": "incr", "tie_policy": "shared", "max_points": 1000, "segments": ["province"]});
    let (status, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(board)).await;
    assert_eq!(status, StatusCode::CREATED, "{out}");
    let path = "/api/v1/members/u1/profile";
    let many: serde_json::Map<String, Value> = (0..17).map(|i| (format!("d{i}"), json!("v"))).collect();
    for (name, segments, words) in [
        ("a bad value", json!({"province": "z j"}), "segment value"),
        ("a bad dimension", json!({"Province": "zj"}), "segment dimension"),
        ("too many", Value::Object(many), "at most 16"),
    ] {
        let body = json!({"display_name": "Ann", "segments": segments});
        let (status, out) = api.call("PUT", path, Some(&admin), Some(body)).await;
        assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{name}: {out}");
        assert!(out["detail"].as_str().unwrap().contains(words), "{name}: {out}");
    }
    let body = json!({"display_name": "Ann", "segments": {"province": "zj", "school": "s1"}});
    let (status, out) = api.call("PUT", path, Some(&admin), Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(out["segments"], json!({"province": "zj", "school": "s1"}), "{out}");
    let event = json!({"event_id": "a", "member": "u1", "delta": 7});
    let (status, out) = api.call("POST", "/api/v1/boards/segp/events", Some(&admin), Some(event)).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    let top = "/api/v1/boards/segp/periods/current/top?segment=province:zj";
    let (_, out) = api.call("GET", top, None, None).await;
    assert_eq!(
        (&out["entries"][0]["member"], &out["entries"][0]["points"]),
        (&json!("u1"), &json!(7)),
        "{out}"
    );
}

#[tokio::test]
async fn segments_are_declared_written_and_read_over_rest() {
    let api = Api::start().await;
    let admin = api.admin.clone();
    let base = json!({"slug": "seg", "title": "Seg", "cadence": "weekly", "time_zone": "Asia/Shanghai",
        "operator": "incr", "tie_policy": "shared", "max_points": 1000, "segments": ["province", "class"]});
    let with = |k: &str, v: Value| {
        let mut b = base.clone();
        b[k] = v;
        b
    };
    // Refused: too many or ill-named dimensions, a bounded board, a hot board.
    let refusals = [
        ("five dimensions", with("segments", json!(["a", "b", "c", "d", "e"])), "at most 4"),
        ("a bad name", with("segments", json!(["Province"])), "segment dimension"),
        ("a bounded board", with("keep_top", json!(100)), "bounded"),
        (
            "a hot board",
            json!({"slug": "seg", "title": "Hot", "cadence": "hot", "bucket_seconds": 60, "window_buckets": 5,
                "ttl_seconds": 600, "segments": ["province"]}),
            "no segments",
        ),
    ];
    for (name, body, words) in refusals {
        let (status, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(body)).await;
        assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{name}: {out}");
        assert!(out["detail"].as_str().unwrap().contains(words), "{name}: {out}");
    }
    let (status, out) = api.call("POST", "/api/v1/boards", Some(&admin), Some(base.clone())).await;
    assert_eq!(status, StatusCode::CREATED, "{out}");
    assert_eq!(out["segments"], json!(["province", "class"]), "{out}");
    let (_, out) = api.call("GET", "/api/v1/boards/inc", None, None).await;
    assert!(out.get("segments").is_none(), "a board without segments does not show the field: {out}");

    let events = "/api/v1/boards/seg/events";
    let batch = json!({"events": [
        {"event_id": "a", "member": "u1", "delta": 50, "segments": {"province": "zj", "class": "c1"}},
        {"event_id": "b", "member": "u2", "delta": 30, "segments": {"province": "zj"}},
        {"event_id": "c", "member": "u3", "delta": 40, "segments": {"province": "js", "class": "c1"}},
        {"event_id": "d", "member": "u1", "delta": 1, "segments": {"province": "js"}},
        {"event_id": "e", "member": "u4", "delta": 1, "segments": {"city": "hz"}},
    ]});
    let (status, out) = api.call("POST", events, Some(&admin), Some(batch)).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    let results: Vec<&str> =
        out["results"].as_array().unwrap().iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(results, ["applied", "applied", "applied", "rejected", "rejected"], "{out}");
    assert!(out["results"][3]["reason"].as_str().unwrap().contains("segment_conflict"), "{out}");
    // A single write naming another value, or an undeclared dimension: 422 `rejected`.
    let one = json!({"event_id": "f", "member": "u2", "delta": 1, "segments": {"province": "js"}});
    let (status, out) = api.call("POST", events, Some(&admin), Some(one)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "rejected"), "{out}");
    let one = json!({"event_id": "g", "member": "u2", "delta": 1, "segments": {"city": "hz"}});
    let (status, out) = api.call("POST", events, Some(&admin), Some(one)).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "rejected"), "{out}");

    let period = "/api/v1/boards/seg/periods/current";
    let members = |out: &Value| -> Vec<(String, i64, u64)> {
        out["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["member"].as_str().unwrap().to_owned(),
                    e["points"].as_i64().unwrap(),
                    e["rank"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let (status, out) = api.call("GET", &format!("{period}/top?segment=province:zj"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(members(&out), [("u1".into(), 50, 1), ("u2".into(), 30, 2)], "{out}");
    let (_, out) =
        api.call("GET", &format!("{period}/entries?segment=class:c1&offset=1&limit=1"), None, None).await;
    assert_eq!(members(&out), [("u3".into(), 40, 2)], "{out}");
    let (_, out) = api.call("GET", &format!("{period}/entries?segment=class:c1&after="), None, None).await;
    assert_eq!(out["entries"].as_array().unwrap().len(), 2, "{out}");
    let (_, out) = api.call("GET", &format!("{period}/members/u3?segment=province:js"), None, None).await;
    assert_eq!((&out["rank"], &out["points"]), (&json!(1), &json!(40)), "{out}");
    let (_, out) =
        api.call("GET", &format!("{period}/members/u3/around?segment=class:c1&radius=1"), None, None).await;
    assert_eq!(out["rank"], json!(2), "{out}");

    // An undeclared dimension or a malformed value: 422 `invalid`.
    for path in [
        format!("{period}/top?segment=city:hz"),
        format!("{period}/top?segment=province"),
        format!("{period}/top?segment=province:a%20b"),
    ] {
        let (status, out) = api.call("GET", &path, None, None).await;
        assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{path}: {out}");
    }
    // Counts, ranks of a list and snapshots read the segment's ranking too.
    let (status, out) =
        api.call("GET", &format!("{period}/count?min_points=31&segment=class:c1"), None, None).await;
    assert_eq!(
        (status, &out["count"], &out["source"]),
        (StatusCode::OK, &json!(2), &json!("redis")),
        "{out}"
    );
    let (_, out) = api.call("GET", &format!("{period}/count?min_points=31"), None, None).await;
    assert_eq!(out["count"], json!(2), "the board's: {out}");
    let (_, out) =
        api.call("GET", &format!("{period}/count?min_points=31&segment=province:zj"), None, None).await;
    assert_eq!(out["count"], json!(1), "{out}");
    let (status, out) =
        api.call("GET", &format!("{period}/ranks?members=u3,u2,u1&segment=province:zj"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(members(&out), [("u1".into(), 50, 1), ("u2".into(), 30, 2)], "u3 is not in zj: {out}");
    let (status, out) = api.call("POST", &format!("{period}/snapshots?segment=class:c1"), None, None).await;
    assert_eq!((status, &out["total"]), (StatusCode::CREATED, &json!(2)), "{out}");
    let id = out["snapshot_id"].as_str().unwrap().to_owned();
    let (status, out) =
        api.call("GET", &format!("{period}/snapshots/{id}/entries?segment=class:c1"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(members(&out), [("u1".into(), 50, 1), ("u3".into(), 40, 2)], "{out}");
    // The copy is the segment's: the board's ranking of the same window was not pinned.
    let (status, out) = api.call("GET", &format!("{period}/snapshots/{id}/entries"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::GONE, "snapshot_expired"), "{out}");

    // The list of a dimension's values, with member counts and leaders.
    let (status, out) = api.call("GET", &format!("{period}/segments/province"), None, None).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_eq!(
        out,
        json!({"dimension": "province", "more": false, "values": [
            {"value": "js", "members": 1, "leader": {"rank": 1, "member": "u3", "points": 40, "tied": false}},
            {"value": "zj", "members": 2, "leader": {"rank": 1, "member": "u1", "points": 50, "tied": false}},
        ]}),
    );
    let (status, out) = api.call("GET", &format!("{period}/segments/city"), None, None).await;
    assert_eq!((status, error_of(&out)), (StatusCode::UNPROCESSABLE_ENTITY, "invalid"), "{out}");
    api.stop().await;
}
