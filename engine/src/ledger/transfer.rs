//! The SQL of period export and import (see `crate::transfer`). An export reads a settled period;
//! an import writes one in a single transaction and commits only when the settlement digest
//! recomputed from the imported rows equals the exported one.

use super::audit::{AuditRecord, record as audit};
use super::settle::insert_standings_with_progress;
use super::sql::{INSERT_CHUNK, multi_row_insert};
use super::standings::read_standings;
use super::{Backend, Ledger, LedgerError, Tx, instant, micros};
use crate::hex;
use crate::progress::Progress;
use crate::transfer::{
    BoardDefinition, ExportedEntry, ExportedLate, ExportedSettlement, ExportedTotal, FORMAT, FORMAT_VERSION,
    ImportReport, PeriodExport,
};
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::settlement::{FinalTotal, RULE_VERSION, canonical_text, standings};
use domain::write::{Counted, Effect, replay};
use domain::{Board, MemberId, PeriodKey};
use serde_json::json;
use sha2::{Digest, Sha256};
use sqlx::Row;
use sqlx::any::AnyRow;
use std::collections::{BTreeMap, HashMap};

/// Rows inserted one by one between two reports of an import.
const ROWS_PER_REPORT: usize = 1000;

fn corrupt(what: impl std::fmt::Display) -> LedgerError {
    LedgerError::Corrupt(what.to_string())
}

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
                .ok_or_else(|| corrupt(format!("state of {slug} {key}")))?,
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
        let totals = sqlx::query(
            "SELECT member, points, version, reach_seq, set_version, hidden FROM totals \
             WHERE board = $1 AND period = $2 AND version > 0 ORDER BY member",
        )
        .bind(slug)
        .bind(&key)
        .fetch_all(&mut *tx)
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
        .collect::<Result<Vec<_>, LedgerError>>()?;
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
        let rows = sqlx::query(
            "SELECT revision, rule_version, watermark, digest, previous_digest, reason, actor, settled_at \
             FROM settlements WHERE board = $1 AND period = $2 ORDER BY revision",
        )
        .bind(slug)
        .bind(&key)
        .fetch_all(&mut *tx)
        .await?;
        let mut revisions = Vec::with_capacity(rows.len());
        for settlement in &rows {
            let revision: i64 = settlement.try_get("revision")?;
            let standings = read_standings(&mut *tx, slug, &key, revision, 0, u64::MAX).await?;
            revisions.push(ExportedSettlement {
                revision,
                rule_version: settlement.try_get("rule_version")?,
                watermark: settlement.try_get("watermark")?,
                digest: settlement.try_get("digest")?,
                previous_digest: settlement.try_get("previous_digest")?,
                reason: settlement.try_get("reason")?,
                actor: settlement.try_get("actor")?,
                settled_at: instant(settlement.try_get("settled_at")?)?,
                standings,
            });
        }
        let settlement = revisions
            .pop()
            .ok_or_else(|| corrupt(format!("{slug} {key} is {state} without a settlement")))?;
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
        })
    }

    /// Writes an exported period in one transaction (see `Engine::import_period`).
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

