//! Segments on real stores (issue 43): one write ranks a member on the board and in the ranking
//! of each segment value it holds. Every test runs on standalone Redis and a 3-master Cluster,
//! and on SQLite and PostgreSQL.
//!
//! - a member in one province and one class appears in three rankings with the same points and
//!   consistent ranks, under both tie policies, through every segment read (top, offset and
//!   cursor pages, around-me, member rank) and the list of a dimension's values;
//! - segment keys of one period land on different Cluster slots (and nodes);
//! - a write naming another value than the one held is rejected with `segment_conflict`, changes
//!   nothing and is audited; an undeclared dimension is rejected;
//! - after Redis lost the keys, the reconciler levels every segment ranking (`segments_levelled`)
//!   and a rebuild restores them; while Redis cannot be read, segment reads come from the ledger
//!   in the same order;
//! - a segment ranking that cannot be written fails only the writes into it (`projected: false`;
//!   the board's ranking and the member's other segment take the write), and the reconciler
//!   levels it once it can be written;
//! - a correction moves the member's segment totals;
//! - counts and ranks of a list in a segment agree with the segment's pages under both tie
//!   policies, from Redis, from the ledger while Redis cannot be read, with a member hidden, and
//!   once the period is read from its standings;
//! - a snapshot of a segment pages like the segment's live ranking, holds still while it moves,
//!   and its keys hash to the segment's slot (on the segment ranking's node); a pin of a value
//!   nobody holds writes no key;
//! - a public freeze closes segments to the public (409 `segment_frozen`): pages, counts, ranks,
//!   pins and pages of a copy pinned before it; admins read segments live.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets, unique};
use domain::lifecycle::Transition;
use domain::segment::{Segment, Values};
use domain::view::{RankingPage, ReadSource};
use domain::write::{Change, Outcome, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::ledger::Viewer;
use engine::scope::Scope;
use engine::{Engine, EngineError};

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

fn board(policy: TiePolicy) -> Board {
    Board {
        slug: BoardSlug::parse(unique("seg").replace('_', "-").to_lowercase()).unwrap(),
        title: "segments".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(policy, 0, 1_000_000, if policy == TiePolicy::Shared { 1 } else { 1000 })
            .unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: vec!["province".into(), "class".into()],
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![],
        unit: domain::Unit::Points,
    }
}

/// A point event naming the member's segment values (`[("province", "zj")]`).
fn event(id: &str, member: &str, delta: i64, segments: &[(&str, &str)]) -> Write {
    Write {
        member: m(member),
        change: Change::Point { event_id: EventId::parse(id).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: segments.iter().map(|(d, v)| (d.to_string(), v.to_string())).collect(),
    }
}

/// Every combination of ledger and Redis deployment.
async fn each_store(test: impl AsyncFn(&str, &Engine, &TestProjection)) {
    for (redis, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            test(&format!("{}/{redis}", t.name), &e, &p).await;
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

/// u1 zj/c1 50, u2 zj/c2 30, u5 zj/c2 30 (after u2: a tie), u3 js/c1 30, u4 js then c1 10 (its
/// class named by a later write that names no province).
async fn setup(e: &Engine, b: &Board) {
    e.boards().create_board(b).await.unwrap();
    let writes = [
        event("e1", "u1", 50, &[("province", "zj"), ("class", "c1")]),
        event("e2", "u2", 30, &[("province", "zj"), ("class", "c2")]),
        event("e3", "u3", 30, &[("province", "js"), ("class", "c1")]),
        event("e4", "u4", 4, &[("province", "js")]),
    ];
    let out = e.writes().record(b, &writes).await.unwrap();
    assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied && r.projected), "{out:?}");
    let out =
        e.writes().record(b, &[event("e5", "u5", 30, &[("province", "zj"), ("class", "c2")])]).await.unwrap();
    assert!(out[0].projected);
    // No segments named: u4's total moves in its province all the same.
    e.writes().record(b, &[event("e6", "u4", 3, &[])]).await.unwrap();
    let out = e.writes().record(b, &[event("e7", "u4", 3, &[("class", "c1")])]).await.unwrap();
    assert_eq!(out[0].recorded.outcome, Outcome::Applied);
}

async fn scope(e: &Engine, b: &Board, segment: Option<&str>) -> Scope {
    e.reads().scope(&b.slug, None).await.unwrap().in_segment(segment).unwrap()
}

fn rows(page: &RankingPage) -> Vec<(u64, String, i64)> {
    page.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)).collect()
}

fn row(rank: u64, member: &str, points: i64) -> (u64, String, i64) {
    (rank, member.to_owned(), points)
}

