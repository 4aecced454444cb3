//! The write path on real stores: exactly-once under concurrency and duplicates, the three
//! operators, late writes, bounds, and a projection that levels itself after Redis trouble.
//! Every test runs on Redis standalone and Cluster, and on SQLite and PostgreSQL.
//!
//! 32 concurrent clients send 20 000 writes with 30 % duplicates (ledger and projection equal the
//! unique sum); `set` versions arrive shuffled; `best`; late writes; bounds; the wrong operator;
//! the script cache flushed mid-run; keys lost, then levelled; a test-owned Redis killed
//! mid-stream and restarted empty (standalone, and a 3-master Cluster of its own), levelled
//! unattended by the running reconciler.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets, unique};
use domain::board::Prize;
use domain::write::{Change, Outcome, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::Engine;
use std::collections::HashMap;

fn board(operator: Operator, policy: TiePolicy) -> Board {
    Board {
        slug: BoardSlug::parse(unique("b").replace('_', "-").to_lowercase()).unwrap(),
        title: "test".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("Asia/Shanghai").unwrap(),
        operator,
        codec: ScoreCodec::new(
            policy,
            -1_000_000,
            1_000_000,
            if policy == TiePolicy::Shared { 1 } else { 1_000_000 },
        )
        .unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: Vec::<Prize>::new(),
        unit: domain::Unit::Points,
    }
}

fn point(event: &str, member: &str, delta: i64) -> Write {
    Write {
        member: MemberId::parse(member).unwrap(),
        change: Change::Point { event_id: EventId::parse(event).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: Default::default(),
    }
}

/// Every combination of Redis deployment and ledger backend.
async fn each_store(test: impl AsyncFn(&str, &Engine)) {
    for (redis_name, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            test(&format!("{redis_name}/{}", t.name), &e).await;
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

/// The projection's points for every member of the board's current period.
async fn projected_points(e: &Engine, b: &Board) -> HashMap<String, i64> {
    let mut points = HashMap::new();
    loop {
        let page = e
            .reads()
            .ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), points.len() as u64, 200)
            .await
            .unwrap();
        points.extend(page.entries.into_iter().map(|en| (en.member.to_string(), en.points)));
        if !page.has_more {
            return points;
        }
    }
}

async fn ledger_points(e: &Engine, b: &Board) -> HashMap<String, i64> {
    let period = b.period_at(jiff::Timestamp::now());
    e.ledger()
        .totals(&b.slug, &period)
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.member.to_string(), t.points))
        .collect()
}

#[tokio::test]
async fn concurrent_clients_with_duplicates_count_each_event_once() {
    each_store(async |ctx, e| {
        let b = board(Operator::Incr, TiePolicy::FirstReached);
        e.boards().create_board(&b).await.unwrap();
        // 20 000 sends: 14 000 unique events over 200 members and 6 000 repeats (30%), shuffled
        // over 32 concurrent clients.
        let unique_events: Vec<Write> = (0..14_000)
            .map(|i| point(&format!("e{i}"), &format!("m{}", i % 200), (i % 7) as i64 - 2))
            .collect();
        let mut expected: HashMap<String, i64> = HashMap::new();
        for w in &unique_events {
            if let Change::Point { delta, .. } = w.change {
                *expected.entry(w.member.to_string()).or_default() += delta;
            }
        }
        let mut all = unique_events.clone();
        all.extend(unique_events.iter().step_by(2).take(6_000).cloned());
        // A deterministic shuffle (no rand dependency): a stride permutation.
        let n = all.len();
        let all: Vec<Write> = (0..n).map(|i| all[(i * 7919) % n].clone()).collect();
        let mut clients = Vec::new();
        for c in 0..32 {
            let (e, b) = (e.clone(), b.clone());
            let mine: Vec<Write> = all.iter().skip(c).step_by(32).cloned().collect();
            clients.push(tokio::spawn(async move {
                let mut counts: HashMap<Outcome, usize> = HashMap::new();
                for chunk in mine.chunks(25) {
                    for r in e.writes().record(&b, chunk).await.unwrap() {
                        *counts.entry(r.recorded.outcome).or_default() += 1;
                        assert!(r.recorded.total.is_none() || r.projected);
                    }
                }
                counts
            }));
        }
        let mut counts: HashMap<Outcome, usize> = HashMap::new();
        for c in clients {
            for (k, v) in c.await.unwrap() {
                *counts.entry(k).or_default() += v;
            }
        }
        assert_eq!(counts.get(&Outcome::Applied), Some(&14_000), "{ctx}: {counts:?}");
        assert_eq!(counts.get(&Outcome::Duplicate), Some(&6_000), "{ctx}: {counts:?}");
        assert_eq!(ledger_points(e, &b).await, expected, "{ctx}: ledger");
        assert_eq!(projected_points(e, &b).await, expected, "{ctx}: projection");
    })
    .await;
}

