//! Writes and how each operator decides what a write does to a member's total. Pure: the ledger
//! supplies the current total under a lock and stores what this module decides.
//!
//! - A [`Write`] carries one [`Change`]: `Point`, `Total`, `Submission` or `Correction`; its
//!   answer is an [`Outcome`].
//! - [`decide`]: what each operator does to a total; [`replay`]: a total (and its reach sequence)
//!   recomputed from the entries that still count, after a revocation.
//! - [`admit`] and [`value_refusal`]: the edge refuses what the ledger cannot hold. A write whose
//!   period is outside 1970–9998 in the board's zone (`PeriodKey::containing` is fallible: a key
//!   that could not be parsed back is never made), or whose value no total within the bounds
//!   could take, is `rejected` before anything is stored, not even as a late write. The other half
//!   of the rule is the ledger's: a row that slipped in anyway never stops a background job
//!   (`engine/src/ledger/rows.rs`).

use crate::board::Board;
use crate::ids::{EventId, MemberId};
use crate::kinds::{Operator, Sort};
use crate::period::PeriodKey;
use serde::{Deserialize, Serialize};

/// One write, parsed at the edge. The operator is implied by the change, and must be the board's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    pub member: MemberId,
    pub change: Change,
    /// When it happened at the source; decides the period. Defaults to the time of receipt.
    pub occurred_at: jiff::Timestamp,
    /// Caller-supplied JSON kept with the entry, for "why this score".
    pub metadata: Option<String>,
    /// The member's segment values this write names (`crate::segment`); the first recorded write
    /// naming a dimension fixes the member's value for the period.
    pub segments: crate::segment::Values,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `incr`: add `delta` once per event id.
    Point { event_id: EventId, delta: i64 },
    /// `set`: the member's total is `total` as of `version`; older versions change nothing.
    Total { version: i64, total: i64 },
    /// `best`: a submission scoring `score`; only a better score (higher, or lower on an ascending
    /// board) changes the total.
    Submission { submission_id: EventId, score: i64 },
    /// An admin's correction: add `delta` on a board of any operator (audited, with a reason).
    /// A `correction_id` makes a retried correction count once (it shares the board's id space
    /// with event and submission ids).
    Correction { correction_id: Option<EventId>, delta: i64 },
}

impl Change {
    /// The operator whose endpoint carries this change (`None`: a correction, valid on every board).
    pub fn operator(&self) -> Option<Operator> {
        match self {
            Change::Point { .. } => Some(Operator::Incr),
            Change::Total { .. } => Some(Operator::Set),
            Change::Submission { .. } => Some(Operator::Best),
            Change::Correction { .. } => None,
        }
    }

    /// The id that makes the write exactly-once, if the operator has one.
    pub fn external_id(&self) -> Option<&EventId> {
        match self {
            Change::Point { event_id, .. } => Some(event_id),
            Change::Submission { submission_id, .. } => Some(submission_id),
            Change::Correction { correction_id, .. } => correction_id.as_ref(),
            Change::Total { .. } => None,
        }
    }

    /// The ledger's word for this kind of entry.
    pub fn kind(&self) -> &'static str {
        match self {
            Change::Point { .. } => "point",
            Change::Total { .. } => "total",
            Change::Submission { .. } => "submission",
            Change::Correction { .. } => "correction",
        }
    }
}

/// The period a write belongs to, or why no period of `board` can hold it: an `occurred_at`
/// outside the supported years, or a value that no total within the board's bounds could take
/// (a delta larger than the whole range, a total or score outside it). Such a write is refused
/// before anything is stored, not even kept as late for review: a row the jobs cannot read, or a
/// late write no admin could ever accept, must never reach the ledger.
pub fn admit(board: &Board, write: &Write) -> Result<PeriodKey, String> {
    let period = board.period_of(write.occurred_at).map_err(|_| {
        format!(
            "occurred_at {} is outside the years this board's periods can hold (1970-9998)",
            write.occurred_at
        )
    })?;
    if let Some(refusal) = value_refusal(board, write.change.value()) {
        return Err(refusal);
    }
    crate::segment::check_values(&board.segments, &write.segments)?;
    Ok(period)
}

/// The number a change carries, as [`value_refusal`] judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeValue {
    /// Added to the total (point events, corrections).
    Delta(i64),
    /// Becomes the total (`set`).
    Total(i64),
    /// Becomes the total when better (`best`).
    Score(i64),
}

