//! While Redis cannot be read, every live read of a board answers from the ledger's totals with
//! the ranks the projection gave a moment before, marked `source: ledger`; when Redis is back
//! (empty), the reconciler levels it and reads say `source: redis` again. A test-owned Redis,
//! standalone and a 3-master Cluster, on SQLite and PostgreSQL.
//!
//! The reads are compared under both tie policies, with ties and a hidden member; a write made
//! while Redis is stopped is read back; after the restart reads say `redis` again within 5 s.

mod common;

use common::{point, prized_board};
use domain::TiePolicy;
use engine::Engine;
use std::time::Duration;

/// Every live read of a period as one comparable value (ranks, members, points, ties, counts).
async fn live_reads(e: &Engine, b: &domain::Board) -> (String, Vec<domain::view::ReadSource>) {
    use domain::MemberId;
    let m = |s: &str| MemberId::parse(s).unwrap();
    let top = e.reads().top(&e.reads().scope(&b.slug, None).await.unwrap(), 10).await.unwrap();
    let page = e.reads().ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), 1, 2).await.unwrap();
    let first =
        e.reads().entries_after(&e.reads().scope(&b.slug, None).await.unwrap(), None, 2).await.unwrap();
    let second = e
        .reads()
        .entries_after(&e.reads().scope(&b.slug, None).await.unwrap(), first.next_cursor.as_deref(), 2)
        .await
        .unwrap();
    let around = e.reads().around(&e.reads().scope(&b.slug, None).await.unwrap(), &m("u3"), 1).await.unwrap();
    let count = e.reads().count_at_least(&e.reads().scope(&b.slug, None).await.unwrap(), 20).await.unwrap();
    let ranks = e
        .reads()
        .ranks_of(&e.reads().scope(&b.slug, None).await.unwrap(), &[m("u4"), m("u1"), m("nobody")])
        .await
        .unwrap();
    let rows = |p: &domain::view::RankingPage| {
        p.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points, x.tied)).collect::<Vec<_>>()
    };
    let text = format!(
        "top={:?}/{} page={:?}/{} c1={:?} c2={:?} around={:?} count={} ranks={:?}",
        rows(&top),
        top.total,
        rows(&page),
        page.has_more,
        rows(&first.page),
        rows(&second.page),
        rows(&around),
        count.value,
        ranks.value.iter().map(|x| (x.member.to_string(), x.rank)).collect::<Vec<_>>(),
    );
    let sources = vec![top.source, page.source, first.page.source, around.source, count.source, ranks.source];
    (text, sources)
}

