//! Period transitions in the ledger: a period's state, the periods in a state, and freezing,
//! reopening or archiving a period. Every change that depends on a period's state (a transition,
//! a late decision, a revocation, a correction, a settlement) runs in one write transaction with
//! its audit row and first locks the period's row here (PostgreSQL) or holds the single writer
//! (SQLite).
//!
//! The lock is `FOR UPDATE`; writes hold the same row `FOR SHARE` (`FOR UPDATE` under
//! `first_reached`, whose writes take the period's next reach sequence: `locks.rs`), so a freeze
//! or a settle waits for the writes in flight and no write commits into a settled period. Which
//! transition moves, repeats or is refused is `domain::lifecycle::step`'s alone.

use super::audit::{AuditRecord, record as audit};
use super::locks::ensure_period;
use super::sql::{parse_state, period_key, slug};
use super::{Backend, Ledger, LedgerError, Tx, micros};
use domain::ErrorCode;
use domain::lifecycle::{State, Step, Transition, step};
use domain::{Board, BoardSlug, PeriodKey};
use serde_json::json;
use sqlx::Row;

/// What a transition did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transitioned {
    pub state: State,
    /// False when the period was already there (an idempotent repeat).
    pub moved: bool,
}

impl Ledger {
    /// A period's state (`open` when nothing was written to it yet).
    pub async fn state_of(&self, board: &BoardSlug, period: &PeriodKey) -> Result<State, LedgerError> {
        let row = sqlx::query("SELECT state FROM periods WHERE board = $1 AND period = $2")
            .bind(board.as_str())
            .bind(period.to_string())
            .fetch_optional(&self.pool)
            .await?;
        match row {
            Some(row) => parse_state(&row.try_get::<String, _>("state")?),
            None => Ok(State::Open),
        }
    }

    /// When a settled period was settled and whether it is publicly frozen; None unless settled.
    pub async fn settled_at(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Option<(jiff::Timestamp, bool)>, LedgerError> {
        let row = sqlx::query(
            "SELECT state_changed_at, public_frozen_at FROM periods \
             WHERE board = $1 AND period = $2 AND state = 'settled'",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let at = row.try_get::<Option<i64>, _>("state_changed_at")?.unwrap_or(0);
        let at = jiff::Timestamp::from_microsecond(at).map_err(|e| LedgerError::Corrupt(e.to_string()))?;
        Ok(Some((at, row.try_get::<Option<i64>, _>("public_frozen_at")?.is_some())))
    }

    /// A period's state, when its public view was taken while it is publicly frozen, and when
    /// its state last changed (a period without a row is open and never changed: the epoch).
    pub async fn period_status(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<(State, Option<jiff::Timestamp>, jiff::Timestamp), LedgerError> {
        let row = sqlx::query(
            "SELECT state, public_frozen_at, state_changed_at FROM periods WHERE board = $1 AND period = $2",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok((State::Open, None, jiff::Timestamp::UNIX_EPOCH)) };
        let instant = |micros: i64| {
            jiff::Timestamp::from_microsecond(micros).map_err(|e| LedgerError::Corrupt(e.to_string()))
        };
        let frozen_at = row.try_get::<Option<i64>, _>("public_frozen_at")?.map(instant).transpose()?;
        let changed_at = instant(row.try_get::<Option<i64>, _>("state_changed_at")?.unwrap_or(0))?;
        Ok((parse_state(&row.try_get::<String, _>("state")?)?, frozen_at, changed_at))
    }

    /// Periods in `state` whose state changed before `before` (the scheduler's archive queue).
    pub async fn periods_in_state(
        &self,
        state: State,
        changed_before: jiff::Timestamp,
    ) -> Result<Vec<(BoardSlug, PeriodKey)>, LedgerError> {
        let rows = sqlx::query(
            "SELECT board, period FROM periods WHERE state = $1 AND COALESCE(state_changed_at, 0) < $2 \
             ORDER BY board, period",
        )
        .bind(state.as_str())
        .bind(micros(changed_before))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((slug(r.try_get("board")?)?, period_key(&r.try_get::<String, _>("period")?)?)))
            .collect()
    }

    /// Freezes, reopens or archives a period (settling has its own call: it writes standings).
    pub async fn transition(
        &self,
        board: &Board,
        period: PeriodKey,
        transition: Transition,
        actor: &str,
        reason: Option<&str>,
        now: jiff::Timestamp,
    ) -> Result<Transitioned, LedgerError> {
        assert_ne!(transition, Transition::Settle, "settle goes through Ledger::settle");
        let (ledger, board, actor, reason) =
            (self.clone(), board.clone(), actor.to_owned(), reason.map(str::to_owned));
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let key = period.to_string();
            let current = lock_period_state(&mut w.tx, ledger.backend, board.slug.as_str(), &key).await?;
            let done = match step(current, transition)
                .map_err(|e| LedgerError::refused(ErrorCode::InvalidTransition, e.to_string()))?
            {
                Step::Already => Transitioned { state: current, moved: false },
                Step::Move(to) => {
                    set_state(&mut w.tx, board.slug.as_str(), &key, to, now).await?;
                    let record = AuditRecord {
                        actor: &actor,
                        action: transition.as_str(),
                        board: Some(board.slug.as_str()),
                        period: Some(&key),
                        reason: reason.as_deref(),
                        before: Some(json!({ "state": current })),
                        after: Some(json!({ "state": to })),
                        ..Default::default()
                    };
                    audit(&mut w.tx, &record, now).await?;
                    Transitioned { state: to, moved: true }
                }
            };
            w.tx.commit().await?;
            Ok(done)
        })
        .await
    }
}

/// Reads a period's state with its row locked for update (PostgreSQL; SQLite holds its writer),
/// creating the row as `open` when missing. Admin changes take this lock before any member's,
/// the same order as a batch of writes (periods, then totals).
pub(super) async fn lock_period_state(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
) -> Result<State, LedgerError> {
    ensure_period(tx, board, period).await?;
    let lock = if backend == Backend::Postgres { " FOR UPDATE" } else { "" };
    let row = sqlx::query(&format!("SELECT state FROM periods WHERE board = $1 AND period = $2{lock}"))
        .bind(board)
        .bind(period)
        .fetch_one(&mut **tx)
        .await?;
    parse_state(&row.try_get::<String, _>("state")?)
}

/// The rule of every single-change route (revoke, correct, late accept, hide): the period is
/// open or frozen. A settled or archived one changes only through an applied preview.
pub(super) fn adjustable(state: State, board: &str, period: &str) -> Result<(), LedgerError> {
    if state.is_adjustable() {
        return Ok(());
    }
    Err(LedgerError::refused(
        ErrorCode::PeriodSettled,
        format!(
            "{board} {period} is {state}: its standings change only through a preview that is applied \
             (a new settlement revision)"
        ),
    ))
}

pub(super) async fn set_state(
    tx: &mut Tx,
    board: &str,
    period: &str,
    state: State,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    sqlx::query("UPDATE periods SET state = $1, state_changed_at = $2 WHERE board = $3 AND period = $4")
        .bind(state.as_str())
        .bind(micros(now))
        .bind(board)
        .bind(period)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
