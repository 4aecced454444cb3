//! The audit trail: one row per change an admin, the scheduler or a rule made, written inside the
//! transaction of the change itself (so the trail and the ledger never disagree), and read back
//! newest first with filters and an id cursor.
//!
//! Rows are written for transitions, late decisions, revokes, corrections, hides and unhides,
//! public freezes and reveals, settlements and revisions, repairs, rebuilds, imports, key changes,
//! quarantined rows, writes refused by a rule (`write_rejected`, actor `ingest`) and reward
//! deliveries. `GET /api/v1/audit?board=&period=&member=&actor=&action=&since=&until=&limit=&cursor=`
//! pages them newest first by id.

use super::{Ledger, LedgerError, Tx, micros};
use domain::view::AuditEntry;
use sqlx::Row;

/// One audit row to write.
#[derive(Debug, Clone, Default)]
pub struct AuditRecord<'a> {
    /// `token#3`, `scheduler`, `ingest`, … — whoever caused the change.
    pub actor: &'a str,
    /// What happened: `freeze`, `settle`, `revoke`, `write_rejected`, `reward_delivered`, …
    pub action: &'a str,
    pub board: Option<&'a str>,
    pub period: Option<&'a str>,
    pub member: Option<&'a str>,
    pub reason: Option<&'a str>,
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
}

/// Who takes an admin step, why, and when: what the step's entry and its audit row record.
/// One value instead of three arguments through every step written in a transaction (`adjust.rs`,
/// `late.rs`, `moderation.rs`, `segment_moves.rs`, a preview's apply in `revise.rs`).
#[derive(Debug, Clone)]
pub struct Act {
    pub actor: String,
    /// Every step but accepting a late write needs one; the engine checks it before the ledger.
    pub reason: Option<String>,
    pub now: jiff::Timestamp,
}

impl Act {
    pub fn new(actor: &str, reason: Option<&str>, now: jiff::Timestamp) -> Self {
        Self { actor: actor.to_owned(), reason: reason.map(str::to_owned), now }
    }

    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

/// Filters of an audit read; all optional, combined with AND.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub board: Option<String>,
    pub period: Option<String>,
    pub member: Option<String>,
    pub actor: Option<String>,
    pub action: Option<String>,
    /// Only rows at or after / before these instants.
    pub since: Option<jiff::Timestamp>,
    pub until: Option<jiff::Timestamp>,
}

/// Writes an audit row in the caller's transaction.
pub(super) async fn record(
    tx: &mut Tx,
    r: &AuditRecord<'_>,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    sqlx::query(
        "INSERT INTO audit (at, actor, action, board, period, member, reason, before_state, after_state) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(micros(now))
    .bind(r.actor)
    .bind(r.action)
    .bind(r.board)
    .bind(r.period)
    .bind(r.member)
    .bind(r.reason)
    .bind(r.before.as_ref().map(|v| v.to_string()))
    .bind(r.after.as_ref().map(|v| v.to_string()))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl Ledger {
    /// Writes one audit row on its own (for changes outside the ledger, such as a rebuild).
    pub async fn audit(&self, record: &AuditRecord<'_>, now: jiff::Timestamp) -> Result<(), LedgerError> {
        let ledger = self.clone();
        let own = |s: Option<&str>| s.map(str::to_owned);
        let (actor, action) = (record.actor.to_owned(), record.action.to_owned());
        let (board, period, member, reason) =
            (own(record.board), own(record.period), own(record.member), own(record.reason));
        let (before, after) = (record.before.clone(), record.after.clone());
        super::detached(async move {
            let record = AuditRecord {
                actor: &actor,
                action: &action,
                board: board.as_deref(),
                period: period.as_deref(),
                member: member.as_deref(),
                reason: reason.as_deref(),
                before,
                after,
            };
            let mut w = ledger.begin_write().await?;
            self::record(&mut w.tx, &record, now).await?;
            w.tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// Audit rows matching `filter`, newest first, with ids below `before` (the cursor).
    pub async fn audit_page(
        &self,
        filter: &AuditFilter,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<AuditEntry>, LedgerError> {
        // Absent filters bind NULL and match everything: one statement for every combination.
        let rows = sqlx::query(
            "SELECT id, at, actor, action, board, period, member, reason, before_state, after_state \
             FROM audit WHERE id < $1 \
             AND ($2 IS NULL OR board = $2) AND ($3 IS NULL OR period = $3) \
             AND ($4 IS NULL OR member = $4) AND ($5 IS NULL OR actor = $5) \
             AND ($6 IS NULL OR action = $6) AND at >= $7 AND at < $8 \
             ORDER BY id DESC LIMIT $9",
        )
        .bind(before.unwrap_or(i64::MAX))
        .bind(filter.board.as_deref())
        .bind(filter.period.as_deref())
        .bind(filter.member.as_deref())
        .bind(filter.actor.as_deref())
        .bind(filter.action.as_deref())
        .bind(filter.since.map(micros).unwrap_or(i64::MIN))
        .bind(filter.until.map(micros).unwrap_or(i64::MAX))
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?;
        let json = |text: Option<String>| -> Result<Option<serde_json::Value>, LedgerError> {
            text.map(|t| serde_json::from_str(&t).map_err(|e| LedgerError::Corrupt(e.to_string())))
                .transpose()
        };
        rows.iter()
            .map(|r| {
                Ok(AuditEntry {
                    id: r.try_get("id")?,
                    at: super::instant(r.try_get("at")?)?,
                    actor: r.try_get("actor")?,
                    action: r.try_get("action")?,
                    board: r.try_get("board")?,
                    period: r.try_get("period")?,
                    member: r.try_get("member")?,
                    reason: r.try_get("reason")?,
                    before: json(r.try_get("before_state")?)?,
                    after: json(r.try_get("after_state")?)?,
                })
            })
            .collect()
    }
}
