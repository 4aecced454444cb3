//! The SQL of a period's import (see `crate::transfer`): one transaction that writes the
//! period, its entries, late writes, totals, segment memberships and settlement revisions, and
//! commits only when the settlement digest recomputed from the imported rows equals the exported
//! one.

use super::audit::{AuditRecord, record as audit};
use super::import_checks::{check_chain, check_importable, check_memberships};
use super::segments::{NewMembership, insert_memberships};
use super::settle::{Outcome, insert_standings_with_progress};
use super::sql::json_text;
use super::sql::{INSERT_CHUNK, multi_row_insert};
use super::standings::read_standings;
use super::{Backend, LedgerError, Tx, micros};
use crate::progress::Progress;
use crate::transfer::{ExportedEntry, ExportedSettlement, ExportedTotal, ImportReport, PeriodExport};
use domain::ErrorCode;
use domain::receipt::{self, ChainLink};
use domain::settlement::FinalTotal;
use domain::write::{Counted, Effect, replay};
use domain::{Board, MemberId};
use serde_json::json;
use sqlx::Row;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Rows inserted one by one between two reports of an import.
const ROWS_PER_REPORT: usize = 1000;

pub(super) async fn import(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    export: &PeriodExport,
    now: jiff::Timestamp,
    progress: &Progress,
) -> Result<ImportReport, LedgerError> {
    let (slug, key) = (board.slug.as_str(), export.period.to_string());
    check_importable(export)?;
    check_memberships(board, export)?;
    let board_created = ensure_board(tx, backend, board, now).await?;
    insert_period(tx, slug, &key, export).await?;
    progress.phase("inserting entries", "entries", export.entries.len() as u64);
    let imported = insert_entries(tx, slug, &key, export, progress).await?;
    progress.phase("inserting late writes", "late writes", export.late_entries.len() as u64);
    insert_late(tx, slug, &key, export, progress).await?;
    progress.phase("replaying totals", "members", imported.by_member.len() as u64);
    let totals = replay_totals(board, export, &imported, progress)?;
    progress.phase("inserting totals", "members", totals.len() as u64);
    insert_totals(tx, backend, slug, &key, &totals, now, progress).await?;
    let memberships = insert_segments(tx, backend, slug, &key, export).await?;
    let watermark = imported.watermark;
    let (digest, members) =
        insert_revisions(tx, backend, board, export, &totals, watermark, progress).await?;

    let s = &export.settlement;
    let record = AuditRecord {
        actor: "import",
        action: "import",
        board: Some(slug),
        period: Some(&key),
        reason: Some("period imported from an export"),
        before: None,
        after: Some(json!({
            "state": export.state, "digest": digest, "entries": export.entries.len(),
            "late_entries": export.late_entries.len(), "members": members, "memberships": memberships,
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
        members: members as u64,
        digest,
        revisions: export.revisions.len() as u64 + 1,
        watermark,
        projected: false,
    })
}

/// Reports one more row inserted or replayed, a thousand at a time (an import handles its rows
/// one statement each).
fn reported(progress: &Progress, i: usize, of: usize) {
    if (i + 1).is_multiple_of(ROWS_PER_REPORT) || i + 1 == of {
        progress.advance(((i % ROWS_PER_REPORT) + 1) as u64);
    }
}

/// Writes the export's segment memberships (checked by `check_memberships`); answers how many.
async fn insert_segments(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    key: &str,
    export: &PeriodExport,
) -> Result<u64, LedgerError> {
    let rows: Vec<NewMembership<'_>> = export
        .segments
        .iter()
        .flat_map(|(member, values)| {
            values.iter().map(move |(dim, value)| (key, member.as_str(), dim.as_str(), value.as_str()))
        })
        .collect();
    let inserted = insert_memberships(tx, backend, slug, &rows).await?;
    if inserted != rows.len() as u64 {
        // The period is new here (`insert_period`), so any membership already there is a conflict.
        return Err(LedgerError::refused(
            ErrorCode::PeriodExists,
            format!("{slug} {key} already holds segment memberships in this ledger"),
        ));
    }
    Ok(inserted)
}

/// The period must be new here: an existing row means writes or an earlier import.
async fn insert_period(tx: &mut Tx, slug: &str, key: &str, export: &PeriodExport) -> Result<(), LedgerError> {
    let inserted = sqlx::query(
        "INSERT INTO periods (board, period, state, next_seq, state_changed_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT DO NOTHING",
    )
    .bind(slug)
    .bind(key)
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
    Ok(())
}

/// The entries an import inserted, as the replay of the totals needs them.
struct ImportedEntries<'a> {
    /// Per member, in order: (new id, the entry) of every entry that is not a revocation.
    by_member: BTreeMap<&'a MemberId, Vec<(i64, &'a ExportedEntry)>>,
    /// The new ids of the revoked entries.
    revoked: HashSet<i64>,
    /// The highest new id.
    watermark: i64,
}

