//! Replica reads on a real standalone Redis and its replica (`LAUREL_TEST_REDIS_REPLICA_URL`,
//! started by `scripts/test`): the public reads go to the replica, the console's and a snapshot's
//! to the primary. Which node answered is read from each server's `INFO commandstats`. (The
//! Cluster's replicas are exercised by the server's fleet test.)
//!
//! With a replica that cannot be read, reads come from the primary and writes stay projected; a
//! replica choice that does not fit the target is refused.

mod common;

use common::{TestLedger, TestProjection, five_members, redis_targets};
use domain::{MemberId, TiePolicy};
use engine::Engine;
use engine::ledger::Viewer;
use engine::redis::{Projection, RedisTarget, ReplicaReads};
use std::collections::HashMap;

/// Calls per command on the server at `url` (`cmdstat_<name>:calls=N,…`).
async fn calls(url: &str) -> HashMap<String, u64> {
    let mut conn = redis::Client::open(url).unwrap().get_multiplexed_async_connection().await.unwrap();
    let info: String = redis::cmd("INFO").arg("commandstats").query_async(&mut conn).await.unwrap();
    info.lines()
        .filter_map(|line| {
            let (name, rest) = line.strip_prefix("cmdstat_")?.split_once(":calls=")?;
            Some((name.to_owned(), rest.split(',').next()?.parse().ok()?))
        })
        .collect()
}

/// How many more times each of `commands` ran between two readings.
fn ran(before: &HashMap<String, u64>, after: &HashMap<String, u64>, commands: &[&str]) -> u64 {
    commands.iter().map(|c| after.get(*c).unwrap_or(&0) - before.get(*c).unwrap_or(&0)).sum()
}

const SCRIPT_READS: &[&str] = &["evalsha_ro", "eval_ro"];

/// The tests that read the shared primary's command counts run one at a time: another test's
/// reads on the primary would land in the counts.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn public_reads_go_to_the_replica_and_the_consoles_to_the_primary() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let primary = std::env::var("LAUREL_TEST_REDIS_URL").expect("LAUREL_TEST_REDIS_URL (scripts/test)");
    let replica =
        std::env::var("LAUREL_TEST_REDIS_REPLICA_URL").expect("LAUREL_TEST_REDIS_REPLICA_URL (scripts/test)");
    let ledger = TestLedger::sqlite().await;
    let test = TestProjection::new(RedisTarget::parse(&primary).unwrap());
    let projection =
        test.projection.clone().with_replica_reads(ReplicaReads::Standalone(replica.clone())).unwrap();
    ledger.ledger.migrate().await.unwrap();
    let e = Engine::from_parts(ledger.ledger.clone(), projection);
    let (b, period) = five_members(&e, "replica", TiePolicy::Shared).await;

    // Replication is asynchronous: wait until the replica has every write made so far.
    let mut conn = e.projection().conn().await.unwrap();
    let acked: i64 = redis::cmd("WAIT").arg(1).arg(5000).query_async(&mut conn).await.unwrap();
    assert_eq!(acked, 1, "the replica acknowledged the writes");

    let (p0, r0) = (calls(&primary).await, calls(&replica).await);
    let top = e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
    let names: Vec<(&str, i64, u64)> =
        top.entries.iter().map(|x| (x.member.as_str(), x.points, x.rank)).collect();
    assert_eq!(names, [("u1", 50, 1), ("u3", 30, 2), ("u2", 30, 2), ("u4", 25, 4), ("u5", 5, 5)]);
    assert_eq!(
        e.reads()
            .count_at_least(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 30)
            .await
            .unwrap()
            .value,
        3
    );
    let u4 = MemberId::parse("u4").unwrap();
    let ranks = e
        .reads()
        .ranks_of(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), std::slice::from_ref(&u4))
        .await
        .unwrap()
        .value;
    assert_eq!(ranks.iter().map(|x| (x.member.as_str(), x.rank)).collect::<Vec<_>>(), [("u4", 4)]);
    let (p1, r1) = (calls(&primary).await, calls(&replica).await);
    // At least one call each (two when the replica first answers NOSCRIPT and gets EVAL_RO).
    assert!(ran(&r0, &r1, SCRIPT_READS) >= 2, "the page and the ranks ran on the replica: {r1:?}");
    // (The scripts run ZCOUNT too: commandstats counts the commands a script calls.)
    assert!(ran(&r0, &r1, &["zcount"]) >= 1, "the count ran on the replica");
    assert_eq!(ran(&p0, &p1, SCRIPT_READS) + ran(&p0, &p1, &["zcount", "evalsha", "eval"]), 0, "{p1:?}");

    // The console reads live and a snapshot is read right after it was made: the primary's.
    let admin = e
        .reads()
        .ranking_page_as(Viewer::Admin, &e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
        .await
        .unwrap();
    assert_eq!(admin.entries.len(), 5);
    let pinned =
        e.reads().create_snapshot(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
    let page = e
        .reads()
        .snapshot_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &pinned.snapshot_id, 0, 10)
        .await
        .unwrap();
    assert_eq!(page.entries.len(), 5);
    let (p2, r2) = (calls(&primary).await, calls(&replica).await);
    assert_eq!(ran(&r1, &r2, SCRIPT_READS) + ran(&r1, &r2, &["evalsha", "eval", "get"]), 0, "{r2:?}");
    assert!(ran(&p1, &p2, &["evalsha", "eval"]) >= 2, "the console's and the snapshot's pages: {p2:?}");

    test.cleanup().await;
    ledger.drop_db().await;
}

