//! Reward delivery: the settlement's outbox (`rewards`: one `grant` per prized member of the first
//! settlement; for each later revision, a `revoke` of the reward a member no longer holds and a
//! `grant` of the one it now holds) sent to the operator's webhook.
//!
//! A delivery is `POST <webhook>` with the JSON `{idempotency_key, board, period, revision, kind,
//! compensates, member, rank, prize}` (`compensates`: for a revoke, the key of the grant it takes
//! back) and the header `Idempotency-Key`. Delivery is at-least-once on the wire
//! and exactly-once for a receiver that deduplicates by the key: a crash after the receiver
//! answered but before the ledger recorded it sends the same key again; nothing ever sends a
//! second key for the same reward (the key is unique in the ledger).
//!
//! Any 2xx is `delivered`. Anything else — another status, a redirect (never followed), a timeout,
//! a network error — is retried after `backoff_base × 2^(attempt − 1)`, capped at `backoff_max`,
//! until `max_attempts` attempts were made; the reward is then `failed`. 4xx answers are retried
//! too: a wrong or not yet deployed webhook path (404, 401) looks the same as a refusal, and a
//! receiver that means to refuse a reward for good should record that and answer 2xx.
//!
//! Several processes may deliver from one PostgreSQL ledger: a pass claims due rewards with a
//! compare-and-set that pushes their next attempt past `claim_timeout` (see `ledger/rewards.rs`),
//! so no two deliverers send one reward at the same moment. A claim a crash abandons falls due
//! again when it ends.
//!
//! The settlement writes its rewards in its own transaction, keyed
//! `laurel:<board>:<period>:<revision>:<member>`, so a crash never creates a second reward.
//! `laurel serve --rewards-webhook <url>` (`LAUREL_REWARDS_WEBHOOK`) turns delivery on; without it
//! rewards stay `pending` (the log says so at startup) until one is configured. The URL may carry
//! a secret: it is never logged. [`RewardsConfig::new`] holds the numbers: a 10 s timeout, backoff
//! from 1 s doubling to at most 1 h, 20 attempts (about 8 hours), claims of 60 s. The loop runs
//! at once after a settlement (`Rewards::wake`) and every 2 s otherwise. Every attempt is
//! kept (time, status, error); `delivered` and `failed` are final and audited
//! (`reward_delivered`, `reward_failed`, actor `rewards`); `GET …/periods/{period}/rewards`
//! (admin) lists a settlement's rewards with every attempt. Failpoints `reward.before_send` and
//! `reward.after_send` surround one send (`engine/tests/rewards.rs`).

use crate::ledger::{Attempt, AttemptOutcome, DueReward};
use crate::scope::Scope;
use crate::{Core, EngineError};
use domain::view::RewardView;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tracing::Instrument;

/// How often the delivery loop looks for due rewards when no settlement woke it.
const TICK: Duration = Duration::from_secs(2);

/// Where and how rewards are delivered.
#[derive(Clone)]
pub struct RewardsConfig {
    /// The receiver. It may carry a secret (a token in the path or query): never logged.
    pub webhook: reqwest::Url,
    /// The limit on one request, from connecting to the receiver's answer.
    pub timeout: Duration,
    /// Attempts per reward before it is `failed`; at least 1.
    pub max_attempts: u32,
    /// The wait after the first failed attempt; it doubles with each further one.
    pub backoff_base: Duration,
    /// The longest wait between two attempts.
    pub backoff_max: Duration,
    /// How long a pass holds the rewards it claimed. Must exceed `timeout` (the claimed rewards
    /// are sent concurrently): a claim that ends mid-request lets another process send too.
    pub claim_timeout: Duration,
    /// Rewards claimed (and sent concurrently) per pass.
    pub batch: u32,
    client: reqwest::Client,
}

