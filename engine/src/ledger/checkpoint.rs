//! SQLite's WAL checkpoints, off the commit path.
//!
//! By default SQLite checkpoints inside the commit that takes the WAL past 1,000 pages: that
//! writer copies the pages back into the database file and syncs both files while every other
//! write waits behind it. Under sustained ingest that was most of a batch's cost
//! (docs/BENCHMARKS.md, ingest). The ledger's connections turn automatic checkpoints off
//! (`wal_autocheckpoint = 0`, set in `Ledger::connect`), and a task checkpoints on a connection of
//! its own instead, on another core, while writes go on appending to the WAL:
//!
//! - every `TICK`, a PASSIVE checkpoint copies what it can without waiting for anyone;
//! - copies made beside a writer never quite catch up with it, and SQLite starts the WAL over
//!   only once every page in it was copied. So when the WAL holds more than `wal_limit()` pages,
//!   the task copies again until a round finds only a few new pages (`SMALL_REST`), and then
//!   leaves the rest to the writer: the next write transaction, holding the in-process writer
//!   lock, first copies those few pages itself (`Checkpointer::finish_if_due`), and its commit
//!   starts the WAL over. That is the only checkpoint work left on the write path: a few pages,
//!   once per `wal_limit()` pages written.
//!
//! Checkpoints stay PASSIVE throughout: they never wait for readers. A long read (an export, a
//! settlement's totals) can keep old pages in use and the WAL growing until it ends, as with
//! SQLite's own checkpoints. Durability is unchanged: commits are in the WAL either way, and
//! synchronous = NORMAL syncs the WAL before a checkpoint copies it. The task ends when the last
//! handle on the ledger is dropped or the ledger is closed; SQLite checkpoints what is left when
//! the last connection closes.

use sqlx::any::AnyConnectOptions;
use sqlx::{AnyPool, ConnectOptions, Connection, Row};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// How often the checkpointer looks at the WAL.
const TICK: Duration = Duration::from_millis(50);

/// New pages since the previous round below which the rest is left to the writer.
const SMALL_REST: i64 = 256;

/// Rounds the task tries to get the rest that small before leaving it to the writer anyway.
const CATCH_UP_ROUNDS: usize = 8;

/// WAL pages beyond which the WAL is made to start over (16 Ki pages: 64 MiB of 4 KiB pages,
/// about a second of sustained batched ingest here). Tests lower it.
static WAL_LIMIT: AtomicI64 = AtomicI64::new(16_384);

fn wal_limit() -> i64 {
    WAL_LIMIT.load(Ordering::Relaxed)
}

/// Sets the WAL size (in pages) at which checkpointers in this process make the WAL start over,
/// so that a test reaches it with a few writes.
#[cfg(feature = "internals")]
pub fn set_wal_limit(pages: i64) {
    WAL_LIMIT.store(pages.max(1), Ordering::Relaxed);
}

/// The checkpointing task's handle; stops it when the last ledger handle holding it goes away.
pub(super) struct Checkpointer {
    stop: Arc<Notify>,
    /// The task left the last few pages to the next writer.
    due: Arc<AtomicBool>,
}

impl Checkpointer {
    /// Starts checkpointing the SQLite database at `url` (already created by the pool).
    pub(super) async fn start(url: &str) -> Result<Self, sqlx::Error> {
        // A connection of its own: a pool connection could be the writer's or a reader's.
        let mut conn = AnyConnectOptions::from_str(url)?.connect().await?;
        let (stop, due) = (Arc::new(Notify::new()), Arc::new(AtomicBool::new(false)));
        let (stopped, flag) = (stop.clone(), due.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stopped.notified() => break,
                    () = tokio::time::sleep(TICK) => {}
                }
                // While the writer has not taken its part, copying beside it would only race it.
                if flag.load(Ordering::Acquire) {
                    continue;
                }
                match copy_beside_writes(&mut conn).await {
                    Ok(leave_rest) => flag.store(leave_rest, Ordering::Release),
                    Err(error) => tracing::warn!(%error, "WAL checkpoint failed; retrying at the next tick"),
                }
            }
            let _ = conn.close().await;
        });
        Ok(Self { stop, due })
    }

    /// Called by a writer holding the writer lock, before it begins on `writer`: when the task
    /// left the rest of the WAL to it, copies those pages, so that this write starts the WAL
    /// over.
    pub(super) async fn finish_if_due(&self, writer: &AnyPool) -> Result<(), sqlx::Error> {
        if !self.due.load(Ordering::Acquire) {
            return Ok(());
        }
        let (in_wal, copied) = passive(writer).await?;
        tracing::debug!(in_wal, copied, "WAL checkpoint finished by the writer");
        self.due.store(false, Ordering::Release);
        Ok(())
    }

    /// Ends the task (also done on drop).
    pub(super) fn stop(&self) {
        self.stop.notify_one();
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One PASSIVE checkpoint: SQLite answers (busy, pages in the WAL, pages copied back).
async fn passive<'c>(on: impl sqlx::Executor<'c, Database = sqlx::Any>) -> Result<(i64, i64), sqlx::Error> {
    let row = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(on).await?;
    Ok((row.try_get(1)?, row.try_get(2)?))
}

/// Copies what it can beside the writes; true when the WAL is past its limit and the rest, now
/// small, is left to the writer.
async fn copy_beside_writes(conn: &mut sqlx::AnyConnection) -> Result<bool, sqlx::Error> {
    let (mut in_wal, _) = passive(&mut *conn).await?;
    if in_wal <= wal_limit() {
        return Ok(false);
    }
    for _ in 0..CATCH_UP_ROUNDS {
        let (now_in_wal, _) = passive(&mut *conn).await?;
        let new_pages = now_in_wal - in_wal;
        in_wal = now_in_wal;
        if new_pages < SMALL_REST {
            break;
        }
    }
    Ok(true)
}
