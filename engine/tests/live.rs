//! Live boards on real stores, standalone Redis and Cluster: the first events, a write's ranking,
//! a freeze's state, coalescing of a burst (publishing and pushing), a subscriber that never
//! reads, and a write on one engine reaching a subscriber of another through sharded pub/sub.
//!
//! A top-2 subscriber is not woken by a change below it; a correction is pushed; many subscribers
//! make one subscription, and none is left after they go; 100 writes over a second are pushed and
//! published at most once per 250 ms; a subscriber that never reads is dropped with its queue
//! full while another keeps its stream; a write on one engine reaches three subscribers of
//! another within a second. Segments (standalone and Cluster × SQLite and PostgreSQL): a
//! `province:zj` subscriber gets zj's members ranked within zj, a zj write's new ranking and
//! nothing for a js write, beside a board subscriber on the same feed; a public freeze ends its
//! stream with no later ranking and refuses a new one (409); a feed follows at most
//! `MAX_FEED_SEGMENT_READS` segment rankings. Over sockets: `server/src/rest/stream_tests.rs`;
//! in the browser: `end2end/tests/live.spec.ts`; load: `scripts/bench-stream` (docs/BENCHMARKS.md).

mod common;

use common::{TestLedger, TestProjection, another_instance, engine, redis_targets, unique};
use domain::board::Prize;
use domain::live::{LiveRanking, LiveState};
use domain::write::{Change, Write};
use domain::{
    Board, BoardSlug, Cadence, EventId, MemberId, Operator, PeriodKey, ScoreCodec, State, TiePolicy,
};
use engine::Engine;
use engine::live::{LiveEvent, LiveSubscription, PUSH_INTERVAL, SUBSCRIBER_QUEUE};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn board(policy: TiePolicy) -> Board {
    Board {
        slug: BoardSlug::parse(unique("live").replace('_', "-").to_lowercase()).unwrap(),
        title: "live".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(policy, 0, 1_000_000, 100_000).unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: Vec::<Prize>::new(),
        unit: domain::Unit::Points,
    }
}