impl RewardsConfig {
    /// Defaults: 10 s timeout, 20 attempts, 1 s doubling up to 1 h (about 8 hours in all).
    pub fn new(webhook: &str) -> Result<Self, EngineError> {
        let webhook = reqwest::Url::parse(webhook)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
            .ok_or_else(|| EngineError::Invalid("the rewards webhook must be an http(s) URL".into()))?;
        let client = reqwest::Client::builder()
            // A redirected POST would turn into a GET and lose the reward: a 3xx is a failed attempt.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("laurel/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| EngineError::Invalid(format!("the webhook client: {e}")))?;
        Ok(Self {
            webhook,
            timeout: Duration::from_secs(10),
            max_attempts: 20,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(3600),
            claim_timeout: Duration::from_secs(60),
            batch: 32,
            client,
        })
    }

    /// The wait after the `attempt`-th failed attempt (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.saturating_sub(1)).unwrap_or(u32::MAX);
        self.backoff_base.saturating_mul(factor).min(self.backoff_max)
    }
}

impl std::fmt::Debug for RewardsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RewardsConfig")
            .field("webhook_host", &self.webhook.host_str())
            .field("timeout", &self.timeout)
            .field("max_attempts", &self.max_attempts)
            .field("backoff_base", &self.backoff_base)
            .field("backoff_max", &self.backoff_max)
            .field("claim_timeout", &self.claim_timeout)
            .field("batch", &self.batch)
            .finish_non_exhaustive()
    }
}

/// What one delivery pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeliveryReport {
    /// Rewards this pass claimed (and tried once each).
    pub claimed: usize,
    pub delivered: usize,
    /// Attempts that failed and were rescheduled.
    pub retrying: usize,
    /// Rewards whose last attempt failed.
    pub failed: usize,
}

/// The rewards service: a period's rewards, and their delivery to the webhook. Owns the signal
/// that wakes the delivery loop and whether this process runs one. Cheap to clone.
#[derive(Clone)]
pub struct Rewards {
    core: Core,
    /// Signals the delivery loop that a settlement saved new rewards.
    due: Arc<Notify>,
    /// Whether this process runs the delivery loop (it has a webhook).
    delivering: Arc<AtomicBool>,
}

impl Rewards {
    pub(crate) fn new(core: Core) -> Self {
        Self { core, due: Arc::default(), delivering: Arc::default() }
    }

    /// Wakes the delivery loop (after a settlement or a revision saved rewards).
    pub fn wake(&self) {
        self.due.notify_one();
    }

    /// Whether this process delivers rewards (it was given a webhook). Without one, rewards wait
    /// in the ledger for a process that has one, which the console says.
    pub fn delivers(&self) -> bool {
        self.delivering.load(Ordering::Relaxed)
    }

    /// A period's rewards with their delivery attempts.
    pub async fn of(&self, scope: &Scope) -> Result<Vec<RewardView>, EngineError> {
        let (slug, period) = (scope.slug(), scope.period());
        Ok(self.core.ledger.rewards(slug, &period).await?)
    }

    /// One delivery pass: claims due rewards and tries each once, concurrently. A failpoint (a
    /// simulated crash) stops the reward it hit, which stays claimed until its lease ends.
    pub async fn deliver_due(&self, config: &RewardsConfig) -> Result<DeliveryReport, EngineError> {
        if config.claim_timeout <= config.timeout || config.max_attempts == 0 || config.batch == 0 {
            return Err(EngineError::Invalid(
                "rewards: claim_timeout must exceed timeout; max_attempts and batch must be positive".into(),
            ));
        }
        let due = self
            .core
            .ledger
            .claim_due_rewards(jiff::Timestamp::now(), config.claim_timeout, config.batch)
            .await?;
        // Unreadable rows were claimed too: they count toward a full batch.
        let mut report =
            DeliveryReport { claimed: due.rows.len() + due.invalid.len(), ..DeliveryReport::default() };
        let mut sends = tokio::task::JoinSet::new();
        for reward in self.core.readable("rewards", due) {
            let (rewards, config) = (self.clone(), config.clone());
            let span = tracing::info_span!(
                "reward",
                board = %reward.board,
                period = %reward.period,
                member = %reward.member,
            );
            sends.spawn(async move { rewards.deliver(&config, reward).await }.instrument(span));
        }
        let mut first_error = None;
        while let Some(joined) = sends.join_next().await {
            match joined {
                Ok(Ok(AttemptOutcome::Delivered)) => report.delivered += 1,
                Ok(Ok(AttemptOutcome::RetryAt(_))) => report.retrying += 1,
                Ok(Ok(AttemptOutcome::Failed)) => report.failed += 1,
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => {
                    first_error
                        .get_or_insert(EngineError::Invalid(format!("reward delivery interrupted: {e}")));
                }
            }
        }
        first_error.map_or(Ok(report), Err)
    }

