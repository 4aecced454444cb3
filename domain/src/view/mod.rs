//! Read models: what the REST API returns and what the server functions send to the UI. They are
//! plain data built by the engine; field names follow the HTTP API contract. Reads here; the
//! lifecycle's in `lifecycle.rs`, histories and distributions in `history.rs`, the console's front
//! page in `attention.rs`, and their OpenAPI schemas in `schema.rs` (feature `openapi`).

mod attention;
mod history;
mod lifecycle;
#[cfg(feature = "openapi")]
mod schema;
mod segments;

pub use attention::*;
pub use history::*;
pub use lifecycle::*;
#[cfg(feature = "openapi")]
pub use schema::period_state;
pub use segments::*;

use crate::ids::{BoardSlug, MemberId};
use crate::kinds::{Cadence, Operator, TiePolicy};
use crate::lifecycle::State;
use crate::period::PeriodKey;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// A board as readers see it, with the period that is current at the time of the read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BoardSummary {
    pub slug: BoardSlug,
    pub title: String,
    pub cadence: Cadence,
    pub time_zone: String,
    pub operator: Operator,
    pub tie_policy: TiePolicy,
    pub current_period: PeriodKey,
    /// `desc`: more points rank first; `asc`: fewer (lower is better).
    pub sort: crate::kinds::Sort,
    /// `ms`: the points are milliseconds, shown as durations.
    pub unit: crate::kinds::Unit,
}

/// Members of a period found by the start of their display name ("Find me" by name), best
/// ranked first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameMatches {
    pub entries: Vec<Entry>,
    /// Other members may match past those read: a longer prefix narrows them.
    pub more: bool,
}

/// One ranked member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Entry {
    /// Follows the board's tie policy (`shared`: 1, 2, 2, 4).
    pub rank: u64,
    pub member: MemberId,
    pub points: i64,
    /// Untrusted text from the member's profile; absent when there is no profile.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub display_name: Option<String>,
    /// Untrusted text from the member's profile: the avatar's URL as the host platform sent it
    /// (http or https); absent when there is no profile or it has no avatar. Pages show https
    /// avatars only.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub avatar_url: Option<String>,
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

/// Where a ranking read came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReadSource {
    /// The live projection.
    #[default]
    Redis,
    /// The ledger's totals, because the projection could not be read: the same order and ranks,
    /// possibly a moment behind a write that is still committing.
    Ledger,
    /// An archived period's settled standings.
    Standings,
}

/// A run of entries of one period, read live (it may shift between reads while writes continue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankingPage {
    pub board: BoardSummary,
    pub period: PeriodKey,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub starts_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
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
    /// Where the page was read from.
    #[serde(default)]
    pub source: ReadSource,
    /// The period's state, read with the page (so a page never shows a state it did not read).
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::period_state))]
    pub state: crate::lifecycle::State,
    /// While the period is publicly frozen (public reads): when the standings shown were taken.
    /// Writes made since count, but are not shown until the reveal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub frozen_at: Option<Timestamp>,
}

/// One ledger entry behind a member's score ("why this score").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LedgerEntry {
    pub id: i64,
    /// `point` (incr), `total` (set), `submission` (best), or an admin's `correction` or
    /// `revocation`.
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
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub occurred_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub recorded_at: Timestamp,
    /// The JSON the write carried; null when it carried none.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub metadata: Option<serde_json::Value>,
    /// Why an admin made this entry (corrections, revocations, accepted late writes).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// On a revocation: the event or submission id it cancels.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub revokes: Option<String>,
    /// This entry was revoked later and no longer counts.
    #[serde(default)]
    pub revoked: bool,
}

/// A period of a board, with its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeriodInfo {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    #[cfg_attr(feature = "openapi", schema(schema_with = schema::period_state))]
    pub state: State,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub starts_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub ends_at: Timestamp,
}

/// A keyset page and the cursor that continues it (None: the last page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CursorPage {
    pub page: RankingPage,
    pub next_cursor: Option<String>,
}

/// A pinned copy of a period's ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SnapshotInfo {
    pub snapshot_id: String,
    pub total: u64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expires_at: Timestamp,
}

/// A member's standing in a period and the ledger entries behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MemberView {
    pub board: BoardSummary,
    pub period: PeriodKey,
    pub member: MemberId,
    /// None when the member has no points in the period.
    pub standing: Option<Entry>,
    /// Where the standing was read from (None with no standing).
    #[serde(default)]
    pub standing_source: Option<ReadSource>,
    pub entries: Vec<LedgerEntry>,
    /// Pass as `before` to read older entries.
    pub older: Option<i64>,
    /// While the period is publicly frozen (the public's view): when the standing and entries
    /// shown were taken; entries recorded since are not listed until the reveal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub frozen_at: Option<Timestamp>,
}

/// A member of a period as the console sees it: the public view (with a rank only while the
/// member is ranked), the member's total in the ledger and whether it is hidden.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberAdminView {
    pub view: MemberView,
    /// Hidden in the period: out of every public view and of the standings; entries kept.
    pub hidden: bool,
    /// The member's points in the ledger, hidden or not; None when it has no total in the period.
    pub points: Option<i64>,
    /// The version of that total (it rises with every change, hiding and unhiding included).
    pub version: Option<i64>,
}
