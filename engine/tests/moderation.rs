//! Hidden members on real stores (Redis standalone and Cluster × SQLite and PostgreSQL): a hidden
//! member leaves every public view and the standings, keeps its ledger history, and every change
//! is audited; the projection keeps it hidden through replays, rebuilds, the reconciler and a
//! Redis that was away.
//!
//! Shared ranks close up around a hidden member; writes to it do not show, and come back with it;
//! the settlement leaves it out (standings, prizes, digest; 409 after); a hide while a test-owned
//! Redis is down is levelled.

mod common;

use common::{TestLedger, conflict_code, each_store, expected_digest, point, unique};

fn board(policy: TiePolicy) -> Board {
    common::prized_board("h", policy, 60)
}
use domain::lifecycle::Transition;
use domain::view::{RankingPage, VisibilityOutcome};
use domain::write::Outcome;
use domain::{Board, MemberId, TiePolicy};
use engine::ledger::audit::AuditFilter;
use engine::redis::ProjectedTotal;
use engine::{Engine, EngineError};

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

/// A board with u1 50, u2 30, u3 30, u4 10 (u3 and u2 share rank 2 under `shared`: equal points
/// list by member id descending).
async fn setup(e: &Engine, policy: TiePolicy) -> (Board, String) {
    let b = board(policy);
    e.boards().create_board(&b).await.unwrap();
    let writes = [point("e1", "u1", 50), point("e2", "u2", 30), point("e3", "u3", 30), point("e4", "u4", 10)];
    let out = e.writes().record(&b, &writes).await.unwrap();
    assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied && r.projected), "{out:?}");
    (b.clone(), b.period_at(jiff::Timestamp::now()).to_string())
}

/// (rank, member, points, tied) of each entry.
fn rows(page: &RankingPage) -> Vec<(u64, String, i64, bool)> {
    page.entries.iter().map(|en| (en.rank, en.member.to_string(), en.points, en.tied)).collect()
}

fn row(rank: u64, member: &str, points: i64, tied: bool) -> (u64, String, i64, bool) {
    (rank, member.to_owned(), points, tied)
}

fn not_found<T: std::fmt::Debug>(r: Result<T, EngineError>) -> bool {
    matches!(r, Err(EngineError::NotFound { .. }))
}

async fn audit_actions(e: &Engine, b: &Board) -> Vec<String> {
    let filter = AuditFilter { board: Some(b.slug.to_string()), ..Default::default() };
    let mut actions: Vec<String> =
        e.lifecycle().audit(&filter, None, 500).await.unwrap().into_iter().map(|a| a.action).collect();
    actions.reverse();
    actions
}

/// Every public read of `member`, and of the ranking around it, answers as if it were absent.
async fn assert_absent(e: &Engine, b: &Board, period: &str, member: &str, ctx: &str) {
    let p = Some(period);
    let who = m(member);
    assert!(
        not_found(e.reads().member_rank(&e.reads().scope(&b.slug, p).await.unwrap(), &who).await),
        "{ctx}: member_rank"
    );
    assert!(
        not_found(e.reads().around(&e.reads().scope(&b.slug, p).await.unwrap(), &who, 2).await),
        "{ctx}: around"
    );
    assert!(
        not_found(
            e.reads().member_entries(&e.reads().scope(&b.slug, p).await.unwrap(), &who, None, 10).await
        ),
        "{ctx}: member_entries"
    );
    assert!(
        not_found(e.reads().member_view(&e.reads().scope(&b.slug, p).await.unwrap(), &who, None, 10).await),
        "{ctx}: member_view"
    );
    let ranks = e
        .reads()
        .ranks_of(&e.reads().scope(&b.slug, p).await.unwrap(), std::slice::from_ref(&who))
        .await
        .unwrap()
        .value;
    assert!(ranks.is_empty(), "{ctx}: ranks_of {ranks:?}");
    let top = e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap();
    assert!(top.entries.iter().all(|en| en.member != who), "{ctx}: top {top:?}");
}

