//! The SQL of an import of totals (see `crate::writes::totals_import`): one transaction that checks the
//! import id, locks the period (open only), reads the members' totals, writes one `opening` entry
//! and one total per member it sets, the import's row and its audit row.

use super::audit::{Act, AuditRecord, record as audit};
use super::lifecycle::lock_period_state;
use super::sql::multi_row_insert;
use super::totals::{read_totals, store_totals};
use super::write_rows::{LockedTotal, StoredState};
use super::{Backend, Ledger, LedgerError, Projected, Tx, micros};
use crate::progress::Progress;
use crate::writes::totals_import::{ImportMode, TotalRow, TotalsImport, TotalsImportReport};
use domain::lifecycle::State;
use domain::{Board, ErrorCode, PeriodKey, TiePolicy};
use serde_json::json;
use sqlx::Row;
use std::collections::HashMap;

/// Entries per multi-row INSERT (11 columns: 3 300 parameters).
const ENTRY_CHUNK: usize = 300;
/// Members per totals lookup between two progress reports.
const READ_SLICE: usize = 1000;

impl Ledger {
    /// Imports totals into an open period in one transaction. Answers the report and the totals
    /// to project (none for a repeat, which answers the first import's report).
    pub async fn import_totals(
        &self,
        board: &Board,
        period: PeriodKey,
        import: &TotalsImport,
        act: &Act,
        progress: &Progress,
    ) -> Result<(TotalsImportReport, Vec<Projected>), LedgerError> {
        let (ledger, board, import, act, progress) =
            (self.clone(), board.clone(), import.clone(), act.clone(), progress.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let done = import_in(&mut w.tx, ledger.backend, &board, period, &import, &act, &progress).await?;
            if !done.0.repeated {
                w.tx.commit().await?;
            }
            Ok(done)
        })
        .await
    }
}

async fn import_in(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    import: &TotalsImport,
    act: &Act,
    progress: &Progress,
) -> Result<(TotalsImportReport, Vec<Projected>), LedgerError> {
    let (slug, key) = (board.slug.as_str(), period.to_string());
    let digest = import.digest(&period);
    if let Some(first) = earlier(tx, slug, import.import_id.as_str(), &digest).await? {
        return Ok((first, Vec::new()));
    }
    let state = lock_period_state(tx, backend, slug, &key).await?;
    if state != State::Open {
        return Err(LedgerError::refused(
            ErrorCode::PeriodNotOpen,
            format!("{slug} {key} is {state}: totals are imported only into an open period"),
        ));
    }
    // The period row is locked (SQLite: the writer), so no write of the period moves a total
    // between this read and the commit.
    progress.phase("reading totals", "members", import.rows.len() as u64);
    let mut found: HashMap<String, LockedTotal> = HashMap::with_capacity(import.rows.len());
    for slice in import.rows.chunks(READ_SLICE) {
        let members: Vec<&str> = slice.iter().map(|r| r.member.as_str()).collect();
        found.extend(read_totals(tx, backend, slug, &key, &members).await?);
        progress.advance(slice.len() as u64);
    }
    let Sorted { changes, kept, unchanged } = sort_rows(import, &found);
    // Under first_reached each opening takes the period's next reach sequence, in row order:
    // the import's order is the order its members reached their totals.
    let first_seq = match board.tie_policy() {
        TiePolicy::FirstReached => Some(take_seqs(tx, slug, &key, changes.len() as i64).await?),
        TiePolicy::Shared => None,
    };
    let (openings, projected) = openings(board, period, &key, &changes, first_seq)?;
    progress.phase("writing opening entries", "members", openings.len() as u64);
    let metadata = json!({ "import_id": import.import_id, "mode": import.mode }).to_string();
    for chunk in openings.chunks(ENTRY_CHUNK) {
        insert_openings(tx, backend, slug, chunk, &metadata, act).await?;
        progress.advance(chunk.len() as u64);
    }
    progress.phase("writing totals", "members", openings.len() as u64);
    let totals: Vec<((&str, &str), StoredState)> = openings.iter().map(|o| (o.at, o.state)).collect();
    store_totals(tx, backend, slug, &totals, act.now).await?;
    progress.advance(totals.len() as u64);

    let report = TotalsImportReport {
        import_id: import.import_id.clone(),
        board: board.slug.clone(),
        period,
        mode: import.mode,
        rows: import.rows.len() as u64,
        imported: openings.len() as u64,
        kept,
        unchanged,
        actor: act.actor.clone(),
        imported_at: act.now,
        repeated: false,
        projected: false,
    };
    record_import(tx, slug, &key, import, &digest, &report, act).await?;
    Ok((report, projected))
}

/// An import's rows sorted by what they do to the totals found.
struct Sorted<'a> {
    /// The rows that set a total, with the total they replace.
    changes: Vec<(&'a TotalRow, LockedTotal)>,
    /// Rows left alone: `nx` rows of members with a total, `replace` rows equal to it.
    kept: u64,
    unchanged: u64,
}

fn sort_rows<'a>(import: &'a TotalsImport, found: &HashMap<String, LockedTotal>) -> Sorted<'a> {
    let mut sorted = Sorted { changes: Vec::new(), kept: 0, unchanged: 0 };
    for r in &import.rows {
        let locked = found.get(r.member.as_str());
        match (import.mode, locked) {
            (ImportMode::Nx, Some(_)) => sorted.kept += 1,
            (ImportMode::Replace, Some(l)) if l.current.points == r.points => sorted.unchanged += 1,
            (_, locked) => sorted.changes.push((r, locked.copied().unwrap_or(LockedTotal::NONE))),
        }
    }
    sorted
}

