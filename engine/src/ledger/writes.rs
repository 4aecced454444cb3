//! The exactly-once write path of all three operators.
//!
//! One transaction per call (a batch is one transaction). For each write, in order:
//! 1. a repeat of an event or submission id answers `duplicate` (or `late`, if the first copy was
//!    kept as late) and changes nothing;
//! 2. a write whose period is not `open`, or whose period ended more than the board's grace ago,
//!    is kept in `late_entries` for review and not applied — whether or not the scheduler has
//!    frozen the period yet;
//! 3. the member's total is locked and the operator decides (`domain::write::decide`); the
//!    result is checked against the board's bounds and the 2^53 codec;
//! 4. the entry is inserted, the total and its version move, and under `first_reached` the member
//!    gets the period's next reach sequence when its points changed.
//!
//! The unique `(board, external_id)` constraint has the last word on duplicates, so concurrent
//! retries through several instances still count once.

use super::{Backend, Ledger, LedgerError, Tx, micros};
use domain::write::{Change, Current, Decision, Outcome, Write, decide};
use domain::{Board, MemberId, PeriodKey, TiePolicy};
use sqlx::Row;
use std::collections::HashMap;

/// What the projection needs to mirror one member's new total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projected {
    pub period: PeriodKey,
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    /// The encoded Redis score (see `domain::score`).
    pub score: i64,
    /// The member is hidden in the period: the projection keeps its version, not its score.
    pub hidden: bool,
}

/// The ledger's answer for one write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub outcome: Outcome,
    pub period: PeriodKey,
    /// Why a write was rejected or kept as late.
    pub reason: Option<String>,
    /// The member's total after the write, when it changed (to be projected).
    pub total: Option<Projected>,
    /// The member's points and version after the write, when known.
    pub points: Option<i64>,
    pub version: Option<i64>,
}

impl Recorded {
    pub(super) fn bare(outcome: Outcome, period: PeriodKey, reason: Option<String>) -> Self {
        Self { outcome, period, reason, total: None, points: None, version: None }
    }
}

