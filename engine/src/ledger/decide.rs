//! Deciding writes in memory, without SQL: what the operator (`domain::write::decide`), the
//! board's bounds and the score codec make of one change to a member's total (`judge`, then
//! `conclude` with its reach sequence), and a whole batch decided in order on running totals
//! (`Batch::decide`): repeats, late writes kept for review, and the entries and totals the batch
//! will write. Kept apart from the statements so that a batch and a single change
//! (`writes::apply`) decide with the very same steps, and so that a batch can be decided twice on
//! different totals (`Locking::Last`) at no cost but the computation.

use super::entries::{EntryMeta, NewEntry, Seen};
use super::locks::PeriodRow;
use super::segments::NewMembership;
use super::write_rows::{LockedTotal, Projected, Recorded, StoredState};
use domain::lifecycle::State;
use domain::segment::Values;
use domain::write::{Change, Current, Decision, Outcome, Write, decide};
use domain::{Board, MemberId, PeriodKey, TiePolicy};
use std::collections::{HashMap, HashSet};

/// What a batch decided in memory, to be written.
pub(super) struct Decided<'a> {
    pub answers: Vec<Recorded>,
    /// The entries to insert, in batch order, and the writes they record (index, reach sequence).
    pub entries: Vec<NewEntry<'a>>,
    pub recorded: Vec<(usize, Option<i64>)>,
    /// The late entries to insert, and the writes they keep.
    pub late: Vec<NewEntry<'a>>,
    pub kept: Vec<usize>,
    pub stored: HashMap<(&'a str, &'a str), StoredState>,
    /// Rejected writes (index, period key), for the audit trail.
    pub rejected: Vec<(usize, &'a str)>,
    /// Reach sequences taken per period.
    pub taken: HashMap<&'a str, i64>,
    /// Segment values the batch fixes (the first recorded write naming a dimension).
    pub memberships: Vec<NewMembership<'a>>,
}

impl Decided<'_> {
    /// Both record the same writes as the same entries (and so differ only in the totals).
    pub(super) fn records_as(&self, other: &Self) -> bool {
        self.recorded == other.recorded && self.kept == other.kept
    }
}

/// A batch as its transaction read it: what each decision of it starts from besides the totals
/// and the segment values, which differ between the two decisions of `Locking::Last`.
pub(super) struct Batch<'a> {
    pub board: &'a Board,
    pub writes: &'a [Write],
    /// Each write's period, and its key as stored.
    pub periods: &'a [PeriodKey],
    pub keys: &'a [String],
    /// The ids applied or kept as late before the batch.
    pub seen: &'a Seen,
    pub states: &'a HashMap<String, PeriodRow>,
    pub now: jiff::Timestamp,
}

