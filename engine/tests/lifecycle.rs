//! The settlement lifecycle on real stores (Redis standalone and Cluster × SQLite and
//! PostgreSQL): a full week from writes through the scheduler's freeze to archive, revocations under both tie policies, a
//! projection lost after freeze, and crashes inside the settlement.
//!
//! The week: writes → the scheduler freezes at end + grace, not a second before → late writes
//! kept, the board unchanged → accept one, reject one → revoke twice subtracts once → a
//! correction → settle twice, same digest → a settled period refuses changes → archive → every
//! read identical, also after the keys are gone. Keys deleted after the freeze (rebuilt, or
//! repaired by the cross-check) give the expected digest. Stored standings equal
//! `domain::settlement::standings` under both tie policies (many ties, member ids whose byte order
//! differs from a locale's, prizes that need escaping), across many statements, standing blocks
//! and member-directory blocks, and every member is found at its position after archive. With
//! blocks of seven standings, every page whose start or end is on, before or after a block
//! boundary equals the same slice of the whole list, and counts at or above every points value
//! (ties straddling blocks) equal a naive count.

mod common;

use common::{conflict_code, each_store, expected_digest, point};

fn board(policy: TiePolicy) -> Board {
    common::prized_board("l", policy, 60)
}
use domain::board::Prize;
use domain::lifecycle::{State, Transition};
use domain::settlement::{FinalTotal, canonical_text, standings};
use domain::write::{Outcome, Write};
use domain::{Board, EventId, MemberId, TiePolicy};
use engine::jobs::scheduler::SchedulerConfig;
use engine::ledger::audit::AuditFilter;
use engine::lifecycle::Correction;
use engine::{Engine, EngineError};
use sha2::{Digest, Sha256};
use std::time::Duration;

fn correction(member: &str, delta: i64, correction_id: Option<&str>, reason: &str) -> Correction {
    Correction { member: m(member), delta, correction_id: correction_id.map(id), reason: reason.into() }
}

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

fn id(e: &str) -> EventId {
    EventId::parse(e).unwrap()
}

async fn setup(e: &Engine, policy: TiePolicy, writes: &[Write]) -> (Board, String) {
    let b = board(policy);
    e.boards().create_board(&b).await.unwrap();
    let out = e.writes().record(&b, writes).await.unwrap();
    assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied), "{out:?}");
    let period = b.period_at(jiff::Timestamp::now()).to_string();
    (b, period)
}

