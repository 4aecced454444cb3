//! What no period can hold is refused before the ledger, and a row that slipped in anyway (an
//! older version, a hand edit) never stops a background job: the scheduler, the reconciler and
//! the listings leave it out, count it once, and `laurel doctor`'s sweep finds and quarantines
//! it. Every store combination (Redis standalone and Cluster × SQLite and PostgreSQL).
//!
//! Dates and values no period can hold are rejected and store nothing (no period row, no late
//! write); periods outside the years are refused in reads. Rows inserted under the ledger (a
//! period `0254-W40` with a total, a late write beyond the bounds) leave the scheduler freezing
//! the due period, the reconciler levelling the others and the period list answering, each row
//! counted once; the sweep finds both and the quarantine moves them, audited.

mod common;

use common::{TestProjection, each_store, point, prized_board};
use domain::TiePolicy;
use domain::write::{Change, Outcome, Write};
use engine::Engine;
use engine::jobs::scheduler::SchedulerConfig;
use sqlx::Connection;
use std::time::Duration;

fn at(s: &str) -> jiff::Timestamp {
    s.parse().unwrap()
}

fn dated(event: &str, member: &str, delta: i64, when: &str) -> Write {
    Write { occurred_at: at(when), ..point(event, member, delta) }
}

/// Runs SQL under the ledger, as an older version or a hand edit would have.
async fn under_the_ledger(url: &str, sql: &str) {
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    sqlx::query(sql).execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
}

