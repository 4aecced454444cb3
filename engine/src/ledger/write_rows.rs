//! The rows of the write path: a member's total as locked and as stored (read by `totals.rs`,
//! judged by `decide.rs`) and what each write answers, with what the projection mirrors (made by
//! `decide.rs`, returned by `writes.rs`). A leaf: the three write-path files all import it.

use domain::write::{Current, Outcome};
use domain::{MemberId, PeriodKey};

/// A member's total as stored, with its reach sequence.
#[derive(Debug, Clone, Copy)]
pub(super) struct StoredState {
    pub points: i64,
    pub version: i64,
    pub reach_seq: i64,
    pub set_version: i64,
}

/// A member's total as `totals::lock_total` read it.
#[derive(Debug, Clone, Copy)]
pub(super) struct LockedTotal {
    pub current: Current,
    pub reach_seq: i64,
    /// Hidden in the period (moderation): kept by every change of the total.
    pub hidden: bool,
}

impl LockedTotal {
    /// The total of a member without a row yet.
    pub(super) const NONE: Self =
        Self { current: Current { points: 0, version: 0, set_version: 0 }, reach_seq: 0, hidden: false };
}

/// What the projection needs to mirror one member's new total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projected {
    pub period: PeriodKey,
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    /// The encoded Redis score (see `domain::score`).
    pub score: i64,
    /// The member is hidden in the period: the projection keeps its version, not its score.
    pub hidden: bool,
}

/// The ledger's answer for one write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub outcome: Outcome,
    /// None for a write no period can hold (refused by `domain::write::admit`).
    pub period: Option<PeriodKey>,
    /// Why a write was rejected or kept as late.
    pub reason: Option<String>,
    /// The member's total after the write, when it changed (to be projected).
    pub total: Option<Projected>,
    /// The member's points and version after the write, when known.
    pub points: Option<i64>,
    pub version: Option<i64>,
    /// On a segmented board, when the total changed and the batch read them in its transaction:
    /// the member's segment values after the write, so that its segment rankings are projected
    /// without reading them again. None: read them.
    pub segments: Option<domain::segment::Values>,
}

impl Recorded {
    pub(super) fn bare(outcome: Outcome, period: PeriodKey, reason: Option<String>) -> Self {
        Self {
            outcome,
            period: Some(period),
            reason,
            total: None,
            points: None,
            version: None,
            segments: None,
        }
    }
}
