//! Segments as readers see them (issue 43): a dimension's values with their member counts and
//! leaders (the list route, the board page's switcher), and a member's rank in each segment it
//! holds (the member page). The rules are `crate::segment`.

use super::Entry;
use serde::{Deserialize, Serialize};

/// A dimension's values in a period (`GET …/periods/{period}/segments/{dimension}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SegmentValues {
    pub dimension: String,
    /// The first 100 values, in byte order.
    pub values: Vec<SegmentValue>,
    /// More values exist past these.
    pub more: bool,
}

/// One value of a dimension: how many members it ranks and its leader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SegmentValue {
    pub value: String,
    /// Ranked members (hidden members left out).
    pub members: u64,
    /// The value's first entry (rank 1); null when every member is hidden.
    pub leader: Option<Entry>,
}

/// A member's standing in one segment it holds in a period: "#3 of 41 in province zj".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberSegment {
    pub dimension: String,
    pub value: String,
    /// The member's rank in the segment's ranking (its tie policy and order are the board's).
    pub rank: u64,
    /// Another member of the segment has the same rank.
    pub tied: bool,
    /// The member's points: the same as on the board.
    pub points: i64,
    /// The segment's ranked members.
    pub members: u64,
}

impl MemberSegment {
    /// The segment as a read names it (`province:zj`).
    pub fn name(&self) -> String {
        format!("{}:{}", self.dimension, self.value)
    }
}
