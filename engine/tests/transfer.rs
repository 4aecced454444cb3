//! Export and import of a settled period between ledgers: SQLite → PostgreSQL and PostgreSQL →
//! SQLite give the identical settlement (digest and standings); a second import and a tampered
//! export are refused with nothing written. Both tie policies, revocations and corrections
//! included. A board with segments travels with its members' values: after the import each
//! segment ranks as in the source (from Redis while settled, from the ledger once archived), on
//! standalone Redis and Cluster; an export naming an undeclared dimension or a member without
//! entries is refused with nothing written; a new export still verifies with the receipts
//! verifier, and an export of format version 4 (before segments) still imports.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets};

/// Two weeks of grace: last week's period still takes writes, so it can be filled now.
fn board(policy: TiePolicy) -> Board {
    common::prized_board("t", policy, 14 * 24 * 3600)
}
use domain::lifecycle::{State, Transition};
use domain::write::{Change, Outcome, Write};
use domain::{Board, EventId, MemberId, PeriodKey, TiePolicy};
use engine::lifecycle::Correction;
use engine::transfer::{FORMAT_VERSION, PeriodExport};
use engine::{Engine, EngineError};

fn last_week() -> jiff::Timestamp {
    jiff::Timestamp::now() - jiff::SignedDuration::from_hours(7 * 24)
}

fn point(event: &str, member: &str, delta: i64) -> Write {
    Write {
        member: MemberId::parse(member).unwrap(),
        change: Change::Point { event_id: EventId::parse(event).unwrap(), delta },
        occurred_at: last_week(),
        metadata: Some(format!(r#"{{"source":"{event}"}}"#)),
        segments: Default::default(),
    }
}

fn code(e: EngineError) -> &'static str {
    match e {
        EngineError::Refused { code, .. } => code.as_str(),
        other => panic!("expected a conflict, got {other:?}"),
    }
}

/// Last week's period of a new board, filled (with a revocation, a correction and a rejected
/// late write), frozen and settled.
async fn settled_period(e: &Engine, policy: TiePolicy) -> (Board, PeriodKey) {
    let b = board(policy);
    e.boards().create_board(&b).await.unwrap();
    let period = b.period_at(last_week());
    let key = period.to_string();
    let writes = [
        point("e1", "u1", 50),
        point("e2", "u2", 30),
        point("e3", "u3", 50),
        point("e4", "u2", 20),
        point("e5", "u1", 10),
        point("e6", "u4", 7),
        point("e7", "u5", 7),
    ];
    for r in e.writes().record(&b, &writes).await.unwrap() {
        assert_eq!(r.recorded.outcome, Outcome::Applied, "{r:?}");
    }
    let u3 = MemberId::parse("u3").unwrap();
    assert_eq!(
        e.lifecycle()
            .revoke(&b.slug, &EventId::parse("e5").unwrap(), "admin", "duplicate award")
            .await
            .unwrap()
            .result,
        "revoked"
    );
    let correction = |delta, reason: &str| Correction {
        member: u3.clone(),
        delta,
        correction_id: None,
        reason: reason.into(),
    };
    e.lifecycle()
        .correct(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), &correction(-5, "penalty"), "admin")
        .await
        .unwrap();
    e.lifecycle()
        .correct(
            &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
            &correction(5, "penalty lifted"),
            "admin",
        )
        .await
        .unwrap();
    e.lifecycle()
        .transition(
            &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
            Transition::Freeze,
            "admin",
            Some("week over"),
        )
        .await
        .unwrap();
    let late = e.writes().record(&b, &[point("e8", "u4", 100)]).await.unwrap();
    assert_eq!(late[0].recorded.outcome, Outcome::Late);
    let pending = e
        .lifecycle()
        .late_entries(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), Some("pending"))
        .await
        .unwrap();
    e.lifecycle()
        .decide_late(
            &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
            pending[0].id,
            false,
            "admin",
            Some("too late"),
        )
        .await
        .unwrap();
    let info = e
        .lifecycle()
        .transition(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), Transition::Settle, "admin", None)
        .await
        .unwrap();
    assert_eq!(info.state.as_str(), "settled");
    (b, period)
}

