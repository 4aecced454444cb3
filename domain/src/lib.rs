//! Laurel's pure rules. No clock, no I/O, no store: "now" and time zones are arguments, so every
//! rule is deterministic under test and the same code can run in the browser.
//!
//! - [`apikey`]: ingest keys as admins list them, and their per-key rate limits.
//! - [`ids`]: identifiers parsed once at the edge (`BoardSlug`, `MemberId`, `EventId`).
//! - [`kinds`]: the words fixed when a board is created (`Cadence`, `Operator`, `TiePolicy`,
//!   `Sort`, `Unit`); a leaf module the others import, re-exported from [`board`] as before.
//! - [`board`]: a board's definition, its draft, its settings and its prize table.
//! - [`hot`]: hot boards' sliding windows — definitions, hit values, snapshot rank changes.
//! - [`period`]: which period an instant falls in (`PeriodKey`) and where a period starts and ends.
//! - [`score`]: the score codec that turns points (and a reach sequence) into an exact Redis score.
//! - [`ranking`]: rank numbers under each tie policy.
//! - [`segment`]: a board's segment dimensions and a member's values (`province:zj`).
//! - [`format`]: points as a board shows them (durations when its unit is `ms`).
//! - [`locale`]: the languages pages speak, and how each writes numbers; [`local`]: instants.
//! - [`lifecycle`]: the period states and which transitions are allowed.
//! - [`live`]: the events of a period's live stream (`ranking`, `state`).
//! - [`preview`]: what a dry run of admin changes would do to the standings (moves, prizes).
//! - [`receipt`]: Merkle receipts of settlement revisions and the offline verifiers.
//! - [`settlement`]: standings, prizes and the canonical text behind a settlement's digest.
//! - [`write`]: how each operator changes a total; `replay` recomputes one after a revoke.
//! - [`asof`]: the board as of an instant, replayed from the entries recorded by then.
//! - [`view`]: the read models shared by the REST API, the server functions and the UI.
//!
//! Its tests are unit and property tests beside each rule: periods around year turns and DST,
//! the codec's order and round trip, competition ranks against a naive reference, previews
//! against the full standings.

pub mod apikey;
pub mod asof;
pub mod board;
pub mod error;
pub mod format;
pub mod hot;
pub mod ids;
pub mod kinds;
pub mod lifecycle;
pub mod live;
pub mod local;
pub mod locale;
pub mod period;
pub mod preview;
pub mod ranking;
pub mod receipt;
pub mod score;
pub mod season;
pub mod segment;
pub mod settlement;
pub mod view;
pub mod write;

pub use board::Board;
pub use error::ErrorCode;
pub use ids::{BoardSlug, EventId, IdError, IdProblem, MemberId};
pub use kinds::{Cadence, Operator, Sort, TiePolicy, Unit};
pub use lifecycle::{State, Transition};
pub use period::{PeriodError, PeriodKey, PeriodSpan};
pub use score::{CodecError, ScoreCodec};
