//! Progress with numbers on real stores (Redis standalone and Cluster × SQLite and PostgreSQL):
//! a settlement, a rebuild in pages, an export and an import each report their phases in order,
//! every phase with the true count of what it works on, never going back, and ending at
//! processed == total; the work's last reading says it is done.
//!
//! A settlement of 2,500 members, one hidden (2,499 counted; 20 rows per statement), a rebuild in
//! pages of 100, an export (the same bytes as without progress) and an import into a fresh ledger.
//! `end2end/tests/progress.spec.ts` runs the console's settle and rebuild of 120,000 members and
//! the CLI's plain lines.

mod common;

use common::{TestLedger, TestProjection, engine, point, prized_board, redis_targets};
use domain::lifecycle::Transition;
use domain::write::{Outcome, Write};
use domain::{Board, MemberId, TiePolicy};
use engine::Engine;
use engine::progress::{Progress, Report, latest};
use std::sync::{Arc, Mutex};

const MEMBERS: usize = 2500;

/// A handle that keeps every reading, and the readings so far.
fn recorded() -> (Progress, Arc<Mutex<Vec<Report>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    (Progress::observed(move |r| log.lock().unwrap().push(r.clone())), seen)
}

/// The phases of a run of readings, in order, each as (phase, unit, total, readings): checks that
/// within a phase the total never changes, processed never goes back and ends at the total, and
/// that the last reading (and only it) says done.
fn phases(ctx: &str, readings: &[Report]) -> Vec<(&'static str, &'static str, Option<u64>, usize)> {
    let last = readings.last().unwrap_or_else(|| panic!("{ctx}: no reading"));
    assert!(last.done, "{ctx}: the last reading is not done: {last:?}");
    assert!(readings[..readings.len() - 1].iter().all(|r| !r.done), "{ctx}: done before the end");
    let mut out: Vec<(&'static str, &'static str, Option<u64>, usize)> = Vec::new();
    let mut previous: Option<&Report> = None;
    for r in readings {
        match previous {
            Some(p) if r.processed != 0 || r.done => {
                assert_eq!(
                    (r.phase, r.unit, r.total),
                    (p.phase, p.unit, p.total),
                    "{ctx}: {r:?} after {p:?}"
                );
                assert!(r.processed >= p.processed, "{ctx}: went back: {r:?} after {p:?}");
                out.last_mut().unwrap().3 += 1;
            }
            _ => out.push((r.phase, r.unit, r.total, 1)),
        }
        if let Some(total) = r.total {
            assert!(r.processed <= total, "{ctx}: past the total: {r:?}");
        }
        previous = Some(r);
    }
    // Every counted phase ended at its total: the reading before the next phase's first.
    for (i, r) in readings.iter().enumerate() {
        let ends_phase = readings.get(i + 1).is_none_or(|next| next.processed == 0 && !next.done);
        if ends_phase && r.total.is_some() {
            assert_eq!(Some(r.processed), r.total, "{ctx}: a phase ended short: {r:?}");
        }
    }
    out
}

/// A prized board whose current period holds MEMBERS members with distinct points.
async fn crowded(e: &Engine, tag: &str) -> (Board, String) {
    let b = prized_board(tag, TiePolicy::FirstReached, 60);
    e.boards().create_board(&b).await.unwrap();
    let writes: Vec<Write> =
        (0..MEMBERS).map(|i| point(&format!("p{i}"), &format!("m{i:05}"), i as i64 + 1)).collect();
    for batch in writes.chunks(500) {
        let out = e.writes().record(&b, batch).await.unwrap();
        assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied));
    }
    let key = b.period_at(jiff::Timestamp::now()).to_string();
    (b, key)
}

