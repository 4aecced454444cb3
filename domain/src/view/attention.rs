//! The console's front page: what needs an admin's attention and the boards' activity.

use super::BoardSummary;
use crate::ids::BoardSlug;
use crate::lifecycle::State;
use crate::period::PeriodKey;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// What the console's front page asks an admin to look at first ("needs attention"). Each list
/// is empty when all is well; each item names the period (or key) whose page fixes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Attention {
    /// Periods past their end plus the board's grace and not settled yet, longest overdue first.
    pub due: Vec<DuePeriod>,
    /// Periods with late writes waiting for a decision, and how many.
    pub late: Vec<PeriodCount>,
    /// Periods whose rewards failed (for good) or are being retried after a failed attempt.
    pub rewards: Vec<RewardTrouble>,
    /// Open or frozen periods whose Redis ranking is not level with the ledger.
    pub lagging: Vec<ProjectionLag>,
    /// Live ingest keys with little of their burst left right now.
    pub keys: Vec<KeyNearLimit>,
    /// Why the projection's part (lag, keys) could not be checked: Redis could not be read.
    pub redis_unreadable: Option<String>,
    /// Redis has reached its `maxmemory`, in figures: rankings fall behind the ledger until
    /// there is room (writes are still recorded).
    #[serde(default)]
    pub redis_full: Option<String>,
}

impl Attention {
    /// Whether nothing needs attention.
    pub fn is_clear(&self) -> bool {
        self.due.is_empty()
            && self.late.is_empty()
            && self.rewards.is_empty()
            && self.lagging.is_empty()
            && self.keys.is_empty()
            && self.redis_unreadable.is_none()
            && self.redis_full.is_none()
    }
}

/// A period the scheduler should have frozen, or an admin should settle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DuePeriod {
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// `open` (the scheduler has not frozen it yet) or `frozen` (waiting to be settled).
    pub state: State,
    /// The period's end plus the board's freeze grace.
    pub due_at: Timestamp,
}

/// A count of something in one period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodCount {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub count: u64,
}

/// A period's rewards that did not reach the webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewardTrouble {
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// Rewards whose last attempt failed: no more tries.
    pub failed: u64,
    /// Pending rewards with at least one failed attempt: tried again after a backoff.
    pub retrying: u64,
}

/// A live period's projection compared with the ledger: the sum of the versions of its totals
/// in each store (equal when every member's projected version is the ledger's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectionLag {
    pub board: BoardSlug,
    pub period: PeriodKey,
    pub ledger: i64,
    pub projected: i64,
}

/// An ingest key whose shared allowance is nearly used up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyNearLimit {
    pub id: i64,
    pub prefix: String,
    pub rate_per_second: u32,
    pub burst: u32,
    /// Requests the key could still make at once, across every instance.
    pub burst_left: u32,
}

/// A board on the console's front page: its entries per hour over the last day and its current
/// period's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardActivity {
    pub board: BoardSummary,
    /// The current period's `lifecycle::State` word.
    pub state: State,
    /// The start of the first hour counted (a whole UTC hour).
    pub since: Timestamp,
    /// Entries recorded in each hour from `since`, oldest first; the last is the current hour,
    /// still running.
    pub per_hour: Vec<u64>,
}
