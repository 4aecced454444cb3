//! The board as of any moment on both ledgers (SQLite and PostgreSQL, Redis standalone).
//!
//! - A property test: random writes, revocations and corrections under each operator and tie
//!   policy, one at a time; after each, the instant and the live ranking. The ranking as of each
//!   instant equals the live ranking read then (order, ranks, points) and a plain model of the
//!   points; before the first write it is empty.
//! - `changes` between any two of those instants equals the difference of the two as-of reads.
//! - The ledger's past reads page by two members or entries here, so pages are crossed.
//! - A public freeze holds: the public's as-of never sees a write made after it, admins do;
//!   a hidden member is left out; around-me and paging.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets, unique};
use domain::board::BoardDraft;
use domain::write::{Change, Write};
use domain::{Board, EventId, MemberId, TiePolicy};
use engine::lifecycle::Correction;
use engine::reads::asof::AsOfWindow;
use engine::scope::Scope;
use engine::{Engine, Viewer};
use jiff::Timestamp;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::{BTreeMap, BTreeSet};

const MEMBERS: usize = 5;

fn board(operator: &str, policy: TiePolicy) -> Board {
    let draft = BoardDraft {
        slug: unique("asof").replace('_', "-").to_lowercase(),
        title: "as of".into(),
        cadence: "weekly".into(),
        time_zone: "UTC".into(),
        operator: operator.into(),
        tie_policy: policy.as_str().into(),
        max_points: 1000,
        min_points: Some(-1000),
        ..BoardDraft::default()
    };
    draft.parse().unwrap()
}

fn m(i: usize) -> MemberId {
    MemberId::parse(format!("m{i}")).unwrap()
}

#[derive(Debug, Clone)]
enum Op {
    /// A write of the board's operator: a delta, a score, or a total with its version.
    Write {
        member: usize,
        value: i64,
        version: i64,
    },
    /// Revokes the k-th write made so far (modulo their number), if it has an id.
    Revoke(usize),
    Correct {
        member: usize,
        delta: i64,
    },
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        5 => (0..MEMBERS, -4i64..=6, 1i64..=4).prop_map(|(member, value, version)| Op::Write { member, value, version }),
        2 => (0usize..32).prop_map(Op::Revoke),
        1 => (0..MEMBERS, -3i64..=3).prop_map(|(member, delta)| Op::Correct { member, delta }),
    ];
    prop::collection::vec(op, 1..14)
}

/// (rank, member, points) of a ranking, best first.
type Rows = Vec<(u64, String, i64)>;

/// The model: each member's points as the ledger's rules say, written plainly. A write or a
/// correction moves the total it meets; a revocation recomputes the total from the entries left,
/// the first of them counting whatever it is.
#[derive(Default)]
struct Model {
    /// Per member, in order: (operation index, value, version, is a correction).
    entries: BTreeMap<MemberId, Vec<(usize, i64, i64, bool)>>,
    revoked: BTreeSet<usize>,
    /// Per member: (points, set version).
    held: BTreeMap<MemberId, (i64, i64)>,
}

impl Model {
    fn write(
        &mut self,
        operator: &str,
        member: MemberId,
        n: usize,
        value: i64,
        version: i64,
        correction: bool,
    ) -> bool {
        let before = self.held.get(&member).copied();
        let (points, set_version) = before.unwrap_or((0, 0));
        let after = match operator {
            _ if correction => (points + value, set_version),
            "incr" => (points + value, set_version),
            "best" if before.is_none() || value > points => (value, set_version),
            "best" => (points, set_version),
            _ if version <= set_version => return false,
            _ => (value, version),
        };
        self.held.insert(member.clone(), after);
        self.entries.entry(member).or_default().push((n, value, version, correction));
        true
    }

    fn revoke(&mut self, operator: &str, n: usize) {
        // A repeat revoke changes nothing, as in the ledger.
        if !self.revoked.insert(n) {
            return;
        }
        for (member, entries) in &self.entries {
            if !entries.iter().any(|e| e.0 == n) {
                continue;
            }
            let (mut points, mut set_version, mut first) = (0, 0, true);
            for &(n, value, version, correction) in entries.iter().filter(|e| !self.revoked.contains(&e.0)) {
                match operator {
                    _ if correction => points += value,
                    "incr" => points += value,
                    "best" if first || value > points => points = value,
                    "set" if first || version > set_version => (points, set_version) = (value, version),
                    _ => {}
                }
                let _ = n;
                first = false;
            }
            self.held.insert(member.clone(), (points, set_version));
        }
    }

    fn points(&self) -> BTreeMap<String, i64> {
        self.held.iter().map(|(m, (p, _))| (m.to_string(), *p)).collect()
    }
}

async fn as_of_all(e: &Engine, viewer: Viewer, scope: &Scope, at: Timestamp) -> Rows {
    let page = e.reads().as_of(viewer, scope, at, AsOfWindow::Page { offset: 0, limit: 200 }).await.unwrap();
    assert!(!page.has_more);
    assert_eq!(page.total as usize, page.entries.len());
    page.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)).collect()
}

