//! Writing settlement revision N+1 of a settled or archived period (`revise.rs` says when: an
//! applied preview, and `season_revise.rs` for the seasons holding the period): standings from
//! the totals now with the prize tables the period was settled with, the digest (a season's
//! naming its weeks' latest revisions), the receipts' root chained to revision N's link, the
//! standings blocks, the reward deltas (`reward_deltas.rs`) and the audit row `resettle`.

use super::audit::{AuditRecord, record as audit};
use super::previews::Draft;
use super::receipts::chain_in;
use super::reward_deltas::{RewardDelta, audit_reward_moves, insert_reward_deltas, reward_deltas};
use super::settle::{Failpoint, LastRevision, Outcome, final_totals, insert_standings, last_revision};
use super::sql::json_text;
use super::{Backend, LedgerError, Tx, micros};
use domain::receipt::{self, Tree};
use domain::settlement::RULE_VERSION;
use domain::view::RewardKind;
use domain::{Board, PeriodKey};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::Row;

/// Why a settlement revision is written: the draft applied, by whom, when, and the crash hook.
pub(super) struct Cause<'a> {
    pub draft: &'a Draft,
    pub actor: &'a str,
    pub now: jiff::Timestamp,
    pub failpoint: &'a Failpoint,
}

/// A settlement revision written by an apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Revision {
    pub revision: i64,
    pub digest: String,
    /// The digest of the revision this one replaces.
    pub previous_digest: String,
    pub members: u64,
    /// The reward deliveries this revision queued: a revoke before the grant that replaces it.
    pub rewards: Vec<RewardDelta>,
}

/// Writes settlement revision N+1 of a settled or archived period from its totals now, and the
/// reward deltas against what members hold (see the module's doc).
pub(super) async fn resettle(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    cause: &Cause<'_>,
) -> Result<Revision, LedgerError> {
    let Cause { draft, actor, now, failpoint } = *cause;
    let (slug, key) = (board.slug.as_str(), period.to_string());
    // The prize table the period was settled with, not the board's table now.
    let LastRevision { revision: previous, digest: previous_digest, prizes, segment_prizes, .. } =
        last_revision(tx, board, &key)
            .await?
            .ok_or_else(|| LedgerError::Corrupt(format!("{slug} {key} is settled without a settlement")))?;
    let revision = previous + 1;
    let totals = final_totals(tx, backend, slug, &key).await?;
    let mut outcome = Outcome::of(tx, backend, board, &key, totals, (&prizes, &segment_prizes)).await?;
    outcome.name_weeks(tx, board, &key).await?;
    let (standings, digest) = (&outcome.standings, outcome.digest.clone());
    // The receipts' root, chained to revision N's link (computed if N predates migration 0023).
    let root = Tree::of_standings(standings).root();
    let previous_link = chain_in(tx, slug, &key).await?.pop().map(|c| c.link);
    let link = receipt::link(slug, &key, revision, previous_link.as_deref(), &digest, &root);
    let entries: i64 = sqlx::query(
        "SELECT CAST(COALESCE(MAX(id), 0) AS BIGINT) AS w FROM entries WHERE board = $1 AND period = $2",
    )
    .bind(slug)
    .bind(&key)
    .fetch_one(&mut **tx)
    .await?
    .try_get("w")?;
    sqlx::query(
        "INSERT INTO settlements (board, period, revision, rule_version, watermark, digest, members, actor, \
         settled_at, previous_digest, reason, preview_id, prizes, merkle_root, link, segment_prizes, segments) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
    )
    .bind(slug)
    .bind(&key)
    .bind(revision)
    .bind(RULE_VERSION)
    .bind(entries)
    .bind(&digest)
    .bind(standings.len() as i64)
    .bind(actor)
    .bind(micros(now))
    .bind(&previous_digest)
    .bind(&draft.reason)
    .bind(&draft.id)
    .bind(json_text(&prizes)?)
    .bind(&root)
    .bind(&link)
    .bind(json_text(&segment_prizes)?)
    .bind(outcome.segments_text()?)
    .execute(&mut **tx)
    .await?;
    insert_standings(tx, backend, &board.slug, &period, revision, standings).await?;
    failpoint("resettle.after_standings")?;

    let deltas = reward_deltas(tx, slug, &key, revision, &outcome.prized()).await?;
    insert_reward_deltas(tx, backend, slug, &key, revision, &deltas, now).await?;
    audit_reward_moves(tx, actor, (slug, &key, revision), &draft.reason, &deltas, now).await?;
    let record = AuditRecord {
        actor,
        action: "resettle",
        board: Some(slug),
        period: Some(&key),
        reason: Some(&draft.reason),
        before: Some(json!({ "revision": previous, "digest": previous_digest })),
        after: Some(json!({
            "revision": revision, "digest": digest, "previous_digest": previous_digest, "watermark": entries,
            "members": standings.len(), "rule_version": RULE_VERSION, "preview_id": draft.id,
            "segment_rankings": outcome.settled.len(),
            // A season re-settled because a week's preview was applied names that week.
            "week": (board.slug.as_str() != draft.board).then(|| json!({ "board": draft.board, "period": draft.period })),
            "grants": deltas.iter().filter(|(d, _)| d.kind == RewardKind::Grant).count(),
            "revokes": deltas.iter().filter(|(d, _)| d.kind == RewardKind::Revoke).count(),
        })),
        ..Default::default()
    };
    audit(tx, &record, now).await?;
    failpoint("resettle.before_commit")?;
    Ok(Revision {
        revision,
        digest,
        previous_digest,
        members: standings.len() as u64,
        rewards: deltas.into_iter().map(|(d, _)| d).collect(),
    })
}
