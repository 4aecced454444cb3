//! Imports of existing totals (`engine::writes::totals_import`) on every store combination: an `nx`
//! import never lowers or replaces a live total and a repeat of it changes nothing; a `replace`
//! import sets totals that the member's history explains, and later entries and revocations
//! apply on top; a malformed or out-of-bounds import, or one into a frozen period, changes
//! nothing and names its rows; progress ends counted.

mod common;

use common::{conflict_code, each_store, five_members};
use domain::lifecycle::Transition;
use domain::view::RankingPage;
use domain::{Board, MemberId, TiePolicy};
use engine::Engine;
use engine::ledger::audit::AuditFilter;
use engine::progress::Progress;
use engine::writes::totals_import::{ImportMode, TotalsImport, build, parse_json_rows};
use serde_json::json;

fn import(id: &str, mode: &str, rows: &[(&str, i64)]) -> TotalsImport {
    let rows: Vec<serde_json::Value> = rows.iter().map(|(m, p)| json!({"member": m, "points": p})).collect();
    build(id, mode, parse_json_rows(&rows)).unwrap()
}

async fn ranking(e: &Engine, b: &Board, period: &str) -> Vec<(String, i64)> {
    let scope = e.reads().scope(&b.slug, Some(period)).await.unwrap();
    let page: RankingPage = e.reads().ranking_page(&scope, 0, 50).await.unwrap();
    page.entries.iter().map(|en| (en.member.to_string(), en.points)).collect()
}

fn pairs(rows: &[(&str, i64)]) -> Vec<(String, i64)> {
    rows.iter().map(|(m, p)| (m.to_string(), *p)).collect()
}

async fn imports_audited(e: &Engine, b: &Board) -> usize {
    let filter = AuditFilter { board: Some(b.slug.to_string()), ..Default::default() };
    e.lifecycle()
        .audit(&filter, None, 500)
        .await
        .unwrap()
        .iter()
        .filter(|a| a.action == "import_totals")
        .count()
}

