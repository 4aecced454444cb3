//! The member and board pages' histories on real stores (Redis standalone and Cluster × SQLite
//! and PostgreSQL): the points chart replays the entries the public sees (revocations and
//! corrections marked; nothing after a public freeze), "N points to rank R" follows the tie
//! policy, the distribution counts every visible member once from the public ranking (not a
//! hidden one, not a write after a public freeze), and the last periods and past results come
//! from the settled standings once settled and the public ranking before.
//!
//! An empty period has no bars; nothing of a member's history, the distribution or the results
//! changes during a public freeze until the reveal. `end2end/tests/experience.spec.ts` shows the
//! same on the pages.

mod common;

use common::{each_store, five_members, point, prized_board};
use domain::lifecycle::Transition;
use domain::view::{MemberHistory, RankTarget};
use domain::write::{Change, Write};
use domain::{EventId, MemberId, TiePolicy};
use engine::{Engine, EngineError};

/// A period's standing as compared: period, state, rank, points, members.
type PeriodRow = (String, String, Option<u64>, Option<i64>, u64);
/// A period's result as compared: period, state, leaders (member, rank, tied).
type ResultRow = (String, String, Vec<(String, u64, bool)>);

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

async fn history(e: &Engine, b: &domain::Board, period: &str, member: &str) -> MemberHistory {
    e.reads()
        .member_history(&e.reads().scope(&b.slug, Some(period)).await.unwrap(), &m(member))
        .await
        .unwrap()
}

fn target(rank: u64, points: i64, prize: Option<&str>) -> Option<RankTarget> {
    Some(RankTarget { rank, points, prize: prize.map(str::to_owned) })
}

#[tokio::test]
async fn the_points_chart_replays_the_entries_with_revocations_and_corrections() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "hist-steps", TiePolicy::Shared).await;
        // u4: +10 (e4), +15 (e6); then e4 revoked and a correction of +3.
        e.lifecycle()
            .revoke(&b.slug, &EventId::parse("e4").unwrap(), "admin:ann", "duplicate")
            .await
            .unwrap();
        let correction = engine::lifecycle::Correction {
            member: m("u4"),
            delta: 3,
            correction_id: None,
            reason: "bonus".into(),
        };
        e.lifecycle()
            .correct(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &correction, "admin:ann")
            .await
            .unwrap();
        let h = history(e, &b, &period, "u4").await;
        let steps: Vec<(&str, i64, bool)> =
            h.steps.iter().map(|s| (s.kind.as_str(), s.points, s.revoked)).collect();
        assert_eq!(
            steps,
            [("point", 10, true), ("point", 25, false), ("revocation", 15, false), ("correction", 18, false)],
            "{name}"
        );
        assert!(h.steps.windows(2).all(|w| w[0].entry < w[1].entry && w[0].at <= w[1].at), "{name}");
        assert!(!h.truncated, "{name}");
        // The chart ends where the public standing is.
        assert_eq!(h.standing.as_ref().map(|s| s.points), Some(18), "{name}");
        // The same entries as the public member events read.
        let events = e
            .reads()
            .member_entries(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &m("u4"), None, 200)
            .await
            .unwrap();
        let mut ids: Vec<i64> = events.iter().map(|en| en.id).collect();
        ids.reverse();
        assert_eq!(h.steps.iter().map(|s| s.entry).collect::<Vec<_>>(), ids, "{name}");
        // A member without entries has an empty chart; a bad member is refused.
        assert!(history(e, &b, &period, "nobody").await.steps.is_empty(), "{name}");
    })
    .await;
}

