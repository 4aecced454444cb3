//! The SQL of period export and import (see `crate::transfer`). An export reads a settled period;
//! an import writes one in a single transaction and commits only when the settlement digest
//! recomputed from the imported rows equals the exported one.

use super::import::import;
use super::receipts::chain_in;
use super::standings::read_standings;
use super::{Ledger, LedgerError, Tx, instant};
use crate::progress::Progress;
use crate::transfer::{
    BoardDefinition, ExportedEntry, ExportedLate, ExportedSettlement, ExportedTotal, FORMAT, FORMAT_VERSION,
    ImportReport, PeriodExport,
};
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::segment::Values;
use domain::{Board, MemberId, PeriodKey};
use sqlx::Row;
use sqlx::any::AnyRow;
use std::collections::BTreeMap;

impl Ledger {
    /// Everything about a settled or archived period, read in one transaction.
    pub async fn export_period(
        &self,
        board: &Board,
        period: PeriodKey,
        now: jiff::Timestamp,
    ) -> Result<PeriodExport, LedgerError> {
        let (slug, key) = (board.slug.as_str(), period.to_string());
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "SELECT state, next_seq, state_changed_at FROM periods WHERE board = $1 AND period = $2",
        )
        .bind(slug)
        .bind(&key)
        .fetch_optional(&mut *tx)
        .await?;
        let state = match &row {
            Some(r) => State::parse(&r.try_get::<String, _>("state")?)
                .ok_or_else(|| LedgerError::corrupt(format!("state of {slug} {key}")))?,
            None => State::Open,
        };
        let Some(row) = row.filter(|_| matches!(state, State::Settled | State::Archived)) else {
            return Err(LedgerError::refused(
                ErrorCode::NotSettled,
                format!("{slug} {key} is {state}: only a settled or archived period can be exported"),
            ));
        };
        let entries = sqlx::query(
            "SELECT e.id, e.member, e.kind, e.external_id, e.delta, e.value, e.set_version, e.occurred_at, \
             e.recorded_at, e.metadata, e.reach_seq, e.revokes, r.external_id AS revokes_external_id, \
             e.actor, e.reason FROM entries e LEFT JOIN entries r ON r.id = e.revokes \
             WHERE e.board = $1 AND e.period = $2 ORDER BY e.id",
        )
        .bind(slug)
        .bind(&key)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(entry_from_row)
        .collect::<Result<Vec<_>, _>>()?;
        let totals = exported_totals(&mut tx, slug, &key).await?;
        let late_entries = sqlx::query(
            "SELECT member, kind, external_id, delta, value, set_version, occurred_at, received_at, metadata, \
             status, decided_by, decided_at, decision_reason FROM late_entries \
             WHERE board = $1 AND period = $2 ORDER BY id",
        )
        .bind(slug)
        .bind(&key)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(late_from_row)
        .collect::<Result<Vec<_>, _>>()?;
        let mut revisions = exported_revisions(&mut tx, slug, &key).await?;
        let settlement = revisions
            .pop()
            .ok_or_else(|| LedgerError::corrupt(format!("{slug} {key} is {state} without a settlement")))?;
        // Each member's segment values in the period (none on a board without segments).
        let segments = exported_segments(&mut tx, slug, &key).await?;
        let state_changed_at = row.try_get::<Option<i64>, _>("state_changed_at")?.map(instant).transpose()?;
        let next_seq = row.try_get("next_seq")?;
        tx.commit().await?;
        Ok(PeriodExport {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            exported_at: now,
            board: BoardDefinition::of(board),
            period,
            state,
            state_changed_at,
            next_seq,
            entries,
            totals,
            late_entries,
            settlement,
            revisions,
            segments,
        })
    }

    /// Writes an exported period in one transaction (see `Transfer::import_period`).
    pub async fn import_period(
        &self,
        board: &Board,
        export: &PeriodExport,
        now: jiff::Timestamp,
    ) -> Result<ImportReport, LedgerError> {
        self.import_period_with_progress(board, export, now, &Progress::new()).await
    }

    /// [`Ledger::import_period`], reporting its phases to `progress`, each counted from the
    /// export: inserting entries, inserting late writes, replaying totals, inserting totals, and
    /// for each revision writing standings and the member directory.
    pub async fn import_period_with_progress(
        &self,
        board: &Board,
        export: &PeriodExport,
        now: jiff::Timestamp,
        progress: &Progress,
    ) -> Result<ImportReport, LedgerError> {
        let (ledger, board, export, progress) =
            (self.clone(), board.clone(), export.clone(), progress.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let report = import(&mut w.tx, ledger.backend, &board, &export, now, &progress).await?;
            w.tx.commit().await?;
            Ok(report)
        })
        .await
    }
}