#[tokio::test]
async fn a_member_ranks_on_the_board_and_in_each_of_its_segments() {
    each_store(async |name, e, _| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let b = board(policy);
            setup(e, &b).await;
            // Under `shared` u2 and u5 (30) share their rank; under `first_reached` u2 reached 30
            // first. u3 has 30 too on the board.
            let tie = |first: u64| if policy == TiePolicy::Shared { first } else { first + 1 };
            let board_top = e.reads().top(&scope(e, &b, None).await, 10).await.unwrap();
            let (u2_on_board, u5_on_board) = match policy {
                TiePolicy::Shared => (2, 2),
                TiePolicy::FirstReached => (2, 4),
            };
            assert_eq!(board_top.total, 5, "{name}");
            let on_board: Vec<_> = rows(&board_top);
            assert!(on_board.contains(&row(1, "u1", 50)), "{name} {on_board:?}");
            assert!(on_board.contains(&row(u2_on_board, "u2", 30)), "{name} {on_board:?}");
            assert!(on_board.contains(&row(u5_on_board, "u5", 30)), "{name} {on_board:?}");
            assert!(on_board.contains(&row(5, "u4", 10)), "{name} {on_board:?}");

            let zj = e.reads().top(&scope(e, &b, Some("province:zj")).await, 10).await.unwrap();
            assert_eq!(zj.source, ReadSource::Redis, "{name}");
            let shared = policy == TiePolicy::Shared;
            // Equal scores under `shared` list by member id descending (u5 before u2).
            let expected_zj = match shared {
                true => vec![row(1, "u1", 50), row(2, "u5", 30), row(2, "u2", 30)],
                false => vec![row(1, "u1", 50), row(2, "u2", 30), row(3, "u5", 30)],
            };
            assert_eq!(rows(&zj), expected_zj, "{name} {policy:?}");
            assert_eq!(zj.total, 3);
            let js = e.reads().top(&scope(e, &b, Some("province:js")).await, 10).await.unwrap();
            assert_eq!(rows(&js), vec![row(1, "u3", 30), row(2, "u4", 10)], "{name}");
            let c1 = e.reads().top(&scope(e, &b, Some("class:c1")).await, 10).await.unwrap();
            assert_eq!(rows(&c1), vec![row(1, "u1", 50), row(2, "u3", 30), row(3, "u4", 10)], "{name}");
            let c2 = e.reads().top(&scope(e, &b, Some("class:c2")).await, 10).await.unwrap();
            assert_eq!(c2.entries.len(), 2);
            assert_eq!(c2.entries[1].rank, tie(1), "{name} {policy:?}");

            // The same member, the same points, in its three rankings.
            for (segment, rank) in
                [(None, u5_on_board), (Some("province:zj"), tie(2)), (Some("class:c2"), tie(1))]
            {
                let entry = e.reads().member_rank(&scope(e, &b, segment).await, &m("u5")).await.unwrap();
                assert_eq!((entry.points, entry.rank), (30, rank), "{name} {policy:?} {segment:?}");
            }
            let absent = e.reads().member_rank(&scope(e, &b, Some("province:js")).await, &m("u5")).await;
            assert!(matches!(absent, Err(EngineError::NotFound { .. })), "{name}");

            // Offset pages, cursor pages and around-me read the segment's ranking too.
            let zj_scope = scope(e, &b, Some("province:zj")).await;
            let page = e.reads().ranking_page(&zj_scope, 1, 1).await.unwrap();
            assert_eq!(rows(&page), expected_zj[1..2].to_vec(), "{name}");
            let mut seen = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let found = e.reads().entries_after(&zj_scope, cursor.as_deref(), 1).await.unwrap();
                seen.extend(rows(&found.page));
                match found.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            assert_eq!(seen, expected_zj, "{name} cursor pages");
            let around = e.reads().around(&zj_scope, &m("u1"), 1).await.unwrap();
            assert_eq!(rows(&around), expected_zj[..2].to_vec(), "{name}");

            // The list of a dimension's values: counts and leaders.
            let list = e
                .reads()
                .segment_values(Viewer::Public, &scope(e, &b, None).await, "province")
                .await
                .unwrap();
            let summary: Vec<_> = list
                .values
                .iter()
                .map(|v| {
                    (v.value.clone(), v.members, v.leader.as_ref().map(|l| (l.member.to_string(), l.points)))
                })
                .collect();
            assert_eq!(
                summary,
                vec![
                    ("js".to_owned(), 2, Some(("u3".to_owned(), 30))),
                    ("zj".to_owned(), 3, Some(("u1".to_owned(), 50))),
                ],
                "{name}"
            );
            assert!(!list.more);
            let undeclared =
                e.reads().segment_values(Viewer::Public, &scope(e, &b, None).await, "city").await;
            assert!(matches!(undeclared, Err(EngineError::Invalid(_))), "{name}");
        }
    })
    .await;
}

