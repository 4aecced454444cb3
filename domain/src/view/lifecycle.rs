//! What the lifecycle's reads and changes answer: moderation, the audit trail, late writes,
//! settlements and their revisions, rewards and their attempts.

use crate::ids::{BoardSlug, MemberId};
use crate::period::PeriodKey;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// What hiding or unhiding a member did. The words are the API's `result` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VisibilityOutcome {
    /// The member was visible and is now hidden.
    Hidden,
    /// The member was hidden before; nothing changed.
    AlreadyHidden,
    /// The member was hidden and is visible again.
    Unhidden,
    /// The member was visible before; nothing changed.
    AlreadyVisible,
}

impl VisibilityOutcome {
    pub const ALL: &'static [VisibilityOutcome] = &[
        VisibilityOutcome::Hidden,
        VisibilityOutcome::AlreadyHidden,
        VisibilityOutcome::Unhidden,
        VisibilityOutcome::AlreadyVisible,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            VisibilityOutcome::Hidden => "hidden",
            VisibilityOutcome::AlreadyHidden => "already_hidden",
            VisibilityOutcome::Unhidden => "unhidden",
            VisibilityOutcome::AlreadyVisible => "already_visible",
        }
    }

    /// Whether the member is hidden afterwards.
    pub fn hidden(self) -> bool {
        matches!(self, VisibilityOutcome::Hidden | VisibilityOutcome::AlreadyHidden)
    }
}

/// The answer to a hide or an unhide of a member in a period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VisibilityChange {
    pub result: VisibilityOutcome,
    pub period: PeriodKey,
    pub member: MemberId,
    /// The version of the member's total afterwards (a repeat answers the current one).
    pub version: i64,
    /// False when the projection could not be updated yet (the reconciler levels it).
    pub projected: bool,
}

/// One row of the audit trail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditEntry {
    pub id: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub occurred_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Settlement {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub revision: i64,
    pub rule_version: i64,
    /// The highest ledger entry id of the period the standings account for.
    pub watermark: i64,
    /// SHA-256 (hex) of `domain::settlement::canonical_text` of the standings.
    pub digest: String,
    /// The digest of the revision this one replaced (None for the first): the revisions form a
    /// hash chain.
    pub previous_digest: Option<String>,
    /// Why this revision was written (None for the first settlement).
    pub reason: Option<String>,
    pub members: u64,
    pub actor: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub settled_at: Timestamp,
    /// The position (0-based) of the first of `standings`; `members` tells how many there are.
    pub offset: u64,
    pub standings: Vec<crate::settlement::Standing>,
    /// Every segment ranking this revision settled (dimension, value, members, digest), in
    /// (dimension, value) order; `digest` folds them in. Empty on a board without segments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<crate::settlement::SegmentSettled>,
}

/// One settlement revision of a period, without its standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SettlementSummary {
    pub revision: i64,
    pub rule_version: i64,
    /// The highest ledger entry id of the period the standings account for.
    pub watermark: i64,
    pub digest: String,
    /// The digest of the revision this one replaced (None for the first).
    pub previous_digest: Option<String>,
    /// Why this revision was written (None for the first settlement).
    pub reason: Option<String>,
    /// The applied preview that wrote this revision (None for the first settlement).
    pub preview_id: Option<String>,
    pub members: u64,
    pub actor: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub settled_at: Timestamp,
    /// Every segment ranking this revision settled; see [`Settlement::segments`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<crate::settlement::SegmentSettled>,
}

/// A settlement revision as a contestant reads it: when, why, what changed, and the digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionNote {
    pub revision: i64,
    pub settled_at: Timestamp,
    pub digest: String,
    /// What the revision changed, counted by kind (the UI words it: "1 entry revoked"); None for
    /// the first settlement.
    pub changes: Option<Vec<crate::preview::ChangeCount>>,
    pub reason: Option<String>,
    /// On a member's page: the member's standing in this revision (None: no standing).
    pub standing: Option<crate::settlement::Standing>,
}

/// A settlement's reward as the API and the console show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RewardView {
    pub id: i64,
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub revision: i64,
    pub member: MemberId,
    pub rank: u64,
    pub prize: String,
    /// The ranking that earned it: None for the board's own, `province:zj` for a segment's.
    #[serde(default)]
    pub ranking: Option<String>,
    /// Sent as the `Idempotency-Key` header with every delivery of this reward.
    pub idempotency_key: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: u32,
    /// When a pending reward is next tried (or until when a deliverer holds it).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub next_attempt_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub delivered_at: Option<Timestamp>,
    /// A grant gives the prize; a revoke (from a later settlement revision) takes back the reward
    /// named by `compensates`.
    pub kind: RewardKind,
    /// For a revoke: the idempotency key of the grant it takes back.
    pub compensates: Option<String>,
    /// Every delivery attempt, oldest first.
    pub history: Vec<RewardAttempt>,
}

/// What a reward delivery does at the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RewardKind {
    Grant,
    Revoke,
}

impl RewardKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RewardKind::Grant => "grant",
            RewardKind::Revoke => "revoke",
        }
    }
}

/// One recorded delivery attempt of a reward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RewardAttempt {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub attempted_at: Timestamp,
    /// The receiver's HTTP status, when it answered.
    pub http_status: Option<u16>,
    /// Why the attempt failed, when it did (never the webhook's URL).
    pub error: Option<String>,
}
