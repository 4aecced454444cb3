//! Hot boards on real Redis, standalone and Cluster: the sliding window, expiry by TTL, the two
//! write modes and aggregates against a naive model, dedup and caps under concurrent writers,
//! snapshots with rank changes, tending, the validation hook, the board's filter (changed on one
//! instance, seen by another) and the one-leader snapshot job.
//! Most tests pass the clock to the scripts (`hit_at`, `hot_snapshot(.., Some(ms))`) to move
//! through buckets without waiting; the TTL tests use the real clock and 1-second buckets.
//! `best` never lowers a score; dedup and caps hold under 16 concurrent writers. Over HTTP:
//! `server/src/rest/tests.rs`; in the browser: `end2end/tests/hot.spec.ts`.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets, unique};
use domain::BoardSlug;
use domain::hot::{Aggregate, HitResult, HotBoard, HotFilter, HotMember, HotRules, HotSpec, WriteMode};
use engine::hot::{Hit, HitFilter};
use engine::ledger::audit::AuditFilter;
use engine::{Engine, EngineError};
use std::collections::HashMap;
use std::time::Duration;

/// A bucket-aligned instant (ms) far from the real clock: tests choose buckets explicitly.
const T0: i64 = 1_800_000_000_000;

async fn hot_board(e: &Engine, spec: HotSpec) -> HotBoard {
    let slug = BoardSlug::parse(unique("hot").replace('_', "-")).unwrap();
    let board = HotBoard { slug, title: "Trending".into(), rules: HotRules::new(spec).unwrap() };
    e.hot().create_board(&board).await.unwrap()
}

fn spec(bucket_seconds: u64, window_buckets: u64) -> HotSpec {
    HotSpec {
        bucket_seconds,
        window_buckets,
        ttl_seconds: (3 * bucket_seconds * window_buckets).div_ceil(2),
        ..HotSpec::default()
    }
}

fn hit(member: &str) -> Hit {
    Hit { member: member.into(), ..Hit::default() }
}

fn by(member: &str, actor: &str) -> Hit {
    Hit { member: member.into(), actor: Some(actor.into()), ..Hit::default() }
}

fn valued(member: &str, weight: f64) -> Hit {
    Hit { member: member.into(), weight: Some(weight), ..Hit::default() }
}

/// (member, score) of a snapshot taken at `at`, best first.
async fn snapshot(e: &Engine, b: &HotBoard, at: i64) -> Vec<(String, f64)> {
    let list = e.hot().snapshot(&b.slug, Some(at)).await.unwrap().expect("a new interval publishes");
    list.entries.into_iter().map(|x| (x.member, x.score)).collect()
}

