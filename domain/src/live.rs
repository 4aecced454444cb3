//! What a live stream of a board period carries (`GET …/periods/{period}/stream`, Server-Sent
//! Events): the server shapes these, the board page reads them. Each `ranking` event is the whole
//! visible top N, never a delta, so a client that missed events only needs the next one.

use crate::ids::BoardSlug;
use crate::lifecycle::State;
use crate::period::PeriodKey;
use crate::view::{Entry, ReadSource};
use serde::{Deserialize, Serialize};

/// The SSE event name of [`LiveRanking`].
pub const RANKING_EVENT: &str = "ranking";
/// The SSE event name of [`LiveState`].
pub const STATE_EVENT: &str = "state";

/// A `ranking` event: the top `limit` entries as the public top read answers them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LiveRanking {
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// How many entries were asked for (`?limit=`); `entries` holds at most that many.
    pub limit: u64,
    pub entries: Vec<Entry>,
    /// How many members the period's public ranking holds (the page's count follows it).
    pub total: u64,
    /// When the public freeze whose standings these are began (contest mode); None: live. A
    /// reveal that ends the freeze sends a ranking without it, so a page drops its banner.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub frozen_at: Option<jiff::Timestamp>,
    /// Where the entries were read from (`redis`, `ledger` while Redis cannot be read, `standings`).
    pub source: ReadSource,
}

/// A `state` event: the period's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LiveState {
    pub board: BoardSlug,
    pub period: PeriodKey,
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::view::period_state))]
    pub state: State,
}
