//! Laurel's server-side use cases. The only crate that touches the stores:
//!
//! - [`ledger`]: the SQL truth (SQLite or PostgreSQL) — boards, profiles, events, totals.
//! - [`redis`]: the live projection (standalone Redis or Cluster) — keys, Lua scripts.
//! - [`boards`]: board creation and details; [`auth`]: admin tokens and ingest keys (made,
//!   listed and revoked by admins), with per-key rate limits in [`ratelimit`];
//!   [`admins`]: console accounts (argon2id), throttled logins, sessions; [`links`]: signed
//!   contestant links (HMAC-SHA256) that tell the UI who "me" is.
//! - [`hot`]: hot boards — sliding windows in Redis alone: hits, snapshots, the public list.
//! - [`fallback`]: the live ranking read from the ledger's totals while Redis cannot be read.
//! - [`reads`]: ranking pages assembled from the projection and display names (top-N pages
//!   cached for a second); [`names`]: each process's copy of the display names, kept level with
//!   the ledger's profiles.
//! - [`history`]: a member's points through a period and their last periods, a period's
//!   distribution of points and the board's past results — all from the public reads.
//! - [`writes`]: writes recorded in the ledger, then projected.
//! - [`live`]: live boards — a period's top N and state pushed to subscribers when they change.
//! - [`lifecycle`]: freeze, settle, archive, late review, revoke, correct, audit.
//! - [`moderation`]: hidden members — out of every public view and the standings, history kept.
//! - [`previews`]: dry runs of admin changes — moves, shifts, prizes, the digest after — kept as drafts.
//! - [`failpoints`]: test-only crash hooks between durable steps.
//! - [`rewards`]: settlement rewards delivered to a webhook (outbox, Idempotency-Key, retries).
//! - [`reconciler`]: keeps the projection level with the ledger; rebuilds a period.
//! - [`scheduler`]: freezes ended periods, archives settled ones; one leader per ledger (a lease).
//! - [`transfer`]: export a settled period as JSON and import it into another ledger (same digest).
//! - [`metrics`]: Prometheus counters and histograms.
//! - [`attention`]: the console's front page — what needs an admin's attention, boards' activity.
//! - [`demo`]: the demo board behind `laurel serve --demo`.
//!
//! [`Engine`] bundles both stores and is what the server and the UI's server functions hold.

pub mod admins;
pub mod attention;
pub mod auth;
pub mod boards;
pub mod demo;
pub mod failpoints;
pub mod fallback;
pub mod history;
pub mod hot;
pub mod ledger;
pub mod lifecycle;
pub mod links;
pub mod live;
pub mod metrics;
pub mod moderation;
pub mod names;
pub mod previews;
pub mod progress;
pub mod public;
pub mod ratelimit;
pub mod reads;
pub mod reconciler;
pub mod redis;
pub mod rewards;
pub mod scheduler;
pub mod transfer;
pub mod writes;

use ledger::{Ledger, LedgerError};
use metrics::Metrics;
use redis::keys::KeySpace;
use redis::{Projection, RedisTarget};
use std::sync::Arc;

/// Lower-case hex of bytes: token and key digests, settlement digests.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a use case failed. The server maps these to HTTP statuses and the UI to messages.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{what} not found")]
    NotFound { what: String },
    #[error("{0}")]
    Invalid(String),
    /// Something that existed is gone for good (an expired snapshot).
    #[error("{0}")]
    Gone(String),
    #[error("board {0} already exists")]
    BoardExists(String),
    #[error("this board's operator is {board}; the endpoint is for {sent}")]
    WrongOperator { board: domain::Operator, sent: domain::Operator },
    #[error("a batch holds at most {max} writes, got {got}")]
    BatchTooLarge { max: usize, got: usize },
    /// A lifecycle rule refused the change; `code` is the API's machine-readable reason
    /// (`invalid_transition`, `period_settled`, `late_pending`, …).
    #[error("{detail}")]
    Conflict { code: &'static str, detail: String },
    #[error(transparent)]
    Ledger(LedgerError),
    #[error("projection: {0}")]
    Redis(#[from] ::redis::RedisError),
}

impl From<LedgerError> for EngineError {
    fn from(e: LedgerError) -> Self {
        match e {
            LedgerError::Refused { code, detail } => EngineError::Conflict { code, detail },
            LedgerError::Missing(what) => EngineError::NotFound { what },
            e => EngineError::Ledger(e),
        }
    }
}

impl From<sqlx::Error> for EngineError {
    fn from(e: sqlx::Error) -> Self {
        EngineError::Ledger(e.into())
    }
}

/// Where the stores are.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub database_url: String,
    pub redis_url: String,
    pub key_prefix: String,
    /// Public reads from replicas (`--read-from-replicas`).
    pub replica_reads: redis::ReplicaReads,
}