async fn import(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    export: &PeriodExport,
    now: jiff::Timestamp,
    progress: &Progress,
) -> Result<ImportReport, LedgerError> {
    let (slug, key) = (board.slug.as_str(), export.period.to_string());
    // Rows are inserted one statement each here: counted, and reported a thousand at a time.
    let reported = |i: usize, of: usize| {
        if (i + 1).is_multiple_of(ROWS_PER_REPORT) || i + 1 == of {
            progress.advance(((i % ROWS_PER_REPORT) + 1) as u64);
        }
    };
    if !matches!(export.state, State::Settled | State::Archived) {
        return Err(LedgerError::refused(
            ErrorCode::NotSettled,
            format!("the export's period is {}", export.state),
        ));
    }
    if export.settlement.rule_version != RULE_VERSION {
        return Err(LedgerError::refused(
            ErrorCode::RuleVersionMismatch,
            format!(
                "the export was settled under rule version {}; this ledger settles under {RULE_VERSION}",
                export.settlement.rule_version
            ),
        ));
    }
    let board_created = ensure_board(tx, backend, board, now).await?;

    // The period must be new here: an existing row means writes or an earlier import.
    let inserted = sqlx::query(
        "INSERT INTO periods (board, period, state, next_seq, state_changed_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT DO NOTHING",
    )
    .bind(slug)
    .bind(&key)
    .bind(export.state.as_str())
    .bind(export.next_seq)
    .bind(export.state_changed_at.map(micros))
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Err(LedgerError::refused(
            ErrorCode::PeriodExists,
            format!("{slug} {key} already exists in this ledger"),
        ));
    }

    // Entries in the source's order, with new ids; revocations re-linked by external id.
    let mut ids: HashMap<&str, i64> = HashMap::new();
    let mut revoked: std::collections::HashSet<i64> = std::collections::HashSet::new();
    let mut watermark = 0_i64;
    // Per member, in order: (new id, the entry) of every entry that is not a revocation.
    let mut by_member: BTreeMap<&MemberId, Vec<(i64, &ExportedEntry)>> = BTreeMap::new();
    progress.phase("inserting entries", "entries", export.entries.len() as u64);
    for (i, e) in export.entries.iter().enumerate() {
        let revokes = match (&e.kind[..], &e.revokes) {
            ("revocation", Some(target)) => {
                let id = *ids.get(target.as_str()).ok_or_else(|| {
                    LedgerError::refused(
                        ErrorCode::InvalidExport,
                        format!("a revocation names {target}, which no earlier entry has"),
                    )
                })?;
                if !revoked.insert(id) {
                    return Err(LedgerError::refused(
                        ErrorCode::InvalidExport,
                        format!("{target} is revoked twice"),
                    ));
                }
                Some(id)
            }
            ("revocation", None) => {
                return Err(LedgerError::refused(
                    ErrorCode::InvalidExport,
                    "a revocation without the entry it revokes",
                ));
            }
            (_, Some(_)) => {
                return Err(LedgerError::refused(
                    ErrorCode::InvalidExport,
                    format!("a {} entry revokes", e.kind),
                ));
            }
            _ => None,
        };
        let id: Option<i64> = sqlx::query(
            "INSERT INTO entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, recorded_at, metadata, reach_seq, revokes, actor, reason) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
             ON CONFLICT (board, external_id) DO NOTHING RETURNING id",
        )
        .bind(slug)
        .bind(&key)
        .bind(e.member.as_str())
        .bind(&e.kind)
        .bind(e.external_id.as_deref())
        .bind(e.delta)
        .bind(e.value)
        .bind(e.set_version)
        .bind(micros(e.occurred_at))
        .bind(micros(e.recorded_at))
        .bind(e.metadata.as_deref())
        .bind(e.reach_seq)
        .bind(revokes)
        .bind(e.actor.as_deref())
        .bind(e.reason.as_deref())
        .fetch_optional(&mut **tx)
        .await?
        .map(|r| r.try_get("id"))
        .transpose()?;
        let id = id.ok_or_else(|| {
            LedgerError::refused(
                ErrorCode::ExternalIdTaken,
                format!("{slug} already has an entry {:?} in another period", e.external_id),
            )
        })?;
        if let Some(external_id) = &e.external_id {
            ids.insert(external_id, id);
        }
        if e.kind != "revocation" {
            by_member.entry(&e.member).or_default().push((id, e));
        }
        watermark = watermark.max(id);
        reported(i, export.entries.len());
    }

    progress.phase("inserting late writes", "late writes", export.late_entries.len() as u64);
    for (i, l) in export.late_entries.iter().enumerate() {
        let inserted = sqlx::query(
            "INSERT INTO late_entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, received_at, metadata, status, decided_by, decided_at, decision_reason) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
             ON CONFLICT (board, external_id) DO NOTHING",
        )
        .bind(slug)
        .bind(&key)
        .bind(l.member.as_str())
        .bind(&l.kind)
        .bind(l.external_id.as_deref())
        .bind(l.delta)
        .bind(l.value)
        .bind(l.set_version)
        .bind(micros(l.occurred_at))
        .bind(micros(l.received_at))
        .bind(l.metadata.as_deref())
        .bind(&l.status)
        .bind(l.decided_by.as_deref())
        .bind(l.decided_at.map(micros))
        .bind(l.decision_reason.as_deref())
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            return Err(LedgerError::refused(
                ErrorCode::ExternalIdTaken,
                format!("{slug} already has a late write {:?} in another period", l.external_id),
            ));
        }
        reported(i, export.late_entries.len());
    }

    // Totals recomputed from the entries that still count; the export's own totals only supply
    // what a replay cannot know (the version, and the sequence of a member with nothing left).
    let exported: HashMap<&MemberId, &ExportedTotal> = export.totals.iter().map(|t| (&t.member, t)).collect();
    if exported.len() != by_member.len() || by_member.keys().any(|m| !exported.contains_key(m)) {
        return Err(LedgerError::refused(
            ErrorCode::ImportMismatch,
            "the export's totals name other members than its entries",
        ));
    }
    let mut totals = Vec::with_capacity(by_member.len());
    progress.phase("replaying totals", "members", by_member.len() as u64);
    for (i, (member, entries)) in by_member.iter().enumerate() {
        let counted = entries
            .iter()
            .filter(|(id, _)| !revoked.contains(id))
            .map(|(_, e)| counted(e))
            .collect::<Result<Vec<_>, _>>()?;
        let replayed = replay(&counted).ok_or_else(|| {
            LedgerError::refused(ErrorCode::ImportMismatch, format!("the total of {member} overflows"))
        })?;
        let source = exported[member];
        let reach_seq = replayed.reach_seq.unwrap_or(source.reach_seq);
        if (replayed.points, replayed.set_version, reach_seq)
            != (source.points, source.set_version, source.reach_seq)
        {
            return Err(LedgerError::refused(
                ErrorCode::ImportMismatch,
                format!(
                    "{member}: the entries give {} points, the export's total says {}",
                    replayed.points, source.points
                ),
            ));
        }
        if let Err(e) = board.codec.encode(replayed.points, reach_seq) {
            return Err(LedgerError::refused(ErrorCode::ImportMismatch, format!("{member}: {e}")));
        }
        totals.push(ExportedTotal {
            member: (*member).clone(),
            points: replayed.points,
            version: source.version,
            reach_seq,
            set_version: replayed.set_version,
            hidden: source.hidden,
        });
        reported(i, by_member.len());
    }
    progress.phase("inserting totals", "members", totals.len() as u64);
    insert_totals(tx, backend, slug, &key, &totals, now, progress).await?;

    // The settlement: standings recomputed from the imported totals (hidden members have none),
    // stored, read back and hashed.
    let finals = totals.iter().filter(|t| !t.hidden).map(|t| FinalTotal {
        member: t.member.clone(),
        points: t.points,
        reach_seq: t.reach_seq,
    });
    let computed = standings(board.tie_policy(), finals.collect(), &board.prizes);
    let s = &export.settlement;
    check_chain(export)?;
    let some = Some(progress);
    // The revisions before the latest, as the source recorded them (checked by `check_chain`).
    for earlier in &export.revisions {
        insert_settlement(tx, slug, &key, earlier, earlier.watermark, earlier.standings.len(), None).await?;
        let standings = &earlier.standings;
        insert_standings_with_progress(
            tx,
            backend,
            &board.slug,
            &export.period,
            earlier.revision,
            standings,
            some,
        )
        .await?;
    }
    // The latest revision was recomputed with the board's prize table: later revisions keep it.
    let prizes = super::settle::json_text(&board.prizes)?;
    insert_settlement(tx, slug, &key, s, watermark, computed.len(), Some(&prizes)).await?;
    insert_standings_with_progress(tx, backend, &board.slug, &export.period, s.revision, &computed, some)
        .await?;
    let stored = read_standings(&mut **tx, slug, &key, s.revision, 0, u64::MAX).await?;
    let digest = hex(&Sha256::digest(canonical_text(slug, &key, &stored).as_bytes()));
    if digest != s.digest || stored != s.standings {
        return Err(LedgerError::refused(
            ErrorCode::DigestMismatch,
            format!(
                "the standings recomputed from the export's entries give digest {digest}, the export says {}",
                s.digest
            ),
        ));
    }

    let record = AuditRecord {
        actor: "import",
        action: "import",
        board: Some(slug),
        period: Some(&key),
        reason: Some("period imported from an export"),
        before: None,
        after: Some(json!({
            "state": export.state, "digest": digest, "entries": export.entries.len(),
            "late_entries": export.late_entries.len(), "members": stored.len(),
            "source_watermark": s.watermark, "watermark": watermark,
            "exported_at": export.exported_at, "board_created": board_created,
        })),
        ..Default::default()
    };
    audit(tx, &record, now).await?;
    Ok(ImportReport {
        board: board.slug.clone(),
        period: export.period,
        state: export.state,
        board_created,
        entries: export.entries.len() as u64,
        late_entries: export.late_entries.len() as u64,
        members: stored.len() as u64,
        digest,
        revisions: export.revisions.len() as u64 + 1,
        watermark,
        projected: false,
    })
}