impl<'a> Batch<'a> {
    /// Decides each write in order, in memory, with the steps of [`apply`](super::writes::apply)
    /// (`judge`, `conclude`), each seeing the totals, the ids and the reach sequences as the
    /// writes before it in the batch left them — so the answers are those of one write after the
    /// other.
    pub(super) fn decide(
        &self,
        mut totals: HashMap<(&'a str, &'a str), LockedTotal>,
        mut held: Held<'a>,
    ) -> Decided<'a> {
        let Batch { board, writes, periods, keys, seen, states, now } = *self;
        let mut d = Decided {
            answers: Vec::with_capacity(writes.len()),
            entries: Vec::new(),
            recorded: Vec::new(),
            late: Vec::new(),
            kept: Vec::new(),
            stored: HashMap::new(),
            rejected: Vec::new(),
            taken: HashMap::new(),
            memberships: Vec::new(),
        };
        // Ids this batch applies or keeps, for its own repeats.
        let (mut applied_now, mut kept_now): (HashSet<&str>, HashSet<&str>) = Default::default();
        for (i, ((write, &period), key)) in writes.iter().zip(periods).zip(keys).enumerate() {
            let external_id = write.change.external_id().map(|id| id.as_str());
            if let Some(id) = external_id {
                if seen.applied.contains(id) || applied_now.contains(id) {
                    d.answers.push(Recorded::bare(Outcome::Duplicate, period, None));
                    continue;
                }
                if seen.kept.contains(id) || kept_now.contains(id) {
                    // The same answer as the first time: a retry must not learn anything new.
                    d.answers.push(Recorded::bare(Outcome::Late, period, Some(late_reason(None))));
                    continue;
                }
            }
            let row = &states[key.as_str()];
            let entry = NewEntry {
                period: key,
                member: &write.member,
                change: &write.change,
                meta: EntryMeta {
                    occurred_at: write.occurred_at,
                    metadata: write.metadata.as_deref(),
                    ..Default::default()
                },
                reach_seq: None,
            };
            if row.state != State::Open || now >= board.closes_at(period) {
                let why = (row.state != State::Open).then_some(row.state.as_str());
                d.answers.push(Recorded::bare(Outcome::Late, period, Some(late_reason(why))));
                d.late.push(entry);
                d.kept.push(i);
                kept_now.extend(external_id);
                continue;
            }
            let member = write.member.as_str();
            let values = held.values.entry((key.as_str(), member)).or_default();
            if let Some(reason) = segment_conflict(values, &write.segments) {
                d.answers.push(Recorded::bare(Outcome::Rejected, period, Some(reason)));
                d.rejected.push((i, key.as_str()));
                continue;
            }
            let locked = totals.entry((key.as_str(), member)).or_insert(LockedTotal::NONE);
            let recorded = match judge(board, period, &write.change, locked.current) {
                Verdict::Answer(recorded) => recorded,
                Verdict::Record(points) => {
                    let entry_seq = match board.tie_policy() {
                        TiePolicy::FirstReached => {
                            let taken = d.taken.entry(key.as_str()).or_insert(0);
                            *taken += 1;
                            Some(row.next_seq + *taken - 1)
                        }
                        TiePolicy::Shared => None,
                    };
                    match conclude(board, period, &write.member, &write.change, locked, points, entry_seq) {
                        Err(recorded) => *recorded,
                        Ok((recorded, state)) => {
                            d.entries.push(NewEntry { reach_seq: entry_seq, ..entry });
                            d.recorded.push((i, entry_seq));
                            applied_now.extend(external_id);
                            if let Some(state) = state {
                                locked.current = Current {
                                    points: state.points,
                                    version: state.version,
                                    set_version: state.set_version,
                                };
                                locked.reach_seq = state.reach_seq;
                                d.stored.insert((key.as_str(), member), state);
                            }
                            recorded
                        }
                    }
                }
            };
            if recorded.outcome == Outcome::Rejected {
                d.rejected.push((i, key.as_str()));
            } else if d.recorded.last().is_some_and(|(at, _)| *at == i) {
                let profile = held.profiles.get(member);
                fix_values(board, write, key, values, profile, &mut d.memberships);
            }
            d.answers.push(recorded);
        }
        if !board.segments.is_empty() {
            carry_values(&mut d.answers, writes, keys, &held.values);
        }
        d
    }
}

/// A recorded write fixes the values it names that its member did not hold yet, and its
/// profile's in the board's other dimensions.
fn fix_values<'a>(
    board: &Board,
    write: &'a Write,
    key: &'a str,
    values: &mut Values,
    profile: Option<&'a Values>,
    memberships: &mut Vec<NewMembership<'a>>,
) {
    let defaults = profile
        .into_iter()
        .flatten()
        .filter(|(dim, _)| board.segments.contains(*dim) && !write.segments.contains_key(*dim));
    for (dim, value) in write.segments.iter().chain(defaults) {
        if !values.contains_key(dim) {
            values.insert(dim.clone(), value.clone());
            memberships.push((key, write.member.as_str(), dim.as_str(), value.as_str()));
        }
    }
}

/// Gives every answer that changed a total the member's values after the whole batch (a batch
/// only adds values): what the total is projected into.
fn carry_values(
    answers: &mut [Recorded],
    writes: &[Write],
    keys: &[String],
    values: &HashMap<(&str, &str), Values>,
) {
    for ((answer, write), key) in answers.iter_mut().zip(writes).zip(keys) {
        if answer.total.is_some() {
            let held = values.get(&(key.as_str(), write.member.as_str())).cloned().unwrap_or_default();
            answer.segments = Some(held);
        }
    }
}