/// The export as a file would carry it.
fn through_json(export: &PeriodExport) -> PeriodExport {
    serde_json::from_str(&serde_json::to_string_pretty(export).unwrap()).unwrap()
}

/// Runs `test` with a source and a target engine on different ledgers, both directions.
async fn each_direction(test: impl AsyncFn(&str, &Engine, &Engine)) {
    let (_, target) = redis_targets().remove(0);
    for sqlite_first in [true, false] {
        let (a, b) = (TestLedger::sqlite().await, TestLedger::postgres().await);
        let (source, dest) = if sqlite_first { (a, b) } else { (b, a) };
        let (ps, pd) = (TestProjection::new(target.clone()), TestProjection::new(target.clone()));
        let (es, ed) = (engine(&source, &ps).await, engine(&dest, &pd).await);
        test(&format!("{} -> {}", source.name, dest.name), &es, &ed).await;
        ps.cleanup().await;
        pd.cleanup().await;
        source.drop_db().await;
        dest.drop_db().await;
    }
}

#[tokio::test]
async fn an_imported_period_has_the_same_settlement_on_the_other_ledger() {
    each_direction(async |ctx, source, dest| {
        for policy in [TiePolicy::FirstReached, TiePolicy::Shared] {
            let (b, period) = settled_period(source, policy).await;
            let key = period.to_string();
            let export = source
                .transfer()
                .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap();
            assert_eq!(export.entries.len(), 10, "{ctx}: 7 events, a revocation, 2 corrections");
            let revocation = export.entries.iter().find(|e| e.kind == "revocation").unwrap();
            assert_eq!(revocation.revokes.as_deref(), Some("e5"), "{ctx}");
            assert_eq!(export.late_entries[0].status, "rejected", "{ctx}");

            let report = dest.transfer().import_period(&through_json(&export)).await.unwrap();
            assert!(report.board_created, "{ctx}");
            assert_eq!((report.entries, report.late_entries, report.members), (10, 1, 5), "{ctx}");

            let before = source
                .lifecycle()
                .settlement(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap();
            let after = dest
                .lifecycle()
                .settlement(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap();
            assert_eq!(after.digest, before.digest, "{ctx} {policy}");
            assert_eq!(report.digest, before.digest, "{ctx}");
            assert_eq!(after.standings, before.standings, "{ctx} {policy}");
            assert_eq!((after.revision, after.rule_version, after.members), (1, 1, 5), "{ctx}");
            assert_eq!(after.standings[0].prize.as_deref(), Some("gold"), "{ctx}");
            assert_eq!(dest.ledger().state_of(&b.slug, &period).await.unwrap(), State::Settled, "{ctx}");
            assert_eq!(dest.reads().board(&b.slug).await.unwrap(), b, "{ctx}");

            // Exported again from the target, the period is the same (only its row ids differ).
            let mut again = dest
                .transfer()
                .export_period(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap();
            again.exported_at = export.exported_at;
            again.settlement.watermark = export.settlement.watermark;
            assert_eq!(again, export, "{ctx} {policy}");

            // The target's projection shows the imported standings.
            let page = dest
                .reads()
                .ranking_page(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap(), 0, 10)
                .await
                .unwrap();
            let live: Vec<(String, i64)> =
                page.entries.iter().map(|e| (e.member.to_string(), e.points)).collect();
            let settled: Vec<(String, i64)> =
                after.standings.iter().map(|s| (s.member.to_string(), s.points)).collect();
            assert_eq!(live, settled, "{ctx} {policy}");
        }
    })
    .await;
}

#[tokio::test]
async fn importing_a_period_twice_is_refused() {
    each_direction(async |ctx, source, dest| {
        let (b, period) = settled_period(source, TiePolicy::FirstReached).await;
        let export = source
            .transfer()
            .export_period(&source.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        dest.transfer().import_period(&export).await.unwrap();
        assert_eq!(code(dest.transfer().import_period(&export).await.unwrap_err()), "period_exists", "{ctx}");
        // Into its own ledger as well.
        assert_eq!(
            code(source.transfer().import_period(&export).await.unwrap_err()),
            "period_exists",
            "{ctx}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_tampered_export_is_refused_with_nothing_written() {
    each_direction(async |ctx, source, dest| {
        let (b, period) = settled_period(source, TiePolicy::FirstReached).await;
        let export = source
            .transfer()
            .export_period(&source.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        let e2 = export.entries.iter().position(|e| e.external_id.as_deref() == Some("e2")).unwrap();

        // One entry's delta changed: its member's total no longer replays to the export's.
        let mut tampered = export.clone();
        tampered.entries[e2].delta = Some(31);
        assert_eq!(
            code(dest.transfer().import_period(&tampered).await.unwrap_err()),
            "import_mismatch",
            "{ctx}"
        );

        // The total changed along with it: the standings no longer give the exported digest.
        let u2 = tampered.totals.iter().position(|t| t.member.as_str() == "u2").unwrap();
        tampered.totals[u2].points += 1;
        assert_eq!(
            code(dest.transfer().import_period(&tampered).await.unwrap_err()),
            "digest_mismatch",
            "{ctx}"
        );

        assert_eq!(dest.ledger().board(&b.slug).await.unwrap(), None, "{ctx}: no board written");
        assert_eq!(dest.ledger().state_of(&b.slug, &period).await.unwrap(), State::Open, "{ctx}");
        assert!(dest.ledger().totals(&b.slug, &period).await.unwrap().is_empty(), "{ctx}");

        // The untouched export still imports.
        dest.transfer().import_period(&export).await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn only_settled_periods_are_exported_and_a_different_board_is_refused() {
    each_direction(async |ctx, source, dest| {
        let b = board(TiePolicy::Shared);
        source.boards().create_board(&b).await.unwrap();
        source.writes().record(&b, &[point("x1", "u1", 5)]).await.unwrap();
        let key = b.period_at(last_week()).to_string();
        assert_eq!(
            code(
                source
                    .transfer()
                    .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
                    .await
                    .unwrap_err()
            ),
            "not_settled",
            "{ctx}"
        );
        source
            .lifecycle()
            .transition(
                &source.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        assert_eq!(
            code(
                source
                    .transfer()
                    .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
                    .await
                    .unwrap_err()
            ),
            "not_settled",
            "{ctx}"
        );
        source
            .lifecycle()
            .transition(
                &source.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let export = source
            .transfer()
            .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
            .await
            .unwrap();

        // The same slug with another title on the target.
        dest.boards().create_board(&Board { title: "other".into(), ..b.clone() }).await.unwrap();
        assert_eq!(code(dest.transfer().import_period(&export).await.unwrap_err()), "board_differs", "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn a_hidden_member_travels_with_its_period_and_stays_out_of_the_standings() {
    each_direction(async |ctx, source, dest| {
        let b = board(TiePolicy::Shared);
        source.boards().create_board(&b).await.unwrap();
        let key = b.period_at(last_week()).to_string();
        source
            .writes()
            .record(&b, &[point("h1", "u1", 50), point("h2", "u2", 30), point("h3", "u3", 10)])
            .await
            .unwrap();
        let u1 = MemberId::parse("u1").unwrap();
        source
            .lifecycle()
            .hide_member(
                &source.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                &u1,
                "admin",
                "multiple accounts",
            )
            .await
            .unwrap();
        source
            .lifecycle()
            .transition(
                &source.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        source
            .lifecycle()
            .transition(
                &source.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                Transition::Settle,
                "admin",
                None,
            )
            .await
            .unwrap();
        let export = source
            .transfer()
            .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
            .await
            .unwrap();
        let hidden: Vec<_> = export.totals.iter().map(|t| (t.member.as_str(), t.hidden)).collect();
        assert_eq!(hidden, [("u1", true), ("u2", false), ("u3", false)], "{ctx}");
        // Only hidden totals carry the flag.
        let text = serde_json::to_string(&export).unwrap();
        assert_eq!(text.matches("\"hidden\"").count(), 1, "{ctx}");

        let report = dest.transfer().import_period(&through_json(&export)).await.unwrap();
        assert_eq!(report.members, 2, "{ctx}");
        let (before, after) = (
            source
                .lifecycle()
                .settlement(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap(),
            dest.lifecycle()
                .settlement(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap(),
        );
        assert_eq!((&after.digest, &after.standings), (&before.digest, &before.standings), "{ctx}");
        assert!(after.standings.iter().all(|s| s.member != u1), "{ctx}");
        let period = b.period_at(last_week());
        assert!(dest.ledger().member_total(&b.slug, &period, &u1).await.unwrap().unwrap().hidden, "{ctx}");
        assert!(matches!(
            dest.reads().member_rank(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap(), &u1).await,
            Err(EngineError::NotFound { .. })
        ));
        assert_eq!(
            dest.reads()
                .ranking_page(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap(), 0, 10)
                .await
                .unwrap()
                .total,
            2,
            "{ctx}"
        );
    })
    .await;
}

#[tokio::test]
async fn an_export_of_format_version_1_still_imports() {
    each_direction(async |ctx, source, dest| {
        let (b, period) = settled_period(source, TiePolicy::Shared).await;
        let mut export = source
            .transfer()
            .export_period(&source.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        assert_eq!(export.format_version, 5, "{ctx}");
        export.format_version = 6;
        assert!(
            matches!(dest.transfer().import_period(&export).await, Err(EngineError::Invalid(_))),
            "{ctx}"
        );
        // Version 1 is version 5 with one revision, without hidden members, without receipts'
        // roots and links (the import computes them) and without segments.
        export.format_version = 1;
        export.settlement.merkle_root = None;
        export.settlement.link = None;
        let report = dest.transfer().import_period(&through_json(&export)).await.unwrap();
        assert_eq!(report.digest, export.settlement.digest, "{ctx}");
    })
    .await;
}

/// A period re-settled after a correction travels with every revision: the import checks each
/// revision's digest and the chain of previous digests, and refuses a tampered one.
#[tokio::test]
async fn every_settlement_revision_travels_and_the_import_checks_the_chain() {
    use domain::preview::PreviewChange;
    each_direction(async |ctx, source, dest| {
        let (b, period) = settled_period(source, TiePolicy::Shared).await;
        let key = period.to_string();
        let changes = vec![PreviewChange::Revoke(EventId::parse("e3").unwrap())];
        let preview = source
            .lifecycle()
            .preview(
                &source.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                "u3 cheated",
                changes,
                "admin",
            )
            .await
            .unwrap();
        source
            .lifecycle()
            .apply_preview(
                &source.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                &preview.preview_id,
                "admin",
            )
            .await
            .unwrap();
        let export = through_json(
            &source
                .transfer()
                .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap(),
        );
        assert_eq!((export.revisions.len(), export.settlement.revision), (1, 2), "{ctx}");
        assert_eq!(export.settlement.previous_digest.as_ref(), Some(&export.revisions[0].digest), "{ctx}");
        assert_eq!(export.settlement.reason.as_deref(), Some("u3 cheated"), "{ctx}");

        let refused =
            async |tampered: PeriodExport| code(dest.transfer().import_period(&tampered).await.unwrap_err());
        let mut t = export.clone();
        t.revisions[0].standings[0].points += 1;
        assert_eq!(refused(t).await, "digest_mismatch", "{ctx}: an earlier revision's standings");
        let mut t = export.clone();
        t.settlement.previous_digest = Some("0".repeat(64));
        assert_eq!(refused(t).await, "chain_broken", "{ctx}: a broken link");
        let mut t = export.clone();
        t.revisions.clear();
        assert_eq!(refused(t).await, "chain_broken", "{ctx}: a missing revision");
        let mut t = export.clone();
        t.revisions[0].previous_digest = Some(export.settlement.digest.clone());
        assert_eq!(refused(t).await, "chain_broken", "{ctx}: a first revision naming one before it");
        // Each revision's receipts root and chain link must be what its standings give.
        let mut t = export.clone();
        t.revisions[0].merkle_root = Some("0".repeat(64));
        assert_eq!(refused(t).await, "chain_broken", "{ctx}: a tampered root");
        let mut t = export.clone();
        t.settlement.link = Some("0".repeat(64));
        assert_eq!(refused(t).await, "chain_broken", "{ctx}: a tampered link");
        assert_eq!(dest.ledger().board(&b.slug).await.unwrap(), None, "{ctx}: nothing written");

        let report = dest.transfer().import_period(&export).await.unwrap();
        assert_eq!(
            (report.revisions, report.digest.as_str()),
            (2, export.settlement.digest.as_str()),
            "{ctx}"
        );
        let here = dest
            .lifecycle()
            .settlements(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap())
            .await
            .unwrap();
        let there = source
            .lifecycle()
            .settlements(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
            .await
            .unwrap();
        let chain = |list: &[domain::view::SettlementSummary]| {
            list.iter()
                .map(|s| (s.revision, s.digest.clone(), s.previous_digest.clone(), s.reason.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(chain(&here), chain(&there), "{ctx}");
        let old = dest
            .lifecycle()
            .settlement_revision(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap(), Some(1), 0, 100)
            .await
            .unwrap();
        assert_eq!(old.standings, export.revisions[0].standings, "{ctx}");
        // The target stored the same roots and links: its export states them again.
        let again = dest
            .transfer()
            .export_period(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap())
            .await
            .unwrap();
        let links = |e: &PeriodExport| {
            e.revisions
                .iter()
                .chain([&e.settlement])
                .map(|r| (r.merkle_root.clone(), r.link.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(links(&again), links(&export), "{ctx}");
        assert!(links(&export).iter().all(|(root, link)| root.is_some() && link.is_some()), "{ctx}");
    })
    .await;
}

/// [`each_direction`] on standalone Redis and on Cluster.
async fn each_direction_everywhere(test: impl AsyncFn(&str, &Engine, &Engine)) {
    for (redis, target) in redis_targets() {
        for sqlite_first in [true, false] {
            let (a, b) = (TestLedger::sqlite().await, TestLedger::postgres().await);
            let (source, dest) = if sqlite_first { (a, b) } else { (b, a) };
            let (ps, pd) = (TestProjection::new(target.clone()), TestProjection::new(target.clone()));
            let (es, ed) = (engine(&source, &ps).await, engine(&dest, &pd).await);
            test(&format!("{redis}: {} -> {}", source.name, dest.name), &es, &ed).await;
            ps.cleanup().await;
            pd.cleanup().await;
            source.drop_db().await;
            dest.drop_db().await;
        }
    }
}

/// A point event of last week naming segment values (`[("province", "zj")]`).
fn in_segments(event: &str, member: &str, delta: i64, segments: &[(&str, &str)]) -> Write {
    Write {
        segments: segments.iter().map(|(d, v)| (d.to_string(), v.to_string())).collect(),
        ..point(event, member, delta)
    }
}

/// The segments of [`segmented_period`].
const SEGMENTS: [&str; 4] = ["province:zj", "province:js", "class:c1", "class:c2"];

/// Last week's period of a new board declaring `province` and `class`, settled: u1 zj/c1 50,
/// u2 zj/c2 30, u5 zj/c2 30, u3 js/c1 30, u4 js then c1 (named by a later write) 10, u6 none 5.
async fn segmented_period(e: &Engine, policy: TiePolicy) -> (Board, PeriodKey) {
    let b = Board { segments: vec!["province".into(), "class".into()], ..board(policy) };
    e.boards().create_board(&b).await.unwrap();
    let period = b.period_at(last_week());
    let key = period.to_string();
    let writes = [
        in_segments("s1", "u1", 50, &[("province", "zj"), ("class", "c1")]),
        in_segments("s2", "u2", 30, &[("province", "zj"), ("class", "c2")]),
        in_segments("s3", "u3", 30, &[("province", "js"), ("class", "c1")]),
        in_segments("s4", "u4", 4, &[("province", "js")]),
        in_segments("s5", "u5", 30, &[("province", "zj"), ("class", "c2")]),
        in_segments("s6", "u4", 6, &[("class", "c1")]),
        point("s7", "u6", 5),
    ];
    for r in e.writes().record(&b, &writes).await.unwrap() {
        assert_eq!(r.recorded.outcome, Outcome::Applied, "{r:?}");
    }
    for step in [Transition::Freeze, Transition::Settle] {
        e.lifecycle()
            .transition(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), step, "admin", None)
            .await
            .unwrap();
    }
    (b, period)
}

/// Each segment's ranking of the period, as (segment, [(rank, member, points)]).
async fn segment_rankings(e: &Engine, b: &Board, key: &str) -> Vec<(String, Vec<(u64, String, i64)>)> {
    let mut out = Vec::new();
    for segment in SEGMENTS {
        let scope = e.reads().scope(&b.slug, Some(key)).await.unwrap().in_segment(Some(segment)).unwrap();
        let page = e.reads().ranking_page(&scope, 0, 10).await.unwrap();
        let rows = page.entries.iter().map(|x| (x.rank, x.member.to_string(), x.points)).collect();
        out.push((segment.to_owned(), rows));
    }
    out
}

#[tokio::test]
async fn a_segmented_period_travels_with_its_memberships_and_ranks_the_same() {
    each_direction_everywhere(async |ctx, source, dest| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let (b, period) = segmented_period(source, policy).await;
            let key = period.to_string();
            let export = source
                .transfer()
                .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap();
            assert_eq!(export.format_version, FORMAT_VERSION, "{ctx}");
            assert_eq!(export.board.segments, ["province", "class"], "{ctx}");
            let held: Vec<(&str, Vec<(&str, &str)>)> = export
                .segments
                .iter()
                .map(|(m, v)| (m.as_str(), v.iter().map(|(d, x)| (d.as_str(), x.as_str())).collect()))
                .collect();
            assert_eq!(
                held,
                [
                    ("u1", vec![("class", "c1"), ("province", "zj")]),
                    ("u2", vec![("class", "c2"), ("province", "zj")]),
                    ("u3", vec![("class", "c1"), ("province", "js")]),
                    ("u4", vec![("class", "c1"), ("province", "js")]),
                    ("u5", vec![("class", "c2"), ("province", "zj")]),
                ],
                "{ctx}: u6 holds none"
            );

            // The receipts verifier reads past the new fields: the export verifies.
            let text = serde_json::to_string_pretty(&export).unwrap();
            assert!(text.contains(r#""province": "zj""#), "{ctx}");
            let verified = domain::receipt::verify_json(&text);
            assert!(verified.ok(), "{ctx}: {verified:?}");

            let before = segment_rankings(source, &b, &key).await;
            let zj = &before[0].1;
            assert_eq!(zj.len(), 3, "{ctx} {policy}: {before:?}");
            assert_eq!((zj[0].1.as_str(), zj[0].2), ("u1", 50), "{ctx} {policy}");
            assert_eq!(before[3].1.iter().map(|r| r.2).collect::<Vec<_>>(), [30, 30], "{ctx} {policy}");

            let report = dest.transfer().import_period(&through_json(&export)).await.unwrap();
            assert!(report.projected, "{ctx}");
            let settlement = async |e: &Engine| {
                e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap()
            };
            let (was, is) = (settlement(source).await, settlement(dest).await);
            assert_eq!((&is.digest, &is.standings), (&was.digest, &was.standings), "{ctx} {policy}");
            assert_eq!(report.digest, was.digest, "{ctx}");
            assert_eq!(dest.reads().board(&b.slug).await.unwrap(), b, "{ctx}: the board's dimensions too");

            // Settled: each segment's ranking (rebuilt in Redis from the imported memberships)
            // ranks as the source's.
            assert_eq!(segment_rankings(dest, &b, &key).await, before, "{ctx} {policy}");
            let members: Vec<MemberId> =
                ["u1", "u2", "u3", "u4", "u5", "u6"].map(|m| MemberId::parse(m).unwrap()).to_vec();
            let refs: Vec<&MemberId> = members.iter().collect();
            assert_eq!(
                dest.ledger().segments_of(&b.slug, &period, &refs).await.unwrap(),
                source.ledger().segments_of(&b.slug, &period, &refs).await.unwrap(),
                "{ctx}"
            );

            // Exported again from the target, the memberships are the same.
            let mut again = dest
                .transfer()
                .export_period(&dest.reads().scope(&b.slug, Some(&key)).await.unwrap())
                .await
                .unwrap();
            again.exported_at = export.exported_at;
            again.settlement.watermark = export.settlement.watermark;
            assert_eq!(again, export, "{ctx} {policy}");

            // Archived on both sides, segments are read from the ledger's memberships: the same.
            for e in [source, dest] {
                e.lifecycle()
                    .transition(
                        &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                        Transition::Archive,
                        "admin",
                        None,
                    )
                    .await
                    .unwrap();
            }
            let archived = segment_rankings(source, &b, &key).await;
            assert_eq!(archived, before, "{ctx} {policy}: archived as settled");
            assert_eq!(segment_rankings(dest, &b, &key).await, archived, "{ctx} {policy}");
            let scope = dest
                .reads()
                .scope(&b.slug, Some(&key))
                .await
                .unwrap()
                .in_segment(Some("province:zj"))
                .unwrap();
            assert_eq!(
                dest.reads().ranking_page(&scope, 0, 10).await.unwrap().source,
                domain::view::ReadSource::Ledger,
                "{ctx}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn an_export_with_an_undeclared_dimension_or_a_stranger_is_refused_with_nothing_written() {
    each_direction(async |ctx, source, dest| {
        let (b, period) = segmented_period(source, TiePolicy::Shared).await;
        let key = period.to_string();
        let export = source
            .transfer()
            .export_period(&source.reads().scope(&b.slug, Some(&key)).await.unwrap())
            .await
            .unwrap();
        let u1 = MemberId::parse("u1").unwrap();

        let mut t = export.clone();
        t.segments.get_mut(&u1).unwrap().insert("city".into(), "hz".into());
        assert_eq!(
            code(dest.transfer().import_period(&t).await.unwrap_err()),
            "invalid_export",
            "{ctx}: undeclared"
        );
        // The same export without the board's dimensions: none is declared.
        let mut t = export.clone();
        t.board.segments.clear();
        assert_eq!(
            code(dest.transfer().import_period(&t).await.unwrap_err()),
            "invalid_export",
            "{ctx}: no dimensions"
        );
        // Values for a member with no entries in the period.
        let mut t = export.clone();
        let ghost = MemberId::parse("ghost").unwrap();
        t.segments.insert(ghost, [("province".to_string(), "zj".to_string())].into());
        assert_eq!(
            code(dest.transfer().import_period(&t).await.unwrap_err()),
            "invalid_export",
            "{ctx}: a stranger"
        );
        // A value not shaped like a member id.
        let mut t = export.clone();
        t.segments.get_mut(&u1).unwrap().insert("province".into(), "z j".into());
        assert_eq!(
            code(dest.transfer().import_period(&t).await.unwrap_err()),
            "invalid_export",
            "{ctx}: a bad value"
        );

        assert_eq!(dest.ledger().board(&b.slug).await.unwrap(), None, "{ctx}: no board written");
        assert_eq!(dest.ledger().state_of(&b.slug, &period).await.unwrap(), State::Open, "{ctx}");
        assert!(dest.ledger().totals(&b.slug, &period).await.unwrap().is_empty(), "{ctx}");
        assert!(dest.ledger().segment_values(&b.slug, &period).await.unwrap().is_empty(), "{ctx}");

        // The untouched export imports, with every value.
        dest.transfer().import_period(&export).await.unwrap();
        assert_eq!(
            dest.ledger().segment_values(&b.slug, &period).await.unwrap(),
            source.ledger().segment_values(&b.slug, &period).await.unwrap(),
            "{ctx}"
        );
    })
    .await;
}

#[tokio::test]
async fn an_export_of_format_version_4_without_segments_still_imports() {
    each_direction(async |ctx, source, dest| {
        let (b, period) = settled_period(source, TiePolicy::FirstReached).await;
        let export = source
            .transfer()
            .export_period(&source.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        // A board without segments writes neither field: its export is version 4's but for the
        // number.
        let text = serde_json::to_string_pretty(&export).unwrap();
        assert!(!text.contains("\"segments\""), "{ctx}");
        let old = text.replace("\"format_version\": 5,", "\"format_version\": 4,");
        assert_ne!(old, text, "{ctx}");
        let old: PeriodExport = serde_json::from_str(&old).unwrap();
        assert_eq!(old.format_version, 4, "{ctx}");
        let report = dest.transfer().import_period(&old).await.unwrap();
        assert_eq!(report.digest, export.settlement.digest, "{ctx}");
        assert_eq!(dest.reads().board(&b.slug).await.unwrap(), b, "{ctx}");
    })
    .await;
}
