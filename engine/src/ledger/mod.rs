//! The ledger: the SQL truth (SQLite by default, PostgreSQL for several instances). The only module
//! that writes SQL. Every statement is written once in portable SQL (`$n` placeholders, BIGINT
//! microsecond instants) and runs through sqlx's `Any` driver on either backend.
//!
//! - [`Ledger::connect`] / [`Ledger::migrate`]: pools and schema (`migrations/<backend>/`). On
//!   SQLite writes run on one dedicated connection behind an in-process writer lock (one process
//!   per SQLite file; PostgreSQL for several instances). A pooled connection is pinged before use
//!   only after a second idle (`PING_WHEN_IDLE_FOR`), as sqlx already pings each on its way back.
//! - boards and profiles: definitions and display data; `hot.rs`: hot board definitions.
//! - [`Ledger::record`]: the exactly-once write of all three operators (see `writes.rs`); on SQLite
//!   calls queued for the writer, and on PostgreSQL single writes, are recorded together
//!   (`group.rs`). Its steps: `decide.rs`: deciding writes in memory; `entries.rs`: the duplicate
//!   check and the inserts of entries and late entries; `totals.rs`: reading, locking and storing
//!   totals; `locks.rs`: period rows and the row locks in their one global order.
//! - `checkpoint.rs`: SQLite's WAL checkpoints, on a connection of their own.
//! - `lifecycle.rs`: period transitions, and the period lock every change that depends on a
//!   period's state takes; `late.rs`: late decisions; `adjust.rs`: revocations and corrections;
//!   `settle.rs`: writing a settlement; `standings.rs`: reading settlements and their standings.
//! - `moderation.rs`: hidden members (a versioned flag of a member's total in a period).
//! - `seasons.rs`: the source totals a season reads and its own totals, levelled from them.
//! - `segments.rs`: members' segment values, fixed in the write's transaction, and the reads of
//!   segment rankings' totals and version sums.
//! - `previews.rs`: previews' one consistent read and their drafts; `revise.rs`: applying a draft
//!   and re-settling by revision; `public.rs`: public freezes; `auth.rs`: token and key digests;
//!   `admins.rs`: console accounts; `history.rs`, `attention.rs`, `reads.rs`: what those reads need
//!   of the ledger.
//! - [`audit`]: the audit trail, written in the transaction of each change.
//! - `leases.rs` / `schedule.rs`: the scheduler's lease and its period queries; `rewards.rs`: the
//!   reward outbox.
//! - `asof.rs`: a period's entries as they stood at an instant (the board as of a moment).
//! - `doctor.rs`: `laurel doctor`'s sweep for unreadable rows and their quarantine.
//! - `rows.rs`: listings that leave out, and report, a row they cannot read.
//! - `sql.rs`: the helpers of statements built at run time (placeholders, multi-row INSERTs, lookup
//!   chunks) and of decoding stored keys, shared by the write paths.
//! - `transfer.rs`: a settled period's export, and its import in one transaction checked by digest.
//! - `totals_import.rs`: an import of existing totals as `opening` entries, once per import id.

mod adjust;
mod admins;
mod asof;
mod attention;
pub mod audit;
mod auth;
mod boards;
mod checkpoint;
mod decide;
mod doctor;
mod entries;
mod group;
mod history;
mod hot;
mod import;
mod import_checks;
mod late;
mod leases;
mod lifecycle;
mod locks;
mod moderation;
mod previews;
mod public;
mod reads;
mod receipts;
mod resettle;
mod revise;
mod reward_deltas;
mod rewards;
mod rows;
mod schedule;
mod season_openings;
mod season_revise;
mod seasons;
mod segment_moves;
mod segments;
mod settle;
mod sql;
mod standings;
mod totals;
mod totals_import;
mod transfer;
mod write_rows;
mod writes;

