//! What a preview does to the other rankings its changes reach: each segment ranking of the
//! board (from every standing before and after) and each season made of the period.

use super::{Move, PrizeChange};
use crate::ids::MemberId;
use crate::settlement::Standing;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What the changes do to one segment ranking (`province:zj`): the touched members' moves in it
/// and every prize of its dimension's table that changes hands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SegmentChange {
    pub ranking: String,
    pub moves: Vec<Move>,
    pub prizes: Vec<PrizeChange>,
}

/// What the changes to a week do to a season made of it (`crate::season`): the season members
/// whose points or rank change, how many others only shift, and the prizes that change hands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeasonChange {
    /// The season board.
    pub board: crate::BoardSlug,
    /// Its one period.
    pub period: crate::PeriodKey,
    /// The season's state.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::view::period_state))]
    pub state: crate::lifecycle::State,
    /// True for a settled or archived season: applying re-settles it in the same operation
    /// (a new revision whose digest names the week's new one; rewards move by deltas only).
    /// An open or frozen season follows its weeks live.
    pub resettles: bool,
    pub moves: Vec<Move>,
    pub shifted: u64,
    pub prizes: Vec<PrizeChange>,
}

/// The segment rankings the changes touch, in (dimension, value) order, from every segment
/// ranking before and after (`crate::settlement::segment_standings`): a ranking appears when a
/// touched member's points or rank in it change, or a prize in it changes hands.
pub fn segment_changes(
    before: &[crate::settlement::SegmentStandings],
    after: &[crate::settlement::SegmentStandings],
    touched: &[MemberId],
) -> Vec<SegmentChange> {
    use std::collections::BTreeMap;
    let mut rankings: BTreeMap<&crate::segment::Segment, (&[Standing], &[Standing])> = BTreeMap::new();
    for r in before {
        rankings.entry(&r.segment).or_insert((&[], &[])).0 = &r.standings;
    }
    for r in after {
        rankings.entry(&r.segment).or_insert((&[], &[])).1 = &r.standings;
    }
    let mut changes = Vec::new();
    for (segment, (was, now)) in rankings {
        let was_at: HashMap<&MemberId, &Standing> = was.iter().map(|s| (&s.member, s)).collect();
        let now_at: HashMap<&MemberId, &Standing> = now.iter().map(|s| (&s.member, s)).collect();
        let moves: Vec<Move> = touched
            .iter()
            .filter_map(|m| {
                let (a, b) = (was_at.get(m), now_at.get(m));
                let key = |s: Option<&&Standing>| s.map(|s| (s.points, s.rank));
                (key(a) != key(b)).then(|| Move {
                    member: m.clone(),
                    points_before: a.map(|s| s.points),
                    points_after: b.map(|s| s.points),
                    rank_before: a.map(|s| s.rank),
                    rank_after: b.map(|s| s.rank),
                })
            })
            .collect();
        // In the order after, then those no longer in the ranking.
        let gone = was.iter().filter(|s| !now_at.contains_key(&s.member));
        let prizes: Vec<PrizeChange> = now
            .iter()
            .chain(gone)
            .filter_map(|s| {
                let (a, b) = (
                    was_at.get(&s.member).and_then(|x| x.prize.clone()),
                    now_at.get(&s.member).and_then(|x| x.prize.clone()),
                );
                (a != b).then(|| PrizeChange { member: s.member.clone(), before: a, after: b })
            })
            .collect();
        if !moves.is_empty() || !prizes.is_empty() {
            changes.push(SegmentChange { ranking: segment.to_string(), moves, prizes });
        }
    }
    changes
}