async fn live_all(e: &Engine, scope: &Scope) -> Rows {
    let page = e.reads().ranking_page_as(Viewer::Admin, scope, 0, 200).await.unwrap();
    page.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)).collect()
}

/// A member's move: (member, rank before, rank after).
type Move = (String, Option<u64>, Option<u64>);

/// The difference of two rankings in their top `top`, as `changes` should answer it:
/// (entered, left, moves as (member, from rank, to rank)).
fn difference(before: &Rows, after: &Rows, top: u64) -> (Vec<String>, Vec<String>, Vec<Move>) {
    let rank = |rows: &Rows, m: &str| rows.iter().find(|r| r.1 == m).map(|r| r.0);
    let top_of = |rows: &Rows| rows.iter().filter(|r| r.0 <= top).map(|r| r.1.clone()).collect::<Vec<_>>();
    let (tb, ta) = (top_of(before), top_of(after));
    let entered = ta.iter().filter(|m| !tb.contains(m)).cloned().collect();
    let left = tb.iter().filter(|m| !ta.contains(m)).cloned().collect();
    let mut moves: Vec<_> = ta
        .iter()
        .chain(tb.iter().filter(|m| !ta.contains(m)))
        .map(|m| (m.clone(), rank(before, m), rank(after, m)))
        .filter(|(_, a, b)| a != b)
        .collect();
    moves.sort_by_key(|(_, from, to)| (to.is_none(), *to, *from));
    (entered, left, moves)
}

async fn check(
    e: &Engine,
    name: &str,
    operator: &str,
    policy: TiePolicy,
    ops: &[Op],
    pairs: &[(usize, usize, u64)],
) -> Result<(), TestCaseError> {
    let b = board(operator, policy);
    e.boards().create_board(&b).await.unwrap();
    let scope = e.reads().scope(&b.slug, None).await.unwrap();
    let ctx = format!("{name} {operator}/{policy}");
    let before_any = Timestamp::now();
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    let mut model = Model::default();
    // Each write's event id (None for `set`, which cannot be revoked).
    let mut written: Vec<(usize, Option<EventId>)> = Vec::new();
    // After each operation: (instant, live ranking, model points).
    let mut moments: Vec<(Timestamp, Rows, BTreeMap<String, i64>)> = Vec::new();
    for (n, op) in ops.iter().enumerate() {
        match *op {
            Op::Write { member, value, version } => {
                let id = EventId::parse(format!("w{n}")).unwrap();
                let change = match operator {
                    "incr" => Change::Point { event_id: id.clone(), delta: value },
                    "best" => Change::Submission { submission_id: id.clone(), score: value },
                    _ => Change::Total { version, total: value },
                };
                let write = Write {
                    member: m(member),
                    change,
                    occurred_at: Timestamp::now(),
                    metadata: None,
                    segments: Default::default(),
                };
                let out = e.writes().record(&b, &[write]).await.unwrap();
                let recorded = model.write(operator, m(member), n, value, version, false);
                let stale = out[0].recorded.outcome == domain::write::Outcome::Stale;
                prop_assert_eq!(recorded, !stale, "{}: op {}", ctx, n);
                written.push((n, (operator != "set").then_some(id)));
            }
            Op::Revoke(k) if !written.is_empty() => {
                let (n, id) = &written[k % written.len()];
                if let Some(id) = id {
                    e.lifecycle().revoke(&b.slug, id, "admin:test", "as-of test").await.unwrap();
                    model.revoke(operator, *n);
                }
            }
            Op::Revoke(_) => {}
            Op::Correct { member, delta } => {
                let correction = Correction {
                    member: m(member),
                    delta,
                    correction_id: Some(EventId::parse(format!("c{n}")).unwrap()),
                    reason: "as-of test".into(),
                };
                e.lifecycle().correct(&scope, &correction, "admin:test").await.unwrap();
                model.write(operator, m(member), n, delta, 0, true);
            }
        }
        // The next operation is recorded strictly after this instant.
        let at = Timestamp::now();
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        moments.push((at, live_all(e, &scope).await, model.points()));
    }
    prop_assert!(
        as_of_all(e, Viewer::Admin, &scope, before_any).await.is_empty(),
        "{}: before any write",
        ctx
    );
    let mut read = Vec::new();
    for (i, (at, live, points)) in moments.iter().enumerate() {
        let rows = as_of_all(e, Viewer::Admin, &scope, *at).await;
        prop_assert_eq!(&rows, live, "{}: as of op {} {:?}", ctx, i, &ops[..=i]);
        let got: BTreeMap<String, i64> = rows.iter().map(|r| (r.1.clone(), r.2)).collect();
        prop_assert_eq!(&got, points, "{}: model at op {}", ctx, i);
        read.push(rows);
    }
    for &(i, j, top) in pairs {
        let (i, j) = (i % moments.len(), j % moments.len());
        let (i, j) = (i.min(j), i.max(j));
        let c =
            e.reads().changes_between(Viewer::Admin, &scope, moments[i].0, moments[j].0, top).await.unwrap();
        let names = |v: &[domain::asof::RankMove]| v.iter().map(|x| x.member.to_string()).collect::<Vec<_>>();
        let moves: Vec<_> = c.moves.iter().map(|x| (x.member.to_string(), x.from_rank, x.to_rank)).collect();
        let (entered, left, expected_moves) = difference(&read[i], &read[j], top);
        prop_assert_eq!(names(&c.entered), entered, "{}: entered {}..{} top {}", ctx, i, j, top);
        prop_assert_eq!(names(&c.left), left, "{}: left {}..{} top {}", ctx, i, j, top);
        prop_assert_eq!(moves, expected_moves, "{}: moves {}..{} top {}", ctx, i, j, top);
    }
    Ok(())
}