/// The export's revisions must be 1, 2, … up to the latest, each hashing to its digest and
/// naming the digest of the one before (the first names none): the hash chain a re-settlement
/// writes. The latest revision's own digest is checked against the standings recomputed from
/// the entries.
fn check_chain(export: &PeriodExport) -> Result<(), LedgerError> {
    let (slug, key) = (export.board.slug.as_str(), export.period.to_string());
    let broken = |detail: String| LedgerError::refused(ErrorCode::ChainBroken, detail);
    let mut previous: Option<&str> = None;
    for (i, r) in export.revisions.iter().chain([&export.settlement]).enumerate() {
        if r.revision != i as i64 + 1 {
            return Err(broken(format!("revision {} where revision {} was expected", r.revision, i + 1)));
        }
        if r.previous_digest.as_deref() != previous {
            return Err(broken(format!(
                "revision {} names {:?} as the digest before it; revision {} has {:?}",
                r.revision, r.previous_digest, i, previous
            )));
        }
        let last = i == export.revisions.len();
        let own = hex(&Sha256::digest(canonical_text(slug, &key, &r.standings).as_bytes()));
        if !last && own != r.digest {
            return Err(LedgerError::refused(
                ErrorCode::DigestMismatch,
                format!(
                    "revision {}'s standings give digest {own}, the export says {}",
                    r.revision, r.digest
                ),
            ));
        }
        previous = Some(&r.digest);
    }
    Ok(())
}

