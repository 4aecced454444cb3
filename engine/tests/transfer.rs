//! Export and import of a settled period between ledgers: SQLite → PostgreSQL and PostgreSQL →
//! SQLite give the identical settlement (digest and standings); a second import and a tampered
//! export are refused with nothing written. Both tie policies, revocations and corrections
//! included.

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
use engine::transfer::PeriodExport;
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
    e.create_board(&b).await.unwrap();
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
    for r in e.record(&b, &writes).await.unwrap() {
        assert_eq!(r.recorded.outcome, Outcome::Applied, "{r:?}");
    }
    let u3 = MemberId::parse("u3").unwrap();
    assert_eq!(
        e.revoke(&b.slug, &EventId::parse("e5").unwrap(), "admin", "duplicate award").await.unwrap().result,
        "revoked"
    );
    let correction = |delta, reason: &str| Correction {
        member: u3.clone(),
        delta,
        correction_id: None,
        reason: reason.into(),
    };
    e.correct(&e.scope(&b.slug, Some(&key)).await.unwrap(), &correction(-5, "penalty"), "admin")
        .await
        .unwrap();
    e.correct(&e.scope(&b.slug, Some(&key)).await.unwrap(), &correction(5, "penalty lifted"), "admin")
        .await
        .unwrap();
    e.transition(
        &e.scope(&b.slug, Some(&key)).await.unwrap(),
        Transition::Freeze,
        "admin",
        Some("week over"),
    )
    .await
    .unwrap();
    let late = e.record(&b, &[point("e8", "u4", 100)]).await.unwrap();
    assert_eq!(late[0].recorded.outcome, Outcome::Late);
    let pending =
        e.late_entries(&e.scope(&b.slug, Some(&key)).await.unwrap(), Some("pending")).await.unwrap();
    e.decide_late(
        &e.scope(&b.slug, Some(&key)).await.unwrap(),
        pending[0].id,
        false,
        "admin",
        Some("too late"),
    )
    .await
    .unwrap();
    let info = e
        .transition(&e.scope(&b.slug, Some(&key)).await.unwrap(), Transition::Settle, "admin", None)
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
            let export =
                source.export_period(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
            assert_eq!(export.entries.len(), 10, "{ctx}: 7 events, a revocation, 2 corrections");
            let revocation = export.entries.iter().find(|e| e.kind == "revocation").unwrap();
            assert_eq!(revocation.revokes.as_deref(), Some("e5"), "{ctx}");
            assert_eq!(export.late_entries[0].status, "rejected", "{ctx}");

            let report = dest.import_period(&through_json(&export)).await.unwrap();
            assert!(report.board_created, "{ctx}");
            assert_eq!((report.entries, report.late_entries, report.members), (10, 1, 5), "{ctx}");

            let before = source.settlement(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
            let after = dest.settlement(&dest.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
            assert_eq!(after.digest, before.digest, "{ctx} {policy}");
            assert_eq!(report.digest, before.digest, "{ctx}");
            assert_eq!(after.standings, before.standings, "{ctx} {policy}");
            assert_eq!((after.revision, after.rule_version, after.members), (1, 1, 5), "{ctx}");
            assert_eq!(after.standings[0].prize.as_deref(), Some("gold"), "{ctx}");
            assert_eq!(dest.ledger().state_of(&b.slug, &period).await.unwrap(), State::Settled, "{ctx}");
            assert_eq!(dest.board(&b.slug).await.unwrap(), b, "{ctx}");

            // Exported again from the target, the period is the same (only its row ids differ).
            let mut again =
                dest.export_period(&dest.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
            again.exported_at = export.exported_at;
            again.settlement.watermark = export.settlement.watermark;
            assert_eq!(again, export, "{ctx} {policy}");

            // The target's projection shows the imported standings.
            let page =
                dest.ranking_page(&dest.scope(&b.slug, Some(&key)).await.unwrap(), 0, 10).await.unwrap();
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
            .export_period(&source.scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        dest.import_period(&export).await.unwrap();
        assert_eq!(code(dest.import_period(&export).await.unwrap_err()), "period_exists", "{ctx}");
        // Into its own ledger as well.
        assert_eq!(code(source.import_period(&export).await.unwrap_err()), "period_exists", "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn a_tampered_export_is_refused_with_nothing_written() {
    each_direction(async |ctx, source, dest| {
        let (b, period) = settled_period(source, TiePolicy::FirstReached).await;
        let export = source
            .export_period(&source.scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        let e2 = export.entries.iter().position(|e| e.external_id.as_deref() == Some("e2")).unwrap();

        // One entry's delta changed: its member's total no longer replays to the export's.
        let mut tampered = export.clone();
        tampered.entries[e2].delta = Some(31);
        assert_eq!(code(dest.import_period(&tampered).await.unwrap_err()), "import_mismatch", "{ctx}");

        // The total changed along with it: the standings no longer give the exported digest.
        let u2 = tampered.totals.iter().position(|t| t.member.as_str() == "u2").unwrap();
        tampered.totals[u2].points += 1;
        assert_eq!(code(dest.import_period(&tampered).await.unwrap_err()), "digest_mismatch", "{ctx}");

        assert_eq!(dest.ledger().board(&b.slug).await.unwrap(), None, "{ctx}: no board written");
        assert_eq!(dest.ledger().state_of(&b.slug, &period).await.unwrap(), State::Open, "{ctx}");
        assert!(dest.ledger().totals(&b.slug, &period).await.unwrap().is_empty(), "{ctx}");

        // The untouched export still imports.
        dest.import_period(&export).await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn only_settled_periods_are_exported_and_a_different_board_is_refused() {
    each_direction(async |ctx, source, dest| {
        let b = board(TiePolicy::Shared);
        source.create_board(&b).await.unwrap();
        source.record(&b, &[point("x1", "u1", 5)]).await.unwrap();
        let key = b.period_at(last_week()).to_string();
        assert_eq!(
            code(source.export_period(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap_err()),
            "not_settled",
            "{ctx}"
        );
        source
            .transition(&source.scope(&b.slug, Some(&key)).await.unwrap(), Transition::Freeze, "admin", None)
            .await
            .unwrap();
        assert_eq!(
            code(source.export_period(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap_err()),
            "not_settled",
            "{ctx}"
        );
        source
            .transition(&source.scope(&b.slug, Some(&key)).await.unwrap(), Transition::Settle, "admin", None)
            .await
            .unwrap();
        let export = source.export_period(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();

        // The same slug with another title on the target.
        dest.create_board(&Board { title: "other".into(), ..b.clone() }).await.unwrap();
        assert_eq!(code(dest.import_period(&export).await.unwrap_err()), "board_differs", "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn a_hidden_member_travels_with_its_period_and_stays_out_of_the_standings() {
    each_direction(async |ctx, source, dest| {
        let b = board(TiePolicy::Shared);
        source.create_board(&b).await.unwrap();
        let key = b.period_at(last_week()).to_string();
        source
            .record(&b, &[point("h1", "u1", 50), point("h2", "u2", 30), point("h3", "u3", 10)])
            .await
            .unwrap();
        let u1 = MemberId::parse("u1").unwrap();
        source
            .hide_member(&source.scope(&b.slug, Some(&key)).await.unwrap(), &u1, "admin", "multiple accounts")
            .await
            .unwrap();
        source
            .transition(&source.scope(&b.slug, Some(&key)).await.unwrap(), Transition::Freeze, "admin", None)
            .await
            .unwrap();
        source
            .transition(&source.scope(&b.slug, Some(&key)).await.unwrap(), Transition::Settle, "admin", None)
            .await
            .unwrap();
        let export = source.export_period(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
        let hidden: Vec<_> = export.totals.iter().map(|t| (t.member.as_str(), t.hidden)).collect();
        assert_eq!(hidden, [("u1", true), ("u2", false), ("u3", false)], "{ctx}");
        // Only hidden totals carry the flag.
        let text = serde_json::to_string(&export).unwrap();
        assert_eq!(text.matches("\"hidden\"").count(), 1, "{ctx}");

        let report = dest.import_period(&through_json(&export)).await.unwrap();
        assert_eq!(report.members, 2, "{ctx}");
        let (before, after) = (
            source.settlement(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap(),
            dest.settlement(&dest.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap(),
        );
        assert_eq!((&after.digest, &after.standings), (&before.digest, &before.standings), "{ctx}");
        assert!(after.standings.iter().all(|s| s.member != u1), "{ctx}");
        let period = b.period_at(last_week());
        assert!(dest.ledger().member_total(&b.slug, &period, &u1).await.unwrap().unwrap().hidden, "{ctx}");
        assert!(matches!(
            dest.member_rank(&dest.scope(&b.slug, Some(&key)).await.unwrap(), &u1).await,
            Err(EngineError::NotFound { .. })
        ));
        assert_eq!(
            dest.ranking_page(&dest.scope(&b.slug, Some(&key)).await.unwrap(), 0, 10).await.unwrap().total,
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
            .export_period(&source.scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        assert_eq!(export.format_version, 4, "{ctx}");
        export.format_version = 5;
        assert!(matches!(dest.import_period(&export).await, Err(EngineError::Invalid(_))), "{ctx}");
        // Version 1 is version 4 with one revision, without hidden members and without receipts'
        // roots and links (the import computes them).
        export.format_version = 1;
        export.settlement.merkle_root = None;
        export.settlement.link = None;
        let report = dest.import_period(&through_json(&export)).await.unwrap();
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
            .preview(&source.scope(&b.slug, Some(&key)).await.unwrap(), "u3 cheated", changes, "admin")
            .await
            .unwrap();
        source
            .apply_preview(&source.scope(&b.slug, Some(&key)).await.unwrap(), &preview.preview_id, "admin")
            .await
            .unwrap();
        let export = through_json(
            &source.export_period(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap(),
        );
        assert_eq!((export.revisions.len(), export.settlement.revision), (1, 2), "{ctx}");
        assert_eq!(export.settlement.previous_digest.as_ref(), Some(&export.revisions[0].digest), "{ctx}");
        assert_eq!(export.settlement.reason.as_deref(), Some("u3 cheated"), "{ctx}");

        let refused = async |tampered: PeriodExport| code(dest.import_period(&tampered).await.unwrap_err());
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

        let report = dest.import_period(&export).await.unwrap();
        assert_eq!(
            (report.revisions, report.digest.as_str()),
            (2, export.settlement.digest.as_str()),
            "{ctx}"
        );
        let here = dest.settlements(&dest.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
        let there = source.settlements(&source.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
        let chain = |list: &[domain::view::SettlementSummary]| {
            list.iter()
                .map(|s| (s.revision, s.digest.clone(), s.previous_digest.clone(), s.reason.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(chain(&here), chain(&there), "{ctx}");
        let old = dest
            .settlement_revision(&dest.scope(&b.slug, Some(&key)).await.unwrap(), Some(1), 0, 100)
            .await
            .unwrap();
        assert_eq!(old.standings, export.revisions[0].standings, "{ctx}");
        // The target stored the same roots and links: its export states them again.
        let again = dest.export_period(&dest.scope(&b.slug, Some(&key)).await.unwrap()).await.unwrap();
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
