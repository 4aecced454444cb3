//! Segment reads: a dimension's values with member counts and leaders
//! ([`Reads::segment_values`], one ledger read per period and dimension per [`SEGMENT_LIST_TTL`]
//! per process), a member's rank in each segment it holds ([`Reads::member_segments`], one
//! member-rank read per segment, at most one per declared dimension), and the rule that a
//! publicly frozen period shows no segment (`refuse_frozen_segment`). How segments are written
//! and levelled is `crate::segments`.

use super::{PeriodStatus, Reads};
use crate::EngineError;
use crate::ledger::Viewer;
use crate::scope::Scope;
use crate::totals::encode;
use domain::ErrorCode;
use domain::segment::Segment;
use domain::view::{Entry, MemberSegment};
use domain::{BoardSlug, MemberId, PeriodKey};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one ledger read of a dimension answers the list route in this process.
pub const SEGMENT_LIST_TTL: Duration = Duration::from_secs(2);
/// The most values the list route answers (`more: true` beyond).
pub const MAX_SEGMENT_VALUES: usize = 100;

/// A dimension's values and one value's count and leader: the domain's read models (the board
/// page's switcher reads them too).
pub use domain::view::{SegmentValue, SegmentValues};

/// One value's members as the list route counts them.
#[derive(Default)]
struct Tally {
    members: u64,
    /// The leader: the best score, then the greatest member id.
    best: Option<(i64, MemberId)>,
    /// Members with the leader's points.
    at_best: u64,
}

/// The lists read recently, by board, period and dimension.
#[derive(Default)]
pub struct SegmentLists(Mutex<HashMap<ListKey, (Instant, Arc<SegmentValues>)>>);

/// A board, a period and one of the board's dimensions.
type ListKey = (BoardSlug, PeriodKey, String);

impl Reads {
    /// A dimension's values in a period with member counts and leaders, at most
    /// [`MAX_SEGMENT_VALUES`] (by value), shared for [`SEGMENT_LIST_TTL`] per process. An
    /// undeclared dimension is 422 `invalid`; a public caller in a publicly frozen period gets
    /// 409 `segment_frozen`.
    pub async fn segment_values(
        &self,
        viewer: Viewer,
        scope: &Scope,
        dimension: &str,
    ) -> Result<SegmentValues, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let probe = Segment::of(&board.segments, dimension, "x").map_err(EngineError::Invalid)?;
        if viewer == Viewer::Public {
            let status = self.status_for_reads(slug, period).await?;
            refuse_frozen_segment(&Segment { value: "*".into(), ..probe }, &status)?;
        }
        let key = (slug.clone(), period, dimension.to_owned());
        if let Some((at, list)) = self.segment_lists.0.lock().expect("segment lists").get(&key)
            && at.elapsed() < SEGMENT_LIST_TTL
        {
            return Ok(list.as_ref().clone());
        }
        let rows = self.core.ledger.dimension_members(slug, &period, dimension).await?;
        // Per value: ranked members, the best (score, member) — ties by member id descending, as
        // Redis orders them — and how many members have the best points.
        let mut values: BTreeMap<String, Tally> = BTreeMap::new();
        for row in rows {
            let tally = values.entry(row.value).or_default();
            if row.total.hidden {
                continue;
            }
            let t = encode(board, row.total)?;
            tally.members += 1;
            let points = board.codec.points(t.score);
            match &tally.best {
                Some((best, _)) if board.codec.points(*best) > points => {}
                Some((best, member)) if board.codec.points(*best) == points => {
                    tally.at_best += 1;
                    if (t.score, &t.member) > (*best, member) {
                        tally.best = Some((t.score, t.member));
                    }
                }
                _ => (tally.best, tally.at_best) = (Some((t.score, t.member)), 1),
            }
        }
        let more = values.len() > MAX_SEGMENT_VALUES;
        let shown: Vec<_> = values.into_iter().take(MAX_SEGMENT_VALUES).collect();
        let leaders: Vec<MemberId> =
            shown.iter().filter_map(|(_, t)| t.best.as_ref().map(|b| b.1.clone())).collect();
        let mut names = self.display_names(&leaders).await?;
        // Under `first_reached` no two members share a rank, whatever their points.
        let shared = board.tie_policy() == domain::TiePolicy::Shared;
        let values = shown
            .into_iter()
            .map(|(value, tally)| SegmentValue {
                value,
                members: tally.members,
                leader: tally.best.map(|(score, member)| Entry {
                    rank: 1,
                    points: board.codec.points(score),
                    display_name: names.remove(&member),
                    avatar_url: None,
                    member,
                    tied: shared && tally.at_best > 1,
                }),
            })
            .collect();
        let list = Arc::new(SegmentValues { dimension: dimension.to_owned(), values, more });
        let mut lists = self.segment_lists.0.lock().expect("segment lists");
        lists.retain(|_, (at, _)| at.elapsed() < SEGMENT_LIST_TTL);
        lists.insert(key, (Instant::now(), Arc::clone(&list)));
        Ok(list.as_ref().clone())
    }

    /// A member's rank, points and the segment's member count in each segment it holds in the
    /// period, in the order the board declares its dimensions: one member-rank read per segment
    /// (`scope.in_segment`), so the same rules as every public read. A hidden member is
    /// `NotFound`, as if absent; during a public freeze (but for an archived period, read from its
    /// standings) the answer is 409 `segment_frozen`, whatever the member holds, so nothing of a
    /// segment shows before the reveal. A segment where the member has no points is left out.
    pub async fn member_segments(
        &self,
        scope: &Scope,
        member: &MemberId,
    ) -> Result<Vec<MemberSegment>, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        if board.segments.is_empty() {
            return Ok(Vec::new());
        }
        self.refuse_hidden(slug, &period, member).await?;
        let status = self.status_for_reads(slug, period).await?;
        if let Some(first) = board.segments.first() {
            let every = Segment { dimension: first.clone(), value: "*".into() };
            refuse_frozen_segment(&every, &status)?;
        }
        let mut held = self.core.ledger.segments_of(slug, &period, &[member]).await?;
        let Some(values) = held.remove(member) else { return Ok(Vec::new()) };
        let mut out = Vec::with_capacity(values.len());
        for dimension in &board.segments {
            let Some(value) = values.get(dimension) else { continue };
            let named = Segment { dimension: dimension.clone(), value: value.clone() }.to_string();
            let in_segment = scope.clone().in_segment(Some(&named))?;
            let page = match self.around(&in_segment, member, 0).await {
                Ok(page) => page,
                Err(EngineError::NotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            if let Some(entry) = page.entries.into_iter().find(|e| &e.member == member) {
                out.push(MemberSegment {
                    dimension: dimension.clone(),
                    value: value.clone(),
                    rank: entry.rank,
                    // Under `first_reached` no two members share a rank, whatever a one-row
                    // window of equal points says.
                    tied: entry.tied && board.tie_policy() == domain::TiePolicy::Shared,
                    points: entry.points,
                    members: page.total,
                });
            }
        }
        Ok(out)
    }
}

/// Refuses a public read of a segment while its period is publicly frozen: a segment has no
/// frozen view, and its live ranking would show what the freeze hides. An archived period is
/// read from its final standings, which hide nothing.
pub(crate) fn refuse_frozen_segment(segment: &Segment, status: &PeriodStatus) -> Result<(), EngineError> {
    match status.public_freeze() {
        None => Ok(()),
        Some(at) => Err(EngineError::Refused {
            code: ErrorCode::SegmentFrozen,
            detail: format!(
                "the period is publicly frozen since {at}: segment {segment} opens at the reveal"
            ),
        }),
    }
}