impl Change {
    pub fn value(&self) -> ChangeValue {
        match *self {
            Change::Point { delta, .. } | Change::Correction { delta, .. } => ChangeValue::Delta(delta),
            Change::Total { total, .. } => ChangeValue::Total(total),
            Change::Submission { score, .. } => ChangeValue::Score(score),
        }
    }
}

/// Why no total within `board`'s bounds could ever take `value`: a delta larger than the whole
/// range, or a total or score outside it. (A delta within the range may still be refused later,
/// by the total it meets.)
pub fn value_refusal(board: &Board, value: ChangeValue) -> Option<String> {
    let (min, max) = board.codec.bounds();
    let outside = |what: &str, v: i64| {
        (!(min..=max).contains(&v))
            .then(|| format!("{what} {v} is outside the board's bounds [{min}, {max}]"))
    };
    match value {
        ChangeValue::Delta(delta) => (i128::from(delta).abs() > i128::from(max) - i128::from(min)).then(|| {
            format!("delta {delta} is larger than the whole range of the board's bounds [{min}, {max}]: no total could take it")
        }),
        ChangeValue::Total(total) => outside("total", total),
        ChangeValue::Score(score) => outside("score", score),
    }
}

/// What happened to a write. The words are the API's `result` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// incr / set: the total changed (or was confirmed) and the version rose.
    Applied,
    /// best: the submission improved the member's best (raised it, or lowered it on an ascending
    /// board).
    Improved,
    /// best: recorded, but not better than the member's best; the total is unchanged. (The word
    /// stays `not_higher` on ascending boards too, where it means "not lower".)
    NotHigher,
    /// set: the version was not above the last applied one; nothing changed.
    Stale,
    /// The event or submission id was seen before; nothing changed.
    Duplicate,
    /// The period is not open: kept for review, not applied.
    Late,
    /// Refused with a reason; nothing was written.
    Rejected,
}

impl Outcome {
    pub const ALL: &'static [Outcome] = &[
        Outcome::Applied,
        Outcome::Improved,
        Outcome::NotHigher,
        Outcome::Stale,
        Outcome::Duplicate,
        Outcome::Late,
        Outcome::Rejected,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::Improved => "improved",
            Outcome::NotHigher => "not_higher",
            Outcome::Stale => "stale",
            Outcome::Duplicate => "duplicate",
            Outcome::Late => "late",
            Outcome::Rejected => "rejected",
        }
    }
}

/// A member's total as the ledger holds it before a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Current {
    pub points: i64,
    /// 0 when the member has no applied write in the period yet.
    pub version: i64,
    /// The last applied `set` version (0 if none).
    pub set_version: i64,
}

/// What a write does to the total, before bounds are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Store the entry and move the total to `points` (version + 1).
    Change { points: i64 },
    /// Store the entry; the total stays (best: not higher).
    RecordOnly,
    /// Store nothing (set: stale version).
    Ignore(Outcome),
    /// Store nothing; refuse with a reason.
    Refuse(&'static str),
}

/// Decides a write against the current total on a board ranked in `sort` order: the rule of
/// [`decide_effect`] for the entry the write would record.
pub fn decide(change: &Change, current: Current, sort: Sort) -> Decision {
    decide_effect(change.effect(), current, sort)
}

/// What one entry does to a total on a board ranked in `sort` order: the one rule of every
/// operator, shared by live writes ([`decide`]), [`replay`] after a revocation and the board as
/// of an instant (`crate::asof`). `best` keeps the better of the two (`ZADD GT` on a descending
/// board, `ZADD LT` on an ascending one); an opening total replaces whatever came before it.
pub fn decide_effect(effect: Effect, current: Current, sort: Sort) -> Decision {
    match effect {
        Effect::Add(delta) => match current.points.checked_add(delta) {
            Some(points) => Decision::Change { points },
            None => Decision::Refuse("the total would overflow"),
        },
        Effect::Total { version, .. } if version <= current.set_version => Decision::Ignore(Outcome::Stale),
        Effect::Total { total, .. } => Decision::Change { points: total },
        Effect::Submission(score) if current.version > 0 && !sort.better(score, current.points) => {
            Decision::RecordOnly
        }
        Effect::Submission(score) => Decision::Change { points: score },
        Effect::Opening(total) => Decision::Change { points: total },
    }
}