#[tokio::test]
async fn a_hidden_member_leaves_every_public_view_and_comes_back_with_its_total() {
    each_store(async |name, e, _| {
        let (b, period) = setup(e, TiePolicy::Shared).await;
        let p = Some(period.as_str());
        let top = e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap();
        assert_eq!(
            rows(&top),
            [
                row(1, "u1", 50, false),
                row(2, "u3", 30, true),
                row(2, "u2", 30, true),
                row(4, "u4", 10, false)
            ],
            "{name}"
        );

        // Hide u2 (cached top page and all): the others close up, the shared rank is recomputed.
        assert!(matches!(
            e.lifecycle()
                .hide_member(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    &m("u2"),
                    "admin:ann",
                    " "
                )
                .await,
            Err(EngineError::Invalid(_))
        ));
        let hid = e
            .lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u2"),
                "admin:ann",
                "abusive name",
            )
            .await
            .unwrap();
        assert_eq!((hid.result, hid.version, hid.projected), (VisibilityOutcome::Hidden, 2, true), "{name}");
        assert_eq!(hid.member, m("u2"));
        let expected = [row(1, "u1", 50, false), row(2, "u3", 30, false), row(3, "u4", 10, false)];
        let top = e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap();
        assert_eq!((rows(&top), top.total), (expected.to_vec(), 3), "{name}: top");
        let page = e.reads().ranking_page(&e.reads().scope(&b.slug, p).await.unwrap(), 1, 2).await.unwrap();
        assert_eq!((rows(&page), page.has_more), (expected[1..].to_vec(), false), "{name}: page");
        let first =
            e.reads().entries_after(&e.reads().scope(&b.slug, p).await.unwrap(), None, 2).await.unwrap();
        let rest = e
            .reads()
            .entries_after(&e.reads().scope(&b.slug, p).await.unwrap(), first.next_cursor.as_deref(), 2)
            .await
            .unwrap();
        assert_eq!((rows(&first.page), rows(&rest.page)), (expected[..2].to_vec(), expected[2..].to_vec()));
        let around =
            e.reads().around(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u3"), 1).await.unwrap();
        assert_eq!(rows(&around), expected.to_vec(), "{name}: around u3");
        assert_eq!(
            e.reads().count_at_least(&e.reads().scope(&b.slug, p).await.unwrap(), 30).await.unwrap().value,
            2,
            "{name}: count"
        );
        let ranks = e
            .reads()
            .ranks_of(&e.reads().scope(&b.slug, p).await.unwrap(), &[m("u2"), m("u4")])
            .await
            .unwrap()
            .value;
        assert_eq!(ranks.iter().map(|en| (en.member.as_str(), en.rank)).collect::<Vec<_>>(), [("u4", 3)]);
        let snap = e.reads().create_snapshot(&e.reads().scope(&b.slug, p).await.unwrap()).await.unwrap();
        let pinned = e
            .reads()
            .snapshot_page(&e.reads().scope(&b.slug, p).await.unwrap(), &snap.snapshot_id, 0, 10)
            .await
            .unwrap();
        assert_eq!((snap.total, rows(&pinned)), (3, expected.to_vec()), "{name}: snapshot");
        assert_absent(e, &b, &period, "u2", name).await;

        // The history is intact, and the console still sees everything.
        let admin = e
            .lifecycle()
            .member_view_admin(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u2"), None, 10)
            .await
            .unwrap();
        assert_eq!((admin.hidden, admin.points, admin.version), (true, Some(30), Some(2)), "{name}");
        assert_eq!(admin.view.standing, None, "{name}: not ranked");
        assert_eq!(
            admin.view.entries.iter().map(|en| en.external_id.as_deref()).collect::<Vec<_>>(),
            [Some("e2")]
        );

        // A repeat changes nothing: same version, no second audit row.
        let again = e
            .lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u2"),
                "admin:ann",
                "abusive name",
            )
            .await
            .unwrap();
        assert_eq!(
            (again.result, again.version, again.projected),
            (VisibilityOutcome::AlreadyHidden, 2, true)
        );

        // Writes to the hidden member are recorded (and projected) but do not show.
        let w = e.writes().record(&b, &[point("e5", "u2", 25)]).await.unwrap().remove(0);
        assert_eq!((w.recorded.outcome, w.recorded.points, w.projected), (Outcome::Applied, Some(55), true));
        let c = engine::lifecycle::Correction {
            member: m("u2"),
            delta: 5,
            correction_id: None,
            reason: "bonus".into(),
        };
        assert_eq!(
            e.lifecycle()
                .correct(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &c, "admin:ann")
                .await
                .unwrap()
                .points,
            60,
            "{name}"
        );
        assert_eq!(
            rows(&e.reads().ranking_page(&e.reads().scope(&b.slug, p).await.unwrap(), 0, 10).await.unwrap()),
            expected.to_vec(),
            "{name}"
        );
        assert_absent(e, &b, &period, "u2", name).await;
        let admin = e
            .lifecycle()
            .member_view_admin(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u2"), None, 10)
            .await
            .unwrap();
        assert_eq!((admin.hidden, admin.points, admin.view.entries.len()), (true, Some(60), 3), "{name}");
        assert_eq!(
            e.jobs().reconcile_once().await.unwrap().periods_levelled,
            0,
            "{name}: the projection is level"
        );

        // Unhide: back, with the total including what was written while hidden.
        let shown = e
            .lifecycle()
            .unhide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u2"),
                "admin:bob",
                "name changed",
            )
            .await
            .unwrap();
        assert_eq!((shown.result, shown.projected), (VisibilityOutcome::Unhidden, true), "{name}");
        let top = e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap();
        assert_eq!(
            rows(&top),
            [
                row(1, "u2", 60, false),
                row(2, "u1", 50, false),
                row(3, "u3", 30, false),
                row(4, "u4", 10, false)
            ],
            "{name}"
        );
        assert_eq!(
            e.reads()
                .member_rank(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u2"))
                .await
                .unwrap()
                .points,
            60,
            "{name}"
        );
        assert_eq!(
            e.reads()
                .member_entries(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u2"), None, 10)
                .await
                .unwrap()
                .len(),
            3,
            "{name}"
        );
        assert!(
            e.reads()
                .member_view(&e.reads().scope(&b.slug, p).await.unwrap(), &m("u2"), None, 10)
                .await
                .unwrap()
                .standing
                .is_some()
        );
        let again = e
            .lifecycle()
            .unhide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u2"),
                "admin:bob",
                "name changed",
            )
            .await
            .unwrap();
        assert_eq!((again.result, again.version), (VisibilityOutcome::AlreadyVisible, shown.version));

        // A member without a total in the period cannot be hidden.
        assert!(
            not_found(
                e.lifecycle()
                    .hide_member(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        &m("nobody"),
                        "admin:ann",
                        "x"
                    )
                    .await
            ),
            "{name}"
        );
        assert_eq!(e.jobs().reconcile_once().await.unwrap().periods_levelled, 0, "{name}");

        // Every change is audited with its actor, reason and before/after; repeats are not.
        let filter =
            AuditFilter { board: Some(b.slug.to_string()), member: Some("u2".into()), ..Default::default() };
        let mut trail = e.lifecycle().audit(&filter, None, 50).await.unwrap();
        trail.reverse();
        let summary: Vec<_> = trail
            .iter()
            .map(|a| (a.action.as_str(), a.actor.as_str(), a.reason.as_deref(), a.period.as_deref()))
            .collect();
        assert_eq!(
            summary,
            [
                ("hide", "admin:ann", Some("abusive name"), Some(period.as_str())),
                ("correct", "admin:ann", Some("bonus"), Some(period.as_str())),
                ("unhide", "admin:bob", Some("name changed"), Some(period.as_str())),
            ],
            "{name}"
        );
        let hide = &trail[0];
        assert_eq!(hide.before, Some(serde_json::json!({"hidden": false, "points": 30, "version": 1})));
        assert_eq!(hide.after, Some(serde_json::json!({"hidden": true, "points": 30, "version": 2})));
        let unhide = &trail[2];
        assert_eq!(unhide.before, Some(serde_json::json!({"hidden": true, "points": 60, "version": 4})));
        assert_eq!(unhide.after, Some(serde_json::json!({"hidden": false, "points": 60, "version": 5})));
    })
    .await;
}

#[tokio::test]
async fn replays_rebuilds_and_the_reconciler_keep_a_hidden_member_hidden() {
    each_store(async |name, e, p| {
        let (b, period) = setup(e, TiePolicy::FirstReached).await;
        let key = b.period_at(jiff::Timestamp::now());
        let visible_u2 = ProjectedTotal {
            member: m("u2"),
            version: 1,
            score: b.codec.encode(30, 1).unwrap(),
            hidden: false,
        };
        e.lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u2"),
                "admin",
                "cheating",
            )
            .await
            .unwrap();
        let ranked = async || {
            let page = e
                .reads()
                .ranking_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
                .await
                .unwrap();
            (page.total, page.entries.iter().map(|en| (en.member.to_string(), en.rank)).collect::<Vec<_>>())
        };
        let expected = (3, vec![("u1".to_owned(), 1), ("u3".to_owned(), 2), ("u4".to_owned(), 3)]);
        assert_eq!(ranked().await, expected, "{name}");

        // A replayed or late projection of the visible version brings nothing back.
        assert_eq!(
            e.projection().project_many(&b.slug, &key, std::slice::from_ref(&visible_u2)).await.unwrap(),
            0
        );
        assert!(!e.projection().project(&b.slug, &key, &visible_u2).await.unwrap(), "{name}");
        assert_eq!(ranked().await, expected, "{name}");

        // The keys are lost; a rebuild keeps u2 out and its version in: the reconciler is level.
        p.cleanup().await;
        assert_eq!(
            e.jobs()
                .rebuild(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "admin")
                .await
                .unwrap()
                .members,
            3,
            "{name}"
        );
        assert_eq!(ranked().await, expected, "{name}: after a rebuild");
        assert_eq!(
            e.jobs().reconcile_once().await.unwrap().periods_levelled,
            0,
            "{name}: level after a rebuild"
        );
        assert!(!e.projection().project(&b.slug, &key, &visible_u2).await.unwrap(), "{name}");

        // The keys are lost again and nobody rebuilds: the reconciler levels once, and stays level.
        p.cleanup().await;
        let report = e.jobs().reconcile_once().await.unwrap();
        assert_eq!((report.periods_levelled, report.members_levelled), (1, 4), "{name}");
        assert_eq!(ranked().await, expected, "{name}: after the reconciler");
        assert_eq!(e.jobs().reconcile_once().await.unwrap().periods_levelled, 0, "{name}: no endless repair");

        // The audit trail names the rebuild, with the hidden member it kept out.
        let filter = AuditFilter {
            board: Some(b.slug.to_string()),
            action: Some("rebuild".into()),
            ..Default::default()
        };
        let rebuild = e.lifecycle().audit(&filter, None, 1).await.unwrap().remove(0);
        assert_eq!(rebuild.after.as_ref().unwrap()["hidden_members"], 1, "{name}");
        assert_eq!(audit_actions(e, &b).await, ["hide", "rebuild"], "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_settlement_leaves_hidden_members_out_of_the_standings_and_the_prizes() {
    each_store(async |name, e, p| {
        // Hidden while frozen, the projection intact: the cross-check is level, no repair.
        let (b, period) = setup(e, TiePolicy::Shared).await;
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
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u1"),
                "admin",
                "multiple accounts",
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
        let table: Vec<_> =
            s.standings.iter().map(|s| (s.rank, s.member.as_str(), s.points, s.prize.as_deref())).collect();
        assert_eq!(
            table,
            // (Equal points list by member id descending, as the live board does.)
            [(1, "u3", 30, Some("gold")), (1, "u2", 30, Some("gold")), (3, "u4", 10, Some("silver"))],
            "{name}"
        );
        assert_eq!(s.members, 3, "{name}");
        let digest = expected_digest(&b, &period, &[("u2", 30), ("u3", 30), ("u4", 10)]);
        assert_eq!(s.digest, digest, "{name}");
        let rewards = e.rewards().of(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        let mut prized: Vec<_> = rewards.iter().map(|r| (r.member.as_str(), r.prize.as_str())).collect();
        prized.sort_unstable();
        assert_eq!(prized, [("u2", "gold"), ("u3", "gold"), ("u4", "silver")], "{name}");
        // Settling again answers the same settlement.
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
            s,
            "{name}"
        );
        let filter = AuditFilter {
            board: Some(b.slug.to_string()),
            action: Some("settle".into()),
            ..Default::default()
        };
        let settle = e.lifecycle().audit(&filter, None, 1).await.unwrap().remove(0);
        assert_eq!(settle.after.as_ref().unwrap()["hidden_members"], 1, "{name}");

        // Settled: the standings are final; a repeat still answers what is.
        let hide = e
            .lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u2"),
                "admin",
                "too late",
            )
            .await;
        assert_eq!(conflict_code(hide), "period_settled", "{name}");
        let unhide = e
            .lifecycle()
            .unhide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u1"),
                "admin",
                "too late",
            )
            .await;
        assert_eq!(conflict_code(unhide), "period_settled", "{name}");
        let again = e
            .lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u1"),
                "admin",
                "multiple accounts",
            )
            .await
            .unwrap();
        assert_eq!(again.result, VisibilityOutcome::AlreadyHidden, "{name}");
        assert_absent(e, &b, &period, "u1", name).await;

        // Archived reads come from the standings: still absent.
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Archive,
                "admin",
                None,
            )
            .await
            .unwrap();
        p.cleanup().await;
        assert_absent(e, &b, &period, "u1", name).await;
        let again = e
            .lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u1"),
                "admin",
                "multiple accounts",
            )
            .await
            .unwrap();
        assert_eq!((again.result, again.projected), (VisibilityOutcome::AlreadyHidden, true), "{name}");
        assert!(p.keys().await.is_empty(), "{name}: an archived period's keys are not written again");
        let admin = e
            .lifecycle()
            .member_view_admin(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &m("u1"), None, 10)
            .await
            .unwrap();
        assert_eq!((admin.hidden, admin.points, admin.view.entries.len()), (true, Some(50), 1), "{name}");
        assert_eq!(
            audit_actions(e, &b).await,
            ["freeze", "hide", "settle", "archive"],
            "{name}: refused and repeated calls are not audited"
        );

        // Hidden, then the projection lost after freeze: the cross-check repairs it, u1 stays out.
        let (b, period) = setup(e, TiePolicy::Shared).await;
        e.lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u1"),
                "admin",
                "multiple accounts",
            )
            .await
            .unwrap();
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
        assert_eq!(
            e.lifecycle()
                .settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap())
                .await
                .unwrap()
                .digest,
            expected_digest(&b, &period, &[("u2", 30), ("u3", 30), ("u4", 10)])
        );
        assert_eq!(audit_actions(e, &b).await, ["hide", "freeze", "projection_repaired", "settle"], "{name}");
        assert_absent(e, &b, &period, "u1", name).await;
        assert_eq!(
            e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 10).await.unwrap().total,
            3,
            "{name}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_hide_while_redis_is_away_is_levelled_by_the_reconciler() {
    for t in TestLedger::both().await {
        for mut redis in [common::OwnRedis::standalone(), common::OwnRedis::cluster()] {
            let projection = engine::redis::Projection::new(
                engine::redis::RedisTarget::parse(&redis.url()).unwrap(),
                engine::redis::keys::KeySpace::new(unique("own")),
            );
            t.ledger.migrate().await.unwrap();
            let e = Engine::from_parts(t.ledger.clone(), projection);
            let (b, period) = setup(&e, TiePolicy::Shared).await;
            redis.stop();
            let hid = e
                .lifecycle()
                .hide_member(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    &m("u2"),
                    "admin",
                    "spam",
                )
                .await
                .unwrap();
            assert_eq!((hid.result, hid.projected), (VisibilityOutcome::Hidden, false), "{}", t.name);
            // The ledger has it: ledger-based public reads already leave the member out.
            let key = b.period_at(jiff::Timestamp::now());
            assert!(e.ledger().member_total(&b.slug, &key, &m("u2")).await.unwrap().unwrap().hidden);
            assert!(not_found(
                e.reads()
                    .member_entries(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        &m("u2"),
                        None,
                        10
                    )
                    .await
            ));
            // Redis comes back empty; the reconciler levels it without u2.
            redis.restart();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            loop {
                if e.jobs().reconcile_once().await.is_ok()
                    && let Ok(page) = e
                        .reads()
                        .ranking_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
                        .await
                    && page.total == 3
                {
                    let members: Vec<_> = page.entries.iter().map(|en| en.member.to_string()).collect();
                    assert_eq!(members, ["u1", "u3", "u4"], "{}", t.name);
                    break;
                }
                assert!(std::time::Instant::now() < deadline, "{}: not levelled after 20 s", t.name);
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            assert_eq!(e.jobs().reconcile_once().await.unwrap().periods_levelled, 0, "{}", t.name);
            assert_absent(&e, &b, &period, "u2", t.name).await;
            drop(redis);
        }
        t.drop_db().await;
    }
}
