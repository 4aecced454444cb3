//! Imports of existing totals: a host moving to Laurel starts a period from another system's
//! totals (`POST /api/v1/boards/{board}/periods/{period}/imports`, `laurel import-totals`).
//!
//! - **Rows.** Member and points, from a JSON body ([`parse_json_rows`]), a CSV file
//!   ([`parse_csv`]: `member,points`, an optional header) or a JSONL file ([`parse_jsonl`]: one
//!   `{"member", "points"}` per line). Each refused row is named by its number (the row of the
//!   body, the line of a file): malformed, outside the board's bounds, or a member met twice.
//!   **All or nothing**: one refused row refuses the whole import (422 `invalid`, the rows in
//!   `detail`) and nothing is written.
//! - **Modes.** `nx` (the sorted sets' `ZADD NX`): only members with no total in the period yet;
//!   a member already on the board keeps its live total (`kept`), never lowered or replaced.
//!   `replace`: the total becomes the imported points (`unchanged` when it already was).
//! - **Only open periods**: a frozen, settled or archived period is refused (409
//!   `period_not_open`); its totals are final or under review, and a late import would bypass
//!   the late-write review.
//! - **Exactly once per `import_id`**: the first import's report is stored with a digest of its
//!   mode, period and rows (`total_imports`); a repeat with the same content answers it
//!   (`repeated: true`) and writes nothing; other content under the same id is 409
//!   `import_id_taken`.
//! - **Explainable**: every total set is an `opening` entry (value = the total, delta = the
//!   change, the import id in its metadata, the admin as its actor), so the member's history
//!   says why the score is what it is, and a revocation or a replay of the entries keeps it
//!   (`domain::write::Effect::Opening`). Audited as `import_totals`, in the same transaction.
//! - **Projected** like every write after the commit, through the version-guarded script, in
//!   slices of [`PROJECT_SLICE`] members; a Redis failure leaves it to the reconciler.
//! - **Progress** ([`crate::progress`]): checking rows, reading totals, writing entries and
//!   totals, projecting, each counted; the CLI shows it, the console reads it as `import`.
//!
//! The period row is locked for the import's transaction, so the period's writes wait for it
//! (one transaction: a file of a million rows holds the period for seconds).

use super::Writes;
use crate::EngineError;
use crate::ledger::audit::Act;
use crate::progress::Progress;
use crate::redis::ProjectedTotal;
use crate::scope::Scope;
use domain::{Board, BoardSlug, EventId, MemberId, PeriodKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The most rows one import may carry.
pub const MAX_ROWS: usize = 1_000_000;
/// The refused rows an answer names (the count says how many there were).
pub const NAMED_ROW_ERRORS: usize = 20;
/// Members per projection call.
pub const PROJECT_SLICE: usize = 1000;

/// What an import does to a member already on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ImportMode {
    /// Only members with no total in the period yet; live totals are kept.
    Nx,
    /// The total becomes the imported points.
    Replace,
}

impl ImportMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ImportMode::Nx => "nx",
            ImportMode::Replace => "replace",
        }
    }

    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "nx" => Ok(ImportMode::Nx),
            "replace" => Ok(ImportMode::Replace),
            other => Err(format!("mode must be \"nx\" or \"replace\", not {other:?}")),
        }
    }
}

/// One imported total, with the row number that names it in a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalRow {
    /// The row of the body (1-based) or the line of the file.
    pub row: usize,
    pub member: MemberId,
    pub points: i64,
}

/// A row refused, by number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    pub row: usize,
    pub reason: String,
}

/// An import of totals, checked for shape (not yet against a board).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TotalsImport {
    pub import_id: EventId,
    pub mode: ImportMode,
    pub rows: Vec<TotalRow>,
}

impl TotalsImport {
    /// The reason its opening entries and its audit row give.
    pub(crate) fn reason(&self) -> String {
        format!("opening total imported ({}, import {})", self.mode.as_str(), self.import_id)
    }