#[tokio::test]
async fn segment_keys_of_one_period_land_on_different_slots() {
    use redis::cluster_routing::Slot;
    each_store(async |name, e, p| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let provinces = ["zj", "js", "gd", "sc", "hb", "hn", "bj", "sh", "tj", "cq", "yn", "gz"];
        let writes: Vec<Write> = provinces
            .iter()
            .enumerate()
            .map(|(i, v)| event(&format!("e{i}"), &format!("u{i}"), 1 + i as i64, &[("province", v)]))
            .collect();
        assert!(e.writes().record(&b, &writes).await.unwrap().iter().all(|r| r.projected));
        let keys = p.keys().await;
        let ranks: Vec<&(String, String)> =
            keys.iter().filter(|(_, k)| k.contains("province=") && k.ends_with(":rank")).collect();
        assert_eq!(ranks.len(), provinces.len(), "{name}: one ranking per province");
        let slots: std::collections::HashSet<Slot> = ranks.iter().map(|(_, k)| Slot::for_key(k)).collect();
        assert_eq!(slots.len(), provinces.len(), "{name}: one slot per province");
        if name.ends_with("cluster") {
            let nodes: std::collections::HashSet<&String> = ranks.iter().map(|(node, _)| node).collect();
            assert!(nodes.len() > 1, "{name}: the segments of one period spread over the masters");
        }
        // Each ranking holds its one member.
        for (i, v) in provinces.iter().enumerate() {
            let top = e.reads().top(&scope(e, &b, Some(&format!("province:{v}"))).await, 5).await.unwrap();
            assert_eq!(rows(&top), vec![row(1, &format!("u{i}"), 1 + i as i64)], "{name} {v}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_conflicting_segment_write_is_rejected_and_changes_nothing() {
    each_store(async |name, e, _| {
        let b = board(TiePolicy::FirstReached);
        setup(e, &b).await;
        let before_zj = e.reads().top(&scope(e, &b, Some("province:zj")).await, 10).await.unwrap();
        let out = e.writes().record(&b, &[event("x1", "u1", 500, &[("province", "js")])]).await.unwrap();
        let r = &out[0].recorded;
        assert_eq!(r.outcome, Outcome::Rejected, "{name}");
        let reason = r.reason.as_deref().unwrap();
        assert!(reason.starts_with("segment_conflict") && reason.contains("zj"), "{name}: {reason}");
        // Nothing changed: the total, the rankings, and the id is still free.
        assert_eq!(e.reads().member_rank(&scope(e, &b, None).await, &m("u1")).await.unwrap().points, 50);
        let js = e.reads().top(&scope(e, &b, Some("province:js")).await, 10).await.unwrap();
        assert!(js.entries.iter().all(|x| x.member.as_str() != "u1"), "{name}");
        let zj = e.reads().top(&scope(e, &b, Some("province:zj")).await, 10).await.unwrap();
        assert_eq!(rows(&zj), rows(&before_zj));
        let again = e.writes().record(&b, &[event("x1", "u1", 5, &[("province", "zj")])]).await.unwrap();
        assert_eq!(again[0].recorded.outcome, Outcome::Applied, "{name}: the rejected id was not stored");
        // Audited like every rejection.
        let filter = engine::ledger::audit::AuditFilter {
            board: Some(b.slug.to_string()),
            action: Some("write_rejected".into()),
            member: Some("u1".into()),
            ..Default::default()
        };
        let audit = e.lifecycle().audit(&filter, None, 10).await.unwrap();
        assert_eq!(audit.len(), 1, "{name}");
        assert!(audit[0].reason.as_deref().unwrap().contains("segment_conflict"));

        // Within one batch: the first write fixes the value, the second conflicts.
        let batch = [
            event("y1", "n1", 1, &[("province", "gd")]),
            event("y2", "n1", 1, &[("province", "sc")]),
            event("y3", "n1", 1, &[("province", "gd"), ("class", "c9")]),
        ];
        let out = e.writes().record(&b, &batch).await.unwrap();
        let outcomes: Vec<Outcome> = out.iter().map(|r| r.recorded.outcome).collect();
        assert_eq!(outcomes, [Outcome::Applied, Outcome::Rejected, Outcome::Applied], "{name}");
        let gd = e.reads().member_rank(&scope(e, &b, Some("province:gd")).await, &m("n1")).await.unwrap();
        assert_eq!(gd.points, 2);
        assert!(e.reads().member_rank(&scope(e, &b, Some("province:sc")).await, &m("n1")).await.is_err());

        // A dimension the board does not declare is rejected before anything is stored.
        let out = e.writes().record(&b, &[event("z1", "u9", 5, &[("city", "hz")])]).await.unwrap();
        assert_eq!(out[0].recorded.outcome, Outcome::Rejected);
        assert!(out[0].recorded.reason.as_deref().unwrap().contains("not declared"), "{name}");
        assert!(e.reads().member_rank(&scope(e, &b, None).await, &m("u9")).await.is_err());
    })
    .await;
}

#[tokio::test]
async fn the_reconciler_and_a_rebuild_level_segment_rankings_after_redis_lost_them() {
    each_store(async |name, e, p| {
        let b = board(TiePolicy::Shared);
        setup(e, &b).await;
        let segments = ["province:zj", "province:js", "class:c1", "class:c2"];
        let mut before = Vec::new();
        for s in segments {
            before.push(rows(&e.reads().top(&scope(e, &b, Some(s)).await, 10).await.unwrap()));
        }
        // Redis loses everything of this test.
        p.cleanup().await;
        let report = e.jobs().reconcile_once().await.unwrap();
        assert_eq!(report.segments_levelled, segments.len() as u64, "{name}: {report:?}");
        for (s, expected) in segments.iter().zip(&before) {
            let top = e.reads().top(&scope(e, &b, Some(s)).await, 10).await.unwrap();
            assert_eq!((&rows(&top), top.source), (expected, ReadSource::Redis), "{name} {s}");
        }
        let report = e.jobs().reconcile_once().await.unwrap();
        assert_eq!(report.segments_levelled, 0, "{name}: level now");

        p.cleanup().await;
        e.jobs().rebuild(&scope(e, &b, None).await, "admin").await.unwrap();
        for (s, expected) in segments.iter().zip(&before) {
            let top = e.reads().top(&scope(e, &b, Some(s)).await, 10).await.unwrap();
            assert_eq!(&rows(&top), expected, "{name} {s} after a rebuild");
        }
        assert_eq!(e.jobs().reconcile_once().await.unwrap().segments_levelled, 0, "{name}");

        // While Redis cannot be read, segment reads come from the ledger in the same order.
        let keys = engine::redis::keys::KeySpace::new(unique("away"));
        let away = engine::redis::Projection::new(
            engine::redis::RedisTarget::parse("redis://127.0.0.1:1").unwrap(),
            keys,
        );
        let down = Engine::from_parts(e.ledger().clone(), away);
        for (s, expected) in segments.iter().zip(&before) {
            let segment = down.reads().scope(&b.slug, None).await.unwrap().in_segment(Some(s)).unwrap();
            let top = down.reads().top(&segment, 10).await.unwrap();
            assert_eq!(
                (&rows(&top), top.source),
                (expected, ReadSource::Ledger),
                "{name} {s} from the ledger"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn a_correction_moves_the_members_segment_totals() {
    each_store(async |name, e, _| {
        let b = board(TiePolicy::FirstReached);
        setup(e, &b).await;
        let correction = engine::lifecycle::Correction {
            member: m("u4"),
            delta: 100,
            correction_id: None,
            reason: "missed bonus".into(),
        };
        e.lifecycle().correct(&scope(e, &b, None).await, &correction, "admin:ann").await.unwrap();
        for s in [None, Some("province:js"), Some("class:c1")] {
            let top = e.reads().top(&scope(e, &b, s).await, 1).await.unwrap();
            assert_eq!(rows(&top), vec![row(1, "u4", 110)], "{name} {s:?}");
        }
        // Hiding the member takes it out of its segments too.
        e.lifecycle()
            .hide_member(&scope(e, &b, None).await, &m("u4"), "admin:ann", "cheating")
            .await
            .unwrap();
        let js = e.reads().top(&scope(e, &b, Some("province:js")).await, 10).await.unwrap();
        assert_eq!(rows(&js), vec![row(1, "u3", 30)], "{name}");
        // And the ledger levels to the same: nothing to level.
        assert_eq!(e.jobs().reconcile_once().await.unwrap().segments_levelled, 0, "{name}");
    })
    .await;
}

/// An engine on the same ledger whose Redis cannot be read (nothing listens on port 1).
/// Concurrent writes into one segment join one another's projection call (as the board's do):
/// every member lands at its last total, and the reconciler finds nothing to level.
#[tokio::test]
async fn concurrent_writes_into_one_segment_leave_it_level_with_the_ledger() {
    each_store(async |name, e, _| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let mut writes = tokio::task::JoinSet::new();
        for i in 0..60 {
            let (e, b) = (e.clone(), b.clone());
            let (member, class) = (format!("u{}", i % 12), if i % 12 < 6 { "c1" } else { "c2" });
            let write = event(&format!("e{i}"), &member, i + 1, &[("province", "zj"), ("class", class)]);
            writes.spawn(async move { e.writes().record(&b, &[write]).await.unwrap() });
        }
        let out: Vec<_> = writes.join_all().await.into_iter().flatten().collect();
        assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied && r.projected), "{name}: {out:?}");
        // Member u<k> got k+1, k+13, …, k+49: 5k + 125 points.
        let want = |k: i64| 5 * k + 125;
        let top = e.reads().top(&scope(e, &b, Some("province:zj")).await, 20).await.unwrap();
        assert_eq!(top.source, ReadSource::Redis, "{name}");
        let got: Vec<(String, i64)> = top.entries.iter().map(|x| (x.member.to_string(), x.points)).collect();
        let expected: Vec<(String, i64)> = (0..12).rev().map(|k| (format!("u{k}"), want(k))).collect();
        assert_eq!(got, expected, "{name}");
        let c2 = e.reads().top(&scope(e, &b, Some("class:c2")).await, 20).await.unwrap();
        assert_eq!(c2.entries.len(), 6, "{name}");
        assert_eq!(e.jobs().reconcile_once().await.unwrap().segments_levelled, 0, "{name}: level already");
    })
    .await;
}

/// A segment ranking that cannot be written fails the projection of the writes into it only: the
/// board's ranking and the member's other segment take the write, which answers `projected:
/// false`; once the segment can be written again, the reconciler levels it.
#[tokio::test]
async fn a_segment_that_cannot_be_written_fails_only_the_writes_into_it() {
    each_store(async |name, e, p| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let period = b.period_at(jiff::Timestamp::now());
        let keys = |dimension: &str, value: &str| {
            let segment = Segment { dimension: dimension.into(), value: value.into() };
            p.projection.keys().segment(&b.slug, &period, &segment)
        };
        // A string where the ranking of class c2 goes: `level.lua` fails on it (WRONGTYPE).
        let c2 = keys("class", "c2").rank;
        p.run(redis::cmd("SET").arg(&c2).arg("in the way")).await;
        let out = e
            .writes()
            .record(&b, &[event("x1", "u2", 30, &[("province", "zj"), ("class", "c2")])])
            .await
            .unwrap();
        assert_eq!((out[0].recorded.outcome, out[0].projected), (Outcome::Applied, false), "{name}");
        let score = |key: String| redis::cmd("ZSCORE").arg(key).arg("u2").clone();
        let board_rank = p.projection.keys().period(&b.slug, &period).rank;
        for key in [board_rank, keys("province", "zj").rank] {
            assert_ne!(p.run(&score(key.clone())).await, redis::Value::Nil, "{name}: {key} has the write");
        }

        p.run(redis::cmd("DEL").arg(&c2)).await;
        // Projections pause for a second after a failure; the reconciler levels all the same.
        let report = e.jobs().reconcile_once().await.unwrap();
        assert_eq!(report.segments_levelled, 1, "{name}: {report:?}");
        assert_ne!(p.run(&score(c2.clone())).await, redis::Value::Nil, "{name}: levelled");
    })
    .await;
}

/// A profile's segment values stand in for the ones a write leaves out: a member's first write
/// naming none fixes the profile's (dimensions the board does not declare are ignored); a value
/// the write names wins over the profile's; a value already held stays, whatever the profile says.
#[tokio::test]
async fn a_profile_names_the_values_writes_leave_out() {
    each_store(async |name, e, _| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let now = jiff::Timestamp::now();
        let profile = |province: &str| -> Values {
            [("province", province), ("class", "c9"), ("school", "s1")]
                .map(|(d, v)| (d.into(), v.into()))
                .into()
        };
        e.writes().put_profile(&m("p1"), "P1", None, &profile("zj"), now).await.unwrap();
        e.writes().put_profile(&m("p2"), "P2", None, &profile("zj"), now).await.unwrap();
        e.writes().record(&b, &[event("h1", "p3", 5, &[("province", "js")])]).await.unwrap();
        e.writes().put_profile(&m("p3"), "P3", None, &profile("zj"), now).await.unwrap();
        let out = e
            .writes()
            .record(
                &b,
                &[
                    event("a1", "p1", 40, &[]),
                    event("a2", "p2", 30, &[("class", "c1")]),
                    event("a3", "p3", 20, &[]),
                    event("a4", "p1", 2, &[]),
                ],
            )
            .await
            .unwrap();
        assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied && r.projected), "{name}: {out:?}");
        let period = b.period_at(now);
        let held = e.ledger().memberships(&b.slug, period).await.unwrap();
        let values = |member: &str| held.get(member).cloned().unwrap_or_default();
        let pairs = |v: &[(&str, &str)]| -> Values {
            v.iter().map(|(d, x)| (d.to_string(), x.to_string())).collect()
        };
        assert_eq!(values("p1"), pairs(&[("class", "c9"), ("province", "zj")]), "{name}");
        assert_eq!(values("p2"), pairs(&[("class", "c1"), ("province", "zj")]), "{name}");
        assert_eq!(values("p3"), pairs(&[("class", "c9"), ("province", "js")]), "{name}");
        let zj = e.reads().top(&scope(e, &b, Some("province:zj")).await, 10).await.unwrap();
        assert_eq!(rows(&zj), vec![row(1, "p1", 42), row(2, "p2", 30)], "{name}");
        let c9 = e.reads().top(&scope(e, &b, Some("class:c9")).await, 10).await.unwrap();
        assert_eq!(rows(&c9), vec![row(1, "p1", 42), row(2, "p3", 25)], "{name}");
        assert_eq!(e.jobs().reconcile_once().await.unwrap().segments_levelled, 0, "{name}: level already");
    })
    .await;
}

fn without_redis(e: &Engine) -> Engine {
    let keys = engine::redis::keys::KeySpace::new(unique("away"));
    let away = engine::redis::Projection::new(
        engine::redis::RedisTarget::parse("redis://127.0.0.1:1").unwrap(),
        keys,
    );
    Engine::from_parts(e.ledger().clone(), away)
}

/// (member, rank, points) by rank, then member: the order ranks of a list answer in.
fn by_rank(entries: &[domain::view::Entry]) -> Vec<(String, u64, i64)> {
    let mut rows: Vec<_> = entries.iter().map(|x| (x.member.to_string(), x.rank, x.points)).collect();
    rows.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    rows
}

/// Counts and ranks of a list in `segment` agree with its whole page, each read from `source`.
async fn counts_and_ranks_agree(name: &str, e: &Engine, b: &Board, segment: &str, source: ReadSource) {
    let s = e.reads().scope(&b.slug, None).await.unwrap().in_segment(Some(segment)).unwrap();
    let page = e.reads().ranking_page(&s, 0, 200).await.unwrap();
    assert_eq!(page.source, source, "{name} {segment}: the page");
    let expected = by_rank(&page.entries);
    let everyone: Vec<MemberId> = ["u1", "u2", "u3", "u4", "u5", "n1", "nobody"].map(m).to_vec();
    let ranks = e.reads().ranks_of(&s, &everyone).await.unwrap();
    assert_eq!(ranks.source, source, "{name} {segment}: ranks");
    assert_eq!(ranks.frozen_at, None, "{name} {segment}");
    assert_eq!(by_rank(&ranks.value), expected, "{name} {segment}: ranks of a list");
    for at_least in [-1, 0, 1, 9, 10, 11, 29, 30, 31, 50, 51, 110, 111, 1_000_000, 2_000_000] {
        let counted = e.reads().count_at_least(&s, at_least).await.unwrap();
        let has = expected.iter().filter(|(_, _, points)| *points >= at_least).count() as u64;
        assert_eq!((counted.value, counted.source), (has, source), "{name} {segment}: count ≥ {at_least}");
        assert_eq!(counted.frozen_at, None, "{name} {segment}");
    }
}

const SEGMENTS: [&str; 5] = ["province:zj", "province:js", "class:c1", "class:c2", "province:gd"];

#[tokio::test]
async fn counts_and_ranks_in_a_segment_agree_with_its_pages() {
    each_store(async |name, e, _| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let name = &format!("{name} {policy:?}");
            let b = board(policy);
            setup(e, &b).await;
            // Ranks within the segment, not the board's: u5 ties u2 in zj (30); under
            // `first_reached` u2 reached 30 first. u3 (js) is not in zj.
            let zj = scope(e, &b, Some("province:zj")).await;
            let listed = e.reads().ranks_of(&zj, &[m("u5"), m("u2"), m("u3")]).await.unwrap();
            let expected = match policy {
                TiePolicy::Shared => vec![("u2".to_owned(), 2, 30), ("u5".to_owned(), 2, 30)],
                TiePolicy::FirstReached => vec![("u2".to_owned(), 2, 30), ("u5".to_owned(), 3, 30)],
            };
            assert_eq!((by_rank(&listed.value), listed.source), (expected, ReadSource::Redis), "{name}");
            assert_eq!(e.reads().count_at_least(&zj, 30).await.unwrap().value, 3, "{name}");
            assert_eq!(e.reads().count_at_least(&zj, 31).await.unwrap().value, 1, "{name}");
            assert_eq!(
                e.reads().count_at_least(&scope(e, &b, None).await, 30).await.unwrap().value,
                4,
                "{name}"
            );
            for segment in SEGMENTS {
                counts_and_ranks_agree(name, e, &b, segment, ReadSource::Redis).await;
            }
            // While Redis cannot be read: the segment's totals in the ledger, the same answers.
            let down = without_redis(e);
            for segment in SEGMENTS {
                counts_and_ranks_agree(
                    &format!("{name} without Redis"),
                    &down,
                    &b,
                    segment,
                    ReadSource::Ledger,
                )
                .await;
            }

            // A hidden member leaves its segments' counts and ranks, as it leaves the board's.
            e.lifecycle()
                .hide_member(&scope(e, &b, None).await, &m("u5"), "admin:ann", "cheating")
                .await
                .unwrap();
            assert_eq!(e.reads().ranks_of(&zj, &[m("u5")]).await.unwrap().value, vec![], "{name}");
            assert_eq!(e.reads().count_at_least(&zj, 1).await.unwrap().value, 2, "{name}");
            let c2 = scope(e, &b, Some("class:c2")).await;
            assert_eq!(
                by_rank(&e.reads().ranks_of(&c2, &[m("u5"), m("u2")]).await.unwrap().value),
                [("u2".to_owned(), 1, 30)]
            );
            for segment in SEGMENTS {
                counts_and_ranks_agree(&format!("{name} hidden"), e, &b, segment, ReadSource::Redis).await;
            }
            let down = without_redis(e);
            for segment in SEGMENTS {
                let name = format!("{name} hidden, without Redis");
                counts_and_ranks_agree(&name, &down, &b, segment, ReadSource::Ledger).await;
            }

            // Archived: the period is read from its standings, a segment from its members' totals.
            let whole = scope(e, &b, None).await;
            for step in [Transition::Freeze, Transition::Settle, Transition::Archive] {
                e.lifecycle().transition(&whole, step, "admin:ann", None).await.unwrap();
            }
            for segment in SEGMENTS {
                counts_and_ranks_agree(&format!("{name} archived"), e, &b, segment, ReadSource::Ledger).await;
            }
            assert_eq!(e.reads().count_at_least(&zj, 1).await.unwrap().value, 2, "{name} archived");
        }
    })
    .await;
}

