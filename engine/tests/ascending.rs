//! Ascending boards (`sort: asc`, lower is better) on real stores (Redis standalone and Cluster ×
//! SQLite and PostgreSQL).
//!
//! - A property test: random writes under each operator and each tie policy, then the ranking
//!   read from Redis and from the ledger (an engine over the same ledger whose Redis cannot be
//!   reached, so every read falls back) equal a straightforward model's order, ranks and
//!   threshold counts.
//! - An ascending board read every way: cursor pages and around-me from Redis and from the
//!   ledger, a snapshot, the distribution and a member's targets and points chart; then its
//!   settlement: standings, shared prizes and the digest (the domain's own, and unchanged when
//!   settled again).
//! - Previews, frozen and settled, under both tie policies, and the revision they predict.
//! - A settled period exported from SQLite and imported into PostgreSQL: same order, unit,
//!   standings and digest.

mod common;

use common::{each_store, unique};
use domain::board::{BoardDraft, Prize};
use domain::view::ReadSource;
use domain::write::{Change, Outcome, Write};
use domain::{Board, EventId, MemberId, Sort, TiePolicy, Transition};
use engine::Engine;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::BTreeMap;

/// The bounds of the property test's boards: small, so ties and refused writes are common.
const LOW: i64 = -6;
const HIGH: i64 = 6;
const MEMBERS: usize = 5;

fn asc_board(tag: &str, operator: &str, policy: TiePolicy, low: i64, high: i64, prizes: Vec<Prize>) -> Board {
    let draft = BoardDraft {
        slug: unique(tag).replace('_', "-").to_lowercase(),
        title: tag.into(),
        cadence: "weekly".into(),
        time_zone: "UTC".into(),
        operator: operator.into(),
        tie_policy: policy.as_str().into(),
        max_points: high,
        min_points: Some(low),
        prizes,
        sort: Some("asc".into()),
        unit: Some("ms".into()),
        ..BoardDraft::default()
    };
    draft.parse().unwrap()
}

/// An engine over `e`'s ledger whose Redis cannot be reached: every ranking read falls back to
/// the ledger.
fn without_redis(e: &Engine) -> Engine {
    let target = engine::redis::RedisTarget::parse("redis://127.0.0.1:1").unwrap();
    let keys = engine::redis::keys::KeySpace::new(unique("unreachable"));
    Engine::from_parts(e.ledger().clone(), engine::redis::Projection::new(target, keys))
}

fn m(i: usize) -> MemberId {
    MemberId::parse(format!("m{i}")).unwrap()
}

/// One write of the property test: a member and the value its operator carries.
#[derive(Debug, Clone)]
enum Op {
    Incr(i64),
    Set { version: i64, total: i64 },
    Best(i64),
}

fn ops(operator: &'static str) -> impl Strategy<Value = Vec<(usize, Op)>> {
    let op = match operator {
        "incr" => (-4i64..=4).prop_map(Op::Incr).boxed(),
        "set" => (1i64..=6, LOW..=HIGH).prop_map(|(version, total)| Op::Set { version, total }).boxed(),
        _ => (LOW..=HIGH).prop_map(Op::Best).boxed(),
    };
    prop::collection::vec((0..MEMBERS, op), 1..14)
}

/// A member's total in the model: points, when they were last reached (the write's index),
/// and the last applied `set` version.
#[derive(Debug, Clone, Copy)]
struct Held {
    points: i64,
    reached: usize,
    set_version: i64,
}

/// The model: what each operator does on a lower-is-better board, written plainly.
fn model(writes: &[(usize, Op)]) -> BTreeMap<MemberId, Held> {
    let mut held: BTreeMap<MemberId, Held> = BTreeMap::new();
    for (t, (member, op)) in writes.iter().enumerate() {
        let before = held.get(&m(*member)).copied();
        let points = before.map_or(0, |h| h.points);
        let set_version = before.map_or(0, |h| h.set_version);
        let (new, new_version) = match *op {
            Op::Incr(delta) => (points + delta, set_version),
            Op::Set { version, .. } if version <= set_version => continue,
            Op::Set { version, total } => (total, version),
            // The lowest submission counts; the first always does.
            Op::Best(score) if before.is_some() && score >= points => continue,
            Op::Best(score) => (score, set_version),
        };
        if !(LOW..=HIGH).contains(&new) {
            continue; // refused: outside the board's bounds
        }
        let reached = match before {
            Some(h) if h.points == new => h.reached,
            _ => t,
        };
        held.insert(m(*member), Held { points: new, reached, set_version: new_version });
    }
    held
}

