//! The rewards a settlement revision moves: for each member and ranking whose prize changed, a
//! `revoke` row for the grant it held (`compensates`) and a `grant` row for its new prize, each
//! with its own idempotency key, and one `reward_compensated` audit row per member and ranking.
//! An unchanged prize writes nothing (`revise.rs` says when a revision is written).

use super::audit::{AuditRecord, record as audit};
use super::rewards::reward_key;
use super::sql::{INSERT_CHUNK, multi_row_insert};
use super::{Backend, LedgerError, Tx, micros};
use domain::MemberId;
use domain::settlement::Standing;
use domain::view::RewardKind;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::Row;
use std::collections::BTreeMap;

/// One reward delivery a revision queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RewardDelta {
    pub kind: RewardKind,
    pub member: MemberId,
    /// The ranking whose prize moved: None for the board's own, `province:zj` for a segment's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<String>,
    pub rank: u64,
    pub prize: String,
    pub idempotency_key: String,
    /// For a revoke: the idempotency key of the grant it takes back.
    pub compensates: Option<String>,
}

/// The rewards a new revision's standings move, ranking by ranking: a revoke of what a member
/// holds in a ranking now (its last grant there, unless a revoke took it back since) and a grant
/// of what it should hold, for each member and ranking whose prize changes; the revoke names the
/// row it takes back.
pub(super) async fn reward_deltas(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    revision: i64,
    prized: &[(Option<String>, &Standing)],
) -> Result<Vec<(RewardDelta, Option<i64>)>, LedgerError> {
    let rows = sqlx::query(
        "SELECT id, member, kind, rank, prize, idempotency_key, ranking FROM rewards WHERE board = $1 AND period = $2 \
         ORDER BY id",
    )
    .bind(slug)
    .bind(key)
    .fetch_all(&mut **tx)
    .await?;
    // By (member, ranking; '' for the board's own).
    let mut held: BTreeMap<(String, String), (i64, u64, String, String)> = BTreeMap::new();
    for r in &rows {
        let at = (r.try_get::<String, _>("member")?, r.try_get::<String, _>("ranking")?);
        if r.try_get::<String, _>("kind")? == "grant" {
            let rank = r.try_get::<i64, _>("rank")? as u64;
            held.insert(at, (r.try_get("id")?, rank, r.try_get("prize")?, r.try_get("idempotency_key")?));
        } else {
            held.remove(&at);
        }
    }
    let mut wanted: BTreeMap<(String, String), (u64, String)> = BTreeMap::new();
    for (ranking, s) in prized {
        if let Some(prize) = &s.prize {
            let at = (s.member.to_string(), ranking.clone().unwrap_or_default());
            wanted.insert(at, (s.rank, prize.clone()));
        }
    }
    let mut places: Vec<&(String, String)> = held.keys().chain(wanted.keys()).collect();
    places.sort_unstable();
    places.dedup();
    let mut deltas: Vec<(RewardDelta, Option<i64>)> = Vec::new();
    for place in places {
        let (old, new) = (held.get(place), wanted.get(place));
        if old.map(|o| &o.2) == new.map(|n| &n.1) {
            continue;
        }
        let (member, ranking) = place;
        let member_id = super::sql::member_id(member.clone())?;
        let ranking = Some(ranking.clone()).filter(|r| !r.is_empty());
        let key_of = |kind| reward_key(slug, key, revision, member, kind, ranking.as_deref());
        if let Some((id, rank, prize, compensated)) = old {
            let delta = RewardDelta {
                kind: RewardKind::Revoke,
                member: member_id.clone(),
                ranking: ranking.clone(),
                rank: *rank,
                prize: prize.clone(),
                idempotency_key: key_of(RewardKind::Revoke),
                compensates: Some(compensated.clone()),
            };
            deltas.push((delta, Some(*id)));
        }
        if let Some((rank, prize)) = new {
            let delta = RewardDelta {
                kind: RewardKind::Grant,
                member: member_id,
                ranking: ranking.clone(),
                rank: *rank,
                prize: prize.clone(),
                idempotency_key: key_of(RewardKind::Grant),
                compensates: None,
            };
            deltas.push((delta, None));
        }
    }
    Ok(deltas)
}

/// Inserts the reward rows a revision moves, due now for delivery.
pub(super) async fn insert_reward_deltas(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    key: &str,
    revision: i64,
    deltas: &[(RewardDelta, Option<i64>)],
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    for chunk in deltas.chunks(INSERT_CHUNK) {
        let sql = multi_row_insert(
            backend,
            "INSERT INTO rewards (board, period, revision, member, rank, prize, idempotency_key, next_attempt_at, \
             kind, compensates, ranking) VALUES ",
            11,
            chunk.len(),
        );
        let mut query = sqlx::query(&sql);
        for (d, compensates) in chunk {
            query = query
                .bind(slug)
                .bind(key)
                .bind(revision)
                .bind(d.member.as_str())
                .bind(d.rank as i64)
                .bind(&d.prize)
                .bind(&d.idempotency_key)
                .bind(micros(now))
                .bind(d.kind.as_str())
                .bind(*compensates)
                .bind(d.ranking.as_deref().unwrap_or(""));
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

/// One audit row per member and ranking whose prize moved, naming the revoke and the grant.
pub(super) async fn audit_reward_moves(
    tx: &mut Tx,
    actor: &str,
    (slug, key, revision): (&str, &str, i64),
    reason: &str,
    deltas: &[(RewardDelta, Option<i64>)],
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    for pair in deltas.chunk_by(|a, b| (&a.0.member, &a.0.ranking) == (&b.0.member, &b.0.ranking)) {
        let (revoked, granted) = (
            pair.iter().find(|(d, _)| d.kind == RewardKind::Revoke).map(|(d, _)| d),
            pair.iter().find(|(d, _)| d.kind == RewardKind::Grant).map(|(d, _)| d),
        );
        let record = AuditRecord {
            actor,
            action: "reward_compensated",
            board: Some(slug),
            period: Some(key),
            member: Some(pair[0].0.member.as_str()),
            reason: Some(reason),
            before: Some(
                json!({ "prize": revoked.map(|d| &d.prize), "compensates": revoked.and_then(|d| d.compensates.as_ref()) }),
            ),
            after: Some(json!({
                "revision": revision,
                "ranking": pair[0].0.ranking,
                "prize": granted.map(|d| &d.prize),
                "revoke_key": revoked.map(|d| &d.idempotency_key),
                "grant_key": granted.map(|d| &d.idempotency_key),
            })),
        };
        audit(tx, &record, now).await?;
    }
    Ok(())
}