pub use adjust::Revoked;
pub use admins::FailuresOf;
#[cfg(feature = "internals")]
pub use asof::set_past_page;
pub use auth::NewApiKey;
pub use boards::StoredTotal;
#[cfg(feature = "internals")]
pub use checkpoint::set_wal_limit;
pub use doctor::Finding;
pub use history::TimelineEntry;
pub use leases::Lease;
pub use previews::{Draft, PreviewBase};
pub use public::{PublicView, Viewer};
pub use receipts::StoredLink;
pub use resettle::Revision;
pub use revise::{Applied, ApplyOutcome};
pub use rewards::{Attempt, AttemptOutcome, DueReward};
pub use rows::{InvalidRow, Listing};
pub use schedule::PeriodInState;
pub use season_openings::opened;
pub use season_revise::ResettledSeason;
pub use seasons::{SeasonTotal, SourceTotal, placement_totals, summed_totals};
pub use settle::{Failpoint, digest};
#[cfg(feature = "internals")]
pub use sql::set_settle_batch;
pub use standings::{SETTLEMENT_PAGE, StoredStandings};
pub use write_rows::{Projected, Recorded};

use domain::ErrorCode;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// A pooled connection idle for this long is pinged before it is used (`Ledger::pool`).
const PING_WHEN_IDLE_FOR: Duration = Duration::from_secs(1);

/// The embedded migrations up to a version (`Ledger::migrate_until`).
#[derive(Debug)]
struct Until(&'static sqlx::migrate::Migrator, i64);

type MigrationsFuture = std::pin::Pin<
    Box<
        dyn std::future::Future<Output = Result<Vec<sqlx::migrate::Migration>, sqlx::error::BoxDynError>>
            + Send,
    >,
>;

impl sqlx::migrate::MigrationSource<'static> for Until {
    fn resolve(self) -> MigrationsFuture {
        let migrations = self.0.iter().filter(|m| m.version <= self.1).cloned().collect();
        Box::pin(async move { Ok(migrations) })
    }
}

/// Which SQL engine holds the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("unsupported database url {0:?}: use sqlite://path or postgres://…")]
    UnsupportedUrl(String),
    #[error("cannot create the directory for {path}: {source}")]
    CreateDir { path: String, source: std::io::Error },
    #[error("ledger: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("ledger migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("ledger holds an invalid row: {0}")]
    Corrupt(String),
    #[error("ledger write interrupted: {0}")]
    Interrupted(String),
    /// A lifecycle rule refused the change (checked inside its transaction); `code` is the API's.
    #[error("{detail}")]
    Refused { code: ErrorCode, detail: String },
    #[error("{0} not found")]
    Missing(String),
    /// A test-only failpoint stopped the work here, as a crash would.
    #[error("failpoint {0} hit")]
    Failpoint(&'static str),
}

impl LedgerError {
    /// A rule refused the change; `code` is the API's machine-readable reason.
    fn refused(code: ErrorCode, detail: impl Into<String>) -> Self {
        LedgerError::Refused { code, detail: detail.into() }
    }

    /// A stored row this build cannot read.
    fn corrupt(what: impl std::fmt::Display) -> Self {
        LedgerError::Corrupt(what.to_string())
    }
}

/// A handle on the ledger; cheap to clone.
#[derive(Clone)]
pub struct Ledger {
    pool: AnyPool,
    /// Where write transactions run. On SQLite its own single connection: every commit there
    /// invalidates the page cache of the file's other connections, so a writer that moved
    /// between connections read the pages it changes back from the OS at nearly every batch
    /// (docs/BENCHMARKS.md, ingest). On PostgreSQL the same pool as reads.
    writer: AnyPool,
    backend: Backend,
    /// SQLite allows one writer at a time: write transactions take this lock, in arrival order
    /// and without the writer pool's acquire timeout, before the writer connection; a writer
    /// holding it also finishes a due checkpoint (`checkpoint.rs`). (One process per SQLite
    /// file; use PostgreSQL for several instances.)
    sqlite_writer: Option<Arc<Mutex<()>>>,
    /// SQLite's WAL checkpoints, on a connection of their own (`checkpoint.rs`).
    checkpointer: Option<Arc<checkpoint::Checkpointer>>,
    /// Write calls waiting to be recorded together, by board (`group.rs`).
    groups: Arc<group::Groups>,
}