/// One member's opening: the total it stores, the entry's delta and reach sequence.
struct Opening<'a> {
    at: (&'a str, &'a str),
    state: StoredState,
    delta: i64,
    seq: Option<i64>,
}

/// The openings of the rows that set a total, and the totals to project after the commit. A
/// total the board's codec cannot encode refuses the whole import.
fn openings<'a>(
    board: &Board,
    period: PeriodKey,
    key: &'a str,
    changes: &[(&'a TotalRow, LockedTotal)],
    first_seq: Option<i64>,
) -> Result<(Vec<Opening<'a>>, Vec<Projected>), LedgerError> {
    let mut openings = Vec::with_capacity(changes.len());
    let mut projected = Vec::with_capacity(changes.len());
    for (i, (r, locked)) in changes.iter().enumerate() {
        let seq = first_seq.map(|s| s + i as i64);
        let state = StoredState {
            points: r.points,
            version: locked.current.version + 1,
            reach_seq: seq.unwrap_or(locked.reach_seq),
            set_version: locked.current.set_version,
        };
        let score = board.codec.encode(state.points, state.reach_seq).map_err(|e| {
            LedgerError::refused(ErrorCode::Invalid, format!("row {}: {e}; nothing imported", r.row))
        })?;
        let delta = r.points - locked.current.points;
        openings.push(Opening { at: (key, r.member.as_str()), state, delta, seq });
        projected.push(Projected {
            period,
            member: r.member.clone(),
            points: state.points,
            version: state.version,
            score,
            hidden: locked.hidden,
        });
    }
    Ok((openings, projected))
}

/// One multi-row INSERT of opening entries.
async fn insert_openings(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    chunk: &[Opening<'_>],
    metadata: &str,
    act: &Act,
) -> Result<(), LedgerError> {
    let sql = multi_row_insert(
        backend,
        "INSERT INTO entries (board, period, member, kind, delta, value, occurred_at, recorded_at, \
         metadata, reach_seq, actor, reason) VALUES ",
        12,
        chunk.len(),
    );
    let mut query = sqlx::query(&sql);
    for o in chunk {
        query = query
            .bind(slug)
            .bind(o.at.0)
            .bind(o.at.1)
            .bind("opening")
            .bind(o.delta)
            .bind(o.state.points)
            .bind(micros(act.now))
            .bind(micros(act.now))
            .bind(metadata)
            .bind(o.seq)
            .bind(act.actor.as_str())
            .bind(act.reason());
    }
    query.execute(&mut **tx).await?;
    Ok(())
}

/// The import's row (what a repeat answers) and its audit row.
async fn record_import(
    tx: &mut Tx,
    slug: &str,
    key: &str,
    import: &TotalsImport,
    digest: &str,
    report: &TotalsImportReport,
    act: &Act,
) -> Result<(), LedgerError> {
    let result = serde_json::to_string(report).expect("a report serialises");
    sqlx::query(
        "INSERT INTO total_imports (board, import_id, period, mode, digest, result, actor, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(slug)
    .bind(import.import_id.as_str())
    .bind(key)
    .bind(import.mode.as_str())
    .bind(digest)
    .bind(&result)
    .bind(act.actor.as_str())
    .bind(micros(act.now))
    .execute(&mut **tx)
    .await?;
    let record = AuditRecord {
        actor: &act.actor,
        action: "import_totals",
        board: Some(slug),
        period: Some(key),
        reason: act.reason(),
        after: Some(json!({
            "import_id": import.import_id, "mode": import.mode, "digest": digest,
            "rows": report.rows, "imported": report.imported, "kept": report.kept,
            "unchanged": report.unchanged,
        })),
        ..Default::default()
    };
    audit(tx, &record, act.now).await
}

/// The report of an earlier import with this id, if there was one with the same digest; other
/// content under the id is refused.
async fn earlier(
    tx: &mut Tx,
    slug: &str,
    import_id: &str,
    digest: &str,
) -> Result<Option<TotalsImportReport>, LedgerError> {
    let row = sqlx::query("SELECT digest, result FROM total_imports WHERE board = $1 AND import_id = $2")
        .bind(slug)
        .bind(import_id)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(row) = row else { return Ok(None) };
    if row.try_get::<String, _>("digest")? != digest {
        return Err(LedgerError::refused(
            ErrorCode::ImportIdTaken,
            format!(
                "import {import_id} of {slug} was made with other rows, mode or period; nothing imported"
            ),
        ));
    }
    let result: String = row.try_get("result")?;
    let mut report: TotalsImportReport = serde_json::from_str(&result)
        .map_err(|e| LedgerError::corrupt(format!("import {import_id} of {slug}: {e}")))?;
    report.repeated = true;
    report.projected = true;
    Ok(Some(report))
}

/// Takes `n` reach sequences of the period at once; answers the first.
async fn take_seqs(tx: &mut Tx, slug: &str, key: &str, n: i64) -> Result<i64, LedgerError> {
    Ok(sqlx::query(
        "UPDATE periods SET next_seq = next_seq + $1 WHERE board = $2 AND period = $3 RETURNING next_seq - $1 AS seq",
    )
    .bind(n)
    .bind(slug)
    .bind(key)
    .fetch_one(&mut **tx)
    .await?
    .try_get("seq")?)
}
