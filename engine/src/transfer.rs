//! Moving a settled period between ledgers: `laurel export` writes one period — its board's
//! definition, every ledger entry, the late writes with their decisions, the settlement and its
//! standings — as JSON; `laurel import` replays it into another ledger (SQLite ↔ PostgreSQL, or
//! another deployment) and proves the result by recomputing the settlement digest.
//!
//! The export carries no raw row ids: the target gives the entries new ids, and a revocation names
//! what it revokes by that entry's external id. Import trusts nothing but the entries: totals are
//! recomputed with `domain::write::replay`, standings with `domain::settlement::standings`, and
//! the digest over the standings as stored must equal the exported one, or nothing is written.
//! Earlier settlement revisions travel with their standings; the import checks each against its
//! digest and the whole chain of `previous_digest`s (`chain_broken` otherwise). Rewards are not
//! carried: the source delivered them. Hidden members travel as a flag on their totals, so the
//! import recomputes the same digest ([`FORMAT_VERSION`] says what each version added). A board
//! with segments travels with its dimensions and each member's values in the period
//! (`segments`), written in the import's transaction, so its segment rankings rank the same. An
//! import is one transaction; a second import of the same period is refused.

use crate::progress::Progress;
use crate::reads::Reads;
use crate::scope::Scope;
use crate::{Core, EngineError};
use domain::board::Prize;
use domain::lifecycle::State;
use domain::segment::Values;
use domain::settlement::Standing;
use domain::{Board, BoardSlug, Cadence, MemberId, Operator, PeriodKey, ScoreCodec, Sort, TiePolicy, Unit};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `format` of every export; [`FORMAT_VERSION`] rises with any change of its shape.
pub const FORMAT: &str = "laurel-period";
/// 2: totals may carry `hidden` (members hidden in the period, left out of the standings).
/// 3: the settlement revisions before the latest (`revisions`), and each revision's
/// `previous_digest` and `reason`: the whole hash chain.
/// 4: each revision's receipts root (`merkle_root`) and chain `link` (`domain::receipt`).
/// 5: the board's segment dimensions (`board.segments`) and each member's values in the period
/// (`segments`), both absent for a board without segments.
pub const FORMAT_VERSION: u32 = 5;
/// The oldest version an import still reads: version 1 is version 2 without hidden members,
/// version 2 is version 3 with one revision, version 3 is version 4 without roots and links
/// (the import computes them), and version 4 is version 5 of a board without segments.
pub const OLDEST_FORMAT_VERSION: u32 = 1;

/// One settled (or archived) period of a board, complete enough to rebuild it elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodExport {
    /// Always [`FORMAT`].
    pub format: String,
    pub format_version: u32,
    pub exported_at: Timestamp,
    pub board: BoardDefinition,
    pub period: PeriodKey,
    /// `settled` or `archived`.
    pub state: State,
    pub state_changed_at: Option<Timestamp>,
    /// The period's next reach sequence (first_reached), so the target continues where the source was.
    pub next_seq: i64,
    /// Every ledger entry of the period, in the order the source recorded them.
    pub entries: Vec<ExportedEntry>,
    /// The members' totals as the source held them (checked against a replay of `entries`).
    pub totals: Vec<ExportedTotal>,
    /// Late writes of the period with their decisions, oldest first.
    pub late_entries: Vec<ExportedLate>,
    /// The latest settlement revision: what the import recomputes from `entries`.
    pub settlement: ExportedSettlement,
    /// The revisions `settlement` replaced, oldest first (format version 3): imported as they
    /// are, each checked against its own digest and the chain of `previous_digest`s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<ExportedSettlement>,
    /// Each member's segment values in the period, by member then dimension (format version 5):
    /// `{"u1": {"province": "zj", "class": "c-17"}}`. Absent for a board without segments.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub segments: BTreeMap<MemberId, Values>,
}

