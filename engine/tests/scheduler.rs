//! The lifecycle scheduler on real stores: periods freeze at exactly their end + grace (ISO week
//! 53, a DST week), a pass after downtime catches up and a repeated pass changes nothing,
//! settled periods archive and their keys expire, and among several processes exactly one leads.
//! Ledger tests run on SQLite and PostgreSQL; leader election runs on PostgreSQL, the backend for
//! several instances.
//!
//! 2026-W53 in Asia/Shanghai freezes exactly at end + grace (later writes are late); a 169-hour
//! DST week in America/New_York; catch-up after downtime (idempotent); auto-archive; a pass under
//! a lost lease changes nothing; two "processes" racing for the lease never hold it together
//! (tokens only rise); two schedulers freeze a due period once; a board's scheduled public freeze;
//! a settled period's keys get an expiry, are unlinked after its board's `ranking_ttl_days`, and
//! its reads then equal those before (standalone and Cluster).

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets, unique};
use domain::board::Prize;
use domain::lifecycle::State;
use domain::view::{AuditEntry, ReadSource};
use domain::write::{Change, Outcome, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, PeriodKey, ScoreCodec, TiePolicy};
use engine::Engine;
use engine::jobs::scheduler::{LEASE, PassReport, SchedulerConfig};
use engine::ledger::audit::AuditFilter;
use engine::ledger::{Lease, Ledger};
use engine::redis::ProjectedTotal;
use jiff::{SignedDuration, Timestamp};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

const GRACE: i64 = 60;

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn secs(n: i64) -> SignedDuration {
    SignedDuration::from_secs(n)
}

fn board(zone: &str, cadence: Cadence) -> Board {
    Board {
        slug: BoardSlug::parse(unique("sched").replace('_', "-").to_lowercase()).unwrap(),
        title: "scheduler test".into(),
        cadence,
        zone: jiff::tz::TimeZone::get(zone).unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, -1_000_000, 1_000_000, 1).unwrap(),
        freeze_grace_seconds: GRACE,
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

fn point(event: &str, member: &str, delta: i64, at: Timestamp) -> Write {
    Write {
        member: MemberId::parse(member).unwrap(),
        change: Change::Point { event_id: EventId::parse(event).unwrap(), delta },
        occurred_at: at,
        metadata: None,
        segments: Default::default(),
    }
}

/// Writes one event as the ledger would have received it at `at` (inside its period).
async fn write_at(e: &Engine, b: &Board, event: &str, member: &str, at: Timestamp) -> Outcome {
    let recorded = e.ledger().record(b, &[point(event, member, 5, at)], at).await.unwrap();
    recorded[0].outcome
}

fn config() -> SchedulerConfig {
    SchedulerConfig {
        holder: unique("holder"),
        tick: Duration::from_millis(50),
        lease_ttl: Duration::from_secs(2),
        archive_after: None,
    }
}

async fn state(e: &Engine, b: &Board, period: PeriodKey) -> State {
    e.ledger().state_of(&b.slug, &period).await.unwrap()
}

async fn audit_rows(e: &Engine, b: &Board, action: &str) -> Vec<AuditEntry> {
    let filter =
        AuditFilter { board: Some(b.slug.to_string()), action: Some(action.into()), ..Default::default() };
    e.lifecycle().audit(&filter, None, 500).await.unwrap()
}

async fn points(e: &Engine, b: &Board, period: PeriodKey) -> Vec<(String, i64)> {
    let mut totals: Vec<(String, i64)> = e
        .ledger()
        .totals(&b.slug, &period)
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.member.to_string(), t.points))
        .collect();
    totals.sort();
    totals
}

/// Runs `test` on an engine over SQLite and one over PostgreSQL (standalone Redis).
async fn each_ledger(test: impl AsyncFn(&str, &Engine)) {
    let (_, target) = redis_targets().remove(0);
    for t in TestLedger::both().await {
        let p = TestProjection::new(target.clone());
        let e = engine(&t, &p).await;
        test(t.name, &e).await;
        p.cleanup().await;
        t.drop_db().await;
    }
}

