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

use super::{Backend, Ledger, LedgerError, micros};
use domain::write::{Change, Current, Decision, Outcome, Write, decide};
use domain::{Board, MemberId, PeriodKey, TiePolicy};
use sqlx::Row;
use std::collections::HashMap;

type Tx = sqlx::Transaction<'static, sqlx::Any>;

/// What the projection needs to mirror one member's new total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projected {
    pub period: PeriodKey,
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    /// The encoded Redis score (see `domain::score`).
    pub score: i64,
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
    fn bare(outcome: Outcome, period: PeriodKey, reason: Option<String>) -> Self {
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
            insert_entry(tx, "late_entries", slug, &key, write, now).await?;
            let why = (state != "open").then_some(state.as_str());
            return Ok(Recorded::bare(Outcome::Late, period, Some(late_reason(why))));
        }

        // SQLite holds its one write lock; PostgreSQL rows were locked up front (`lock_in_order`).
        let lock = if self.backend == Backend::Postgres { " FOR UPDATE" } else { "" };
        let row = sqlx::query(&format!(
            "SELECT points, version, set_version, reach_seq FROM totals \
             WHERE board = $1 AND period = $2 AND member = $3{lock}"
        ))
        .bind(slug)
        .bind(&key)
        .bind(member)
        .fetch_optional(&mut **tx)
        .await?;
        let (current, reach_seq) = match row {
            Some(row) => (
                Current {
                    points: row.try_get("points")?,
                    version: row.try_get("version")?,
                    set_version: row.try_get("set_version")?,
                },
                row.try_get::<i64, _>("reach_seq")?,
            ),
            None => (Current::default(), 0),
        };

        let new_points = match decide(&write.change, current) {
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

        let Some(points) = new_points else {
            return record_only(tx, slug, &key, write, now, current, period).await;
        };
        // The reach sequence moves only when the points move: a member keeps the moment it
        // reached its current points.
        let seq = match board.tie_policy() {
            TiePolicy::FirstReached if points != current.points || current.version == 0 => sqlx::query(
                "UPDATE periods SET next_seq = next_seq + 1 WHERE board = $1 AND period = $2 \
                     RETURNING next_seq - 1 AS seq",
            )
            .bind(slug)
            .bind(&key)
            .fetch_one(&mut **tx)
            .await?
            .try_get("seq")?,
            _ => reach_seq,
        };
        let score = match board.codec.encode(points, seq) {
            Ok(score) => score,
            // Only a used-up sequence budget gets here (bounds were checked above).
            Err(e) => return Ok(Recorded::bare(Outcome::Rejected, period, Some(e.to_string()))),
        };
        if !insert_entry(tx, "entries", slug, &key, write, now).await? {
            // Another transaction recorded the same id since our check: it counts once.
            return Ok(Recorded::bare(Outcome::Duplicate, period, None));
        }

        let version = current.version + 1;
        let set_version = match write.change {
            Change::Total { version, .. } => version,
            _ => current.set_version,
        };
        sqlx::query(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (board, period, member) DO UPDATE SET \
             points = excluded.points, version = excluded.version, reach_seq = excluded.reach_seq, \
             set_version = excluded.set_version, updated_at = excluded.updated_at",
        )
        .bind(slug)
        .bind(&key)
        .bind(member)
        .bind(points)
        .bind(version)
        .bind(seq)
        .bind(set_version)
        .bind(micros(now))
        .execute(&mut **tx)
        .await?;

        let outcome = if matches!(write.change, Change::Submission { .. }) {
            Outcome::Improved
        } else {
            Outcome::Applied
        };
        Ok(Recorded {
            outcome,
            total: Some(Projected { period, member: write.member.clone(), points, version, score }),
            period,
            reason: None,
            points: Some(points),
            version: Some(version),
        })
    }
}

/// The state of a period, creating it as `open` on its first write.
async fn period_state(tx: &mut Tx, board: &str, period: &str) -> Result<String, LedgerError> {
    sqlx::query("INSERT INTO periods (board, period, state) VALUES ($1, $2, 'open') ON CONFLICT DO NOTHING")
        .bind(board)
        .bind(period)
        .execute(&mut **tx)
        .await?;
    Ok(sqlx::query("SELECT state FROM periods WHERE board = $1 AND period = $2")
        .bind(board)
        .bind(period)
        .fetch_one(&mut **tx)
        .await?
        .try_get("state")?)
}

/// Takes every row lock a batch will need, in one global order (periods, then (period, member)),
/// so concurrent batches on PostgreSQL wait for each other instead of deadlocking. Under
/// first_reached the period row (which hands out reach sequences) is locked too.
async fn lock_in_order(
    tx: &mut Tx,
    board: &Board,
    writes: &[Write],
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    let mut rows: Vec<(String, &str)> =
        writes.iter().map(|w| (board.period_at(w.occurred_at).to_string(), w.member.as_str())).collect();
    rows.sort_unstable();
    rows.dedup();
    let mut periods: Vec<&str> = rows.iter().map(|(p, _)| p.as_str()).collect();
    periods.dedup();
    let slug = board.slug.as_str();
    for period in periods {
        sqlx::query(
            "INSERT INTO periods (board, period, state) VALUES ($1, $2, 'open') ON CONFLICT DO NOTHING",
        )
        .bind(slug)
        .bind(period)
        .execute(&mut **tx)
        .await?;
        if board.tie_policy() == TiePolicy::FirstReached {
            sqlx::query("SELECT 1 FROM periods WHERE board = $1 AND period = $2 FOR UPDATE")
                .bind(slug)
                .bind(period)
                .execute(&mut **tx)
                .await?;
        }
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

/// best: the submission is recorded (so a repeat is recognised) but the total stays.
async fn record_only(
    tx: &mut Tx,
    board: &str,
    period_key: &str,
    write: &Write,
    now: jiff::Timestamp,
    current: Current,
    period: PeriodKey,
) -> Result<Recorded, LedgerError> {
    let outcome = if insert_entry(tx, "entries", board, period_key, write, now).await? {
        Outcome::NotHigher
    } else {
        Outcome::Duplicate
    };
    let mut r = Recorded::bare(outcome, period, None);
    (r.points, r.version) = (Some(current.points), Some(current.version));
    Ok(r)
}

fn late_reason(state: Option<&str>) -> String {
    match state {
        Some(state) => format!("the period is {state}; the write is kept for review"),
        None => "the period has closed; the write is kept for review".into(),
    }
}

/// Inserts a write into `entries` or `late_entries`. Returns false when its id was already there.
async fn insert_entry(
    tx: &mut Tx,
    table: &str,
    board: &str,
    period: &str,
    write: &Write,
    now: jiff::Timestamp,
) -> Result<bool, LedgerError> {
    let (delta, value, set_version) = match write.change {
        Change::Point { delta, .. } => (Some(delta), None, None),
        Change::Total { version, total } => (None, Some(total), Some(version)),
        Change::Submission { score, .. } => (None, Some(score), None),
    };
    let time_column = if table == "entries" { "recorded_at" } else { "received_at" };
    let inserted = sqlx::query(&format!(
        "INSERT INTO {table} (board, period, member, kind, external_id, delta, value, set_version, \
         occurred_at, {time_column}, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         ON CONFLICT (board, external_id) DO NOTHING"
    ))
    .bind(board)
    .bind(period)
    .bind(write.member.as_str())
    .bind(write.change.kind())
    .bind(write.change.external_id().map(|id| id.as_str()))
    .bind(delta)
    .bind(value)
    .bind(set_version)
    .bind(micros(write.occurred_at))
    .bind(micros(now))
    .bind(write.metadata.as_deref())
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}
