//! Public freezes (contest mode) on real stores (Redis standalone and Cluster × SQLite and
//! PostgreSQL): after a public freeze, writes of every kind keep counting, but no public read —
//! top, pages, cursor pages, new snapshots, around-me, member rank, counts, ranks of a list,
//! "why this score", the member page — changes by one number, rank, tie marker, `has_more` or
//! total, not after the reconciler, not after Redis lost everything; admins read live; a member
//! reads their own live standing; reveals (stepwise and at once) make the public view the live
//! one; settlement uses the live ledger.
//!
//! Both tie policies; "the same" means the same text, before the freeze, at it, after writes of
//! every kind, after a reconciler pass and after Redis lost everything. A stepwise reveal ends
//! equal to the live standings, audited; the archive reveals; a settled period is refused; a hide
//! leaves the public view at once. `server/src/rest/tests.rs` does the same over HTTP, pages
//! included; `scheduler.rs` the scheduled freeze.

mod common;

use common::{each_store, five_members, point};
use domain::lifecycle::Transition;
use domain::view::RankingPage;
use domain::{Board, EventId, MemberId, TiePolicy};
use engine::Engine;
use engine::ledger::Viewer;
use engine::lifecycle::public::RevealMode;

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

const MEMBERS: [&str; 7] = ["u1", "u2", "u3", "u4", "u5", "u6", "nobody"];

/// A page without its `frozen_at` label, which is the one thing a public freeze adds.
fn unlabelled(mut page: RankingPage) -> RankingPage {
    page.frozen_at = None;
    page
}

/// Every public read of the period, as text; `frozen` says whether each must carry `frozen_at`.
async fn public_answers(e: &Engine, b: &Board, period: &str, frozen: bool) -> String {
    let (slug, p) = (&b.slug, Some(period));
    let mut out = Vec::new();
    let page = |what: String, page: RankingPage| {
        assert_eq!(page.frozen_at.is_some(), frozen, "{what}: frozen_at {:?}", page.frozen_at);
        format!("{what}: {:?}", unlabelled(page))
    };
    out.push(page("top".into(), e.reads().top(&e.reads().scope(slug, p).await.unwrap(), 10).await.unwrap()));
    for offset in 0..4 {
        out.push(page(
            format!("page {offset}"),
            e.reads().ranking_page(&e.reads().scope(slug, p).await.unwrap(), offset, 2).await.unwrap(),
        ));
    }
    let mut cursor = None;
    loop {
        let found = e
            .reads()
            .entries_after(&e.reads().scope(slug, p).await.unwrap(), cursor.as_deref(), 2)
            .await
            .unwrap();
        cursor = found.next_cursor.clone();
        out.push(page("cursor".into(), found.page));
        if cursor.is_none() {
            break;
        }
    }
    let snap = e.reads().create_snapshot(&e.reads().scope(slug, p).await.unwrap()).await.unwrap();
    out.push(format!("snapshot total {}", snap.total));
    let pinned = e
        .reads()
        .snapshot_page(&e.reads().scope(slug, p).await.unwrap(), &snap.snapshot_id, 0, 10)
        .await
        .unwrap();
    out.push(format!("snapshot: {:?}", unlabelled(pinned).entries));
    for who in MEMBERS {
        let member = m(who);
        match e.reads().around(&e.reads().scope(slug, p).await.unwrap(), &member, 1).await {
            Ok(around) => out.push(page(format!("around {who}"), around)),
            Err(error) => out.push(format!("around {who}: {error}")),
        }
        out.push(format!(
            "rank {who}: {:?}",
            e.reads()
                .member_rank(&e.reads().scope(slug, p).await.unwrap(), &member)
                .await
                .map_err(|e| e.to_string())
        ));
        out.push(format!(
            "why {who}: {:?}",
            e.reads()
                .member_entries(&e.reads().scope(slug, p).await.unwrap(), &member, None, 50)
                .await
                .map_err(|e| e.to_string())
        ));
        let member_page =
            e.reads().member_view(&e.reads().scope(slug, p).await.unwrap(), &member, None, 50).await.map(
                |mut v| {
                    assert_eq!(v.frozen_at.is_some(), frozen, "member page {who}");
                    v.frozen_at = None;
                    v
                },
            );
        out.push(format!("member page {who}: {:?}", member_page.map_err(|e| e.to_string())));
    }
    for min in [0, 6, 25, 31, 50, 51, 100] {
        let counted = e.reads().count_at_least(&e.reads().scope(slug, p).await.unwrap(), min).await.unwrap();
        assert_eq!(counted.frozen_at.is_some(), frozen, "count {min}");
        out.push(format!("count {min}: {} {:?}", counted.value, counted.source));
    }
    let all: Vec<MemberId> = MEMBERS.iter().map(|w| m(w)).collect();
    let ranks = e.reads().ranks_of(&e.reads().scope(slug, p).await.unwrap(), &all).await.unwrap();
    assert_eq!(ranks.frozen_at.is_some(), frozen, "ranks");
    out.push(format!("ranks: {:?} {:?}", ranks.value, ranks.source));
    out.join("\n")
}