impl Ledger {
    /// Records `writes` on `board` in one transaction and answers each in order.
    pub async fn record(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<Recorded>, LedgerError> {
        let (ledger, board, writes) = (self.clone(), board.clone(), writes.to_vec());
        super::detached(async move { ledger.record_retrying(&board, &writes, now).await }).await
    }

    async fn record_retrying(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<Recorded>, LedgerError> {
        // Concurrent PostgreSQL transactions could still pick the same victims in a different
        // order in rare cases; a deadlock or serialization failure is retried as a whole.
        let mut attempt = 0;
        loop {
            match self.record_batch(board, writes, now).await {
                Err(LedgerError::Sql(sqlx::Error::Database(e)))
                    if attempt < 3 && matches!(e.code().as_deref(), Some("40P01" | "40001")) =>
                {
                    attempt += 1;
                    tracing::debug!(attempt, error = %e, "write transaction retried");
                }
                other => return other,
            }
        }
    }

    async fn record_batch(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<Recorded>, LedgerError> {
        let mut w = self.begin_write().await?;
        if self.backend == Backend::Postgres {
            lock_in_order(&mut w.tx, board, writes, now).await?;
        }
        // Period states, read once per batch (the period rows are locked or SQLite is).
        let mut states = HashMap::new();
        let mut answers = Vec::with_capacity(writes.len());
        for write in writes {
            answers.push(self.record_one(&mut w.tx, &mut states, board, write, now).await?);
        }
        w.tx.commit().await?;
        Ok(answers)
    }

    async fn record_one(
        &self,
        tx: &mut Tx,
        states: &mut HashMap<String, String>,
        board: &Board,
        write: &Write,
        now: jiff::Timestamp,
    ) -> Result<Recorded, LedgerError> {
        let period = board.period_at(write.occurred_at);
        let (slug, key, member) = (board.slug.as_str(), period.to_string(), write.member.as_str());
        let external_id = write.change.external_id().map(|id| id.as_str());

        if let Some(id) = external_id {
            // One statement answers both: applied before, or kept as late before.
            let seen = sqlx::query(
                "SELECT (SELECT COUNT(*) FROM entries WHERE board = $1 AND external_id = $2) AS applied, \
                 (SELECT COUNT(*) FROM late_entries WHERE board = $1 AND external_id = $2) AS kept",
            )
            .bind(slug)
            .bind(id)
            .fetch_one(&mut **tx)
            .await?;
            if seen.try_get::<i64, _>("applied")? > 0 {
                return Ok(Recorded::bare(Outcome::Duplicate, period, None));
            }
            if seen.try_get::<i64, _>("kept")? > 0 {
                // The same answer as the first time: a retry must not learn anything new.
                return Ok(Recorded::bare(Outcome::Late, period, Some(late_reason(None))));
            }
        }

        let state = match states.get(&key) {
            Some(state) => state.clone(),
            None => {
                let state = period_state(tx, slug, &key).await?;
                states.insert(key.clone(), state.clone());
                state
            }
        };
        let closes_at = period
            .span(&board.zone)
            .end
            .checked_add(jiff::SignedDuration::from_secs(board.freeze_grace_seconds))
            .unwrap_or(jiff::Timestamp::MAX);
        if state != "open" || now >= closes_at {
            let entry = EntryMeta {
                occurred_at: write.occurred_at,
                metadata: write.metadata.as_deref(),
                ..Default::default()
            };
            insert_entry(tx, "late_entries", slug, &key, &write.member, &write.change, &entry, None, now)
                .await?;
            let why = (state != "open").then_some(state.as_str());
            return Ok(Recorded::bare(Outcome::Late, period, Some(late_reason(why))));
        }

        let entry = EntryMeta {
            occurred_at: write.occurred_at,
            metadata: write.metadata.as_deref(),
            ..Default::default()
        };
        let recorded =
            apply(tx, self.backend, board, period, &write.member, &write.change, &entry, now).await?;
        if recorded.outcome == Outcome::Rejected {
            // A write refused by a rule is part of the audit trail (seed 003: count and explain).
            let after = serde_json::json!({ "kind": write.change.kind(), "external_id": external_id });
            super::audit::record(
                tx,
                &super::audit::AuditRecord {
                    actor: "ingest",
                    action: "write_rejected",
                    board: Some(slug),
                    period: Some(&key),
                    member: Some(member),
                    reason: recorded.reason.as_deref(),
                    before: None,
                    after: Some(after),
                },
                now,
            )
            .await?;
        }
        Ok(recorded)
    }
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

/// Applies one change to a member's total in `period`, whatever the period's state (the caller
/// has decided it may): locks the total, lets the operator decide, checks the bounds, records the
/// entry and moves the total, its version and — under `first_reached` — its reach sequence.
///
/// Under `first_reached` every recorded entry takes the period's next reach sequence; the member
/// adopts it when its points move (a member keeps the moment it reached its current points).
/// Storing it on the entry lets a revoke recompute the member's sequence (`domain::write::replay`).
#[allow(clippy::too_many_arguments)]
pub(super) async fn apply(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    change: &Change,
    entry: &EntryMeta<'_>,
    now: jiff::Timestamp,
) -> Result<Recorded, LedgerError> {
    let (slug, key) = (board.slug.as_str(), period.to_string());
    let LockedTotal { current, reach_seq, hidden } = lock_total(tx, backend, slug, &key, member).await?;
    let new_points = match decide(change, current) {
        Decision::Ignore(outcome) => {
            let mut r = Recorded::bare(outcome, period, None);
            (r.points, r.version) = (Some(current.points), Some(current.version));
            return Ok(r);
        }
        Decision::Refuse(reason) => {
            return Ok(Recorded::bare(Outcome::Rejected, period, Some(reason.into())));
        }
        Decision::RecordOnly => None,
        Decision::Change { points } => Some(points),
    };
    if let Some(points) = new_points
        && let Err(e) = board.codec.check_points(points)
    {
        return Ok(Recorded::bare(Outcome::Rejected, period, Some(e.to_string())));
    }
    let entry_seq = match board.tie_policy() {
        TiePolicy::FirstReached => Some(next_seq(tx, slug, &key).await?),
        TiePolicy::Shared => None,
    };
    let Some(points) = new_points else {
        // best: the submission is recorded (so a repeat is recognised) but the total stays.
        let outcome =
            if insert_entry(tx, "entries", slug, &key, member, change, entry, entry_seq, now).await? {
                Outcome::NotHigher
            } else {
                Outcome::Duplicate
            };
        let mut r = Recorded::bare(outcome, period, None);
        (r.points, r.version) = (Some(current.points), Some(current.version));
        return Ok(r);
    };
    let moved = points != current.points || current.version == 0;
    let seq = match entry_seq {
        Some(seq) if moved => seq,
        _ => reach_seq,
    };
    let score = match board.codec.encode(points, seq) {
        Ok(score) => score,
        // Only a used-up sequence budget gets here (bounds were checked above).
        Err(e) => return Ok(Recorded::bare(Outcome::Rejected, period, Some(e.to_string()))),
    };
    if !insert_entry(tx, "entries", slug, &key, member, change, entry, entry_seq, now).await? {
        // Another transaction recorded the same id since our check: it counts once.
        return Ok(Recorded::bare(Outcome::Duplicate, period, None));
    }
    let set_version = match *change {
        Change::Total { version, .. } => version,
        _ => current.set_version,
    };
    let version = current.version + 1;
    store_total(tx, slug, &key, member, StoredState { points, version, reach_seq: seq, set_version }, now)
        .await?;
    let outcome =
        if matches!(change, Change::Submission { .. }) { Outcome::Improved } else { Outcome::Applied };
    Ok(Recorded {
        outcome,
        // A hidden member stays hidden: its new total is recorded and projected out of the ranking.
        total: Some(Projected { period, member: member.clone(), points, version, score, hidden }),
        period,
        reason: None,
        points: Some(points),
        version: Some(version),
    })
}

/// A member's total as stored, with its reach sequence.
#[derive(Debug, Clone, Copy)]
pub(super) struct StoredState {
    pub points: i64,
    pub version: i64,
    pub reach_seq: i64,
    pub set_version: i64,
}

/// A member's total as [`lock_total`] read it.
#[derive(Debug, Clone, Copy)]
pub(super) struct LockedTotal {
    pub current: Current,
    pub reach_seq: i64,
    /// Hidden in the period (moderation): kept by every change of the total.
    pub hidden: bool,
}

/// Reads a member's total for change. SQLite holds its one write lock; on PostgreSQL the row was
/// locked up front (`lock_in_order` / `lock_member`) and `FOR UPDATE` re-asserts it.
pub(super) async fn lock_total(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    member: &MemberId,
) -> Result<LockedTotal, LedgerError> {
    let lock = if backend == Backend::Postgres { " FOR UPDATE" } else { "" };
    let row = sqlx::query(&format!(
        "SELECT points, version, set_version, reach_seq, hidden FROM totals \
         WHERE board = $1 AND period = $2 AND member = $3{lock}"
    ))
    .bind(board)
    .bind(period)
    .bind(member.as_str())
    .fetch_optional(&mut **tx)
    .await?;
    Ok(match row {
        Some(row) => LockedTotal {
            current: Current {
                points: row.try_get("points")?,
                version: row.try_get("version")?,
                set_version: row.try_get("set_version")?,
            },
            reach_seq: row.try_get("reach_seq")?,
            hidden: row.try_get::<i64, _>("hidden")? != 0,
        },
        None => LockedTotal { current: Current::default(), reach_seq: 0, hidden: false },
    })
}

/// Writes a member's total (creating the row on its first change). `hidden` is left as it is:
/// only `Ledger::set_hidden` changes it.
pub(super) async fn store_total(
    tx: &mut Tx,
    board: &str,
    period: &str,
    member: &MemberId,
    state: StoredState,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    sqlx::query(
        "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (board, period, member) DO UPDATE SET \
         points = excluded.points, version = excluded.version, reach_seq = excluded.reach_seq, \
         set_version = excluded.set_version, updated_at = excluded.updated_at",
    )
    .bind(board)
    .bind(period)
    .bind(member.as_str())
    .bind(state.points)
    .bind(state.version)
    .bind(state.reach_seq)
    .bind(state.set_version)
    .bind(micros(now))
    .execute(&mut **tx)
    .await?;
    Ok(())
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

/// The state of a period, creating it as `open` on its first write.
async fn period_state(tx: &mut Tx, board: &str, period: &str) -> Result<String, LedgerError> {
    ensure_period(tx, board, period).await?;
    Ok(sqlx::query("SELECT state FROM periods WHERE board = $1 AND period = $2")
        .bind(board)
        .bind(period)
        .fetch_one(&mut **tx)
        .await?
        .try_get("state")?)
}

/// Locks a period row on PostgreSQL: exclusively under first_reached (it hands out reach
/// sequences), shared otherwise — so a freeze or settle (which update the row) waits for the
/// writes in flight, and no write commits into a period after it was settled.
async fn lock_period(tx: &mut Tx, board: &Board, period: &str) -> Result<(), LedgerError> {
    let mode = match board.tie_policy() {
        TiePolicy::FirstReached => "UPDATE",
        TiePolicy::Shared => "SHARE",
    };
    sqlx::query(&format!("SELECT 1 FROM periods WHERE board = $1 AND period = $2 FOR {mode}"))
        .bind(board.slug.as_str())
        .bind(period)
        .execute(&mut **tx)
        .await?;
    Ok(())
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
/// so concurrent batches on PostgreSQL wait for each other instead of deadlocking.
async fn lock_in_order(
    tx: &mut Tx,
    board: &Board,
    writes: &[Write],
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    let rows =
        writes.iter().map(|w| (board.period_at(w.occurred_at).to_string(), w.member.as_str())).collect();
    lock_rows(tx, board, rows, now).await
}

/// Locks the given (period, member) rows, creating them if missing, periods first, each sorted.
async fn lock_rows(
    tx: &mut Tx,
    board: &Board,
    mut rows: Vec<(String, &str)>,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    rows.sort_unstable();
    rows.dedup();
    let mut periods: Vec<&str> = rows.iter().map(|(p, _)| p.as_str()).collect();
    periods.dedup();
    let slug = board.slug.as_str();
    for period in periods {
        ensure_period(tx, slug, period).await?;
        lock_period(tx, board, period).await?;
    }
    for (period, member) in &rows {
        sqlx::query(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, updated_at) \
             VALUES ($1, $2, $3, 0, 0, 0, $4) ON CONFLICT DO NOTHING",
        )
        .bind(slug)
        .bind(period)
        .bind(member)
        .bind(micros(now))
        .execute(&mut **tx)
        .await?;
        sqlx::query("SELECT 1 FROM totals WHERE board = $1 AND period = $2 AND member = $3 FOR UPDATE")
            .bind(slug)
            .bind(period)
            .bind(member)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

fn late_reason(state: Option<&str>) -> String {
    match state {
        Some(state) => format!("the period is {state}; the write is kept for review"),
        None => "the period has closed; the write is kept for review".into(),
    }
}

/// Inserts a change into `entries` or `late_entries`. Returns false when its id was already there.
#[allow(clippy::too_many_arguments)]
pub(super) async fn insert_entry(
    tx: &mut Tx,
    table: &str,
    board: &str,
    period: &str,
    member: &MemberId,
    change: &Change,
    entry: &EntryMeta<'_>,
    reach_seq: Option<i64>,
    now: jiff::Timestamp,
) -> Result<bool, LedgerError> {
    let (delta, value, set_version) = match *change {
        Change::Point { delta, .. } | Change::Correction { delta, .. } => (Some(delta), None, None),
        Change::Total { version, total } => (None, Some(total), Some(version)),
        Change::Submission { score, .. } => (None, Some(score), None),
    };
    let sql = if table == "entries" {
        "INSERT INTO entries (board, period, member, kind, external_id, delta, value, set_version, \
         occurred_at, recorded_at, metadata, reach_seq, actor, reason) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
         ON CONFLICT (board, external_id) DO NOTHING"
    } else {
        "INSERT INTO late_entries (board, period, member, kind, external_id, delta, value, set_version, \
         occurred_at, received_at, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         ON CONFLICT (board, external_id) DO NOTHING"
    };
    let mut query = sqlx::query(sql)
        .bind(board)
        .bind(period)
        .bind(member.as_str())
        .bind(change.kind())
        .bind(change.external_id().map(|id| id.as_str()))
        .bind(delta)
        .bind(value)
        .bind(set_version)
        .bind(micros(entry.occurred_at))
        .bind(micros(now))
        .bind(entry.metadata);
    if table == "entries" {
        query = query.bind(reach_seq).bind(entry.actor).bind(entry.reason);
    }
    Ok(query.execute(&mut **tx).await?.rows_affected() == 1)
}