#[tokio::test]
async fn writes_no_period_can_hold_are_refused_and_store_nothing() {
    each_store(async |name: &str, e: &Engine, _p: &TestProjection| {
        let b = prized_board("junk", TiePolicy::Shared, 60);
        e.boards().create_board(&b).await.unwrap();
        // The dates and the delta a fuzzer got accepted as `late` (issue: years 254, 301, 1887,
        // 0001-01-01, the last week of 1969), beside one valid write.
        let writes = [
            dated("y254", "u1", 5, "0254-10-01T00:00:00Z"),
            dated("y301", "u1", 5, "0301-12-20T00:00:00Z"),
            dated("y1887", "u1", 5, "1887-03-01T00:00:00Z"),
            dated("y1", "u1", 5, "0001-01-01T00:00:00Z"),
            dated("y1969", "u1", 5, "1969-12-27T00:00:00Z"),
            dated("huge", "u1", -54_240_551_891_543_696, "2026-01-05T00:00:00Z"),
            point("fine", "u2", 7),
        ];
        let answers = e.writes().record(&b, &writes).await.unwrap();
        for (w, r) in writes.iter().zip(&answers).take(6) {
            let id = w.change.external_id().unwrap();
            assert_eq!(r.recorded.outcome, Outcome::Rejected, "{name} {id}: {r:?}");
            assert_eq!(r.recorded.period, None, "{name} {id}");
            assert!(r.recorded.reason.is_some(), "{name} {id}");
        }
        assert_eq!(answers[6].recorded.outcome, Outcome::Applied, "{name}");
        // An old date and a delta past the bounds on a period that is long over: not late either.
        let old = dated("old-huge", "u1", 2_000_001, "2026-01-05T00:00:00Z");
        assert_eq!(
            e.writes().record(&b, &[old]).await.unwrap()[0].recorded.outcome,
            Outcome::Rejected,
            "{name}"
        );
        let set_like = Write {
            change: Change::Correction { correction_id: None, delta: i64::MIN },
            ..point("x", "u1", 0)
        };
        assert!(e.writes().record(&b, &[set_like]).await.is_err(), "{name}: corrections have their own path");

        // Nothing stored: one period (the current one), no late writes, only the valid entry.
        let listed = e.ledger().periods(&b.slug).await.unwrap();
        assert!(listed.invalid.is_empty(), "{name}: {:?}", listed.invalid);
        assert_eq!(listed.rows.len(), 1, "{name}: {:?}", listed.rows);
        let current = b.period_at(jiff::Timestamp::now()).to_string();
        assert!(
            e.lifecycle()
                .late_entries(&e.reads().scope(&b.slug, Some("2026-W02")).await.unwrap(), None)
                .await
                .unwrap()
                .is_empty(),
            "{name}"
        );
        assert!(e.ledger().find_invalid_rows().await.unwrap().is_empty(), "{name}");
        let top = e.reads().top(&e.reads().scope(&b.slug, Some(&current)).await.unwrap(), 10).await.unwrap();
        assert_eq!(top.entries.len(), 1, "{name}");

        // Periods outside the supported years do not exist for any read, and create no row.
        for period in ["0001-W01", "9999-W53", "0254-W40"] {
            assert!(
                matches!(
                    e.reads().scope(&b.slug, Some(period)).await,
                    Err(engine::EngineError::NotFound { .. })
                ),
                "{name} {period}"
            );
            assert!(e.reads().scope(&b.slug, Some(period)).await.is_err(), "{name} {period}");
        }
        assert_eq!(e.ledger().periods(&b.slug).await.unwrap().rows.len(), 1, "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_row_no_job_can_read_leaves_the_scheduler_and_the_reconciler_working() {
    for (redis_name, target) in common::redis_targets() {
        for t in common::TestLedger::both().await {
            let name = format!("{redis_name}/{}", t.name);
            let p = TestProjection::new(target.clone());
            let e = common::engine(&t, &p).await;
            let b = prized_board("unreadable", TiePolicy::Shared, 60);
            e.boards().create_board(&b).await.unwrap();
            let slug = b.slug.as_str();

            // A period that ended last week (its write recorded while it was open) and the current one.
            let last_week = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(8 * 24);
            let ended = b.period_at(last_week);
            e.ledger()
                .record(&b, &[Write { occurred_at: last_week, ..point("old", "u9", 3) }], last_week)
                .await
                .unwrap();
            e.writes().record(&b, &[point("a", "u1", 30), point("b", "u2", 20)]).await.unwrap();
            let current = b.period_at(jiff::Timestamp::now());

            // The rows an older version let in: a period key outside the supported years (with a
            // total in it) and a late write no total could take.
            under_the_ledger(
                &t.url,
                &format!("INSERT INTO periods (board, period, state) VALUES ('{slug}', '0254-W40', 'open')"),
            )
            .await;
            under_the_ledger(
                &t.url,
                &format!(
                    "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at, hidden) \
                     VALUES ('{slug}', '0254-W40', 'u1', 5, 1, 0, 0, 0, 0)"
                ),
            )
            .await;
            under_the_ledger(
                &t.url,
                &format!(
                    "INSERT INTO late_entries (board, period, member, kind, external_id, delta, occurred_at, received_at) \
                     VALUES ('{slug}', '{ended}', 'u1', 'point', 'huge', -54240551891543696, 0, 0)"
                ),
            )
            .await;

            // The scheduler freezes the period that is due, past the row it cannot read.
            let config = SchedulerConfig::new(Duration::from_secs(1), None);
            let report = e.jobs().scheduler_pass(&config, jiff::Timestamp::now()).await.unwrap();
            assert_eq!(report.frozen, vec![(b.slug.clone(), ended)], "{name}: {report:?}");
            // The reconciler levels the other periods after Redis lost them.
            p.cleanup().await;
            assert!(p.keys().await.is_empty(), "{name}: keys gone");
            let levelled = e.jobs().reconcile_once().await.unwrap();
            assert!(levelled.periods_levelled >= 1, "{name}: {levelled:?}");
            let top = e
                .reads()
                .top(&e.reads().scope(&b.slug, Some(&current.to_string())).await.unwrap(), 10)
                .await
                .unwrap();
            let members: Vec<_> =
                top.entries.iter().map(|x| (x.member.as_str().to_owned(), x.points)).collect();
            assert_eq!(members, [("u1".to_owned(), 30), ("u2".to_owned(), 20)], "{name}");
            // The listing of periods answers without the row, and the row is counted once.
            let periods: Vec<_> =
                e.reads().periods(&b.slug).await.unwrap().into_iter().map(|p| p.period).collect();
            assert_eq!(periods, [current, ended], "{name}");
            e.jobs().reconcile_once().await.unwrap();
            let metrics = e.metrics().render();
            assert!(metrics.contains("laurel_invalid_rows_total{job=\"scheduler\"} 1"), "{name}: {metrics}");
            assert!(metrics.contains("laurel_invalid_rows_total{job=\"reconciler\"} 1"), "{name}: {metrics}");
            assert!(metrics.contains("laurel_invalid_rows_total{job=\"periods\"} 1"), "{name}: {metrics}");

            // The doctor finds both rows; --fix moves them (the period with its total), audited.
            let found = e.ledger().find_invalid_rows().await.unwrap();
            let found_keys: Vec<_> =
                found.iter().map(|f| (f.row.table, f.row.key.clone(), f.movable)).collect();
            assert_eq!(
                found_keys,
                [
                    ("periods", format!("{slug} 0254-W40"), true),
                    ("late_entries", found[1].row.key.clone(), true)
                ],
                "{name}: {found:?}"
            );
            assert!(found[1].row.reason.contains("no total could take it"), "{name}: {found:?}");
            let moved: u64 = {
                let mut n = 0;
                for f in &found {
                    n += e.ledger().quarantine(f, jiff::Timestamp::now()).await.unwrap();
                }
                n
            };
            assert_eq!(moved, 3, "{name}: the period, its total and the late write");
            assert_eq!(e.ledger().quarantined_rows().await.unwrap(), 3, "{name}");
            assert!(e.ledger().find_invalid_rows().await.unwrap().is_empty(), "{name}");
            let filter = engine::ledger::audit::AuditFilter {
                action: Some("row_quarantine".into()),
                ..Default::default()
            };
            let audited = e.ledger().audit_page(&filter, None, 10).await.unwrap();
            assert_eq!(audited.len(), 2, "{name}: {audited:?}");
            // The valid rows are untouched.
            assert_eq!(
                e.lifecycle()
                    .late_entries(&e.reads().scope(&b.slug, Some(&ended.to_string())).await.unwrap(), None)
                    .await
                    .unwrap()
                    .len(),
                0,
                "{name}"
            );
            assert_eq!(
                e.reads()
                    .top(&e.reads().scope(&b.slug, None).await.unwrap(), 10)
                    .await
                    .unwrap()
                    .entries
                    .len(),
                2,
                "{name}"
            );

            p.cleanup().await;
            t.drop_db().await;
        }
    }
}
