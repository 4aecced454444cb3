//! Read models: what the REST API returns and what the server functions send to the UI. They are
//! plain data built by the engine; field names follow the HTTP API contract.

use crate::board::{Cadence, Operator, TiePolicy};
use crate::ids::{BoardSlug, MemberId};
use crate::period::PeriodKey;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// A board as readers see it, with the period that is current at the time of the read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardSummary {
    pub slug: BoardSlug,
    pub title: String,
    pub cadence: Cadence,
    pub time_zone: String,
    pub operator: Operator,
    pub tie_policy: TiePolicy,
    pub current_period: PeriodKey,
}

/// One ranked member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Follows the board's tie policy (`shared`: 1, 2, 2, 4).
    pub rank: u64,
    pub member: MemberId,
    pub points: i64,
    /// Untrusted text from the member's profile; absent when there is no profile.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub display_name: Option<String>,
    /// True when another member has the same rank (only possible under `shared`).
    #[serde(default)]
    pub tied: bool,
}

impl Entry {
    /// The name to show: the profile's display name, else the member id.
    pub fn name(&self) -> &str {
        self.display_name.as_deref().unwrap_or(self.member.as_str())
    }
}

/// A run of entries of one period, read live (it may shift between reads while writes continue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankingPage {
    pub board: BoardSummary,
    pub period: PeriodKey,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    /// The period's end in the board's zone, for display ("Mon 2026-12-07 00:00").
    pub ends_local: String,
    /// Number of members on the period's board.
    pub total: u64,
    /// Position (0-based) of the first entry.
    pub offset: u64,
    pub entries: Vec<Entry>,
    /// True when entries exist after this page.
    pub has_more: bool,
}

/// One ledger entry behind a member's score ("why this score").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub id: i64,
    /// `point` (incr), `total` (set) or `submission` (best).
    pub kind: String,
    /// The event or submission id (absent for `set` writes).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub external_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub delta: Option<i64>,
    /// The total (set) or score (best) the entry carried.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub set_version: Option<i64>,
    pub occurred_at: Timestamp,
    pub recorded_at: Timestamp,
    /// Caller-supplied JSON, as text.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub metadata: Option<String>,
}

/// A period of a board, with its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodInfo {
    pub period: PeriodKey,
    pub state: String,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
}

/// A keyset page and the cursor that continues it (None: the last page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CursorPage {
    pub page: RankingPage,
    pub next_cursor: Option<String>,
}

/// A pinned copy of a period's ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotInfo {
    pub snapshot_id: String,
    pub total: u64,
    pub expires_at: Timestamp,
}

/// A member's standing in a period and the ledger entries behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberView {
    pub board: BoardSummary,
    pub period: PeriodKey,
    pub member: MemberId,
    /// None when the member has no points in the period.
    pub standing: Option<Entry>,
    pub entries: Vec<LedgerEntry>,
    /// Pass as `before` to read older entries.
    pub older: Option<i64>,
}

/// One row of the audit trail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub id: i64,
    pub at: Timestamp,
    pub actor: String,
    pub action: String,
    pub board: Option<String>,
    pub period: Option<String>,
    pub member: Option<String>,
    pub reason: Option<String>,
    /// The state before and after the change, as JSON.
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
}

/// A write kept for review because its period was no longer open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LateEntry {
    pub id: i64,
    pub period: PeriodKey,
    pub member: MemberId,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub external_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub delta: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub set_version: Option<i64>,
    pub occurred_at: Timestamp,
    pub received_at: Timestamp,
    /// `pending`, `accepted` or `rejected`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub decided_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub decision_reason: Option<String>,
}

/// A period's settlement: what was decided, on which evidence, and its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub revision: i64,
    pub rule_version: i64,
    /// The highest ledger entry id of the period the standings account for.
    pub watermark: i64,
    /// SHA-256 (hex) of `domain::settlement::canonical_text` of the standings.
    pub digest: String,
    pub members: u64,
    pub actor: String,
    pub settled_at: Timestamp,
    pub standings: Vec<crate::settlement::Standing>,
}
