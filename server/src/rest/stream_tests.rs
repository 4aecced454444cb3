//! The live stream over real sockets and real stores (SQLite, the test Redis and Cluster):
//! headers (no compression), first events, a write's and a freeze's events, bad input, shutdown,
//! and a write on one server reaching a stream of another within a second, on one Redis and on
//! the Cluster; a segment's stream (`?segment=`): 422 for an undeclared dimension, the segment's
//! top, its end at a public freeze and 409 after.

use crate::state::AppState;
use axum::http::StatusCode;
use domain::{Board, MemberId, PeriodKey};
use engine::Engine;
use engine::redis::keys::KeySpace;
use engine::redis::{Projection, RedisTarget};
use leptos::prelude::LeptosOptions;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name}: run the tests with scripts/test"))
}

fn unique(kind: &str) -> String {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{kind}-{}-{n}", std::process::id())
}

/// A `laurel serve` of `engine` on a loopback port.
struct Server {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

async fn serve(engine: &Engine) -> Server {
    let options = LeptosOptions::builder().output_name("laurel").build();
    let site = crate::http::app(AppState::new(options, engine.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        crate::listen::serve(listener, site, std::future::pending()).await;
    });
    Server { addr, task }
}

/// A ledger in a temporary SQLite file and a board with points in its current period.
async fn stores(redis: &RedisTarget, prefix: &str) -> (Engine, Board, PeriodKey, std::path::PathBuf) {
    stores_with(redis, prefix, None).await
}

/// [`stores`] with the board's segment dimensions.
async fn stores_with(
    redis: &RedisTarget,
    prefix: &str,
    segments: Option<Vec<String>>,
) -> (Engine, Board, PeriodKey, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(unique("laurel-stream"));
    let ledger = engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
    ledger.migrate().await.unwrap();
    let engine = Engine::from_parts(ledger, Projection::new(redis.clone(), KeySpace::new(prefix)));
    let draft = domain::board::BoardDraft {
        slug: "live".into(),
        title: "Live".into(),
        cadence: "weekly".into(),
        time_zone: "UTC".into(),
        operator: "incr".into(),
        tie_policy: "shared".into(),
        max_points: 100_000,
        segments,
        ..Default::default()
    };
    let board = draft.parse().unwrap();
    engine.boards().create_board(&board).await.unwrap();
    let period = board.period_at(jiff::Timestamp::now());
    (engine, board, period, dir)
}

/// Removes the period's keys (this test's prefix only).
async fn cleanup(engine: &Engine, board: &Board, period: &PeriodKey, dir: std::path::PathBuf) {
    let mut conn = engine.projection().conn().await.unwrap();
    for key in engine.projection().keys().period(&board.slug, period).all() {
        redis::cmd("UNLINK").arg(key).exec_async(&mut conn).await.unwrap();
    }
    engine.close().await;
    std::fs::remove_dir_all(dir).unwrap();
}

/// One event of a stream: (id, event, data).
type Event = (u64, String, Value);

/// An open stream, read event by event.
struct Stream {
    response: reqwest::Response,
    buffer: String,
}

impl Stream {
    async fn open(url: &str) -> Self {
        // Compression is asked for, and must not be used on a stream.
        let response =
            reqwest::Client::new().get(url).header("accept-encoding", "gzip, br").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        let header = |name: &str| response.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(header("content-type").as_deref(), Some("text/event-stream"));
        assert_eq!(header("content-encoding"), None, "a stream is never compressed");
        assert_eq!(header("cache-control").as_deref(), Some("no-cache"));
        assert_eq!(header("x-accel-buffering").as_deref(), Some("no"));
        assert_eq!(header("content-length"), None);
        Self { response, buffer: String::new() }
    }