#[tokio::test]
async fn set_versions_delivered_shuffled_and_repeated_end_at_the_last_version() {
    each_store(async |ctx, e| {
        let b = board(Operator::Set, TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let set = |version: i64| Write {
            member: MemberId::parse("u1").unwrap(),
            change: Change::Total { version, total: version * 10 },
            occurred_at: jiff::Timestamp::now(),
            metadata: None,
            segments: Default::default(),
        };
        let mut order: Vec<i64> = (1..=50).map(|i| (i * 17) % 50 + 1).collect();
        order.extend([50, 3, 50, 1]);
        let mut outcomes = HashMap::new();
        for v in order {
            let r = e.writes().record(&b, &[set(v)]).await.unwrap().remove(0);
            *outcomes.entry(r.recorded.outcome).or_insert(0) += 1;
        }
        assert!(outcomes[&Outcome::Stale] > 0, "{ctx}");
        assert_eq!(ledger_points(e, &b).await["u1"], 500, "{ctx}");
        assert_eq!(projected_points(e, &b).await["u1"], 500, "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn best_keeps_the_highest_submission_and_recognises_repeats() {
    each_store(async |ctx, e| {
        let b = board(Operator::Best, TiePolicy::FirstReached);
        e.boards().create_board(&b).await.unwrap();
        let sub = |id: &str, score| Write {
            member: MemberId::parse("u1").unwrap(),
            change: Change::Submission { submission_id: EventId::parse(id).unwrap(), score },
            occurred_at: jiff::Timestamp::now(),
            metadata: None,
            segments: Default::default(),
        };
        let outcomes: Vec<Outcome> = e
            .writes()
            .record(&b, &[sub("s1", 70), sub("s2", 90), sub("s3", 80), sub("s2", 95), sub("s4", 90)])
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.recorded.outcome)
            .collect();
        use Outcome::*;
        assert_eq!(outcomes, vec![Improved, Improved, NotHigher, Duplicate, NotHigher], "{ctx}");
        assert_eq!(projected_points(e, &b).await["u1"], 90, "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn writes_for_a_closed_period_are_kept_as_late_and_not_applied() {
    each_store(async |ctx, e| {
        let b = board(Operator::Incr, TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let mut old = point("old-1", "u1", 5);
        old.occurred_at = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * 8);
        let r = e.writes().record(&b, &[old.clone()]).await.unwrap().remove(0);
        assert_eq!(r.recorded.outcome, Outcome::Late, "{ctx}");
        assert!(r.recorded.reason.is_some());
        // A retry answers the same, and nothing was applied to any period.
        assert_eq!(e.writes().record(&b, &[old]).await.unwrap()[0].recorded.outcome, Outcome::Late, "{ctx}");
        let last_week = b.period_at(jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * 8));
        assert!(e.ledger().totals(&b.slug, &last_week).await.unwrap().is_empty(), "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn out_of_bounds_writes_are_rejected_and_change_nothing() {
    each_store(async |ctx, e| {
        let b = board(Operator::Incr, TiePolicy::FirstReached);
        e.boards().create_board(&b).await.unwrap();
        let results =
            e.writes().record(&b, &[point("a", "u1", 10), point("b", "u1", 2_000_000)]).await.unwrap();
        assert_eq!(results[1].recorded.outcome, Outcome::Rejected, "{ctx}");
        assert!(results[1].recorded.reason.as_deref().unwrap().contains("outside the board's bounds"));
        // The rejected event id is free: it was never stored.
        assert_eq!(
            e.writes().record(&b, &[point("b", "u1", 1)]).await.unwrap()[0].recorded.outcome,
            Outcome::Applied
        );
        assert_eq!(ledger_points(e, &b).await["u1"], 11, "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn a_write_on_another_operators_board_is_refused() {
    each_store(async |ctx, e| {
        let b = board(Operator::Set, TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let err = e.writes().record(&b, &[point("a", "u1", 1)]).await.unwrap_err();
        assert!(matches!(err, engine::EngineError::WrongOperator { .. }), "{ctx}: {err}");
    })
    .await;
}

#[tokio::test]
async fn projection_survives_a_script_cache_flush() {
    for (name, target) in redis_targets() {
        let t = TestLedger::sqlite().await;
        let p = TestProjection::new(target.clone());
        let e = engine(&t, &p).await;
        let b = board(Operator::Incr, TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        assert!(e.writes().record(&b, &[point("a", "u1", 1)]).await.unwrap()[0].projected);
        p.flush_scripts().await;
        let r = e.writes().record(&b, &[point("b", "u1", 1)]).await.unwrap().remove(0);
        assert!(r.projected, "{name}: EVALSHA must fall back to loading the script");
        assert_eq!(projected_points(&e, &b).await["u1"], 2, "{name}");
        p.cleanup().await;
        t.drop_db().await;
    }
}

#[tokio::test]
async fn the_reconciler_levels_a_projection_that_lost_its_keys() {
    each_store(async |ctx, e| {
        let b = board(Operator::Incr, TiePolicy::FirstReached);
        e.boards().create_board(&b).await.unwrap();
        let writes: Vec<Write> =
            (0..30).map(|i| point(&format!("e{i}"), &format!("m{}", i % 7), 3)).collect();
        e.writes().record(&b, &writes).await.unwrap();
        let before = projected_points(e, &b).await;
        // Redis loses the period (as after a restart without persistence).
        let period = b.period_at(jiff::Timestamp::now());
        let keys = e.projection().keys().period(&b.slug, &period);
        let mut conn = e.projection().conn().await.unwrap();
        for key in keys.all() {
            redis::cmd("UNLINK").arg(key).exec_async(&mut conn).await.unwrap();
        }
        assert!(projected_points(e, &b).await.is_empty());
        let report = e.jobs().reconcile_once().await.unwrap();
        assert_eq!(report.periods_levelled, 1, "{ctx}: {report:?}");
        assert_eq!(report.members_levelled, 7, "{ctx}");
        assert_eq!(projected_points(e, &b).await, before, "{ctx}");
        // Level again: nothing to do.
        assert_eq!(e.jobs().reconcile_once().await.unwrap().periods_levelled, 0, "{ctx}");
        // An explicit rebuild gives the same ranking.
        let rebuilt = e
            .jobs()
            .rebuild(&e.reads().scope(&b.slug, Some("current")).await.unwrap(), "test")
            .await
            .unwrap();
        assert_eq!(rebuilt.members, 7);
        assert_eq!(projected_points(e, &b).await, before, "{ctx}");
        assert_eq!(e.jobs().reconcile_once().await.unwrap().periods_levelled, 0, "{ctx}: rebuild keeps vsum");
        // Streamed from the ledger in pages (of 2 and of 7, the last page full), the same again.
        for page in [2, 7] {
            let rebuilt = e
                .jobs()
                .rebuild_in_pages(&e.reads().scope(&b.slug, Some("current")).await.unwrap(), "test", page)
                .await
                .unwrap();
            assert_eq!(rebuilt.members, 7, "{ctx}");
            assert_eq!(projected_points(e, &b).await, before, "{ctx}");
            assert_eq!(e.jobs().reconcile_once().await.unwrap().periods_levelled, 0, "{ctx}");
        }
    })
    .await;
}

#[tokio::test]
async fn redis_stopped_mid_stream_and_restarted_empty_loses_no_accepted_write() {
    for t in TestLedger::both().await {
        for mut redis in [common::OwnRedis::standalone(), common::OwnRedis::cluster()] {
            let projection = engine::redis::Projection::new(
                engine::redis::RedisTarget::parse(&redis.url()).unwrap(),
                engine::redis::keys::KeySpace::new(unique("own")),
            );
            t.ledger.migrate().await.unwrap();
            let e = Engine::from_parts(t.ledger.clone(), projection);
            let b = board(Operator::Incr, TiePolicy::FirstReached);
            e.boards().create_board(&b).await.unwrap();
            let reconciler = e.jobs().spawn_reconciler(std::time::Duration::from_millis(200));
            let mut expected: HashMap<String, i64> = HashMap::new();
            let mut unprojected = 0;
            for i in 0..300 {
                match i {
                    100 => redis.stop(),
                    200 => redis.restart(),
                    _ => {}
                }
                let w = point(&format!("e{i}"), &format!("m{}", i % 13), 1 + i % 5);
                let r = e.writes().record(&b, std::slice::from_ref(&w)).await.unwrap().remove(0);
                assert_eq!(r.recorded.outcome, Outcome::Applied, "{}: every write is accepted", t.name);
                if i < 100 {
                    assert!(r.projected, "{}: projected while Redis is up", t.name);
                }
                unprojected += usize::from(!r.projected);
                *expected.entry(w.member.to_string()).or_default() += 1 + i % 5;
            }
            assert!(
                unprojected >= 100,
                "{}: writes while Redis was down are not projected ({unprojected})",
                t.name
            );
            assert_eq!(ledger_points(&e, &b).await, expected, "{}: the ledger has every write", t.name);
            // Unattended: the running reconciler brings the empty Redis level.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            loop {
                if let Ok(page) =
                    e.reads().ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), 0, 200).await
                {
                    let got: HashMap<String, i64> =
                        page.entries.into_iter().map(|en| (en.member.to_string(), en.points)).collect();
                    if got == expected {
                        break;
                    }
                }
                assert!(std::time::Instant::now() < deadline, "{}: projection not level after 20 s", t.name);
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            reconciler.abort();
            drop(redis);
        }
        t.drop_db().await;
    }
}

#[tokio::test]
async fn a_caller_that_hangs_up_mid_write_leaves_the_ledger_whole_and_usable() {
    each_store(async |ctx, e| {
        let b = board(Operator::Incr, TiePolicy::FirstReached);
        e.boards().create_board(&b).await.unwrap();
        for round in 0..10 {
            let batch: Vec<Write> =
                (0..50).map(|i| point(&format!("r{round}-{i}"), &format!("m{}", i % 5), 1)).collect();
            // The caller gives up almost at once, as a client that disconnects would.
            let _ =
                tokio::time::timeout(std::time::Duration::from_micros(300), e.writes().record(&b, &batch))
                    .await;
        }
        // Later writes go through (no connection was left inside a transaction)…
        let r = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            e.writes().record(&b, &[point("after", "m0", 1)]),
        )
        .await
        .expect("a later write must not hang")
        .unwrap();
        assert_eq!(r[0].recorded.outcome, Outcome::Applied, "{ctx}");
        // …and, once the abandoned writes (which run to completion on their own) have finished,
        // every total equals the sum of its entries: each batch counted whole or not at all.
        let u = |m: &str| MemberId::parse(m).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let mut consistent = true;
            for (member, points) in ledger_points(e, &b).await {
                let entries = e
                    .reads()
                    .member_entries(&e.reads().scope(&b.slug, None).await.unwrap(), &u(&member), None, 200)
                    .await
                    .unwrap();
                let sum: i64 = entries.iter().filter_map(|en| en.delta).sum();
                consistent &= points == sum && entries.len() % 10 == usize::from(member == "m0");
            }
            if consistent {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{ctx}: totals and entries disagree");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    })
    .await;
}
