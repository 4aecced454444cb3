//! `laurel doctor`: the rows the jobs and listings leave out (`rows.rs`), found by one sweep of
//! the tables, and — for the kinds that can be moved safely — quarantined: copied into
//! `quarantine` (migration 0011: the row as JSON, the reason) and removed from their table, in
//! one transaction audited `row_quarantine` (`laurel doctor --fix`).
//!
//! Movable: a `periods` row no board can hold (its key unparsable or of another cadence, its
//! state unknown), with its totals, entries and late writes; a pending late write whose period
//! cannot be read or whose value no total within the board's bounds could take. Listed only (an
//! admin decides by hand): unreadable boards, hot boards and rewards, which other rows depend on.

use super::rows::{Listing, text};
use super::{InvalidRow, Ledger, LedgerError, micros};
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::write::{ChangeValue, value_refusal};
use domain::{Board, PeriodKey};
use sqlx::any::AnyRow;
use sqlx::{Column, Row};
use std::collections::HashMap;

/// A row the sweep found unreadable, and whether `--fix` may move it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub row: InvalidRow,
    pub movable: bool,
}

/// The audit actor of quarantines.
pub const ACTOR: &str = "doctor";

impl Ledger {
    /// Every row a job or listing would leave out.
    pub async fn find_invalid_rows(&self) -> Result<Vec<Finding>, LedgerError> {
        let mut found = Vec::new();
        let listed = |invalid: Vec<InvalidRow>, found: &mut Vec<Finding>| {
            found.extend(invalid.into_iter().map(|row| Finding { row, movable: false }));
        };
        let Listing { rows: boards, invalid } = self.boards().await?;
        listed(invalid, &mut found);
        listed(self.hot_boards().await?.invalid, &mut found);
        let boards: HashMap<String, Board> = boards.into_iter().map(|b| (b.slug.to_string(), b)).collect();

        let periods = sqlx::query("SELECT board, period, state FROM periods ORDER BY board, period")
            .fetch_all(&self.pool)
            .await?;
        for row in &periods {
            if let Err(reason) = period_refusal(&boards, row) {
                let key = super::schedule::period_row_key(row);
                found.push(Finding { row: InvalidRow { table: "periods", key, reason }, movable: true });
            }
        }

        let late = sqlx::query(
            "SELECT id, board, period, kind, delta, value FROM late_entries WHERE status = 'pending' ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        for row in &late {
            if let Err(reason) = late_refusal(&boards, row) {
                let key = format!("id {}", text(row, "id"));
                found.push(Finding { row: InvalidRow { table: "late_entries", key, reason }, movable: true });
            }
        }

        let rewards =
            sqlx::query(&format!("SELECT {} FROM rewards ORDER BY id", super::rewards::REWARD_COLUMNS))
                .fetch_all(&self.pool)
                .await?;
        for row in &rewards {
            if let Err(e) = super::rewards::reward_from_row(row) {
                let key = format!("id {}", text(row, "id"));
                let row = InvalidRow { table: "rewards", key, reason: e.to_string() };
                found.push(Finding { row, movable: false });
            }
        }
        Ok(found)
    }