#[tokio::test]
async fn an_nx_import_never_lowers_or_replaces_a_live_total_and_a_repeat_changes_nothing() {
    each_store(async |name: &str, e: &Engine, _| {
        let (b, period) = five_members(e, "nx", TiePolicy::Shared).await;
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        // u1 lower, u2 higher than their live totals; n1 and n2 new.
        let nx = import("opening-1", "nx", &[("u1", 10), ("n1", 40), ("u2", 999), ("n2", 7)]);
        let progress = Progress::new();
        let r = e.writes().import_totals(&scope, &nx, "token#1", &progress).await.unwrap();
        assert_eq!((r.mode, r.rows, r.imported, r.kept, r.unchanged), (ImportMode::Nx, 4, 2, 2, 0), "{name}");
        assert!(r.projected && !r.repeated, "{name}: {r:?}");
        let expected =
            pairs(&[("u1", 50), ("n1", 40), ("u3", 30), ("u2", 30), ("u4", 25), ("n2", 7), ("u5", 5)]);
        assert_eq!(ranking(e, &b, &period).await, expected, "{name}");
        let phases: Vec<_> = progress.phases().iter().map(|p| (p.phase, p.processed, p.total)).collect();
        assert!(phases.contains(&("projecting", 2, Some(2))), "{name}: {phases:?}");
        assert!(progress.report().done, "{name}");

        // The same import again answers the first report and writes nothing.
        let again = e.writes().import_totals(&scope, &nx, "token#2", &Progress::new()).await.unwrap();
        assert!(again.repeated, "{name}: {again:?}");
        assert_eq!((again.imported, again.kept, again.actor.as_str()), (2, 2, "token#1"), "{name}");
        assert_eq!(ranking(e, &b, &period).await, expected, "{name}");
        assert_eq!(imports_audited(e, &b).await, 1, "{name}");
        // Other rows under the same id are refused, and change nothing either.
        let other = import("opening-1", "nx", &[("n3", 1)]);
        assert_eq!(
            conflict_code(e.writes().import_totals(&scope, &other, "token#1", &Progress::new()).await),
            "import_id_taken"
        );
        let replace = import("opening-1", "replace", &[("u1", 10), ("n1", 40), ("u2", 999), ("n2", 7)]);
        assert_eq!(
            conflict_code(e.writes().import_totals(&scope, &replace, "token#1", &Progress::new()).await),
            "import_id_taken"
        );
        assert_eq!(ranking(e, &b, &period).await, expected, "{name}");

        // The new member's total is explained by its opening entry.
        let history =
            e.reads().member_entries(&scope, &MemberId::parse("n1").unwrap(), None, 10).await.unwrap();
        let kinds: Vec<_> = history.iter().map(|h| (h.kind.as_str(), h.value, h.delta)).collect();
        assert_eq!(kinds, [("opening", Some(40), Some(40))], "{name}");
        let meta = history[0].metadata.clone().unwrap();
        assert_eq!(meta["import_id"], "opening-1", "{name}");
        // The audit trail names the admin and what the import did.
        let filter = AuditFilter {
            board: Some(b.slug.to_string()),
            action: Some("import_totals".into()),
            ..Default::default()
        };
        let audit = e.lifecycle().audit(&filter, None, 5).await.unwrap();
        assert_eq!(audit[0].actor, "token#1", "{name}");
        let after = audit[0].after.clone().unwrap();
        assert_eq!((after["imported"].as_u64(), after["kept"].as_u64()), (Some(2), Some(2)), "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_replace_import_sets_totals_that_the_history_explains() {
    each_store(async |name: &str, e: &Engine, _| {
        let (b, period) = five_members(e, "replace", TiePolicy::FirstReached).await;
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        let replace = import("opening-r", "replace", &[("u1", 10), ("u2", 30), ("n1", 20)]);
        let r = e.writes().import_totals(&scope, &replace, "cli", &Progress::new()).await.unwrap();
        assert_eq!((r.imported, r.kept, r.unchanged), (2, 0, 1), "{name}: {r:?}");
        let ranked = ranking(e, &b, &period).await;
        assert_eq!(
            ranked,
            pairs(&[("u2", 30), ("u3", 30), ("u4", 25), ("n1", 20), ("u1", 10), ("u5", 5)]),
            "{name}"
        );
        let u1 = MemberId::parse("u1").unwrap();
        let history = e.reads().member_entries(&scope, &u1, None, 10).await.unwrap();
        let opening = history.iter().find(|h| h.kind == "opening").expect("an opening entry");
        assert_eq!((opening.value, opening.delta), (Some(10), Some(-40)), "{name}");
        assert!(opening.reason.as_deref().unwrap_or_default().contains("opening-r"), "{name}");
        // Later entries apply on top of the opening total, and revoking the entry before it
        // leaves the opening total standing.
        e.writes().record(&b, &[common::point("after", "u1", 5)]).await.unwrap();
        let revoked = e
            .lifecycle()
            .revoke(&b.slug, &domain::EventId::parse("e1").unwrap(), "token#1", "before the import")
            .await;
        assert!(revoked.is_ok(), "{name}: {revoked:?}");
        let ranked = ranking(e, &b, &period).await;
        assert!(ranked.contains(&("u1".to_owned(), 15)), "{name}: {ranked:?}");
        // A rebuild from the ledger's totals gives the same ranking.
        e.jobs().rebuild(&scope, "test").await.unwrap();
        assert_eq!(ranking(e, &b, &period).await, ranked, "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_malformed_out_of_bounds_or_late_import_changes_nothing_and_names_its_rows() {
    each_store(async |name: &str, e: &Engine, _| {
        let (b, period) = five_members(e, "refused", TiePolicy::Shared).await;
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        let before = ranking(e, &b, &period).await;
        // Malformed rows are named by their number before anything is read.
        let rows = [
            json!({"member": "ok", "points": 1}),
            json!({"member": "bad id", "points": 1}),
            json!({"member": "x", "points": "7"}),
        ];
        let refused = build("bad-1", "nx", parse_json_rows(&rows)).unwrap_err().to_string();
        assert!(
            refused.contains("row 2:") && refused.contains("row 3:") && !refused.contains("row 1:"),
            "{refused}"
        );
        assert!(build("bad-1", "sometimes", Ok(vec![])).is_err(), "{name}");
        // Out of the board's bounds (±1 000 000): the whole import is refused.
        let out = import("bad-2", "replace", &[("u1", 10), ("n1", 2_000_000), ("n2", -1_000_001)]);
        let refused = e
            .writes()
            .import_totals(&scope, &out, "token#1", &Progress::new())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("row 2:") && refused.contains("row 3:") && !refused.contains("row 1:"),
            "{name}: {refused}"
        );
        assert_eq!(ranking(e, &b, &period).await, before, "{name}");
        assert_eq!(imports_audited(e, &b).await, 0, "{name}");
        // Nothing was kept under the refused id: a valid import may use it.
        let fixed = import("bad-2", "replace", &[("u1", 10)]);
        assert_eq!(
            e.writes().import_totals(&scope, &fixed, "token#1", &Progress::new()).await.unwrap().imported,
            1,
            "{name}"
        );
        // A frozen period takes no import.
        e.lifecycle().transition(&scope, Transition::Freeze, "token#1", None).await.unwrap();
        let late = import("late-1", "nx", &[("n9", 3)]);
        assert_eq!(
            conflict_code(e.writes().import_totals(&scope, &late, "token#1", &Progress::new()).await),
            "period_not_open"
        );
        let ranked = ranking(e, &b, &period).await;
        assert!(ranked.iter().all(|(m, _)| m != "n9"), "{name}: {ranked:?}");
    })
    .await;
}
