//! The SQL of entries, for the write paths: which ids `entries` and `late_entries` already hold
//! (`seen_ids`, the duplicate check) and the multi-row inserts of new entries and of late writes
//! kept for review (`insert_entries`, whose `ON CONFLICT` on `(board, external_id)` has the last
//! word on duplicates). The two tables share these statements because a write's id counts once
//! across both: a repeat of an applied write answers `duplicate`, of a kept one `late`.

use super::sql::{INSERT_CHUNK, LOOKUP_CHUNK, Params, multi_row_insert, padded};
use super::{Backend, LedgerError, Tx, micros};
use domain::MemberId;
use domain::write::Change;
use sqlx::Row;
use std::collections::HashSet;

/// The ids a batch found already recorded.
pub(super) struct Seen {
    /// In `entries`: the write was applied (or recorded) before.
    pub applied: HashSet<String>,
    /// In `late_entries`: the write was kept as late before.
    pub kept: HashSet<String>,
}

/// The ids among `ids` that `entries` holds (applied) and that `late_entries` holds (kept),
/// read with one statement per `LOOKUP_CHUNK` ids.
///
/// Each id is looked up by the unique (board, external_id) in a scalar subquery of the select
/// list, which PostgreSQL runs once per id. The planner of a ledger whose statistics are still
/// empty (a new database, minutes before autovacuum) believes the board's entries few, and then
/// read every one of them at each batch, while the batch's rows were locked
/// (docs/BENCHMARKS.md, ingest): as a filter over the board's entries when written as
/// `board = … AND external_id IN (…)` (100 ms and more a statement), and as one hashed pass over
/// them when written with `EXISTS` (16–36 ms, growing with the board).
pub(super) async fn seen_ids(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    ids: &[&str],
) -> Result<Seen, LedgerError> {
    let (mut applied, mut kept) = (HashSet::new(), HashSet::new());
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    for chunk in ids.chunks(LOOKUP_CHUNK) {
        let chunk = &padded(chunk);
        let mut p = Params::new(backend);
        // (board, external_id) is unique in both tables: a scalar subquery finds one row or none.
        let seen = |table: &str, board: String| {
            format!(
                "COALESCE((SELECT CAST(1 AS BIGINT) FROM {table} t WHERE t.board = {board} \
                 AND t.external_id = v.column1), 0)"
            )
        };
        let applied_sql = seen("entries", p.list(1));
        let kept_sql = seen("late_entries", p.list(1));
        let values: Vec<String> = (0..chunk.len()).map(|_| format!("({})", p.list(1))).collect();
        let sql = format!(
            "SELECT v.column1 AS external_id, {applied_sql} AS applied, {kept_sql} AS kept \
             FROM (VALUES {}) AS v",
            values.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(board).bind(board);
        for id in chunk {
            query = query.bind(*id);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let id: String = row.try_get("external_id")?;
            if row.try_get::<i64, _>("applied")? == 1 {
                applied.insert(id);
            } else if row.try_get::<i64, _>("kept")? == 1 {
                kept.insert(id);
            }
        }
    }
    Ok(Seen { applied, kept })
}

/// An entry a batch will insert (into `entries` or `late_entries`).
pub(super) struct NewEntry<'a> {
    pub period: &'a str,
    pub member: &'a MemberId,
    pub change: &'a Change,
    pub meta: EntryMeta<'a>,
    pub reach_seq: Option<i64>,
}

/// Who made an entry and why, beyond the write itself.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct EntryMeta<'a> {
    pub occurred_at: jiff::Timestamp,
    pub metadata: Option<&'a str>,
    /// The admin behind a correction or an accepted late write.
    pub actor: Option<&'a str>,
    pub reason: Option<&'a str>,
}

/// Inserts changes into `entries` or `late_entries`, in order, `INSERT_CHUNK` rows per statement.
/// Returns how many were inserted: a row whose id was already there is skipped.
pub(super) async fn insert_entries(
    tx: &mut Tx,
    backend: Backend,
    table: &str,
    board: &str,
    rows: &[NewEntry<'_>],
    now: jiff::Timestamp,
) -> Result<u64, LedgerError> {
    let (prefix, columns) = if table == "entries" {
        (
            "INSERT INTO entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, recorded_at, metadata, reach_seq, actor, reason) VALUES ",
            14,
        )
    } else {
        (
            "INSERT INTO late_entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, received_at, metadata) VALUES ",
            11,
        )
    };
    let mut inserted = 0;
    for chunk in rows.chunks(INSERT_CHUNK) {
        let mut sql = multi_row_insert(backend, prefix, columns, chunk.len());
        sql.push_str(" ON CONFLICT (board, external_id) DO NOTHING");
        let mut query = sqlx::query(&sql);
        for row in chunk {
            let (delta, value, set_version) = match *row.change {
                Change::Point { delta, .. } | Change::Correction { delta, .. } => (Some(delta), None, None),
                Change::Total { version, total } => (None, Some(total), Some(version)),
                Change::Submission { score, .. } => (None, Some(score), None),
            };
            query = query
                .bind(board)
                .bind(row.period)
                .bind(row.member.as_str())
                .bind(row.change.kind())
                .bind(row.change.external_id().map(|id| id.as_str()))
                .bind(delta)
                .bind(value)
                .bind(set_version)
                .bind(micros(row.meta.occurred_at))
                .bind(micros(now))
                .bind(row.meta.metadata);
            if table == "entries" {
                query = query.bind(row.reach_seq).bind(row.meta.actor).bind(row.meta.reason);
            }
        }
        inserted += query.execute(&mut **tx).await?.rows_affected();
    }
    Ok(inserted)
}