fn entry_from_row(r: &AnyRow) -> Result<ExportedEntry, LedgerError> {
    let kind: String = r.try_get("kind")?;
    let revokes: Option<i64> = r.try_get("revokes")?;
    let revokes_external_id: Option<String> = r.try_get("revokes_external_id")?;
    if revokes.is_some() && revokes_external_id.is_none() {
        // Only entries with an external id can be revoked (Ledger::revoke looks them up by it).
        return Err(LedgerError::corrupt(format!(
            "entry {} revokes an entry without an external id",
            r.try_get::<i64, _>("id")?
        )));
    }
    Ok(ExportedEntry {
        member: member(r.try_get("member")?)?,
        kind,
        external_id: r.try_get("external_id")?,
        delta: r.try_get("delta")?,
        value: r.try_get("value")?,
        set_version: r.try_get("set_version")?,
        occurred_at: instant(r.try_get("occurred_at")?)?,
        recorded_at: instant(r.try_get("recorded_at")?)?,
        metadata: r.try_get("metadata")?,
        reach_seq: r.try_get("reach_seq")?,
        revokes: revokes_external_id,
        actor: r.try_get("actor")?,
        reason: r.try_get("reason")?,
    })
}

fn late_from_row(r: &AnyRow) -> Result<ExportedLate, LedgerError> {
    Ok(ExportedLate {
        member: member(r.try_get("member")?)?,
        kind: r.try_get("kind")?,
        external_id: r.try_get("external_id")?,
        delta: r.try_get("delta")?,
        value: r.try_get("value")?,
        set_version: r.try_get("set_version")?,
        occurred_at: instant(r.try_get("occurred_at")?)?,
        received_at: instant(r.try_get("received_at")?)?,
        metadata: r.try_get("metadata")?,
        status: r.try_get("status")?,
        decided_by: r.try_get("decided_by")?,
        decided_at: r.try_get::<Option<i64>, _>("decided_at")?.map(instant).transpose()?,
        decision_reason: r.try_get("decision_reason")?,
    })
}

fn member(s: String) -> Result<MemberId, LedgerError> {
    MemberId::parse(s).map_err(LedgerError::corrupt)
}

/// Every total of a period with a version, by member.
async fn exported_totals(tx: &mut Tx, slug: &str, key: &str) -> Result<Vec<ExportedTotal>, LedgerError> {
    sqlx::query(
        "SELECT member, points, version, reach_seq, set_version, hidden FROM totals \
         WHERE board = $1 AND period = $2 AND version > 0 ORDER BY member",
    )
    .bind(slug)
    .bind(key)
    .fetch_all(&mut **tx)
    .await?
    .iter()
    .map(|r| {
        Ok(ExportedTotal {
            member: member(r.try_get("member")?)?,
            points: r.try_get("points")?,
            version: r.try_get("version")?,
            reach_seq: r.try_get("reach_seq")?,
            set_version: r.try_get("set_version")?,
            hidden: r.try_get::<i64, _>("hidden")? != 0,
        })
    })
    .collect::<Result<Vec<_>, LedgerError>>()
}

/// Every settlement revision of a period, oldest first, with its standings, root and link.
async fn exported_revisions(
    tx: &mut Tx,
    slug: &str,
    key: &str,
) -> Result<Vec<ExportedSettlement>, LedgerError> {
    let rows = sqlx::query(
        "SELECT revision, rule_version, watermark, digest, previous_digest, reason, actor, settled_at, \
         segments FROM settlements WHERE board = $1 AND period = $2 ORDER BY revision",
    )
    .bind(slug)
    .bind(key)
    .fetch_all(&mut **tx)
    .await?;
    let mut revisions = Vec::with_capacity(rows.len());
    // Roots and links as stored (computed for revisions written before migration 0023).
    let mut links = chain_in(tx, slug, key).await?.into_iter();
    for settlement in &rows {
        let revision: i64 = settlement.try_get("revision")?;
        let standings = read_standings(&mut **tx, slug, key, revision, 0, u64::MAX).await?;
        let link = links
            .next()
            .ok_or_else(|| LedgerError::corrupt(format!("{slug} {key} revision {revision} has no link")))?;
        revisions.push(ExportedSettlement {
            merkle_root: Some(link.root),
            link: Some(link.link),
            revision,
            rule_version: settlement.try_get("rule_version")?,
            watermark: settlement.try_get("watermark")?,
            digest: settlement.try_get("digest")?,
            previous_digest: settlement.try_get("previous_digest")?,
            reason: settlement.try_get("reason")?,
            actor: settlement.try_get("actor")?,
            settled_at: instant(settlement.try_get("settled_at")?)?,
            standings,
            segments: match settlement.try_get::<Option<String>, _>("segments")? {
                Some(text) => serde_json::from_str(&text).map_err(LedgerError::corrupt)?,
                None => Vec::new(),
            },
        });
    }
    Ok(revisions)
}

/// Each member's segment values in a period (none on a board without segments).
async fn exported_segments(
    tx: &mut Tx,
    slug: &str,
    key: &str,
) -> Result<BTreeMap<MemberId, Values>, LedgerError> {
    let mut segments: BTreeMap<MemberId, Values> = BTreeMap::new();
    for r in sqlx::query(
        "SELECT member, dimension, value FROM segment_members WHERE board = $1 AND period = $2 \
         ORDER BY member, dimension",
    )
    .bind(slug)
    .bind(key)
    .fetch_all(&mut **tx)
    .await?
    {
        segments
            .entry(member(r.try_get("member")?)?)
            .or_default()
            .insert(r.try_get("dimension")?, r.try_get("value")?);
    }
    Ok(segments)
}