/// Writes of every kind after the freeze: a jump to first, a new member, a revocation, a
/// correction, a member pushed below another.
async fn write_after_freeze(e: &Engine, b: &Board, period: &str) {
    let out = e
        .writes()
        .record(b, &[point("late-1", "u5", 100), point("late-2", "u6", 40), point("late-3", "u4", 6)])
        .await;
    assert!(out.unwrap().iter().all(|r| r.projected));
    e.lifecycle()
        .revoke(&b.slug, &EventId::parse("e2").unwrap(), "admin:ann", "duplicate award")
        .await
        .unwrap();
    let correction = engine::lifecycle::Correction {
        member: m("u3"),
        delta: 1,
        correction_id: None,
        reason: "tie-break bonus".into(),
    };
    e.lifecycle()
        .correct(&e.reads().scope(&b.slug, Some(period)).await.unwrap(), &correction, "admin:ann")
        .await
        .unwrap();
}

fn members_of(page: &RankingPage) -> Vec<(String, i64)> {
    page.entries.iter().map(|en| (en.member.to_string(), en.points)).collect()
}

#[tokio::test]
async fn no_public_read_changes_after_a_public_freeze_until_the_reveal() {
    each_store(async |name, e, p| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let (b, period) = five_members(e, "pf", policy).await;
            let before = public_answers(e, &b, &period, false).await;

            let frozen = e
                .lifecycle()
                .public_freeze(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    "admin:ann",
                    Some("last hour"),
                )
                .await
                .unwrap();
            assert!(frozen.changed && frozen.frozen_at.is_some(), "{name}: {frozen:?}");
            assert_eq!(public_answers(e, &b, &period, true).await, before, "{name}: at the freeze");
            let again = e
                .lifecycle()
                .public_freeze(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "admin:ann", None)
                .await
                .unwrap();
            assert_eq!((again.changed, again.frozen_at), (false, frozen.frozen_at), "{name}: a repeat");

            write_after_freeze(e, &b, &period).await;
            assert_eq!(public_answers(e, &b, &period, true).await, before, "{name}/{policy:?}: after writes");
            e.jobs().reconcile_once().await.unwrap();
            assert_eq!(public_answers(e, &b, &period, true).await, before, "{name}/{policy:?}: reconciled");

            // Redis loses everything: the reconciler puts the public view back from the ledger,
            // and the live ranking is levelled beside it.
            p.cleanup().await;
            e.jobs().reconcile_once().await.unwrap();
            assert_eq!(
                public_answers(e, &b, &period, true).await,
                before,
                "{name}/{policy:?}: after Redis lost all"
            );

            // Admins read live; a member reads their own live standing and what is pending.
            let live = e
                .reads()
                .ranking_page_as(
                    Viewer::Admin,
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    0,
                    10,
                )
                .await
                .unwrap();
            assert_eq!(live.frozen_at, None);
            assert_eq!(live.entries[0].member, m("u5"), "{name}: live leader {live:?}");
            assert_eq!(live.entries[0].points, 105);
            assert_eq!(live.total, 6, "{name}: u6 is live");
            let admin = e
                .lifecycle()
                .member_view_admin(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    &m("u5"),
                    None,
                    10,
                )
                .await
                .unwrap();
            assert_eq!(admin.view.entries.len(), 2, "{name}: the console sees the new entry");
            let key = b.period_at(jiff::Timestamp::now());
            let (mine, pending) = e.reads().my_live_standing(&b.slug, key, &m("u5")).await.unwrap().unwrap();
            assert_eq!((mine, pending), (Some(105), 1), "{name}");
            let (_, none_pending) =
                e.reads().my_live_standing(&b.slug, key, &m("u1")).await.unwrap().unwrap();
            assert_eq!(none_pending, 0);

            // Stepwise, the resolver's way: one member a step, from the bottom of the frozen board
            // up, so the winners come last; the plan the console shows names each step's member
            // beforehand, and each step is public at once. First u6, whom the frozen board does
            // not hold (points only after the freeze), then u5, its last row (it jumps to first).
            let plan = e
                .lifecycle()
                .reveal_plan(&e.reads().scope(&b.slug, Some(&period)).await.unwrap())
                .await
                .unwrap()
                .unwrap();
            let next = plan.next.clone().unwrap();
            assert_eq!((next.member.as_str(), next.place, plan.pending), ("u6", None, 5), "{name}: {plan:?}");
            let step = e
                .lifecycle()
                .reveal(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    RevealMode::Next,
                    "admin:ann",
                    None,
                )
                .await
                .unwrap();
            assert!(step.frozen_at.is_some(), "{name}: {step:?}");
            assert_eq!((step.revealed.clone(), step.pending), (vec![m("u6")], 4), "{name}: one member, u6");
            let plan = e
                .lifecycle()
                .reveal_plan(&e.reads().scope(&b.slug, Some(&period)).await.unwrap())
                .await
                .unwrap()
                .unwrap();
            let next = plan.next.clone().unwrap();
            assert_eq!((next.member.as_str(), next.place), ("u5", Some(6)), "{name}: u5 is last: {plan:?}");
            let step = e
                .lifecycle()
                .reveal(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    RevealMode::Next,
                    "admin:ann",
                    None,
                )
                .await
                .unwrap();
            assert_eq!(step.revealed, vec![m("u5")], "{name}");
            let public = e
                .reads()
                .ranking_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
                .await
                .unwrap();
            for who in [m("u6"), m("u5")] {
                let points =
                    |page: &RankingPage| page.entries.iter().find(|en| en.member == who).map(|en| en.points);
                assert_eq!(points(&public), points(&live), "{name}: {who} is public with its live points");
            }
            assert_eq!(public.entries[0].member, m("u5"), "{name}: the step is public at once");
            let mut steps = 2;
            loop {
                let plan = e
                    .lifecycle()
                    .reveal_plan(&e.reads().scope(&b.slug, Some(&period)).await.unwrap())
                    .await
                    .unwrap()
                    .unwrap();
                let step = e
                    .lifecycle()
                    .reveal(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        RevealMode::Next,
                        "admin:ann",
                        None,
                    )
                    .await
                    .unwrap();
                steps += 1;
                assert!(step.changed, "{name}");
                if step.frozen_at.is_none() {
                    assert_eq!((plan.next, plan.pending), (None, 0), "{name}: the plan said the end");
                    break;
                }
                let planned = plan.next.map(|n| n.member);
                assert_eq!(step.revealed.first(), planned.as_ref(), "{name}: as planned");
                assert_eq!(step.revealed.len(), 1, "{name}: one member per step: {step:?}");
                assert_eq!(step.pending, plan.pending - 1, "{name}");
                assert!(steps < 20, "{name}: the reveal ends");
            }
            // u6, u5, then u4 (frozen 25), u2 and u3 (frozen 30, tied: the lower row first), and
            // the step that ends the freeze; u1, the frozen leader, never changed.
            assert_eq!(steps, 6, "{name}/{policy:?}");
            let public = e
                .reads()
                .ranking_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
                .await
                .unwrap();
            assert_eq!(public.frozen_at, None);
            assert_eq!(members_of(&public), members_of(&live), "{name}/{policy:?}: revealed = live");
            let after = e
                .lifecycle()
                .reveal(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    RevealMode::Next,
                    "admin:ann",
                    None,
                )
                .await
                .unwrap();
            assert!(!after.changed, "{name}: nothing left to reveal");
            assert_eq!(
                public_answers(e, &b, &period, false).await,
                public_answers(e, &b, &period, false).await
            );
            let why = e
                .reads()
                .member_entries(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &m("u5"), None, 10)
                .await
                .unwrap();
            assert_eq!(why.len(), 2, "{name}: the public sees the new entry after the reveal");

            let filter =
                engine::ledger::audit::AuditFilter { board: Some(b.slug.to_string()), ..Default::default() };
            let actions: Vec<String> = e
                .lifecycle()
                .audit(&filter, None, 100)
                .await
                .unwrap()
                .into_iter()
                .map(|a| a.action)
                .collect();
            assert_eq!(actions.iter().filter(|a| *a == "public_freeze").count(), 1, "{name}: {actions:?}");
            assert_eq!(actions.iter().filter(|a| *a == "reveal").count(), steps, "{name}: {actions:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn settlement_uses_the_live_ledger_and_the_archive_reveals() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "ps", TiePolicy::Shared).await;
        e.lifecycle()
            .public_freeze(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "admin:ann", None)
            .await
            .unwrap();
        write_after_freeze(e, &b, &period).await;
        let before =
            e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
        assert_eq!(before.entries[0].member, m("u1"), "{name}: public leader is still u1");

        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let settlement =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        let first = &settlement.standings[0];
        assert_eq!((first.member.as_str(), first.points, first.rank), ("u5", 105, 1), "{name}");
        // Settled, still publicly frozen: the public sees the frozen view until the reveal.
        let public =
            e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
        assert_eq!(members_of(&public), members_of(&before), "{name}");
        assert!(public.frozen_at.is_some());

        // The archive ends the public freeze.
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Archive,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let archived =
            e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
        assert_eq!((archived.entries[0].member.as_str(), archived.frozen_at), ("u5", None), "{name}");
        let key = b.period_at(jiff::Timestamp::now());
        assert_eq!(e.reads().my_live_standing(&b.slug, key, &m("u5")).await.unwrap(), None);
    })
    .await;
}