/// Inserts the entries in the source's order, with new ids; revocations re-linked by external id.
async fn insert_entries<'a>(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    export: &'a PeriodExport,
    progress: &Progress,
) -> Result<ImportedEntries<'a>, LedgerError> {
    let mut ids: HashMap<&str, i64> = HashMap::new();
    let mut imported = ImportedEntries { by_member: BTreeMap::new(), revoked: HashSet::new(), watermark: 0 };
    for (i, e) in export.entries.iter().enumerate() {
        let revokes = revoked_by(e, &ids, &mut imported.revoked)?;
        let id: Option<i64> = sqlx::query(
            "INSERT INTO entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, recorded_at, metadata, reach_seq, revokes, actor, reason) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
             ON CONFLICT (board, external_id) DO NOTHING RETURNING id",
        )
        .bind(slug)
        .bind(key)
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
            imported.by_member.entry(&e.member).or_default().push((id, e));
        }
        imported.watermark = imported.watermark.max(id);
        reported(progress, i, export.entries.len());
    }
    Ok(imported)
}

/// The new id of the entry a revocation revokes (None for other entries), found by the external
/// id of an earlier entry; each entry is revoked at most once.
fn revoked_by(
    e: &ExportedEntry,
    ids: &HashMap<&str, i64>,
    revoked: &mut HashSet<i64>,
) -> Result<Option<i64>, LedgerError> {
    let invalid = |detail: String| LedgerError::refused(ErrorCode::InvalidExport, detail);
    match (&e.kind[..], &e.revokes) {
        ("revocation", Some(target)) => {
            let id = *ids
                .get(target.as_str())
                .ok_or_else(|| invalid(format!("a revocation names {target}, which no earlier entry has")))?;
            if !revoked.insert(id) {
                return Err(invalid(format!("{target} is revoked twice")));
            }
            Ok(Some(id))
        }
        ("revocation", None) => Err(invalid("a revocation without the entry it revokes".into())),
        (_, Some(_)) => Err(invalid(format!("a {} entry revokes", e.kind))),
        _ => Ok(None),
    }
}

/// Inserts the late writes as the source kept them, decided or not.
async fn insert_late(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    export: &PeriodExport,
    progress: &Progress,
) -> Result<(), LedgerError> {
    for (i, l) in export.late_entries.iter().enumerate() {
        let inserted = sqlx::query(
            "INSERT INTO late_entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, received_at, metadata, status, decided_by, decided_at, decision_reason) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
             ON CONFLICT (board, external_id) DO NOTHING",
        )
        .bind(slug)
        .bind(key)
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
        reported(progress, i, export.late_entries.len());
    }
    Ok(())
}