/// The model's ranking, best first: (rank, member, points).
fn ranking(policy: TiePolicy, held: &BTreeMap<MemberId, Held>) -> Vec<(u64, String, i64)> {
    let mut rows: Vec<(&MemberId, &Held)> = held.iter().collect();
    rows.sort_by(|(ma, a), (mb, b)| {
        a.points.cmp(&b.points).then_with(|| match policy {
            TiePolicy::FirstReached => a.reached.cmp(&b.reached),
            // Equal scores: member id descending, as Redis orders them.
            TiePolicy::Shared => mb.cmp(ma),
        })
    });
    rows.iter()
        .enumerate()
        .map(|(i, (member, h))| {
            let rank = match policy {
                TiePolicy::FirstReached => i as u64 + 1,
                TiePolicy::Shared => 1 + rows.iter().filter(|(_, o)| o.points < h.points).count() as u64,
            };
            (rank, member.to_string(), h.points)
        })
        .collect()
}

fn write_of(n: usize, member: usize, op: &Op) -> Write {
    let id = EventId::parse(format!("w{n}")).unwrap();
    let change = match *op {
        Op::Incr(delta) => Change::Point { event_id: id, delta },
        Op::Set { version, total } => Change::Total { version, total },
        Op::Best(score) => Change::Submission { submission_id: id, score },
    };
    Write {
        member: m(member),
        change,
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: Default::default(),
    }
}

async fn read_all(e: &Engine, b: &Board) -> (Vec<(u64, String, i64)>, ReadSource) {
    let page = e.reads().ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), 0, 200).await.unwrap();
    let rows = page.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)).collect();
    (rows, page.source)
}

