//! Revocations and corrections in the ledger: the two audited admin changes to a member's total,
//! allowed while its period is open or frozen (`State::is_adjustable`; `period_settled` after:
//! a settled period changes only through an applied preview, `revise.rs`). A revocation
//! recomputes the total from the entries that still count.
//!
//! - **Revoke** (`POST …/events/{id}/revoke {reason}`): a `revocation` entry whose unique
//!   `revokes` column points at the original, so a repeat answers `already_revoked`. The total is
//!   recomputed from the entries that still count (`domain::write::replay`) with its version + 1.
//!   Under `first_reached` every recorded entry gets the period's next reach sequence, stored on
//!   the entry, and after a revoke the member's sequence is that of its last remaining entry
//!   that moved its points: the member ranks as if the revoked entry had never been recorded
//!   (test `a_revoke_under_first_reached_restores_the_reach_order`). A member whose every entry was
//!   revoked stays on the board with 0 points.
//! - **Correct** (`POST …/corrections {member, delta, reason}`): a `correction` entry with its
//!   actor and reason, applied through `apply` like any write.
//!
//! Either is then projected by the engine through the versioned script: nothing edits Redis
//! directly.

use super::audit::{Act, AuditRecord, record as audit};
use super::entries::EntryMeta;
use super::lifecycle::{adjustable, lock_period_state};
use super::locks::lock_member;
use super::sql::{entry_effect, member_id, period_key};
use super::totals::store_total;
use super::write_rows::{LockedTotal, StoredState};
use super::writes::apply;
use super::{Backend, Ledger, LedgerError, Recorded, Tx, micros};
use domain::ErrorCode;
use domain::write::{Change, Counted, replay};
use domain::{Board, EventId, MemberId, PeriodKey};
use serde_json::json;
use sqlx::Row;

/// What a revoke did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revoked {
    /// The entry no longer counts; `total` is the member's recomputed total to project.
    Revoked { period: PeriodKey, member: MemberId, total: Option<super::Projected> },
    /// A revocation of this entry was recorded before; nothing changed.
    AlreadyRevoked { period: PeriodKey, member: MemberId },
}

impl Ledger {
    /// Revokes an applied event or submission: records a revocation linked to it (once: the
    /// unique `revokes` makes a repeat `AlreadyRevoked`) and recomputes the member's total from
    /// the entries that still count. Allowed while the period is open or frozen.
    pub async fn revoke(
        &self,
        board: &Board,
        event_id: &EventId,
        actor: &str,
        reason: &str,
        now: jiff::Timestamp,
    ) -> Result<Revoked, LedgerError> {
        let (ledger, board, event_id) = (self.clone(), board.clone(), event_id.clone());
        let (actor, reason) = (actor.to_owned(), reason.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let original = original_of(&mut w.tx, &board, &event_id).await?;
            let key = original.period.to_string();
            let state = lock_period_state(&mut w.tx, ledger.backend, board.slug.as_str(), &key).await?;
            if let Err(refused) = adjustable(state, board.slug.as_str(), &key) {
                // A repeat is answered as before; a first revoke is refused.
                lock_member(&mut w.tx, ledger.backend, &board, &key, &original.member, now).await?;
                if is_revoked(&mut w.tx, original.id).await? {
                    let Original { period, member, .. } = original;
                    return Ok(Revoked::AlreadyRevoked { period, member });
                }
                return Err(refused);
            }
            let revoked =
                revoke_in(&mut w.tx, ledger.backend, &board, &original, &actor, &reason, now).await?;
            w.tx.commit().await?;
            Ok(revoked)
        })
        .await
    }

    /// An admin's correction of a member's total: an audited entry through the same rules as
    /// every write (bounds, version, reach sequence). Allowed while the period is open or frozen.
    /// With a `correction_id`, a repeat answers the first correction (`Outcome::Duplicate`).
    pub async fn correct(
        &self,
        board: &Board,
        period: PeriodKey,
        member: &MemberId,
        delta: i64,
        correction_id: Option<&EventId>,
        act: &Act,
    ) -> Result<(Recorded, i64), LedgerError> {
        let (ledger, board, member) = (self.clone(), board.clone(), member.clone());
        let (correction_id, act) = (correction_id.cloned(), act.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let (slug, key) = (board.slug.as_str(), period.to_string());
            let state = lock_period_state(&mut w.tx, ledger.backend, slug, &key).await?;
            adjustable(state, slug, &key)?;
            let id = correction_id.as_ref();
            let done =
                correct_in(&mut w.tx, ledger.backend, &board, period, &member, delta, id, &act).await?;
            w.tx.commit().await?;
            Ok(done)
        })
        .await
    }
}