/// Every read of a period, as one comparable value.
async fn all_reads(e: &Engine, b: &Board, period: &str) -> String {
    let p = Some(period);
    let top = e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap();
    let page = e.reads().ranking_page(&e.reads().scope(&b.slug, p).await.unwrap(), 1, 2).await.unwrap();
    let cursor1 =
        e.reads().entries_after(&e.reads().scope(&b.slug, p).await.unwrap(), None, 2).await.unwrap();
    let cursor2 = e
        .reads()
        .entries_after(&e.reads().scope(&b.slug, p).await.unwrap(), cursor1.next_cursor.as_deref(), 2)
        .await
        .unwrap();
    let around = e.reads().around(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u3"), 1).await.unwrap();
    let rank = e.reads().member_rank(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u2")).await.unwrap();
    let mut count = Vec::new();
    for min_points in [-1_000_000, 0, 10, 11, 31, 32, 50, 51, 1_000_000] {
        count.push(
            e.reads()
                .count_at_least(&e.reads().scope(&b.slug, p).await.unwrap(), min_points)
                .await
                .unwrap()
                .value,
        );
    }
    let ranks = e
        .reads()
        .ranks_of(&e.reads().scope(&b.slug, p).await.unwrap(), &[m("u4"), m("u1"), m("nobody")])
        .await
        .unwrap()
        .value;
    let snap = e.reads().create_snapshot(&e.reads().scope(&b.slug, p).await.unwrap()).await.unwrap();
    let pinned = e
        .reads()
        .snapshot_page(&e.reads().scope(&b.slug, p).await.unwrap(), &snap.snapshot_id, 0, 10)
        .await
        .unwrap();
    let absent = matches!(
        e.reads().member_rank(&e.reads().scope(&b.slug, p).await.unwrap(), &m("nobody")).await,
        Err(EngineError::NotFound { .. })
    );
    let entries = |page: &domain::view::RankingPage| {
        page.entries.iter().map(|en| (en.rank, en.member.to_string(), en.points, en.tied)).collect::<Vec<_>>()
    };
    format!(
        "top={:?} total={} page={:?} more={} c1={:?} c2={:?} next2={:?} around={:?} rank={:?} \
         ranks={:?} snap_total={} pinned={:?} absent={absent} count={count:?}",
        entries(&top),
        top.total,
        entries(&page),
        page.has_more,
        entries(&cursor1.page),
        entries(&cursor2.page),
        cursor2.next_cursor.is_some(),
        entries(&around),
        (rank.rank, rank.points),
        ranks.iter().map(|en| (en.member.to_string(), en.rank, en.points)).collect::<Vec<_>>(),
        snap.total,
        entries(&pinned),
    )
}

async fn audit_actions(e: &Engine, b: &Board) -> Vec<String> {
    let filter = AuditFilter { board: Some(b.slug.to_string()), ..Default::default() };
    let mut actions: Vec<String> =
        e.lifecycle().audit(&filter, None, 500).await.unwrap().into_iter().map(|a| a.action).collect();
    actions.reverse();
    actions
}

#[tokio::test]
async fn a_full_week_from_writes_to_archive() {
    each_store(async |name, e, p| {
        let (b, period) = setup(
            e,
            TiePolicy::Shared,
            &[
                point("e1", "u1", 50),
                point("e2", "u2", 30),
                point("e3", "u3", 30),
                point("e4", "u4", 10),
                point("e5", "u1", 20),
            ],
        )
        .await;
        let per = Some(period.as_str());
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .transition(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        Transition::Settle,
                        "admin",
                        None
                    )
                    .await
            ),
            "invalid_transition"
        );

        // The scheduler freezes the period at its end + grace, not a second before.
        let config = SchedulerConfig::new(Duration::from_secs(5), None);
        let key = b.period_at(jiff::Timestamp::now());
        let closes = key.span(&b.zone).end + jiff::SignedDuration::from_secs(b.freeze_grace_seconds);
        let early =
            e.jobs().scheduler_pass(&config, closes - jiff::SignedDuration::from_secs(1)).await.unwrap();
        assert!(early.frozen.is_empty(), "{name}: {early:?}");
        let pass = e.jobs().scheduler_pass(&config, closes).await.unwrap();
        assert_eq!(pass.frozen, vec![(b.slug.clone(), key)], "{name}");
        // A freeze repeated by hand answers the same period.
        let frozen = e
            .lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        assert_eq!(frozen.state, State::Frozen, "{name}");

        // Late writes are kept, the board does not move.
        let before = e.reads().top(&e.reads().scope(&b.slug, per).await.unwrap(), 10).await.unwrap().entries;
        let late = e.writes().record(&b, &[point("e6", "u4", 100), point("e7", "u2", 5)]).await.unwrap();
        assert!(late.iter().all(|r| r.recorded.outcome == Outcome::Late), "{name}: {late:?}");
        assert_eq!(
            e.reads()
                .ranking_page(&e.reads().scope(&b.slug, per).await.unwrap(), 0, 10)
                .await
                .unwrap()
                .entries,
            before,
            "{name}"
        );
        let pending = e
            .lifecycle()
            .late_entries(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some("pending"))
            .await
            .unwrap();
        assert_eq!(pending.len(), 2, "{name}");
        let (l6, l7) = (pending[0].id, pending[1].id);

        // Settling waits for the review.
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .transition(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        Transition::Settle,
                        "admin",
                        None
                    )
                    .await
            ),
            "late_pending"
        );

        // Accept one (applied while frozen), reject one; decisions are final.
        let accepted = e
            .lifecycle()
            .decide_late(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                l7,
                true,
                "admin",
                Some("network delay"),
            )
            .await
            .unwrap();
        assert_eq!((accepted.result, accepted.points), (Some(Outcome::Applied), Some(35)), "{name}");
        let again = e
            .lifecycle()
            .decide_late(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), l7, true, "admin", None)
            .await
            .unwrap();
        assert_eq!((again.entry.status.as_str(), again.result), ("accepted", None), "{name}");
        assert!(
            e.lifecycle()
                .decide_late(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    l6,
                    false,
                    "admin",
                    None
                )
                .await
                .is_err(),
            "a rejection needs a reason"
        );
        e.lifecycle()
            .decide_late(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                l6,
                false,
                "admin",
                Some("after the deadline"),
            )
            .await
            .unwrap();
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .decide_late(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        l6,
                        true,
                        "admin",
                        None
                    )
                    .await
            ),
            "already_decided"
        );
        assert_eq!(
            e.reads()
                .member_rank(&e.reads().scope(&b.slug, per).await.unwrap(), &m("u2"))
                .await
                .unwrap()
                .points,
            35,
            "{name}"
        );

        // Revoke one event twice: it subtracts once.
        let r1 = e.lifecycle().revoke(&b.slug, &id("e5"), "admin", "duplicate award").await.unwrap();
        let r2 = e.lifecycle().revoke(&b.slug, &id("e5"), "admin", "duplicate award").await.unwrap();
        assert_eq!((r1.result, r1.points, r2.result), ("revoked", Some(50), "already_revoked"), "{name}");
        assert_eq!(
            e.reads()
                .member_rank(&e.reads().scope(&b.slug, per).await.unwrap(), &m("u1"))
                .await
                .unwrap()
                .points,
            50,
            "{name}"
        );
        assert!(matches!(
            e.lifecycle().revoke(&b.slug, &id("e6"), "admin", "x").await,
            Err(EngineError::NotFound { .. })
        ));
        // "Why this score" shows the revocation, its reason, and the revoked event struck out.
        let why = e
            .reads()
            .member_entries(&e.reads().scope(&b.slug, per).await.unwrap(), &m("u1"), None, 10)
            .await
            .unwrap();
        let lines: Vec<_> = why
            .iter()
            .map(|en| {
                (en.kind.as_str(), en.external_id.as_deref(), en.delta, en.revokes.as_deref(), en.revoked)
            })
            .collect();
        assert_eq!(
            lines,
            [
                ("revocation", None, Some(-20), Some("e5"), false),
                ("point", Some("e5"), Some(20), None, true),
                ("point", Some("e1"), Some(50), None, false)
            ],
            "{name}"
        );
        assert_eq!(why[0].reason.as_deref(), Some("duplicate award"));

        // A correction flows through the same chain.
        let c = e
            .lifecycle()
            .correct(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &correction("u3", 1, Some("c1"), "manual review"),
                "admin",
            )
            .await
            .unwrap();
        assert_eq!((c.result, c.points, c.projected), (Outcome::Applied, 31, true), "{name}");
        // A retried correction with the same id counts once; an id of another entry is refused.
        let retried = correction("u3", 1, Some("c1"), "manual review");
        let again = e
            .lifecycle()
            .correct(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &retried, "admin")
            .await
            .unwrap();
        assert_eq!(
            (again.result, again.entry_id, again.points),
            (Outcome::Duplicate, c.entry_id, 31),
            "{name}"
        );
        let taken = correction("u3", 1, Some("e1"), "manual review");
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .correct(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &taken, "admin")
                    .await
            ),
            "id_taken"
        );
        assert_eq!(
            e.reads()
                .member_rank(&e.reads().scope(&b.slug, per).await.unwrap(), &m("u3"))
                .await
                .unwrap()
                .points,
            31,
            "{name}"
        );

        // Settle, twice: the same settlement.
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let s1 =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        assert_eq!(
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap(),
            s1,
            "{name}"
        );
        let table: Vec<_> =
            s1.standings.iter().map(|s| (s.rank, s.member.as_str(), s.points, s.prize.as_deref())).collect();
        assert_eq!(
            table,
            vec![
                (1, "u1", 50, Some("gold")),
                (2, "u2", 35, Some("silver")),
                (3, "u3", 31, Some("silver")),
                (4, "u4", 10, None)
            ],
            "{name}"
        );
        assert_eq!(s1.digest.len(), 64);

        // Settled: nothing changes any more.
        assert_eq!(
            conflict_code(e.lifecycle().revoke(&b.slug, &id("e1"), "admin", "too late").await),
            "period_settled"
        );
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .correct(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        &correction("u1", 5, None, "too late"),
                        "admin"
                    )
                    .await
            ),
            "period_settled"
        );
        let late8 = e.writes().record(&b, &[point("e8", "u4", 1)]).await.unwrap();
        assert_eq!(late8[0].recorded.outcome, Outcome::Late);
        let l8 = e
            .lifecycle()
            .late_entries(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some("pending"))
            .await
            .unwrap()[0]
            .id;
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .decide_late(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        l8,
                        true,
                        "admin",
                        None
                    )
                    .await
            ),
            "period_settled"
        );
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .transition(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        Transition::Reopen,
                        "admin",
                        None
                    )
                    .await
            ),
            "invalid_transition"
        );

        // Archive: reads are the same, then the projection expires and they still are.
        let live = all_reads(e, &b, &period).await;
        let archived = e
            .lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Archive,
                "admin",
                None,
            )
            .await
            .unwrap();
        assert_eq!(archived.state, State::Archived);
        let ttls = p.keys().await;
        assert!(!ttls.is_empty(), "{name}: the projection is still there during the grace");
        p.cleanup().await;
        assert_eq!(all_reads(e, &b, &period).await, live, "{name}");

        assert_eq!(
            audit_actions(e, &b).await,
            ["freeze", "late_accepted", "late_rejected", "revoke", "correct", "settle", "archive"],
            "{name}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_revoke_under_first_reached_restores_the_reach_order() {
    each_store(async |name, e, _| {
        // u1 reaches 50 first; u2 reaches 50 second; u1 goes to 60 and back to 50 (re-reached last).
        let (b, period) = setup(
            e,
            TiePolicy::FirstReached,
            &[point("a1", "u1", 50), point("b1", "u2", 50), point("a2", "u1", 10), point("a3", "u1", -10)],
        )
        .await;
        let order = async || {
            let page = e
                .reads()
                .ranking_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
                .await
                .unwrap();
            page.entries.iter().map(|en| (en.member.to_string(), en.points, en.rank)).collect::<Vec<_>>()
        };
        let pair = |a: &str, pa, b: &str, pb| vec![(a.to_string(), pa, 1), (b.to_string(), pb, 2)];
        assert_eq!(order().await, pair("u2", 50, "u1", 50), "{name}");
        // Without the +10, u1 has 40 since the -10.
        e.lifecycle().revoke(&b.slug, &id("a2"), "admin", "cheat").await.unwrap();
        assert_eq!(order().await, pair("u2", 50, "u1", 40), "{name}");
        // Without the -10 too, u1 has 50 since its first event, before u2.
        e.lifecycle().revoke(&b.slug, &id("a3"), "admin", "cheat").await.unwrap();
        assert_eq!(order().await, pair("u1", 50, "u2", 50), "{name}");
        // The settlement agrees with the live order.
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let s =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        let settled: Vec<_> = s.standings.iter().map(|s| (s.member.to_string(), s.points, s.rank)).collect();
        assert_eq!(settled, pair("u1", 50, "u2", 50), "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_projection_lost_after_freeze_changes_nothing_in_the_settlement() {
    each_store(async |name, e, p| {
        let writes = [point("x1", "u1", 7), point("x2", "u2", 9), point("x3", "u3", 7)];
        let expected = [("u1", 7), ("u2", 9), ("u3", 7)];
        // Keys deleted after freeze, then rebuilt by hand.
        let (b, period) = setup(e, TiePolicy::Shared, &writes).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        p.cleanup().await;
        assert_eq!(
            e.jobs()
                .rebuild(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "admin")
                .await
                .unwrap()
                .members,
            3
        );
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let rebuilt =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        assert_eq!(rebuilt.digest, expected_digest(&b, &period, &expected), "{name}");
        assert!(!audit_actions(e, &b).await.contains(&"projection_repaired".to_string()), "{name}");

        // Keys deleted after freeze and nobody rebuilt: the cross-check repairs and reports it.
        let (b, period) = setup(e, TiePolicy::Shared, &writes).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        p.cleanup().await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let repaired =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        assert_eq!(repaired.digest, expected_digest(&b, &period, &expected), "{name}");
        assert_eq!(audit_actions(e, &b).await, ["freeze", "projection_repaired", "settle"], "{name}");
        assert_eq!(
            e.reads()
                .member_rank(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &m("u2"))
                .await
                .unwrap()
                .points,
            9,
            "{name}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_crash_inside_the_settlement_leaves_it_undone_and_a_rerun_gives_the_same_digest() {
    each_store(async |name, e, _| {
        let (b, period) = setup(e, TiePolicy::Shared, &[point("y1", "u1", 3), point("y2", "u2", 4)]).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        for failpoint in ["settle.after_standings", "settle.before_commit"] {
            e.failpoints().arm(failpoint);
            let crashed = e
                .lifecycle()
                .transition(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    Transition::Settle,
                    "admin",
                    None,
                )
                .await;
            assert!(crashed.is_err(), "{name}: {failpoint}");
            assert!(
                matches!(
                    e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await,
                    Err(EngineError::NotFound { .. })
                ),
                "{name}"
            );
            assert_eq!(e.reads().periods(&b.slug).await.unwrap()[0].state, State::Frozen, "{name}");
        }
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let s =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        assert_eq!(s.digest, expected_digest(&b, &period, &[("u1", 3), ("u2", 4)]), "{name}");
        assert_eq!(audit_actions(e, &b).await, ["freeze", "settle"], "{name}");
    })
    .await;
}

#[tokio::test]
async fn stored_standings_equal_the_domain_standings_under_both_tie_policies() {
    // Seven rows per statement: a board of a few hundred members spans many statements, as a
    // million-member settlement spans many of 50 000.
    engine::ledger::set_settle_batch(7);
    each_store(async |name, e, _| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let mut b = board(policy);
            // Prizes that need escaping in SQL texts, JSON and array literals.
            b.prizes = vec![
                Prize { from_rank: 1, to_rank: 1, prize: r#"gold "first" {a,b} \ NULL"#.into() },
                Prize { from_rank: 2, to_rank: 60, prize: "pin, 'x'".into() },
                Prize { from_rank: 61, to_rank: 61, prize: "NULL".into() },
            ];
            e.boards().create_board(&b).await.unwrap();
            // Member ids whose byte order differs from a locale's order (case, punctuation,
            // digits, prefixes), and five point values: ties of about 50 members each.
            let starts = ["A", "a", "Z", "z", "_", "-", ".", ":", "@", "0", "9", "NULL", "m", "M"];
            let writes: Vec<Write> = (0..250)
                .map(|i| {
                    let member = format!("{}{}", starts[(i * 5) % starts.len()], i % 37);
                    point(&format!("s{i}"), &member, (i as i64 * 7) % 5 - 2)
                })
                .collect();
            let out = e.writes().record(&b, &writes).await.unwrap();
            assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied), "{name}: {out:?}");
            let period = b.period_at(jiff::Timestamp::now());
            let key = period.to_string();
            let totals: Vec<FinalTotal> = e
                .ledger()
                .totals(&b.slug, &period)
                .await
                .unwrap()
                .into_iter()
                .map(|t| FinalTotal { member: t.member, points: t.points, reach_seq: t.reach_seq })
                .collect();
            let expected = standings(domain::Sort::Desc, policy, totals, &b.prizes);
            assert!(expected.len() > 100, "{name}: {} members", expected.len());

            e.lifecycle()
                .transition(
                    &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                    Transition::Freeze,
                    "admin",
                    None,
                )
                .await
                .unwrap();
            e.lifecycle()
                .transition(
                    &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                    Transition::Settle,
                    "admin",
                    None,
                )
                .await
                .unwrap();
            let s = e.ledger().settlement(&b.slug, &period, 0, 10_000).await.unwrap().unwrap();
            assert_eq!(s.standings, expected, "{name} {policy:?}");
            let text = canonical_text(b.slug.as_str(), &key, &expected);
            let digest: String = Sha256::digest(text.as_bytes()).iter().map(|x| format!("{x:02x}")).collect();
            assert_eq!((s.digest.as_str(), s.members), (digest.as_str(), expected.len() as u64), "{name}");

            // Archived reads find every member where the standings put it.
            e.lifecycle()
                .transition(
                    &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                    Transition::Archive,
                    "admin",
                    None,
                )
                .await
                .unwrap();
            for (position, st) in expected.iter().enumerate() {
                let at = e.ledger().standing_position(&b.slug, &period, &st.member).await.unwrap();
                assert_eq!(at, Some(position as u64), "{name} {policy:?} {}", st.member);
                let entry = e
                    .reads()
                    .member_rank(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), &st.member)
                    .await
                    .unwrap();
                assert_eq!((entry.rank, entry.points), (st.rank, st.points), "{name} {}", st.member);
            }
            assert_eq!(e.ledger().standing_position(&b.slug, &period, &m("nobody")).await.unwrap(), None);
        }
    })
    .await;
}

#[tokio::test]
async fn standings_read_across_blocks_as_one_list() {
    // Seven standings per block (and seven blocks per statement): a board of about a hundred
    // members spans fifteen blocks, as a million members span a thousand of 1 000.
    engine::ledger::set_settle_batch(7);
    each_store(async |name, e, _| {
        let mut b = board(TiePolicy::Shared);
        // Prizes that need escaping in JSON, and members without one (null).
        b.prizes = vec![
            Prize { from_rank: 1, to_rank: 3, prize: "gold \"1\" \\ \u{e9}\n{a,b}".into() },
            Prize { from_rank: 4, to_rank: 20, prize: "null".into() },
        ];
        e.boards().create_board(&b).await.unwrap();
        // Points in runs of ties that end on, before and after block boundaries.
        let writes: Vec<Write> =
            (0..100).map(|i| point(&format!("s{i}"), &format!("u{i:03}"), 40 - (i as i64 * 3) / 7)).collect();
        let out = e.writes().record(&b, &writes).await.unwrap();
        assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied), "{name}: {out:?}");
        let period = b.period_at(jiff::Timestamp::now());
        let key = period.to_string();
        let ledger = e.ledger();
        assert_eq!(
            ledger.standings_at_least(&b.slug, &period, domain::Sort::Desc, i64::MIN).await.unwrap(),
            0,
            "{name}: unsettled"
        );
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let all = ledger.settlement(&b.slug, &period, 0, 10_000).await.unwrap().unwrap().standings;
        assert_eq!(all.len(), 100, "{name}");
        assert!(all.windows(2).all(|w| w[0].points >= w[1].points), "{name}");

        // Every page whose start or end is on, before or after a block boundary.
        let mut edges: Vec<u64> =
            (0..=16_u64).flat_map(|k| [7 * k, (7 * k).saturating_sub(1), 7 * k + 1]).collect();
        edges.extend([99, 100, 101, 1_000]);
        for &offset in &edges {
            for limit in [0, 1, 2, 6, 7, 8, 13, 14, 15, 50, 99, 100, u64::MAX] {
                let from = (offset as usize).min(all.len());
                let to = (offset.saturating_add(limit) as usize).min(all.len()).max(from);
                let page = ledger.standings(&b.slug, &period, 1, offset, limit).await.unwrap();
                assert_eq!(page, all[from..to], "{name}: offset {offset} limit {limit}");
                let window = ledger.standings_window(&b.slug, &period, offset, limit).await.unwrap();
                assert_eq!(
                    (window.total, &window.rows[..]),
                    (100, &all[from..to]),
                    "{name}: window {offset} {limit}"
                );
            }
        }

        // Counts at and around every points value (ties straddle blocks) equal a naive count.
        let mut thresholds: Vec<i64> =
            all.iter().flat_map(|s| [s.points - 1, s.points, s.points + 1]).collect();
        thresholds.extend([i64::MIN, i64::MAX]);
        for min in thresholds {
            let naive = all.iter().filter(|s| s.points >= min).count() as u64;
            let counted = ledger.standings_at_least(&b.slug, &period, domain::Sort::Desc, min).await.unwrap();
            assert_eq!(counted, naive, "{name}: at least {min}");
        }
    })
    .await;
}