/// Runs `test` once per Redis deployment with a fresh SQLite ledger and key prefix.
async fn each_redis<F, Fut>(test: F)
where
    F: Fn(Engine, &'static str) -> Fut,
    Fut: Future<Output = ()>,
{
    for (mode, target) in redis_targets() {
        let ledger = TestLedger::sqlite().await;
        let projection = TestProjection::new(target);
        test(engine(&ledger, &projection).await, mode).await;
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn members_fall_out_when_their_buckets_leave_the_window() {
    each_redis(|e, mode| async move {
        let b = hot_board(&e, spec(60, 3)).await;
        let minute = 60_000;
        e.hot().hit_at(&b.slug, &valued("old", 5.0), Some(T0)).await.unwrap();
        e.hot().hit_at(&b.slug, &hit("new"), Some(T0 + 2 * minute)).await.unwrap();

        assert_eq!(
            snapshot(&e, &b, T0 + 2 * minute).await,
            [("old".into(), 5.0), ("new".into(), 1.0)],
            "{mode}"
        );
        // Three buckets later the first one is out of the window; the third is still in.
        assert_eq!(snapshot(&e, &b, T0 + 3 * minute).await, [("new".into(), 1.0)], "{mode}");
        assert_eq!(snapshot(&e, &b, T0 + 5 * minute).await, [], "{mode}");
    })
    .await;
}

#[tokio::test]
async fn buckets_expire_by_their_ttl_which_later_writes_never_extend() {
    each_redis(|e, mode| async move {
        // 1-second buckets, a 2-second window, the shortest TTL allowed: 3 s.
        let b = hot_board(&e, spec(1, 2)).await;
        let now = jiff::Timestamp::now().as_millisecond();
        let key = e.projection().keys().hot(&b.slug).bucket(now / 1000);
        let mut conn = e.projection().conn().await.unwrap();
        let pttl = |conn: &mut engine::redis::RedisConn| {
            let key = key.clone();
            let mut conn = conn.clone();
            async move { redis::cmd("PTTL").arg(&key).query_async::<i64>(&mut conn).await.unwrap() }
        };

        e.hot().hit_at(&b.slug, &hit("a"), Some(now)).await.unwrap();
        let first = pttl(&mut conn).await;
        assert!((2_000..=3_000).contains(&first), "{mode}: ttl set at first write, got {first} ms");
        tokio::time::sleep(Duration::from_millis(1_200)).await;
        // Same bucket (the clock is passed), later write: the TTL keeps running down.
        e.hot().hit_at(&b.slug, &hit("b"), Some(now)).await.unwrap();
        let later = pttl(&mut conn).await;
        assert!(later > 0 && later <= first - 1_000, "{mode}: ttl pushed back: {first} ms then {later} ms");

        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while pttl(&mut conn).await != -2 {
            assert!(std::time::Instant::now() < deadline, "{mode}: the bucket never expired");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
}

/// A deterministic stream of (bucket offset, member, value).
fn hits(seed: u64, n: usize) -> Vec<(i64, String, f64)> {
    let mut x = seed;
    let mut next = move |m: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    (0..n).map(|_| (next(4) as i64, format!("m{}", next(12)), (next(50) + 1) as f64)).collect()
}

/// The window merged by hand: per bucket, counts add up and best keeps the highest; across the
/// window, weighted sum or weighted max.
fn naive(rules: &HotRules, hits: &[(i64, String, f64)], newest: i64) -> Vec<(String, f64)> {
    let mut buckets: HashMap<(i64, &str), f64> = HashMap::new();
    for (bucket, member, value) in hits {
        let slot = buckets.entry((*bucket, member.as_str())).or_insert(0.0);
        *slot = match rules.write_mode {
            WriteMode::Count => *slot + value,
            WriteMode::Best => slot.max(*value),
        };
    }
    let n = rules.window_buckets as i64;
    let mut merged: HashMap<&str, f64> = HashMap::new();
    for ((bucket, member), score) in buckets {
        let age = newest - bucket;
        if !(0..n).contains(&age) {
            continue;
        }
        let weighted = score * rules.weights[(n - 1 - age) as usize];
        let slot = merged.entry(member).or_insert(match rules.aggregate {
            Aggregate::Sum => 0.0,
            Aggregate::Max => f64::MIN,
        });
        *slot = match rules.aggregate {
            Aggregate::Sum => *slot + weighted,
            Aggregate::Max => slot.max(weighted),
        };
    }
    let mut out: Vec<(String, f64)> = merged.into_iter().map(|(m, s)| (m.to_owned(), s)).collect();
    // Redis order: score descending, then member descending.
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    out
}

#[tokio::test]
async fn sum_and_max_windows_match_a_naive_model() {
    each_redis(|e, mode| async move {
        for (write_mode, aggregate) in [
            (WriteMode::Count, Aggregate::Sum),
            (WriteMode::Count, Aggregate::Max),
            (WriteMode::Best, Aggregate::Max),
        ] {
            let b = hot_board(
                &e,
                HotSpec {
                    write_mode: Some(write_mode),
                    aggregate: Some(aggregate),
                    weights: Some(vec![0.25, 0.5, 1.0]),
                    ..spec(60, 3)
                },
            )
            .await;
            let stream = hits(u64::from(write_mode == WriteMode::Best) * 7 + aggregate as u64, 300);
            for (bucket, member, value) in &stream {
                e.hot().hit_at(&b.slug, &valued(member, *value), Some(T0 + bucket * 60_000)).await.unwrap();
            }
            let got = snapshot(&e, &b, T0 + 3 * 60_000).await;
            let want = naive(&b.rules, &stream, 3);
            assert_eq!(got.len(), want.len(), "{mode} {write_mode} {aggregate}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.0, w.0, "{mode} {write_mode} {aggregate}: {got:?} vs {want:?}");
                assert!((g.1 - w.1).abs() < 1e-9, "{mode} {write_mode} {aggregate}: {g:?} vs {w:?}");
            }
        }
    })
    .await;
}

/// Writes `bucket` straight into Redis (the merge is under test, not the hit path): one ZADD.
async fn load_bucket(e: &Engine, b: &HotBoard, bucket: i64, entries: &[(String, f64)]) {
    let mut conn = e.projection().conn().await.unwrap();
    let mut zadd = redis::cmd("ZADD");
    zadd.arg(e.projection().keys().hot(&b.slug).bucket(bucket));
    for (member, score) in entries {
        zadd.arg(*score).arg(member);
    }
    zadd.query_async::<i64>(&mut conn).await.unwrap();
}

#[tokio::test]
async fn a_window_larger_than_a_slice_merges_exactly_while_the_live_bucket_grows() {
    each_redis(|e, mode| async move {
        for aggregate in [Aggregate::Sum, Aggregate::Max] {
            let b = hot_board(
                &e,
                HotSpec { aggregate: Some(aggregate), weights: Some(vec![0.25, 0.5, 1.0]), ..spec(60, 3) },
            )
            .await;
            // Three buckets of 2 500 members out of 4 000 (so most members are in several), scores
            // 10..=60: each bucket is a hash table, read in several ZSCAN slices.
            let first = T0 / 60_000;
            let mut stream = Vec::new();
            for offset in 0..3 {
                let mut x = 17 + offset as u64;
                let mut entries: HashMap<String, f64> = HashMap::new();
                while entries.len() < 2_500 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    entries.insert(format!("m{}", (x >> 33) % 4_000), ((x >> 20) % 51 + 10) as f64);
                }
                let entries: Vec<(String, f64)> = entries.into_iter().collect();
                load_bucket(&e, &b, first + offset, &entries).await;
                stream.extend(entries.into_iter().map(|(m, v)| (offset, m, v)));
            }
            let mut want = naive(&b.rules, &stream, 2);
            want.truncate(100);

            // Meanwhile new members (score 1, far below the top 100) keep landing in the live
            // bucket, which grows and rehashes while it is scanned.
            let writing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
            let writer = {
                let (e, slug, writing) = (e.clone(), b.slug.clone(), writing.clone());
                tokio::spawn(async move {
                    let mut i = 0;
                    while writing.load(std::sync::atomic::Ordering::Relaxed) {
                        e.hot().hit_at(&slug, &hit(&format!("new{i}")), Some(T0 + 2 * 60_000)).await.unwrap();
                        i += 1;
                    }
                    i
                })
            };
            for round in 0..5 {
                let merged =
                    e.projection().hot_merge(&b.slug, &b.rules, 100, Some(T0 + 2 * 60_000)).await.unwrap();
                assert!(merged.entries_read >= 7_500, "{mode} {aggregate}: read {}", merged.entries_read);
                assert_eq!(merged.top.len(), 100);
                for (g, w) in merged.top.iter().zip(&want) {
                    assert_eq!(g.0, w.0, "{mode} {aggregate} round {round}");
                    assert!((g.1 - w.1).abs() < 1e-9, "{mode} {aggregate} round {round}: {g:?} vs {w:?}");
                }
            }
            writing.store(false, std::sync::atomic::Ordering::Relaxed);
            let written = writer.await.unwrap();
            assert!(written > 0, "{mode}: the writer ran during the merges");
        }
    })
    .await;
}

#[tokio::test]
async fn best_mode_never_lowers_a_score() {
    each_redis(|e, mode| async move {
        let b = hot_board(&e, HotSpec { write_mode: Some(WriteMode::Best), ..spec(60, 2) }).await;
        let mut scores = Vec::new();
        let (counted, not_raised) = (HitResult::Counted, HitResult::NotRaised);
        let expected = [counted, counted, not_raised, not_raised, counted, not_raised];
        for (value, result) in [40.0, 90.0, 10.0, 89.0, 95.0, 1.0].into_iter().zip(expected) {
            let outcome = e.hot().hit_at(&b.slug, &valued("article-1001", value), Some(T0)).await.unwrap();
            // A hit that did not raise the score says so (`ZADD GT CH` answered 0).
            assert_eq!(outcome.result, result, "{mode}: {value}");
            scores.push(outcome.score.unwrap());
        }
        assert_eq!(scores, [40.0, 90.0, 90.0, 90.0, 95.0, 95.0], "{mode}");
        // An equal score does not raise it either.
        let equal = e.hot().hit_at(&b.slug, &valued("article-1001", 95.0), Some(T0)).await.unwrap();
        assert_eq!(equal.result, HitResult::NotRaised, "{mode}");
        // The metrics count them by result.
        let text = e.metrics().render();
        assert!(text.contains("result=\"not_raised\""), "{mode}: {text}");
    })
    .await;
}

#[tokio::test]
async fn dedup_and_caps_hold_exactly_under_16_concurrent_writers() {
    each_redis(|e, mode| async move {
        let capped = hot_board(&e, HotSpec { actor_cap: Some(5), ..spec(60, 2) }).await;
        let open = hot_board(&e, spec(60, 2)).await;
        for b in [&capped, &open] {
            // 16 writers; every actor is driven by 4 of them at once, each sending the same 10
            // members three times over.
            let mut writers = tokio::task::JoinSet::new();
            for w in 0..16 {
                let (e, slug) = (e.clone(), b.slug.clone());
                writers.spawn(async move {
                    let mut results = Vec::new();
                    for round in 0..3 {
                        for m in 0..10 {
                            let member = format!("m{}", (m + w + round) % 10);
                            let h = by(&member, &format!("actor{}", w % 4));
                            results.push(e.hot().hit_at(&slug, &h, Some(T0)).await.unwrap().result);
                        }
                    }
                    results
                });
            }
            let mut tally: HashMap<HitResult, usize> = HashMap::new();
            while let Some(results) = writers.join_next().await {
                for r in results.unwrap() {
                    *tally.entry(r).or_default() += 1;
                }
            }
            let total: f64 = snapshot(&e, b, T0).await.iter().map(|(_, s)| s).sum();
            if b.rules.actor_cap.is_some() {
                // 4 actors × a cap of 5; the rest are repeats or over the cap.
                assert_eq!(tally[&HitResult::Counted], 20, "{mode}: {tally:?}");
                assert_eq!(total, 20.0, "{mode}");
                assert!(tally[&HitResult::Capped] > 0, "{mode}: {tally:?}");
            } else {
                // 4 actors × 10 members, once each.
                assert_eq!(tally[&HitResult::Counted], 40, "{mode}: {tally:?}");
                assert_eq!(tally[&HitResult::Deduplicated], 16 * 30 - 40, "{mode}: {tally:?}");
                assert_eq!(total, 40.0, "{mode}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn dedup_lasts_one_snapshot_interval() {
    each_redis(|e, mode| async move {
        let b = hot_board(&e, HotSpec { snapshot_seconds: Some(300), ..spec(60, 10) }).await;
        let at = |s: i64| Some(T0 + s * 1000);
        assert_eq!(
            e.hot().hit_at(&b.slug, &by("robot vacuum", "u1"), at(0)).await.unwrap().result,
            HitResult::Counted
        );
        assert_eq!(
            e.hot().hit_at(&b.slug, &by("robot vacuum", "u1"), at(299)).await.unwrap().result,
            HitResult::Deduplicated,
            "{mode}"
        );
        // Another actor, or the same actor in the next interval, counts.
        assert_eq!(
            e.hot().hit_at(&b.slug, &by("robot vacuum", "u2"), at(299)).await.unwrap().result,
            HitResult::Counted
        );
        assert_eq!(
            e.hot().hit_at(&b.slug, &by("robot vacuum", "u1"), at(300)).await.unwrap().result,
            HitResult::Counted
        );
    })
    .await;
}

/// Only members of a catalogue count (docs/DESIGN.md, "Dedup, caps and weights": only searches
/// with results).
struct Catalogue(Vec<&'static str>);

impl HitFilter for Catalogue {
    fn check(&self, _: &HotBoard, member: &HotMember) -> Result<(), String> {
        if self.0.contains(&member.as_str()) {
            Ok(())
        } else {
            Err(format!("{member} is not in the catalogue"))
        }
    }
}

#[tokio::test]
async fn invalid_hits_are_rejected_before_redis() {
    for (mode, target) in redis_targets() {
        let ledger = TestLedger::sqlite().await;
        let projection = TestProjection::new(target);
        let e = engine(&ledger, &projection).await.with_hit_filter(Catalogue(vec!["洗地机", "air fryer"]));
        let b = hot_board(
            &e,
            HotSpec {
                action_weights: Some([("search".into(), 1.0), ("order".into(), 10.0)].into()),
                ..spec(60, 2)
            },
        )
        .await;
        let weighted = |member: &str, action: &str| Hit { action: Some(action.into()), ..hit(member) };
        for (h, reason) in [
            (hit("   "), "blank"),
            (hit("<script>"), "may not contain"),
            (hit("unknown term"), "not in the catalogue"),
            (weighted("洗地机", "like"), "unknown action"),
            (valued("洗地机", -1.0), "weight"),
            (by("洗地机", "u 1"), "actor"),
        ] {
            let outcome = e.hot().hit_at(&b.slug, &h, Some(T0)).await.unwrap();
            assert_eq!(outcome.result, HitResult::Rejected, "{mode}: {h:?}");
            assert!(outcome.reason.as_deref().unwrap().contains(reason), "{mode}: {outcome:?}");
        }
        assert!(projection.keys().await.is_empty(), "{mode}: a rejected hit touched Redis");

        e.hot().hit_at(&b.slug, &weighted("  洗地机 ", "order"), Some(T0)).await.unwrap();
        e.hot().hit_at(&b.slug, &weighted("air fryer", "search"), Some(T0)).await.unwrap();
        assert_eq!(
            snapshot(&e, &b, T0).await,
            [("洗地机".into(), 10.0), ("air fryer".into(), 1.0)],
            "{mode}"
        );
        let metrics = e.metrics().render();
        assert!(
            metrics.contains(&format!("laurel_hot_hits_total{{board=\"{}\",result=\"rejected\"}} 6", b.slug))
        );
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn a_boards_filter_counts_only_hits_with_results_unblocked_members_and_old_actors() {
    for (mode, target) in redis_targets() {
        let ledger = TestLedger::sqlite().await;
        let projection = TestProjection::new(target);
        let e = engine(&ledger, &projection).await;
        let other = engine(&ledger, &projection).await;
        let filter = HotFilter {
            count_only_with_results: true,
            blocked_members: vec!["Bad Term".into()],
            min_actor_age_seconds: Some(86_400),
        };
        let b = hot_board(&e, HotSpec { filter: Some(filter), ..spec(60, 2) }).await;
        // Stored as compared: lower-cased.
        assert_eq!(b.rules.filter.blocked_members, ["bad term"], "{mode}");
        let now = jiff::Timestamp::from_millisecond(T0).unwrap();
        let old = now - jiff::SignedDuration::from_hours(48);
        let young = now - jiff::SignedDuration::from_hours(2);
        let search = |member: &str, results: Option<u64>, created: Option<jiff::Timestamp>| Hit {
            results,
            actor_created_at: created,
            ..by(member, "u1")
        };
        for (h, reason) in [
            (search("air fryer", None, Some(old)), "with results"),
            (search("air fryer", Some(0), Some(old)), "with results"),
            (search("BAD TERM", Some(5), Some(old)), "blocked"),
            (search("air fryer", Some(5), Some(young)), "at least 86400 s old"),
            (search("air fryer", Some(5), None), "at least 86400 s old"),
        ] {
            let outcome = e.hot().hit_at(&b.slug, &h, Some(T0)).await.unwrap();
            assert_eq!(outcome.result, HitResult::Filtered, "{mode}: {h:?}");
            assert!(outcome.reason.as_deref().unwrap().contains(reason), "{mode}: {outcome:?}");
        }
        assert!(projection.keys().await.is_empty(), "{mode}: a filtered hit touched Redis");
        let counted =
            e.hot().hit_at(&b.slug, &search("air fryer", Some(5), Some(old)), Some(T0)).await.unwrap();
        assert_eq!(counted.result, HitResult::Counted, "{mode}");
        let metrics = e.metrics().render();
        assert!(
            metrics.contains(&format!("laurel_hot_hits_total{{board=\"{}\",result=\"filtered\"}} 5", b.slug)),
            "{mode}: {metrics}"
        );

        // A bad filter changes nothing.
        let bad = HotFilter { blocked_members: vec!["<script>".into()], ..HotFilter::default() };
        assert!(matches!(e.hot().set_filter(&b.slug, bad, "token#1").await, Err(EngineError::Invalid(_))));
        assert_eq!(e.hot().board(&b.slug).await.unwrap().rules.filter, b.rules.filter, "{mode}");

        // The other instance has the old filter in hand; after the change it keeps it at most
        // BOARD_CACHE_TTL (5 s), then counts what the new filter counts.
        let blocked = search("bad term", Some(5), Some(old));
        assert_eq!(
            other.hot().hit_at(&b.slug, &blocked, Some(T0)).await.unwrap().result,
            HitResult::Filtered
        );
        let open = HotFilter::default();
        let changed = e.hot().set_filter(&b.slug, open.clone(), "token#1").await.unwrap();
        assert_eq!(changed.rules.filter, open, "{mode}");
        assert_eq!(
            e.hot().hit_at(&b.slug, &hit("bad term"), Some(T0)).await.unwrap().result,
            HitResult::Counted
        );
        tokio::time::sleep(Duration::from_millis(5_200)).await;
        let by_other = other.hot().hit_at(&b.slug, &search("bad term", None, None), Some(T0)).await.unwrap();
        assert_eq!(by_other.result, HitResult::Counted, "{mode}");
        assert_eq!(
            snapshot(&e, &b, T0).await,
            [("bad term".into(), 2.0), ("air fryer".into(), 1.0)],
            "{mode}"
        );

        // One audit row, with both filters.
        let changes = AuditFilter { action: Some("hot_filter".into()), ..AuditFilter::default() };
        let trail = e.lifecycle().audit(&changes, None, 10).await.unwrap();
        assert_eq!(trail.len(), 1, "{mode}: {trail:?}");
        assert_eq!(trail[0].board.as_deref(), Some(b.slug.as_str()), "{mode}");
        assert_eq!(trail[0].actor, "token#1", "{mode}");
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn snapshots_show_rank_changes_and_new_entries_once_per_interval() {
    each_redis(|e, mode| async move {
        let b = hot_board(&e, HotSpec { snapshot_seconds: Some(60), ..spec(60, 5) }).await;
        for (member, n) in [("a", 3), ("b", 2), ("c", 1)] {
            for _ in 0..n {
                e.hot().hit_at(&b.slug, &hit(member), Some(T0)).await.unwrap();
            }
        }
        let first = e.hot().snapshot(&b.slug, Some(T0)).await.unwrap().unwrap();
        assert!(first.entries.iter().all(|x| !x.new && x.change == 0), "{mode}: nothing to compare with");
        // The same interval again publishes nothing.
        assert_eq!(e.hot().snapshot(&b.slug, Some(T0 + 59_000)).await.unwrap(), None, "{mode}");

        for (member, n) in [("c", 5), ("d", 3)] {
            for _ in 0..n {
                e.hot().hit_at(&b.slug, &hit(member), Some(T0 + 60_000)).await.unwrap();
            }
        }
        e.hot().snapshot(&b.slug, Some(T0 + 60_000)).await.unwrap().unwrap();
        let list = e.hot().top(&b.slug, 10).await.unwrap();
        let view: Vec<(u32, &str, f64, i64, bool)> =
            list.entries.iter().map(|x| (x.rank, x.member.as_str(), x.score, x.change, x.new)).collect();
        assert_eq!(
            view,
            [
                (1, "c", 6.0, 2, false),
                (2, "d", 3.0, 0, true),
                (3, "a", 3.0, -2, false),
                (4, "b", 2.0, -2, false)
            ],
            "{mode}"
        );
        // Each entry's share of the window's heat (6 + 3 + 3 + 2 = 14): they sum to at most 1.
        let shares: Vec<f64> = list.entries.iter().map(|x| x.share).collect();
        let expected = [6.0 / 14.0, 3.0 / 14.0, 3.0 / 14.0, 2.0 / 14.0];
        assert!(shares.iter().zip(expected).all(|(s, x)| (s - x).abs() < 1e-9), "{mode}: {shares:?}");
        assert!(shares.iter().sum::<f64>() <= 1.0 + 1e-9, "{mode}: {shares:?}");
        // A shorter page keeps the shares of the whole window.
        let two = e.hot().top(&b.slug, 2).await.unwrap();
        assert_eq!(two.entries.iter().map(|x| x.share).collect::<Vec<_>>(), shares[..2], "{mode}");
        assert_eq!(list.updated_at.unwrap().as_millisecond(), T0 + 60_000);
        assert_eq!(list.window.description, "last 5 minutes");
        assert_eq!(e.hot().top(&b.slug, 2).await.unwrap().entries.len(), 2);
    })
    .await;
}

#[tokio::test]
async fn tending_unlinks_buckets_behind_the_window_and_reports_missing_ttls() {
    each_redis(|e, mode| async move {
        let b = hot_board(&e, spec(60, 2)).await;
        let keys = e.projection().keys().hot(&b.slug);
        let mut conn = e.projection().conn().await.unwrap();
        e.hot().hit_at(&b.slug, &hit("a"), Some(T0)).await.unwrap();
        // A bucket inside the window written behind the script's back, without a TTL: the smell
        // docs/DESIGN.md ("Bucket TTLs") tells to watch for.
        let rogue = keys.bucket(T0 / 60_000 + 2);
        redis::cmd("ZADD").arg(&rogue).arg(1).arg("x").exec_async(&mut conn).await.unwrap();

        e.hot().snapshot(&b.slug, Some(T0 + 3 * 60_000)).await.unwrap();
        let exists: i64 =
            redis::cmd("EXISTS").arg(keys.bucket(T0 / 60_000)).query_async(&mut conn).await.unwrap();
        assert_eq!(exists, 0, "{mode}: the bucket behind the window is unlinked");
        let metrics = e.metrics().render();
        for line in [
            format!("laurel_hot_keys_without_ttl{{board=\"{}\"}} 1", b.slug),
            format!("laurel_hot_buckets_unlinked_total{{board=\"{}\"}} 1", b.slug),
            format!("laurel_hot_bucket_members{{board=\"{}\"}} 0", b.slug),
        ] {
            assert!(metrics.contains(&line), "{mode}: {line} missing from\n{metrics}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_bucket_keeps_its_size_bound() {
    each_redis(|e, mode| async move {
        let b = hot_board(&e, HotSpec { max_members: Some(3), ..spec(60, 2) }).await;
        for (i, member) in ["a", "b", "c", "d", "e"].iter().enumerate() {
            e.hot().hit_at(&b.slug, &valued(member, (i + 1) as f64), Some(T0)).await.unwrap();
        }
        let members: Vec<String> = snapshot(&e, &b, T0).await.into_iter().map(|(m, _)| m).collect();
        assert_eq!(members, ["e", "d", "c"], "{mode}: the lowest are trimmed");
    })
    .await;
}

#[tokio::test]
async fn a_slug_names_one_board_of_either_kind() {
    for ledger in TestLedger::both().await {
        let projection = TestProjection::new(redis_targets().remove(0).1);
        let e = engine(&ledger, &projection).await;
        let hot = hot_board(&e, spec(60, 2)).await;
        assert!(matches!(e.hot().create_board(&hot).await, Err(engine::EngineError::BoardExists(_))));
        let periodic = domain::Board {
            slug: hot.slug.clone(),
            title: "Weekly".into(),
            cadence: domain::Cadence::Weekly,
            zone: jiff::tz::TimeZone::UTC,
            operator: domain::Operator::Incr,
            codec: domain::ScoreCodec::new(domain::TiePolicy::Shared, 0, 1000, 1).unwrap(),
            freeze_grace_seconds: 0,
            public_freeze_seconds: 0,
            keep_top: None,
            ranking_ttl_days: 7,
            segments: Vec::new(),
            segment_prizes: Default::default(),
            season: None,
            prizes: vec![],
            unit: domain::Unit::Points,
        };
        assert!(
            matches!(e.boards().create_board(&periodic).await, Err(engine::EngineError::BoardExists(_))),
            "{}",
            ledger.name
        );
        let periodic =
            domain::Board { slug: BoardSlug::parse(unique("w").replace('_', "-")).unwrap(), ..periodic };
        e.boards().create_board(&periodic).await.unwrap();
        let clash = HotBoard { slug: periodic.slug.clone(), ..hot.clone() };
        assert!(
            matches!(e.hot().create_board(&clash).await, Err(engine::EngineError::BoardExists(_))),
            "{}",
            ledger.name
        );
        assert_eq!(e.ledger().hot_boards().await.unwrap().rows, [hot], "{}", ledger.name);
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn one_of_two_instances_takes_the_snapshots() {
    let ledger = TestLedger::sqlite().await;
    let projection = TestProjection::new(redis_targets().remove(0).1);
    let e1 = engine(&ledger, &projection).await;
    let e2 = Engine::from_parts(ledger.ledger.clone(), projection.projection.clone());
    let b = hot_board(&e1, HotSpec { snapshot_seconds: Some(1), ..spec(1, 30) }).await;
    e1.hot().hit(&b.slug, &hit("a")).await.unwrap();

    let (stop_tx, stop_rx) = tokio::sync::watch::channel(());
    let stopped = |mut rx: tokio::sync::watch::Receiver<()>| async move {
        let _ = rx.changed().await;
    };
    let jobs = [
        e1.hot().spawn_snapshots("one".into(), stopped(stop_rx.clone())),
        e2.hot().spawn_snapshots("two".into(), stopped(stop_rx)),
    ];
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while e1.hot().top(&b.slug, 10).await.unwrap().updated_at.is_none() {
        assert!(std::time::Instant::now() < deadline, "no snapshot was published");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    drop(stop_tx);
    for job in jobs {
        job.await.unwrap();
    }
    let published = |e: &Engine| {
        e.metrics().render().contains(&format!("laurel_hot_snapshots_total{{board=\"{}\"}}", b.slug))
    };
    assert!(published(&e1) != published(&e2), "exactly one instance published");
    let top = e2.hot().top(&b.slug, 10).await.unwrap();
    assert_eq!(top.entries.iter().map(|x| x.member.as_str()).collect::<Vec<_>>(), ["a"]);
    projection.cleanup().await;
    ledger.drop_db().await;
}

#[tokio::test]
async fn a_closed_bucket_is_read_once_until_its_size_changes() {
    each_redis(|e, mode| async move {
        let b = hot_board(&e, spec(60, 3)).await;
        let minute = 60_000;
        for m in ["a1", "a2", "a3"] {
            e.hot().hit_at(&b.slug, &hit(m), Some(T0)).await.unwrap();
        }
        for m in ["b1", "b2"] {
            e.hot().hit_at(&b.slug, &hit(m), Some(T0 + minute)).await.unwrap();
        }
        // Both buckets closed for 5 s; the live one is empty.
        let at = Some(T0 + 2 * minute + 5_000);
        let merge = || e.projection().hot_merge(&b.slug, &b.rules, 10, at);
        let first = merge().await.unwrap();
        assert_eq!((first.entries_read, first.entries_fetched, first.top.len()), (5, 5, 5), "{mode}");
        let second = merge().await.unwrap();
        assert_eq!((second.entries_read, second.entries_fetched), (5, 0), "{mode}: kept, not read again");
        assert_eq!(second.top, first.top, "{mode}");

        // A bucket whose size changed is read again.
        e.hot().hit_at(&b.slug, &valued("a4", 9.0), Some(T0)).await.unwrap();
        let third = merge().await.unwrap();
        assert_eq!((third.entries_read, third.entries_fetched), (6, 4), "{mode}");
        assert_eq!(third.top[0], ("a4".into(), 9.0), "{mode}");

        // A bucket that is gone is dropped.
        let mut conn = e.projection().conn().await.unwrap();
        let key = e.projection().keys().hot(&b.slug).bucket(T0 / minute + 1);
        redis::cmd("UNLINK").arg(&key).exec_async(&mut conn).await.unwrap();
        let fourth = merge().await.unwrap();
        assert_eq!(fourth.entries_read, 4, "{mode}");
        assert!(fourth.top.iter().all(|(m, _)| m.starts_with('a')), "{mode}: {:?}", fourth.top);
    })
    .await;
}