/// An applied entry as a revoke needs it.
#[derive(Debug, Clone)]
pub(super) struct Original {
    pub id: i64,
    pub period: PeriodKey,
    pub member: MemberId,
    pub delta: Option<i64>,
    /// The event or submission id, when the entry has one (a correction may not).
    pub event_id: Option<String>,
}

/// The applied entry of an event or submission id.
pub(super) async fn original_of(
    tx: &mut Tx,
    board: &Board,
    event_id: &EventId,
) -> Result<Original, LedgerError> {
    let slug = board.slug.as_str();
    let row = sqlx::query(
        "SELECT id, period, member, delta, external_id FROM entries WHERE board = $1 AND external_id = $2",
    )
    .bind(slug)
    .bind(event_id.as_str())
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| LedgerError::Missing(format!("applied event {event_id} on {slug}")))?;
    original_from_row(&row)
}

/// Every entry of a member in a period that still counts, oldest first: what `revoke_member`
/// revokes.
pub(super) async fn counting_originals(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    member: &MemberId,
) -> Result<Vec<Original>, LedgerError> {
    let rows = sqlx::query(
        "SELECT e.id, e.period, e.member, e.delta, e.external_id FROM entries e \
         WHERE e.board = $1 AND e.period = $2 AND e.member = $3 AND e.kind <> 'revocation' \
         AND NOT EXISTS (SELECT 1 FROM entries r WHERE r.revokes = e.id) ORDER BY e.id",
    )
    .bind(slug)
    .bind(key)
    .bind(member.as_str())
    .fetch_all(&mut **tx)
    .await?;
    rows.iter().map(original_from_row).collect()
}

fn original_from_row(row: &sqlx::any::AnyRow) -> Result<Original, LedgerError> {
    Ok(Original {
        id: row.try_get("id")?,
        period: period_key(&row.try_get::<String, _>("period")?)?,
        member: member_id(row.try_get("member")?)?,
        delta: row.try_get("delta")?,
        event_id: row.try_get("external_id")?,
    })
}

async fn is_revoked(tx: &mut Tx, entry: i64) -> Result<bool, LedgerError> {
    Ok(sqlx::query("SELECT 1 FROM entries WHERE revokes = $1")
        .bind(entry)
        .fetch_optional(&mut **tx)
        .await?
        .is_some())
}

/// Revokes one entry inside `tx`, whose period row is locked and adjustable (or being revised):
/// a revocation linked to it (once: the unique `revokes` makes a repeat `AlreadyRevoked`), the
/// member's total recomputed from the entries that still count, and the audit row.
pub(super) async fn revoke_in(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    original: &Original,
    actor: &str,
    reason: &str,
    now: jiff::Timestamp,
) -> Result<Revoked, LedgerError> {
    let (slug, key) = (board.slug.as_str(), original.period.to_string());
    let Original { id, period, ref member, delta, ref event_id } = *original;
    lock_member(tx, backend, board, &key, member, now).await?;
    if is_revoked(tx, id).await? {
        return Ok(Revoked::AlreadyRevoked { period, member: member.clone() });
    }
    let inserted = sqlx::query(
        "INSERT INTO entries (board, period, member, kind, delta, occurred_at, recorded_at, revokes, actor, reason) \
         VALUES ($1, $2, $3, 'revocation', $4, $5, $5, $6, $7, $8) \
         ON CONFLICT (revokes) WHERE revokes IS NOT NULL DO NOTHING",
    )
    .bind(slug)
    .bind(&key)
    .bind(member.as_str())
    .bind(delta.map(|d| -d))
    .bind(micros(now))
    .bind(id)
    .bind(actor)
    .bind(reason)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(Revoked::AlreadyRevoked { period, member: member.clone() });
    }
    let (before, total) = recompute(tx, backend, board, period, member, now).await?;
    let record = AuditRecord {
        actor,
        action: "revoke",
        board: Some(slug),
        period: Some(&key),
        member: Some(member.as_str()),
        reason: Some(reason),
        before: Some(json!({ "event_id": event_id, "entry_id": id, "points": before })),
        after: Some(
            json!({ "event_id": event_id, "entry_id": id, "points": total.as_ref().map(|t| t.points) }),
        ),
    };
    audit(tx, &record, now).await?;
    Ok(Revoked::Revoked { period, member: member.clone(), total })
}

