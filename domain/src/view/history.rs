//! A member's points through a period and their last periods, a period's distribution of
//! points and the board's past results.

use super::Entry;
use crate::kinds::TiePolicy;
use crate::lifecycle::State;
use crate::period::PeriodKey;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// One step of a member's points through a period (the member page's chart): the total after
/// an entry, replayed from the entries that counted at that moment, as the public sees them.
/// Steps are in the order the entries happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointStep {
    /// The entry's id in the ledger.
    pub entry: i64,
    /// `point`, `total`, `submission`, `correction` or `revocation`.
    pub kind: String,
    /// When it happened (a correction or revocation: when it was made).
    pub at: Timestamp,
    /// The member's points after it.
    pub points: i64,
    /// Revoked later (a revocation the public sees).
    pub revoked: bool,
}

/// How many points a member needs to reach a rank: to pass the member just above, or to reach
/// the lowest prized rank. Under `shared`, `points` equals the gap (equalling shares the rank);
/// under `first_reached`, one more (the member ahead reached it first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankTarget {
    pub rank: u64,
    pub points: i64,
    /// The prize that rank wins, when there is one.
    pub prize: Option<String>,
}

/// A member's rank and points in one period (None: no points there, or hidden).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodStanding {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    pub state: State,
    pub rank: Option<u64>,
    pub points: Option<i64>,
    /// Ranked members in the period.
    pub members: u64,
}

/// The member page's history: their points through the period, what the next ranks take, and
/// their standing in the board's last periods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberHistory {
    pub period: PeriodKey,
    /// The chart's time axis: the whole period (widened to the steps outside it, e.g. a
    /// correction after the end). Not the time of the read: the same entries make the same
    /// chart, so a public freeze's page stays the same until the reveal.
    pub from: Timestamp,
    pub until: Timestamp,
    pub tie_policy: TiePolicy,
    /// In the order they happened.
    pub steps: Vec<PointStep>,
    /// More entries than the chart reads: the steps are the first recorded ones.
    pub truncated: bool,
    /// The public standing the targets are computed from.
    pub standing: Option<Entry>,
    /// The next better rank (None: first, or no points).
    pub next_rank: Option<RankTarget>,
    /// The lowest prized rank, when the member is outside the prizes.
    pub prize: Option<RankTarget>,
    /// The board's last periods, newest first.
    pub periods: Vec<PeriodStanding>,
}

/// A range of points and how many members have a total in it (`from` ≤ points < `to`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsBin {
    pub from: i64,
    pub to: i64,
    pub members: u64,
}

/// The board page's distribution of points in a period, from the public ranking, with the prizes
/// beside the ranks they go to and, once settled, the prized standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    pub state: State,
    pub members: u64,
    /// Lowest points first; empty without members.
    pub bins: Vec<PointsBin>,
    /// "Me", where the public ranking has them.
    pub me: Option<Entry>,
    pub prizes: Vec<crate::board::Prize>,
    /// Settled or archived: the standings that won a prize (from the latest settlement).
    pub winners: Vec<PrizeWinner>,
}

/// A settled standing that won a prize, with the member's display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizeWinner {
    pub standing: Entry,
    pub prize: String,
}

/// One of a board's periods with its leaders: the winners once settled, the leaders (public
/// view) while open or frozen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodResult {
    pub period: PeriodKey,
    /// A `lifecycle::State` word.
    pub state: State,
    pub members: u64,
    /// Rank 1 (several when tied under `shared`); at most a few.
    pub leaders: Vec<Entry>,
}