#[tokio::test]
async fn iso_week_53_freezes_exactly_at_its_end_plus_grace_and_later_writes_are_late() {
    each_ledger(async |ctx, e| {
        let b = board("Asia/Shanghai", Cadence::Weekly);
        e.boards().create_board(&b).await.unwrap();
        let w53 = PeriodKey::parse("2026-W53").unwrap();
        let end = w53.span(&b.zone).end;
        assert_eq!(end, ts("2027-01-04T00:00:00+08:00"));
        assert_eq!(end, ts("2027-01-03T16:00:00Z"));
        let inside = ts("2026-12-31T20:00:00+08:00");
        assert_eq!(b.period_at(inside), w53);
        assert_eq!(write_at(e, &b, "w53-1", "u1", inside).await, Outcome::Applied, "{ctx}");
        assert_eq!(write_at(e, &b, "w53-2", "u2", inside).await, Outcome::Applied, "{ctx}");
        let config = config();

        let closes_at = end + secs(GRACE);
        let early = e.jobs().scheduler_pass(&config, closes_at - secs(1)).await.unwrap();
        assert!(early.frozen.is_empty(), "{ctx}: {early:?}");
        assert_eq!(state(e, &b, w53).await, State::Open, "{ctx}");

        let due = e.jobs().scheduler_pass(&config, closes_at).await.unwrap();
        assert_eq!(due.frozen, vec![(b.slug.clone(), w53)], "{ctx}");
        assert_eq!(state(e, &b, w53).await, State::Frozen, "{ctx}");
        let rows = audit_rows(e, &b, "freeze").await;
        assert_eq!(rows.len(), 1, "{ctx}");
        assert_eq!(rows[0].actor, "scheduler");
        assert_eq!(rows[0].period.as_deref(), Some("2026-W53"));
        let reason = rows[0].reason.as_deref().unwrap();
        assert!(reason.contains("period ended at 2027-01-04T00:00:00+08:00"), "{ctx}: {reason}");
        assert!(reason.contains(&config.holder), "{ctx}: {reason}");

        let before = points(e, &b, w53).await;
        let late = e.writes().record(&b, &[point("w53-3", "u1", 100, inside)]).await.unwrap();
        assert_eq!(late[0].recorded.outcome, Outcome::Late, "{ctx}");
        assert_eq!(points(e, &b, w53).await, before, "{ctx}: the board must not change");
        assert_eq!(before, vec![("u1".into(), 5), ("u2".into(), 5)]);
        assert_eq!(e.ledger().late_entries(&b.slug, &w53, Some("pending")).await.unwrap().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_dst_week_of_169_hours_freezes_at_its_real_end() {
    each_ledger(async |ctx, e| {
        let b = board("America/New_York", Cadence::Weekly);
        e.boards().create_board(&b).await.unwrap();
        // Clocks go back on Sunday 2026-11-01: that ISO week is one hour longer.
        let week = b.period_at(ts("2026-10-30T12:00:00-04:00"));
        assert_eq!(week.to_string(), "2026-W44");
        let span = week.span(&b.zone);
        assert_eq!(span.end, ts("2026-11-02T00:00:00-05:00"));
        assert_eq!(span.end.duration_since(span.start), SignedDuration::from_hours(169));
        // A write in the repeated hour (the second 01:30 of Nov 1) still belongs to the week.
        let repeated_hour = ts("2026-11-01T01:30:00-05:00");
        assert_eq!(b.period_at(repeated_hour), week);
        assert_eq!(write_at(e, &b, "dst-1", "u1", repeated_hour).await, Outcome::Applied, "{ctx}");
        let config = config();

        // A week counted as 7 × 24 h would have ended an hour ago here.
        let naive = span.start + SignedDuration::from_hours(168) + secs(GRACE);
        assert!(e.jobs().scheduler_pass(&config, naive).await.unwrap().frozen.is_empty(), "{ctx}");
        let closes_at = span.end + secs(GRACE);
        assert!(
            e.jobs().scheduler_pass(&config, closes_at - secs(1)).await.unwrap().frozen.is_empty(),
            "{ctx}"
        );
        assert_eq!(state(e, &b, week).await, State::Open, "{ctx}");

        let due = e.jobs().scheduler_pass(&config, closes_at).await.unwrap();
        assert_eq!(due.frozen, vec![(b.slug.clone(), week)], "{ctx}");
        assert_eq!(state(e, &b, week).await, State::Frozen, "{ctx}");
    })
    .await;
}

#[tokio::test]
async fn one_pass_after_downtime_freezes_every_ended_period_and_a_repeat_changes_nothing() {
    each_ledger(async |ctx, e| {
        let b = board("UTC", Cadence::Weekly);
        e.boards().create_board(&b).await.unwrap();
        let ended: Vec<PeriodKey> =
            ["2026-W30", "2026-W31", "2026-W32"].iter().map(|p| PeriodKey::parse(p).unwrap()).collect();
        for (i, period) in ended.iter().enumerate() {
            let inside = period.span(&b.zone).start + SignedDuration::from_hours(30);
            assert_eq!(write_at(e, &b, &format!("past-{i}"), "u1", inside).await, Outcome::Applied, "{ctx}");
        }
        // The current period (as of the pass) has a write too and is not due.
        let now = ts("2026-10-01T12:00:00Z");
        let current = b.period_at(now);
        assert_eq!(
            write_at(e, &b, "current", "u1", now - SignedDuration::from_hours(1)).await,
            Outcome::Applied
        );
        let config = config();

        let first = e.jobs().scheduler_pass(&config, now).await.unwrap();
        let mut frozen: Vec<PeriodKey> = first.frozen.iter().map(|(_, p)| *p).collect();
        frozen.sort();
        assert_eq!(frozen, ended, "{ctx}");
        assert_eq!(first.failed, 0);
        for period in &ended {
            assert_eq!(state(e, &b, *period).await, State::Frozen, "{ctx} {period}");
        }
        assert_eq!(state(e, &b, current).await, State::Open, "{ctx}");

        let again = e.jobs().scheduler_pass(&config, now + SignedDuration::from_hours(1)).await.unwrap();
        assert_eq!(again, PassReport::default(), "{ctx}");
        let rows = audit_rows(e, &b, "freeze").await;
        assert_eq!(rows.len(), 3, "{ctx}: one audit row per period, not per pass");
        let mut audited: Vec<String> = rows.iter().filter_map(|r| r.period.clone()).collect();
        audited.sort();
        assert_eq!(audited, ["2026-W30", "2026-W31", "2026-W32"]);
    })
    .await;
}

/// Redis keys of `period` under this test's prefix, with their PTTL (-1: no expiry).
async fn key_ttls(p: &TestProjection, b: &Board, period: PeriodKey) -> Vec<(String, i64)> {
    let tag = format!("{{{}:{}}}", b.slug, period);
    let mut ttls = Vec::new();
    for (node, key) in p.keys().await.into_iter().filter(|(_, k)| k.contains(&tag)) {
        let mut conn =
            redis::Client::open(node.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut conn).await.unwrap();
        ttls.push((key, ttl));
    }
    ttls
}

/// Replaces the period's keys with the ledger's totals and no expiry (as if an archive's expiry
/// never reached Redis).
async fn project_without_expiry(e: &Engine, p: &TestProjection, b: &Board, period: PeriodKey) {
    for (node, key) in p.keys().await {
        let mut conn =
            redis::Client::open(node.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
        redis::cmd("UNLINK").arg(&key).exec_async(&mut conn).await.unwrap();
    }
    let totals: Vec<ProjectedTotal> = e
        .ledger()
        .totals(&b.slug, &period)
        .await
        .unwrap()
        .into_iter()
        .map(|t| ProjectedTotal {
            member: t.member,
            version: t.version,
            score: b.codec.encode(t.points, t.reach_seq).unwrap(),
            hidden: t.hidden,
        })
        .collect();
    e.projection().project_many(&b.slug, &period, &totals).await.unwrap();
}

#[tokio::test]
async fn settled_periods_archive_after_the_configured_time_and_their_keys_get_an_expiry() {
    let (_, target) = redis_targets().remove(0);
    for t in TestLedger::both().await {
        let p = TestProjection::new(target.clone());
        let e = engine(&t, &p).await;
        let ctx = t.name;
        let b = board("UTC", Cadence::Daily);
        e.boards().create_board(&b).await.unwrap();
        let day = PeriodKey::parse("2026-09-10").unwrap();
        let inside = ts("2026-09-10T08:00:00Z");
        assert_eq!(write_at(&e, &b, "d-1", "u1", inside).await, Outcome::Applied);
        project_without_expiry(&e, &p, &b, day).await;
        let mut config = config();
        config.archive_after = Some(Duration::from_secs(7 * 24 * 3600));

        let closes_at = day.span(&b.zone).end + secs(GRACE);
        assert_eq!(e.jobs().scheduler_pass(&config, closes_at).await.unwrap().frozen.len(), 1, "{ctx}");
        e.lifecycle().settle(&b, day, "admin").await.unwrap();
        let settled = e.ledger().periods_changed(State::Settled, None, Timestamp::MAX).await.unwrap();
        let settled_at = settled.rows.iter().find(|s| s.board == b.slug).unwrap().changed_at.unwrap();

        let archive_at = settled_at + SignedDuration::from_hours(7 * 24);
        let early = e.jobs().scheduler_pass(&config, archive_at - secs(1)).await.unwrap();
        assert!(early.archived.is_empty(), "{ctx}: {early:?}");
        assert_eq!(state(&e, &b, day).await, State::Settled);
        let due = e.jobs().scheduler_pass(&config, archive_at).await.unwrap();
        assert_eq!(due.archived, vec![(b.slug.clone(), day)], "{ctx}");
        assert_eq!(state(&e, &b, day).await, State::Archived);
        assert!(due.expiries >= 1, "{ctx}: {due:?}");
        let rows = audit_rows(&e, &b, "archive").await;
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].actor, "scheduler");
        let reason = rows[0].reason.as_deref().unwrap();
        assert!(reason.contains(&format!("settled at {settled_at}, archived 168h later")), "{reason}");

        // Redis was away when the period was archived: its keys have no expiry. The next pass
        // gives them one (every key is then either expiring or already gone).
        project_without_expiry(&e, &p, &b, day).await;
        let before = key_ttls(&p, &b, day).await;
        assert!(!before.is_empty() && before.iter().all(|(_, ttl)| *ttl == -1), "{ctx}: {before:?}");
        let healed = e.jobs().scheduler_pass(&config, archive_at + secs(5)).await.unwrap();
        assert!(healed.expiries >= 1 && healed.archived.is_empty(), "{ctx}: {healed:?}");
        let after = key_ttls(&p, &b, day).await;
        assert!(after.iter().all(|(_, ttl)| *ttl > 0), "{ctx}: {after:?}");

        p.cleanup().await;
        t.drop_db().await;
    }
}

#[tokio::test]
async fn a_lease_is_renewed_by_its_holder_and_taken_over_only_after_it_expires() {
    each_ledger(async |ctx, e| {
        let l = e.ledger();
        let name = unique("lease");
        let ttl = Duration::from_secs(10);
        let t0 = ts("2026-10-01T00:00:00Z");

        let first = l.acquire_lease(&name, "alpha", ttl, t0).await.unwrap().unwrap();
        assert_eq!(first, Lease { token: 1, expires_at: t0 + secs(10) }, "{ctx}");
        let renewed = l.acquire_lease(&name, "alpha", ttl, t0 + secs(5)).await.unwrap().unwrap();
        assert_eq!(
            renewed,
            Lease { token: 1, expires_at: t0 + secs(15) },
            "{ctx}: a renewal keeps the token"
        );
        let just_before = t0 + secs(15) - SignedDuration::from_micros(1);
        assert_eq!(l.acquire_lease(&name, "beta", ttl, just_before).await.unwrap(), None, "{ctx}");
        assert!(l.holds_lease(&name, "alpha", 1, just_before).await.unwrap());

        // alpha stopped renewing: at its expiry beta takes over with a higher token.
        let taken = l.acquire_lease(&name, "beta", ttl, t0 + secs(15)).await.unwrap().unwrap();
        assert_eq!(taken.token, 2, "{ctx}");
        assert_eq!(l.acquire_lease(&name, "alpha", ttl, t0 + secs(16)).await.unwrap(), None, "{ctx}");
        assert!(!l.holds_lease(&name, "alpha", 1, t0 + secs(16)).await.unwrap());
        assert!(l.holds_lease(&name, "beta", 2, t0 + secs(16)).await.unwrap());

        // A release frees it at once; the next holder's token still rises.
        assert!(l.release_lease(&name, "beta").await.unwrap());
        assert!(!l.release_lease(&name, "alpha").await.unwrap(), "only the holder releases");
        let back = l.acquire_lease(&name, "alpha", ttl, t0 + secs(17)).await.unwrap().unwrap();
        assert_eq!(back.token, 3, "{ctx}");
        let row = l.lease(&name).await.unwrap().unwrap();
        assert_eq!((row.holder.as_str(), row.token), ("alpha", 3));
    })
    .await;
}

#[tokio::test]
async fn a_pass_under_a_lost_lease_changes_nothing() {
    each_ledger(async |ctx, e| {
        let b = board("UTC", Cadence::Weekly);
        e.boards().create_board(&b).await.unwrap();
        let period = PeriodKey::parse("2026-W30").unwrap();
        write_at(e, &b, "fenced", "u1", period.span(&b.zone).start + secs(3600)).await;
        let (stale, current) = (config(), config());
        let t0 = ts("2026-10-01T00:00:00Z");
        let hour = Duration::from_secs(3600);
        let old = e.ledger().acquire_lease(LEASE, &stale.holder, hour, t0).await.unwrap().unwrap();
        let new =
            e.ledger().acquire_lease(LEASE, &current.holder, hour, t0 + secs(3600)).await.unwrap().unwrap();
        assert!(new.token > old.token);

        let fenced = e.jobs().fenced_scheduler_pass(&stale, old.token, t0 + secs(3600)).await.unwrap();
        assert!(fenced.fenced_out && fenced.frozen.is_empty(), "{ctx}: {fenced:?}");
        assert_eq!(state(e, &b, period).await, State::Open, "{ctx}");

        let leader = e.jobs().fenced_scheduler_pass(&current, new.token, t0 + secs(3600)).await.unwrap();
        assert_eq!(leader.frozen, vec![(b.slug.clone(), period)], "{ctx}");
        assert!(!leader.fenced_out);
    })
    .await;
}

/// One PostgreSQL database that several "processes" (each its own `Ledger` pool) connect to.
struct SharedPostgres {
    admin_url: String,
    db: String,
    url: String,
}

impl SharedPostgres {
    async fn create() -> Self {
        let admin_url = std::env::var("LAUREL_TEST_POSTGRES_URL")
            .expect("LAUREL_TEST_POSTGRES_URL is not set: run the test suite with scripts/test");
        let db = unique("laurel_sched");
        admin(&admin_url, &format!("CREATE DATABASE {db}")).await;
        let (base, _) = admin_url.rsplit_once('/').expect("a postgres url ends in /<database>");
        let url = format!("{base}/{db}");
        let first = Ledger::connect(&url).await.unwrap();
        first.migrate().await.unwrap();
        first.close().await;
        Self { admin_url, db, url }
    }

    async fn process(&self) -> Ledger {
        Ledger::connect(&self.url).await.unwrap()
    }

    async fn drop_db(self, ledgers: &[&Ledger]) {
        for l in ledgers {
            l.close().await;
        }
        admin(&self.admin_url, &format!("DROP DATABASE {} WITH (FORCE)", self.db)).await;
    }
}

async fn admin(url: &str, sql: &str) {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    sqlx::query(sql).execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
}

/// One successful take or renewal: `holder` held the lease over [from, until).
#[derive(Debug, Clone)]
struct Grant {
    holder: &'static str,
    token: i64,
    from: Timestamp,
    until: Timestamp,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_racing_for_the_lease_never_hold_it_together() {
    let pg = SharedPostgres::create().await;
    let (one, two) = (pg.process().await, pg.process().await);
    let name = unique("lease");
    // A shared clock that moves 1 ms per call; a TTL of 20 calls. Each process stalls now and
    // then (its time passes without a renewal), so the lease changes hands.
    let clock = Arc::new(AtomicI64::new(ts("2026-10-01T00:00:00Z").as_microsecond()));
    let ttl = Duration::from_millis(20);
    let race = |ledger: Ledger, holder: &'static str, stall_from: usize| {
        let (clock, name) = (clock.clone(), name.clone());
        tokio::spawn(async move {
            let mut grants = Vec::new();
            for i in 0..400 {
                let now = Timestamp::from_microsecond(clock.fetch_add(1000, Ordering::SeqCst)).unwrap();
                if (i + stall_from) % 100 < 30 {
                    tokio::task::yield_now().await;
                    continue;
                }
                if let Some(lease) = ledger.acquire_lease(&name, holder, ttl, now).await.unwrap() {
                    grants.push(Grant { holder, token: lease.token, from: now, until: lease.expires_at });
                }
            }
            grants
        })
    };
    let (a, b) = (race(one.clone(), "alpha", 0), race(two.clone(), "beta", 50));
    let mut grants = a.await.unwrap();
    grants.extend(b.await.unwrap());

    for g in &grants {
        for h in grants.iter().filter(|h| h.holder != g.holder) {
            assert!(g.until <= h.from || h.until <= g.from, "held together: {g:?} and {h:?}");
            assert_ne!(g.token, h.token, "one token names one holder's term: {g:?} {h:?}");
        }
    }
    grants.sort_by_key(|g| g.from);
    let mut changes = 0;
    for pair in grants.windows(2) {
        assert!(pair[1].token >= pair[0].token, "tokens never go back: {pair:?}");
        if pair[1].holder != pair[0].holder {
            changes += 1;
            assert!(pair[1].token > pair[0].token, "a new holder has a higher token: {pair:?}");
        }
    }
    let last = grants.last().unwrap();
    let row = one.lease(&name).await.unwrap().unwrap();
    assert_eq!((row.holder.as_str(), row.token), (last.holder, last.token));
    eprintln!("{} grants, {changes} changes of holder", grants.len());

    pg.drop_db(&[&one, &two]).await;
}

/// Polls `check` until it holds (a liveness bound, not a timing assertion).
async fn eventually<F: Future<Output = bool>>(what: &str, mut check: impl FnMut() -> F) {
    for _ in 0..1200 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for {what}");
}

/// Waits until `holder` has renewed the lease `times` more times (so it ran as many passes).
async fn renewed(ledger: &Ledger, holder: &str, times: usize) {
    let (mut seen, mut count) = (None, 0);
    for _ in 0..1200 {
        let row = ledger.lease(LEASE).await.unwrap().unwrap();
        if row.holder == holder && Some(row.expires_at) != seen {
            seen = Some(row.expires_at);
            count += 1;
            if count > times {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for {holder} to renew the lease");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_schedulers_on_one_ledger_freeze_a_due_period_exactly_once() {
    let pg = SharedPostgres::create().await;
    let (one, two) = (pg.process().await, pg.process().await);
    let (_, target) = redis_targets().remove(0);
    let p = TestProjection::new(target);
    let (ea, eb) = (
        Engine::from_parts(one.clone(), p.projection.clone()),
        Engine::from_parts(two.clone(), p.projection.clone()),
    );
    let b = board("Asia/Shanghai", Cadence::Weekly);
    ea.boards().create_board(&b).await.unwrap();
    let period = PeriodKey::parse("2026-W40").unwrap();
    write_at(&ea, &b, "due", "u1", period.span(&b.zone).start + secs(3600)).await;

    let (ca, cb) = (config(), config());
    let (stop_a, stopped_a) = tokio::sync::oneshot::channel::<()>();
    let (stop_b, stopped_b) = tokio::sync::oneshot::channel::<()>();
    let mut running = vec![
        (
            ca.holder.clone(),
            stop_a,
            ea.jobs().spawn_scheduler(ca.clone(), async move {
                let _ = stopped_a.await;
            }),
        ),
        (
            cb.holder.clone(),
            stop_b,
            eb.jobs().spawn_scheduler(cb.clone(), async move {
                let _ = stopped_b.await;
            }),
        ),
    ];

    eventually("the period to freeze", || async { state(&ea, &b, period).await == State::Frozen }).await;
    let first = one.lease(LEASE).await.unwrap().unwrap();
    renewed(&one, &first.holder, 3).await;

    // The leader shuts down (releasing the lease); the other takes over and runs passes too.
    let at = running.iter().position(|(h, _, _)| *h == first.holder).unwrap();
    let (_, stop, handle) = running.remove(at);
    stop.send(()).unwrap();
    handle.await.unwrap();
    let (other, stop, handle) = running.remove(0);
    eventually("the other process to take over", || async {
        let row = one.lease(LEASE).await.unwrap().unwrap();
        row.holder == other && row.token > first.token
    })
    .await;
    renewed(&two, &other, 3).await;
    stop.send(()).unwrap();
    handle.await.unwrap();

    let rows = audit_rows(&ea, &b, "freeze").await;
    assert_eq!(rows.len(), 1, "exactly one freeze: {rows:?}");
    assert_eq!(rows[0].actor, "scheduler");
    let reason = rows[0].reason.clone().unwrap();
    let by = [&ca.holder, &cb.holder].into_iter().filter(|h| reason.contains(h.as_str())).count();
    assert_eq!(by, 1, "frozen by one holder: {reason}");
    let released = one.lease(LEASE).await.unwrap().unwrap();
    assert!(released.expires_at <= Timestamp::now(), "released on shutdown: {released:?}");

    p.cleanup().await;
    pg.drop_db(&[&one, &two]).await;
}

#[tokio::test]
async fn a_board_with_public_freeze_seconds_is_publicly_frozen_once_for_its_last_hour() {
    each_ledger(async |ctx, e| {
        let b = Board { public_freeze_seconds: 3600, ..board("Asia/Shanghai", Cadence::Weekly) };
        e.boards().create_board(&b).await.unwrap();
        let w53 = PeriodKey::parse("2026-W53").unwrap();
        let end = w53.span(&b.zone).end;
        let inside = ts("2026-12-31T20:00:00+08:00");
        let first = e.writes().record(&b, &[point("pf-1", "u1", 5, inside)]).await.unwrap();
        assert!(first[0].projected, "{ctx}");
        let config = config();
        let p = Some("2026-W53");

        let early = e.jobs().scheduler_pass(&config, end - secs(3601)).await.unwrap();
        assert!(early.publicly_frozen.is_empty(), "{ctx}: {early:?}");
        assert_eq!(
            e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap().frozen_at,
            None,
            "{ctx}"
        );

        let due = e.jobs().scheduler_pass(&config, end - secs(3600)).await.unwrap();
        assert_eq!(due.publicly_frozen, vec![(b.slug.clone(), w53)], "{ctx}");
        assert_eq!(state(e, &b, w53).await, State::Open, "{ctx}: writes still count");
        let after = e.writes().record(&b, &[point("pf-2", "u2", 50, inside)]).await.unwrap();
        assert_eq!(after[0].recorded.outcome, Outcome::Applied, "{ctx}");
        let public = e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap();
        assert_eq!(public.frozen_at, Some(end - secs(3600)), "{ctx}");
        assert_eq!(public.entries.iter().map(|en| en.member.as_str()).collect::<Vec<_>>(), ["u1"], "{ctx}");

        // Later passes change nothing, and a revealed period is not frozen again.
        assert!(e.jobs().scheduler_pass(&config, end - secs(60)).await.unwrap().publicly_frozen.is_empty());
        e.lifecycle()
            .reveal(
                &e.reads().scope(&b.slug, Some("2026-W53")).await.unwrap(),
                engine::lifecycle::public::RevealMode::All,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        assert!(e.jobs().scheduler_pass(&config, end - secs(30)).await.unwrap().publicly_frozen.is_empty());
        assert_eq!(
            e.reads().top(&e.reads().scope(&b.slug, p).await.unwrap(), 10).await.unwrap().total,
            2,
            "{ctx}: revealed"
        );
        let rows = audit_rows(e, &b, "public_freeze").await;
        assert_eq!((rows.len(), rows[0].actor.as_str()), (1, "scheduler"), "{ctx}");
    })
    .await;
}

/// Every read of a settled period the public can make, without where it came from.
async fn settled_reads(e: &Engine, b: &Board, day: PeriodKey) -> String {
    let scope = e.reads().scope_of(&b.slug, day).await.unwrap();
    let mut page = e.reads().ranking_page(&scope, 0, 50).await.unwrap();
    page.source = Default::default();
    let mut tail = e.reads().ranking_page(&scope, 2, 2).await.unwrap();
    tail.source = Default::default();
    let cursor = e.reads().entries_after(&scope, None, 2).await.unwrap();
    let next = e.reads().entries_after(&scope, cursor.next_cursor.as_deref(), 50).await.unwrap().page.entries;
    let member = MemberId::parse("u3").unwrap();
    let rank = e.reads().member_rank(&scope, &member).await.unwrap();
    let mut around = e.reads().around(&scope, &member, 1).await.unwrap();
    around.source = Default::default();
    let members = ["u1", "u4", "nobody"].map(|m| MemberId::parse(m).unwrap());
    let ranks = e.reads().ranks_of(&scope, &members).await.unwrap().value;
    let count = e.reads().count_at_least(&scope, 10).await.unwrap().value;
    format!(
        "{page:?}\n{tail:?}\n{:?}\n{next:?}\n{rank:?}\n{around:?}\n{ranks:?}\n{count}",
        cursor.page.entries
    )
}

#[tokio::test]
async fn a_settled_periods_keys_expire_after_its_ttl_and_reads_then_equal_reads_before() {
    for (mode, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            let ctx = format!("{} on {mode}", t.name);
            let b = Board { ranking_ttl_days: 1, ..board("UTC", Cadence::Daily) };
            e.boards().create_board(&b).await.unwrap();
            let day = PeriodKey::parse("2026-09-10").unwrap();
            let inside = ts("2026-09-10T08:00:00Z");
            // u1 15, u2 and u3 tied at 10, u4 5, u5 5: ties across page ends.
            for (i, (m, n)) in [("u1", 3), ("u2", 2), ("u3", 2), ("u4", 1), ("u5", 1)].iter().enumerate() {
                for k in 0..*n {
                    assert_eq!(write_at(&e, &b, &format!("e{i}-{k}"), m, inside).await, Outcome::Applied);
                }
            }
            project_without_expiry(&e, &p, &b, day).await;
            let closes_at = day.span(&b.zone).end + secs(GRACE);
            assert_eq!(e.jobs().scheduler_pass(&config(), closes_at).await.unwrap().frozen.len(), 1, "{ctx}");
            e.lifecycle().settle(&b, day, "admin").await.unwrap();
            let scope = e.reads().scope_of(&b.slug, day).await.unwrap();
            assert_eq!(
                e.reads().ranking_page(&scope, 0, 10).await.unwrap().source,
                ReadSource::Redis,
                "{ctx}"
            );
            let before = settled_reads(&e, &b, day).await;

            // A pass within the day gives every key of the period an expiry.
            let now = Timestamp::now();
            let pass = e.jobs().scheduler_pass(&config(), now).await.unwrap();
            assert!(pass.expiries >= 1, "{ctx}: {pass:?}");
            let ttls = key_ttls(&p, &b, day).await;
            assert!(!ttls.is_empty() && ttls.iter().all(|(_, ttl)| *ttl > 0), "{ctx}: {ttls:?}");
            assert!(ttls.iter().all(|(_, ttl)| *ttl > 23 * 3600 * 1000), "{ctx}: about a day: {ttls:?}");

            // The setting is changed to 0 days: the next pass, past the grace, unlinks the keys.
            let settings =
                domain::board::BoardSettings { ranking_ttl_days: 0, ..domain::board::BoardSettings::of(&b) };
            e.boards().edit_board(&b.slug, &settings, "admin").await.unwrap();
            let pass = e.jobs().scheduler_pass(&config(), Timestamp::now() + secs(10)).await.unwrap();
            assert!(pass.expiries >= 1, "{ctx}: {pass:?}");
            assert!(key_ttls(&p, &b, day).await.is_empty(), "{ctx}: the keys are gone");

            let scope = e.reads().scope_of(&b.slug, day).await.unwrap();
            assert_eq!(
                e.reads().ranking_page(&scope, 0, 10).await.unwrap().source,
                ReadSource::Standings,
                "{ctx}"
            );
            assert_eq!(settled_reads(&e, &b, day).await, before, "{ctx}");
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}