/// The segment values each (period key, member) of a batch held before it, and the values its
/// members' profiles name (by member; migration 0028): a recorded write fixes a profile's value in
/// each declared dimension the member holds none in and the write names none.
#[derive(Clone)]
pub(super) struct Held<'a> {
    pub values: HashMap<(&'a str, &'a str), Values>,
    pub profiles: &'a HashMap<String, Values>,
}

/// Why a write naming `named` cannot be recorded for a member holding `held`: a dimension whose
/// value is already fixed to another (`segment_conflict`, with the value held).
fn segment_conflict(held: &Values, named: &Values) -> Option<String> {
    named.iter().find_map(|(dim, value)| {
        let was = held.get(dim).filter(|was| *was != value)?;
        Some(format!("segment_conflict: the member's {dim} in this period is {was}; the write names {value}"))
    })
}

/// What the operator and the board's bounds make of a change to `current`.
pub(super) enum Verdict {
    /// Nothing is recorded: the answer (`stale`, or `rejected` with a reason).
    Answer(Recorded),
    /// The entry is recorded, and the total moves to these points (`None`: best, not higher).
    Record(Option<i64>),
}

pub(super) fn judge(board: &Board, period: PeriodKey, change: &Change, current: Current) -> Verdict {
    let points = match decide(change, current, board.sort()) {
        Decision::Ignore(outcome) => {
            let mut r = Recorded::bare(outcome, period, None);
            (r.points, r.version) = (Some(current.points), Some(current.version));
            return Verdict::Answer(r);
        }
        Decision::Refuse(reason) => {
            return Verdict::Answer(Recorded::bare(Outcome::Rejected, period, Some(reason.into())));
        }
        Decision::RecordOnly => return Verdict::Record(None),
        Decision::Change { points } => points,
    };
    match board.codec.check_points(points) {
        Ok(()) => Verdict::Record(Some(points)),
        Err(e) => Verdict::Answer(Recorded::bare(Outcome::Rejected, period, Some(e.to_string()))),
    }
}

/// The answer to a change [`judge`] let through, recorded with `entry_seq`, and the member's new
/// stored total (`None` when the total stays). `Err`: rejected after all, nothing is written
/// (only a used-up sequence budget gets there: bounds were checked by `judge`; boxed, as rare).
pub(super) fn conclude(
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    change: &Change,
    locked: &LockedTotal,
    points: Option<i64>,
    entry_seq: Option<i64>,
) -> Result<(Recorded, Option<StoredState>), Box<Recorded>> {
    let LockedTotal { current, reach_seq, hidden } = *locked;
    let Some(points) = points else {
        // best: the submission is recorded (so a repeat is recognised) but the total stays.
        let mut r = Recorded::bare(Outcome::NotHigher, period, None);
        (r.points, r.version) = (Some(current.points), Some(current.version));
        return Ok((r, None));
    };
    let moved = points != current.points || current.version == 0;
    let seq = match entry_seq {
        Some(seq) if moved => seq,
        _ => reach_seq,
    };
    let score = board
        .codec
        .encode(points, seq)
        .map_err(|e| Box::new(Recorded::bare(Outcome::Rejected, period, Some(e.to_string()))))?;
    let set_version = match *change {
        Change::Total { version, .. } => version,
        _ => current.set_version,
    };
    let version = current.version + 1;
    let outcome =
        if matches!(change, Change::Submission { .. }) { Outcome::Improved } else { Outcome::Applied };
    let recorded = Recorded {
        outcome,
        // A hidden member stays hidden: its new total is recorded and projected out of the ranking.
        total: Some(Projected { period, member: member.clone(), points, version, score, hidden }),
        period: Some(period),
        reason: None,
        points: Some(points),
        version: Some(version),
        segments: None,
    };
    Ok((recorded, Some(StoredState { points, version, reach_seq: seq, set_version })))
}

fn late_reason(state: Option<&str>) -> String {
    match state {
        Some(state) => format!("the period is {state}; the write is kept for review"),
        None => "the period has closed; the write is kept for review".into(),
    }
}