/// Both ledgers, each with a fresh Redis prefix.
async fn each_ledger(test: impl AsyncFn(&str, &Engine)) {
    let (_, target) = redis_targets().remove(0);
    for t in TestLedger::both().await {
        let p = TestProjection::new(target.clone());
        let e = engine(&t, &p).await;
        test(t.name, &e).await;
        p.cleanup().await;
        t.drop_db().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_of_equals_the_live_ranking_and_a_model_at_random_instants_and_changes_their_difference() {
    // Two members (SQLite) or two entries (PostgreSQL) per statement, so that every read of a few
    // members crosses statement boundaries.
    engine::ledger::set_past_page(2);
    each_ledger(async |name, e| {
        for operator in ["incr", "best", "set"] {
            for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
                let mut runner =
                    TestRunner::new(Config { cases: 8, failure_persistence: None, ..Config::default() });
                let pairs = prop::collection::vec((0usize..16, 0usize..16, 1u64..=4), 1..4);
                let handle = tokio::runtime::Handle::current();
                let result = tokio::task::block_in_place(|| {
                    runner.run(&(ops(), pairs), |(ops, pairs)| {
                        handle.block_on(check(e, name, operator, policy, &ops, &pairs))
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

fn point(event: &str, member: &str, delta: i64) -> Write {
    common::point(event, member, delta)
}

#[tokio::test]
async fn the_public_never_sees_past_a_public_freeze_and_hidden_members_are_left_out() {
    each_ledger(async |name, e| {
        let b = board("incr", TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let scope = e.reads().scope(&b.slug, None).await.unwrap();
        e.writes()
            .record(&b, &[point("e1", "u1", 50), point("e2", "u2", 30), point("e3", "u3", 10)])
            .await
            .unwrap();
        let freeze = e.lifecycle().public_freeze(&scope, "admin:test", None).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        e.writes().record(&b, &[point("e4", "u3", 100), point("e5", "u4", 5)]).await.unwrap();
        let later = Timestamp::now();
        let public = e
            .reads()
            .as_of(Viewer::Public, &scope, later, AsOfWindow::Page { offset: 0, limit: 10 })
            .await
            .unwrap();
        let rows: Vec<_> = public.entries.iter().map(|x| (x.member.to_string(), x.points)).collect();
        assert_eq!(rows, [("u1".into(), 50), ("u2".into(), 30), ("u3".to_owned(), 10)], "{name}");
        assert!(public.at <= later && public.frozen_at.is_some(), "{name}: {public:?}");
        assert!(public.at <= public.frozen_at.unwrap(), "{name}");
        let _ = freeze;
        // Admins see past it.
        let admin = as_of_all(e, Viewer::Admin, &scope, later).await;
        assert_eq!(admin[0], (1, "u3".to_owned(), 110), "{name}");
        assert_eq!(admin.len(), 4, "{name}");
        // Changes for the public are clamped too: nothing after the freeze moved.
        let c = e.reads().changes_between(Viewer::Public, &scope, later, Timestamp::now(), 3).await.unwrap();
        assert!(c.entered.is_empty() && c.moves.is_empty(), "{name}: {c:?}");
        // Around a member, and a member not yet on the board then.
        let around = e
            .reads()
            .as_of(
                Viewer::Admin,
                &scope,
                later,
                AsOfWindow::Around { member: MemberId::parse("u2").unwrap(), radius: 1 },
            )
            .await
            .unwrap();
        let members: Vec<_> = around.entries.iter().map(|x| x.member.to_string()).collect();
        assert_eq!((around.offset, members), (1, vec!["u1".to_owned(), "u2".into(), "u4".into()]), "{name}");
        let missing = e
            .reads()
            .as_of(
                Viewer::Public,
                &scope,
                later,
                AsOfWindow::Around { member: MemberId::parse("u4").unwrap(), radius: 1 },
            )
            .await;
        assert!(matches!(missing, Err(engine::EngineError::NotFound { .. })), "{name}: {missing:?}");
        // A hidden member leaves as-of reads too.
        e.lifecycle()
            .hide_member(&scope, &MemberId::parse("u1").unwrap(), "admin:test", "spam")
            .await
            .unwrap();
        let admin = as_of_all(e, Viewer::Admin, &scope, Timestamp::now()).await;
        assert!(admin.iter().all(|r| r.1 != "u1"), "{name}: {admin:?}");
        assert_eq!(admin[0].0, 1, "{name}");
    })
    .await;
}
