//! The board page's leaders' chart on real stores (Redis standalone and Cluster × SQLite and
//! PostgreSQL): the public ranking's top five in its order, each line the member page's replay of
//! the member's entries (by when they happened, a revocation taking its entry out) ending at their
//! public points; an empty period has no leaders; a hidden member is never one; a public freeze
//! shows the standings of the freeze and no entry after it until the reveal; and a chart is kept
//! for its seconds — a write does not change it, a hide or freeze through the same process does.
//! `end2end/tests/leaders-chart.spec.ts` shows it on the board page.

mod common;

use common::{each_store, point};
use domain::write::Write;
use domain::{Board, EventId, MemberId, TiePolicy};
use engine::Engine;
use engine::reads::leaders_chart::LeadersChart;
use jiff::Timestamp;
use std::sync::Arc;

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

/// A point event of `member` at `at`.
fn point_at(event: &str, member: &str, delta: i64, at: Timestamp) -> Write {
    Write { occurred_at: at, ..point(event, member, delta) }
}

/// A board whose current period holds, by when the points came (instants 1–6 of 8 between the
/// period's start and now): bo 45 (30, +15), ada 35 (10, +20, +5), cy 25, dee 9 (12 and 9, the
/// 12 revoked now), eve 8, fay 1. Answers the board, the period and the instants.
async fn race(e: &Engine, tag: &str) -> (Board, String, impl Fn(i64) -> Timestamp) {
    let b = common::prized_board(tag, TiePolicy::Shared, 60);
    e.boards().create_board(&b).await.unwrap();
    let start = b.period_at(Timestamp::now()).span(&b.zone).start.as_microsecond();
    let now = Timestamp::now().as_microsecond();
    // Inside the period and in the past, whenever the test runs.
    let when = move |i: i64| Timestamp::from_microsecond(start + (now - start) * i / 8).unwrap();
    let writes = [
        point_at("a1", "ada", 10, when(1)),
        point_at("f1", "fay", 1, when(1)),
        point_at("b1", "bo", 30, when(2)),
        point_at("d1", "dee", 12, when(2)),
        point_at("a2", "ada", 20, when(3)),
        point_at("e1", "eve", 8, when(3)),
        point_at("c1", "cy", 25, when(4)),
        point_at("b2", "bo", 15, when(5)),
        point_at("d2", "dee", 9, when(5)),
        point_at("a3", "ada", 5, when(6)),
    ];
    let out = e.writes().record(&b, &writes).await.unwrap();
    assert!(
        out.iter().all(|r| r.recorded.outcome == domain::write::Outcome::Applied && r.projected),
        "{out:?}"
    );
    e.lifecycle().revoke(&b.slug, &EventId::parse("d1").unwrap(), "admin:ann", "duplicate").await.unwrap();
    let period = b.period_at(Timestamp::now()).to_string();
    (b, period, when)
}

async fn chart(e: &Engine, b: &Board, period: &str) -> Arc<LeadersChart> {
    e.reads().leaders_chart(&e.reads().scope(&b.slug, Some(period)).await.unwrap()).await.unwrap()
}

/// Each leader as compared: member, rank, points, and the points of their line.
fn leaders(c: &LeadersChart) -> Vec<(String, u64, i64, Vec<i64>)> {
    c.leaders
        .iter()
        .map(|l| {
            let line = l.steps.iter().map(|s| s.points).collect();
            (l.standing.member.to_string(), l.standing.rank, l.standing.points, line)
        })
        .collect()
}

fn row(member: &str, rank: u64, points: i64, line: &[i64]) -> (String, u64, i64, Vec<i64>) {
    (member.to_owned(), rank, points, line.to_vec())
}

