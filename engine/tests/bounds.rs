//! What an anonymous request may cost, on real Redis (standalone and Cluster): many pins of one
//! period make one copy, a forged cursor inside a large tie answers the right page, and big keys
//! leave Redis by UNLINK (archived periods after their grace, snapshot copies after their life).

mod common;

use common::{TestLedger, TestProjection, another_instance, engine, redis_targets, unique};
use domain::lifecycle::Transition;
use domain::write::{Change, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::Engine;
use std::collections::HashSet;

fn board(policy: TiePolicy) -> Board {
    Board {
        slug: BoardSlug::parse(unique("bd").replace('_', "-").to_lowercase()).unwrap(),
        title: "bounds".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(policy, 0, 1_000_000, if policy == TiePolicy::Shared { 1 } else { 100_000 })
            .unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![],
        unit: domain::Unit::Points,
    }
}

/// Records one event per member, in batches: `points(i)` for member `m<i>`.
async fn fill(e: &Engine, b: &Board, members: usize, points: impl Fn(usize) -> i64) {
    let writes: Vec<Write> = (0..members)
        .map(|i| Write {
            member: MemberId::parse(format!("m{i:06}")).unwrap(),
            change: Change::Point { event_id: EventId::parse(format!("e{i}")).unwrap(), delta: points(i) },
            occurred_at: jiff::Timestamp::now(),
            metadata: None,
            segments: Default::default(),
        })
        .collect();
    for batch in writes.chunks(engine::writes::MAX_BATCH) {
        e.writes().record(b, batch).await.unwrap();
    }
}

/// The keys under the test's prefix that are snapshot copies (not their info or claim keys).
async fn snapshot_copies(p: &TestProjection) -> Vec<String> {
    let keys = p.keys().await.into_iter().map(|(_, k)| k);
    keys.filter(|k| k.contains(":snap:") && !k.ends_with(":info") && !k.ends_with(":claim")).collect()
}

#[tokio::test]
async fn many_pins_of_one_period_on_two_instances_make_one_copy() {
    for (name, target) in redis_targets() {
        let t = TestLedger::sqlite().await;
        let p = TestProjection::new(target);
        let e = engine(&t, &p).await;
        let other = another_instance(&t, &p);
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        fill(&e, &b, 3000, |i| (i % 7) as i64 + 1).await;

        let mut pins = tokio::task::JoinSet::new();
        for i in 0..40 {
            let engine = if i % 2 == 0 { e.clone() } else { other.clone() };
            let slug = b.slug.clone();
            pins.spawn(async move {
                engine
                    .reads()
                    .create_snapshot(&engine.reads().scope(&slug, None).await.unwrap())
                    .await
                    .unwrap()
            });
        }
        let pinned: Vec<_> = pins.join_all().await;
        let ids: HashSet<&str> = pinned.iter().map(|s| s.snapshot_id.as_str()).collect();
        // Forty pins made one copy, unless they straddled a window's end (then two).
        assert!(ids.len() <= 2, "{name}: {ids:?}");
        assert!(pinned.iter().all(|s| s.total == 3000), "{name}");
        let copies = snapshot_copies(&p).await;
        assert_eq!(copies.len(), ids.len(), "{name}: one copy per window: {copies:?}");
        // Every pin reads the same pages.
        let first = &pinned[0];
        let page = e
            .reads()
            .snapshot_page(&e.reads().scope(&b.slug, None).await.unwrap(), &first.snapshot_id, 2990, 20)
            .await
            .unwrap();
        assert_eq!((page.total, page.entries.len(), page.has_more), (3000, 10, false), "{name}");
        let again = other
            .reads()
            .snapshot_page(&other.reads().scope(&b.slug, None).await.unwrap(), &first.snapshot_id, 2990, 20)
            .await
            .unwrap();
        assert_eq!(page.entries, again.entries, "{name}");
        p.cleanup().await;
        t.drop_db().await;
    }
}

#[tokio::test]
async fn a_forged_cursor_inside_a_large_tie_answers_the_page_after_it() {
    for (name, target) in redis_targets() {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let t = TestLedger::sqlite().await;
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            let b = board(policy);
            e.boards().create_board(&b).await.unwrap();
            // 20 000 members on equal points, and a few above and below them.
            let members = 20_000;
            fill(&e, &b, members, |i| match i % 1000 {
                0 => 90,
                1 => 10,
                _ => 50,
            })
            .await;
            // The model: the projection's order, best first, from what was written.
            let mut model: Vec<(i64, String)> = (0..members)
                .map(|i| {
                    let points = match i % 1000 {
                        0 => 90,
                        1 => 10,
                        _ => 50,
                    };
                    (points, format!("m{i:06}"))
                })
                .collect();
            let period = b.period_at(jiff::Timestamp::now());
            // Each member's encoded score as the projection holds it (first_reached orders ties
            // by who reached the points first).
            let scores = e.projection().scores(&b.slug, &period).await.unwrap();
            model.sort_by(|(_, a), (_, c)| scores[c].cmp(&scores[a]).then_with(|| c.cmp(a)));

            // Cursors naming absent members, at the tie's points: at its start, its middle, its end.
            for forged in ["m999999x", "m010000x", "m000000", "a"] {
                let score = b.codec.lowest_score_for(50).max(
                    model.iter().filter(|(pts, _)| *pts == 50).map(|(_, m)| scores[m]).min().unwrap_or(0),
                );
                let cursor = engine::reads::encode_cursor(score, &MemberId::parse(forged).unwrap());
                let found = e
                    .reads()
                    .entries_after(&e.reads().scope(&b.slug, None).await.unwrap(), Some(&cursor), 25)
                    .await
                    .unwrap();
                // Strictly after (score, member) in (score desc, member desc) order.
                let expected: Vec<&str> = model
                    .iter()
                    .filter(|(_, m)| scores[m] < score || (scores[m] == score && m.as_str() < forged))
                    .take(25)
                    .map(|(_, m)| m.as_str())
                    .collect();
                let got: Vec<&str> = found.page.entries.iter().map(|en| en.member.as_str()).collect();
                assert_eq!(got, expected, "{name} {policy:?}: after {forged}");
            }
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

#[tokio::test]
async fn an_archived_period_leaves_redis_by_unlink_once_its_grace_is_over() {
    for (name, target) in redis_targets() {
        let t = TestLedger::sqlite().await;
        let p = TestProjection::new(target);
        let e = engine(&t, &p).await;
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        fill(&e, &b, 50, |i| i as i64 + 1).await;
        let period = b.period_at(jiff::Timestamp::now()).to_string();
        for step in [Transition::Freeze, Transition::Settle, Transition::Archive] {
            e.lifecycle()
                .transition(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), step, "admin", None)
                .await
                .unwrap();
        }
        let tag = format!("{{{}:{period}}}", b.slug);
        let of_period = async || p.keys().await.into_iter().filter(|(_, k)| k.contains(&tag)).count();
        assert!(of_period().await > 0, "{name}: the keys stay through the grace");
        // The scheduler's first pass after the grace unlinks them (the archive's own timer may
        // have done it already).
        let config = engine::jobs::scheduler::SchedulerConfig::new(std::time::Duration::from_secs(5), None);
        let later = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(6);
        let pass = e.jobs().scheduler_pass(&config, later).await.unwrap();
        assert!(pass.expiries >= 1, "{name}: {pass:?}");
        assert_eq!(of_period().await, 0, "{name}: every key of the archived period is gone");
        let top = e.reads().top(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 3).await.unwrap();
        assert_eq!(top.entries[0].points, 50, "{name}: read from the standings");
        p.cleanup().await;
        t.drop_db().await;
    }
}

#[tokio::test]
async fn copies_of_expired_snapshots_are_swept() {
    for (name, target) in redis_targets() {
        let p = TestProjection::new(target);
        let slug = BoardSlug::parse("sweep").unwrap();
        let period = domain::PeriodKey::parse("2026-W49").unwrap();
        let rows: Vec<(MemberId, i64)> =
            (0..2500).map(|i| (MemberId::parse(format!("m{i}")).unwrap(), i)).collect();
        let ttl = std::time::Duration::from_millis(300);
        p.projection.write_snapshot(&slug, &period, None, "a1", &rows, ttl).await.unwrap();
        assert_eq!(
            p.projection.snapshot_total(&slug, &period, None, "a1").await.unwrap(),
            Some(2500),
            "{name}"
        );
        assert_eq!(p.projection.sweep_snapshots().await.unwrap(), 0, "{name}: not expired yet");
        tokio::time::sleep(ttl + std::time::Duration::from_millis(100)).await;
        assert_eq!(p.projection.snapshot_total(&slug, &period, None, "a1").await.unwrap(), None, "{name}");
        assert_eq!(p.projection.sweep_snapshots().await.unwrap(), 1, "{name}");
        let left: Vec<String> = p.keys().await.into_iter().map(|(_, k)| k).collect();
        assert!(left.iter().all(|k| !k.contains(":snap:")), "{name}: {left:?}");
        p.cleanup().await;
    }
}
