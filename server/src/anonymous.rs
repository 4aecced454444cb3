//! What a caller without credentials may spend: its requests count, per client network (an IPv4
//! address or an IPv6 /64, as `peer` names the client), against one allowance shared by every
//! instance (`--public-rate-per-second`, 50 by default, `--public-burst`, 500; 0 turns it off;
//! `Access::admit_client`, the same `rate.lua` cell as ingest keys, `<prefix>:rl:{a<network>}`).
//! Over it, the answer is 429 with `Retry-After` and nothing is read: the REST API's `rate_limited`
//! error, a server function's `Denied` error that the page shows in words, a line of text for a
//! page. Checked in `http::observe_and_guard`, after the cross-site refusal. While Redis cannot be
//! read each process counts on its own (fail open, as for keys; idle cells are dropped past a
//! hundred thousand).
//!
//! Not counted: health, readiness and metrics (probes and scrapers), the site's embedded files (no
//! store work), and a caller whose admin token, ingest key or console session is live (keys have
//! limits of their own; admins are trusted). Credentials that are not live count as none. A request
//! without a peer address (an in-process call) is not counted.

use crate::state::AppState;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::ErrorCode;
use domain::apikey::KeyLimits;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};

/// Routes that cost no store work and must answer whatever a client did.
const FREE: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// Refuses the request when its client is over the allowance; None lets it through.
/// `client` is who sent it (`peer`; None for an in-process call).
pub async fn limit(
    state: &AppState,
    path: &str,
    headers: &HeaderMap,
    client: Option<IpAddr>,
) -> Option<Response> {
    let limits = state.web.public_limits?;
    let client = client?;
    if FREE.contains(&path) || crate::assets::exists(path) || holds_credentials(state, headers).await {
        return None;
    }
    let limited = state.engine.access().admit_client(client, limits).await.err()?;
    if headers.contains_key("x-forwarded-for") && state.web.trusted_proxies.is_empty() {
        warn_once_about_proxies();
    }
    Some(refusal(path, limited.retry_after_seconds))
}

/// A live admin token or ingest key (`Authorization: Bearer`), or a live console session.
async fn holds_credentials(state: &AppState, headers: &HeaderMap) -> bool {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    if let Some(secret) = bearer {
        return state.engine.access().knows_secret(secret).await.unwrap_or(false);
    }
    match app::api::session::session_token(headers) {
        Some(session) => {
            matches!(state.engine.access().session_actor(session, jiff::Timestamp::now()).await, Ok(Some(_)))
        }
        None => false,
    }
}

/// The refusal in the caller's terms: the REST API's JSON error, a server function's error (the
/// page shows its words), or a line of text for a page.
fn refusal(path: &str, seconds: u64) -> Response {
    let unit = if seconds == 1 { "second" } else { "seconds" };
    let detail = format!("too many requests from your network; nothing was done; retry in {seconds} {unit}");
    if path.starts_with("/api/v1/") {
        return crate::rest::ApiError::new(ErrorCode::RateLimited, detail)
            .retry_after(seconds)
            .into_response();
    }
    let mut response = if path.starts_with("/api/") {
        (StatusCode::TOO_MANY_REQUESTS, axum::Json(app::error::AppError::Denied(detail))).into_response()
    } else {
        (StatusCode::TOO_MANY_REQUESTS, format!("Laurel: {detail}.\n")).into_response()
    };
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// Every client behind an untrusted proxy shares the proxy's allowance: say so once per process.
fn warn_once_about_proxies() {
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "a client behind a proxy was rate limited by the proxy's address: set --trusted-proxies so that each client counts on its own"
        );
    }
}

