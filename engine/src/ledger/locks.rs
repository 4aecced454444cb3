//! The period rows and the row locks of the write paths. A period row is created `open` on its
//! first write and hands out reach sequences (`next_seq`); on PostgreSQL a batch or an admin
//! change takes every row lock it needs up front, in one global order (periods, then (period,
//! member), each sorted: `lock_in_order`, `lock_member`), so concurrent transactions wait for
//! each other instead of deadlocking, and a freeze or settle waits for the writes in flight. In
//! one module so that the order is written once.

use super::sql::INSERT_CHUNK;
use super::{Backend, LedgerError, Tx, micros};
use domain::lifecycle::State;
use domain::write::Write;
use domain::{Board, MemberId, TiePolicy};
use sqlx::Row;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A period's row as a batch uses it: its state, and the reach sequences the batch took so far.
pub(super) struct PeriodRow {
    pub state: State,
    pub next_seq: i64,
}

/// Hands out the period's next reach sequence (the period row exists and is locked or SQLite is).
pub(super) async fn next_seq(tx: &mut Tx, board: &str, period: &str) -> Result<i64, LedgerError> {
    Ok(sqlx::query(
        "UPDATE periods SET next_seq = next_seq + 1 WHERE board = $1 AND period = $2 RETURNING next_seq - 1 AS seq",
    )
    .bind(board)
    .bind(period)
    .fetch_one(&mut **tx)
    .await?
    .try_get("seq")?)
}

/// Creates a period row (`open`) if it does not exist yet.
pub(super) async fn ensure_period(tx: &mut Tx, board: &str, period: &str) -> Result<(), LedgerError> {
    sqlx::query("INSERT INTO periods (board, period, state) VALUES ($1, $2, 'open') ON CONFLICT DO NOTHING")
        .bind(board)
        .bind(period)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The state and next reach sequence of a period on SQLite, creating it as `open` on its first
/// write (PostgreSQL reads it as it locks it: `lock_period`).
pub(super) async fn period_row(tx: &mut Tx, board: &str, period: &str) -> Result<PeriodRow, LedgerError> {
    read_period(tx, board, period, "").await
}

/// Locks a period row on PostgreSQL and reads it: exclusively under first_reached (it hands out
/// reach sequences), shared otherwise — so a freeze or settle (which update the row) waits for the
/// writes in flight, and no write commits into a period after it was settled.
async fn lock_period(tx: &mut Tx, board: &Board, period: &str) -> Result<PeriodRow, LedgerError> {
    let lock = match board.tie_policy() {
        TiePolicy::FirstReached => " FOR UPDATE",
        TiePolicy::Shared => " FOR SHARE",
    };
    read_period(tx, board.slug.as_str(), period, lock).await
}

/// Reads a period row (with `lock` appended to the `SELECT`), creating it first only when it is
/// missing: a period exists from its first write on, so a write transaction makes one statement
/// here instead of two.
async fn read_period(tx: &mut Tx, board: &str, period: &str, lock: &str) -> Result<PeriodRow, LedgerError> {
    let select = format!("SELECT state, next_seq FROM periods WHERE board = $1 AND period = $2{lock}");
    let row = match sqlx::query(&select).bind(board).bind(period).fetch_optional(&mut **tx).await? {
        Some(row) => row,
        None => {
            ensure_period(tx, board, period).await?;
            sqlx::query(&select).bind(board).bind(period).fetch_one(&mut **tx).await?
        }
    };
    let state = super::sql::parse_state(&row.try_get::<String, _>("state")?)?;
    Ok(PeriodRow { state, next_seq: row.try_get("next_seq")? })
}

/// The locks one admin change of a member's total needs, in the same order as a batch's.
pub(super) async fn lock_member(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: &str,
    member: &MemberId,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    if backend == Backend::Postgres {
        lock_rows(tx, board, vec![(period.to_owned(), member.as_str())], now).await?;
    }
    Ok(())
}

/// Takes every row lock a batch will need, in one global order (periods, then (period, member)),
/// so concurrent batches on PostgreSQL wait for each other instead of deadlocking. Answers the
/// period rows as locked (`lock_periods`).
pub(super) async fn lock_in_order(
    tx: &mut Tx,
    board: &Board,
    writes: &[Write],
    keys: &[String],
    now: jiff::Timestamp,
) -> Result<LockedPeriods, LedgerError> {
    let rows = writes.iter().zip(keys).map(|(w, key)| (key.clone(), w.member.as_str())).collect();
    lock_rows(tx, board, rows, now).await
}

/// Locks the given (period, member) rows on PostgreSQL, creating them if missing, periods first,
/// each sorted. The totals rows are locked by one statement per `INSERT_CHUNK` rows: a multi-row
/// insert whose conflicts take the existing rows' `FOR UPDATE` lock (`DO UPDATE … WHERE FALSE`
/// locks without changing anything), row by row in the order of its `VALUES` — so the order is
/// the same as locking one row after the other, new rows and existing rows alike.
async fn lock_rows(
    tx: &mut Tx,
    board: &Board,
    rows: Vec<(String, &str)>,
    now: jiff::Timestamp,
) -> Result<LockedPeriods, LedgerError> {
    let periods = lock_periods(tx, board, rows.iter().map(|(p, _)| p.as_str()).collect()).await?;
    lock_totals(tx, board.slug.as_str(), rows, now).await?;
    Ok(periods)
}

/// The period rows a transaction locked, each read under its lock, by period key.
pub(super) type LockedPeriods = HashMap<String, PeriodRow>;

/// Creates and locks the period rows a batch writes into (`lock_period`), sorted.
pub(super) async fn lock_periods(
    tx: &mut Tx,
    board: &Board,
    mut periods: Vec<&str>,
) -> Result<LockedPeriods, LedgerError> {
    periods.sort_unstable();
    periods.dedup();
    let mut locked = HashMap::with_capacity(periods.len());
    for period in periods {
        locked.insert(period.to_owned(), lock_period(tx, board, period).await?);
    }
    Ok(locked)
}

/// Creates and locks totals rows, sorted (see [`lock_rows`]).
async fn lock_totals(
    tx: &mut Tx,
    slug: &str,
    mut rows: Vec<(String, &str)>,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    rows.sort_unstable();
    rows.dedup();
    for chunk in rows.chunks(INSERT_CHUNK) {
        let mut sql = String::from(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, updated_at) VALUES ",
        );
        for i in 0..chunk.len() {
            let sep = if i == 0 { "" } else { ", " };
            let _ = write!(sql, "{sep}($1, ${}, ${}, 0, 0, 0, $2)", 2 * i + 3, 2 * i + 4);
        }
        sql.push_str(
            " ON CONFLICT (board, period, member) DO UPDATE SET updated_at = totals.updated_at WHERE FALSE",
        );
        let mut query = sqlx::query(&sql).bind(slug).bind(micros(now));
        for (period, member) in chunk {
            query = query.bind(period.as_str()).bind(*member);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}