#[tokio::test]
async fn the_chart_follows_the_public_top_five_as_the_member_pages_replay_them() {
    each_store(async |name, e, _| {
        let (b, period, when) = race(e, "race-lines").await;
        let c = chart(e, &b, &period).await;
        assert_eq!(
            leaders(&c),
            [
                row("bo", 1, 45, &[30, 45]),
                row("ada", 2, 35, &[10, 30, 35]),
                row("cy", 3, 25, &[25]),
                row("dee", 4, 9, &[12, 21, 9]),
                row("eve", 5, 8, &[8]),
            ],
            "{name}: fay (1 point) is sixth"
        );
        let span = b.period_at(Timestamp::now()).span(&b.zone);
        assert_eq!((c.from, c.until, c.frozen_at), (span.start, span.end, None), "{name}");
        // Each step where its entry happened; the revocation when it was made (before the read).
        let ada = &c.leaders[1];
        assert_eq!(ada.steps.iter().map(|s| s.at).collect::<Vec<_>>(), [when(1), when(3), when(6)], "{name}");
        let revoked = c.leaders[3].steps.last().unwrap().at;
        assert!(when(6) < revoked && revoked <= c.read_at, "{name}: {revoked} {}", c.read_at);
        for line in &c.leaders {
            assert!(!line.truncated, "{name}");
            // Each line ends at the member's public points, and is the member page's chart.
            assert_eq!(line.steps.last().map(|s| s.points), Some(line.standing.points), "{name}");
            let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
            let history = e.reads().member_history(&scope, &line.standing.member).await.unwrap();
            let mut replayed: Vec<i64> = history.steps.iter().map(|s| s.points).collect();
            replayed.dedup();
            assert_eq!(line.steps.iter().map(|s| s.points).collect::<Vec<_>>(), replayed, "{name}");
        }

        // A period nobody has points in has no leaders.
        let next = b.period_at(Timestamp::now()).next().to_string();
        assert!(chart(e, &b, &next).await.leaders.is_empty(), "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_chart_is_kept_until_its_time_is_up_or_this_process_hides_a_member() {
    each_store(async |name, e, _| {
        let (b, period, _) = race(e, "race-kept").await;
        let first = chart(e, &b, &period).await;
        // fay jumps to first: readers of the next seconds still share the chart already read.
        let out = e.writes().record(&b, &[point("f2", "fay", 100)]).await.unwrap();
        assert!(out.iter().all(|r| r.projected), "{name}");
        let again = chart(e, &b, &period).await;
        assert!(Arc::ptr_eq(&first, &again), "{name}: read again within its seconds");
        // Another process reads its own.
        let other = Engine::from_parts(e.ledger().clone(), e.projection().clone());
        assert_eq!(chart(&other, &b, &period).await.leaders[0].standing.member, m("fay"), "{name}");

        // A hide through this process shows at once: bo is never a leader again.
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        e.lifecycle().hide_member(&scope, &m("bo"), "admin:ann", "cheating").await.unwrap();
        let hidden = chart(e, &b, &period).await;
        let members: Vec<String> = hidden.leaders.iter().map(|l| l.standing.member.to_string()).collect();
        assert_eq!(members, ["fay", "ada", "cy", "dee", "eve"], "{name}");
        assert_eq!(leaders(&hidden)[0], row("fay", 1, 101, &[1, 101]), "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_public_freeze_shows_its_standings_until_the_reveal() {
    each_store(async |name, e, _| {
        let (b, period, _) = race(e, "race-public").await;
        let before = chart(e, &b, &period).await;
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        let frozen = e.lifecycle().public_freeze(&scope, "admin:ann", None).await.unwrap();
        // After the freeze eve jumps to first and gus arrives: the public sees neither.
        let out = e
            .writes()
            .record(&b, &[point("late-1", "eve", 1000), point("late-2", "gus", 500)])
            .await
            .unwrap();
        assert!(out.iter().all(|r| r.projected), "{name}");
        // Read by a process that kept nothing, and by this one (the freeze dropped its chart).
        let fresh = Engine::from_parts(e.ledger().clone(), e.projection().clone());
        for during in [chart(&fresh, &b, &period).await, chart(e, &b, &period).await] {
            assert_eq!(during.frozen_at, frozen.frozen_at, "{name}");
            assert_eq!(during.leaders, before.leaders, "{name}: the standings and lines of the freeze");
        }

        e.lifecycle()
            .reveal(&scope, engine::lifecycle::public::RevealMode::All, "admin:ann", None)
            .await
            .unwrap();
        let revealed = chart(e, &b, &period).await;
        assert_eq!(revealed.frozen_at, None, "{name}");
        assert_eq!(leaders(&revealed)[0], row("eve", 1, 1008, &[8, 1008]), "{name}");
        assert_eq!(leaders(&revealed)[1], row("gus", 2, 500, &[500]), "{name}");
    })
    .await;
}
