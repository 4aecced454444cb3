//! The small SQL helpers the ledger's write paths share: placeholders for statements built at run
//! time, the rows per multi-row INSERT and per settlement statement, the keys per lookup and their
//! padding, JSON texts, and the decoding of stored keys, states and entries' effects. Kept in one place so that every statement built at
//! run time numbers its parameters the same way.

use super::{Backend, LedgerError};
use domain::lifecycle::State;
use domain::write::Effect;
use domain::{BoardSlug, MemberId, PeriodKey};
use sqlx::Row;
use sqlx::any::AnyRow;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Rows per multi-row INSERT when a settlement writes its rewards and an import its totals
/// (at most 9 columns: 4 500 parameters, within SQLite's and PostgreSQL's limits).
pub(super) const INSERT_CHUNK: usize = 500;

/// Most keys one lookup statement asks for (`seen_ids`, `read_totals`).
pub(super) const LOOKUP_CHUNK: usize = 128;

/// `keys` padded to the next power of two by repeating the last one (the lookups' answers are
/// sets), so that lookups come in a handful of statement shapes: PostgreSQL plans each new shape
/// of a prepared statement anew, while a few shapes are planned a few times per connection and
/// then run on cached plans.
pub(super) fn padded<'a>(keys: &[&'a str]) -> Vec<&'a str> {
    let mut keys = keys.to_vec();
    if let Some(&last) = keys.last() {
        keys.resize(keys.len().next_power_of_two(), last);
    }
    keys
}

/// Placeholders for a statement built at run time: anonymous `?` on SQLite (see
/// `multi_row_insert`), numbered `$n` on PostgreSQL, in the order they are written.
pub(super) struct Params {
    backend: Backend,
    next: usize,
}

impl Params {
    pub(super) fn new(backend: Backend) -> Self {
        Self { backend, next: 1 }
    }

    /// `n` placeholders separated by commas.
    pub(super) fn list(&mut self, n: usize) -> String {
        let mut out = String::with_capacity(n * 6);
        for i in 0..n {
            if i > 0 {
                out.push_str(", ");
            }
            match self.backend {
                Backend::Sqlite => out.push('?'),
                Backend::Postgres => {
                    let _ = write!(out, "${}", self.next);
                }
            }
            self.next += 1;
        }
        out
    }
}

/// `prefix` followed by `rows` groups of `columns` placeholders. SQLite gets anonymous `?`
/// (it resolves `$n` by name, one parameter at a time — quadratic in a 4 000-parameter
/// statement); PostgreSQL gets `$n`.
pub(super) fn multi_row_insert(backend: Backend, prefix: &str, columns: usize, rows: usize) -> String {
    let mut p = Params::new(backend);
    let mut sql = String::with_capacity(prefix.len() + rows * columns * 6);
    sql.push_str(prefix);
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        sql.push_str(&p.list(columns));
        sql.push(')');
    }
    sql
}

pub(super) fn parse_state(s: &str) -> Result<State, LedgerError> {
    State::parse(s).ok_or_else(|| LedgerError::Corrupt(format!("unknown period state {s:?}")))
}

pub(super) fn period_key(s: &str) -> Result<PeriodKey, LedgerError> {
    PeriodKey::parse(s).map_err(|e| LedgerError::Corrupt(e.to_string()))
}

pub(super) fn member_id(s: String) -> Result<MemberId, LedgerError> {
    MemberId::parse(s).map_err(|e| LedgerError::Corrupt(e.to_string()))
}

pub(super) fn slug(s: String) -> Result<BoardSlug, LedgerError> {
    BoardSlug::parse(s).map_err(|e| LedgerError::Corrupt(e.to_string()))
}

/// What a stored entry does to its total, from its `kind`, `delta`, `value` and `set_version`
/// columns: None for a revocation, which does nothing by itself. An entry of another kind without
/// its value is corrupt.
pub(super) fn entry_effect(r: &AnyRow) -> Result<Option<Effect>, LedgerError> {
    let kind: String = r.try_get("kind")?;
    effect_of(&kind, r.try_get("delta")?, r.try_get("value")?, r.try_get("set_version")?)
}

/// An entry's effect from its `kind`, `delta`, `value` and `set_version` columns (None for a
/// revocation).
pub(super) fn effect_of(
    kind: &str,
    delta: Option<i64>,
    value: Option<i64>,
    set_version: Option<i64>,
) -> Result<Option<Effect>, LedgerError> {
    let effect = match kind {
        "point" | "correction" => delta.map(Effect::Add),
        "total" => value.zip(set_version).map(|(total, version)| Effect::Total { version, total }),
        "submission" => value.map(Effect::Submission),
        "opening" => value.map(Effect::Opening),
        _ => None,
    };
    if effect.is_none() && kind != "revocation" {
        return Err(LedgerError::Corrupt(format!("entry of kind {kind} without its value")));
    }
    Ok(effect)
}

/// A JSON text (a block of standings, a prize table).
pub(super) fn json_text(value: &(impl serde::Serialize + ?Sized)) -> Result<String, LedgerError> {
    serde_json::to_string(value).map_err(|e| LedgerError::Corrupt(e.to_string()))
}

/// Rows per statement when a settlement reads its totals: each statement carries its rows packed
/// into one text (see `final_totals`). Tests shrink it, and with it the blocks of standings and
/// of members (see `insert_standings`).
static SETTLE_BATCH: AtomicUsize = AtomicUsize::new(50_000);

pub(super) fn settle_batch() -> usize {
    SETTLE_BATCH.load(Ordering::Relaxed)
}

/// Sets the rows per statement of settlements and imports in this process (and the block sizes
/// of the standings and the member directory, and the blocks per statement, when smaller), so
/// that a test crosses statement and block boundaries with a small board. Results never depend
/// on it.
#[cfg(feature = "internals")]
pub fn set_settle_batch(rows: usize) {
    SETTLE_BATCH.store(rows.max(1), Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::{Backend, Params, multi_row_insert};

    #[test]
    fn multi_row_inserts_use_each_backends_placeholders() {
        let sql = |backend| multi_row_insert(backend, "INSERT INTO t (a, b) VALUES ", 2, 2);
        assert_eq!(sql(Backend::Postgres), "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)");
        assert_eq!(sql(Backend::Sqlite), "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)");
    }

    #[test]
    fn params_number_on_from_where_they_left_off() {
        let mut p = Params::new(Backend::Postgres);
        assert_eq!((p.list(1), p.list(3)), ("$1".to_owned(), "$2, $3, $4".to_owned()));
        let mut p = Params::new(Backend::Sqlite);
        assert_eq!((p.list(2), p.list(1)), ("?, ?".to_owned(), "?".to_owned()));
    }
}