/// One case: a fresh ascending board, the writes one by one (so the reach order is the writes'
/// order), then the reads from Redis and from the ledger against the model.
async fn check(
    e: &Engine,
    fallback: &Engine,
    name: &str,
    operator: &'static str,
    policy: TiePolicy,
    writes: &[(usize, Op)],
    threshold: i64,
) -> Result<(), TestCaseError> {
    let b = asc_board("asc-prop", operator, policy, LOW, HIGH, vec![]);
    e.boards().create_board(&b).await.unwrap();
    // Write with the board as the ledger stored it, so its order went through the migration.
    let stored = e.reads().scope(&b.slug, None).await.unwrap().board().clone();
    prop_assert_eq!(stored.sort(), Sort::Asc);
    for (n, (member, op)) in writes.iter().enumerate() {
        let out = e.writes().record(&stored, &[write_of(n, *member, op)]).await.unwrap();
        let r = &out[0];
        prop_assert!(
            r.recorded.outcome != Outcome::Applied && r.recorded.outcome != Outcome::Improved || r.projected,
            "{}: not projected: {:?}",
            name,
            r
        );
    }
    let expected = ranking(policy, &model(writes));
    let ctx = format!("{name} {operator}/{policy} writes={writes:?}");

    let (live, source) = read_all(e, &b).await;
    prop_assert_eq!(source, ReadSource::Redis, "{}", ctx);
    prop_assert_eq!(&live, &expected, "{}: Redis", ctx);
    let (ledger, source) = read_all(fallback, &b).await;
    prop_assert_eq!(source, ReadSource::Ledger, "{}", ctx);
    prop_assert_eq!(&ledger, &expected, "{}: ledger", ctx);

    // "At least as good as `threshold`": at most that many points.
    let counted = expected.iter().filter(|(_, _, p)| *p <= threshold).count() as u64;
    let scope = e.reads().scope(&b.slug, None).await.unwrap();
    let live = e.reads().count_at_least(&scope, threshold).await.unwrap();
    prop_assert_eq!((live.value, live.source), (counted, ReadSource::Redis), "{}: count {}", ctx, threshold);
    let scope = fallback.reads().scope(&b.slug, None).await.unwrap();
    let ledger = fallback.reads().count_at_least(&scope, threshold).await.unwrap();
    prop_assert_eq!(
        (ledger.value, ledger.source),
        (counted, ReadSource::Ledger),
        "{}: count {}",
        ctx,
        threshold
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ascending_boards_rank_as_the_model_under_every_operator_and_tie_policy() {
    each_store(async |name, e, _| {
        let fallback = without_redis(e);
        for operator in ["incr", "set", "best"] {
            for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
                // Each case writes to a board of its own; shrinking replays cases the same way.
                let mut runner =
                    TestRunner::new(Config { cases: 12, failure_persistence: None, ..Config::default() });
                let strategy = (ops(operator), LOW - 1..=HIGH + 1);
                let handle = tokio::runtime::Handle::current();
                let result = tokio::task::block_in_place(|| {
                    runner.run(&strategy, |(writes, threshold)| {
                        handle.block_on(check(e, &fallback, name, operator, policy, &writes, threshold))
                    })
                });
                if let Err(failure) = result {
                    panic!("{name} {operator}/{policy}: {failure}");
                }
            }
        }
    })
    .await;
}

#[tokio::test]
async fn an_ascending_board_settles_pages_and_finds_members_in_its_order() {
    each_store(async |name, e, _| {
        let prizes = vec![
            Prize { from_rank: 1, to_rank: 1, prize: "gold".into() },
            Prize { from_rank: 2, to_rank: 3, prize: "silver".into() },
        ];
        let b = asc_board("asc-settle", "best", TiePolicy::Shared, 0, 3_600_000, prizes);
        e.boards().create_board(&b).await.unwrap();
        let sub = |id: &str, member: &str, score| Write {
            member: MemberId::parse(member).unwrap(),
            change: Change::Submission { submission_id: EventId::parse(id).unwrap(), score },
            occurred_at: jiff::Timestamp::now(),
            metadata: None,
            segments: Default::default(),
        };
        let writes = [
            (sub("s1", "u1", 62_345), Outcome::Improved),
            (sub("s2", "u1", 61_000), Outcome::Improved),
            // Slower than u1's best: recorded, the total stays.
            (sub("s3", "u1", 65_000), Outcome::NotHigher),
            (sub("s4", "u2", 61_000), Outcome::Improved),
            (sub("s5", "u3", 70_000), Outcome::Improved),
            (sub("s6", "u4", 59_000), Outcome::Improved),
            (sub("s7", "u5", 80_000), Outcome::Improved),
        ];
        for (w, outcome) in &writes {
            let out = e.writes().record(&b, std::slice::from_ref(w)).await.unwrap();
            assert_eq!(out[0].recorded.outcome, *outcome, "{name}: {w:?}");
        }
        let fallback = without_redis(e);
        let period = b.period_at(jiff::Timestamp::now()).to_string();
        let order = ["u4", "u2", "u1", "u3", "u5"];

        // Cursor pages of two: every member once, in the board's order, from either store.
        for (reader, source) in [(e, ReadSource::Redis), (&fallback, ReadSource::Ledger)] {
            let mut seen = Vec::new();
            let mut cursor = None;
            loop {
                let scope = reader.reads().scope(&b.slug, None).await.unwrap();
                let page = reader.reads().entries_after(&scope, cursor.as_deref(), 2).await.unwrap();
                assert_eq!(page.page.source, source, "{name}");
                seen.extend(page.page.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)));
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            let members: Vec<&str> = seen.iter().map(|(_, m, _)| m.as_str()).collect();
            assert_eq!(members, order, "{name}: cursor pages from {source:?}");
            let ranks: Vec<u64> = seen.iter().map(|(r, _, _)| *r).collect();
            assert_eq!(ranks, [1, 2, 2, 4, 5], "{name}: {source:?}");

            // Around u1: the member ahead (u2, tied) and behind (u3).
            let scope = reader.reads().scope(&b.slug, None).await.unwrap();
            let around = reader.reads().around(&scope, &MemberId::parse("u1").unwrap(), 1).await.unwrap();
            let rows: Vec<(u64, String, i64)> =
                around.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)).collect();
            assert_eq!(
                rows,
                [(2, "u2".into(), 61_000), (2, "u1".into(), 61_000), (4, "u3".into(), 70_000)],
                "{name}: around from {source:?}"
            );
        }

        // A snapshot pins the same order, and a later faster time does not move it.
        let scope = e.reads().scope(&b.slug, None).await.unwrap();
        let snap = e.reads().create_snapshot(&scope).await.unwrap();
        let before_pinned = e.reads().snapshot_page(&scope, &snap.snapshot_id, 0, 10).await.unwrap();
        let out = e.writes().record(&b, &[sub("s8", "u5", 1_000)]).await.unwrap();
        assert_eq!(out[0].recorded.outcome, Outcome::Improved, "{name}");
        let pinned = e.reads().snapshot_page(&scope, &snap.snapshot_id, 0, 10).await.unwrap();
        let members = |p: &domain::view::RankingPage| {
            p.entries.iter().map(|x| x.member.to_string()).collect::<Vec<_>>()
        };
        assert_eq!(members(&pinned), order, "{name}: the snapshot");
        assert_eq!(members(&pinned), members(&before_pinned), "{name}");
        let order = ["u5", "u4", "u2", "u1", "u3"];
        let live = e.reads().ranking_page(&scope, 0, 10).await.unwrap();
        assert_eq!(members(&live), order, "{name}: live after u5's 1 000 ms");

        // The distribution counts everyone once, lowest bins first; u3 must shed 9 000 ms to
        // share rank 3 with the tied pair (1 u5, 2 u4, 3 u2 u1).
        let shape = e.reads().distribution(&scope, None).await.unwrap();
        assert_eq!(shape.bins.iter().map(|b| b.members).sum::<u64>(), 5, "{name}: {:?}", shape.bins);
        assert!(shape.bins.first().is_some_and(|b| b.from <= 1_000), "{name}: {:?}", shape.bins);
        assert!(shape.bins.last().is_some_and(|b| b.to > 70_000), "{name}: {:?}", shape.bins);
        let u1 = shape.bins.iter().find(|b| b.from <= 61_000 && 61_000 < b.to).unwrap();
        assert!(u1.members >= 2, "{name}: the tied pair's bin {:?}", shape.bins);
        let history = e.reads().member_history(&scope, &MemberId::parse("u3").unwrap()).await.unwrap();
        let next = history.next_rank.expect("u3 is not first");
        assert_eq!((next.rank, next.points), (3, 9_000), "{name}");
        assert_eq!(history.steps.last().map(|s| s.points), Some(70_000), "{name}");
        let history = e.reads().member_history(&scope, &MemberId::parse("u1").unwrap()).await.unwrap();
        let points: Vec<i64> = history.steps.iter().map(|s| s.points).collect();
        assert_eq!(points, [62_345, 61_000, 61_000], "{name}: the slower time changes nothing");

        // Settle, twice: fastest first, the tied pair shares silver, the same digest both times.
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        e.lifecycle().transition(&scope, Transition::Freeze, "admin", None).await.unwrap();
        e.lifecycle().transition(&scope, Transition::Settle, "admin", None).await.unwrap();
        let first = e.lifecycle().settlement(&scope).await.unwrap();
        let standings: Vec<(u64, &str, i64, Option<&str>)> = first
            .standings
            .iter()
            .map(|s| (s.rank, s.member.as_str(), s.points, s.prize.as_deref()))
            .collect();
        assert_eq!(
            standings,
            [
                (1, "u5", 1_000, Some("gold")),
                (2, "u4", 59_000, Some("silver")),
                (3, "u2", 61_000, Some("silver")),
                (3, "u1", 61_000, Some("silver")),
                (5, "u3", 70_000, None),
            ],
            "{name}"
        );
        let totals = [("u1", 61_000), ("u2", 61_000), ("u3", 70_000), ("u4", 59_000), ("u5", 1_000)];
        assert_eq!(first.digest, common::expected_digest(&b, &period, &totals), "{name}");
        e.lifecycle().transition(&scope, Transition::Settle, "admin", None).await.unwrap();
        let again = e.lifecycle().settlement(&scope).await.unwrap();
        assert_eq!((again.revision, &again.digest), (first.revision, &first.digest), "{name}: settled again");

        // The settled period's threshold count: at most 61 000 ms.
        let counted = e.reads().count_at_least(&scope, 61_000).await.unwrap();
        assert_eq!(counted.value, 4, "{name}");
    })
    .await;
}