/// A board as the `POST /api/v1/boards` body names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardDefinition {
    pub slug: BoardSlug,
    pub title: String,
    pub cadence: Cadence,
    pub time_zone: String,
    pub operator: Operator,
    pub tie_policy: TiePolicy,
    pub max_points: i64,
    pub min_points: i64,
    pub tie_base: i64,
    pub freeze_grace_seconds: i64,
    /// Absent from exports made before public freezes existed: none.
    #[serde(default)]
    pub public_freeze_seconds: i64,
    pub prizes: Vec<Prize>,
    /// Absent from exports of descending boards (and from exports made before ascending boards
    /// existed), so their bytes are unchanged: `desc`.
    #[serde(default = "descending", skip_serializing_if = "is_descending")]
    pub sort: Sort,
    /// Absent for plain points, as `sort`.
    #[serde(default = "plain_points", skip_serializing_if = "is_plain_points")]
    pub unit: Unit,
    /// Absent from exports of unbounded boards (and from those made before bounded boards).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_top: Option<u64>,
    /// Absent when the default, so exports of boards that never changed it read as before.
    #[serde(default = "default_ttl", skip_serializing_if = "is_default_ttl")]
    pub ranking_ttl_days: i64,
    /// The declared segment dimensions (format version 5); absent for a board without any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<String>,
    /// Prize tables by dimension (format version 5); absent when none.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub segment_prizes: domain::board::SegmentPrizes,
}

fn descending() -> Sort {
    Sort::Desc
}

fn is_descending(sort: &Sort) -> bool {
    *sort == Sort::Desc
}

fn plain_points() -> Unit {
    Unit::Points
}

fn is_plain_points(unit: &Unit) -> bool {
    *unit == Unit::Points
}

fn default_ttl() -> i64 {
    domain::board::DEFAULT_RANKING_TTL_DAYS
}

fn is_default_ttl(days: &i64) -> bool {
    *days == domain::board::DEFAULT_RANKING_TTL_DAYS
}

impl BoardDefinition {
    pub fn of(board: &Board) -> Self {
        let (min_points, max_points) = board.codec.bounds();
        Self {
            slug: board.slug.clone(),
            title: board.title.clone(),
            cadence: board.cadence,
            time_zone: board.time_zone().to_owned(),
            operator: board.operator,
            tie_policy: board.tie_policy(),
            max_points,
            min_points,
            tie_base: board.codec.tie_base(),
            freeze_grace_seconds: board.freeze_grace_seconds,
            public_freeze_seconds: board.public_freeze_seconds,
            prizes: board.prizes.clone(),
            sort: board.sort(),
            unit: board.unit,
            keep_top: board.keep_top,
            ranking_ttl_days: board.ranking_ttl_days,
            segments: board.segments.clone(),
            segment_prizes: board.segment_prizes.clone(),
        }
    }

    /// The board this definition describes, with the checks of board creation.
    pub fn to_board(&self) -> Result<Board, EngineError> {
        let invalid = |what: String| EngineError::Invalid(format!("the export's board: {what}"));
        let zone = jiff::tz::TimeZone::get(&self.time_zone)
            .map_err(|_| invalid(format!("unknown time zone {:?}", self.time_zone)))?;
        let codec = ScoreCodec::new(self.tie_policy, self.min_points, self.max_points, self.tie_base)
            .map_err(|e| invalid(e.to_string()))?
            .sorted(self.sort);
        domain::board::check_prizes(&self.prizes).map_err(invalid)?;
        domain::segment::check_dimensions(&self.segments).map_err(invalid)?;
        domain::board::check_segment_prizes(&self.segments, &self.segment_prizes).map_err(invalid)?;
        if self.keep_top.is_some() && !self.segments.is_empty() {
            return Err(invalid("a bounded board (keep_top) cannot declare segments".into()));
        }
        if self.cadence == domain::Cadence::Season {
            return Err(invalid("season boards are not exported or imported; export their source".into()));
        }
        Ok(Board {
            slug: self.slug.clone(),
            title: self.title.clone(),
            cadence: self.cadence,
            zone,
            operator: self.operator,
            codec,
            freeze_grace_seconds: self.freeze_grace_seconds,
            public_freeze_seconds: self.public_freeze_seconds,
            prizes: self.prizes.clone(),
            unit: self.unit,
            keep_top: self.keep_top,
            ranking_ttl_days: self.ranking_ttl_days,
            segments: self.segments.clone(),
            segment_prizes: self.segment_prizes.clone(),
            season: None,
        })
    }
}

/// One ledger entry. `kind`: `point`, `total`, `submission`, `correction` or `revocation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedEntry {
    pub member: MemberId,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_version: Option<i64>,
    pub occurred_at: Timestamp,
    pub recorded_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<String>,
    /// The reach sequence the source gave the entry (kept: it decides first_reached ties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach_seq: Option<i64>,
    /// On a revocation: the external id of the entry it cancels (an earlier entry of this export).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revokes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A member's total in the source ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedTotal {
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    pub reach_seq: i64,
    pub set_version: i64,
    /// Hidden in the period: no standing (the settlement left it out), entries kept. Written only
    /// when true (format version 2).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

