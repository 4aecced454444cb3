//! Listings that survive a row they cannot read. A background job (the scheduler, the
//! reconciler, the reward deliverer, the hot-board job) and a public listing read many rows; one
//! row written by an older version, or by hand, must not stop them all. Such a row is left out
//! and reported, with its key, to the caller, which logs and counts it once
//! (`Metrics::invalid_rows`, `laurel_invalid_rows_total{job}`); `laurel doctor` lists and
//! quarantines it.
//!
//! The listings that return a [`Listing`]: periods (for the scheduler, the reconciler and the
//! period switcher), boards, hot boards and due rewards. Beyond a row, a period whose board cannot
//! be read fails alone in a scheduler pass, and a period that cannot be levelled fails alone in a
//! reconciler pass. This is the second half of one rule; the first is that the edge refuses what
//! the ledger cannot hold (`domain::write::admit`), so such rows come only from an older version
//! or a hand edit.

use super::LedgerError;

/// A row a listing left out because it could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InvalidRow {
    pub table: &'static str,
    /// The row's key as stored (`board period`, an id, …), to find it by hand.
    pub key: String,
    pub reason: String,
}

/// The rows a listing could read, in order, and the ones it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing<T> {
    pub rows: Vec<T>,
    pub invalid: Vec<InvalidRow>,
}

impl<T> Listing<T> {
    /// Reads every row with `parse`; a row it refuses is named by `key` and left out.
    pub(super) fn read<R>(
        table: &'static str,
        rows: &[R],
        key: impl Fn(&R) -> String,
        parse: impl Fn(&R) -> Result<T, LedgerError>,
    ) -> Self {
        let mut out = Listing { rows: Vec::with_capacity(rows.len()), invalid: Vec::new() };
        for row in rows {
            match parse(row) {
                Ok(t) => out.rows.push(t),
                Err(e) => out.invalid.push(InvalidRow { table, key: key(row), reason: e.to_string() }),
            }
        }
        out
    }
}

/// The text of a column for a row's key, or `?` when even that cannot be read.
pub(super) fn text(row: &sqlx::any::AnyRow, column: &str) -> String {
    use sqlx::Row;
    row.try_get::<String, _>(column)
        .or_else(|_| row.try_get::<i64, _>(column).map(|n| n.to_string()))
        .unwrap_or_else(|_| "?".into())
}