/// Totals recomputed from the entries that still count; the export's own totals only supply
/// what a replay cannot know (the version, and the sequence of a member with nothing left), and
/// must agree with the replay on the rest.
fn replay_totals(
    board: &Board,
    export: &PeriodExport,
    imported: &ImportedEntries<'_>,
    progress: &Progress,
) -> Result<Vec<ExportedTotal>, LedgerError> {
    let mismatch = |detail: String| LedgerError::refused(ErrorCode::ImportMismatch, detail);
    let by_member = &imported.by_member;
    let exported: HashMap<&MemberId, &ExportedTotal> = export.totals.iter().map(|t| (&t.member, t)).collect();
    if exported.len() != by_member.len() || by_member.keys().any(|m| !exported.contains_key(m)) {
        return Err(mismatch("the export's totals name other members than its entries".into()));
    }
    let mut totals = Vec::with_capacity(by_member.len());
    for (i, (member, entries)) in by_member.iter().enumerate() {
        let counted = entries
            .iter()
            .filter(|(id, _)| !imported.revoked.contains(id))
            .map(|(_, e)| counted(e))
            .collect::<Result<Vec<_>, _>>()?;
        let replayed = replay(&counted, board.sort())
            .ok_or_else(|| mismatch(format!("the total of {member} overflows")))?;
        let source = exported[member];
        let reach_seq = replayed.reach_seq.unwrap_or(source.reach_seq);
        if (replayed.points, replayed.set_version, reach_seq)
            != (source.points, source.set_version, source.reach_seq)
        {
            return Err(mismatch(format!(
                "{member}: the entries give {} points, the export's total says {}",
                replayed.points, source.points
            )));
        }
        if let Err(e) = board.codec.encode(replayed.points, reach_seq) {
            return Err(mismatch(format!("{member}: {e}")));
        }
        totals.push(ExportedTotal {
            member: (*member).clone(),
            points: replayed.points,
            version: source.version,
            reach_seq,
            set_version: replayed.set_version,
            hidden: source.hidden,
        });
        reported(progress, i, by_member.len());
    }
    Ok(totals)
}