    /// The next event within `wait` (comments skipped); None when the stream ended or is quiet.
    async fn next(&mut self, wait: Duration) -> Option<Event> {
        let started = Instant::now();
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    frame.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim_start().to_owned()))
                };
                if let (Some(id), Some(event), Some(data)) = (field("id:"), field("event:"), field("data:")) {
                    return Some((id.parse().unwrap(), event, serde_json::from_str(&data).unwrap()));
                }
                assert!(frame.starts_with(':'), "neither an event nor a comment: {frame:?}");
            }
            let left = wait.checked_sub(started.elapsed())?;
            match tokio::time::timeout(left, self.response.chunk()).await {
                Ok(Ok(Some(bytes))) => self.buffer.push_str(std::str::from_utf8(&bytes).unwrap()),
                _ => return None,
            }
        }
    }

    /// Waits for a `ranking` whose first entry is `member` with `points`.
    async fn ranking_led_by(&mut self, member: &str, points: i64, within: Duration) -> Duration {
        let started = Instant::now();
        loop {
            let left = within.checked_sub(started.elapsed()).unwrap_or_default();
            let (_, event, data) =
                self.next(left).await.unwrap_or_else(|| panic!("no ranking led by {member}"));
            let first = &data["entries"][0];
            if event == "ranking" && first["member"] == member && first["points"] == points {
                return started.elapsed();
            }
        }
    }
}

async fn post(addr: SocketAddr, path: &str, token: &str, body: Value) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .post(format!("http://{addr}{path}"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status(), response.json().await.unwrap_or(Value::Null))
}