/// A late write and the decision on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedLate {
    pub member: MemberId,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_version: Option<i64>,
    pub occurred_at: Timestamp,
    pub received_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<String>,
    /// `pending`, `accepted` or `rejected` (a settled period has no pending ones).
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<String>,
}

/// The settlement as the source recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedSettlement {
    pub revision: i64,
    pub rule_version: i64,
    /// The source's watermark (its own entry ids); the target records its own.
    pub watermark: i64,
    /// SHA-256 (hex) of the canonical standings: what the import must reproduce.
    pub digest: String,
    /// The digest of the revision this one replaced (none for the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_digest: Option<String>,
    /// Why this revision was written (none for the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub actor: String,
    pub settled_at: Timestamp,
    pub standings: Vec<Standing>,
    /// The root of the revision's receipts tree (format version 4; `domain::receipt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merkle_root: Option<String>,
    /// The revision's chain link over the link before it, its digest and root (format version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Every segment ranking the revision settled, which `digest` folds in (format version 5);
    /// absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<domain::settlement::SegmentSettled>,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub state: State,
    /// False when the board already existed with the same definition.
    pub board_created: bool,
    pub entries: u64,
    pub late_entries: u64,
    pub members: u64,
    /// The digest recomputed in the target (equal to the exported one, or nothing was written).
    pub digest: String,
    /// Settlement revisions imported, the latest included (their chain checked).
    pub revisions: u64,
    /// The target's watermark (its highest entry id of the period).
    pub watermark: i64,
    /// For a settled period: whether the projection was rebuilt (archived periods have none).
    pub projected: bool,
}

impl PeriodExport {
    /// The rows of the export, as [`write_export`] counts them: entries, totals, late writes and
    /// the standings of every revision.
    pub fn rows(&self) -> u64 {
        let standings: usize =
            self.revisions.iter().chain([&self.settlement]).map(|r| r.standings.len()).sum();
        (self.entries.len() + self.totals.len() + self.late_entries.len() + standings) as u64
    }
}

/// The arrays whose items [`write_export`] counts as rows.
const ROW_ARRAYS: [&str; 4] = ["entries", "totals", "late_entries", "standings"];

/// Rows written between two reports of [`write_export`].
const ROWS_PER_REPORT: u64 = 1000;

/// Writes an export as `laurel export` does — pretty JSON, then a newline — reporting one phase,
/// `writing` ([`PeriodExport::rows`]), advanced every thousand rows as they are serialised, and
/// then the end of the export.
pub fn write_export(
    export: &PeriodExport,
    mut out: impl std::io::Write,
    progress: &Progress,
) -> std::io::Result<()> {
    progress.phase("writing", "rows", export.rows());
    let mut formatter = RowCounter {
        pretty: serde_json::ser::PrettyFormatter::new(),
        progress,
        open: Vec::new(),
        key: String::new(),
        in_key: false,
        unreported: 0,
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, &mut formatter);
    export.serialize(&mut serializer).map_err(std::io::Error::other)?;
    progress.advance(std::mem::take(&mut formatter.unreported));
    out.write_all(b"\n")?;
    out.flush()?;
    progress.done();
    Ok(())
}

/// What a [`RowCounter`] is inside of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Object,
    /// An array named in [`ROW_ARRAYS`]: each object in it is a row.
    Rows,
    Array,
}

/// serde_json's pretty printer (the bytes are exactly `to_string_pretty`'s), counting the objects
/// closed directly inside the arrays of [`ROW_ARRAYS`] by the key that names each array.
struct RowCounter<'a> {
    pretty: serde_json::ser::PrettyFormatter<'static>,
    progress: &'a Progress,
    open: Vec<Open>,
    /// The last object key written (the name of the value that follows it).
    key: String,
    in_key: bool,
    unreported: u64,
}

impl serde_json::ser::Formatter for &mut RowCounter<'_> {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        let named = self.open.last() == Some(&Open::Object) && ROW_ARRAYS.contains(&self.key.as_str());
        self.open.push(if named { Open::Rows } else { Open::Array });
        self.pretty.begin_array(w)
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open.pop();
        self.pretty.end_array(w)
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.pretty.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.end_array_value(w)
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open.push(Open::Object);
        self.pretty.begin_object(w)
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open.pop();
        if self.open.last() == Some(&Open::Rows) {
            self.unreported += 1;
            if self.unreported == ROWS_PER_REPORT {
                self.progress.advance(std::mem::take(&mut self.unreported));
            }
        }
        self.pretty.end_object(w)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        (self.in_key, self.key) = (true, String::new());
        self.pretty.begin_object_key(w, first)
    }

    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.in_key = false;
        self.pretty.end_object_key(w)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.pretty.end_object_value(w)
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if self.in_key {
            self.key.push_str(fragment);
        }
        self.pretty.write_string_fragment(w, fragment)
    }
}