#[tokio::test]
async fn points_to_the_next_rank_follow_the_tie_policy() {
    each_store(async |name, e, _| {
        // Shared: u1 50 (1), u2 30 (2), u3 30 (2), u4 25 (4), u5 5 (5); gold 1, silver 2–3.
        let (b, period) = five_members(e, "hist-shared", TiePolicy::Shared).await;
        let h = history(e, &b, &period, "u4").await;
        assert_eq!(h.next_rank, target(2, 5, Some("silver")), "{name}: equalling 30 shares rank 2");
        assert_eq!(h.prize, target(2, 5, Some("silver")), "{name}");
        let h = history(e, &b, &period, "u5").await;
        assert_eq!(h.next_rank, target(4, 20, None), "{name}");
        assert_eq!(h.prize, target(2, 25, Some("silver")), "{name}");
        let h = history(e, &b, &period, "u3").await;
        assert_eq!(h.next_rank, target(1, 20, Some("gold")), "{name}");
        assert_eq!(h.prize, None, "{name}: already prized");
        let h = history(e, &b, &period, "u1").await;
        assert_eq!((h.next_rank, h.prize), (None, None), "{name}: first");

        // First reached: u1 50 (1), u2 30 (2, first), u3 30 (3), u4 25 (4), u5 5 (5).
        let (b, period) = five_members(e, "hist-first", TiePolicy::FirstReached).await;
        let h = history(e, &b, &period, "u4").await;
        assert_eq!(h.next_rank, target(3, 6, Some("silver")), "{name}: one more than u3");
        assert_eq!(h.prize, target(3, 6, Some("silver")), "{name}");
        let h = history(e, &b, &period, "u3").await;
        assert_eq!(h.next_rank, target(2, 1, Some("silver")), "{name}: u2 reached 30 first");
        let h = history(e, &b, &period, "u5").await;
        assert_eq!(h.prize, target(3, 26, Some("silver")), "{name}");
        // After the freeze nothing more can be scored: no targets.
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let h = history(e, &b, &period, "u5").await;
        assert_eq!((h.next_rank, h.prize), (None, None), "{name}");
    })
    .await;
}

#[tokio::test]
async fn the_distribution_counts_each_visible_member_once() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "hist-dist", TiePolicy::Shared).await;
        let d = e
            .reads()
            .distribution(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(&m("u4")))
            .await
            .unwrap();
        assert_eq!(d.members, 5, "{name}");
        assert_eq!(d.bins.iter().map(|b| b.members).sum::<u64>(), 5, "{name}: {:?}", d.bins);
        assert!(d.bins.len() <= 12, "{name}");
        assert!(d.bins.windows(2).all(|w| w[0].to == w[1].from && w[0].from < w[0].to), "{name}");
        assert!(d.bins[0].from <= 5 && d.bins.last().unwrap().to > 50, "{name}");
        for (points, expected) in [(5, 1), (25, 1), (30, 2), (50, 1)] {
            let bin = d.bins.iter().find(|bin| bin.from <= points && points < bin.to).unwrap();
            assert!(bin.members >= expected, "{name}: {points} in {bin:?}");
        }
        assert_eq!(d.me.as_ref().map(|me| (me.rank, me.points)), Some((4, 25)), "{name}");
        assert_eq!(d.prizes, b.prizes, "{name}");
        assert!(d.winners.is_empty(), "{name}: open");

        // A hidden member leaves the distribution, "me" and its own history.
        e.lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u1"),
                "admin:ann",
                "cheating",
            )
            .await
            .unwrap();
        let d = e
            .reads()
            .distribution(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(&m("u1")))
            .await
            .unwrap();
        assert_eq!(d.members, 4, "{name}");
        assert_eq!(d.bins.iter().map(|b| b.members).sum::<u64>(), 4, "{name}");
        assert!(d.bins.last().unwrap().to <= 40, "{name}: the highest is 30 now: {:?}", d.bins);
        assert_eq!(d.me, None, "{name}");
        let hidden =
            e.reads().member_history(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &m("u1")).await;
        assert!(matches!(hidden, Err(EngineError::NotFound { .. })), "{name}: {hidden:?}");

        // Empty period: no bars.
        let next = b.period_at(jiff::Timestamp::now()).next().to_string();
        let empty = e
            .reads()
            .distribution(&e.reads().scope(&b.slug, Some(&next)).await.unwrap(), None)
            .await
            .unwrap();
        assert_eq!((empty.members, empty.bins.len()), (0, 0), "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_public_freeze_shows_in_the_history_as_everywhere() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "hist-public", TiePolicy::Shared).await;
        let before = history(e, &b, &period, "u5").await;
        let dist_before = e
            .reads()
            .distribution(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(&m("u5")))
            .await
            .unwrap();
        e.lifecycle()
            .public_freeze(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "admin:ann", None)
            .await
            .unwrap();
        // After the freeze, u5 jumps to first and u6 arrives: the public sees neither.
        let out =
            e.writes().record(&b, &[point("late-1", "u5", 100), point("late-2", "u6", 70)]).await.unwrap();
        assert!(out.iter().all(|r| r.projected), "{name}");
        let after = history(e, &b, &period, "u5").await;
        assert_eq!(after.steps, before.steps, "{name}: no entry after the watermark");
        assert_eq!(after.standing, before.standing, "{name}");
        assert_eq!((after.next_rank, after.prize), (before.next_rank, before.prize), "{name}");
        assert_eq!(after.periods, before.periods, "{name}");
        let dist = e
            .reads()
            .distribution(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(&m("u5")))
            .await
            .unwrap();
        assert_eq!(dist, dist_before, "{name}: the distribution of the freeze");
        let results = e.reads().period_results(&b.slug).await.unwrap();
        assert_eq!(
            results[0].leaders.iter().map(|l| (l.member.to_string(), l.points)).collect::<Vec<_>>(),
            [("u1".to_owned(), 50)]
        );
        // The reveal shows it.
        e.lifecycle()
            .reveal(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                engine::lifecycle::public::RevealMode::All,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let revealed = history(e, &b, &period, "u5").await;
        assert_eq!(revealed.steps.last().map(|s| s.points), Some(105), "{name}");
        assert_eq!(revealed.standing.map(|s| s.rank), Some(1), "{name}");
    })
    .await;
}

