//! Bounded boards (`keep_top`) on real stores: Redis standalone and Cluster, SQLite and
//! PostgreSQL. A board keeping its best K members and an unbounded twin are fed the same writes
//! (`set` totals that rise and fall, so members leave the top K and come back, both tie
//! policies): every page within the top K is the same on both, the projection never holds more
//! than K members nor versions, and a member below K, a page past K and a cursor past K are
//! answered from the ledger with the twin's ranks. A rebuild keeps K too. Ranks are right before
//! the reconciler refills a fallen top K as well as after: a read that meets the floor (the best
//! score trimmed away) asks the ledger.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets, unique};
use domain::view::{RankingPage, ReadSource};
use domain::write::{Change, Write};
use domain::{Board, BoardSlug, Cadence, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::Engine;

const KEEP: u64 = 5;
const MEMBERS: usize = 14;

fn board(policy: TiePolicy, keep_top: Option<u64>) -> Board {
    Board {
        slug: BoardSlug::parse(unique("k").replace('_', "-").to_lowercase()).unwrap(),
        title: "bounded".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Set,
        codec: ScoreCodec::new(policy, 0, 1_000_000, if policy == TiePolicy::Shared { 1 } else { 1000 })
            .unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        unit: domain::Unit::Points,
        prizes: vec![],
    }
}

fn member(i: usize) -> MemberId {
    MemberId::parse(format!("m{i:02}")).unwrap()
}

/// The entries of a page, whatever the board (the summaries name different boards).
fn rows(page: &RankingPage) -> Vec<(u64, String, i64, bool)> {
    page.entries.iter().map(|e| (e.rank, e.member.to_string(), e.points, e.tied)).collect()
}

/// The size of a bounded period's ranking and version hash in Redis.
async fn held(p: &TestProjection, b: &Board) -> (u64, u64) {
    let period = b.period_at(jiff::Timestamp::now());
    let tag = format!("{{{}:{}}}", b.slug, period);
    let (mut ranked, mut versions) = (0, 0);
    for (node, key) in p.keys().await.into_iter().filter(|(_, k)| k.contains(&tag)) {
        let mut conn =
            redis::Client::open(node.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
        if key.ends_with(":rank") {
            ranked = redis::cmd("ZCARD").arg(&key).query_async(&mut conn).await.unwrap();
        } else if key.ends_with(":ver") {
            versions = redis::cmd("HLEN").arg(&key).query_async(&mut conn).await.unwrap();
        }
    }
    (ranked, versions)
}

/// `refilled`: first let the reconciler put the ledger's best K back after totals fell
/// (`laurel serve` runs it every 2 s); else read as a client would right after the writes.
async fn check(ctx: &str, e: &Engine, p: &TestProjection, bounded: &Board, twin: &Board, refilled: bool) {
    if refilled {
        e.jobs().reconcile_once().await.unwrap();
    }
    // Reads served by the ledger share one read of its order for `LEDGER_ORDER_TTL`: wait it out,
    // so they see this round's writes as Redis does.
    tokio::time::sleep(engine::reads::fallback::LEDGER_ORDER_TTL + std::time::Duration::from_millis(100))
        .await;
    let (ranked, versions) = held(p, bounded).await;
    assert!(ranked <= KEEP && versions <= KEEP, "{ctx}: Redis holds {ranked} members, {versions} versions");
    let now = Some("current");
    let (bs, ts) =
        (e.reads().scope(&bounded.slug, now).await.unwrap(), e.reads().scope(&twin.slug, now).await.unwrap());
    // Within the top K: the same page, from Redis.
    let top = e.reads().ranking_page(&bs, 0, KEEP).await.unwrap();
    let twin_top = e.reads().ranking_page(&ts, 0, KEEP).await.unwrap();
    assert_eq!(rows(&top), rows(&twin_top), "{ctx}: the top {KEEP}");
    // Once refilled, a page that ends within the top K is Redis's; one reaching K asks the
    // ledger whether more follow.
    if refilled {
        assert_eq!(
            e.reads().ranking_page(&bs, 0, KEEP - 1).await.unwrap().source,
            ReadSource::Redis,
            "{ctx}"
        );
    }
    // Every page, past K too (from the ledger), and every member's rank.
    for (offset, limit) in [(0, 3), (3, 3), (4, 4), (KEEP, 3), (9, 10), (0, 50)] {
        let page = e.reads().ranking_page(&bs, offset, limit).await.unwrap();
        let twin_page = e.reads().ranking_page(&ts, offset, limit).await.unwrap();
        assert_eq!(rows(&page), rows(&twin_page), "{ctx}: offset {offset}, limit {limit}");
        assert_eq!(page.has_more, twin_page.has_more, "{ctx}: offset {offset}");
        if offset + limit > KEEP {
            assert_eq!(page.source, ReadSource::Ledger, "{ctx}: offset {offset}");
            assert_eq!(page.total, twin_page.total, "{ctx}: offset {offset}");
        }
    }
    for i in 0..MEMBERS {
        let m = member(i);
        let (rank, twin_rank) = (e.reads().member_rank(&bs, &m).await, e.reads().member_rank(&ts, &m).await);
        assert_eq!(rank.ok(), twin_rank.ok(), "{ctx}: {m}");
    }
    let below = e.reads().ranking_page(&ts, KEEP + 1, 1).await.unwrap().entries[0].member.clone();
    let around = e.reads().around(&bs, &below, 1).await.unwrap();
    assert_eq!(around.source, ReadSource::Ledger, "{ctx}: {below} is below the top {KEEP}");
    assert_eq!(rows(&around), rows(&e.reads().around(&ts, &below, 1).await.unwrap()), "{ctx}");
    let all: Vec<MemberId> = (0..MEMBERS).map(member).collect();
    assert_eq!(
        e.reads().ranks_of(&bs, &all).await.unwrap().value,
        e.reads().ranks_of(&ts, &all).await.unwrap().value
    );
    // Cursor pages walk past K.
    let (mut cursor, mut seen, mut twin_seen) = (None, Vec::new(), Vec::new());
    loop {
        let page = e.reads().entries_after(&bs, cursor.as_deref(), 3).await.unwrap();
        seen.extend(rows(&page.page));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let mut cursor = None;
    loop {
        let page = e.reads().entries_after(&ts, cursor.as_deref(), 3).await.unwrap();
        twin_seen.extend(rows(&page.page));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, twin_seen, "{ctx}: cursor pages");
}

#[tokio::test]
async fn keep_top_never_changes_a_rank_within_the_top_and_the_rest_read_the_ledger() {
    for (mode, target) in redis_targets() {
        for t in TestLedger::both().await {
            for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
                let p = TestProjection::new(target.clone());
                let e = engine(&t, &p).await;
                let ctx = format!("{} on {mode}, {policy:?}", t.name);
                let (bounded, twin) = (board(policy, Some(KEEP)), board(policy, None));
                e.boards().create_board(&bounded).await.unwrap();
                e.boards().create_board(&twin).await.unwrap();
                // Three rounds of totals; ties (equal totals) in each; members fall out of the
                // top K and climb back with newer versions.
                let rounds: [fn(usize) -> i64; 3] = [
                    |i| (i as i64 % 7) * 10,
                    |i| ((MEMBERS - i) as i64 % 5) * 20,
                    |i| (i as i64 * 37 % 11) * 5,
                ];
                for (version, round) in rounds.iter().enumerate() {
                    for i in 0..MEMBERS {
                        let change = Change::Total { version: version as i64 + 1, total: round(i) };
                        let write = Write {
                            member: member(i),
                            change,
                            occurred_at: jiff::Timestamp::now(),
                            metadata: None,
                            segments: Default::default(),
                        };
                        for b in [&bounded, &twin] {
                            e.writes().record(b, std::slice::from_ref(&write)).await.unwrap();
                        }
                    }
                    // Right after the writes, then after the reconciler's refill.
                    check(&format!("{ctx}, round {version}"), &e, &p, &bounded, &twin, false).await;
                    check(&format!("{ctx}, round {version}, refilled"), &e, &p, &bounded, &twin, true).await;
                }
                // A replayed older total changes nothing, in or out of the top K.
                let old = Write {
                    member: member(3),
                    change: Change::Total { version: 1, total: 999 },
                    occurred_at: jiff::Timestamp::now(),
                    metadata: None,
                    segments: Default::default(),
                };
                e.writes().record(&bounded, std::slice::from_ref(&old)).await.unwrap();
                check(&format!("{ctx}, replay"), &e, &p, &bounded, &twin, true).await;
                // A rebuild keeps K.
                let scope = e.reads().scope(&bounded.slug, Some("current")).await.unwrap();
                let report = e.jobs().rebuild(&scope, "test").await.unwrap();
                assert_eq!(report.members, KEEP, "{ctx}");
                check(&format!("{ctx}, rebuilt"), &e, &p, &bounded, &twin, false).await;
                p.cleanup().await;
            }
            t.drop_db().await;
        }
    }
}

/// Two projections of one member arriving out of order — the newer one, below the top K, trimmed
/// at once with its version, then the older one let in with no version to compare — leave a
/// stale total in Redis; the reconciler's next pass compares it with the ledger and levels it.
#[tokio::test]
async fn an_older_projection_let_in_after_a_trim_is_levelled_by_the_reconciler() {
    const KEEP: u64 = 2;
    for (mode, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            let ctx = format!("{} on {mode}", t.name);
            let b = board(TiePolicy::Shared, Some(KEEP));
            e.boards().create_board(&b).await.unwrap();
            let total = |i: usize, version: i64, total: i64| Write {
                member: member(i),
                change: Change::Total { version, total },
                occurred_at: jiff::Timestamp::now(),
                metadata: None,
                segments: Default::default(),
            };
            let writes = [total(1, 1, 100), total(2, 1, 90), total(3, 1, 80), total(4, 1, 70)];
            e.writes().record(&b, &writes).await.unwrap();
            // Member 5 climbs to 95, then falls to 10 (version 2): the ledger's total is 10.
            e.writes().record(&b, &[total(5, 1, 95)]).await.unwrap();
            e.writes().record(&b, &[total(5, 2, 10)]).await.unwrap();
            e.jobs().reconcile_once().await.unwrap();
            // Version 1's projection arrives late: member 5 holds no version in Redis (trimmed).
            let period = b.period_at(jiff::Timestamp::now());
            let late = engine::redis::ProjectedTotal {
                member: member(5),
                version: 1,
                score: b.codec.encode(95, 0).unwrap(),
                hidden: false,
            };
            e.projection().project_kept(&b.slug, &period, &[late], KEEP).await.unwrap();
            let scores = e.projection().scores(&b.slug, &period).await.unwrap();
            assert_eq!(
                scores.get("m05"),
                Some(&b.codec.encode(95, 0).unwrap()),
                "{ctx}: the late projection is in"
            );
            e.jobs().reconcile_once().await.unwrap();
            let scores = e.projection().scores(&b.slug, &period).await.unwrap();
            // The ledger's 10 now (held below the floor, or trimmed), never the stale 95.
            let ten = b.codec.encode(10, 0).unwrap();
            assert!(scores.get("m05").is_none_or(|s| *s == ten), "{ctx}: {scores:?}");
            tokio::time::sleep(
                engine::reads::fallback::LEDGER_ORDER_TTL + std::time::Duration::from_millis(100),
            )
            .await;
            let scope = e.reads().scope(&b.slug, Some("current")).await.unwrap();
            let top = e.reads().ranking_page(&scope, 0, 2).await.unwrap();
            assert_eq!(rows(&top), [(1, "m01".into(), 100, false), (2, "m02".into(), 90, false)], "{ctx}");
            let rank = e.reads().member_rank(&scope, &member(5)).await.unwrap();
            assert_eq!((rank.rank, rank.points), (5, 10), "{ctx}");
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}