/// A correction inside `tx`, whose period row is locked and adjustable (or being revised): an
/// audited entry through the rules of every write. Answers what was recorded and the entry's id.
#[allow(
    clippy::too_many_arguments,
    reason = "the transaction, its period and the correction's member, delta and id; a struct for \
              the last three would only rename `PreviewChange::Correct` and `Correction` once more"
)]
pub(super) async fn correct_in(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    delta: i64,
    correction_id: Option<&EventId>,
    act: &Act,
) -> Result<(Recorded, i64), LedgerError> {
    let (actor, reason, now) = (act.actor.as_str(), act.reason(), act.now);
    let (slug, key) = (board.slug.as_str(), period.to_string());
    lock_member(tx, backend, board, &key, member, now).await?;
    if let Some(id) = correction_id {
        let seen =
            sqlx::query("SELECT id, period, member, kind FROM entries WHERE board = $1 AND external_id = $2")
                .bind(slug)
                .bind(id.as_str())
                .fetch_optional(&mut **tx)
                .await?;
        if let Some(seen) = seen {
            let same = seen.try_get::<String, _>("kind")? == "correction"
                && seen.try_get::<String, _>("period")? == key
                && seen.try_get::<String, _>("member")? == member.as_str();
            if !same {
                return Err(LedgerError::refused(
                    ErrorCode::IdTaken,
                    format!("{id} names another entry of {slug}"),
                ));
            }
            let current = super::totals::lock_total(tx, backend, slug, &key, member).await?.current;
            let mut r = Recorded::bare(domain::write::Outcome::Duplicate, period, None);
            (r.points, r.version) = (Some(current.points), Some(current.version));
            return Ok((r, seen.try_get("id")?));
        }
    }
    let meta = EntryMeta { occurred_at: now, metadata: None, actor: Some(actor), reason };
    let change = Change::Correction { correction_id: correction_id.cloned(), delta };
    let recorded = apply(tx, backend, board, period, member, &change, &meta, now).await?;
    if recorded.outcome == domain::write::Outcome::Rejected {
        return Err(LedgerError::refused(ErrorCode::CorrectionRejected, recorded.reason.unwrap_or_default()));
    }
    let entry_id: i64 =
        sqlx::query("SELECT MAX(id) AS id FROM entries WHERE board = $1 AND period = $2 AND member = $3")
            .bind(slug)
            .bind(&key)
            .bind(member.as_str())
            .fetch_one(&mut **tx)
            .await?
            .try_get("id")?;
    let record = AuditRecord {
        actor,
        action: "correct",
        board: Some(slug),
        period: Some(&key),
        member: Some(member.as_str()),
        reason,
        before: Some(json!({ "points": recorded.points.map(|p| p - delta) })),
        after: Some(json!({ "points": recorded.points, "delta": delta, "entry_id": entry_id })),
    };
    audit(tx, &record, now).await?;
    Ok((recorded, entry_id))
}

/// Recomputes a member's total from the entries that still count and stores it with the next
/// version. Returns the points before and the total to project.
async fn recompute(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    now: jiff::Timestamp,
) -> Result<(i64, Option<super::Projected>), LedgerError> {
    let (slug, key) = (board.slug.as_str(), period.to_string());
    let LockedTotal { current, reach_seq, hidden } =
        super::totals::lock_total(tx, backend, slug, &key, member).await?;
    let counted: Vec<Counted> =
        counting_entries(tx, slug, &key, member).await?.into_iter().map(|(_, c)| c).collect();
    let replayed = replay(&counted, board.sort())
        .ok_or_else(|| LedgerError::Corrupt(format!("the total of {member} overflows")))?;
    let state = StoredState {
        points: replayed.points,
        version: current.version + 1,
        reach_seq: replayed.reach_seq.unwrap_or(reach_seq),
        set_version: replayed.set_version,
    };
    store_total(tx, backend, slug, &key, member, state, now).await?;
    let total = board.codec.encode(state.points, state.reach_seq).ok().map(|score| super::Projected {
        period,
        member: member.clone(),
        points: state.points,
        version: state.version,
        score,
        hidden,
    });
    Ok((current.points, total))
}

/// The entries of a member in a period that still count (not revocations, not revoked), oldest
/// first, with their ids: what [`replay`] recomputes a total from.
pub(super) async fn counting_entries(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    member: &MemberId,
) -> Result<Vec<(i64, Counted)>, LedgerError> {
    let rows = sqlx::query(
        "SELECT e.id, e.kind, e.delta, e.value, e.set_version, e.reach_seq FROM entries e \
         WHERE e.board = $1 AND e.period = $2 AND e.member = $3 AND e.kind <> 'revocation' \
         AND NOT EXISTS (SELECT 1 FROM entries r WHERE r.revokes = e.id) ORDER BY e.id",
    )
    .bind(slug)
    .bind(key)
    .bind(member.as_str())
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|r| {
            // Revocations are not selected, so every row has an effect.
            let effect =
                entry_effect(r)?.ok_or_else(|| LedgerError::Corrupt("a revocation counted".into()))?;
            Ok((r.try_get("id")?, Counted { effect, reach_seq: r.try_get("reach_seq")? }))
        })
        .collect()
}