/// The settlement revisions: the earlier ones as the source recorded them (checked by
/// `check_chain`), the latest recomputed from the imported totals (hidden members have none),
/// stored, read back and hashed — it must give the export's digest. Answers the digest and the
/// number of members standing.
async fn insert_revisions(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    export: &PeriodExport,
    totals: &[ExportedTotal],
    watermark: i64,
    progress: &Progress,
) -> Result<(String, usize), LedgerError> {
    let (slug, key) = (board.slug.as_str(), export.period.to_string());
    let finals = totals.iter().filter(|t| !t.hidden).map(|t| FinalTotal {
        member: t.member.clone(),
        points: t.points,
        reach_seq: t.reach_seq,
    });
    let tables = (&board.prizes[..], &board.segment_prizes);
    let outcome = Outcome::of(tx, backend, board, &key, finals.collect(), tables).await?;
    let computed = &outcome.standings;
    let s = &export.settlement;
    let mut links = check_chain(export)?.into_iter();
    let some = Some(progress);
    for earlier in &export.revisions {
        let link = links.next().expect("a link per revision");
        let stated = (!earlier.segments.is_empty()).then(|| json_text(&earlier.segments)).transpose()?;
        let (members, segments) = (earlier.standings.len(), stated.as_deref());
        insert_settlement(tx, slug, &key, earlier, (earlier.watermark, members), (None, segments), &link)
            .await?;
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
    // The latest revision was recomputed with the board's prize tables: later revisions keep them.
    let prizes = Prizes { board: json_text(&board.prizes)?, segments: json_text(&board.segment_prizes)? };
    let link = links.next().expect("a link per revision");
    let segments = outcome.segments_text()?;
    let recorded = (Some(&prizes), segments.as_deref());
    insert_settlement(tx, slug, &key, s, (watermark, computed.len()), recorded, &link).await?;
    insert_standings_with_progress(tx, backend, &board.slug, &export.period, s.revision, computed, some)
        .await?;
    let stored = read_standings(&mut **tx, slug, &key, s.revision, 0, u64::MAX).await?;
    let digest = receipt::settlement_digest(slug, &key, &stored, &outcome.settled);
    if digest != s.digest || stored != s.standings || outcome.settled != s.segments {
        return Err(LedgerError::refused(
            ErrorCode::DigestMismatch,
            format!(
                "the standings recomputed from the export's entries give digest {digest}, the export says {}",
                s.digest
            ),
        ));
    }
    Ok((digest, stored.len()))
}

/// The prize tables (JSON) a revision records: the board's and the segments'.
struct Prizes {
    board: String,
    segments: String,
}

/// Writes one revision's row: `(watermark, members)` as the target counts them, and
/// `(prizes, segments)`, the tables and segment records to keep with it (None: none recorded).
async fn insert_settlement(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    s: &ExportedSettlement,
    (watermark, members): (i64, usize),
    (prizes, segments): (Option<&Prizes>, Option<&str>),
    link: &ChainLink,
) -> Result<(), LedgerError> {
    sqlx::query(
        "INSERT INTO settlements (board, period, revision, rule_version, watermark, digest, members, actor, \
         settled_at, previous_digest, reason, prizes, merkle_root, link, segment_prizes, segments) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
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
    .bind(prizes.map(|p| p.board.as_str()))
    .bind(&link.root)
    .bind(&link.link)
    .bind(prizes.map(|p| p.segments.as_str()))
    .bind(segments)
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
         tie_base, freeze_grace_seconds, prizes, created_at, public_freeze_seconds, sort, unit, \
         keep_top, ranking_ttl_days, segments, segment_prizes) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) \
         ON CONFLICT (slug) DO NOTHING",
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
    .bind(board.sort().as_str())
    .bind(board.unit.as_str())
    .bind(board.keep_top.map(|k| k as i64))
    .bind(board.ranking_ttl_days)
    .bind(serde_json::to_string(&board.segments).expect("segments serialise"))
    .bind(serde_json::to_string(&board.segment_prizes).expect("prizes serialise"))
    .execute(&mut **tx)
    .await?
    .rows_affected()
        == 1;
    if !created {
        let lock = if backend == Backend::Postgres { " FOR SHARE" } else { "" };
        let row = sqlx::query(&format!(
            "SELECT title, cadence, time_zone, operator, tie_policy, min_points, max_points, tie_base, \
             freeze_grace_seconds, prizes, sort, unit, keep_top, segments, segment_prizes FROM boards \
             WHERE slug = $1{lock}"
        ))
        .bind(board.slug.as_str())
        .fetch_one(&mut **tx)
        .await?;
        let prizes: String = row.try_get("prizes")?;
        let segments: String = row.try_get("segments")?;
        let same = row.try_get::<String, _>("title")? == board.title
            && row.try_get::<String, _>("cadence")? == board.cadence.as_str()
            && row.try_get::<String, _>("time_zone")? == board.time_zone()
            && row.try_get::<String, _>("operator")? == board.operator.as_str()
            && row.try_get::<String, _>("tie_policy")? == board.tie_policy().as_str()
            && row.try_get::<String, _>("sort")? == board.sort().as_str()
            && row.try_get::<String, _>("unit")? == board.unit.as_str()
            && row.try_get::<Option<i64>, _>("keep_top")? == board.keep_top.map(|k| k as i64)
            && (row.try_get::<i64, _>("min_points")?, row.try_get::<i64, _>("max_points")?) == (min, max)
            && row.try_get::<i64, _>("tie_base")? == board.codec.tie_base()
            && row.try_get::<i64, _>("freeze_grace_seconds")? == board.freeze_grace_seconds
            && serde_json::from_str::<Vec<domain::board::Prize>>(&prizes).map_err(LedgerError::corrupt)?
                == board.prizes
            && serde_json::from_str::<Vec<String>>(&segments).map_err(LedgerError::corrupt)?
                == board.segments
            && serde_json::from_str::<domain::board::SegmentPrizes>(
                &row.try_get::<String, _>("segment_prizes")?,
            )
            .map_err(LedgerError::corrupt)?
                == board.segment_prizes;
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
        "opening" => e.value.map(Effect::Opening),
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