    /// The digest of what the import does in `period`: a repeat must have the same one.
    pub(crate) fn digest(&self, period: &PeriodKey) -> String {
        let mut h = Sha256::new();
        h.update(format!("laurel-totals-import 1\n{}\n{period}\n", self.mode.as_str()));
        for r in &self.rows {
            h.update(format!("{}\t{}\n", r.member, r.points));
        }
        crate::hex(&h.finalize())
    }
}

/// What an import did (or, for a repeat, what the first one did).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TotalsImportReport {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub import_id: EventId,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub board: BoardSlug,
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub period: PeriodKey,
    pub mode: ImportMode,
    /// Rows in the import.
    pub rows: u64,
    /// Totals set: one `opening` entry each.
    pub imported: u64,
    /// `nx`: members already on the board, whose live totals were kept.
    pub kept: u64,
    /// `replace`: members whose total already was the imported points (no entry).
    pub unchanged: u64,
    /// The admin who imported, as the audit trail names it.
    pub actor: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub imported_at: jiff::Timestamp,
    /// True when this answer is a repeat of an earlier import with this id: nothing was written.
    #[serde(default)]
    pub repeated: bool,
    /// Whether Redis reflects the imported totals yet (the reconciler levels it otherwise).
    #[serde(default)]
    pub projected: bool,
}

/// Builds an import from rows parsed by one of the parsers, or names every refused row.
pub fn build(
    import_id: &str,
    mode: &str,
    rows: Result<Vec<TotalRow>, Vec<RowError>>,
) -> Result<TotalsImport, EngineError> {
    let import_id = EventId::parse(import_id).map_err(|e| EngineError::Invalid(format!("import_id: {e}")))?;
    let mode = ImportMode::parse(mode).map_err(EngineError::Invalid)?;
    let rows = rows.map_err(|errors| refusal(&errors))?;
    Ok(TotalsImport { import_id, mode, rows })
}

/// The answer to an import with refused rows: 422 `invalid`, naming the first
/// [`NAMED_ROW_ERRORS`] rows.
fn refusal(errors: &[RowError]) -> EngineError {
    let named: Vec<String> =
        errors.iter().take(NAMED_ROW_ERRORS).map(|e| format!("row {}: {}", e.row, e.reason)).collect();
    let more = errors.len().saturating_sub(NAMED_ROW_ERRORS);
    let more = if more > 0 { format!("; and {more} more") } else { String::new() };
    EngineError::Invalid(format!(
        "{} row(s) refused, nothing imported: {}{more}",
        errors.len(),
        named.join("; ")
    ))
}

/// One row from its raw member and points, as the parsers read them.
fn row(row: usize, member: &str, points: Result<i64, String>) -> Result<TotalRow, RowError> {
    let member = MemberId::parse(member.trim()).map_err(|e| RowError { row, reason: e.to_string() })?;
    let points = points.map_err(|reason| RowError { row, reason })?;
    Ok(TotalRow { row, member, points })
}

fn collect(rows: Vec<Result<TotalRow, RowError>>) -> Result<Vec<TotalRow>, Vec<RowError>> {
    let mut errors = Vec::new();
    let mut ok = Vec::with_capacity(rows.len());
    let mut first_row: HashMap<MemberId, usize> = HashMap::new();
    for r in rows {
        match r {
            Ok(r) => match first_row.get(&r.member) {
                Some(first) => errors.push(RowError {
                    row: r.row,
                    reason: format!("member {} already in row {first}", r.member),
                }),
                None => {
                    first_row.insert(r.member.clone(), r.row);
                    ok.push(r);
                }
            },
            Err(e) => errors.push(e),
        }
    }
    if ok.len() + errors.len() > MAX_ROWS {
        errors.insert(
            0,
            RowError { row: MAX_ROWS + 1, reason: format!("an import holds at most {MAX_ROWS} rows") },
        );
    }
    if errors.is_empty() { Ok(ok) } else { Err(errors) }
}