#[tokio::test]
async fn a_replica_that_cannot_be_read_sends_reads_to_the_primary_and_leaves_writes_projected() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let primary = std::env::var("LAUREL_TEST_REDIS_URL").expect("LAUREL_TEST_REDIS_URL (scripts/test)");
    let ledger = TestLedger::sqlite().await;
    let test = TestProjection::new(RedisTarget::parse(&primary).unwrap());
    // Nothing listens on port 1: every replica read fails at once.
    let down = ReplicaReads::Standalone("redis://127.0.0.1:1".into());
    let projection = test.projection.clone().with_replica_reads(down).unwrap();
    ledger.ledger.migrate().await.unwrap();
    let e = Engine::from_parts(ledger.ledger.clone(), projection);
    // five_members asserts that every write was projected; then more writes after failed reads.
    let (b, period) = five_members(&e, "replica-down", TiePolicy::Shared).await;
    for round in 0..3 {
        let page = e
            .reads()
            .ranking_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
            .await
            .unwrap();
        assert_eq!(page.source, domain::view::ReadSource::Redis, "round {round}: read from the primary");
        assert_eq!(page.entries.len(), 5);
        assert_eq!(
            e.reads()
                .count_at_least(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 30)
                .await
                .unwrap()
                .value,
            3
        );
        let write = common::point(&format!("down{round}"), "u5", 1);
        let answer = e.writes().record(&b, &[write]).await.unwrap();
        assert!(answer[0].projected, "round {round}: a replica's failure never pauses the projection");
    }
    test.cleanup().await;
    ledger.drop_db().await;
}

#[test]
fn a_replica_choice_that_does_not_fit_the_target_is_refused() {
    let targets = redis_targets();
    let (standalone, cluster) = (targets[0].1.clone(), targets[1].1.clone());
    let keys = || engine::redis::keys::KeySpace::new("unused");
    let with =
        |target: &RedisTarget, reads| Projection::new(target.clone(), keys()).with_replica_reads(reads);
    assert!(with(&standalone, ReplicaReads::Cluster).is_err(), "a standalone server needs the replica's url");
    let url = ReplicaReads::Standalone("redis://127.0.0.1:1".into());
    assert!(with(&cluster, url.clone()).is_err(), "a Cluster finds its replicas itself");
    let two = ReplicaReads::Standalone("redis://127.0.0.1:1,redis://127.0.0.1:2".into());
    assert!(with(&standalone, two).is_err(), "one replica url");
    assert!(with(&standalone, url).is_ok());
    assert!(with(&cluster, ReplicaReads::Cluster).is_ok());
    assert!(with(&cluster, ReplicaReads::Off).is_ok());
}