fn point(id: &str, member: &str, delta: i64) -> Write {
    Write {
        member: MemberId::parse(member).unwrap(),
        change: Change::Point { event_id: EventId::parse(id).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: Default::default(),
    }
}

/// The next event within `wait`, or None.
async fn next(sub: &mut LiveSubscription, wait: Duration) -> Option<Arc<LiveEvent>> {
    tokio::time::timeout(wait, sub.next()).await.ok().flatten()
}

fn ranking(event: &LiveEvent) -> LiveRanking {
    assert_eq!(event.kind, "ranking", "{event:?}");
    serde_json::from_str(&event.data).unwrap()
}

fn state(event: &LiveEvent) -> State {
    assert_eq!(event.kind, "state", "{event:?}");
    serde_json::from_str::<LiveState>(&event.data).unwrap().state
}

fn members(r: &LiveRanking) -> Vec<(u64, String, i64)> {
    r.entries.iter().map(|e| (e.rank, e.member.to_string(), e.points)).collect()
}

/// Waits for a ranking event whose members are `want` (rank, member, points), skipping others.
async fn ranking_becomes(
    sub: &mut LiveSubscription,
    want: &[(u64, &str, i64)],
    within: Duration,
) -> Duration {
    let started = Instant::now();
    let want: Vec<(u64, String, i64)> = want.iter().map(|(r, m, p)| (*r, m.to_string(), *p)).collect();
    loop {
        let left = within.saturating_sub(started.elapsed());
        let event = next(sub, left).await.unwrap_or_else(|| panic!("no ranking {want:?} within {within:?}"));
        if event.kind == "ranking" && members(&ranking(&event)) == want {
            return started.elapsed();
        }
    }
}

async fn setup(target: engine::redis::RedisTarget) -> (TestLedger, TestProjection, Engine, Board, PeriodKey) {
    let ledger = TestLedger::sqlite().await;
    let projection = TestProjection::new(target);
    let e = engine(&ledger, &projection).await;
    let b = board(TiePolicy::Shared);
    e.boards().create_board(&b).await.unwrap();
    let period = b.period_at(jiff::Timestamp::now());
    (ledger, projection, e, b, period)
}

#[tokio::test]
async fn a_subscriber_gets_the_ranking_then_each_change_and_the_state() {
    for (mode, target) in redis_targets() {
        let (ledger, projection, e, b, period) = setup(target).await;
        e.writes()
            .record(&b, &[point("a1", "ann", 30), point("b1", "bob", 20), point("c1", "cy", 20)])
            .await
            .unwrap();

        let mut sub = e
            .live()
            .subscribe(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(), 10)
            .await
            .unwrap();
        let first = next(&mut sub, Duration::from_secs(1)).await.expect("the state first");
        assert_eq!(state(&first), State::Open, "{mode}");
        let second = next(&mut sub, Duration::from_secs(1)).await.expect("then the ranking");
        let r = ranking(&second);
        assert!(second.id > first.id, "{mode}: ids increase");
        assert_eq!((r.board.clone(), r.period, r.limit), (b.slug.clone(), period, 10), "{mode}");
        // The public read's ranks and ties (shared: 1, 2, 2).
        assert_eq!(
            members(&r),
            [(1, "ann".into(), 30), (2, "cy".into(), 20), (2, "bob".into(), 20)],
            "{mode}"
        );
        assert!(r.entries[1].tied && !r.entries[0].tied, "{mode}");
        let page = e
            .reads()
            .ranking_page(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(), 0, 10)
            .await
            .unwrap();
        assert_eq!(r.entries, page.entries, "{mode}: exactly what the public read answers");
        assert!(next(&mut sub, Duration::from_millis(600)).await.is_none(), "{mode}: nothing changed");

        // A write: the new order, once.
        e.writes().record(&b, &[point("b2", "bob", 15)]).await.unwrap();
        let took = ranking_becomes(
            &mut sub,
            &[(1, "bob", 35), (2, "ann", 30), (3, "cy", 20)],
            Duration::from_secs(1),
        )
        .await;
        assert!(took < Duration::from_secs(1), "{mode}: {took:?}");
        assert!(next(&mut sub, Duration::from_millis(600)).await.is_none(), "{mode}: one push per change");

        // A write below the top 2 changes nothing a top-2 subscriber sees.
        let mut top2 = e
            .live()
            .subscribe(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(), 2)
            .await
            .unwrap();
        assert_eq!(state(&next(&mut top2, Duration::from_secs(1)).await.unwrap()), State::Open);
        ranking(&next(&mut top2, Duration::from_secs(1)).await.unwrap());
        e.writes().record(&b, &[point("c2", "cy", 1)]).await.unwrap();
        ranking_becomes(&mut sub, &[(1, "bob", 35), (2, "ann", 30), (3, "cy", 21)], Duration::from_secs(1))
            .await;
        assert!(next(&mut top2, Duration::from_millis(600)).await.is_none(), "{mode}: top 2 unchanged");

        // A freeze: a state event (the ranking did not move, so no ranking event).
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                domain::Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        let event = next(&mut sub, Duration::from_secs(1)).await.expect("a state event within 1 s");
        assert_eq!(state(&event), State::Frozen, "{mode}");
        assert_eq!(state(&next(&mut top2, Duration::from_secs(1)).await.unwrap()), State::Frozen);
        assert!(next(&mut sub, Duration::from_millis(600)).await.is_none(), "{mode}");

        // A correction while frozen moves the ranking.
        let correction = engine::lifecycle::Correction {
            member: MemberId::parse("cy").unwrap(),
            delta: 100,
            correction_id: None,
            reason: "bonus".into(),
        };
        e.lifecycle()
            .correct(
                &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                &correction,
                "admin",
            )
            .await
            .unwrap();
        ranking_becomes(&mut sub, &[(1, "cy", 121), (2, "bob", 35), (3, "ann", 30)], Duration::from_secs(1))
            .await;

        // One feed and one subscription for both subscribers; none once they left.
        let stats = e.live().stats();
        assert_eq!((stats.feeds, stats.subscribers, stats.subscribed), (1, 2, 1), "{mode}: {stats:?}");
        drop((sub, top2));
        wait_for(|| {
            let s = e.live().stats();
            (s.feeds, s.subscribers, s.subscribed) == (0, 0, 0)
        })
        .await
        .unwrap_or_else(|| {
            panic!("{mode}: the feed stays after its subscribers left: {:?}", e.live().stats())
        });
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

/// Polls `done` for up to 3 s.
async fn wait_for(done: impl Fn() -> bool) -> Option<()> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(3) {
        if done() {
            return Some(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

#[tokio::test]
async fn a_burst_of_writes_is_published_and_pushed_at_most_once_per_interval() {
    for (mode, target) in redis_targets() {
        let (ledger, projection, e, b, period) = setup(target).await;
        e.writes().record(&b, &[point("seed", "u0", 1)]).await.unwrap();
        let mut sub = e
            .live()
            .subscribe(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(), 10)
            .await
            .unwrap();
        next(&mut sub, Duration::from_secs(1)).await.unwrap();
        next(&mut sub, Duration::from_secs(1)).await.unwrap();
        let before = e.live().stats();

        // 100 writes over about a second, each putting a new member on top.
        let started = Instant::now();
        for i in 1..=100 {
            e.writes().record(&b, &[point(&format!("e{i}"), &format!("u{i}"), 10 * i)]).await.unwrap();
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let writing = started.elapsed();
        let mut pushes = Vec::new();
        while let Some(event) = next(&mut sub, Duration::from_secs(1)).await {
            pushes.push((started.elapsed(), ranking(&event)));
        }
        let (last_at, last) = pushes.last().expect("at least one push").clone();
        assert_eq!(last.entries[0].member.as_str(), "u100", "{mode}: the last push has the last write");
        // Pushes are PUSH_INTERVAL apart at least: from the first write to the last push.
        let allowed = 1 + (last_at.as_millis() / PUSH_INTERVAL.as_millis()) as usize;
        assert!(
            pushes.len() >= 2 && pushes.len() <= allowed,
            "{mode}: {} pushes for {} writes in {writing:?} (last push at {last_at:?}), at most {allowed}",
            pushes.len(),
            100
        );
        // Publishes too: from the first write to the end of the interval after the last.
        let published = (e.live().stats().publishes - before.publishes) as u128;
        let allowed = 1 + (writing + PUSH_INTERVAL).as_millis() / PUSH_INTERVAL.as_millis();
        assert!(published >= 1 && published <= allowed, "{mode}: {published} publishes, at most {allowed}");
        eprintln!("{mode}: 100 writes in {writing:?}: {} pushes, {published} publishes", pushes.len());
        drop(sub);
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn a_subscriber_that_never_reads_is_dropped_and_the_others_keep_their_stream() {
    for (mode, target) in redis_targets() {
        let (ledger, projection, e, b, period) = setup(target).await;
        let key = period.to_string();
        let mut stalled =
            e.live().subscribe(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), 10).await.unwrap();
        let mut reader =
            e.live().subscribe(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), 10).await.unwrap();
        let read = tokio::spawn(async move {
            let mut n = 0;
            while let Some(event) = next(&mut reader, Duration::from_secs(2)).await {
                n += 1;
                if event.kind == "ranking"
                    && ranking(&event).entries.first().is_some_and(|e| e.points == 1000)
                {
                    return (n, reader);
                }
            }
            panic!("the reading subscriber lost its stream after {n} events");
        });
        // More changes than the stalled queue holds, each in an interval of its own.
        let rounds = SUBSCRIBER_QUEUE as i64 + 4;
        for i in 1..=rounds {
            let points = if i == rounds { 1000 } else { i };
            e.writes().record(&b, &[point(&format!("e{i}"), &format!("u{i}"), points)]).await.unwrap();
            tokio::time::sleep(PUSH_INTERVAL + Duration::from_millis(30)).await;
        }
        let (got, reader) = read.await.unwrap();
        assert!(got as i64 >= rounds, "{mode}: the reader got {got} events");
        let stats = e.live().stats();
        assert_eq!((stats.subscribers, stats.dropped), (1, 1), "{mode}: {stats:?}");
        // What the stalled one holds is bounded by its queue, then its stream ends.
        assert!(stalled.queued() <= SUBSCRIBER_QUEUE, "{mode}: {}", stalled.queued());
        let mut left = 0;
        while next(&mut stalled, Duration::from_millis(100)).await.is_some() {
            left += 1;
        }
        assert_eq!(left, SUBSCRIBER_QUEUE, "{mode}: a full queue, then the end");
        assert!(stalled.next().await.is_none(), "{mode}: ended");
        drop((reader, stalled));
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn a_write_on_one_engine_reaches_the_subscribers_of_another_through_redis() {
    for (mode, target) in redis_targets() {
        let ledger = TestLedger::postgres().await;
        let projection = TestProjection::new(target.clone());
        let a = engine(&ledger, &projection).await;
        // Another process: its own Redis connections and streams, the same ledger and prefix.
        let b_engine = another_instance(&ledger, &projection);
        let b = board(TiePolicy::FirstReached);
        a.boards().create_board(&b).await.unwrap();
        let key = b.period_at(jiff::Timestamp::now()).to_string();
        let mut subs = Vec::new();
        for _ in 0..3 {
            let mut sub = b_engine
                .live()
                .subscribe(&b_engine.reads().scope(&b.slug, Some(&key)).await.unwrap(), 5)
                .await
                .unwrap();
            assert_eq!(state(&next(&mut sub, Duration::from_secs(1)).await.unwrap()), State::Open);
            assert!(ranking(&next(&mut sub, Duration::from_secs(1)).await.unwrap()).entries.is_empty());
            subs.push(sub);
        }
        wait_for(|| b_engine.live().stats().subscribed == 1).await.expect("subscribed");
        assert_eq!(b_engine.live().stats().feeds, 1, "{mode}: one subscription for three subscribers");

        for (i, delay) in [(1, 0), (2, 700)] {
            tokio::time::sleep(Duration::from_millis(delay)).await;
            let started = Instant::now();
            a.writes().record(&b, &[point(&format!("w{i}"), "ann", 5)]).await.unwrap();
            for sub in &mut subs {
                ranking_becomes(sub, &[(1, "ann", 5 * i)], Duration::from_secs(1)).await;
            }
            let took = started.elapsed();
            assert!(took < Duration::from_secs(1), "{mode}: {took:?}");
            eprintln!("{mode}: a write on A reached 3 subscribers on B in {took:?}");
        }
        // A freeze on A: B's subscribers see it (B's state cache is a second old at most).
        a.lifecycle()
            .transition(
                &a.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                domain::Transition::Freeze,
                "admin",
                None,
            )
            .await
            .unwrap();
        for sub in &mut subs {
            let event = next(sub, Duration::from_secs(1)).await.expect("a state event");
            assert_eq!(state(&event), State::Frozen, "{mode}");
        }
        drop(subs);
        wait_for(|| b_engine.live().stats().subscribed == 0).await.expect("unsubscribed when the last left");
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn a_public_freeze_stops_public_pushes_until_each_reveal_step() {
    for (mode, target) in redis_targets() {
        let (ledger, projection, e, b, period) = setup(target).await;
        let p = period.to_string();
        e.writes().record(&b, &[point("a1", "ann", 30), point("b1", "bob", 20)]).await.unwrap();
        let mut sub =
            e.live().subscribe(&e.reads().scope(&b.slug, Some(&p)).await.unwrap(), 10).await.unwrap();
        assert_eq!(state(&next(&mut sub, Duration::from_secs(1)).await.unwrap()), State::Open);
        let open = ranking(&next(&mut sub, Duration::from_secs(1)).await.unwrap());
        assert_eq!(open.frozen_at, None);

        e.lifecycle()
            .public_freeze(&e.reads().scope(&b.slug, Some(&p)).await.unwrap(), "admin:ann", None)
            .await
            .unwrap();
        // The freeze itself is pushed, with the same rows, so a page can show its banner.
        let frozen = ranking(&next(&mut sub, Duration::from_secs(1)).await.expect("the freeze is pushed"));
        assert!(frozen.frozen_at.is_some(), "{mode}: {frozen:?}");
        assert_eq!(
            (frozen.entries, frozen.total),
            (open.entries, open.total),
            "{mode}: the rows of the freeze"
        );
        e.writes().record(&b, &[point("b2", "bob", 50), point("c1", "cy", 5)]).await.unwrap();
        assert!(
            next(&mut sub, Duration::from_millis(800)).await.is_none(),
            "{mode}: no push while the public sees the frozen standings"
        );

        // Each reveal step is pushed, one member a step from the bottom: first cy (not on the
        // frozen board), then bob; the step after the last ends the freeze, and says so.
        e.lifecycle()
            .reveal(
                &e.reads().scope(&b.slug, Some(&p)).await.unwrap(),
                engine::lifecycle::public::RevealMode::Next,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let step = e
            .lifecycle()
            .reveal(
                &e.reads().scope(&b.slug, Some(&p)).await.unwrap(),
                engine::lifecycle::public::RevealMode::Next,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        assert!(step.changed, "{mode}: {step:?}");
        ranking_becomes(&mut sub, &[(1, "bob", 70), (2, "ann", 30), (3, "cy", 5)], Duration::from_secs(1))
            .await;
        let last = e
            .lifecycle()
            .reveal(
                &e.reads().scope(&b.slug, Some(&p)).await.unwrap(),
                engine::lifecycle::public::RevealMode::Next,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        assert_eq!(last.frozen_at, None, "{mode}: {last:?}");
        let revealed = ranking(&next(&mut sub, Duration::from_secs(1)).await.expect("the end is pushed"));
        assert_eq!((revealed.frozen_at, revealed.total), (None, 3), "{mode}: live again, no row moved");
        drop(sub);
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

/// A board with a `province` dimension: zj holds u1 50 and u2 30, js u3 40 and u4 20.
async fn segment_setup(e: &Engine) -> (Board, String) {
    let mut b = board(TiePolicy::Shared);
    b.segments = vec!["province".into()];
    e.boards().create_board(&b).await.unwrap();
    let province = |id: &str, member: &str, delta, value: &str| Write {
        segments: [("province".to_string(), value.to_string())].into_iter().collect(),
        ..point(id, member, delta)
    };
    let writes =
        [province("a1", "u1", 50, "zj"), province("b1", "u2", 30, "zj"), province("c1", "u3", 40, "js")];
    let out = e.writes().record(&b, &writes).await.unwrap();
    let out2 = e.writes().record(&b, &[province("d1", "u4", 20, "js")]).await.unwrap();
    assert!(out.iter().chain(&out2).all(|r| r.projected), "{out:?} {out2:?}");
    let key = b.period_at(jiff::Timestamp::now()).to_string();
    (b, key)
}

async fn segment_scope(e: &Engine, b: &Board, key: &str, segment: &str) -> engine::scope::Scope {
    e.reads().scope(&b.slug, Some(key)).await.unwrap().in_segment(Some(segment)).unwrap()
}

/// Every store (standalone and Cluster, SQLite and PostgreSQL).
async fn each_store(test: impl AsyncFn(&str, &Engine)) {
    for (redis, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            test(&format!("{}/{redis}", t.name), &e).await;
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

#[tokio::test]
async fn a_segment_subscriber_follows_its_segment_only() {
    each_store(async |mode, e| {
        let (b, key) = segment_setup(e).await;
        let zj_scope = segment_scope(e, &b, &key, "province:zj").await;
        let mut zj = e.live().subscribe(&zj_scope, 10).await.unwrap();
        assert_eq!(state(&next(&mut zj, Duration::from_secs(1)).await.unwrap()), State::Open, "{mode}");
        let first = ranking(&next(&mut zj, Duration::from_secs(1)).await.unwrap());
        // Only zj's members, ranked within zj, and what the segment's public read answers.
        assert_eq!(members(&first), [(1, "u1".into(), 50), (2, "u2".into(), 30)], "{mode}");
        assert_eq!((first.total, first.limit, first.frozen_at), (2, 10, None), "{mode}");
        let page = e.reads().ranking_page(&zj_scope, 0, 10).await.unwrap();
        assert_eq!(first.entries, page.entries, "{mode}");
        // A board subscriber on the same feed.
        let mut all =
            e.live().subscribe(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), 10).await.unwrap();
        next(&mut all, Duration::from_secs(1)).await.unwrap();
        assert_eq!(ranking(&next(&mut all, Duration::from_secs(1)).await.unwrap()).total, 4, "{mode}");
        let stats = e.live().stats();
        assert_eq!((stats.feeds, stats.subscribers), (1, 2), "{mode}: one feed for both: {stats:?}");

        // A zj member's event: a new zj ranking (a write without segments keeps its province).
        e.writes().record(&b, &[point("b2", "u2", 30)]).await.unwrap();
        ranking_becomes(&mut zj, &[(1, "u2", 60), (2, "u1", 50)], Duration::from_secs(1)).await;
        ranking_becomes(
            &mut all,
            &[(1, "u2", 60), (2, "u1", 50), (3, "u3", 40), (4, "u4", 20)],
            Duration::from_secs(1),
        )
        .await;
        assert!(next(&mut zj, Duration::from_millis(400)).await.is_none(), "{mode}: one push");

        // A js member's event moves the board, not what the zj subscriber is shown.
        e.writes().record(&b, &[point("c2", "u3", 100)]).await.unwrap();
        ranking_becomes(
            &mut all,
            &[(1, "u3", 140), (2, "u2", 60), (3, "u1", 50), (4, "u4", 20)],
            Duration::from_secs(1),
        )
        .await;
        assert!(
            next(&mut zj, Duration::from_millis(600)).await.is_none(),
            "{mode}: zj is unchanged, so nothing is pushed to it"
        );
        // A js subscriber joins the same feed and gets js only.
        let mut js = e.live().subscribe(&segment_scope(e, &b, &key, "province:js").await, 10).await.unwrap();
        next(&mut js, Duration::from_secs(1)).await.unwrap();
        let js_first = ranking(&next(&mut js, Duration::from_secs(1)).await.unwrap());
        assert_eq!(members(&js_first), [(1, "u3".into(), 140), (2, "u4".into(), 20)], "{mode}");
        assert_eq!(e.live().stats().feeds, 1, "{mode}");

        drop((zj, all, js));
        wait_for(|| e.live().stats().feeds == 0).await.expect("the feed retires");
    })
    .await;
}

#[tokio::test]
async fn a_public_freeze_ends_a_segment_stream_without_a_later_ranking() {
    each_store(async |mode, e| {
        let (b, key) = segment_setup(e).await;
        let period_scope = e.reads().scope(&b.slug, Some(&key)).await.unwrap();
        let mut zj = e.live().subscribe(&segment_scope(e, &b, &key, "province:zj").await, 10).await.unwrap();
        let mut all = e.live().subscribe(&period_scope, 10).await.unwrap();
        for sub in [&mut zj, &mut all] {
            assert_eq!(state(&next(sub, Duration::from_secs(1)).await.unwrap()), State::Open, "{mode}");
            ranking(&next(sub, Duration::from_secs(1)).await.unwrap());
        }
        e.lifecycle().public_freeze(&period_scope, "admin:ann", None).await.unwrap();
        // A write for a zj member right after: what the freeze hides.
        e.writes().record(&b, &[point("a2", "u1", 100)]).await.unwrap();

        // The board subscriber gets the freeze (the same rows, with `frozen_at`).
        let frozen = ranking(&next(&mut all, Duration::from_secs(1)).await.expect("the freeze is pushed"));
        assert!(frozen.frozen_at.is_some(), "{mode}: {frozen:?}");
        assert_eq!(frozen.entries[0].points, 50, "{mode}: the frozen view");
        // The segment subscriber: no ranking at all, then the end of its stream.
        let started = Instant::now();
        loop {
            let left = Duration::from_secs(2).saturating_sub(started.elapsed());
            match tokio::time::timeout(left, zj.next()).await {
                Ok(None) => break,
                Ok(Some(event)) => {
                    assert_eq!(event.kind, "state", "{mode}: no ranking after the freeze: {event:?}")
                }
                Err(_) => panic!("{mode}: the segment stream did not end within 2 s"),
            }
        }
        let stats = e.live().stats();
        assert_eq!((stats.subscribers, stats.closed_by_freeze), (1, 1), "{mode}: {stats:?}");

        // A new segment subscriber is refused, as the segment's other public reads.
        let refused = e.live().subscribe(&segment_scope(e, &b, &key, "province:zj").await, 10).await;
        assert!(
            matches!(
                refused,
                Err(engine::EngineError::Refused { code: domain::ErrorCode::SegmentFrozen, .. })
            ),
            "{mode}: {:?}",
            refused.err()
        );
        // The board subscriber still has its stream (no push while frozen).
        assert!(next(&mut all, Duration::from_millis(600)).await.is_none(), "{mode}");
        assert_eq!(e.live().stats().subscribers, 1, "{mode}");
        drop(all);
        wait_for(|| e.live().stats().feeds == 0).await.expect("the feed retires");
    })
    .await;
}

#[tokio::test]
async fn a_feed_follows_a_bounded_number_of_segment_rankings() {
    use engine::live::MAX_FEED_SEGMENT_READS;
    let (mode, target) = redis_targets().into_iter().next().unwrap();
    let ledger = TestLedger::sqlite().await;
    let projection = TestProjection::new(target);
    let e = engine(&ledger, &projection).await;
    let (b, key) = segment_setup(&e).await;
    let mut subs = Vec::new();
    for i in 0..MAX_FEED_SEGMENT_READS {
        let scope = segment_scope(&e, &b, &key, &format!("province:p{i}")).await;
        subs.push(e.live().subscribe(&scope, 10).await.unwrap());
    }
    let full = e.live().subscribe(&segment_scope(&e, &b, &key, "province:zj").await, 10).await;
    assert!(
        matches!(full, Err(engine::EngineError::Refused { code: domain::ErrorCode::StreamsFull, .. })),
        "{mode}: {:?}",
        full.err()
    );
    // A ranking the feed reads already, and the board's, cost no new read: admitted.
    subs.push(e.live().subscribe(&segment_scope(&e, &b, &key, "province:p0").await, 10).await.unwrap());
    subs.push(e.live().subscribe(&e.reads().scope(&b.slug, Some(&key)).await.unwrap(), 10).await.unwrap());
    // One leaves: its place is free again.
    subs.swap_remove(1);
    e.live().subscribe(&segment_scope(&e, &b, &key, "province:zj").await, 10).await.unwrap();
    drop(subs);
    projection.cleanup().await;
    ledger.drop_db().await;
}