/// Both stores, ready for use cases; cheap to clone.
#[derive(Clone)]
pub struct Engine {
    ledger: Ledger,
    projection: Projection,
    metrics: Arc<Metrics>,
    top_cache: Arc<reads::TopCache>,
    /// Board definitions already read (they are immutable; see `Engine::board`).
    boards: Arc<reads::BoardCache>,
    failpoints: Arc<failpoints::Failpoints>,
    /// Signals the reward delivery loop that a settlement saved new rewards.
    rewards_due: Arc<tokio::sync::Notify>,
    /// Period states recently read by reads (see `Engine::state_for_reads`).
    states: Arc<reads::StateCache>,
    /// Rankings read from the ledger while Redis could not be read (`fallback`).
    ledger_orders: Arc<fallback::LedgerOrders>,
    /// Hot board definitions already read (immutable, like boards).
    hot_boards: Arc<hot::HotBoardCache>,
    hot_lists: Arc<hot::HotListCache>,
    /// Which members may count on hot boards (see [`hot::HitFilter`]).
    hit_filter: Arc<dyn hot::HitFilter>,
    /// The key of contestant links; None: links are not set up.
    link_secret: Option<Arc<links::LinkSecret>>,
    /// This process's copy of the display names (see [`names`]).
    names: Arc<names::Names>,
    /// Ingest keys' rate limits, counted in this process (see [`ratelimit`]).
    limiter: Arc<ratelimit::RateLimiter>,
    /// Keys and tokens recently found in the ledger (see [`auth::Credentials`]).
    credentials: Arc<auth::Credentials>,
    /// This process's live streams (see [`live`]).
    live: Arc<live::Live>,
    /// This process's snapshot maker (see `reads/snapshots.rs`).
    snapshots: Arc<reads::Snapshots>,
}

/// Which store failed a readiness check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    pub ledger: Result<(), String>,
    pub redis: Result<(), String>,
    /// Redis answers but has reached its `maxmemory`: still ready (the ledger records every
    /// write, reads keep working), but the projection falls behind until there is room.
    pub redis_full: Option<String>,
}

impl Readiness {
    pub fn is_ready(&self) -> bool {
        self.ledger.is_ok() && self.redis.is_ok()
    }
}

impl Engine {
    /// Connects to the ledger (and applies migrations) and prepares the Redis client, which
    /// connects on first use so the service can start while Redis is away.
    pub async fn start(config: &EngineConfig) -> Result<Self, EngineError> {
        let target = RedisTarget::parse(&config.redis_url).map_err(EngineError::Invalid)?;
        let ledger = Ledger::connect(&config.database_url).await?;
        ledger.migrate().await?;
        let projection = Projection::new(target, KeySpace::new(config.key_prefix.clone()))
            .with_replica_reads(config.replica_reads.clone())
            .map_err(EngineError::Invalid)?;
        Ok(Self::from_parts(ledger, projection))
    }

    pub fn from_parts(ledger: Ledger, projection: Projection) -> Self {
        Self {
            ledger,
            projection,
            metrics: Arc::new(Metrics::default()),
            top_cache: Arc::default(),
            boards: Arc::default(),
            failpoints: Arc::new(failpoints::Failpoints::from_env()),
            rewards_due: Arc::default(),
            states: Arc::default(),
            ledger_orders: Arc::default(),
            hot_boards: Arc::default(),
            hot_lists: Arc::default(),
            hit_filter: Arc::new(hot::AnyMember),
            link_secret: None,
            names: Arc::default(),
            limiter: Arc::default(),
            credentials: Arc::default(),
            live: Arc::default(),
            snapshots: Arc::default(),
        }
    }

    /// The rows of a listing `job` could read; the others are reported ([`Metrics::invalid_rows`]).
    pub(crate) fn readable<T>(&self, job: &'static str, listing: ledger::Listing<T>) -> Vec<T> {
        self.metrics.invalid_rows(job, &listing.invalid);
        listing.rows
    }

    /// Wakes the reward delivery loop (after a settlement saved rewards).
    pub fn wake_rewards(&self) {
        self.rewards_due.notify_one();
    }

    /// Resolves when [`Engine::wake_rewards`] was called since the last wait.
    pub async fn rewards_woken(&self) {
        self.rewards_due.notified().await;
    }

    /// Test-only crash hooks of this engine (see [`failpoints`]).
    pub fn failpoints(&self) -> &failpoints::Failpoints {
        &self.failpoints
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn projection(&self) -> &Projection {
        &self.projection
    }

    /// Checks that both stores answer.
    pub async fn readiness(&self) -> Readiness {
        let (ledger, redis) = tokio::join!(self.ledger.ping(), self.projection.ping());
        // A server that forbids INFO (some managed ones) is taken as not full.
        let redis_full = match redis {
            Ok(()) => self.projection.memory_full().await.ok().flatten(),
            Err(_) => None,
        };
        Readiness {
            ledger: ledger.map_err(|e| e.to_string()),
            redis: redis.map_err(|e| e.to_string()),
            redis_full,
        }
    }

    /// Releases the ledger's connections (graceful shutdown).
    pub async fn close(&self) {
        self.ledger.close().await;
    }
}