fn points_of(value: &serde_json::Value) -> Result<i64, String> {
    value.as_i64().ok_or_else(|| format!("points must be a whole number within ±2^63, not {value}"))
}

/// The rows of a JSON body: objects `{member, points}`, numbered from 1.
pub fn parse_json_rows(rows: &[serde_json::Value]) -> Result<Vec<TotalRow>, Vec<RowError>> {
    let parsed = rows.iter().enumerate().map(|(i, value)| json_row(i + 1, value)).collect::<Vec<_>>();
    collect(parsed)
}

fn json_row(n: usize, value: &serde_json::Value) -> Result<TotalRow, RowError> {
    let refuse = |reason: String| RowError { row: n, reason };
    let object = value.as_object().ok_or_else(|| refuse("not an object {member, points}".into()))?;
    if let Some(other) = object.keys().find(|k| *k != "member" && *k != "points") {
        return Err(refuse(format!("unknown field {other:?}")));
    }
    let member = object
        .get("member")
        .and_then(|m| m.as_str())
        .ok_or_else(|| refuse("member is missing or not a string".into()))?;
    let points = object.get("points").ok_or_else(|| refuse("points is missing".into()))?;
    row(n, member, points_of(points))
}

/// The rows of a CSV file: `member,points` per line, an optional header line `member,points`,
/// blank lines skipped; each row is named by its line.
pub fn parse_csv(text: &str) -> Result<Vec<TotalRow>, Vec<RowError>> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let (n, line) = (i + 1, line.trim());
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if rows.is_empty() && fields.first().is_some_and(|f| f.eq_ignore_ascii_case("member")) {
            continue;
        }
        let [member, points] = fields[..] else {
            rows.push(Err(RowError {
                row: n,
                reason: format!("expected member,points; found {} fields", fields.len()),
            }));
            continue;
        };
        let points =
            points.parse::<i64>().map_err(|_| format!("points must be a whole number, not {points:?}"));
        rows.push(row(n, member, points));
    }
    collect(rows)
}

/// The rows of a JSONL file: one object `{"member", "points"}` per line, blank lines skipped;
/// each row is named by its line.
pub fn parse_jsonl(text: &str) -> Result<Vec<TotalRow>, Vec<RowError>> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let (n, line) = (i + 1, line.trim());
        if line.is_empty() {
            continue;
        }
        rows.push(match serde_json::from_str::<serde_json::Value>(line) {
            Ok(value) => json_row(n, &value),
            Err(e) => Err(RowError { row: n, reason: format!("not JSON: {e}") }),
        });
    }
    collect(rows)
}

/// The rows of a file, by its extension: `.csv` or `.jsonl` (`.ndjson`).
pub fn parse_file(
    path: &std::path::Path,
    text: &str,
) -> Result<Result<Vec<TotalRow>, Vec<RowError>>, String> {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("csv") => Ok(parse_csv(text)),
        Some("jsonl" | "ndjson") => Ok(parse_jsonl(text)),
        _ => Err(format!("{}: the file must end in .csv or .jsonl", path.display())),
    }
}

/// The import id of a file imported without one: `file-` and the SHA-256 of its bytes, so the
/// same file imported again is a repeat.
pub fn file_import_id(bytes: &[u8]) -> String {
    format!("file-{}", crate::hex(&Sha256::digest(bytes)))
}

/// The rows `board` refuses: points outside its bounds.
fn board_refusals(board: &Board, rows: &[TotalRow]) -> Vec<RowError> {
    rows.iter()
        .filter_map(|r| {
            domain::write::value_refusal(board, domain::write::ChangeValue::Total(r.points))
                .map(|reason| RowError { row: r.row, reason })
        })
        .collect()
}

