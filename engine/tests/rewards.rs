//! Reward delivery against a real webhook receiver (axum on loopback), on SQLite and PostgreSQL:
//! every prized member is delivered once, failures are retried, and a crash at any step — after
//! the settlement's commit, before a send, after the receiver answered — ends, after a restart,
//! with each reward processed once by a receiver that deduplicates by Idempotency-Key.
//!
//! Each prized member is delivered once with its attempts and audit rows; a failing receiver is
//! retried, and the reward is failed after the last attempt; a restarted engine makes no second
//! reward row; two deliverers never send the same reward; a re-settlement's rerun gives the same
//! revision and digest and no second delivery.

mod common;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use common::{TestLedger, TestProjection, redis_targets, unique};
use domain::board::Prize;
use domain::lifecycle::Transition;
use domain::write::{Change, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, PeriodKey, ScoreCodec, TiePolicy};
use engine::ledger::LedgerError;
use engine::ledger::audit::AuditFilter;
use engine::rewards::{DeliveryReport, RewardsConfig};
use engine::{Engine, EngineError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A webhook receiver that keeps every request's Idempotency-Key, refuses the first `fail_first`
/// requests with 500, and processes each key once (as a real receiver deduplicates).
#[derive(Default)]
struct Receiver {
    fail_first: Mutex<usize>,
    /// Every request's key, in arrival order (refused ones too).
    seen: Mutex<Vec<String>>,
    /// Processed keys and the body each was processed with.
    processed: Mutex<HashMap<String, serde_json::Value>>,
}

impl Receiver {
    /// Starts the receiver on a free loopback port; answers it and its webhook URL.
    async fn start(fail_first: usize) -> (Arc<Self>, String) {
        let receiver = Arc::new(Self { fail_first: Mutex::new(fail_first), ..Self::default() });
        let app =
            axum::Router::new().route("/hook", axum::routing::post(receive)).with_state(receiver.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (receiver, url)
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    fn times_seen(&self, key: &str) -> usize {
        self.seen().iter().filter(|k| *k == key).count()
    }

    fn processed(&self) -> HashMap<String, serde_json::Value> {
        self.processed.lock().unwrap().clone()
    }
}

async fn receive(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    axum::Json(body): axum::Json<serde_json::Value>,
) -> StatusCode {
    let key = headers.get("idempotency-key").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    receiver.seen.lock().unwrap().push(key.clone());
    {
        let mut fail = receiver.fail_first.lock().unwrap();
        if *fail > 0 {
            *fail -= 1;
            return StatusCode::INTERNAL_SERVER_ERROR;
        }
    }
    receiver.processed.lock().unwrap().entry(key).or_insert(body);
    StatusCode::OK
}

/// Fast settings for tests: a tiny backoff and a short claim, so retries and abandoned claims
/// fall due almost at once.
fn config(url: &str) -> RewardsConfig {
    let mut config = RewardsConfig::new(url).unwrap();
    config.timeout = Duration::from_secs(3);
    config.claim_timeout = Duration::from_millis(3500);
    config.backoff_base = Duration::from_millis(1);
    config.backoff_max = Duration::from_millis(4);
    config
}

/// A weekly board whose ranks 1 and 2–3 win prizes; the grace is long enough that writes to a
/// past week still apply.
fn board() -> Board {
    Board {
        slug: BoardSlug::parse(unique("rw").replace('_', "-").to_lowercase()).unwrap(),
        title: "rewards".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, 0, 1_000_000, 1).unwrap(),
        freeze_grace_seconds: 60 * 86_400,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![
            Prize { from_rank: 1, to_rank: 1, prize: "gold".into() },
            Prize { from_rank: 2, to_rank: 3, prize: "silver".into() },
        ],
        unit: domain::Unit::Points,
    }
}

/// One test's stores and engine, on one ledger.
struct Stores {
    ledger: TestLedger,
    projection: TestProjection,
}

impl Stores {
    async fn new(ledger: TestLedger) -> Self {
        let (_, standalone) = redis_targets().remove(0);
        Self { ledger, projection: TestProjection::new(standalone) }
    }

    /// A fresh engine on these stores, as a restarted process would have.
    async fn engine(&self) -> Engine {
        common::engine(&self.ledger, &self.projection).await
    }

    async fn cleanup(self) {
        self.projection.cleanup().await;
        self.ledger.drop_db().await;
    }
}

/// Creates `b`, writes `points` for members m00, m01, … in a week two weeks ago and freezes that
/// period.
async fn frozen(e: &Engine, b: &Board, points: &[i64]) -> PeriodKey {
    e.boards().create_board(b).await.unwrap();
    let at = jiff::Timestamp::now().checked_sub(jiff::SignedDuration::from_hours(14 * 24)).unwrap();
    let writes: Vec<Write> = points
        .iter()
        .enumerate()
        .map(|(i, p)| Write {
            member: MemberId::parse(format!("m{i:02}")).unwrap(),
            change: Change::Point { event_id: EventId::parse(format!("e{i}")).unwrap(), delta: *p },
            occurred_at: at,
            metadata: None,
            segments: Default::default(),
        })
        .collect();
    e.writes().record(b, &writes).await.unwrap();
    let period = b.period_at(at);
    e.lifecycle()
        .transition(
            &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
            Transition::Freeze,
            "test",
            None,
        )
        .await
        .unwrap();
    period
}

/// A frozen board of the default prize table with `points`.
async fn frozen_board(e: &Engine, points: &[i64]) -> (Board, PeriodKey) {
    let b = board();
    let period = frozen(e, &b, points).await;
    (b, period)
}

/// Four members, three prized: m00 gold, m01 and m02 silver.
const POINTS: [i64; 4] = [100, 90, 80, 70];

async fn settled_board(e: &Engine) -> (Board, PeriodKey) {
    let (b, period) = frozen_board(e, &POINTS).await;
    e.lifecycle()
        .transition(
            &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
            Transition::Settle,
            "test",
            None,
        )
        .await
        .unwrap();
    (b, period)
}

/// Runs passes until nothing of this board is pending (a claim abandoned by a simulated crash
/// falls due when its lease ends). Panics if that never happens.
async fn deliver_all(e: &Engine, config: &RewardsConfig, b: &Board, period: &PeriodKey) -> DeliveryReport {
    let mut total = DeliveryReport::default();
    for _ in 0..2_000 {
        let pass = e.rewards().deliver_due(config).await.unwrap();
        total.claimed += pass.claimed;
        total.delivered += pass.delivered;
        total.retrying += pass.retrying;
        total.failed += pass.failed;
        let rewards = e
            .rewards()
            .of(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        if rewards.iter().all(|r| r.status != "pending") {
            return total;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("rewards still pending");
}

fn keys_of(b: &Board, period: &PeriodKey, members: &[&str]) -> Vec<String> {
    members.iter().map(|m| format!("laurel:{}:{period}:1:{m}", b.slug)).collect()
}

async fn audit_count(e: &Engine, b: &Board, action: &str) -> usize {
    let filter = AuditFilter {
        board: Some(b.slug.to_string()),
        action: Some(action.into()),
        actor: Some("rewards".into()),
        ..AuditFilter::default()
    };
    e.lifecycle().audit(&filter, None, 500).await.unwrap().len()
}

fn is_failpoint(result: Result<impl std::fmt::Debug, EngineError>, name: &str) -> bool {
    matches!(result, Err(EngineError::Ledger(LedgerError::Failpoint(n))) if n == name)
}

#[tokio::test]
async fn every_prized_member_is_delivered_once_with_attempts_and_audit() {
    for t in TestLedger::both().await {
        let name = t.name;
        let stores = Stores::new(t).await;
        let e = stores.engine().await;
        let (receiver, url) = Receiver::start(0).await;
        let (b, period) = settled_board(&e).await;

        let report = deliver_all(&e, &config(&url), &b, &period).await;

        assert_eq!(report.delivered, 3, "{name}");
        let keys = keys_of(&b, &period, &["m00", "m01", "m02"]);
        let mut seen = receiver.seen();
        seen.sort();
        assert_eq!(seen, keys, "{name}: each key sent once, unprized m03 not at all");
        let gold = &receiver.processed()[&keys[0]];
        assert_eq!(gold["member"], "m00", "{name}");
        assert_eq!(gold["rank"], 1, "{name}");
        assert_eq!(gold["prize"], "gold", "{name}");
        assert_eq!(gold["revision"], 1, "{name}");
        assert_eq!(gold["board"], b.slug.as_str(), "{name}");
        assert_eq!(gold["period"], period.to_string(), "{name}");
        assert_eq!(gold["idempotency_key"], keys[0], "{name}");
        let rewards = e
            .rewards()
            .of(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        assert_eq!(rewards.len(), 3, "{name}");
        for r in &rewards {
            assert_eq!((r.status.as_str(), r.attempts), ("delivered", 1), "{name}: {r:?}");
            assert!(r.delivered_at.is_some(), "{name}");
            assert_eq!(r.history.len(), 1, "{name}");
            assert_eq!(
                (r.history[0].http_status, r.history[0].error.as_deref()),
                (Some(200), None),
                "{name}"
            );
        }
        assert_eq!(audit_count(&e, &b, "reward_delivered").await, 3, "{name}");
        // A later pass finds nothing to send.
        assert_eq!(e.rewards().deliver_due(&config(&url)).await.unwrap().claimed, 0, "{name}");
        assert_eq!(receiver.seen().len(), 3, "{name}");
        stores.cleanup().await;
    }
}

#[tokio::test]
async fn a_failing_receiver_is_retried_until_it_accepts() {
    for t in TestLedger::both().await {
        let name = t.name;
        let stores = Stores::new(t).await;
        let e = stores.engine().await;
        let (receiver, url) = Receiver::start(2).await;
        // One prized member, so the two refusals are both its.
        let (b, period) = frozen_board(&e, &[100]).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await
            .unwrap();

        let report = deliver_all(&e, &config(&url), &b, &period).await;

        assert_eq!((report.retrying, report.delivered), (2, 1), "{name}");
        let key = &keys_of(&b, &period, &["m00"])[0];
        assert_eq!(receiver.times_seen(key), 3, "{name}");
        assert_eq!(receiver.processed().len(), 1, "{name}");
        let rewards = e
            .rewards()
            .of(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        let r = &rewards[0];
        assert_eq!((r.status.as_str(), r.attempts), ("delivered", 3), "{name}");
        let statuses: Vec<Option<u16>> = r.history.iter().map(|a| a.http_status).collect();
        assert_eq!(statuses, [Some(500), Some(500), Some(200)], "{name}");
        assert!(r.history[0].error.as_deref().unwrap().contains("500"), "{name}");
        assert_eq!(audit_count(&e, &b, "reward_delivered").await, 1, "{name}");
        assert_eq!(audit_count(&e, &b, "reward_failed").await, 0, "{name}");
        stores.cleanup().await;
    }
}

#[tokio::test]
async fn a_reward_is_failed_after_its_last_attempt() {
    for t in TestLedger::both().await {
        let name = t.name;
        let stores = Stores::new(t).await;
        let e = stores.engine().await;
        let (receiver, url) = Receiver::start(usize::MAX).await;
        let (b, period) = frozen_board(&e, &[100]).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await
            .unwrap();
        let mut config = config(&url);
        config.max_attempts = 3;

        let report = deliver_all(&e, &config, &b, &period).await;

        assert_eq!((report.retrying, report.failed, report.delivered), (2, 1, 0), "{name}");
        assert_eq!(receiver.seen().len(), 3, "{name}");
        let r = &e
            .rewards()
            .of(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap()[0];
        assert_eq!((r.status.as_str(), r.attempts, r.history.len()), ("failed", 3, 3), "{name}");
        assert_eq!(audit_count(&e, &b, "reward_failed").await, 1, "{name}");
        // Failed is final: no pass sends it again.
        assert_eq!(e.rewards().deliver_due(&config).await.unwrap().claimed, 0, "{name}");
        stores.cleanup().await;
    }
}

#[tokio::test]
async fn a_crash_after_the_settlement_commit_delivers_each_reward_once_after_a_restart() {
    for t in TestLedger::both().await {
        let name = t.name;
        let stores = Stores::new(t).await;
        let e = stores.engine().await;
        let (receiver, url) = Receiver::start(0).await;
        let (b, period) = frozen_board(&e, &POINTS).await;
        e.failpoints().arm("settle.after_commit");
        let crashed = e
            .lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await;
        assert!(is_failpoint(crashed, "settle.after_commit"), "{name}");
        assert!(receiver.seen().is_empty(), "{name}: nothing sent before the restart");
        let digest = e
            .lifecycle()
            .settlement(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap()
            .digest;

        let restarted = stores.engine().await;
        deliver_all(&restarted, &config(&url), &b, &period).await;
        // Settling again (a rerun after the crash) answers the same settlement, no new reward.
        restarted
            .lifecycle()
            .transition(
                &restarted.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await
            .unwrap();
        assert_eq!(
            restarted
                .lifecycle()
                .settlement(&restarted.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
                .await
                .unwrap()
                .digest,
            digest,
            "{name}"
        );
        assert_eq!(restarted.rewards().deliver_due(&config(&url)).await.unwrap().claimed, 0, "{name}");

        let rewards = restarted
            .rewards()
            .of(&restarted.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        assert_eq!(rewards.len(), 3, "{name}");
        assert!(rewards.iter().all(|r| r.status == "delivered" && r.attempts == 1), "{name}: {rewards:?}");
        for key in keys_of(&b, &period, &["m00", "m01", "m02"]) {
            assert_eq!(receiver.times_seen(&key), 1, "{name}: {key}");
        }
        stores.cleanup().await;
    }
}

#[tokio::test]
async fn a_crash_after_the_receiver_answered_redelivers_the_same_key_and_it_is_processed_once() {
    for t in TestLedger::both().await {
        let name = t.name;
        let stores = Stores::new(t).await;
        let e = stores.engine().await;
        let (receiver, url) = Receiver::start(0).await;
        let (b, period) = frozen_board(&e, &[100]).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await
            .unwrap();
        let key = keys_of(&b, &period, &["m00"]).remove(0);
        e.failpoints().arm("reward.after_send");
        let crashed = e.rewards().deliver_due(&config(&url)).await;
        assert!(is_failpoint(crashed, "reward.after_send"), "{name}");
        assert_eq!(receiver.times_seen(&key), 1, "{name}: the receiver got it");
        let r = &e
            .rewards()
            .of(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap()[0];
        assert_eq!((r.status.as_str(), r.history.len()), ("pending", 0), "{name}: the ledger did not");

        let restarted = stores.engine().await;
        deliver_all(&restarted, &config(&url), &b, &period).await;

        assert_eq!(receiver.times_seen(&key), 2, "{name}: sent again with the same key");
        assert_eq!(receiver.processed().len(), 1, "{name}: processed once");
        let rewards = restarted
            .rewards()
            .of(&restarted.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap();
        assert_eq!(rewards.len(), 1, "{name}");
        assert_eq!(rewards[0].status, "delivered", "{name}");
        assert_eq!(audit_count(&restarted, &b, "reward_delivered").await, 1, "{name}");
        stores.cleanup().await;
    }
}

#[tokio::test]
async fn a_crash_before_the_send_sends_nothing_and_the_next_pass_delivers_once() {
    for t in TestLedger::both().await {
        let name = t.name;
        let stores = Stores::new(t).await;
        let e = stores.engine().await;
        let (receiver, url) = Receiver::start(0).await;
        let (b, period) = frozen_board(&e, &[100]).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await
            .unwrap();
        e.failpoints().arm("reward.before_send");
        let crashed = e.rewards().deliver_due(&config(&url)).await;
        assert!(is_failpoint(crashed, "reward.before_send"), "{name}");
        assert!(receiver.seen().is_empty(), "{name}");

        deliver_all(&e, &config(&url), &b, &period).await;

        assert_eq!(receiver.seen(), keys_of(&b, &period, &["m00"]), "{name}");
        let r = &e
            .rewards()
            .of(&e.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap())
            .await
            .unwrap()[0];
        assert_eq!((r.status.as_str(), r.attempts), ("delivered", 1), "{name}");
        stores.cleanup().await;
    }
}

#[tokio::test]
async fn two_deliverers_never_send_the_same_reward() {
    for t in TestLedger::both().await {
        let name = t.name;
        let stores = Stores::new(t).await;
        let (one, two) = (stores.engine().await, stores.engine().await);
        let (receiver, url) = Receiver::start(0).await;
        // 30 prized members: ranks 1-3 of the default table, then bronze for 4-30.
        let mut b = board();
        b.prizes.push(Prize { from_rank: 4, to_rank: 30, prize: "bronze".into() });
        let points: Vec<i64> = (0..30).map(|i| 1000 - i).collect();
        let period = frozen(&one, &b, &points).await;
        one.lifecycle()
            .transition(
                &one.reads().scope(&b.slug, Some(&period.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await
            .unwrap();
        let mut small = config(&url);
        small.batch = 4;

        let (a, c) =
            tokio::join!(deliver_all(&one, &small, &b, &period), deliver_all(&two, &small, &b, &period));

        assert_eq!(a.delivered + c.delivered, 30, "{name}");
        let seen = receiver.seen();
        let mut distinct = seen.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!((seen.len(), distinct.len()), (30, 30), "{name}: no reward sent twice");
        stores.cleanup().await;
    }
}

/// A re-settlement sends only the deltas — a revoke of each reward that moved and a grant of its
/// replacement — each once, also when the apply crashed at any of its steps and a restarted
/// process applied it again; the revision and its digest are the ones the preview announced.
#[tokio::test]
async fn a_re_settlement_delivers_each_reward_delta_once_whatever_step_it_crashed_at() {
    use domain::preview::PreviewChange;
    let crashes = [
        None,
        Some("resettle.after_standings"),
        Some("resettle.before_commit"),
        Some("apply.before_commit"),
        Some("apply.after_commit"),
    ];
    for crash in crashes {
        for t in TestLedger::both().await {
            let name = format!("{} {crash:?}", t.name);
            let stores = Stores::new(t).await;
            let e = stores.engine().await;
            let (receiver, url) = Receiver::start(0).await;
            let config = config(&url);
            // m00 gold, m01 and m02 silver, delivered.
            let (b, period) = settled_board(&e).await;
            deliver_all(&e, &config, &b, &period).await;
            let key = period.to_string();
            let changes = vec![PreviewChange::Revoke(EventId::parse("e0").unwrap())];
            let preview = e
                .lifecycle()
                .preview(
                    &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                    "m00 cheated",
                    changes,
                    "admin",
                )
                .await
                .unwrap();
            if let Some(point) = crash {
                e.failpoints().arm(point);
                let crashed = e
                    .lifecycle()
                    .apply_preview(
                        &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                        &preview.preview_id,
                        "admin",
                    )
                    .await;
                assert!(is_failpoint(crashed, point), "{name}");
            }
            let e = stores.engine().await;
            let applied = e
                .lifecycle()
                .apply_preview(
                    &e.reads().scope(&b.slug, Some(&key)).await.unwrap(),
                    &preview.preview_id,
                    "admin",
                )
                .await
                .unwrap();
            let revision = applied.revision.expect("re-settled");
            assert_eq!(revision.revision, 2, "{name}");
            assert_eq!(Some(revision.digest.as_str()), preview.digest_after.as_deref(), "{name}");
            assert_eq!(
                e.lifecycle()
                    .settlements(&e.reads().scope(&b.slug, Some(&key)).await.unwrap())
                    .await
                    .unwrap()
                    .len(),
                2,
                "{name}"
            );
            deliver_all(&e, &config, &b, &period).await;

            // After: m01 gold, m02 silver (unchanged: nothing sent), m03 silver.
            let first = keys_of(&b, &period, &["m00", "m01", "m02"]);
            let at = |rest: &str| format!("laurel:{}:{period}:2:{rest}", b.slug);
            let second = [at("m00:revoke"), at("m01:revoke"), at("m01"), at("m03")];
            let processed = receiver.processed();
            assert_eq!(processed.len(), first.len() + second.len(), "{name}: {processed:?}");
            for k in first.iter().chain(&second) {
                assert_eq!(receiver.times_seen(k), 1, "{name}: {k}");
            }
            let revoke = &processed[&at("m01:revoke")];
            assert_eq!(
                (revoke["kind"].as_str(), revoke["prize"].as_str(), revoke["revision"].as_i64()),
                (Some("revoke"), Some("silver"), Some(2)),
                "{name}"
            );
            assert_eq!(revoke["compensates"].as_str(), Some(first[1].as_str()), "{name}");
            let grant = &processed[&at("m01")];
            assert_eq!(
                (grant["kind"].as_str(), grant["prize"].as_str()),
                (Some("grant"), Some("gold")),
                "{name}"
            );
            assert_eq!(grant["compensates"], serde_json::Value::Null, "{name}");
            stores.cleanup().await;
        }
    }
}