    /// Moves a movable finding into `quarantine` in one transaction with its audit row; answers
    /// how many rows moved (a period moves with its totals, entries and late writes).
    pub async fn quarantine(&self, finding: &Finding, now: jiff::Timestamp) -> Result<u64, LedgerError> {
        if !finding.movable {
            return Err(LedgerError::refused(
                ErrorCode::NotMovable,
                format!("{} rows are fixed by hand", finding.row.table),
            ));
        }
        let ledger = self.clone();
        let finding = finding.clone();
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let row = &finding.row;
            // (table, the condition that selects the rows, its two or one bound values)
            let moves: Vec<(&str, &str, Vec<String>)> = match row.table {
                "periods" => {
                    let (board, period) = row.key.split_once(' ').unwrap_or((row.key.as_str(), ""));
                    let at = vec![board.to_owned(), period.to_owned()];
                    ["totals", "entries", "late_entries", "periods"]
                        .into_iter()
                        .map(|t| (t, "board = $1 AND period = $2", at.clone()))
                        .collect()
                }
                "late_entries" => {
                    let id = row.key.trim_start_matches("id ").to_owned();
                    vec![("late_entries", "CAST(id AS TEXT) = $1", vec![id])]
                }
                other => {
                    return Err(LedgerError::refused(
                        ErrorCode::NotMovable,
                        format!("{other} rows are fixed by hand"),
                    ));
                }
            };
            let mut moved = 0;
            for (table, condition, values) in &moves {
                let select_sql = format!("SELECT * FROM {table} WHERE {condition}");
                let mut select = sqlx::query(&select_sql);
                for v in values {
                    select = select.bind(v.clone());
                }
                let rows = select.fetch_all(&mut *w.tx).await?;
                for r in &rows {
                    sqlx::query(
                        "INSERT INTO quarantine (source_table, row_key, row_data, reason, quarantined_at) \
                         VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(*table)
                    .bind(&row.key)
                    .bind(row_data(r).to_string())
                    .bind(&row.reason)
                    .bind(micros(now))
                    .execute(&mut *w.tx)
                    .await?;
                }
                let delete_sql = format!("DELETE FROM {table} WHERE {condition}");
                let mut delete = sqlx::query(&delete_sql);
                for v in values {
                    delete = delete.bind(v.clone());
                }
                moved += delete.execute(&mut *w.tx).await?.rows_affected();
            }
            let (board, period) = match row.table {
                "periods" => row.key.split_once(' ').map_or((None, None), |(b, p)| (Some(b), Some(p))),
                _ => (None, None),
            };
            super::audit::record(
                &mut w.tx,
                &super::audit::AuditRecord {
                    actor: ACTOR,
                    action: "row_quarantine",
                    board,
                    period,
                    member: None,
                    reason: Some(&row.reason),
                    before: Some(serde_json::json!({ "table": row.table, "key": row.key })),
                    after: Some(serde_json::json!({ "quarantined_rows": moved })),
                },
                now,
            )
            .await?;
            w.tx.commit().await?;
            Ok(moved)
        })
        .await
    }

    /// How many rows `quarantine` holds (tests, the doctor's summary).
    pub async fn quarantined_rows(&self) -> Result<i64, LedgerError> {
        Ok(sqlx::query("SELECT COUNT(*) AS n FROM quarantine").fetch_one(&self.pool).await?.try_get("n")?)
    }
}

/// Why a `periods` row cannot be read by the jobs, if it cannot.
fn period_refusal(boards: &HashMap<String, Board>, row: &AnyRow) -> Result<(), String> {
    let (slug, period, state) = (text(row, "board"), text(row, "period"), text(row, "state"));
    let board = boards.get(&slug).ok_or_else(|| format!("board {slug:?} cannot be read"))?;
    PeriodKey::parse_for(board.cadence, &period).map_err(|e| e.to_string())?;
    State::parse(&state).ok_or_else(|| format!("unknown period state {state:?}"))?;
    Ok(())
}

/// Why a pending late write could never be accepted, if it could not.
fn late_refusal(boards: &HashMap<String, Board>, row: &AnyRow) -> Result<(), String> {
    let (slug, period, kind) = (text(row, "board"), text(row, "period"), text(row, "kind"));
    let board = boards.get(&slug).ok_or_else(|| format!("board {slug:?} cannot be read"))?;
    PeriodKey::parse_for(board.cadence, &period).map_err(|e| e.to_string())?;
    let number = |column: &str| {
        row.try_get::<Option<i64>, _>(column)
            .ok()
            .flatten()
            .ok_or_else(|| format!("a late write of kind {kind} without its {column}"))
    };
    let value = match kind.as_str() {
        "point" | "correction" => ChangeValue::Delta(number("delta")?),
        "total" => ChangeValue::Total(number("value")?),
        "submission" => ChangeValue::Score(number("value")?),
        other => return Err(format!("unknown kind {other:?}")),
    };
    value_refusal(board, value).map_or(Ok(()), Err)
}

/// A row as JSON, column by column, whatever its table (integers, reals, text; NULL as null).
fn row_data(row: &AnyRow) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for (i, column) in row.columns().iter().enumerate() {
        let value = if let Ok(v) = row.try_get::<Option<i64>, _>(i) {
            serde_json::json!(v)
        } else if let Ok(v) = row.try_get::<Option<String>, _>(i) {
            serde_json::json!(v)
        } else if let Ok(v) = row.try_get::<Option<f64>, _>(i) {
            serde_json::json!(v)
        } else {
            serde_json::Value::String("<unreadable>".into())
        };
        out.insert(column.name().to_owned(), value);
    }
    serde_json::Value::Object(out)
}
