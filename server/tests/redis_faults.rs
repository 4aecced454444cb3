//! Redis behind the fault-injecting proxy (`support/proxy.rs`): slowed, silent with its connections
//! open, then cut. Writes keep being answered — recorded in the ledger, `projected: false` while
//! Redis does not answer, each within 4 s (the projection's 2 s response timeout), never hanging —
//! public reads fall back to the ledger, and once Redis answers again the reconciler levels the
//! projection with nothing lost. Runs on the test Redis (`LAUREL_TEST_REDIS_URL`) under a key
//! prefix of its own and a SQLite ledger of its own.

#[path = "support/proxy.rs"]
mod proxy;

use domain::view::ReadSource;
use domain::write::{Change, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::Engine;
use engine::ledger::Ledger;
use engine::redis::keys::KeySpace;
use engine::redis::{Projection, RedisTarget};
use proxy::FaultProxy;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Longest a write may take whatever Redis does: the projection's response timeout (2 s) and
/// some slack for the ledger.
const ANSWERED_WITHIN: Duration = Duration::from_secs(4);

fn unique(kind: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{kind}_{}_{nanos}", std::process::id())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_are_answered_and_nothing_is_lost_while_redis_is_slow_silent_or_cut() {
    let redis_url = std::env::var("LAUREL_TEST_REDIS_URL").expect("LAUREL_TEST_REDIS_URL (scripts/test)");
    let upstream = {
        let url = reqwest::Url::parse(&redis_url).unwrap();
        let host = url.host_str().unwrap().to_owned();
        tokio::net::lookup_host((host, url.port().unwrap_or(6379))).await.unwrap().next().unwrap()
    };
    let proxy = FaultProxy::start(upstream).await;
    let dir = std::env::temp_dir().join(unique("laurel-redis-faults"));
    let ledger = Ledger::connect(&format!("sqlite://{}/ledger.db", dir.display())).await.unwrap();
    ledger.migrate().await.unwrap();
    let prefix = unique("faults");
    let target = RedisTarget::parse(&format!("redis://{}", proxy.addr)).unwrap();
    let e = Engine::from_parts(ledger, Projection::new(target, KeySpace::new(prefix.clone())));
    let board = Board {
        slug: BoardSlug::parse(unique("faults").replace('_', "-")).unwrap(),
        title: "faults".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, 0, 1_000_000, 1).unwrap(),
        freeze_grace_seconds: 3600,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![],
        unit: domain::Unit::Points,
    };
    e.boards().create_board(&board).await.unwrap();
    let period = board.period_at(jiff::Timestamp::now()).to_string();

    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    let mut sent = 0;
    // Sends `n` point events one by one; each must be applied within ANSWERED_WITHIN. Answers
    // how many were projected.
    let mut send = async |n: usize, phase: &str| {
        let mut projected = 0;
        for _ in 0..n {
            sent += 1;
            let member = format!("m{}", sent % 7);
            let write = Write {
                member: MemberId::parse(&member).unwrap(),
                change: Change::Point { event_id: EventId::parse(format!("e{sent}")).unwrap(), delta: 3 },
                occurred_at: jiff::Timestamp::now(),
                metadata: None,
                segments: Default::default(),
            };
            let started = Instant::now();
            let answer = e.writes().record(&board, &[write]).await.unwrap();
            let took = started.elapsed();
            assert!(took < ANSWERED_WITHIN, "{phase}: a write took {took:?}");
            assert_eq!(answer[0].recorded.outcome, domain::write::Outcome::Applied, "{phase}");
            *expected.entry(member).or_default() += 3;
            projected += usize::from(answer[0].projected);
        }
        projected
    };

    assert_eq!(send(10, "healthy").await, 10, "every write is projected while Redis answers");
    proxy.set_latency(Duration::from_millis(100));
    assert_eq!(send(5, "slowed").await, 5, "a slow Redis still takes every projection");
    proxy.set_latency(Duration::ZERO);

    proxy.set_stalled(true);
    let projected = send(5, "silent").await;
    assert!(projected < 5, "a silent Redis cannot have taken every projection");
    let page = e
        .reads()
        .ranking_page(&e.reads().scope(&board.slug, Some(&period)).await.unwrap(), 0, 10)
        .await
        .unwrap();
    assert_eq!(page.source, ReadSource::Ledger, "a public read falls back to the ledger");
    proxy.set_stalled(false);

    proxy.set_cut(true);
    assert_eq!(send(5, "cut").await, 0, "nothing is projected while every connection is cut");
    proxy.set_cut(false);

    // Redis answers again: the reconciler levels what it missed.
    let by = Instant::now() + Duration::from_secs(20);
    loop {
        if e.jobs().reconcile_once().await.is_ok_and(|r| r.periods_failed == 0) {
            match e
                .reads()
                .ranking_page(&e.reads().scope(&board.slug, Some(&period)).await.unwrap(), 0, 10)
                .await
            {
                Ok(page) if page.source == ReadSource::Redis => {
                    let got: BTreeMap<String, i64> =
                        page.entries.iter().map(|x| (x.member.as_str().to_owned(), x.points)).collect();
                    if got == expected {
                        break;
                    }
                }
                _ => {}
            }
        }
        assert!(Instant::now() < by, "the projection was not levelled within 20 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Clean up this test's keys (and nothing else) and its ledger.
    let mut conn =
        redis::Client::open(redis_url.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> =
        redis::cmd("KEYS").arg(KeySpace::new(prefix).pattern()).query_async(&mut conn).await.unwrap();
    if !keys.is_empty() {
        redis::cmd("UNLINK").arg(&keys).exec_async(&mut conn).await.unwrap();
    }
    std::fs::remove_dir_all(dir).unwrap();
}