impl Writes {
    /// Imports totals into an open period (see the module doc), then projects them.
    pub async fn import_totals(
        &self,
        scope: &Scope,
        import: &TotalsImport,
        actor: &str,
        progress: &Progress,
    ) -> Result<TotalsImportReport, EngineError> {
        let (board, period) = (scope.board(), scope.period());
        crate::seasons::refuse_direct(board)?;
        let _tracked = progress.track("import", &board.slug, &period);
        progress.phase("checking rows", "rows", import.rows.len() as u64);
        let refused = board_refusals(board, &import.rows);
        if !refused.is_empty() {
            return Err(refusal(&refused));
        }
        progress.advance(import.rows.len() as u64);
        let now = jiff::Timestamp::now();
        let (mut report, totals) = self
            .core
            .ledger
            .import_totals(board, period, import, &Act::new(actor, Some(&import.reason()), now), progress)
            .await?;
        if report.repeated {
            progress.done();
            return Ok(report);
        }
        progress.phase("projecting", "members", totals.len() as u64);
        let mut projected = true;
        for slice in totals.chunks(PROJECT_SLICE) {
            let slice: Vec<ProjectedTotal> = slice
                .iter()
                .map(|t| ProjectedTotal {
                    member: t.member.clone(),
                    version: t.version,
                    score: t.score,
                    hidden: t.hidden,
                })
                .collect();
            let into_rankings = async {
                self.core.projection.project_many(&board.slug, &period, &slice).await?;
                // The members' segment rankings too (a board with segments).
                self.core.project_segments(board, &period, &slice).await
            };
            if projected && let Err(error) = into_rankings.await {
                self.core.metrics.redis_errors.inc();
                tracing::warn!(board = %board.slug, %period, %error,
                    "import projection failed; the ledger has the totals and the reconciler will level them");
                projected = false;
            }
            progress.advance(slice.len() as u64);
        }
        if !totals.is_empty() {
            self.live.announce(&board.slug, &period);
        }
        report.projected = projected;
        progress.done();
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_are_named_by_their_line_and_a_header_is_skipped() {
        let rows = parse_csv("member,points\nalice, 10\n\nbob,-3\n").unwrap();
        assert_eq!(
            rows.iter().map(|r| (r.row, r.member.as_str(), r.points)).collect::<Vec<_>>(),
            [(2, "alice", 10), (4, "bob", -3)]
        );
        let errors = parse_csv("alice,x\nbad id,1\nalice,2\ncarol\nalice,3\n").unwrap_err();
        let rows: Vec<usize> = errors.iter().map(|e| e.row).collect();
        assert_eq!(rows, [1, 2, 4, 5], "{errors:?}");
        assert!(errors[3].reason.contains("already in row 3"), "{errors:?}");
    }

    #[test]
    fn jsonl_and_json_rows_refuse_what_is_not_a_member_with_whole_points() {
        let rows = parse_jsonl("{\"member\":\"a\",\"points\":5}\n\n{\"member\":\"b\",\"points\":7}").unwrap();
        assert_eq!(rows.iter().map(|r| r.row).collect::<Vec<_>>(), [1, 3]);
        let errors = parse_jsonl(
            "{\"member\":\"a\",\"points\":1.5}\nnot json\n{\"member\":\"b\",\"points\":1,\"x\":1}",
        )
        .unwrap_err();
        assert_eq!(errors.iter().map(|e| e.row).collect::<Vec<_>>(), [1, 2, 3]);
        let errors =
            parse_json_rows(&[serde_json::json!({"member": "a"}), serde_json::json!(3)]).unwrap_err();
        assert_eq!(errors.iter().map(|e| e.row).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn a_refusal_names_its_rows_and_counts_the_rest() {
        let errors: Vec<RowError> = (1..=25).map(|row| RowError { row, reason: "bad".into() }).collect();
        let detail = refusal(&errors).to_string();
        assert!(detail.starts_with("25 row(s) refused, nothing imported: row 1: bad"), "{detail}");
        assert!(detail.ends_with("row 20: bad; and 5 more"), "{detail}");
    }
}
