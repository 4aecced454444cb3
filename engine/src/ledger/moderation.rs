//! Hidden members in the ledger. Hiding or unhiding a member in a period is a change of its total
//! (`totals.hidden`, migration 0007): the version rises, so the projection carries it with the
//! same version guard as every score; the entries stay as they are. Each change is audited in its
//! own transaction, with the period row locked as for a correction.

use super::audit::{Act, AuditRecord, record as audit};
use super::lifecycle::{adjustable, lock_period_state};
use super::locks::lock_member;
use super::totals::lock_total;
use super::write_rows::LockedTotal;
use super::{Backend, Ledger, LedgerError, Projected, Tx, micros};
use domain::{Board, BoardSlug, MemberId, PeriodKey};
use serde_json::json;

/// What a hide or an unhide did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenChange {
    /// False when the member already was hidden (or visible) as asked: nothing was written.
    pub changed: bool,
    /// The member's total afterwards, with its hidden state: what the projection must mirror.
    pub total: Projected,
}

/// A member's total in a period as the ledger holds it (the console's view of a member).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberTotal {
    pub points: i64,
    pub version: i64,
    pub hidden: bool,
}

impl Ledger {
    /// Hides (`hidden`) or shows again a member of a period that has a total there. Allowed while
    /// the period is open or frozen (`period_settled` after: the standings are final). Asking for
    /// the state the member is already in changes nothing — no version, no audit row — and
    /// answers `changed: false`, whatever the period's state (a retried call gets the same answer).
    pub async fn set_hidden(
        &self,
        board: &Board,
        period: PeriodKey,
        member: &MemberId,
        hidden: bool,
        act: &Act,
    ) -> Result<HiddenChange, LedgerError> {
        let (ledger, board, member, act) = (self.clone(), board.clone(), member.clone(), act.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let (slug, key) = (board.slug.as_str(), period.to_string());
            let state = lock_period_state(&mut w.tx, ledger.backend, slug, &key).await?;
            let change =
                set_hidden_in(&mut w.tx, ledger.backend, &board, period, &member, hidden, &act, || {
                    adjustable(state, slug, &key).err()
                })
                .await?;
            if change.changed {
                w.tx.commit().await?;
            }
            Ok(change)
        })
        .await
    }

    /// A member's total in a period, hidden or not; None when the member has none there.
    pub async fn member_total(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        member: &MemberId,
    ) -> Result<Option<MemberTotal>, LedgerError> {
        let found = self.totals_of(board, period, std::slice::from_ref(member)).await?;
        Ok(found.into_iter().next().map(|t| MemberTotal {
            points: t.points,
            version: t.version,
            hidden: t.hidden,
        }))
    }
}

/// Hides or shows a member inside `tx`, whose period row is locked. Asking for the state the
/// member is already in writes nothing and answers `changed: false`; otherwise `refusal` (the
/// caller's rule on the period's state) is asked first, then the flag, the version and the audit
/// row are written.
#[allow(
    clippy::too_many_arguments,
    reason = "the transaction, its period, the member, the flag and the caller's rule: a struct would \
              hold one call's arguments and be unpacked at once"
)]
pub(super) async fn set_hidden_in(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    hidden: bool,
    act: &Act,
    refusal: impl FnOnce() -> Option<LedgerError>,
) -> Result<HiddenChange, LedgerError> {
    let now = act.now;
    let (slug, key) = (board.slug.as_str(), period.to_string());
    lock_member(tx, backend, board, &key, member, now).await?;
    let LockedTotal { current, reach_seq, hidden: was } = lock_total(tx, backend, slug, &key, member).await?;
    if current.version == 0 {
        // (The rows the locks may have created roll back with the transaction.)
        return Err(LedgerError::Missing(format!("member {member} in {slug} {key}")));
    }
    let score = board.codec.encode(current.points, reach_seq).map_err(|e| {
        LedgerError::Corrupt(format!("the total of {member} in {slug} {key} cannot be encoded: {e}"))
    })?;
    let mut total = Projected {
        period,
        member: member.clone(),
        points: current.points,
        version: current.version,
        score,
        hidden: was,
    };
    if was == hidden {
        return Ok(HiddenChange { changed: false, total });
    }
    if let Some(refused) = refusal() {
        return Err(refused);
    }
    (total.version, total.hidden) = (current.version + 1, hidden);
    sqlx::query(
        "UPDATE totals SET hidden = $1, version = $2, updated_at = $3 \
         WHERE board = $4 AND period = $5 AND member = $6",
    )
    .bind(i64::from(hidden))
    .bind(total.version)
    .bind(micros(now))
    .bind(slug)
    .bind(&key)
    .bind(member.as_str())
    .execute(&mut **tx)
    .await?;
    let record = AuditRecord {
        actor: &act.actor,
        action: if hidden { "hide" } else { "unhide" },
        board: Some(slug),
        period: Some(&key),
        member: Some(member.as_str()),
        reason: act.reason(),
        before: Some(json!({ "hidden": was, "points": current.points, "version": current.version })),
        after: Some(json!({ "hidden": hidden, "points": current.points, "version": total.version })),
    };
    audit(tx, &record, now).await?;
    Ok(HiddenChange { changed: true, total })
}
