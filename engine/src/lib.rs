//! Laurel's server-side use cases. The only crate that touches the stores.
//!
//! [`Engine`] is the front the server and the UI's server functions hold: the shared `Core`
//! (both stores, metrics, failpoints) and one service per feature, each a module of its own.
//! A service's state is private to it; one service calls another only through its methods.
//!
//! - `ledger` (private): the SQL truth (SQLite or PostgreSQL) — boards, profiles, events, totals.
//! - `redis` (private): the live projection (standalone Redis or Cluster) — keys, Lua scripts.
//! - [`segments`], `totals`: segment projection and the ledger's totals as projected (on `Core`).
//! - [`reads`] ([`reads::Reads`]): ranking pages from the projection with display names, the
//!   caches that make them fast, the ledger fallback while Redis cannot be read, the board as of
//!   any moment, a member's history, a period's distribution, past results, the leaders' chart.
//! - [`writes`] ([`writes::Writes`]): writes and imported totals recorded in the ledger, then
//!   projected; profiles.
//! - [`live`] ([`live::Live`]): a period's top N and state pushed to subscribers when they change.
//! - [`lifecycle`] ([`lifecycle::Lifecycle`]): freeze, settle, archive, late review, revoke,
//!   correct, audit; previews and revisions; public freezes; hidden members.
//! - [`seasons`] ([`seasons::Seasons`]): season boards computed from their source's periods.
//! - [`rewards`] ([`rewards::Rewards`]): settlement rewards delivered to a webhook.
//! - [`receipts`] ([`receipts::Receipts`]): members' receipts of settlement revisions.
//! - [`boards`] ([`boards::Boards`]): board definitions; the console's front page.
//! - [`transfer`] ([`transfer::Transfer`]): a settled period exported and imported (same digest).
//! - [`jobs`] ([`jobs::Jobs`]): the scheduler (one leader per ledger) and the reconciler.
//! - [`access`] ([`access::Access`]): admin tokens, ingest keys and rate limits, console
//!   accounts, signed contestant links.
//! - [`hot`] ([`hot::Hot`]): hot boards — sliding windows in Redis alone.
//! - [`scope`]: one period of one board, resolved once at the edge.
//! - [`metrics`], [`failpoints`], [`progress`], [`demo`], [`doctor`]: counters, test-only crash
//!   hooks, progress of long work, the demo board, the ledger's upkeep from the command line.

pub mod access;
pub mod boards;
pub mod demo;
pub mod doctor;
pub mod failpoints;
pub mod hot;
pub mod jobs;
// The stores are private to the engine: callers use the services (see the `internals` feature).
#[cfg(feature = "internals")]
pub mod ledger;
#[cfg(not(feature = "internals"))]
mod ledger;
pub mod lifecycle;
pub mod live;
pub mod metrics;
pub mod progress;
pub mod reads;
pub mod receipts;
#[cfg(feature = "internals")]
pub mod redis;
#[cfg(not(feature = "internals"))]
mod redis;
pub mod rewards;
pub mod scope;
pub mod seasons;
pub mod segments;
mod totals;
pub mod transfer;
pub mod writes;

use ledger::{Ledger, LedgerError};

// The stores' types that the services take and answer, named where callers find them.
pub use ledger::audit::AuditFilter;
pub use ledger::{Applied, Draft, SETTLEMENT_PAGE, Viewer};
use metrics::Metrics;
pub use redis::ReplicaReads;
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
    NotFound { what: Missing },
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
    /// A rule refused the change; `code` is the API's machine-readable reason
    /// (`invalid_transition`, `period_settled`, `late_pending`, …), which also says its status.
    #[error("{detail}")]
    Refused { code: domain::ErrorCode, detail: String },
    #[error(transparent)]
    Ledger(LedgerError),
    #[error("projection: {0}")]
    Redis(#[from] ::redis::RedisError),
}

