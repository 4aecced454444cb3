//! The reward outbox in the ledger: claiming due rewards for delivery, recording each attempt and
//! its outcome, and reading a period's rewards back with their attempts.
//!
//! Rows are written by the settlement (`settle.rs`, status `pending`). Delivery moves a row to
//! `delivered` or, after the last attempt, `failed`; each of those changes writes its audit row in
//! the same transaction. Several processes may deliver from one PostgreSQL ledger: a claim is a
//! compare-and-set that pushes `next_attempt_at` past the claim's lease, so only one process wins
//! a due row, and the pushed instant doubles as the claim's fencing token (see [`DueReward`]).

use super::audit::{AuditRecord, record as audit};
use super::{Ledger, LedgerError, Tx, instant, micros};
use domain::view::{RewardAttempt, RewardKind, RewardView};
use domain::{BoardSlug, MemberId, PeriodKey};
use serde_json::json;
use sqlx::Row;

/// The actor of every audit row the delivery writes.
const ACTOR: &str = "rewards";

/// A reward this process claimed: due, pending, and held until the claim's lease ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueReward {
    pub id: i64,
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub revision: i64,
    pub member: MemberId,
    pub rank: u64,
    pub prize: String,
    /// The ranking that earned it: None for the board's own, `province:zj` for a segment's.
    pub ranking: Option<String>,
    /// `laurel:<board>:<period>:<revision>:<member>` (`…:revoke` for a revoke, then
    /// `#<dimension>:<value>` for a segment's reward; [`reward_key`]): the receiver deduplicates
    /// by it.
    pub idempotency_key: String,
    pub kind: RewardKind,
    /// For a revoke: the idempotency key of the grant it takes back.
    pub compensates: Option<String>,
    /// Attempts recorded before this claim.
    pub attempts: u32,
    /// The `next_attempt_at` the claim wrote (µs). Strictly later for every later claim of the
    /// row (a reclaim happens only after this instant), so it tells this claim from a newer one.
    claimed_until: i64,
}

/// What the receiver answered to one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub at: jiff::Timestamp,
    /// The HTTP status, when the receiver answered at all.
    pub http_status: Option<u16>,
    /// Why the attempt failed (network error, timeout, non-2xx); `None` on success.
    pub error: Option<String>,
}

/// Where an attempt leaves its reward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// The receiver accepted it: `delivered`, for good.
    Delivered,
    /// Try again at this instant.
    RetryAt(jiff::Timestamp),
    /// The last attempt failed: `failed`, for good.
    Failed,
}

/// (`compensates` reads as the idempotency key of the reward a `revoke` row takes back.)
pub(super) const REWARD_COLUMNS: &str = "id, board, period, revision, member, rank, prize, idempotency_key, status, \
                              attempts, next_attempt_at, delivered_at, kind, ranking, \
                              (SELECT c.idempotency_key FROM rewards c WHERE c.id = rewards.compensates) AS compensates";

