//! Late writes in the ledger: a period's late writes, and the decision on each one, taken once.
//! An accepted late write is applied to its period through the same rules as every write, while
//! the period is open or frozen.
//!
//! A write lands here when its period is not `open`, or its end + the board's grace has passed
//! (`writes.rs`: the write path never relies on a freeze having happened). Accepting one goes
//! through the same `apply` as every write (decide, bounds, version, reach sequence); rejecting
//! one needs a reason. A decision is final (`already_decided`); after the settlement an accept is
//! `period_settled`, and a settlement waits until no late write is pending (`late_pending`).

use super::audit::{Act, AuditRecord, record as audit};
use super::entries::EntryMeta;
use super::lifecycle::{adjustable, lock_period_state};
use super::locks::lock_member;
use super::sql::{member_id, period_key};
use super::writes::apply;
use super::{Backend, Ledger, LedgerError, Recorded, Tx, instant, micros};
use domain::ErrorCode;
use domain::view::LateEntry;
use domain::write::Change;
use domain::{Board, BoardSlug, EventId, PeriodKey};
use serde_json::json;
use sqlx::Row;

/// A late write's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateDecision {
    pub entry: LateEntry,
    /// For an accept: what applying the write did (None for a reject or a repeated accept).
    pub applied: Option<Recorded>,
}

impl Ledger {
    /// Late writes of a period, oldest first; `status` filters (`pending`, `accepted`, `rejected`).
    pub async fn late_entries(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        status: Option<&str>,
    ) -> Result<Vec<LateEntry>, LedgerError> {
        let rows = sqlx::query(&format!(
            "SELECT {LATE_COLUMNS} FROM late_entries WHERE board = $1 AND period = $2 \
             AND ($3 IS NULL OR status = $3) ORDER BY id"
        ))
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(status)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(late_from_row).collect()
    }

    /// Accepts (applies to its period) or rejects a late write, once. An accept needs the period
    /// open or frozen; repeating the same decision answers it again, the other one is refused.
    pub async fn decide_late(
        &self,
        board: &Board,
        period: PeriodKey,
        id: i64,
        accept: bool,
        act: &Act,
    ) -> Result<LateDecision, LedgerError> {
        let (ledger, board, act) = (self.clone(), board.clone(), act.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let slug = board.slug.as_str();
            let key = period.to_string();
            let row = sqlx::query(&format!(
                "SELECT {LATE_COLUMNS} FROM late_entries WHERE board = $1 AND period = $2 AND id = $3"
            ))
            .bind(slug)
            .bind(&key)
            .bind(id)
            .fetch_optional(&mut *w.tx)
            .await?
            .ok_or_else(|| LedgerError::Missing(format!("late write {id} of {slug} {key}")))?;
            let entry = late_from_row(&row)?;
            let wanted = if accept { "accepted" } else { "rejected" };
            if entry.status == wanted {
                return Ok(LateDecision { entry, applied: None });
            }
            if entry.status != "pending" {
                return Err(LedgerError::refused(
                    ErrorCode::AlreadyDecided,
                    format!("late write {id} was {} before", entry.status),
                ));
            }
            let state = lock_period_state(&mut w.tx, ledger.backend, slug, &key).await?;
            if accept {
                adjustable(state, slug, &key)?;
            }
            let decision =
                decide_late_in(&mut w.tx, ledger.backend, &board, period, entry, accept, &act).await?;
            w.tx.commit().await?;
            Ok(decision)
        })
        .await
    }
}