    /// Delivers due rewards until the task is aborted: a pass, then the next one as soon as a
    /// settlement saves rewards, or after a short tick (retries fall due on their own).
    pub fn spawn_delivery(&self, config: RewardsConfig) -> tokio::task::JoinHandle<()> {
        self.delivering.store(true, Ordering::Relaxed);
        let rewards = self.clone();
        tokio::spawn(async move {
            loop {
                let more = match rewards.deliver_due(&config).await {
                    // A full batch: more may be due right now.
                    Ok(report) => report.claimed >= config.batch as usize,
                    Err(error) => {
                        tracing::warn!(%error, "reward delivery pass stopped");
                        false
                    }
                };
                if !more {
                    tokio::select! {
                        () = rewards.due.notified() => {}
                        () = tokio::time::sleep(TICK) => {}
                    }
                }
            }
        })
    }

    /// Sends one claimed reward and records the attempt.
    async fn deliver(
        &self,
        config: &RewardsConfig,
        reward: DueReward,
    ) -> Result<AttemptOutcome, EngineError> {
        self.core.failpoints.hit("reward.before_send")?;
        let body = serde_json::json!({
            "idempotency_key": reward.idempotency_key,
            "board": reward.board,
            "period": reward.period,
            "revision": reward.revision,
            "kind": reward.kind,
            "compensates": reward.compensates,
            "member": reward.member,
            "ranking": reward.ranking,
            "rank": reward.rank,
            "prize": reward.prize,
        });
        let sent = config
            .client
            .post(config.webhook.clone())
            .timeout(config.timeout)
            .header("Idempotency-Key", &reward.idempotency_key)
            .json(&body)
            .send()
            .await;
        let at = jiff::Timestamp::now();
        let (http_status, error) = match sent {
            Ok(answer) if answer.status().is_success() => (Some(answer.status().as_u16()), None),
            Ok(answer) => {
                (Some(answer.status().as_u16()), Some(format!("the receiver answered {}", answer.status())))
            }
            Err(e) => (None, Some(describe(e))),
        };
        let attempt_no = reward.attempts + 1;
        let outcome = if error.is_none() {
            // The receiver has it; a crash from here on sends the same key again.
            self.core.failpoints.hit("reward.after_send")?;
            AttemptOutcome::Delivered
        } else if attempt_no >= config.max_attempts {
            AttemptOutcome::Failed
        } else {
            let wait = jiff::SignedDuration::try_from(config.backoff(attempt_no))
                .unwrap_or(jiff::SignedDuration::MAX);
            AttemptOutcome::RetryAt(at.checked_add(wait).unwrap_or(jiff::Timestamp::MAX))
        };
        let attempt = Attempt { at, http_status, error };
        let moved = self.core.ledger.finish_reward_attempt(&reward, &attempt, outcome).await?;
        let error = attempt.error.as_deref().unwrap_or_default();
        match outcome {
            _ if !moved => {
                tracing::warn!(
                    attempt = attempt_no,
                    "reward attempt recorded, but another deliverer holds the reward now"
                )
            }
            AttemptOutcome::Delivered => tracing::info!(attempt = attempt_no, "reward delivered"),
            AttemptOutcome::RetryAt(next) => {
                tracing::warn!(attempt = attempt_no, %next, error, "reward attempt failed")
            }
            AttemptOutcome::Failed => {
                tracing::error!(attempt = attempt_no, error, "reward failed after its last attempt")
            }
        }
        Ok(outcome)
    }
}

/// A network error in words, without the URL (which may carry a secret).
fn describe(e: reqwest::Error) -> String {
    if e.is_timeout() {
        return "timed out".into();
    }
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