/// Previews of an ascending board, frozen (totals ranked in memory) and settled (the stored
/// standings read where they look), answer alike under both tie policies — forty members on
/// five point values, so every change lands in a tie — and applying the settled one records the
/// digest it predicted, with the standings lowest first.
#[tokio::test]
async fn previews_of_an_ascending_board_agree_frozen_and_settled_and_predict_the_revision() {
    use domain::preview::PreviewChange;
    let ev = |id: &str| EventId::parse(id).unwrap();
    let m = |id: &str| MemberId::parse(id).unwrap();
    each_store(async |name, e, _| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let mut b = common::prized_board("pvasc", policy, 60);
            b.codec = b.codec.sorted(Sort::Asc);
            e.boards().create_board(&b).await.unwrap();
            let writes: Vec<_> = (0..40)
                .map(|i| common::point(&format!("e{i}"), &format!("u{i}"), ((i * 7) % 5) as i64 * 10 + 10))
                .collect();
            e.writes().record(&b, &writes).await.unwrap();
            let period = b.period_at(jiff::Timestamp::now()).to_string();
            let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
            let changes = vec![
                PreviewChange::Correct { member: m("u3"), delta: -20 },
                PreviewChange::Revoke(ev("e10")),
                PreviewChange::Hide(m("u7")),
                PreviewChange::RevokeMember(m("u12")),
                PreviewChange::Correct { member: m("u20"), delta: 10 },
                PreviewChange::Correct { member: m("u31"), delta: -30 },
            ];
            e.lifecycle().transition(&scope, Transition::Freeze, "admin:ann", None).await.unwrap();
            let frozen = e.lifecycle().preview(&scope, "check", changes.clone(), "admin:ann").await.unwrap();
            e.lifecycle().transition(&scope, Transition::Settle, "admin:ann", None).await.unwrap();
            let first = e.lifecycle().settlement(&scope).await.unwrap();
            let points: Vec<i64> = first.standings.iter().map(|s| s.points).collect();
            assert!(points.windows(2).all(|w| w[0] <= w[1]), "{name}: lowest first {points:?}");
            let settled = e.lifecycle().preview(&scope, "check", changes, "admin:ann").await.unwrap();
            let at = format!("{name} {policy:?}");
            assert_eq!(settled.moves, frozen.moves, "{at}");
            assert!(settled.moves.len() >= 5, "{at}: {:?}", settled.moves);
            assert_eq!(
                (settled.shifted, &settled.shifted_members),
                (frozen.shifted, &frozen.shifted_members),
                "{at}"
            );
            assert!(settled.shifted > 0, "{at}");
            assert_eq!(settled.prizes, frozen.prizes, "{at}");
            e.lifecycle().apply_preview(&scope, &settled.preview_id, "admin:bob").await.unwrap();
            let revision = e.lifecycle().settlement(&scope).await.unwrap();
            assert_eq!((revision.revision, Some(revision.digest.clone())), (2, settled.digest_after), "{at}");
            // Every rank the preview predicted is the revision's; the fastest (0 points: u3,
            // u10, u12 and u31 after the changes) win gold.
            let rank_of =
                |member: &MemberId| revision.standings.iter().find(|s| &s.member == member).map(|s| s.rank);
            for moved in settled.moves.iter().chain(&settled.shifted_members) {
                assert_eq!(moved.rank_after, rank_of(&moved.member), "{at}: {moved:?}");
            }
            let top = &revision.standings[0];
            assert_eq!((top.rank, top.points, top.prize.as_deref()), (1, 0, Some("gold")), "{at}");
            let points: Vec<i64> = revision.standings.iter().map(|s| s.points).collect();
            assert!(points.windows(2).all(|w| w[0] <= w[1]), "{at}: lowest first {points:?}");
        }
    })
    .await;
}