impl Ledger {
    /// Claims up to `limit` due rewards (pending, `next_attempt_at <= now`), oldest first, by
    /// moving each one's `next_attempt_at` to `now + lease` where it is still what was read.
    /// A row another process claimed meanwhile no longer matches and is skipped; a claim that is
    /// never finished (a crash) lets the row fall due again when the lease ends. A row that
    /// cannot be read is claimed all the same (so it cannot hold a place in every batch) and
    /// reported instead of answered.
    pub async fn claim_due_rewards(
        &self,
        now: jiff::Timestamp,
        lease: std::time::Duration,
        limit: u32,
    ) -> Result<super::Listing<DueReward>, LedgerError> {
        let lease = jiff::SignedDuration::try_from(lease).map_err(|e| LedgerError::Corrupt(e.to_string()))?;
        let until = micros(now).saturating_add(lease.as_micros().try_into().unwrap_or(i64::MAX));
        let ledger = self.clone();
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let due = sqlx::query(&format!(
                "SELECT {REWARD_COLUMNS} FROM rewards WHERE status = 'pending' AND next_attempt_at <= $1 \
                 ORDER BY next_attempt_at, id LIMIT $2"
            ))
            .bind(micros(now))
            .bind(i64::from(limit))
            .fetch_all(&mut *w.tx)
            .await?;
            let mut claimed = super::Listing { rows: Vec::with_capacity(due.len()), invalid: Vec::new() };
            for row in &due {
                let (id, seen): (i64, i64) = (row.try_get("id")?, row.try_get("next_attempt_at")?);
                let won = sqlx::query(
                    "UPDATE rewards SET next_attempt_at = $1 \
                     WHERE id = $2 AND status = 'pending' AND next_attempt_at = $3",
                )
                .bind(until)
                .bind(id)
                .bind(seen)
                .execute(&mut *w.tx)
                .await?
                .rows_affected();
                if won == 1 {
                    let view = match reward_from_row(row) {
                        Ok(view) => view,
                        Err(e) => {
                            let key = format!("id {id}");
                            claimed.invalid.push(super::InvalidRow {
                                table: "rewards",
                                key,
                                reason: e.to_string(),
                            });
                            continue;
                        }
                    };
                    claimed.rows.push(DueReward {
                        id,
                        board: view.board,
                        period: view.period,
                        revision: view.revision,
                        member: view.member,
                        rank: view.rank,
                        prize: view.prize,
                        ranking: view.ranking,
                        idempotency_key: view.idempotency_key,
                        kind: view.kind,
                        compensates: view.compensates,
                        attempts: view.attempts,
                        claimed_until: until,
                    });
                }
            }
            w.tx.commit().await?;
            Ok(claimed)
        })
        .await
    }

    /// Records an attempt on a claimed reward and where it leaves the reward, in one transaction
    /// (with an audit row when the reward is delivered or failed). The attempt row is always
    /// kept; the reward moves only if it is still pending — and, to retry or fail, only if the
    /// claim still holds (another process has not reclaimed it since). Answers whether it moved.
    pub async fn finish_reward_attempt(
        &self,
        reward: &DueReward,
        attempt: &Attempt,
        outcome: AttemptOutcome,
    ) -> Result<bool, LedgerError> {
        let (ledger, reward, attempt) = (self.clone(), reward.clone(), attempt.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let now = attempt.at;
            sqlx::query(
                "INSERT INTO reward_attempts (reward_id, attempted_at, http_status, error) VALUES ($1, $2, $3, $4)",
            )
            .bind(reward.id)
            .bind(micros(now))
            .bind(attempt.http_status.map(i64::from))
            .bind(attempt.error.as_deref())
            .execute(&mut *w.tx)
            .await?;
            let moved = match outcome {
                AttemptOutcome::Delivered => sqlx::query(
                    "UPDATE rewards SET status = 'delivered', delivered_at = $1, attempts = attempts + 1 \
                     WHERE id = $2 AND status = 'pending'",
                )
                .bind(micros(now))
                .bind(reward.id),
                AttemptOutcome::RetryAt(at) => sqlx::query(
                    "UPDATE rewards SET next_attempt_at = $1, attempts = attempts + 1 \
                     WHERE id = $2 AND status = 'pending' AND next_attempt_at = $3",
                )
                .bind(micros(at))
                .bind(reward.id)
                .bind(reward.claimed_until),
                AttemptOutcome::Failed => sqlx::query(
                    "UPDATE rewards SET status = 'failed', attempts = attempts + 1 \
                     WHERE id = $1 AND status = 'pending' AND next_attempt_at = $2",
                )
                .bind(reward.id)
                .bind(reward.claimed_until),
            }
            .execute(&mut *w.tx)
            .await?
            .rows_affected()
                == 1;
            let action = match outcome {
                AttemptOutcome::Delivered => Some("reward_delivered"),
                AttemptOutcome::Failed => Some("reward_failed"),
                AttemptOutcome::RetryAt(_) => None,
            };
            if let Some(action) = action.filter(|_| moved) {
                audit_change(&mut w.tx, &reward, &attempt, action).await?;
            }
            w.tx.commit().await?;
            Ok(moved)
        })
        .await
    }

    /// A period's rewards (every revision) with their attempts, by revision, rank and member (a
    /// revoke before the grant that replaces it).
    pub async fn rewards(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Vec<RewardView>, LedgerError> {
        let key = period.to_string();
        let rows = sqlx::query(&format!(
            "SELECT {REWARD_COLUMNS} FROM rewards WHERE board = $1 AND period = $2 \
             ORDER BY revision, rank, member, kind DESC"
        ))
        .bind(board.as_str())
        .bind(&key)
        .fetch_all(&self.pool)
        .await?;
        let mut rewards = rows.iter().map(reward_from_row).collect::<Result<Vec<_>, _>>()?;
        let attempts = sqlx::query(
            "SELECT a.reward_id, a.attempted_at, a.http_status, a.error FROM reward_attempts a \
             JOIN rewards r ON r.id = a.reward_id WHERE r.board = $1 AND r.period = $2 \
             ORDER BY a.reward_id, a.id",
        )
        .bind(board.as_str())
        .bind(&key)
        .fetch_all(&self.pool)
        .await?;
        for row in &attempts {
            let reward_id: i64 = row.try_get("reward_id")?;
            let http_status: Option<i64> = row.try_get("http_status")?;
            let attempt = RewardAttempt {
                attempted_at: instant(row.try_get("attempted_at")?)?,
                http_status: http_status.map(|s| u16::try_from(s).map_err(|e| corrupt(&e))).transpose()?,
                error: row.try_get("error")?,
            };
            if let Some(reward) = rewards.iter_mut().find(|r| r.id == reward_id) {
                reward.history.push(attempt);
            }
        }
        Ok(rewards)
    }
}