#[tokio::test]
async fn last_periods_and_past_results_come_from_the_standings_once_settled() {
    each_store(async |name, e, _| {
        // A long grace keeps last week open for writes, so it can be settled here.
        let b = prized_board("hist-past", TiePolicy::Shared, 30 * 24 * 3600);
        e.boards().create_board(&b).await.unwrap();
        let now = jiff::Timestamp::now();
        let last_week = now.checked_sub(jiff::SignedDuration::from_hours(7 * 24)).unwrap();
        let at = |event: &str, member: &str, delta: i64, occurred_at| Write {
            member: m(member),
            change: Change::Point { event_id: EventId::parse(event).unwrap(), delta },
            occurred_at,
            metadata: None,
            segments: Default::default(),
        };
        let writes = [
            at("p1", "u1", 40, last_week),
            at("p2", "u2", 40, last_week),
            at("p3", "u3", 10, last_week),
            at("c1", "u3", 70, now),
            at("c2", "u1", 20, now),
        ];
        let out = e.writes().record(&b, &writes).await.unwrap();
        assert!(out.iter().all(|r| r.recorded.outcome == domain::write::Outcome::Applied), "{name}: {out:?}");
        let (past, current) = (b.period_at(last_week).to_string(), b.period_at(now).to_string());
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&past)).await.unwrap(),
                Transition::Freeze,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&past)).await.unwrap(),
                Transition::Settle,
                "admin:ann",
                None,
            )
            .await
            .unwrap();

        let h = history(e, &b, &current, "u3").await;
        let periods: Vec<PeriodRow> = h
            .periods
            .iter()
            .map(|p| (p.period.to_string(), p.state.as_str().to_owned(), p.rank, p.points, p.members))
            .collect();
        assert_eq!(
            periods,
            [
                (current.clone(), "open".into(), Some(1), Some(70), 2),
                (past.clone(), "settled".into(), Some(3), Some(10), 3),
            ],
            "{name}"
        );
        let h = history(e, &b, &past, "u2").await;
        assert_eq!(h.periods[0].rank, None, "{name}: u2 has no points this week");
        assert_eq!(h.periods[1].rank, Some(1), "{name}: shared first place, settled");
        assert_eq!((h.next_rank, h.prize), (None, None), "{name}: settled");

        let results = e.reads().period_results(&b.slug).await.unwrap();
        let said: Vec<ResultRow> = results
            .iter()
            .map(|r| {
                let mut leaders: Vec<_> =
                    r.leaders.iter().map(|l| (l.member.to_string(), l.rank, l.tied)).collect();
                leaders.sort();
                (r.period.to_string(), r.state.as_str().to_owned(), leaders)
            })
            .collect();
        assert_eq!(
            said,
            [
                (current.clone(), "open".into(), vec![("u3".into(), 1, false)]),
                (past.clone(), "settled".into(), vec![("u1".into(), 1, true), ("u2".into(), 1, true)]),
            ],
            "{name}"
        );
        // The settled period's distribution names its prized standings.
        let d = e
            .reads()
            .distribution(&e.reads().scope(&b.slug, Some(&past)).await.unwrap(), None)
            .await
            .unwrap();
        let mut winners: Vec<(String, Option<String>)> =
            d.winners.iter().map(|w| (w.standing.member.to_string(), Some(w.prize.clone()))).collect();
        winners.sort();
        assert_eq!(
            winners,
            [
                ("u1".into(), Some("gold".into())),
                ("u2".into(), Some("gold".into())),
                ("u3".into(), Some("silver".into()))
            ],
            "{name}"
        );
        assert_eq!(d.state.as_str(), "settled", "{name}");
    })
    .await;
}