/// Decides a pending late write inside `tx`, whose period row is locked (and, for an accept,
/// adjustable or being revised): applies it on accept, records the decision and its audit row.
pub(super) async fn decide_late_in(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    entry: LateEntry,
    accept: bool,
    act: &Act,
) -> Result<LateDecision, LedgerError> {
    let (actor, reason, now) = (act.actor.as_str(), act.reason(), act.now);
    let (slug, key, id) = (board.slug.as_str(), period.to_string(), entry.id);
    let wanted = if accept { "accepted" } else { "rejected" };
    lock_member(tx, backend, board, &key, &entry.member, now).await?;
    let applied = if accept {
        let change = late_change(&entry)?;
        let meta = EntryMeta { occurred_at: entry.occurred_at, metadata: None, actor: Some(actor), reason };
        Some(apply(tx, backend, board, period, &entry.member, &change, &meta, now).await?)
    } else {
        None
    };
    sqlx::query(
        "UPDATE late_entries SET status = $1, decided_by = $2, decided_at = $3, decision_reason = $4 \
         WHERE id = $5",
    )
    .bind(wanted)
    .bind(actor)
    .bind(micros(now))
    .bind(reason)
    .bind(id)
    .execute(&mut **tx)
    .await?;
    let record = AuditRecord {
        actor,
        action: if accept { "late_accepted" } else { "late_rejected" },
        board: Some(slug),
        period: Some(&key),
        member: Some(entry.member.as_str()),
        reason,
        before: Some(json!({ "late_id": id, "status": "pending" })),
        after: Some(json!({
            "late_id": id,
            "status": wanted,
            "result": applied.as_ref().map(|r| r.outcome.as_str()),
            "points": applied.as_ref().and_then(|r| r.points),
        })),
    };
    audit(tx, &record, now).await?;
    let entry = LateEntry {
        status: wanted.into(),
        decided_by: Some(actor.to_owned()),
        decision_reason: act.reason.clone(),
        ..entry
    };
    Ok(LateDecision { entry, applied })
}

/// Refuses a settlement while a late write of the period awaits review.
pub(super) async fn refuse_pending(tx: &mut Tx, slug: &str, key: &str) -> Result<(), LedgerError> {
    let pending: i64 = sqlx::query(
        "SELECT COUNT(*) AS n FROM late_entries WHERE board = $1 AND period = $2 AND status = 'pending'",
    )
    .bind(slug)
    .bind(key)
    .fetch_one(&mut **tx)
    .await?
    .try_get("n")?;
    if pending > 0 {
        return Err(LedgerError::refused(
            ErrorCode::LatePending,
            format!("{pending} late write(s) of {slug} {key} await review: accept or reject them first"),
        ));
    }
    Ok(())
}

pub(super) const LATE_COLUMNS: &str = "id, period, member, kind, external_id, delta, value, set_version, occurred_at, \
                            received_at, status, decided_by, decision_reason";

pub(super) fn late_from_row(r: &sqlx::any::AnyRow) -> Result<LateEntry, LedgerError> {
    Ok(LateEntry {
        id: r.try_get("id")?,
        period: period_key(&r.try_get::<String, _>("period")?)?,
        member: member_id(r.try_get("member")?)?,
        kind: r.try_get("kind")?,
        external_id: r.try_get("external_id")?,
        delta: r.try_get("delta")?,
        value: r.try_get("value")?,
        set_version: r.try_get("set_version")?,
        occurred_at: instant(r.try_get("occurred_at")?)?,
        received_at: instant(r.try_get("received_at")?)?,
        status: r.try_get("status")?,
        decided_by: r.try_get("decided_by")?,
        decision_reason: r.try_get("decision_reason")?,
    })
}

/// The change a late write carried, rebuilt from its row.
pub(super) fn late_change(entry: &LateEntry) -> Result<Change, LedgerError> {
    let corrupt = || LedgerError::Corrupt(format!("late write {} of kind {}", entry.id, entry.kind));
    let id = || entry.external_id.clone().and_then(|id| EventId::parse(id).ok()).ok_or_else(corrupt);
    Ok(match entry.kind.as_str() {
        "point" => Change::Point { event_id: id()?, delta: entry.delta.ok_or_else(corrupt)? },
        "total" => Change::Total {
            version: entry.set_version.ok_or_else(corrupt)?,
            total: entry.value.ok_or_else(corrupt)?,
        },
        "submission" => Change::Submission { submission_id: id()?, score: entry.value.ok_or_else(corrupt)? },
        _ => return Err(corrupt()),
    })
}