impl Ledger {
    /// Connects to `url` (`sqlite://path`, created if missing, or `postgres://…`).
    pub async fn connect(url: &str) -> Result<Self, LedgerError> {
        sqlx::any::install_default_drivers();
        let (backend, url) = if url.starts_with("sqlite:") {
            (Backend::Sqlite, sqlite_url(url)?)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, url.to_owned())
        } else {
            return Err(LedgerError::UnsupportedUrl(url.to_owned()));
        };
        let options = AnyConnectOptions::from_str(&url)?;
        let pool =
            Self::pool(backend, if backend == Backend::Sqlite { 4 } else { 16 }, options.clone()).await?;
        let writer = match backend {
            Backend::Sqlite => Self::pool(backend, 1, options).await?,
            Backend::Postgres => pool.clone(),
        };
        let sqlite_writer = (backend == Backend::Sqlite).then(|| Arc::new(Mutex::new(())));
        let checkpointer = match backend {
            Backend::Sqlite if !url.contains(":memory:") => {
                Some(Arc::new(checkpoint::Checkpointer::start(&url).await?))
            }
            _ => None,
        };
        Ok(Self { pool, writer, backend, sqlite_writer, checkpointer, groups: Arc::default() })
    }

    async fn pool(
        backend: Backend,
        connections: u32,
        options: AnyConnectOptions,
    ) -> Result<AnyPool, LedgerError> {
        Ok(AnyPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(Duration::from_secs(5))
            // sqlx pings every connection as it goes back to the pool; pinging it again as it is
            // taken out adds a round trip to every transaction and lone statement (on
            // PostgreSQL a single event's one statement was two; docs/BENCHMARKS.md, ingest).
            // Only a connection idle for a while is pinged, so one whose server went away
            // meanwhile is still replaced before it fails a request.
            .test_before_acquire(false)
            .before_acquire(|conn, meta| {
                Box::pin(async move {
                    if meta.idle_for >= PING_WHEN_IDLE_FOR {
                        sqlx::Connection::ping(conn).await?;
                    }
                    Ok(true)
                })
            })
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // WAL lets readers run beside the writer; NORMAL is durable across
                        // process crashes (not power loss), the usual trade for WAL. A 64 MiB
                        // page cache per connection keeps a million-member settlement's indexes
                        // in memory (docs/BENCHMARKS.md, settle). No commit checkpoints: the
                        // checkpointer does (`checkpoint.rs`).
                        conn.execute(
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                             PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; \
                             PRAGMA cache_size = -65536; PRAGMA wal_autocheckpoint = 0;",
                        )
                        .await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await?)
    }

    /// Applies pending migrations of this backend.
    pub async fn migrate(&self) -> Result<(), LedgerError> {
        match self.backend {
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&self.pool).await?,
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&self.pool).await?,
        }
        Ok(())
    }

    /// Applies pending migrations of this backend up to `version` only, so that a test can fill
    /// an older schema and check what a later migration makes of it.
    #[doc(hidden)]
    pub async fn migrate_until(&self, version: i64) -> Result<(), LedgerError> {
        let all = match self.backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        let migrator = sqlx::migrate::Migrator::new(Until(all, version)).await?;
        migrator.run(&self.pool).await?;
        Ok(())
    }

    /// Versions of the migrations applied so far, oldest first.
    pub async fn applied_migrations(&self) -> Result<Vec<i64>, LedgerError> {
        let rows: Vec<(i64,)> =
            sqlx::query_as("SELECT version FROM _sqlx_migrations WHERE success = TRUE ORDER BY version")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(v,)| v).collect())
    }

    /// Round-trips a trivial query (readiness).
    pub async fn ping(&self) -> Result<(), LedgerError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Closes the pool, waiting for connections in use to be returned, and stops the
    /// checkpointer.
    pub async fn close(&self) {
        if let Some(checkpointer) = &self.checkpointer {
            checkpointer.stop();
        }
        self.pool.close().await;
        self.writer.close().await;
    }

    /// Starts a write transaction. SQLite takes its write lock up front (BEGIN IMMEDIATE) so a
    /// transaction never fails half-way on a lock upgrade.
    async fn begin_write(&self) -> Result<WriteTx, LedgerError> {
        let guard = match &self.sqlite_writer {
            Some(lock) => Some(lock.clone().lock_owned().await),
            None => None,
        };
        if let Some(checkpointer) = &self.checkpointer {
            checkpointer.finish_if_due(&self.writer).await?;
        }
        let tx = match self.backend {
            Backend::Sqlite => self.writer.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.writer.begin().await?,
        };
        Ok(WriteTx { tx, _guard: guard })
    }
}

