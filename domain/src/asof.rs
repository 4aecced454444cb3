//! The board as of an instant: a period's ranking replayed from the ledger entries recorded by
//! then — writes, corrections, opening totals, and revocations taking their entry out from the
//! moment they were recorded — ordered and ranked with the settlement's rules (the board's sort
//! and tie policy). Pure: the ledger reads the entries (`engine/src/ledger/asof.rs`), this module
//! replays them with the operators' one rule (`write::decide_effect`, through `write::replay`).
//!
//! - [`totals`]: each member's total from their entries, as the ledger held it at the instant:
//!   each entry decided against the total before it, as when it was recorded; after a revocation
//!   the total is recomputed from the entries that still count, and a member whose every entry
//!   was revoked stays with 0 points and the reach sequence they had.
//! - [`ranking`]: those totals in the standings order with ranks and prizes.
//! - [`changes`]: who entered and left the top N between two rankings, and every rank move of
//!   the members in the top N at either instant.

use crate::board::Prize;
use crate::ids::{BoardSlug, MemberId};
use crate::kinds::{Sort, TiePolicy};
use crate::period::PeriodKey;
use crate::settlement::{FinalTotal, Standing, standings};
use crate::view::Entry;
use crate::write::{Counted, Current, Decision, Effect, decide_effect, replay};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One ledger entry as the replay reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastEntry {
    pub id: i64,
    pub member: MemberId,
    /// What the entry does to the total; None for a revocation.
    pub counted: Option<Counted>,
    /// On a revocation: the entry it takes out.
    pub revokes: Option<i64>,
    /// When the ledger recorded it (microseconds since the epoch).
    pub recorded_at: i64,
}

/// Each member's total from the `entries` recorded by `recorded_by` (microseconds since the
/// epoch; later ones are left out, so one read of the ledger serves several instants). `entries`
/// hold each member's entries together, in ledger (id) order — the order the ledger reads them
/// in. A member with no entry by then is not on the board. Err names a member whose total
/// overflows (no stored total can: only a corrupt row gets there).
pub fn totals(entries: &[PastEntry], recorded_by: i64, sort: Sort) -> Result<Vec<FinalTotal>, MemberId> {
    entries
        .chunk_by(|a, b| a.member == b.member)
        .filter(|run| run.iter().any(|e| e.recorded_at <= recorded_by))
        .map(|run| {
            let member = &run[0].member;
            let by_then = run.iter().filter(|e| e.recorded_at <= recorded_by);
            let (points, reach_seq) = member_total(by_then, sort).ok_or_else(|| member.clone())?;
            Ok(FinalTotal { member: member.clone(), points, reach_seq })
        })
        .collect()
}

/// One member's (points, reach sequence) after `run`, exactly as the live ledger held them: each
/// write and correction decided against the total before it (`write::decide_effect`, as
/// `engine/src/ledger/decide.rs` did when it was recorded), and each revocation recomputing the
/// total from the entries that still count (`write::replay`, as `engine/src/ledger/adjust.rs`
/// does), keeping the sequence the member had when none is left. (After a revocation a later
/// write is decided against the recomputed total, so a replay of the remaining entries alone
/// could differ: `best` after a revoked first submission.)
fn member_total<'a>(run: impl Iterator<Item = &'a PastEntry>, sort: Sort) -> Option<(i64, i64)> {
    let mut counting: Vec<(i64, Counted)> = Vec::new();
    let mut current = Current::default();
    let mut seq: Option<i64> = None;
    for e in run {
        match (e.counted, e.revokes) {
            (Some(c), _) => {
                counting.push((e.id, c));
                match decide_effect(c.effect, current, sort) {
                    Decision::Change { points } => {
                        if points != current.points || current.version == 0 {
                            seq = c.reach_seq.or(seq);
                        }
                        if let Effect::Total { version, .. } = c.effect {
                            current.set_version = version;
                        }
                        (current.points, current.version) = (points, current.version + 1);
                    }
                    // Recorded, the total unchanged (best, not better); a stale `set` is never
                    // recorded, so only an imported row could be one: it changed nothing either.
                    Decision::RecordOnly | Decision::Ignore(_) => {}
                    // No stored total overflows: only a corrupt row gets here.
                    Decision::Refuse(_) => return None,
                }
            }
            (None, Some(target)) => {
                counting.retain(|(id, _)| *id != target);
                let counted: Vec<Counted> = counting.iter().map(|(_, c)| *c).collect();
                let replayed = replay(&counted, sort)?;
                seq = replayed.reach_seq.or(seq);
                current = Current {
                    points: replayed.points,
                    version: current.version + 1,
                    set_version: replayed.set_version,
                };
            }
            (None, None) => {}
        }
    }
    Some((current.points, seq.unwrap_or(0)))
}

/// `totals` in the standings order, ranked under `policy`, with the prizes their ranks carry.
pub fn ranking(sort: Sort, policy: TiePolicy, totals: Vec<FinalTotal>, prizes: &[Prize]) -> Vec<Standing> {
    standings(sort, policy, totals, prizes)
}

/// A member's rank at two instants (None: not on the board then).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankMove {
    pub member: MemberId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    pub from_rank: Option<u64>,
    pub to_rank: Option<u64>,
    pub from_points: Option<i64>,
    pub to_points: Option<i64>,
}

/// A run of a period's ranking as the ledger had it at an instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AsOfPage {
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// The instant answered: the one asked for, or a public freeze's moment when it came after.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: Timestamp,
    /// While the period is publicly frozen (public reads): the freeze's moment, past which the
    /// public sees nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub frozen_at: Option<Timestamp>,
    /// Members on the board at that instant.
    pub total: u64,
    /// Position (0-based) of the first entry.
    pub offset: u64,
    pub entries: Vec<Entry>,
    /// True when entries exist after this run.
    pub has_more: bool,
}