#[tokio::test]
async fn a_snapshot_of_a_segment_pages_like_its_ranking_on_the_segments_slot() {
    use redis::cluster_routing::Slot;
    each_store(async |name, e, p| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let name = &format!("{name} {policy:?}");
            let b = board(policy);
            setup(e, &b).await;
            let zj = scope(e, &b, Some("province:zj")).await;
            let live = e.reads().ranking_page(&zj, 0, 10).await.unwrap();
            let pinned = e.reads().create_snapshot(&zj).await.unwrap();
            assert_eq!(pinned.total, 3, "{name}");
            let page = e.reads().snapshot_page(&zj, &pinned.snapshot_id, 0, 10).await.unwrap();
            assert_eq!((rows(&page), page.total, page.has_more), (rows(&live), 3, false), "{name}");
            let tied = |page: &RankingPage| page.entries.iter().map(|x| x.tied).collect::<Vec<_>>();
            assert_eq!(tied(&page), tied(&live), "{name}");
            let second = e.reads().snapshot_page(&zj, &pinned.snapshot_id, 1, 1).await.unwrap();
            assert_eq!(rows(&second), rows(&live)[1..2].to_vec(), "{name}");
            assert!(second.has_more, "{name}");

            // The copy holds still while the segment's ranking moves.
            e.writes().record(&b, &[event("later", "u5", 100, &[])]).await.unwrap();
            let moved = e.reads().top(&zj, 1).await.unwrap();
            assert_eq!(rows(&moved), vec![row(1, "u5", 130)], "{name}");
            let again = e.reads().snapshot_page(&zj, &pinned.snapshot_id, 0, 10).await.unwrap();
            assert_eq!(rows(&again), rows(&live), "{name}");
            // Pins in the same window share the copy.
            let twice = e.reads().create_snapshot(&zj).await.unwrap();
            assert_eq!((&twice.snapshot_id, twice.total), (&pinned.snapshot_id, 3), "{name}");

            // Each ranking has its own copy: the board's and another segment's are not pinned.
            for other in [None, Some("province:js")] {
                let page =
                    e.reads().snapshot_page(&scope(e, &b, other).await, &pinned.snapshot_id, 0, 10).await;
                assert!(matches!(page, Err(EngineError::Gone(_))), "{name} {other:?}: {page:?}");
            }
            // A value nobody holds pins an empty page, and writes no key (checked below).
            let gd = scope(e, &b, Some("province:gd")).await;
            let empty = e.reads().create_snapshot(&gd).await.unwrap();
            assert_eq!(empty.total, 0, "{name}");
            let page = e.reads().snapshot_page(&gd, &empty.snapshot_id, 0, 10).await.unwrap();
            assert_eq!((page.total, page.entries.len()), (0, 0), "{name}");

            // The copy lives on the segment's slot, on the node of the segment's ranking.
            let rank = p.projection.keys().segment(&b.slug, &zj.period(), zj.segment().unwrap()).rank;
            let keys = p.keys().await;
            let node_of = |key: &str| keys.iter().find(|(_, k)| k == key).map(|(node, _)| node.clone());
            let rank_node = node_of(&rank).expect("the segment's ranking is in Redis");
            let copies: Vec<&(String, String)> = keys
                .iter()
                .filter(|(_, k)| k.contains(&format!("{{{}:", b.slug)) && k.contains(":snap:"))
                .collect();
            let zj_copies: Vec<_> = copies.iter().filter(|(_, k)| k.contains(":province=zj}")).collect();
            assert!(zj_copies.iter().any(|(_, k)| k.ends_with(&format!(":snap:{}", pinned.snapshot_id))));
            assert!(zj_copies.iter().any(|(_, k)| k.ends_with(":info")), "{name}: {zj_copies:?}");
            for (node, key) in zj_copies {
                assert_eq!(Slot::for_key(key), Slot::for_key(&rank), "{name}: {key}");
                assert_eq!(node, &rank_node, "{name}: {key}");
            }
            // Keys of zj's pin only: none of the board's ranking, none for a value nobody holds.
            assert!(copies.iter().all(|(_, k)| k.contains(":province=zj}")), "{name}: {copies:?}");

            // A copy is made in Redis: without it, a pin fails (503) rather than answer wrongly.
            let down = without_redis(e);
            let zj_down =
                down.reads().scope(&b.slug, None).await.unwrap().in_segment(Some("province:zj")).unwrap();
            let refused = down.reads().create_snapshot(&zj_down).await;
            assert!(matches!(refused, Err(EngineError::Redis(_))), "{name}: {refused:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_public_freeze_closes_segments_to_every_public_read() {
    each_store(async |name, e, _| {
        let b = board(TiePolicy::Shared);
        setup(e, &b).await;
        let code = |r: Result<_, EngineError>| match r {
            Err(EngineError::Refused { code, .. }) => code.as_str(),
            Err(other) => panic!("{name}: {other}"),
            Ok(_) => panic!("{name}: answered"),
        };
        let zj = scope(e, &b, Some("province:zj")).await;
        // Before the freeze, counts, ranks and pins read the segment.
        assert_eq!(e.reads().count_at_least(&zj, 1).await.unwrap().value, 3, "{name}");
        assert_eq!(e.reads().ranks_of(&zj, &[m("u1")]).await.unwrap().value[0].rank, 1, "{name}");
        let pinned = e.reads().create_snapshot(&zj).await.unwrap();
        let undeclared = e.reads().scope(&b.slug, None).await.unwrap().in_segment(Some("city:hz"));
        assert!(matches!(undeclared, Err(EngineError::Invalid(_))), "{name}");

        e.lifecycle().public_freeze(&scope(e, &b, None).await, "admin:ann", None).await.unwrap();
        e.writes().record(&b, &[event("after", "u2", 100, &[])]).await.unwrap();
        let zj = scope(e, &b, Some("province:zj")).await;
        assert_eq!(code(e.reads().top(&zj, 10).await.map(|_| ())), "segment_frozen", "{name}");
        assert_eq!(code(e.reads().around(&zj, &m("u2"), 1).await.map(|_| ())), "segment_frozen");
        assert_eq!(code(e.reads().entries_after(&zj, None, 5).await.map(|_| ())), "segment_frozen");
        assert_eq!(code(e.reads().count_at_least(&zj, 1).await.map(|_| ())), "segment_frozen", "{name}");
        assert_eq!(code(e.reads().ranks_of(&zj, &[m("u2")]).await.map(|_| ())), "segment_frozen", "{name}");
        assert_eq!(code(e.reads().create_snapshot(&zj).await.map(|_| ())), "segment_frozen", "{name}");
        let copy = e.reads().snapshot_page(&zj, &pinned.snapshot_id, 0, 10).await;
        assert_eq!(code(copy.map(|_| ())), "segment_frozen", "{name}");
        let list = e.reads().segment_values(Viewer::Public, &scope(e, &b, None).await, "province").await;
        assert_eq!(code(list.map(|_| ())), "segment_frozen");
        // So does a public read without Redis.
        let down = without_redis(e);
        let zj_down =
            down.reads().scope(&b.slug, None).await.unwrap().in_segment(Some("province:zj")).unwrap();
        assert_eq!(
            code(down.reads().count_at_least(&zj_down, 1).await.map(|_| ())),
            "segment_frozen",
            "{name}"
        );
        assert_eq!(code(down.reads().ranks_of(&zj_down, &[m("u2")]).await.map(|_| ())), "segment_frozen");
        // The board's count and ranks read its public view: u2 still has 30 there.
        let whole = scope(e, &b, None).await;
        let counted = e.reads().count_at_least(&whole, 100).await.unwrap();
        assert_eq!((counted.value, counted.frozen_at.is_some()), (0, true), "{name}");
        assert_eq!(e.reads().ranks_of(&whole, &[m("u2")]).await.unwrap().value[0].points, 30, "{name}");
        // Admins read the segment live.
        let live = e.reads().around_as(Viewer::Admin, &zj, &m("u2"), 0).await.unwrap();
        assert_eq!(rows(&live), vec![row(1, "u2", 130)], "{name}");
        assert!(e.reads().segment_values(Viewer::Admin, &scope(e, &b, None).await, "province").await.is_ok());
    })
    .await;
}