/// An ascending board's settled period exported from one ledger and imported into the other
/// keeps its order and unit, its standings and its digest.
#[tokio::test]
async fn an_exported_ascending_period_imports_with_its_order_and_digest() {
    use common::{TestLedger, TestProjection, engine, redis_targets};
    let (_, target) = redis_targets().remove(0);
    let (a, b) = (TestLedger::sqlite().await, TestLedger::postgres().await);
    let (pa, pb) = (TestProjection::new(target.clone()), TestProjection::new(target.clone()));
    let (source, dest) = (engine(&a, &pa).await, engine(&b, &pb).await);
    let board = asc_board("asc-move", "incr", TiePolicy::Shared, 0, 3_600_000, vec![]);
    source.boards().create_board(&board).await.unwrap();
    let writes = [common::point("e1", "u1", 62_345), common::point("e2", "u2", 59_000)];
    source.writes().record(&board, &writes).await.unwrap();
    let key = board.period_at(jiff::Timestamp::now()).to_string();
    let scope = source.reads().scope(&board.slug, Some(&key)).await.unwrap();
    source.lifecycle().transition(&scope, Transition::Freeze, "admin", None).await.unwrap();
    source.lifecycle().transition(&scope, Transition::Settle, "admin", None).await.unwrap();
    let export = source.transfer().export_period(&scope).await.unwrap();
    let text = serde_json::to_string(&export).unwrap();
    assert!(text.contains(r#""sort":"asc""#) && text.contains(r#""unit":"ms""#), "{text}");
    let report = dest.transfer().import_period(&serde_json::from_str(&text).unwrap()).await.unwrap();
    let before = source.lifecycle().settlement(&scope).await.unwrap();
    let after = dest
        .lifecycle()
        .settlement(&dest.reads().scope(&board.slug, Some(&key)).await.unwrap())
        .await
        .unwrap();
    assert_eq!(
        (report.digest.as_str(), after.digest.as_str()),
        (before.digest.as_str(), before.digest.as_str())
    );
    assert_eq!(after.standings, before.standings);
    assert_eq!(after.standings[0].member.as_str(), "u2", "the fastest first");
    assert_eq!(dest.reads().board(&board.slug).await.unwrap(), board);
    pa.cleanup().await;
    pb.cleanup().await;
    a.drop_db().await;
    b.drop_db().await;
}