/// Makes the keyset pages of a period's totals (`… AND member > $after ORDER BY member LIMIT n`)
/// walk the totals' key in order for the rest of `tx`. A period's totals are rows PostgreSQL's
/// statistics may not know yet (the table was not analysed since the period filled); the planner
/// then expects a few rows and, for every page, sorts all the period's remaining totals: 1.1 s a
/// page instead of 0.07 s at a million members (docs/BENCHMARKS.md, settle). Sorting is priced
/// out instead. SQLite always walks the key here.
pub(super) async fn in_key_order(tx: &mut Tx, backend: Backend) -> Result<(), LedgerError> {
    if backend == Backend::Postgres {
        sqlx::query("SET LOCAL enable_sort = off").execute(&mut **tx).await?;
    }
    Ok(())
}

/// Runs a write to completion on its own task. If the caller goes away (a client hangs up
/// mid-request), the transaction still commits or rolls back instead of being dropped half-way —
/// which would return a connection with an open transaction to the pool (and keep SQLite locked).
async fn detached<T: Send + 'static>(
    work: impl std::future::Future<Output = Result<T, LedgerError>> + Send + 'static,
) -> Result<T, LedgerError> {
    match tokio::spawn(work).await {
        Ok(result) => result,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(LedgerError::Interrupted(e.to_string())),
    }
}

type Tx = sqlx::Transaction<'static, sqlx::Any>;

/// A write transaction, holding the in-process SQLite writer lock until it ends.
struct WriteTx {
    tx: sqlx::Transaction<'static, sqlx::Any>,
    _guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

/// Adds `mode=rwc` (create if missing) and creates the file's directory.
fn sqlite_url(url: &str) -> Result<String, LedgerError> {
    let rest = url.trim_start_matches("sqlite:").trim_start_matches("//");
    let path = rest.split('?').next().unwrap_or_default();
    let dir = std::path::Path::new(path).parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir.filter(|_| path != ":memory:") {
        std::fs::create_dir_all(dir)
            .map_err(|source| LedgerError::CreateDir { path: path.to_owned(), source })?;
    }
    Ok(if rest.contains("mode=") {
        url.to_owned()
    } else if rest.contains('?') {
        format!("{url}&mode=rwc")
    } else {
        format!("{url}?mode=rwc")
    })
}

/// Microseconds since the epoch: the ledger's portable instant.
fn micros(t: jiff::Timestamp) -> i64 {
    t.as_microsecond()
}

/// The instant a stored microsecond count stands for.
fn instant(us: i64) -> Result<jiff::Timestamp, LedgerError> {
    jiff::Timestamp::from_microsecond(us).map_err(|e| LedgerError::Corrupt(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::sqlite_url;

    #[test]
    fn sqlite_urls_create_the_file_when_missing() {
        let dir = std::env::temp_dir().join(format!("laurel-url-{}", std::process::id()));
        let url = format!("sqlite://{}/sub/x.db", dir.display());
        assert_eq!(sqlite_url(&url).unwrap(), format!("{url}?mode=rwc"));
        assert!(dir.join("sub").is_dir());
        std::fs::remove_dir_all(dir).unwrap();
        assert_eq!(sqlite_url("sqlite::memory:").unwrap(), "sqlite::memory:?mode=rwc");
        assert_eq!(sqlite_url("sqlite://x.db?mode=ro").unwrap(), "sqlite://x.db?mode=ro");
    }
}