/// `--public-rate-per-second` and `--public-burst` as limits; None when the rate is 0 (off).
pub fn limits(rate_per_second: u32, burst: u32) -> Option<KeyLimits> {
    (rate_per_second > 0).then_some(KeyLimits { rate_per_second, burst: burst.max(1) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Engine;
    use engine::access::ratelimit::{Cell, ClientNet};
    use engine::redis::keys::KeySpace;
    use engine::redis::{Projection, RedisTarget};
    use leptos::prelude::LeptosOptions;
    use std::net::SocketAddr;
    use std::time::Instant;

    /// One instance: its own ledger, the shared Redis under `prefix`, served on loopback with
    /// 127.0.0.1 trusted as a proxy (the test names each client in `X-Forwarded-For`).
    async fn instance(redis: &str, prefix: &str, n: usize, limits: KeyLimits) -> (SocketAddr, Engine) {
        let dir = std::env::temp_dir().join(format!("{prefix}-{n}"));
        let ledger =
            engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
        ledger.migrate().await.unwrap();
        let projection = Projection::new(RedisTarget::parse(redis).unwrap(), KeySpace::new(prefix));
        let engine = Engine::from_parts(ledger, projection);
        let web = crate::state::Web {
            trusted_proxies: crate::peer::TrustedProxies::parse("127.0.0.1").unwrap(),
            public_limits: Some(limits),
            ..Default::default()
        };
        let leptos_options = LeptosOptions::builder().output_name("laurel").build();
        let site = crate::http::app(AppState::with_web(leptos_options, engine.clone(), web));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(crate::listen::serve(listener, site, std::future::pending()));
        (addr, engine)
    }

    #[tokio::test]
    async fn each_client_network_has_one_allowance_across_instances_and_credentials_are_not_counted() {
        const BURST: u32 = 5;
        let limits = KeyLimits { rate_per_second: 1, burst: BURST };
        let client = reqwest::Client::new();
        for variable in ["LAUREL_TEST_REDIS_URL", "LAUREL_TEST_REDIS_CLUSTER_URL"] {
            let redis = std::env::var(variable).unwrap_or_else(|_| panic!("{variable}: run scripts/test"));
            let prefix = format!("laurel-anonymous-{}-{}", std::process::id(), variable.len());
            let (one, engine) = instance(&redis, &prefix, 1, limits).await;
            let (two, _) = instance(&redis, &prefix, 2, limits).await;
            let admin = engine.access().issue_admin_token().await.unwrap();
            let get = |addr: SocketAddr, path: &str, from: &str, bearer: Option<&str>| {
                let mut req = client.get(format!("http://{addr}{path}")).header("x-forwarded-for", from);
                if let Some(bearer) = bearer {
                    req = req.bearer_auth(bearer);
                }
                req.send()
            };

            // One client, alternating between the instances: one allowance, not one per instance.
            let started = Instant::now();
            let mut admitted = 0;
            let mut refusal = None;
            for i in 0..4 * BURST {
                let res =
                    get([one, two][i as usize % 2], "/api/v1/boards", "203.0.113.7", None).await.unwrap();
                match res.status() {
                    StatusCode::OK => admitted += 1,
                    StatusCode::TOO_MANY_REQUESTS => refusal = Some(res),
                    other => panic!("{other}"),
                }
            }
            // The burst, plus one a second for as long as the requests took.
            let bound = BURST + started.elapsed().as_secs() as u32 + 1;
            assert!(
                admitted >= BURST && admitted <= bound,
                "{variable}: {admitted} admitted, at most {bound}"
            );
            assert!(
                bound < 2 * BURST,
                "{variable}: the requests took too long to tell one allowance from two"
            );
            let refusal = refusal.expect("the client went over its allowance");
            // The allowance is one cell in Redis, with an expiry (it goes once the burst is back).
            let mut conn = engine.projection().conn().await.unwrap();
            let cell_key = |cell: &Cell| engine.projection().keys().rate(cell);
            let client_cell = Cell::Client(ClientNet::of("203.0.113.7".parse().unwrap()));
            let ttl: i64 =
                ::redis::cmd("PTTL").arg(cell_key(&client_cell)).query_async(&mut conn).await.unwrap();
            assert!(ttl > 0, "{variable}: {ttl}");
            let retry: u64 = refusal.headers()["retry-after"].to_str().unwrap().parse().unwrap();
            assert!(retry >= 1, "{retry}");
            let body: serde_json::Value = refusal.json().await.unwrap();
            assert_eq!(body["error"], "rate_limited", "{body}");
            assert!(
                body["detail"].as_str().unwrap().contains("too many requests from your network"),
                "{body}"
            );

            // Refused in the words of each kind of route; probes and files are free.
            let page = get(two, "/b/nothing", "203.0.113.7", None).await.unwrap();
            assert_eq!(page.status(), StatusCode::TOO_MANY_REQUESTS);
            assert!(page.headers().contains_key("retry-after"));
            assert!(page.text().await.unwrap().contains("retry in"));
            let server_fn = client
                .post(format!("http://{one}/api/login"))
                .header("x-forwarded-for", "203.0.113.7")
                .form(&[("username", "kay"), ("password", "whatever it is")])
                .send()
                .await
                .unwrap();
            assert_eq!(server_fn.status(), StatusCode::TOO_MANY_REQUESTS);
            let error: app::error::AppError = server_fn.json().await.unwrap();
            assert!(
                matches!(&error, app::error::AppError::Denied(words) if words.contains("retry in")),
                "{error:?}"
            );
            for free in ["/healthz", "/readyz", "/metrics"] {
                let res = get(one, free, "203.0.113.7", None).await.unwrap();
                assert_ne!(res.status(), StatusCode::TOO_MANY_REQUESTS, "{free}");
            }

            // A live admin token is not counted; a made-up one counts as none.
            let res = get(one, "/api/v1/boards", "203.0.113.7", Some(&admin)).await.unwrap();
            assert_eq!(res.status(), StatusCode::OK);
            let res = get(one, "/api/v1/boards", "203.0.113.7", Some("laurel_at_made_up")).await.unwrap();
            assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);

            // Another network has its own allowance; an IPv6 /64 is one network.
            let res = get(two, "/api/v1/boards", "203.0.113.8", None).await.unwrap();
            assert_eq!(res.status(), StatusCode::OK);
            for _ in 0..BURST {
                get(one, "/api/v1/boards", "2001:db8:7:7::1", None).await.unwrap();
            }
            let res = get(two, "/api/v1/boards", "2001:db8:7:7:abcd::2", None).await.unwrap();
            assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);

            // The cells expire by themselves; this test's are removed now (its prefix only).
            for address in ["203.0.113.7", "203.0.113.8", "2001:db8:7:7::1"] {
                let cell = Cell::Client(ClientNet::of(address.parse().unwrap()));
                ::redis::cmd("UNLINK").arg(cell_key(&cell)).exec_async(&mut conn).await.unwrap();
            }
            for n in [1, 2] {
                std::fs::remove_dir_all(std::env::temp_dir().join(format!("{prefix}-{n}"))).ok();
            }
        }
    }
}