async fn insert_settlement(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    s: &ExportedSettlement,
    watermark: i64,
    members: usize,
    prizes: Option<&str>,
) -> Result<(), LedgerError> {
    sqlx::query(
        "INSERT INTO settlements (board, period, revision, rule_version, watermark, digest, members, actor, \
         settled_at, previous_digest, reason, prizes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(slug)
    .bind(key)
    .bind(s.revision)
    .bind(s.rule_version)
    .bind(watermark)
    .bind(&s.digest)
    .bind(members as i64)
    .bind(&s.actor)
    .bind(micros(s.settled_at))
    .bind(s.previous_digest.as_deref())
    .bind(s.reason.as_deref())
    .bind(prizes)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Creates the board if it is missing; an existing board must have the same definition.
async fn ensure_board(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    now: jiff::Timestamp,
) -> Result<bool, LedgerError> {
    let (min, max) = board.codec.bounds();
    let created = sqlx::query(
        "INSERT INTO boards (slug, title, cadence, time_zone, operator, tie_policy, min_points, max_points, \
         tie_base, freeze_grace_seconds, prizes, created_at, public_freeze_seconds) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (slug) DO NOTHING",
    )
    .bind(board.slug.as_str())
    .bind(&board.title)
    .bind(board.cadence.as_str())
    .bind(board.time_zone())
    .bind(board.operator.as_str())
    .bind(board.tie_policy().as_str())
    .bind(min)
    .bind(max)
    .bind(board.codec.tie_base())
    .bind(board.freeze_grace_seconds)
    .bind(serde_json::to_string(&board.prizes).expect("prizes serialise"))
    .bind(micros(now))
    .bind(board.public_freeze_seconds)
    .execute(&mut **tx)
    .await?
    .rows_affected()
        == 1;
    if !created {
        let lock = if backend == Backend::Postgres { " FOR SHARE" } else { "" };
        let row = sqlx::query(&format!(
            "SELECT title, cadence, time_zone, operator, tie_policy, min_points, max_points, tie_base, \
             freeze_grace_seconds, prizes FROM boards WHERE slug = $1{lock}"
        ))
        .bind(board.slug.as_str())
        .fetch_one(&mut **tx)
        .await?;
        let prizes: String = row.try_get("prizes")?;
        let same = row.try_get::<String, _>("title")? == board.title
            && row.try_get::<String, _>("cadence")? == board.cadence.as_str()
            && row.try_get::<String, _>("time_zone")? == board.time_zone()
            && row.try_get::<String, _>("operator")? == board.operator.as_str()
            && row.try_get::<String, _>("tie_policy")? == board.tie_policy().as_str()
            && (row.try_get::<i64, _>("min_points")?, row.try_get::<i64, _>("max_points")?) == (min, max)
            && row.try_get::<i64, _>("tie_base")? == board.codec.tie_base()
            && row.try_get::<i64, _>("freeze_grace_seconds")? == board.freeze_grace_seconds
            && serde_json::from_str::<Vec<domain::board::Prize>>(&prizes).map_err(corrupt)? == board.prizes;
        if !same {
            return Err(LedgerError::refused(
                ErrorCode::BoardDiffers,
                format!("board {} exists here with another definition", board.slug),
            ));
        }
    }
    Ok(created)
}

/// What an exported entry does to its member's total when replayed.
fn counted(e: &ExportedEntry) -> Result<Counted, LedgerError> {
    let effect = match e.kind.as_str() {
        "point" | "correction" => e.delta.map(Effect::Add),
        "total" => e.value.zip(e.set_version).map(|(total, version)| Effect::Total { version, total }),
        "submission" => e.value.map(Effect::Submission),
        _ => None,
    };
    let effect = effect.ok_or_else(|| {
        LedgerError::refused(
            ErrorCode::InvalidExport,
            format!("an entry of kind {:?} without its value", e.kind),
        )
    })?;
    Ok(Counted { effect, reach_seq: e.reach_seq })
}

async fn insert_totals(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    totals: &[ExportedTotal],
    now: jiff::Timestamp,
    progress: &Progress,
) -> Result<(), LedgerError> {
    for chunk in totals.chunks(INSERT_CHUNK) {
        let sql = multi_row_insert(
            backend,
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, hidden, updated_at) VALUES ",
            9,
            chunk.len(),
        );
        let mut query = sqlx::query(&sql);
        for t in chunk {
            query = query
                .bind(board)
                .bind(period)
                .bind(t.member.as_str())
                .bind(t.points)
                .bind(t.version)
                .bind(t.reach_seq)
                .bind(t.set_version)
                .bind(i64::from(t.hidden))
                .bind(micros(now));
        }
        query.execute(&mut **tx).await?;
        progress.advance(chunk.len() as u64);
    }
    Ok(())
}

fn entry_from_row(r: &AnyRow) -> Result<ExportedEntry, LedgerError> {
    let kind: String = r.try_get("kind")?;
    let revokes: Option<i64> = r.try_get("revokes")?;
    let revokes_external_id: Option<String> = r.try_get("revokes_external_id")?;
    if revokes.is_some() && revokes_external_id.is_none() {
        // Only entries with an external id can be revoked (Ledger::revoke looks them up by it).
        return Err(corrupt(format!(
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
    MemberId::parse(s).map_err(corrupt)
}