#[tokio::test]
async fn long_work_reports_true_counts_to_the_end() {
    // Twenty rows per statement: the reads and writes of 2 500 members span many statements, as
    // a million members span many of 50 000.
    engine::ledger::set_settle_batch(20);
    for (redis_name, target) in redis_targets() {
        for t in TestLedger::both().await {
            let ctx = format!("{redis_name}/{}", t.name);
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            let (b, key) = crowded(&e, "progress").await;
            let period = b.period_at(jiff::Timestamp::now());
            // A hidden member has no standing: the counts leave it out.
            let hidden = MemberId::parse("m00007").unwrap();
            e.lifecycle()
                .hide_member(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), &hidden, "admin", "test")
                .await
                .unwrap();
            let ranked = MEMBERS as u64 - 1;

            // A rebuild in pages of 100 ranked members.
            let (progress, seen) = recorded();
            let report = e
                .jobs()
                .rebuild_with_progress(
                    &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                    "admin",
                    100,
                    &progress,
                )
                .await
                .unwrap();
            assert_eq!(report.members, ranked, "{ctx}");
            let readings = seen.lock().unwrap().clone();
            let found = phases(&format!("{ctx} rebuild"), &readings);
            assert_eq!(found.len(), 1, "{ctx}: {found:?}");
            let (phase, unit, total, count) = found[0];
            assert_eq!((phase, unit, total), ("projecting", "members", Some(ranked)), "{ctx}");
            assert!(count >= 25, "{ctx}: {count} readings for 25 pages");
            let job = latest(&b.slug, &period).unwrap();
            assert_eq!(
                (job.kind, job.report.done, job.ended_ago.is_some()),
                ("rebuild", true, true),
                "{ctx}"
            );

            // The settlement.
            e.lifecycle()
                .transition(
                    &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                    Transition::Freeze,
                    "admin",
                    None,
                )
                .await
                .unwrap();
            let (progress, seen) = recorded();
            let s = e.lifecycle().settle_with_progress(&b, period, "admin", &progress).await.unwrap();
            assert_eq!(s.members, ranked, "{ctx}");
            let readings = seen.lock().unwrap().clone();
            let found = phases(&format!("{ctx} settle"), &readings);
            let named: Vec<_> = found.iter().map(|(phase, unit, total, _)| (*phase, *unit, *total)).collect();
            assert_eq!(
                named,
                [
                    ("checking the projection", "members", None),
                    ("reading totals", "members", Some(ranked)),
                    ("writing standings", "members", Some(ranked)),
                    ("writing the member directory", "members", Some(ranked)),
                    ("writing rewards", "rewards", Some(3)),
                ],
                "{ctx}"
            );
            // Pages of 20: the reads report many times on the way.
            assert!(found[1].3 > 100, "{ctx}: {} readings of the totals", found[1].3);
            assert!(found[2].3 > 2 && found[3].3 >= 2, "{ctx}: {found:?}");
            // The registry keeps each phase's final numbers, as the console shows them at the end.
            let job = latest(&b.slug, &period).unwrap();
            assert_eq!((job.kind, job.report.done), ("settle", true), "{ctx}");
            let ends: Vec<_> = job.phases.iter().map(|r| (r.phase, r.processed, r.total)).collect();
            assert_eq!(
                ends,
                [
                    ("checking the projection", 0, None),
                    ("reading totals", ranked, Some(ranked)),
                    ("writing standings", ranked, Some(ranked)),
                    ("writing the member directory", ranked, Some(ranked)),
                    ("writing rewards", 3, Some(3)),
                ],
                "{ctx}"
            );

            // The export: read, then written with its rows counted as they are serialised.
            let (progress, seen) = recorded();
            let export = e
                .transfer()
                .export_period_with_progress(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), &progress)
                .await
                .unwrap();
            let mut bytes = Vec::new();
            engine::transfer::write_export(&export, &mut bytes, &progress).unwrap();
            assert_eq!(bytes, (serde_json::to_string_pretty(&export).unwrap() + "\n").into_bytes(), "{ctx}");
            let rows = export.rows();
            // Entries and totals of every member (the hidden one too), and the standings.
            assert_eq!(rows, MEMBERS as u64 * 2 + ranked, "{ctx}");
            let readings = seen.lock().unwrap().clone();
            let found = phases(&format!("{ctx} export"), &readings);
            let named: Vec<_> = found.iter().map(|(phase, unit, total, _)| (*phase, *unit, *total)).collect();
            assert_eq!(
                named,
                [("reading the period", "rows", None), ("writing", "rows", Some(rows))],
                "{ctx}"
            );
            assert!(found[1].3 > 5, "{ctx}: {found:?}");

            // The import, into a new ledger of the same kind.
            let target_ledger = if t.name.contains("sqlite") {
                TestLedger::sqlite().await
            } else {
                TestLedger::postgres().await
            };
            let tp = TestProjection::new(target.clone());
            let dest = engine(&target_ledger, &tp).await;
            let (progress, seen) = recorded();
            let imported = dest.transfer().import_period_with_progress(&export, &progress).await.unwrap();
            assert!(imported.projected, "{ctx}");
            assert_eq!(imported.digest, s.digest, "{ctx}");
            let readings = seen.lock().unwrap().clone();
            let found = phases(&format!("{ctx} import"), &readings);
            let named: Vec<_> = found.iter().map(|(phase, unit, total, _)| (*phase, *unit, *total)).collect();
            let members = Some(MEMBERS as u64);
            assert_eq!(
                named,
                [
                    ("inserting entries", "entries", members),
                    ("inserting late writes", "late writes", Some(0)),
                    ("replaying totals", "members", members),
                    ("inserting totals", "members", members),
                    ("writing standings", "members", Some(ranked)),
                    ("writing the member directory", "members", Some(ranked)),
                    ("projecting", "members", members),
                ],
                "{ctx}"
            );
            assert!(found[0].3 >= 3, "{ctx}: entries reported {} times", found[0].3);

            tp.cleanup().await;
            target_ledger.drop_db().await;
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}
