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
//! digest and the whole chain of `previous_digest`s. Rewards are not carried: the source
//! delivered them.

use crate::{Engine, EngineError};
use domain::board::Prize;
use domain::lifecycle::State;
use domain::settlement::Standing;
use domain::{Board, BoardSlug, Cadence, MemberId, Operator, PeriodKey, ScoreCodec, TiePolicy};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The `format` of every export; [`FORMAT_VERSION`] rises with any change of its shape.
pub const FORMAT: &str = "laurel-period";
/// 2: totals may carry `hidden` (members hidden in the period, left out of the standings).
/// 3: the settlement revisions before the latest (`revisions`), and each revision's
/// `previous_digest` and `reason`: the whole hash chain.
pub const FORMAT_VERSION: u32 = 3;
/// The oldest version an import still reads: version 1 is version 2 without hidden members, and
/// version 2 is version 3 with one revision.
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
        }
    }

    /// The board this definition describes, with the checks of board creation.
    pub fn to_board(&self) -> Result<Board, EngineError> {
        let invalid = |what: String| EngineError::Invalid(format!("the export's board: {what}"));
        let zone = jiff::tz::TimeZone::get(&self.time_zone)
            .map_err(|_| invalid(format!("unknown time zone {:?}", self.time_zone)))?;
        let codec = ScoreCodec::new(self.tie_policy, self.min_points, self.max_points, self.tie_base)
            .map_err(|e| invalid(e.to_string()))?;
        domain::board::check_prizes(&self.prizes).map_err(invalid)?;
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

impl Engine {
    /// Exports a settled or archived period (`Conflict { code: "not_settled" }` otherwise).
    pub async fn export_period(&self, slug: &BoardSlug, period: &str) -> Result<PeriodExport, EngineError> {
        let board = self.board(slug).await?;
        let period = self.period_of(&board, Some(period))?;
        Ok(self.ledger.export_period(&board, period, Timestamp::now()).await?)
    }

    /// Imports an exported period in one ledger transaction: the board (created if missing,
    /// refused if it exists with another definition), the entries, recomputed totals, late
    /// writes, settlement, standings and state. Refused, with nothing written, if the period
    /// exists here or the recomputed digest is not the exported one.
    pub async fn import_period(&self, export: &PeriodExport) -> Result<ImportReport, EngineError> {
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
        let report = self.ledger.import_period(&board, export, Timestamp::now()).await?;
        self.forget_cached(&board.slug);
        let projected = if report.state == State::Settled {
            // Settled periods are still read from the projection; the ledger has everything, so
            // a Redis failure only leaves the rebuild to `laurel rebuild`.
            let projected = async {
                let totals = self.projected_totals(&board, &export.period).await?;
                self.projection.rebuild(&board.slug, &export.period, &totals).await?;
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
        Ok(ImportReport { projected, ..report })
    }
}