/// The audit row of a reward that reached `delivered` or `failed`.
async fn audit_change(
    tx: &mut Tx,
    reward: &DueReward,
    attempt: &Attempt,
    action: &str,
) -> Result<(), LedgerError> {
    let (key, status) =
        (reward.period.to_string(), if action == "reward_delivered" { "delivered" } else { "failed" });
    let record = AuditRecord {
        actor: ACTOR,
        action,
        board: Some(reward.board.as_str()),
        period: Some(&key),
        member: Some(reward.member.as_str()),
        reason: attempt.error.as_deref(),
        before: Some(json!({ "status": "pending", "attempts": reward.attempts })),
        after: Some(json!({
            "status": status,
            "attempts": reward.attempts + 1,
            "http_status": attempt.http_status,
            "idempotency_key": reward.idempotency_key,
            "prize": reward.prize,
        })),
    };
    audit(tx, &record, attempt.at).await
}

pub(super) fn reward_from_row(r: &sqlx::any::AnyRow) -> Result<RewardView, LedgerError> {
    let delivered_at: Option<i64> = r.try_get("delivered_at")?;
    Ok(RewardView {
        id: r.try_get("id")?,
        board: BoardSlug::parse(r.try_get::<String, _>("board")?).map_err(|e| corrupt(&e))?,
        period: PeriodKey::parse(&r.try_get::<String, _>("period")?).map_err(|e| corrupt(&e))?,
        revision: r.try_get("revision")?,
        member: MemberId::parse(r.try_get::<String, _>("member")?).map_err(|e| corrupt(&e))?,
        rank: u64::try_from(r.try_get::<i64, _>("rank")?).map_err(|e| corrupt(&e))?,
        prize: r.try_get("prize")?,
        ranking: Some(r.try_get::<String, _>("ranking")?).filter(|r| !r.is_empty()),
        idempotency_key: r.try_get("idempotency_key")?,
        status: r.try_get("status")?,
        attempts: u32::try_from(r.try_get::<i64, _>("attempts")?).map_err(|e| corrupt(&e))?,
        next_attempt_at: instant(r.try_get("next_attempt_at")?)?,
        delivered_at: delivered_at.map(instant).transpose()?,
        kind: match r.try_get::<String, _>("kind")?.as_str() {
            "grant" => RewardKind::Grant,
            "revoke" => RewardKind::Revoke,
            other => return Err(corrupt(&format!("reward kind {other:?}"))),
        },
        compensates: r.try_get("compensates")?,
        history: Vec::new(),
    })
}

/// A reward's idempotency key: `laurel:<board>:<period>:<revision>:<member>`, `:revoke` after it
/// for a revoke, then `#<dimension>:<value>` for a segment ranking's reward (`#` is in no member
/// id, so no two rankings' keys meet).
pub(super) fn reward_key(
    board: &str,
    period: &str,
    revision: i64,
    member: &str,
    kind: RewardKind,
    ranking: Option<&str>,
) -> String {
    let revoke = match kind {
        RewardKind::Grant => "",
        RewardKind::Revoke => ":revoke",
    };
    let segment = ranking.map(|r| format!("#{r}")).unwrap_or_default();
    format!("laurel:{board}:{period}:{revision}:{member}{revoke}{segment}")
}

fn corrupt(e: &dyn std::fmt::Display) -> LedgerError {
    LedgerError::Corrupt(e.to_string())
}