#[tokio::test]
async fn a_settled_period_cannot_be_frozen_publicly_and_a_reveal_of_a_live_one_changes_nothing() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "pr", TiePolicy::Shared).await;
        let none = e
            .lifecycle()
            .reveal(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                RevealMode::All,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        assert!(!none.changed, "{name}");
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let refused = e
            .lifecycle()
            .public_freeze(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "admin:ann", None)
            .await;
        assert_eq!(common::conflict_code(refused), "period_settled", "{name}");
        // Nothing was left behind in Redis by the refused freeze.
        let top = e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
        assert_eq!(top.frozen_at, None);
        let live = e.writes().record(&b, &[point("x1", "u1", 1)]).await.unwrap();
        assert!(!live.is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_member_hidden_during_a_public_freeze_leaves_the_public_view_at_once() {
    each_store(async |name, e, p| {
        let (b, period) = five_members(e, "ph", TiePolicy::Shared).await;
        e.lifecycle()
            .public_freeze(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "admin:ann", None)
            .await
            .unwrap();
        e.writes().record(&b, &[point("late-1", "u5", 100)]).await.unwrap();
        e.lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u1"),
                "admin:ann",
                "abusive name",
            )
            .await
            .unwrap();
        let public =
            e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
        let expected = [("u3", 30), ("u2", 30), ("u4", 25), ("u5", 5)];
        let shown: Vec<(String, i64)> = expected.iter().map(|(w, pts)| (w.to_string(), *pts)).collect();
        assert_eq!(
            (members_of(&public), public.total),
            (shown.clone(), 4),
            "{name}: u1 gone, u5 still frozen"
        );
        // The view in Redis is the ledger's: a reconciler pass, even after Redis lost it all, keeps it.
        p.cleanup().await;
        e.jobs().reconcile_once().await.unwrap();
        let public =
            e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
        assert_eq!(members_of(&public), shown, "{name}: after Redis lost all");
        // Revealed, the public sees the live standings without the hidden member.
        e.lifecycle()
            .reveal(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                RevealMode::All,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let live = e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap();
        assert_eq!(live.entries[0].member, m("u5"), "{name}");
        assert!(live.entries.iter().all(|en| en.member != m("u1")), "{name}");
    })
    .await;
}