/// What a use case did not find, typed so that each reader words it: the API says its `Display`
/// ("member u1"), the pages say it in the reader's language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    Board(domain::BoardSlug),
    HotBoard(domain::BoardSlug),
    /// A period key as the caller wrote it, and why no period of the board can have it.
    Period {
        key: String,
        why: Option<String>,
    },
    Member(domain::MemberId),
    /// Anything else, in the API's words (a preview, a settlement revision, a late write…).
    Other(String),
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing::Board(slug) => write!(f, "board {slug}"),
            Missing::HotBoard(slug) => write!(f, "hot board {slug}"),
            Missing::Period { key, why: None } => write!(f, "period {key}"),
            Missing::Period { key, why: Some(why) } => write!(f, "period {key} ({why})"),
            Missing::Member(member) => write!(f, "member {member}"),
            Missing::Other(what) => f.write_str(what),
        }
    }
}

impl From<LedgerError> for EngineError {
    fn from(e: LedgerError) -> Self {
        match e {
            LedgerError::Refused { code, detail } => EngineError::Refused { code, detail },
            LedgerError::Missing(what) => EngineError::NotFound { what: Missing::Other(what) },
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

/// What every service shares: both stores, the metrics and the test-only crash hooks. Cheap to
/// clone; each service holds its own copy beside the state it alone owns.
#[derive(Clone)]
pub(crate) struct Core {
    pub(crate) ledger: Ledger,
    pub(crate) projection: Projection,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) failpoints: Arc<failpoints::Failpoints>,
}

impl Core {
    /// The rows of a listing `job` could read; the others are reported ([`Metrics::invalid_rows`]).
    pub(crate) fn readable<T>(&self, job: &'static str, listing: ledger::Listing<T>) -> Vec<T> {
        self.metrics.invalid_rows(job, &listing.invalid);
        listing.rows
    }
}

/// The front the server and the UI's server functions hold: the shared `Core` and the feature
/// services (see the crate's doc). It holds nothing else. Cheap to clone.
#[derive(Clone)]
pub struct Engine(Arc<Services>);

/// What the front holds, shared by all its clones: a clone of the front is one reference count,
/// whatever the services hold (each service holds clones of those it uses, so copying them all
/// on every request cost a board page half its rate; docs/BENCHMARKS.md).
struct Services {
    core: Core,
    hot: hot::Hot,
    access: access::Access,
    seasons: Arc<seasons::Seasons>,
    reads: reads::Reads,
    lifecycle: lifecycle::Lifecycle,
    writes: writes::Writes,
    jobs: jobs::Jobs,
    boards: boards::Boards,
    transfer: transfer::Transfer,
    rewards: rewards::Rewards,
    live: live::Live,
    receipts: receipts::Receipts,
}

/// Which store failed a readiness check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    pub ledger: Result<(), String>,
    pub redis: Result<(), String>,
    /// Redis answers but has reached its `maxmemory`: still ready (the ledger records every
    /// write, reads keep working), but the projection falls behind until there is room.
    pub redis_full: Option<String>,
    /// Every Redis node's version, as `INFO server` told it (empty when Redis does not answer or
    /// forbids INFO).
    pub redis_versions: Vec<String>,
}

impl Readiness {
    /// Both stores answer, and Redis is recent enough (an old one is `redis`'s error).
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
        let core = Core {
            ledger,
            projection,
            metrics: Arc::new(Metrics::default()),
            failpoints: Arc::new(failpoints::Failpoints::from_env()),
        };
        let reads = reads::Reads::new(core.clone());
        let live = live::Live::new(core.clone(), reads.clone());
        let seasons = Arc::new(seasons::Seasons::new(core.clone(), reads.clone(), live.clone()));
        let rewards = rewards::Rewards::new(core.clone());
        let lifecycle = lifecycle::Lifecycle::new(
            core.clone(),
            reads.clone(),
            live.clone(),
            Arc::clone(&seasons),
            rewards.clone(),
        );
        let writes = writes::Writes::new(core.clone(), reads.clone(), live.clone(), Arc::clone(&seasons));
        let jobs = jobs::Jobs::new(
            core.clone(),
            reads.clone(),
            live.clone(),
            Arc::clone(&seasons),
            lifecycle.clone(),
        );
        let boards = boards::Boards::new(core.clone(), reads.clone(), Arc::clone(&seasons));
        let transfer = transfer::Transfer::new(core.clone(), reads.clone());
        Self(Arc::new(Services {
            hot: hot::Hot::new(core.clone()),
            access: access::Access::new(core.clone()),
            seasons,
            rewards,
            lifecycle,
            writes,
            jobs,
            boards,
            transfer,
            receipts: receipts::Receipts::new(core.clone()),
            live,
            reads,
            core,
        }))
    }