impl Change {
    /// What the entry this change records does to a total.
    pub fn effect(&self) -> Effect {
        match *self {
            Change::Point { delta, .. } | Change::Correction { delta, .. } => Effect::Add(delta),
            Change::Total { version, total } => Effect::Total { version, total },
            Change::Submission { score, .. } => Effect::Submission(score),
        }
    }
}

/// An entry that still counts (not revoked), as [`replay`] reads it, in ledger order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    pub effect: Effect,
    /// The reach sequence the entry was given when recorded (under `first_reached`).
    pub reach_seq: Option<i64>,
}

/// What an entry does to a total when replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// A point event or an admin correction: add.
    Add(i64),
    /// An absolute total with its client version.
    Total { version: i64, total: i64 },
    /// A best submission: counts when better (the first always counts).
    Submission(i64),
    /// An opening total brought by an import of totals (`engine::totals_import`): the total is
    /// this, whatever came before it; later entries apply on top of it.
    Opening(i64),
}

/// A total recomputed from the entries that count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Replayed {
    pub points: i64,
    pub set_version: i64,
    /// The reach sequence of the last entry that moved the points: after a revoke the member
    /// ranks as if the revoked entry had never been recorded. `None` when no entry counts.
    pub reach_seq: Option<i64>,
}

/// Recomputes a member's total from its entries, oldest first, with the operators' rules on a
/// board ranked in `sort` order. `None` when the total would overflow.
pub fn replay(entries: &[Counted], sort: Sort) -> Option<Replayed> {
    let mut out = Replayed::default();
    // `version` only tells [`decide_effect`] whether an entry came before (the first always counts).
    let mut current = Current::default();
    for e in entries {
        let first = current.version == 0;
        match decide_effect(e.effect, current, sort) {
            Decision::Change { points } => {
                let moved = first || points != out.points;
                out.points = points;
                if let Effect::Total { version, .. } = e.effect {
                    out.set_version = version;
                }
                if moved {
                    out.reach_seq = e.reach_seq.or(out.reach_seq);
                }
            }
            Decision::Refuse(_) => return None,
            Decision::RecordOnly | Decision::Ignore(_) if first => out.reach_seq = e.reach_seq,
            Decision::RecordOnly | Decision::Ignore(_) => {}
        }
        current = Current { points: out.points, version: 1, set_version: out.set_version };
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> EventId {
        EventId::parse(s).unwrap()
    }

    fn decide_desc(change: &Change, current: Current) -> Decision {
        decide(change, current, Sort::Desc)
    }

    fn replay_desc(entries: &[Counted]) -> Option<Replayed> {
        replay(entries, Sort::Desc)
    }

    #[test]
    fn best_on_an_ascending_board_keeps_the_lowest() {
        let sub = |score| Change::Submission { submission_id: id("s"), score };
        assert_eq!(decide(&sub(900), Current::default(), Sort::Asc), Decision::Change { points: 900 });
        assert_eq!(decide(&sub(901), at(900, 1, 0), Sort::Asc), Decision::RecordOnly);
        assert_eq!(decide(&sub(900), at(900, 1, 0), Sort::Asc), Decision::RecordOnly);
        assert_eq!(decide(&sub(899), at(900, 1, 0), Sort::Asc), Decision::Change { points: 899 });
        // incr and set do not depend on the order.
        let c = Change::Point { event_id: id("e"), delta: 5 };
        assert_eq!(decide(&c, at(3, 1, 0), Sort::Asc), Decision::Change { points: 8 });
        let best = [
            counted(Effect::Submission(80), 0),
            counted(Effect::Submission(70), 1),
            counted(Effect::Submission(85), 2),
        ];
        assert_eq!(
            replay(&best, Sort::Asc).unwrap(),
            Replayed { points: 70, set_version: 0, reach_seq: Some(1) }
        );
        assert_eq!(replay(&[best[0], best[2]], Sort::Asc).unwrap().points, 80);
    }

    fn at(points: i64, version: i64, set_version: i64) -> Current {
        Current { points, version, set_version }
    }

    #[test]
    fn incr_adds_the_delta_and_may_go_negative() {
        let c = Change::Point { event_id: id("e"), delta: -5 };
        assert_eq!(decide_desc(&c, at(3, 1, 0)), Decision::Change { points: -2 });
        let c = Change::Point { event_id: id("e"), delta: 1 };
        assert_eq!(decide_desc(&c, at(i64::MAX, 1, 0)), Decision::Refuse("the total would overflow"));
    }

    #[test]
    fn set_ignores_versions_not_above_the_last_applied() {
        let set = |version, total| Change::Total { version, total };
        assert_eq!(decide_desc(&set(3, 10), at(50, 2, 3)), Decision::Ignore(Outcome::Stale));
        assert_eq!(decide_desc(&set(2, 10), at(50, 2, 3)), Decision::Ignore(Outcome::Stale));
        assert_eq!(decide_desc(&set(4, 10), at(50, 2, 3)), Decision::Change { points: 10 });
    }

    #[test]
    fn best_only_counts_a_higher_score_but_the_first_always_counts() {
        let sub = |score| Change::Submission { submission_id: id("s"), score };
        assert_eq!(decide_desc(&sub(-3), Current::default()), Decision::Change { points: -3 });
        assert_eq!(decide_desc(&sub(70), at(80, 1, 0)), Decision::RecordOnly);
        assert_eq!(decide_desc(&sub(80), at(80, 1, 0)), Decision::RecordOnly);
        assert_eq!(decide_desc(&sub(81), at(80, 1, 0)), Decision::Change { points: 81 });
    }

    fn counted(effect: Effect, seq: i64) -> Counted {
        Counted { effect, reach_seq: Some(seq) }
    }

    #[test]
    fn replay_takes_the_sequence_of_the_last_entry_that_moved_the_points() {
        // +50 (seq 0), +10 (seq 2), -10 (seq 3): 50, re-reached at seq 3.
        let all = [counted(Effect::Add(50), 0), counted(Effect::Add(10), 2), counted(Effect::Add(-10), 3)];
        assert_eq!(replay_desc(&all), Some(Replayed { points: 50, set_version: 0, reach_seq: Some(3) }));
        // Without the +10: 40 since seq 3. Without the +10 and the -10: 50 since seq 0.
        assert_eq!(replay_desc(&[all[0], all[2]]).unwrap().reach_seq, Some(3));
        assert_eq!(
            replay_desc(&all[..1]).unwrap(),
            Replayed { points: 50, set_version: 0, reach_seq: Some(0) }
        );
        assert_eq!(replay_desc(&[]), Some(Replayed::default()));
        // A zero delta does not move the points, so it does not move the sequence.
        let zero = [counted(Effect::Add(5), 1), counted(Effect::Add(0), 4)];
        assert_eq!(replay_desc(&zero).unwrap().reach_seq, Some(1));
    }

    #[test]
    fn replay_follows_each_operator() {
        let best = [
            counted(Effect::Submission(80), 0),
            counted(Effect::Submission(70), 1),
            counted(Effect::Submission(85), 2),
        ];
        assert_eq!(replay_desc(&best).unwrap().points, 85);
        assert_eq!(
            replay_desc(&best[..2]).unwrap(),
            Replayed { points: 80, set_version: 0, reach_seq: Some(0) }
        );
        let set = [
            counted(Effect::Total { version: 2, total: 30 }, 0),
            counted(Effect::Add(5), 1),
            counted(Effect::Total { version: 1, total: 99 }, 2),
        ];
        assert_eq!(replay_desc(&set).unwrap(), Replayed { points: 35, set_version: 2, reach_seq: Some(1) });
        assert_eq!(replay_desc(&[counted(Effect::Add(i64::MAX), 0), counted(Effect::Add(1), 1)]), None);
    }

    #[test]
    fn an_opening_total_replaces_what_came_before_and_later_entries_apply_on_top() {
        let all = [
            counted(Effect::Add(30), 0),
            counted(Effect::Opening(100), 1),
            counted(Effect::Add(5), 2),
            counted(Effect::Submission(90), 3),
        ];
        assert_eq!(replay_desc(&all).unwrap().points, 105);
        // Without the +30 before it, the opening total still holds.
        assert_eq!(replay_desc(&all[1..]).unwrap().points, 105);
        let set = [counted(Effect::Total { version: 4, total: 7 }, 0), counted(Effect::Opening(50), 1)];
        // The set version stays, so an older client version stays stale.
        assert_eq!(replay_desc(&set).unwrap(), Replayed { points: 50, set_version: 4, reach_seq: Some(1) });
    }
}
