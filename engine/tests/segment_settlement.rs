//! Settlement per segment on real stores (issue 43; Redis standalone and Cluster × SQLite and
//! PostgreSQL):
//!
//! - one settlement awards the board's prize table and each dimension's table in every value's
//!   ranking; each reward names its ranking and has a key of its own; the settlement lists every
//!   segment ranking with its member count and digest, and its digest folds them in;
//! - a preview of a correction of the settled period lists each segment ranking it touches (the
//!   moves and the prizes changing hands there) and the folded digest the revision will have;
//! - applying it writes revision 2 with every ranking re-ranked and moves
//!   rewards by deltas only, ranking by ranking (an unchanged ranking writes nothing); a repeated
//!   apply moves nothing more;
//! - an export carries the segment records; an import into another ledger reproduces the
//!   digest, and the offline verifier recomputes the latest revision's segment rankings from the
//!   export (and finds a tampered segment digest);
//! - edited segment prize tables (an undeclared dimension refused) apply to the next settlement;
//! - a move between values is previewed (the member leaves one ranking and joins another),
//!   audited, takes the total along at once, makes the new value the one later writes must name,
//!   and leaves a tombstone that the reconciler counts (nothing to level after it; after Redis
//!   lost the keys, levelling puts the member back in its new ranking only); after settlement, a
//!   move moves the prizes of the rankings it touches only, by deltas.

mod common;

use common::{TestLedger, TestProjection, each_store, engine, prized_board};
use domain::board::{Prize, SegmentPrizes};
use domain::lifecycle::Transition;
use domain::preview::PreviewChange;
use domain::receipt::{Finding, settlement_digest, verify_export};
use domain::view::{RewardKind, RewardView};
use domain::write::{Change, Outcome, Write};
use domain::{Board, EventId, MemberId, TiePolicy};
use engine::Engine;
use engine::ledger::audit::AuditFilter;
use engine::scope::Scope;

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

/// A board with dimensions province and class: gold for the board's rank 1 (and silver for 2–3),
/// "provincial" for rank 1 of each province, "class star" for ranks 1–2 of each class.
fn board() -> Board {
    let prize = |from_rank, to_rank, prize: &str| Prize { from_rank, to_rank, prize: prize.into() };
    Board {
        segments: vec!["province".into(), "class".into()],
        segment_prizes: SegmentPrizes::from([
            ("province".to_owned(), vec![prize(1, 1, "provincial")]),
            ("class".to_owned(), vec![prize(1, 2, "class star")]),
        ]),
        ..prized_board("segsettle", TiePolicy::FirstReached, 60)
    }
}