    /// Reads: rankings, pages, counts, members' histories and what this process keeps to
    /// answer them fast.
    pub fn reads(&self) -> &reads::Reads {
        &self.0.reads
    }

    /// Boards: their definitions (boards and season boards) and the console's overview.
    pub fn boards(&self) -> &boards::Boards {
        &self.0.boards
    }

    /// A settled period exported as JSON and imported into another ledger.
    pub fn transfer(&self) -> &transfer::Transfer {
        &self.0.transfer
    }

    /// The background jobs: the scheduler, the reconciler and rebuilds.
    pub fn jobs(&self) -> &jobs::Jobs {
        &self.0.jobs
    }

    /// Writes: events, totals and submissions recorded and projected; imported totals; profiles.
    pub fn writes(&self) -> &writes::Writes {
        &self.0.writes
    }

    /// The lifecycle: transitions, settlements, late writes, revocations, corrections, previews
    /// and revisions, public freezes, hidden members and the audit trail.
    pub fn lifecycle(&self) -> &lifecycle::Lifecycle {
        &self.0.lifecycle
    }

    /// Live boards: subscriptions to a period's changes, and the announcements that wake them.
    pub fn live(&self) -> &live::Live {
        &self.0.live
    }

    /// Hot boards: hits, the snapshot job and the published lists.
    pub fn hot(&self) -> &hot::Hot {
        &self.0.hot
    }

    /// Season boards: their totals, computed from their source boards' periods.
    pub fn seasons(&self) -> &Arc<seasons::Seasons> {
        &self.0.seasons
    }

    /// Credentials: admin tokens, ingest keys, rate limits, console accounts and contestant links.
    pub fn access(&self) -> &access::Access {
        &self.0.access
    }

    /// Settlement rewards: a period's list, and their delivery to the webhook.
    pub fn rewards(&self) -> &rewards::Rewards {
        &self.0.rewards
    }

    /// Members' receipts of settlement revisions, with the trees this process built.
    pub fn receipts(&self) -> &receipts::Receipts {
        &self.0.receipts
    }

    /// Test-only crash hooks of this engine (see [`failpoints`]).
    pub fn failpoints(&self) -> &failpoints::Failpoints {
        &self.0.core.failpoints
    }

    pub fn metrics(&self) -> &Metrics {
        &self.0.core.metrics
    }

    pub fn ledger(&self) -> &Ledger {
        &self.0.core.ledger
    }

    pub fn projection(&self) -> &Projection {
        &self.0.core.projection
    }

    /// Why Redis cannot serve Laurel (a node older than 7.0), naming the version found; None when
    /// every node is recent enough. `laurel serve` refuses to start on an answer.
    pub async fn redis_version_refusal(&self) -> Result<Option<String>, EngineError> {
        Ok(self.0.core.projection.version_refusal().await?)
    }

    /// Checks that both stores answer.
    pub async fn readiness(&self) -> Readiness {
        let (ledger, redis) = tokio::join!(self.0.core.ledger.ping(), self.0.core.projection.ping());
        let mut redis = redis.map_err(|e| e.to_string());
        // A server that forbids INFO (some managed ones) is taken as not full, and its version as
        // unknown rather than old: the start already refused what it could tell was old.
        let (redis_full, redis_versions) = match redis {
            Ok(()) => (
                self.0.core.projection.memory_full().await.ok().flatten(),
                self.0.core.projection.versions().await.unwrap_or_default(),
            ),
            Err(_) => (None, Vec::new()),
        };
        if let Some(old) = redis_versions.iter().find_map(|v| redis::too_old(v)) {
            redis = Err(old);
        }
        Readiness { ledger: ledger.map_err(|e| e.to_string()), redis, redis_full, redis_versions }
    }

    /// The services, to configure before the engine is first cloned (the builders below).
    fn services_mut(&mut self) -> &mut Services {
        Arc::get_mut(&mut self.0).expect("an engine is configured before it is cloned")
    }

    /// Releases the ledger's connections (graceful shutdown).
    pub async fn close(&self) {
        self.0.core.ledger.close().await;
    }
}