/// The transfer service: exports a settled period as JSON and imports one into another ledger,
/// checked by its digest. It keeps no state of its own; an import drops the reads' copies of the
/// board. Cheap to clone.
#[derive(Clone)]
pub struct Transfer {
    core: Core,
    reads: Reads,
}

impl Transfer {
    pub(crate) fn new(core: Core, reads: Reads) -> Self {
        Self { core, reads }
    }

    /// Exports a settled or archived period (`Refused { code: not_settled }` otherwise).
    pub async fn export_period(&self, scope: &Scope) -> Result<PeriodExport, EngineError> {
        self.export_period_with_progress(scope, &Progress::new()).await
    }

    /// [`Transfer::export_period`], reporting `reading the period` to `progress`: one transaction
    /// whose rows are not counted before they are read. [`write_export`] reports the rows it
    /// writes, and the end.
    pub async fn export_period_with_progress(
        &self,
        scope: &Scope,
        progress: &Progress,
    ) -> Result<PeriodExport, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        if board.season.is_some() {
            // Its totals are computed from the source's: the source's exports carry the truth.
            return Err(EngineError::Invalid("season boards are not exported; export their source".into()));
        }
        let _job = progress.track("export", slug, &period);
        progress.uncounted("reading the period", "rows");
        Ok(self.core.ledger.export_period(board, period, Timestamp::now()).await?)
    }

    /// Imports an exported period in one ledger transaction: the board (created if missing,
    /// refused if it exists with another definition), the entries, recomputed totals, late
    /// writes, settlement, standings and state. Refused, with nothing written, if the period
    /// exists here or the recomputed digest is not the exported one.
    pub async fn import_period(&self, export: &PeriodExport) -> Result<ImportReport, EngineError> {
        self.import_period_with_progress(export, &Progress::new()).await
    }

    /// [`Transfer::import_period`], reporting to `progress` the ledger's phases (entries, late
    /// writes, totals replayed and inserted, the standings of each revision: counted from the
    /// export) and, for a settled period, `projecting`.
    pub async fn import_period_with_progress(
        &self,
        export: &PeriodExport,
        progress: &Progress,
    ) -> Result<ImportReport, EngineError> {
        if export.format != FORMAT
            || !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&export.format_version)
        {
            return Err(EngineError::Invalid(format!(
                "not a period export this version reads (format {:?} version {}; expected {FORMAT:?} \
                 version {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION})",
                export.format, export.format_version
            )));
        }
        let board = export.board.to_board()?;
        if PeriodKey::parse_for(board.cadence, &export.period.to_string()).is_err() {
            return Err(EngineError::Invalid(format!(
                "period {} is not a {} period",
                export.period, board.cadence
            )));
        }
        let _job = progress.track("import", &board.slug, &export.period);
        let report =
            self.core.ledger.import_period_with_progress(&board, export, Timestamp::now(), progress).await?;
        self.reads.forget_cached(&board.slug);
        let projected = if report.state == State::Settled {
            // Settled periods are still read from the projection; the ledger has everything, so
            // a Redis failure only leaves the rebuild to `laurel rebuild`.
            let projected = async {
                let totals = self.core.projected_totals(&board, &export.period).await?;
                let (totals, floor) = crate::totals::kept(&board, totals);
                progress.phase("projecting", "members", totals.len() as u64);
                self.core.projection.rebuild(&board.slug, &export.period, &totals, floor).await?;
                progress.advance(totals.len() as u64);
                // Its segment rankings too, from the memberships the import wrote.
                if !board.segments.is_empty() {
                    self.core.rebuild_segments(&board, &export.period).await?;
                }
                Ok::<_, EngineError>(())
            };
            match projected.await {
                Ok(()) => true,
                Err(error) => {
                    tracing::warn!(board = %board.slug, period = %export.period, %error,
                        "imported period not projected; run laurel rebuild");
                    false
                }
            }
        } else {
            false
        };
        progress.done();
        Ok(ImportReport { projected, ..report })
    }
}