/// Who entered and left a period's top N between two instants, and every rank move in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankChanges {
    pub board: BoardSlug,
    pub period: PeriodKey,
    /// The instants compared (clamped to a public freeze's moment for the public).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub from: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub to: Timestamp,
    pub top: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub frozen_at: Option<Timestamp>,
    /// In the top N at `to`, not at `from`; best first.
    pub entered: Vec<RankMove>,
    /// In the top N at `from`, not at `to`; by their rank at `from`.
    pub left: Vec<RankMove>,
    /// Every member in the top N at either instant whose rank differs, by their rank at `to`
    /// (members no longer on the board last).
    pub moves: Vec<RankMove>,
}

/// What changed in the top N between two rankings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TopChanges {
    /// In the top N at the end, not at the start; best first.
    pub entered: Vec<RankMove>,
    /// In the top N at the start, not at the end; best first (by their rank at the start).
    pub left: Vec<RankMove>,
    /// Every member in the top N at either instant whose rank differs (entering and leaving
    /// ones included), by their rank at the end, then those no longer on the board.
    pub moves: Vec<RankMove>,
}

/// What changed in the top `top` (by rank) from `before` to `after`, both in standings order.
pub fn changes(before: &[Standing], after: &[Standing], top: u64) -> TopChanges {
    let index = |s: &[Standing]| -> HashMap<MemberId, (u64, i64)> {
        s.iter().map(|s| (s.member.clone(), (s.rank, s.points))).collect()
    };
    let (was, is) = (index(before), index(after));
    let in_top = |r: Option<&(u64, i64)>| r.is_some_and(|(rank, _)| *rank <= top);
    let of = |m: &MemberId| RankMove {
        member: m.clone(),
        display_name: None,
        from_rank: was.get(m).map(|r| r.0),
        to_rank: is.get(m).map(|r| r.0),
        from_points: was.get(m).map(|r| r.1),
        to_points: is.get(m).map(|r| r.1),
    };
    // Ranks never fall along the standings, so the top N is a prefix of each.
    let top_of = |s: &'_ [Standing]| {
        s.iter().take_while(|s| s.rank <= top).map(|s| s.member.clone()).collect::<Vec<_>>()
    };
    let (top_before, top_after) = (top_of(before), top_of(after));
    let entered = top_after.iter().filter(|m| !in_top(was.get(*m))).map(of).collect();
    let left = top_before.iter().filter(|m| !in_top(is.get(*m))).map(of).collect();
    let mut moves: Vec<RankMove> = top_after
        .iter()
        .chain(top_before.iter().filter(|m| !in_top(is.get(*m))))
        .map(of)
        .filter(|m| m.from_rank != m.to_rank)
        .collect();
    moves.sort_by_key(|m| (m.to_rank.is_none(), m.to_rank, m.from_rank));
    TopChanges { entered, left, moves }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: i64, member: &str, counted: Option<Effect>, revokes: Option<i64>) -> PastEntry {
        PastEntry {
            id,
            member: MemberId::parse(member).unwrap(),
            counted: counted.map(|effect| Counted { effect, reach_seq: Some(id) }),
            revokes,
            recorded_at: id,
        }
    }

    #[test]
    fn a_revocation_takes_its_entry_out_and_a_member_with_nothing_left_keeps_their_place() {
        let entries = [
            entry(1, "a", Some(Effect::Add(10)), None),
            entry(3, "a", Some(Effect::Add(5)), None),
            entry(4, "a", None, Some(1)),
            entry(2, "b", Some(Effect::Add(7)), None),
            entry(5, "b", None, Some(2)),
        ];
        let t = totals(&entries, i64::MAX, Sort::Desc).unwrap();
        assert_eq!((t[0].points, t[0].reach_seq), (5, 3));
        // b had 7 since seq 2; with it revoked b has 0 and keeps seq 2.
        assert_eq!((t[1].points, t[1].reach_seq), (0, 2));
        // As recorded by 3: neither revocation yet. Before the first entry: nobody.
        let t = totals(&entries, 3, Sort::Desc).unwrap();
        assert_eq!(
            t.iter().map(|t| (t.member.as_str(), t.points)).collect::<Vec<_>>(),
            [("a", 15), ("b", 7)]
        );
        assert!(totals(&entries, 0, Sort::Desc).unwrap().is_empty());
    }

    #[test]
    fn changes_name_who_entered_left_and_moved() {
        let st = |rows: &[(&str, i64)]| {
            let totals = rows
                .iter()
                .map(|(m, p)| FinalTotal { member: MemberId::parse(*m).unwrap(), points: *p, reach_seq: 0 })
                .collect();
            ranking(Sort::Desc, TiePolicy::Shared, totals, &[])
        };
        let before = st(&[("a", 30), ("b", 20), ("c", 10)]);
        let after = st(&[("a", 30), ("b", 5), ("c", 10), ("d", 40)]);
        let c = changes(&before, &after, 2);
        let names = |v: &[RankMove]| v.iter().map(|m| m.member.as_str().to_owned()).collect::<Vec<_>>();
        assert_eq!(names(&c.entered), ["d"]);
        assert_eq!(names(&c.left), ["b"]);
        assert_eq!(names(&c.moves), ["d", "a", "b"]);
        assert_eq!((c.moves[2].from_rank, c.moves[2].to_rank), (Some(2), Some(4)));
    }
}
