//! Moving a member to another value of a segment dimension (`segment_moves`, migration 0026): an
//! admin change, made only through a preview (`PreviewChange::Move`), in the apply's transaction.
//!
//! A move rewrites the member's row of `segment_members`, raises the total's version by one (so
//! every projection of it is guarded, and the preview watermark moves) and keeps the move with
//! that version. The old value's ranking keeps the version as a *tombstone*: the member's entry in
//! its `:ver`, out of its `:rank`. A projection of a write committed before the move therefore
//! cannot bring the member back there, and `segments::TOMBSTONES` puts those versions in the
//! value's version sum and levelling, so the reconciler and a rebuild agree with the projection.

use super::audit::{Act, AuditRecord, record as audit};
use super::boards::StoredTotal;
use super::locks::lock_member;
use super::segments::held_in;
use super::totals::lock_total;
use super::{Backend, LedgerError, Projected, Tx, micros};
use domain::segment::Segment;
use domain::{Board, MemberId, PeriodKey};
use serde_json::json;
use sqlx::Row;

/// The one admin change of a segment value, with its audit row `segment_move`; answers the
/// member's total at its new version (the value it left gets its tombstone from the levelling
/// `Lifecycle::apply_preview` runs at once). Refused
/// (`invalid_change`): an undeclared dimension, a malformed value, or the value the member holds;
/// `Missing` for a member without a total in the period.
pub(super) async fn move_in(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    to: &Segment,
    act: &Act,
) -> Result<Projected, LedgerError> {
    let (actor, reason, now) = (act.actor.as_str(), act.reason(), act.now);
    let (slug, key) = (board.slug.as_str(), period.to_string());
    lock_member(tx, backend, board, &key, member, now).await?;
    let locked = lock_total(tx, backend, slug, &key, member).await?;
    if locked.current.version == 0 {
        return Err(LedgerError::Missing(format!("member {member} in {slug} {key}")));
    }
    let held = held_in(tx, backend, slug, &key, &[member.as_str()]).await?;
    let from = held.get(member.as_str()).and_then(|v| v.get(&to.dimension)).cloned();
    if from.as_deref() == Some(to.value.as_str()) {
        return Err(LedgerError::refused(
            domain::ErrorCode::InvalidChange,
            format!("{member} is already in {to}"),
        ));
    }
    let version = locked.current.version + 1;
    let sql = match from {
        Some(_) => {
            "UPDATE segment_members SET value = $5 WHERE board = $1 AND period = $2 AND member = $3 \
                    AND dimension = $4"
        }
        None => {
            "INSERT INTO segment_members (board, period, member, dimension, value) VALUES ($1, $2, $3, $4, $5)"
        }
    };
    sqlx::query(sql)
        .bind(slug)
        .bind(&key)
        .bind(member.as_str())
        .bind(&to.dimension)
        .bind(&to.value)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO segment_moves (board, period, member, dimension, from_value, to_value, version, actor, \
         reason, moved_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(slug)
    .bind(&key)
    .bind(member.as_str())
    .bind(&to.dimension)
    .bind(from.as_deref())
    .bind(&to.value)
    .bind(version)
    .bind(actor)
    .bind(reason)
    .bind(micros(now))
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "UPDATE totals SET version = $1, updated_at = $2 WHERE board = $3 AND period = $4 AND member = $5",
    )
    .bind(version)
    .bind(micros(now))
    .bind(slug)
    .bind(&key)
    .bind(member.as_str())
    .execute(&mut **tx)
    .await?;
    let record = AuditRecord {
        actor,
        action: "segment_move",
        board: Some(slug),
        period: Some(&key),
        member: Some(member.as_str()),
        reason,
        before: Some(json!({ "dimension": to.dimension, "value": from, "version": locked.current.version })),
        after: Some(json!({ "dimension": to.dimension, "value": to.value, "version": version })),
    };
    audit(tx, &record, now).await?;
    let score = board.codec.encode(locked.current.points, locked.reach_seq).map_err(|e| {
        LedgerError::Corrupt(format!("the total of {member} in {slug} {key} cannot be encoded: {e}"))
    })?;
    Ok(Projected {
        period,
        member: member.clone(),
        points: locked.current.points,
        version,
        score,
        hidden: locked.hidden,
    })
}

impl super::Ledger {
    /// The tombstones of one segment value (see the module's doc), as hidden totals: levelling
    /// and rebuilding write them beside the value's members.
    pub async fn segment_tombstones(
        &self,
        board: &domain::BoardSlug,
        period: &PeriodKey,
        segment: &Segment,
    ) -> Result<Vec<StoredTotal>, LedgerError> {
        let rows = sqlx::query(&format!(
            "SELECT member, version FROM ({}) AS t WHERE dimension = $3 AND value = $4 ORDER BY member",
            super::segments::TOMBSTONES
        ))
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(&segment.dimension)
        .bind(&segment.value)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(StoredTotal {
                    member: super::sql::member_id(r.try_get("member")?)?,
                    points: 0,
                    version: r.try_get("version")?,
                    reach_seq: 0,
                    hidden: true,
                })
            })
            .collect()
    }
}