fn event(id: &str, member: &str, delta: i64, province: &str, class: &str) -> Write {
    Write {
        member: m(member),
        change: Change::Point { event_id: EventId::parse(id).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: [("province", province), ("class", class)].map(|(d, v)| (d.into(), v.into())).into(),
    }
}

/// u1 zj/c1 50, u2 zj/c2 30, u3 js/c1 30, u5 zj/c2 30 (reached in that order), u4 js/c1 10;
/// frozen and settled. Answers the period's scope.
async fn settled(e: &Engine, b: &Board) -> Scope {
    let scope = recorded(e, b).await;
    e.lifecycle().transition(&scope, Transition::Freeze, "admin:ann", None).await.unwrap();
    e.lifecycle().transition(&scope, Transition::Settle, "admin:ann", None).await.unwrap();
    scope
}

/// The writes of [`settled`], in an open period.
async fn recorded(e: &Engine, b: &Board) -> Scope {
    e.boards().create_board(b).await.unwrap();
    let writes = [
        event("e1", "u1", 50, "zj", "c1"),
        event("e2", "u2", 30, "zj", "c2"),
        event("e3", "u3", 30, "js", "c1"),
        event("e4", "u5", 30, "zj", "c2"),
        event("e5", "u4", 10, "js", "c1"),
    ];
    for w in writes {
        let out = e.writes().record(b, &[w]).await.unwrap();
        assert_eq!(out[0].recorded.outcome, Outcome::Applied);
    }
    e.reads().scope(&b.slug, None).await.unwrap()
}

/// Rewards as (kind, member, ranking, prize), in id order.
fn rewards(rows: &[RewardView]) -> Vec<(&'static str, String, String, String)> {
    rows.iter()
        .map(|r| {
            (r.kind.as_str(), r.member.to_string(), r.ranking.clone().unwrap_or_default(), r.prize.clone())
        })
        .collect()
}

fn grant(member: &str, ranking: &str, prize: &str) -> (&'static str, String, String, String) {
    (RewardKind::Grant.as_str(), member.into(), ranking.into(), prize.into())
}

fn revoke(member: &str, ranking: &str, prize: &str) -> (&'static str, String, String, String) {
    (RewardKind::Revoke.as_str(), member.into(), ranking.into(), prize.into())
}

/// The reward deltas an apply queued, as (kind, member, ranking, prize), in the order queued.
fn deltas(applied: &engine::ledger::Applied) -> Vec<(&'static str, String, String, String)> {
    let revision = applied.revision.as_ref().expect("a settled period gets a revision");
    revision
        .rewards
        .iter()
        .map(|d| {
            (d.kind.as_str(), d.member.to_string(), d.ranking.clone().unwrap_or_default(), d.prize.clone())
        })
        .collect()
}

/// A prize changing hands in a preview: (member, before, after).
type PrizeMove = (String, Option<String>, Option<String>);

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

#[tokio::test]
async fn one_settlement_awards_the_board_and_every_segment_ranking() {
    each_store(async |name, e, _| {
        let b = board();
        let scope = settled(e, &b).await;
        let s = e.lifecycle().settlement(&scope).await.unwrap();
        let listed: Vec<(String, u64)> =
            s.segments.iter().map(|x| (format!("{}:{}", x.dimension, x.value), x.members)).collect();
        let expected = [("class:c1", 3), ("class:c2", 2), ("province:js", 2), ("province:zj", 3)];
        assert_eq!(listed, expected.map(|(s, n)| (s.to_owned(), n)), "{name}");
        // The digest folds the segments in: not the standings' own digest, and it is exactly
        // the fold of the standings with the listed records.
        let key = scope.period().to_string();
        let plain = domain::receipt::digest(b.slug.as_str(), &key, &s.standings);
        assert_ne!(s.digest, plain, "{name}");
        assert_eq!(s.digest, settlement_digest(b.slug.as_str(), &key, &s.standings, &s.segments), "{name}");

        let got = e.rewards().of(&scope).await.unwrap();
        let want = vec![
            grant("u1", "", "gold"),
            grant("u2", "", "silver"),
            grant("u3", "", "silver"),
            grant("u1", "class:c1", "class star"),
            grant("u3", "class:c1", "class star"),
            grant("u2", "class:c2", "class star"),
            grant("u5", "class:c2", "class star"),
            grant("u3", "province:js", "provincial"),
            grant("u1", "province:zj", "provincial"),
        ];
        assert_eq!(sorted(rewards(&got)), sorted(want), "{name}");
        // Every reward has a key of its own; a segment's names its ranking.
        let mut keys: Vec<&str> = got.iter().map(|r| r.idempotency_key.as_str()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), got.len(), "{name}");
        let zj = got.iter().find(|r| r.ranking.as_deref() == Some("province:zj")).unwrap();
        assert_eq!(zj.idempotency_key, format!("laurel:{}:{key}:1:u1#province:zj", b.slug), "{name}");
        // The segment's reward rank is its rank in the segment: u3 is second on the board's
        // ranking of 30s but first in js.
        let js = got.iter().find(|r| r.ranking.as_deref() == Some("province:js")).unwrap();
        assert_eq!((js.member.as_str(), js.rank), ("u3", 1), "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_correction_resettles_every_segment_with_reward_deltas_only_and_travels_in_exports() {
    each_store(async |name, e, _| {
        let b = board();
        let scope = settled(e, &b).await;
        let first = e.lifecycle().settlement(&scope).await.unwrap();
        // u4 (js/c1) to 110: first on the board, in js and in c1.
        let changes = vec![PreviewChange::Correct { member: m("u4"), delta: 100 }];
        let preview = e.lifecycle().preview(&scope, "appeal 9", changes, "admin:ann").await.unwrap();
        // The preview names every ranking the correction touches, with the prizes that change
        // hands in each; zj and c2 are untouched.
        let touched: Vec<(&str, Vec<PrizeMove>)> = preview
            .segments
            .iter()
            .map(|c| {
                let prizes =
                    c.prizes.iter().map(|p| (p.member.to_string(), p.before.clone(), p.after.clone()));
                (c.ranking.as_str(), prizes.collect())
            })
            .collect();
        let change = |m: &str, before: Option<&str>, after: Option<&str>| {
            (m.to_owned(), before.map(str::to_owned), after.map(str::to_owned))
        };
        assert_eq!(
            touched,
            vec![
                (
                    "class:c1",
                    vec![change("u4", None, Some("class star")), change("u3", Some("class star"), None)]
                ),
                (
                    "province:js",
                    vec![change("u4", None, Some("provincial")), change("u3", Some("provincial"), None)]
                ),
            ],
            "{name}"
        );
        let c1 = &preview.segments[0].moves;
        assert_eq!(
            c1.iter().map(|m| (m.member.as_str(), m.rank_before, m.rank_after)).collect::<Vec<_>>(),
            vec![("u4", Some(3), Some(1))],
            "{name}"
        );
        let applied = e.lifecycle().apply_preview(&scope, &preview.preview_id, "admin:bob").await.unwrap();
        let moved = deltas(&applied);
        // Board: u4 gold, u1 silver, u2 silver (u3 loses silver). js: u4 provincial. c1: u4 and
        // u1 class stars (u3 loses its). zj and c2 are unchanged and move nothing.
        let want = vec![
            revoke("u1", "", "gold"),
            grant("u1", "", "silver"),
            revoke("u3", "", "silver"),
            revoke("u3", "class:c1", "class star"),
            revoke("u3", "province:js", "provincial"),
            grant("u4", "", "gold"),
            grant("u4", "class:c1", "class star"),
            grant("u4", "province:js", "provincial"),
        ];
        assert_eq!(sorted(moved), sorted(want), "{name}");
        let second = e.lifecycle().settlement(&scope).await.unwrap();
        assert_eq!((second.revision, second.previous_digest.as_ref()), (2, Some(&first.digest)), "{name}");
        assert_eq!(
            preview.digest_after.as_ref(),
            Some(&second.digest),
            "{name}: the preview's digest is the fold"
        );
        let c1 = second.segments.iter().find(|s| s.value == "c1").unwrap();
        let c1_before = first.segments.iter().find(|s| s.value == "c1").unwrap();
        assert_eq!(c1.members, 3, "{name}");
        assert_ne!(c1.digest, c1_before.digest, "{name}: c1 was re-ranked");
        let zj = |s: &domain::view::Settlement| {
            s.segments.iter().find(|x| x.value == "zj").unwrap().digest.clone()
        };
        assert_eq!(zj(&second), zj(&first), "{name}: zj did not move");
        // Applying again moves nothing more.
        let before = e.rewards().of(&scope).await.unwrap().len();
        e.lifecycle().apply_preview(&scope, &preview.preview_id, "admin:bob").await.unwrap();
        assert_eq!(e.rewards().of(&scope).await.unwrap().len(), before, "{name}");

        // The export carries both revisions' records; the verifier recomputes the latest's
        // rankings (an earlier revision's are held by its digest and the chain).
        let export = e.transfer().export_period(&scope).await.unwrap();
        let json = serde_json::to_value(&export).unwrap();
        let report = verify_export(&json);
        assert!(report.fails.is_empty(), "{name}: {:?}", report.fails);
        let held =
            report.holds.iter().filter(|f| matches!(f, Finding::SegmentsHold { rankings: 4, .. })).count();
        assert_eq!(held, 1, "{name}: the latest revision's: {:?}", report.holds);
        let mut tampered = json.clone();
        tampered["settlement"]["segments"][0]["digest"] = "00".into();
        let report = verify_export(&tampered);
        assert!(
            report.fails.iter().any(|f| matches!(f, Finding::SegmentDiffers { revision: 2, .. })),
            "{name}: {:?}",
            report.fails
        );
        assert!(
            report.fails.iter().any(|f| matches!(f, Finding::DigestDiffers { revision: 2, .. })),
            "{name}"
        );

        // An import into another ledger reproduces the digest and the records.
        let other = TestLedger::sqlite().await;
        let p = TestProjection::new(common::redis_targets()[0].1.clone());
        let dest = engine(&other, &p).await;
        let report = dest.transfer().import_period(&export).await.unwrap();
        assert_eq!(report.digest, second.digest, "{name}");
        let there = dest.reads().scope(&b.slug, Some(&scope.period().to_string())).await.unwrap();
        assert_eq!(dest.lifecycle().settlement(&there).await.unwrap().segments, second.segments, "{name}");
        p.cleanup().await;
        other.drop_db().await;
    })
    .await;
}

fn move_to(member: &str, dimension: &str, value: &str) -> Vec<PreviewChange> {
    vec![PreviewChange::Move { member: m(member), dimension: dimension.into(), value: value.into() }]
}

/// A ranking as (rank, member, points).
async fn ranking(e: &Engine, scope: &Scope, segment: &str) -> Vec<(u64, String, i64)> {
    let page = e.reads().top(&scope.clone().in_segment(Some(segment)).unwrap(), 10).await.unwrap();
    page.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)).collect()
}

fn r(rank: u64, member: &str, points: i64) -> (u64, String, i64) {
    (rank, member.into(), points)
}

#[tokio::test]
async fn a_move_is_previewed_audited_and_takes_the_total_to_the_new_ranking() {
    each_store(async |name, e, p| {
        let b = board();
        let scope = recorded(e, &b).await;
        // u4 (js, 10 points) to zj: it leaves js (where it was 2nd) and joins zj last.
        let preview = e
            .lifecycle()
            .preview(&scope, "transferred school", move_to("u4", "province", "zj"), "admin:ann")
            .await
            .unwrap();
        assert!(preview.moves.is_empty(), "{name}: the board does not move: {:?}", preview.moves);
        let moved: Vec<(&str, Option<u64>, Option<u64>)> = preview
            .segments
            .iter()
            .flat_map(|c| c.moves.iter().map(move |m| (c.ranking.as_str(), m.rank_before, m.rank_after)))
            .collect();
        assert_eq!(moved, vec![("province:js", Some(2), None), ("province:zj", None, Some(4))], "{name}");
        // zj's provincial prize stays with u1; js has nobody else to lose it to.
        assert!(preview.segments.iter().all(|c| c.prizes.is_empty()), "{name}: {:?}", preview.segments);
        e.lifecycle().apply_preview(&scope, &preview.preview_id, "admin:bob").await.unwrap();

        assert_eq!(ranking(e, &scope, "province:js").await, vec![r(1, "u3", 30)], "{name}");
        assert_eq!(
            ranking(e, &scope, "province:zj").await,
            vec![r(1, "u1", 50), r(2, "u2", 30), r(3, "u5", 30), r(4, "u4", 10)],
            "{name}"
        );
        assert_eq!(ranking(e, &scope, "class:c1").await.len(), 3, "{name}: its class is unchanged");
        let filter = AuditFilter {
            board: Some(b.slug.to_string()),
            action: Some("segment_move".into()),
            ..Default::default()
        };
        let audited = e.lifecycle().audit(&filter, None, 10).await.unwrap();
        assert_eq!(audited.len(), 1, "{name}");
        assert_eq!(audited[0].reason.as_deref(), Some("transferred school"), "{name}");
        // The new value is the member's now: a write naming the old one is rejected.
        let out = e.writes().record(&b, &[event("e6", "u4", 5, "js", "c1")]).await.unwrap();
        assert_eq!(out[0].recorded.outcome, Outcome::Rejected, "{name}");
        let out = e.writes().record(&b, &[event("e7", "u4", 5, "zj", "c1")]).await.unwrap();
        assert_eq!(out[0].recorded.outcome, Outcome::Applied, "{name}");
        // Moving it where it is refuses the preview.
        let again =
            e.lifecycle().preview(&scope, "again", move_to("u4", "province", "zj"), "admin:ann").await;
        assert!(matches!(again, Err(engine::EngineError::Invalid(_))), "{name}: {again:?}");
        // The projection agrees with the ledger: nothing to level, then everything after a loss.
        assert_eq!(e.jobs().reconcile_once().await.unwrap().segments_levelled, 0, "{name}");
        p.cleanup().await;
        assert!(e.jobs().reconcile_once().await.unwrap().segments_levelled > 0, "{name}");
        assert_eq!(ranking(e, &scope, "province:js").await, vec![r(1, "u3", 30)], "{name}");
        assert_eq!(ranking(e, &scope, "province:zj").await.last(), Some(&r(4, "u4", 15)), "{name}");
        assert_eq!(
            e.jobs().reconcile_once().await.unwrap().segments_levelled,
            0,
            "{name}: the tombstone counts"
        );
    })
    .await;
}

#[tokio::test]
async fn a_move_after_settlement_moves_the_prizes_of_the_rankings_it_touches_only() {
    each_store(async |name, e, _| {
        let b = board();
        let scope = settled(e, &b).await;
        // u3 (js's provincial winner) to zj, where it ranks 3rd: js's prize goes to u4.
        let preview = e
            .lifecycle()
            .preview(&scope, "wrong province", move_to("u3", "province", "zj"), "admin:ann")
            .await
            .unwrap();
        let prizes: Vec<(&str, String, Option<String>, Option<String>)> = preview
            .segments
            .iter()
            .flat_map(|c| {
                c.prizes.iter().map(move |p| {
                    (c.ranking.as_str(), p.member.to_string(), p.before.clone(), p.after.clone())
                })
            })
            .collect();
        let provincial = Some("provincial".to_owned());
        assert_eq!(
            prizes,
            vec![
                ("province:js", "u4".into(), None, provincial.clone()),
                ("province:js", "u3".into(), provincial, None)
            ],
            "{name}"
        );
        let applied = e.lifecycle().apply_preview(&scope, &preview.preview_id, "admin:bob").await.unwrap();
        let deltas = deltas(&applied);
        assert_eq!(
            sorted(deltas),
            sorted(vec![revoke("u3", "province:js", "provincial"), grant("u4", "province:js", "provincial")]),
            "{name}"
        );
        let second = e.lifecycle().settlement(&scope).await.unwrap();
        assert_eq!(preview.digest_after.as_ref(), Some(&second.digest), "{name}");
        let zj = second.segments.iter().find(|s| s.value == "zj").unwrap();
        assert_eq!(zj.members, 4, "{name}");
        // The export of the moved period verifies, its latest revision from the values now.
        let report =
            verify_export(&serde_json::to_value(e.transfer().export_period(&scope).await.unwrap()).unwrap());
        assert!(report.fails.is_empty(), "{name}: {:?}", report.fails);
    })
    .await;
}

#[tokio::test]
async fn edited_segment_prize_tables_apply_to_the_next_settlement() {
    each_store(async |name, e, _| {
        let b = board();
        let scope = recorded(e, &b).await;
        let settings = domain::board::BoardSettings::of(&b);
        let undeclared = SegmentPrizes::from([("school".to_owned(), vec![])]);
        assert!(settings.clone().with_segment_prizes(&b.segments, undeclared.clone()).is_err(), "{name}");
        // The engine refuses it too, whatever the caller checked.
        let refused = e
            .boards()
            .edit_board(
                &b.slug,
                &domain::board::BoardSettings { segment_prizes: Some(undeclared), ..settings.clone() },
                "admin:ann",
            )
            .await;
        assert!(matches!(refused, Err(engine::EngineError::Refused { .. })), "{name}: {refused:?}");
        let tables = SegmentPrizes::from([(
            "class".to_owned(),
            vec![Prize { from_rank: 1, to_rank: 1, prize: "top of class".into() }],
        )]);
        e.boards()
            .edit_board(&b.slug, &settings.with_segment_prizes(&b.segments, tables).unwrap(), "admin:ann")
            .await
            .unwrap();
        e.lifecycle().transition(&scope, Transition::Freeze, "admin:ann", None).await.unwrap();
        e.lifecycle().transition(&scope, Transition::Settle, "admin:ann", None).await.unwrap();
        let segment_rewards: Vec<_> =
            rewards(&e.rewards().of(&scope).await.unwrap()).into_iter().filter(|r| !r.2.is_empty()).collect();
        assert_eq!(
            sorted(segment_rewards),
            sorted(vec![grant("u1", "class:c1", "top of class"), grant("u2", "class:c2", "top of class")]),
            "{name}: provinces have no table any more"
        );
    })
    .await;
}