#[tokio::test]
async fn boards_stay_readable_from_the_ledger_while_redis_is_down() {
    use domain::view::ReadSource;
    for t in common::TestLedger::both().await {
        for mut redis in [common::OwnRedis::standalone(), common::OwnRedis::cluster()] {
            let name =
                format!("{}/{}", t.name, if redis.url().contains(',') { "cluster" } else { "standalone" });
            let projection = engine::redis::Projection::new(
                engine::redis::RedisTarget::parse(&redis.url()).unwrap(),
                engine::redis::keys::KeySpace::new(common::unique("down")),
            );
            t.ledger.migrate().await.unwrap();
            let e = Engine::from_parts(t.ledger.clone(), projection);
            for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
                let b = prized_board("down", policy, 60);
                e.boards().create_board(&b).await.unwrap();
                // Ties (u2 and u3 at 20; u1 and u5 at 30), a hidden member and a negative total.
                let writes = [("u1", 30), ("u2", 20), ("u3", 20), ("u4", -5), ("u5", 30), ("u6", 99)];
                for (i, (member, delta)) in writes.iter().enumerate() {
                    e.writes().record(&b, &[point(&format!("e{i}"), member, *delta)]).await.unwrap();
                }
                let period = b.period_at(jiff::Timestamp::now()).to_string();
                e.lifecycle()
                    .hide_member(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        &domain::MemberId::parse("u6").unwrap(),
                        "test",
                        "hidden",
                    )
                    .await
                    .unwrap();
                let (before, sources) = live_reads(&e, &b).await;
                assert!(sources.iter().all(|s| *s == ReadSource::Redis), "{name} {policy:?}: {sources:?}");

                redis.stop();
                tokio::time::sleep(Duration::from_millis(1100)).await; // past the top cache
                let (down, sources) = live_reads(&e, &b).await;
                assert_eq!(down, before, "{name} {policy:?}: the ledger answers what Redis answered");
                assert!(sources.iter().all(|s| *s == ReadSource::Ledger), "{name} {policy:?}: {sources:?}");
                assert!(
                    e.reads().create_snapshot(&e.reads().scope(&b.slug, None).await.unwrap()).await.is_err(),
                    "{name}: snapshots need Redis"
                );
                // A write while Redis is down is read back from the ledger.
                e.writes().record(&b, &[point("late-comer", "u7", 25)]).await.unwrap();
                tokio::time::sleep(engine::reads::fallback::LEDGER_ORDER_TTL).await;
                let rank = e
                    .reads()
                    .member_rank(
                        &e.reads().scope(&b.slug, None).await.unwrap(),
                        &domain::MemberId::parse("u7").unwrap(),
                    )
                    .await
                    .unwrap();
                assert_eq!((rank.rank, rank.points), (3, 25), "{name} {policy:?}");

                redis.restart();
                let levelled = async {
                    for _ in 0..50 {
                        if e.jobs().reconcile_once().await.is_ok_and(|r| r.periods_failed == 0) {
                            tokio::time::sleep(Duration::from_millis(1100)).await;
                            let (_, sources) = live_reads(&e, &b).await;
                            if sources.iter().all(|s| *s == ReadSource::Redis) {
                                return true;
                            }
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    false
                };
                assert!(levelled.await, "{name} {policy:?}: back on Redis within 5 s");
                let top = e.reads().top(&e.reads().scope(&b.slug, None).await.unwrap(), 10).await.unwrap();
                assert_eq!(
                    top.entries.iter().find(|x| x.member.as_str() == "u7").map(|x| x.rank),
                    Some(3),
                    "{name}"
                );
            }
        }
        t.drop_db().await;
    }
}

#[tokio::test]
async fn a_full_redis_is_reported_and_writes_still_reach_the_ledger_then_the_rankings() {
    let t = common::TestLedger::sqlite().await;
    let redis = common::OwnRedis::standalone();
    let projection = engine::redis::Projection::new(
        engine::redis::RedisTarget::parse(&redis.url()).unwrap(),
        engine::redis::keys::KeySpace::new(common::unique("full")),
    );
    t.ledger.migrate().await.unwrap();
    let e = Engine::from_parts(t.ledger.clone(), projection);
    let b = prized_board("full", TiePolicy::Shared, 60);
    e.boards().create_board(&b).await.unwrap();
    e.writes().record(&b, &[point("e1", "u1", 30)]).await.unwrap();
    assert_eq!(e.readiness().await.redis_full, None);

    let mut admin =
        redis::Client::open(redis.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let config = |value: &'static str| redis::cmd("CONFIG").arg("SET").arg("maxmemory").arg(value).clone();
    config("1").exec_async(&mut admin).await.unwrap();
    let ready = e.readiness().await;
    assert!(ready.is_ready(), "a full Redis still serves");
    assert!(ready.redis_full.as_deref().is_some_and(|f| f.contains("maxmemory 1")), "{ready:?}");
    // The console's "needs attention" says it too.
    let attention = e.boards().attention(jiff::Timestamp::now()).await.unwrap();
    assert!(attention.redis_full.as_deref().is_some_and(|f| f.contains("maxmemory 1")), "{attention:?}");
    // Redis refuses the projection; the ledger has the write.
    let written = e.writes().record(&b, &[point("e2", "u2", 40)]).await.unwrap();
    assert_eq!(written[0].recorded.outcome, domain::write::Outcome::Applied);
    let page = e.reads().ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), 0, 10).await.unwrap();
    assert!(page.entries.iter().any(|en| en.member.as_str() == "u1"), "reads still answer: {page:?}");

    // Room again: the reconciler levels the ranking from the ledger.
    config("0").exec_async(&mut admin).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await; // past the projection's pause
    e.jobs().reconcile_once().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await; // past the read caches
    let page = e.reads().ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), 0, 10).await.unwrap();
    let members: Vec<&str> = page.entries.iter().map(|en| en.member.as_str()).collect();
    assert_eq!(members, ["u2", "u1"]);
    assert_eq!(e.readiness().await.redis_full, None);
    assert_eq!(e.boards().attention(jiff::Timestamp::now()).await.unwrap().redis_full, None);
    t.drop_db().await;
}