async fn get(addr: SocketAddr, path: &str) -> (StatusCode, Value) {
    let response = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    (response.status(), response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_stream_starts_with_the_state_and_ranking_then_follows_writes_and_transitions() {
    let redis = RedisTarget::parse(&env("LAUREL_TEST_REDIS_URL")).unwrap();
    let (engine, board, period, dir) = stores(&redis, &unique("stream")).await;
    let write = |id: &str, member: &str, delta| domain::write::Write {
        member: MemberId::parse(member).unwrap(),
        change: domain::write::Change::Point { event_id: domain::EventId::parse(id).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: Default::default(),
    };
    engine.writes().record(&board, &[write("a", "ann", 30), write("b", "bob", 20)]).await.unwrap();
    let token = engine.access().issue_admin_token().await.unwrap();
    let server = serve(&engine).await;
    let base = format!("/api/v1/boards/live/periods/{period}");

    // Bad input: the API's error shape, before any stream starts.
    for (query, status, error) in [
        ("/stream?limit=0", StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        ("/stream?limit=201", StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        ("/stream?limit=ten", StatusCode::BAD_REQUEST, "invalid_query"),
    ] {
        let (got, body) = get(server.addr, &format!("{base}{query}")).await;
        assert_eq!((got, body["error"].as_str()), (status, Some(error)), "{query}: {body}");
        assert!(body["detail"].is_string(), "{query}: {body}");
    }
    for path in ["/api/v1/boards/nope/periods/current/stream", "/api/v1/boards/live/periods/2026-W99/stream"]
    {
        let (got, body) = get(server.addr, path).await;
        assert_eq!((got, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{path}");
    }
    // (The body is not read: it never ends.)
    let url = format!("http://{}/api/v1/boards/live/periods/current/stream?limit=3&x=1", server.addr);
    let got = reqwest::get(url).await.unwrap().status();
    assert_eq!(got, StatusCode::OK, "an unknown query parameter is ignored, as on the other reads");

    let mut stream = Stream::open(&format!("http://{}{base}/stream?limit=5", server.addr)).await;
    let (id1, event, data) = stream.next(Duration::from_secs(1)).await.unwrap();
    assert_eq!(
        (event.as_str(), &data),
        ("state", &json!({"board": "live", "period": period, "state": "open"}))
    );
    let (id2, event, data) = stream.next(Duration::from_secs(1)).await.unwrap();
    assert_eq!(event, "ranking");
    assert!(id2 > id1);
    let (_, top) = get(server.addr, &format!("{base}/top?limit=5")).await;
    assert_eq!(data["entries"], top["entries"], "what the top read answers");
    assert_eq!((data["limit"].as_u64(), data["source"].as_str()), (Some(5), Some("redis")));

    // A write over the API: its ranking within a second, ids still increasing.
    let (status, out) = post(
        server.addr,
        "/api/v1/boards/live/events",
        &token,
        json!({"event_id": "c", "member": "cy", "delta": 99}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{out}");
    let took = stream.ranking_led_by("cy", 99, Duration::from_secs(1)).await;
    assert!(took < Duration::from_secs(1), "{took:?}");

    // A freeze: a state event.
    let (status, out) = post(server.addr, &format!("{base}/freeze"), &token, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    let (id3, event, data) = stream.next(Duration::from_secs(1)).await.expect("a state event");
    assert_eq!((event.as_str(), data["state"].as_str()), ("state", Some("frozen")));
    assert!(id3 > id2);

    // Shutdown ends the streams (so a graceful shutdown can finish).
    engine.live().close();
    assert!(stream.next(Duration::from_secs(2)).await.is_none(), "the stream ended");
    let end = tokio::time::timeout(Duration::from_secs(2), stream.response.chunk()).await;
    assert!(end.expect("ended in time").unwrap().is_none());
    server.task.abort();
    cleanup(&engine, &board, &period, dir).await;
}

#[tokio::test]
async fn a_write_on_one_server_reaches_a_stream_of_another_within_a_second() {
    for redis in [env("LAUREL_TEST_REDIS_URL"), env("LAUREL_TEST_REDIS_CLUSTER_URL")] {
        let redis = RedisTarget::parse(&redis).unwrap();
        let prefix = unique("stream2");
        let (a, board, period, dir) = stores(&redis, &prefix).await;
        // Server B: the same ledger and key prefix, its own Redis connections and streams.
        let b =
            Engine::from_parts(a.ledger().clone(), Projection::new(redis.clone(), KeySpace::new(&prefix)));
        let (server_a, server_b) = (serve(&a).await, serve(&b).await);
        let token = a.access().issue_admin_token().await.unwrap();
        let url = format!("http://{}/api/v1/boards/live/periods/{period}/stream", server_b.addr);
        let mut streams = Vec::new();
        for _ in 0..3 {
            let mut stream = Stream::open(&url).await;
            assert_eq!(stream.next(Duration::from_secs(1)).await.unwrap().1, "state");
            assert_eq!(stream.next(Duration::from_secs(1)).await.unwrap().1, "ranking");
            streams.push(stream);
        }
        for i in 1..=3 {
            // Each write after B's feed has settled, as a write would come at any moment.
            tokio::time::sleep(Duration::from_millis(400)).await;
            let stats = b.live().stats();
            assert_eq!((stats.feeds, stats.subscribers, stats.subscribed), (1, 3, 1), "{redis:?}: {stats:?}");
            let started = Instant::now();
            let event = json!({"event_id": format!("e{i}"), "member": "ann", "delta": 10});
            let (status, out) = post(server_a.addr, "/api/v1/boards/live/events", &token, event).await;
            assert_eq!(status, StatusCode::OK, "{out}");
            for stream in &mut streams {
                stream.ranking_led_by("ann", 10 * i, Duration::from_secs(1)).await;
            }
            let took = started.elapsed();
            assert!(took < Duration::from_secs(1), "{redis:?}: {took:?}");
            eprintln!("{redis:?}: a write answered by A reached 3 streams of B in {took:?}");
        }
        assert_eq!(a.live().stats().feeds, 0, "A has no stream");
        drop(streams);
        server_a.task.abort();
        server_b.task.abort();
        cleanup(&a, &board, &period, dir).await;
    }
}

#[test]
fn live_streams_are_capped_per_client_address_and_in_all() {
    use crate::rest::slots::{STREAMS_PER_CLIENT, StreamSlots};
    let slots = StreamSlots::default();
    let (a, b) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
    let mut held: Vec<_> = (0..STREAMS_PER_CLIENT).map(|_| slots.take(Some(a)).unwrap()).collect();
    let refused = slots.take(Some(a)).err().expect("one stream too many");
    assert_eq!(
        (refused.status().as_u16(), refused.code.as_str(), refused.retry_after),
        (429, "too_many_streams", Some(30))
    );
    // Another address has its own share; a stream that ends gives its place back.
    let other = slots.take(Some(b)).unwrap();
    held.pop();
    let again = slots.take(Some(a)).unwrap();
    drop((held, other, again));
    assert!(slots.take(Some(a)).is_ok());
}

#[tokio::test]
async fn a_segment_stream_shows_the_segment_and_ends_at_a_public_freeze() {
    let redis = RedisTarget::parse(&env("LAUREL_TEST_REDIS_URL")).unwrap();
    let (engine, board, period, dir) =
        stores_with(&redis, &unique("stream-seg"), Some(vec!["province".into()])).await;
    let write = |id: &str, member: &str, delta, province: &str| domain::write::Write {
        member: MemberId::parse(member).unwrap(),
        change: domain::write::Change::Point { event_id: domain::EventId::parse(id).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: [("province".to_string(), province.to_string())].into_iter().collect(),
    };
    engine
        .writes()
        .record(&board, &[write("a", "ann", 30, "zj"), write("b", "bob", 50, "js")])
        .await
        .unwrap();
    let server = serve(&engine).await;
    let base = format!("/api/v1/boards/live/periods/{period}");

    // An undeclared dimension: 422 before any stream.
    let (got, body) = get(server.addr, &format!("{base}/stream?segment=city:hz")).await;
    assert_eq!((got, body["error"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid")), "{body}");

    // A declared one: an event stream of the segment's top only, as the segment's top read.
    let mut stream =
        Stream::open(&format!("http://{}{base}/stream?segment=province:zj&limit=5", server.addr)).await;
    let (_, event, _) = stream.next(Duration::from_secs(1)).await.unwrap();
    assert_eq!(event, "state");
    let (_, event, data) = stream.next(Duration::from_secs(1)).await.unwrap();
    assert_eq!(event, "ranking");
    assert_eq!(data["entries"].as_array().unwrap().len(), 1, "{data}");
    assert_eq!(
        (data["entries"][0]["member"].as_str(), data["entries"][0]["rank"].as_u64()),
        (Some("ann"), Some(1))
    );
    let (_, top) = get(server.addr, &format!("{base}/top?segment=province:zj&limit=5")).await;
    assert_eq!(data["entries"], top["entries"], "what the segment's top read answers");

    // A public freeze ends it; a new one is refused until the reveal.
    let scope = engine.reads().scope(&board.slug, Some(&period.to_string())).await.unwrap();
    engine.lifecycle().public_freeze(&scope, "admin:test", None).await.unwrap();
    engine.writes().record(&board, &[write("c", "ann", 100, "zj")]).await.unwrap();
    while let Some((_, event, data)) = stream.next(Duration::from_secs(2)).await {
        assert_eq!(event, "state", "no ranking after the freeze: {data}");
    }
    let end = tokio::time::timeout(Duration::from_secs(1), stream.response.chunk()).await;
    assert!(end.expect("the stream ended").unwrap().is_none());
    let (got, body) = get(server.addr, &format!("{base}/stream?segment=province:zj")).await;
    assert_eq!((got, body["error"].as_str()), (StatusCode::CONFLICT, Some("segment_frozen")), "{body}");
    server.task.abort();
    let mut conn = engine.projection().conn().await.unwrap();
    for value in ["zj", "js"] {
        let segment = domain::segment::Segment { dimension: "province".into(), value: value.into() };
        for key in engine.projection().keys().segment(&board.slug, &period, &segment).all() {
            redis::cmd("UNLINK").arg(key).exec_async(&mut conn).await.unwrap();
        }
    }
    cleanup(&engine, &board, &period, dir).await;
}
