//! What a preview (a dry run of admin changes) would do to a period's standings: which members
//! move because of the changes, how many others only shift, which prizes change hands. Pure: the
//! engine works out the changed members' totals after, and [`compare`] reads the standings before
//! through [`StandingsBefore`] — held in memory ([`Ranked`]) for a period not yet settled, read
//! from the stored settlement for a settled one — with the settlement's own order, ranks and
//! prizes ([`crate::settlement::standing_order`], [`crate::ranking`]), never a second copy.
//!
//! Cost: independent of the number of members. The untouched members keep their relative order,
//! so an untouched member's rank changes by a step function of its position before: +1 from each
//! place a changed member now enters ahead of it, −1 from each place one leaves. [`compare`]
//! finds those places with a few lookups per changed member, counts the shifted members run by
//! run, and reads standings only for the prize ranks and the shifted members it lists. The full
//! standings after ([`Plan::after`], for a digest) are one pass over the standings before.
//!
//! The property tests hold it to the full standings before and after, read in windows of 3 (as
//! a reader of stored blocks would): no change moves nobody, moves and shifts account for every
//! changed rank, prize changes turn the prizes before into the prizes after, and the plan's
//! standings after are the settlement's own.

use crate::board::Prize;
use crate::ids::MemberId;
use crate::kinds::{Sort, TiePolicy};
use crate::settlement::{FinalTotal, Standing, prize_for, ranked, standing_order};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A member's total as the standings see it: points, reach sequence and whether it is hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contender {
    pub points: i64,
    pub reach_seq: i64,
    pub hidden: bool,
}

/// A member the changes touch, with its total before and after (`None`: no total).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub member: MemberId,
    pub before: Option<Contender>,
    pub after: Option<Contender>,
}

/// One member's place before and after. Points are `None` without a total; ranks are `None`
/// for a member that is not ranked (hidden, or no total).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Move {
    pub member: MemberId,
    pub points_before: Option<i64>,
    pub points_after: Option<i64>,
    pub rank_before: Option<u64>,
    pub rank_after: Option<u64>,
}

/// A prize that changes hands: what the member had before and would have after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PrizeChange {
    pub member: MemberId,
    pub before: Option<String>,
    pub after: Option<String>,
}

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

/// The comparison of the standings before and after the changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Touched members whose points or rank change, in the order they were given.
    pub moves: Vec<Move>,
    /// Untouched members whose rank changes only because others moved.
    pub shifted: u64,
    /// The first of them in the order after, at most the bound given to [`compare`].
    pub shifted_members: Vec<Move>,
    /// Every member whose prize changes, in the order after (then those no longer ranked).
    pub prizes: Vec<PrizeChange>,
    /// How the standings before become the standings after.
    pub plan: Plan,
}

/// The standings before the changes, as [`compare`] reads them. Positions are 0-based, in the
/// standings order.
#[allow(async_fn_in_trait)] // Implemented and awaited inside the workspace, on concrete types.
pub trait StandingsBefore {
    type Error;
    /// How many members are ranked.
    fn members(&self) -> u64;
    /// Where a member stands (its position and standing), if it is ranked.
    async fn place(&mut self, member: &MemberId) -> Result<Option<(u64, Standing)>, Self::Error>;
    /// How many members have `points` or better (at least `points`, or at most on an ascending
    /// board).
    async fn at_least(&mut self, points: i64) -> Result<u64, Self::Error>;
    /// How many members come before `total` in the standings order (a member's own standing
    /// before included, when it comes before).
    async fn ahead_of(&mut self, total: &FinalTotal) -> Result<u64, Self::Error>;
    /// Up to `count` standings from position `from`.
    async fn window(&mut self, from: u64, count: u64) -> Result<Vec<Standing>, Self::Error>;
}

/// The standings before, in memory: ordered totals ranked with the settlement's rules.
#[derive(Debug, Clone)]
pub struct Ranked {
    sort: Sort,
    policy: TiePolicy,
    ordered: Vec<FinalTotal>,
    standings: Vec<Standing>,
    positions: HashMap<MemberId, u64>,
}

impl Ranked {
    /// `ordered`: the ranked (visible) totals, in the standings order.
    pub fn new(sort: Sort, policy: TiePolicy, ordered: Vec<FinalTotal>, prizes: &[Prize]) -> Self {
        let standings = ranked(policy, ordered.clone(), prizes);
        let positions = ordered.iter().enumerate().map(|(i, t)| (t.member.clone(), i as u64)).collect();
        Ranked { sort, policy, ordered, standings, positions }
    }

    pub fn standings(&self) -> &[Standing] {
        &self.standings
    }
}

impl StandingsBefore for Ranked {
    type Error = std::convert::Infallible;

    fn members(&self) -> u64 {
        self.standings.len() as u64
    }

    async fn place(&mut self, member: &MemberId) -> Result<Option<(u64, Standing)>, Self::Error> {
        Ok(self.positions.get(member).map(|&at| (at, self.standings[at as usize].clone())))
    }

    async fn at_least(&mut self, points: i64) -> Result<u64, Self::Error> {
        Ok(self.standings.partition_point(|s| !self.sort.better(points, s.points)) as u64)
    }

    async fn ahead_of(&mut self, total: &FinalTotal) -> Result<u64, Self::Error> {
        Ok(self.ordered.partition_point(|t| standing_order(self.sort, self.policy, t, total).is_lt()) as u64)
    }

    async fn window(&mut self, from: u64, count: u64) -> Result<Vec<Standing>, Self::Error> {
        let from = (from as usize).min(self.standings.len());
        let to = from.saturating_add(count as usize).min(self.standings.len());
        Ok(self.standings[from..to].to_vec())
    }
}

/// How the standings before become the standings after, by position before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    prizes: Vec<Prize>,
    /// Positions before of the touched members that were ranked, ascending.
    removed: Vec<u64>,
    /// Positions from which an untouched member's rank grows by one (each), ascending.
    later: Vec<u64>,
    /// Positions from which it shrinks by one (each), ascending.
    sooner: Vec<u64>,
    /// For each touched member ranked after: how many standings before come before it, ascending.
    entering_at: Vec<u64>,
    /// The touched members ranked after, with their positions after, in that order.
    entering: Vec<(u64, Standing)>,
}

/// How many of the ascending `v` are at most `i`.
fn at_most(v: &[u64], i: u64) -> u64 {
    v.partition_point(|&x| x <= i) as u64
}

impl Plan {
    /// How an untouched member's rank at position `at` before changes.
    fn delta(&self, at: u64) -> i64 {
        at_most(&self.later, at) as i64 - at_most(&self.sooner, at) as i64
    }

    /// An untouched member's position after.
    fn position_after(&self, at: u64) -> u64 {
        let removed_before = self.removed.partition_point(|&x| x < at) as u64;
        at - removed_before + at_most(&self.entering_at, at)
    }

    fn is_removed(&self, at: u64) -> bool {
        self.removed.binary_search(&at).is_ok()
    }

    /// An untouched member's standing after, from its standing at position `at` before.
    fn shifted(&self, at: u64, s: Standing) -> Standing {
        match self.delta(at) {
            0 => s,
            d => {
                let rank = s.rank.checked_add_signed(d).expect("a rank after is at least 1");
                Standing { rank, prize: prize_for(&self.prizes, rank), ..s }
            }
        }
    }

    /// The runs `[from, to)` of positions before in which untouched ranks change, with the change.
    fn runs(&self, members: u64) -> Vec<(u64, u64, i64)> {
        let mut cuts: Vec<u64> = [0, members].into_iter().chain(self.later.iter().copied()).collect();
        cuts.extend(self.sooner.iter().copied());
        cuts.retain(|&c| c <= members);
        cuts.sort_unstable();
        cuts.dedup();
        cuts.windows(2)
            .map(|w| (w[0], w[1], self.delta(w[0])))
            .filter(|(from, to, d)| from < to && *d != 0)
            .collect()
    }

    /// The full standings after, from the full standings before (in order).
    pub fn after(&self, before: Vec<Standing>) -> Vec<Standing> {
        let mut out = Vec::with_capacity(before.len() + self.entering.len());
        let mut entering = self.entering.iter().peekable();
        for (at, s) in before.into_iter().enumerate() {
            let at = at as u64;
            if self.is_removed(at) {
                continue;
            }
            while let Some((_, e)) = entering.next_if(|(p, _)| *p == out.len() as u64) {
                out.push(e.clone());
            }
            out.push(self.shifted(at, s));
        }
        out.extend(entering.map(|(_, e)| e.clone()));
        out
    }
}

/// The standings after the changes down to rank `depth` (a `placement` season's paid places of
/// the week), from the standings `before` and the comparison's plan, reading only the standings
/// before that could end there: a rank moves up by at most one per touched member.
pub async fn top_after<S: StandingsBefore>(
    before: &mut S,
    plan: &Plan,
    touched: usize,
    depth: u64,
) -> Result<Vec<Standing>, S::Error> {
    let reach = depth.saturating_add(touched as u64);
    let mut prefix: Vec<Standing> = Vec::new();
    loop {
        let window = before.window(prefix.len() as u64, WINDOW).await?;
        let full = window.len() as u64 == WINDOW;
        let past = window.last().is_some_and(|s| s.rank > reach);
        prefix.extend(window);
        if !full || past {
            break;
        }
    }
    let mut after = plan.after(prefix);
    after.retain(|s| s.rank <= depth);
    Ok(after)
}

/// One change of a preview, as an admin asks for it. The same words as the admin routes that
/// make each change for real; written as the API takes it (`{"revoke": "<event_id>"}`,
/// `{"correct": {"member": …, "delta": …}}`, …) and stored with the draft so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PreviewChange {
    /// Revoke an applied event or submission of the period, by its id.
    Revoke(crate::ids::EventId),
    /// Correct a member's points by `delta`.
    Correct { member: MemberId, delta: i64 },
    /// Accept a pending late write of the period, by its id.
    AcceptLate(i64),
    /// Reject a pending late write of the period, by its id.
    RejectLate(i64),
    /// Hide a member from the period's ranking and standings.
    Hide(MemberId),
    /// Show a hidden member again.
    Unhide(MemberId),
    /// Revoke every entry of the member that counts in the period, oldest first.
    RevokeMember(MemberId),
    /// Move a member to another value of a segment dimension for the period: its total leaves
    /// the old value's ranking and joins the new one's (`crate::segment`).
    Move { member: MemberId, dimension: String, value: String },
}

/// Which kind of change a preview makes, as a revision's summary counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Revoke,
    RevokeMember,
    Correct,
    AcceptLate,
    RejectLate,
    Hide,
    Unhide,
    Move,
}

impl ChangeKind {
    pub fn of(change: &PreviewChange) -> ChangeKind {
        match change {
            PreviewChange::Revoke(_) => ChangeKind::Revoke,
            PreviewChange::RevokeMember(_) => ChangeKind::RevokeMember,
            PreviewChange::Correct { .. } => ChangeKind::Correct,
            PreviewChange::AcceptLate(_) => ChangeKind::AcceptLate,
            PreviewChange::RejectLate(_) => ChangeKind::RejectLate,
            PreviewChange::Hide(_) => ChangeKind::Hide,
            PreviewChange::Unhide(_) => ChangeKind::Unhide,
            PreviewChange::Move { .. } => ChangeKind::Move,
        }
    }
}

/// How many changes of one kind a revision made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeCount {
    pub kind: ChangeKind,
    pub count: usize,
}

/// The changes counted by kind, for the people a revision concerns (each kind once, in the order
/// the kinds first appear); the UI words them in the reader's language ("1 entry revoked, 2
/// corrections").
pub fn summarize(changes: &[PreviewChange]) -> Vec<ChangeCount> {
    let mut counts: Vec<ChangeCount> = Vec::new();
    for kind in changes.iter().map(ChangeKind::of) {
        match counts.iter_mut().find(|c| c.kind == kind) {
            Some(c) => c.count += 1,
            None => counts.push(ChangeCount { kind, count: 1 }),
        }
    }
    counts
}

/// How many standings a comparison reads at once.
const WINDOW: u64 = 1000;

/// Compares the standings `before` with the standings after the `touched` members' totals change
/// (the others keep theirs). A touched member's `before` must be its total in the standings
/// before (ranked there exactly when visible). Lists at most `shifted_bound` shifted members.
pub async fn compare<S: StandingsBefore>(
    sort: Sort,
    policy: TiePolicy,
    prizes: &[Prize],
    before: &mut S,
    touched: &[Touched],
    shifted_bound: usize,
) -> Result<Comparison, S::Error> {
    let members = before.members();
    let was = places_before(before, touched).await?;
    let (plan, now) = plan_after(sort, policy, prizes, before, touched, &was).await?;
    let (moves, mut prize_changes) = touched_changes(touched, &was, &now);
    untouched_prize_changes(before, &plan, members, touched.len(), &mut prize_changes).await?;
    // In the order after; members no longer ranked last (None sorts first, hence the flip).
    prize_changes.sort_by_key(|(position, _)| (position.is_none(), *position));
    let prizes = prize_changes.into_iter().map(|(_, c)| c).collect();
    let (shifted, shifted_members) = shifted(before, &plan, members, shifted_bound).await?;
    Ok(Comparison { moves, shifted, shifted_members, prizes, plan })
}

/// Where each touched member stood before (None: not ranked), with its position.
async fn places_before<S: StandingsBefore>(
    before: &mut S,
    touched: &[Touched],
) -> Result<Vec<Option<(u64, Standing)>>, S::Error> {
    let mut was: Vec<Option<(u64, Standing)>> = Vec::with_capacity(touched.len());
    for t in touched {
        was.push(match t.before {
            Some(c) if !c.hidden => before.place(&t.member).await?,
            _ => None,
        });
    }
    Ok(was)
}

/// The plan of the order after (see [`Plan`]), and where each touched member stands after.
async fn plan_after<S: StandingsBefore>(
    sort: Sort,
    policy: TiePolicy,
    prizes: &[Prize],
    before: &mut S,
    touched: &[Touched],
    was: &[Option<(u64, Standing)>],
) -> Result<(Plan, Vec<Option<(u64, Standing)>>), S::Error> {
    let mut removed: Vec<u64> = was.iter().flatten().map(|(at, _)| *at).collect();
    removed.sort_unstable();

    // The touched members ranked after, in the order after, and where they enter.
    let mut entering: Vec<(usize, FinalTotal)> = touched
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let a = t.after.filter(|a| !a.hidden)?;
            Some((i, FinalTotal { member: t.member.clone(), points: a.points, reach_seq: a.reach_seq }))
        })
        .collect();
    entering.sort_unstable_by(|a, b| standing_order(sort, policy, &a.1, &b.1));
    let mut entering_at = Vec::with_capacity(entering.len());
    for (_, e) in &entering {
        entering_at.push(before.ahead_of(e).await?);
    }
    // Under `first_reached` a rank is a position; under `shared` it counts the members with better
    // points, so it moves where the points cross a changed member's points.
    let (mut later, mut sooner): (Vec<u64>, Vec<u64>) = match policy {
        TiePolicy::FirstReached => (entering_at.clone(), removed.iter().map(|at| at + 1).collect()),
        TiePolicy::Shared => {
            let (mut later, mut sooner) = (Vec::new(), Vec::new());
            for (_, e) in &entering {
                later.push(before.at_least(e.points).await?);
            }
            for (_, s) in was.iter().flatten() {
                sooner.push(before.at_least(s.points).await?);
            }
            (later, sooner)
        }
    };
    later.sort_unstable();
    sooner.sort_unstable();

    let mut now: Vec<Option<(u64, Standing)>> = vec![None; touched.len()];
    for (k, ((i, e), &ahead)) in entering.iter().zip(&entering_at).enumerate() {
        let position = ahead - removed.partition_point(|&x| x < ahead) as u64 + k as u64;
        let rank = match policy {
            TiePolicy::FirstReached => position + 1,
            TiePolicy::Shared => {
                let more = match sort.next_better(e.points) {
                    Some(p) => before.at_least(p).await?,
                    None => 0,
                };
                let left =
                    was.iter().flatten().filter(|(_, s)| sort.better(s.points, e.points)).count() as u64;
                let entered = entering.iter().filter(|(_, o)| sort.better(o.points, e.points)).count() as u64;
                1 + more - left + entered
            }
        };
        let prize = prize_for(prizes, rank);
        now[*i] = Some((position, Standing { rank, member: e.member.clone(), points: e.points, prize }));
    }
    let plan = Plan {
        prizes: prizes.to_vec(),
        removed,
        later,
        sooner,
        entering_at,
        // In the order after: `now` of the entering members, in their order.
        entering: entering.iter().filter_map(|(i, _)| now[*i].clone()).collect(),
    };

    Ok((plan, now))
}

/// The touched members' moves (points or rank changed) and prize changes, each prize change with
/// the member's position after.
fn touched_changes(
    touched: &[Touched],
    was: &[Option<(u64, Standing)>],
    now: &[Option<(u64, Standing)>],
) -> (Vec<Move>, Vec<(Option<u64>, PrizeChange)>) {
    let mut moves = Vec::new();
    let mut prize_changes: Vec<(Option<u64>, PrizeChange)> = Vec::new();
    for (i, t) in touched.iter().enumerate() {
        let (was, now) = (&was[i], &now[i]);
        let m = Move {
            member: t.member.clone(),
            points_before: t.before.map(|c| c.points),
            points_after: t.after.map(|c| c.points),
            rank_before: was.as_ref().map(|(_, s)| s.rank),
            rank_after: now.as_ref().map(|(_, s)| s.rank),
        };
        if m.points_before != m.points_after || m.rank_before != m.rank_after {
            moves.push(m);
        }
        let (p, q) = (
            was.as_ref().and_then(|(_, s)| s.prize.clone()),
            now.as_ref().and_then(|(_, s)| s.prize.clone()),
        );
        if p != q {
            let change = PrizeChange { member: t.member.clone(), before: p, after: q };
            prize_changes.push((now.as_ref().map(|(at, _)| *at), change));
        }
    }

    (moves, prize_changes)
}

/// The prize changes of members who were not touched but shift.
async fn untouched_prize_changes<S: StandingsBefore>(
    before: &mut S,
    plan: &Plan,
    members: u64,
    touched: usize,
    prize_changes: &mut Vec<(Option<u64>, PrizeChange)>,
) -> Result<(), S::Error> {
    // An untouched member's rank moves by at most one per touched member, so its prize can only
    // change if its rank before is within that many of the last prize rank.
    if let Some(last) = plan.prizes.iter().map(|p| p.to_rank).max() {
        let limit = last.saturating_add(touched as u64);
        let mut from = 0;
        'read: while from < members {
            let rows = before.window(from, WINDOW).await?;
            if rows.is_empty() {
                break;
            }
            let read = rows.len() as u64;
            for (j, s) in rows.into_iter().enumerate() {
                let at = from + j as u64;
                if s.rank > limit {
                    break 'read;
                }
                if plan.is_removed(at) {
                    continue;
                }
                let after = plan.shifted(at, s.clone());
                if after.prize != s.prize {
                    let change = PrizeChange { member: s.member, before: s.prize, after: after.prize };
                    prize_changes.push((Some(plan.position_after(at)), change));
                }
            }
            from += read;
        }
    }
    Ok(())
}

/// The members who only shift: counted run by run, the first `shifted_bound` listed (the order
/// after keeps theirs).
async fn shifted<S: StandingsBefore>(
    before: &mut S,
    plan: &Plan,
    members: u64,
    shifted_bound: usize,
) -> Result<(u64, Vec<Move>), S::Error> {
    let mut shifted = 0;
    let mut shifted_members = Vec::new();
    for (from, to, _) in plan.runs(members) {
        let inside = plan.removed.partition_point(|&x| x < to) - plan.removed.partition_point(|&x| x < from);
        shifted += to - from - inside as u64;
        let mut at = from;
        while shifted_members.len() < shifted_bound && at < to {
            let want = (shifted_bound - shifted_members.len() + inside) as u64;
            let rows = before.window(at, (to - at).min(want).min(WINDOW)).await?;
            if rows.is_empty() {
                break;
            }
            let read = rows.len() as u64;
            for (j, s) in rows.into_iter().enumerate() {
                let position = at + j as u64;
                if plan.is_removed(position) || shifted_members.len() == shifted_bound {
                    continue;
                }
                let after = plan.shifted(position, s.clone());
                shifted_members.push(Move {
                    member: s.member,
                    points_before: Some(s.points),
                    points_after: Some(s.points),
                    rank_before: Some(s.rank),
                    rank_after: Some(after.rank),
                });
            }
            at += read;
        }
    }
    Ok((shifted, shifted_members))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settlement::{order, standings};
    use proptest::prelude::*;
    use std::collections::BTreeMap;
    use std::future::Future;

    /// In-memory standings that answer at most 3 standings per window, as a reader of stored
    /// blocks may answer fewer than asked.
    struct Chunked(Ranked);

    impl StandingsBefore for Chunked {
        type Error = std::convert::Infallible;
        fn members(&self) -> u64 {
            self.0.members()
        }
        async fn place(&mut self, member: &MemberId) -> Result<Option<(u64, Standing)>, Self::Error> {
            self.0.place(member).await
        }
        async fn at_least(&mut self, points: i64) -> Result<u64, Self::Error> {
            self.0.at_least(points).await
        }
        async fn ahead_of(&mut self, total: &FinalTotal) -> Result<u64, Self::Error> {
            self.0.ahead_of(total).await
        }
        async fn window(&mut self, from: u64, count: u64) -> Result<Vec<Standing>, Self::Error> {
            self.0.window(from, count.min(3)).await
        }
    }

    /// Awaits a comparison of in-memory standings: it never waits, so one poll finishes it.
    fn run(
        sort: Sort,
        policy: TiePolicy,
        prizes: &[Prize],
        ordered: Vec<FinalTotal>,
        touched: &[Touched],
        bound: usize,
    ) -> (Comparison, Vec<Standing>) {
        let mut before = Chunked(Ranked::new(sort, policy, ordered, prizes));
        let got = {
            let future = std::pin::pin!(compare(sort, policy, prizes, &mut before, touched, bound));
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let std::task::Poll::Ready(Ok(got)) = future.poll(&mut cx) else {
                panic!("an in-memory comparison finishes at once")
            };
            got
        };
        let after = got.plan.after(before.0.standings().to_vec());
        (got, after)
    }

    fn m(s: &str) -> MemberId {
        MemberId::parse(s).unwrap()
    }

    fn c(points: i64, reach_seq: i64) -> Contender {
        Contender { points, reach_seq, hidden: false }
    }

    #[test]
    fn changes_are_counted_by_kind_in_the_order_they_first_appear() {
        let e = |id: &str| crate::ids::EventId::parse(id).unwrap();
        let changes = [
            PreviewChange::Revoke(e("e1")),
            PreviewChange::Correct { member: m("u1"), delta: 2 },
            PreviewChange::Revoke(e("e2")),
            PreviewChange::Hide(m("u2")),
        ];
        let count = |kind, count| ChangeCount { kind, count };
        assert_eq!(
            summarize(&changes),
            [count(ChangeKind::Revoke, 2), count(ChangeKind::Correct, 1), count(ChangeKind::Hide, 1)]
        );
        assert_eq!(summarize(&changes[..1]), [count(ChangeKind::Revoke, 1)]);
        assert_eq!(summarize(&[]), []);
    }

    #[test]
    fn changes_read_and_write_as_the_api_has_them() {
        let changes: Vec<PreviewChange> = serde_json::from_str(
            r#"[{"revoke": "e1"}, {"correct": {"member": "u1", "delta": -3}}, {"accept_late": 4},
                {"reject_late": 5}, {"hide": "u2"}, {"unhide": "u2"}, {"revoke_member": "u3"}]"#,
        )
        .unwrap();
        assert_eq!(changes[1], PreviewChange::Correct { member: m("u1"), delta: -3 });
        assert_eq!(changes[6], PreviewChange::RevokeMember(m("u3")));
        let text = serde_json::to_string(&changes[..2]).unwrap();
        assert_eq!(text, r#"[{"revoke":"e1"},{"correct":{"member":"u1","delta":-3}}]"#);
        for bad in [
            r#"{"revoke": "e1", "hide": "u2"}"#,
            r#"{"bogus": 1}"#,
            r#"{"correct": {"member": "u1", "delta": 1, "x": 0}}"#,
        ] {
            assert!(serde_json::from_str::<PreviewChange>(bad).is_err(), "{bad}");
        }
    }

    fn prize(from_rank: u64, to_rank: u64, prize: &str) -> Prize {
        Prize { from_rank, to_rank, prize: prize.into() }
    }

    /// The standings of every visible member of `board`, in order (the settlement's own).
    fn full(
        sort: Sort,
        policy: TiePolicy,
        board: &BTreeMap<MemberId, Contender>,
        prizes: &[Prize],
    ) -> Vec<Standing> {
        let totals = board
            .iter()
            .filter(|(_, c)| !c.hidden)
            .map(|(member, c)| FinalTotal {
                member: member.clone(),
                points: c.points,
                reach_seq: c.reach_seq,
            })
            .collect();
        standings(sort, policy, totals, prizes)
    }

    fn ordered(sort: Sort, policy: TiePolicy, board: &BTreeMap<MemberId, Contender>) -> Vec<FinalTotal> {
        let mut totals: Vec<FinalTotal> = board
            .iter()
            .filter(|(_, c)| !c.hidden)
            .map(|(member, c)| FinalTotal {
                member: member.clone(),
                points: c.points,
                reach_seq: c.reach_seq,
            })
            .collect();
        order(sort, policy, &mut totals);
        totals
    }

    #[test]
    fn a_correction_moves_one_member_shifts_the_ones_it_passes_and_hands_over_the_prize() {
        let board: BTreeMap<MemberId, Contender> =
            [("a", 100), ("b", 90), ("c", 80), ("d", 70)].iter().map(|(n, p)| (m(n), c(*p, 0))).collect();
        let prizes = [prize(1, 1, "gold"), prize(2, 3, "silver")];
        let touched = [Touched { member: m("d"), before: Some(c(70, 0)), after: Some(c(95, 9)) }];
        let (got, _) = run(
            Sort::Desc,
            TiePolicy::Shared,
            &prizes,
            ordered(Sort::Desc, TiePolicy::Shared, &board),
            &touched,
            100,
        );
        assert_eq!(
            got.moves,
            vec![Move {
                member: m("d"),
                points_before: Some(70),
                points_after: Some(95),
                rank_before: Some(4),
                rank_after: Some(2)
            }]
        );
        assert_eq!(got.shifted, 2);
        let shifted: Vec<_> =
            got.shifted_members.iter().map(|s| (s.member.as_str(), s.rank_before, s.rank_after)).collect();
        assert_eq!(shifted, vec![("b", Some(2), Some(3)), ("c", Some(3), Some(4))]);
        let prizes: Vec<_> =
            got.prizes.iter().map(|p| (p.member.as_str(), p.before.as_deref(), p.after.as_deref())).collect();
        assert_eq!(prizes, vec![("d", None, Some("silver")), ("c", Some("silver"), None)]);
    }

    #[test]
    fn a_hidden_member_leaves_the_ranks_and_shared_ranks_close_up() {
        let board: BTreeMap<MemberId, Contender> =
            [("a", 100), ("b", 90), ("c", 90), ("d", 80)].iter().map(|(n, p)| (m(n), c(*p, 0))).collect();
        let hidden = Contender { hidden: true, ..c(100, 0) };
        let touched = [Touched { member: m("a"), before: Some(c(100, 0)), after: Some(hidden) }];
        let (got, _) = run(
            Sort::Desc,
            TiePolicy::Shared,
            &[prize(1, 1, "gold")],
            ordered(Sort::Desc, TiePolicy::Shared, &board),
            &touched,
            1,
        );
        assert_eq!(got.moves[0].rank_after, None);
        assert_eq!(got.moves[0].points_after, Some(100));
        assert_eq!(
            (got.shifted, got.shifted_members.len()),
            (3, 1),
            "the bound limits the list, not the count"
        );
        let prizes: Vec<_> =
            got.prizes.iter().map(|p| (p.member.as_str(), p.before.as_deref(), p.after.as_deref())).collect();
        // Both members tied at the new rank 1 share its prize; the hidden one loses it.
        assert_eq!(
            prizes,
            vec![("c", None, Some("gold")), ("b", None, Some("gold")), ("a", Some("gold"), None)]
        );
    }

    fn policy() -> impl Strategy<Value = TiePolicy> {
        prop_oneof![Just(TiePolicy::Shared), Just(TiePolicy::FirstReached)]
    }

    fn sort() -> impl Strategy<Value = Sort> {
        prop_oneof![Just(Sort::Desc), Just(Sort::Asc)]
    }

    fn contender() -> impl Strategy<Value = Option<Contender>> {
        prop::option::weighted(0.85, (-3i64..4, 0i64..6, prop::bool::weighted(0.15)))
            .prop_map(|c| c.map(|(points, reach_seq, hidden)| Contender { points, reach_seq, hidden }))
    }

    fn prize_table() -> impl Strategy<Value = Vec<Prize>> {
        prop::collection::vec(1u64..4, 0..4).prop_map(|widths| {
            let mut from = 1;
            widths
                .into_iter()
                .enumerate()
                .map(|(i, w)| {
                    let p = prize(from, from + w - 1, &format!("p{i}"));
                    from += w;
                    p
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn changing_nothing_moves_nobody(
            sort in sort(),
            policy in policy(),
            prizes in prize_table(),
            board in prop::collection::vec(contender(), 0..30),
            same in prop::collection::vec(0usize..30, 0..5),
        ) {
            let board: BTreeMap<MemberId, Contender> = board
                .into_iter()
                .enumerate()
                .filter_map(|(i, c)| Some((m(&format!("m{i}")), c?)))
                .collect();
            // Touching members without changing them is no change either.
            let touched: Vec<Touched> = same
                .into_iter()
                .map(|i| m(&format!("m{i}")))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(|member| Touched { before: board.get(&member).copied(), after: board.get(&member).copied(), member })
                .collect();
            let (got, after) = run(sort, policy, &prizes, ordered(sort, policy, &board), &touched, 100);
            prop_assert!(got.moves.is_empty());
            prop_assert_eq!(got.shifted, 0);
            prop_assert!(got.prizes.is_empty());
            prop_assert_eq!(after, full(sort, policy, &board, &prizes));
        }

        #[test]
        fn moves_shifts_and_prizes_account_for_every_difference(
            sort in sort(),
            policy in policy(),
            prizes in prize_table(),
            board in prop::collection::vec(contender(), 0..40),
            changes in prop::collection::btree_map(0usize..45, contender(), 0..6),
            bound in 0usize..5,
        ) {
            let before_board: BTreeMap<MemberId, Contender> = board
                .into_iter()
                .enumerate()
                .filter_map(|(i, c)| Some((m(&format!("m{i}")), c?)))
                .collect();
            let mut after_board = before_board.clone();
            let mut touched = Vec::new();
            for (i, after) in changes {
                let member = m(&format!("m{i}"));
                let before = before_board.get(&member).copied();
                match after {
                    Some(a) => after_board.insert(member.clone(), a),
                    None => after_board.remove(&member),
                };
                touched.push(Touched { member, before, after });
            }
            let (got, after) = run(sort, policy, &prizes, ordered(sort, policy, &before_board), &touched, bound);

            // The standings after are the settlement's own of the board after.
            let (old, new) = (full(sort, policy, &before_board, &prizes), full(sort, policy, &after_board, &prizes));
            prop_assert_eq!(&after, &new);

            let rank = |s: &[Standing]| -> BTreeMap<MemberId, (u64, Option<String>)> {
                s.iter().map(|s| (s.member.clone(), (s.rank, s.prize.clone()))).collect()
            };
            let (was, now) = (rank(&old), rank(&new));
            let is_touched = |member: &MemberId| touched.iter().any(|t| &t.member == member);
            let everyone: std::collections::BTreeSet<&MemberId> = before_board.keys().chain(after_board.keys()).collect();

            // Moves: exactly the touched members whose points or rank differ, with both.
            let mut expected_moves = Vec::new();
            for t in &touched {
                let m = Move {
                    member: t.member.clone(),
                    points_before: before_board.get(&t.member).map(|c| c.points),
                    points_after: after_board.get(&t.member).map(|c| c.points),
                    rank_before: was.get(&t.member).map(|r| r.0),
                    rank_after: now.get(&t.member).map(|r| r.0),
                };
                if m.points_before != m.points_after || m.rank_before != m.rank_after {
                    expected_moves.push(m);
                }
            }
            prop_assert_eq!(&got.moves, &expected_moves);

            // Shifted: every untouched member whose rank changed, listed in the order after.
            let shifted: Vec<Move> = new
                .iter()
                .filter(|s| !is_touched(&s.member) && was.get(&s.member).map(|r| r.0) != Some(s.rank))
                .map(|s| Move {
                    member: s.member.clone(),
                    points_before: Some(s.points),
                    points_after: Some(s.points),
                    rank_before: was.get(&s.member).map(|r| r.0),
                    rank_after: Some(s.rank),
                })
                .collect();
            prop_assert_eq!(got.shifted, shifted.len() as u64);
            prop_assert_eq!(&got.shifted_members[..], &shifted[..bound.min(shifted.len())]);
            // Together they are every member whose rank changed.
            let changed_rank = everyone
                .iter()
                .filter(|member| was.get(**member).map(|r| r.0) != now.get(**member).map(|r| r.0))
                .count() as u64;
            let touched_rank = got.moves.iter().filter(|m| m.rank_before != m.rank_after).count() as u64;
            prop_assert_eq!(touched_rank + got.shifted, changed_rank);

            // Prizes: one change per member whose prize differs, and applying them to the prizes
            // before gives the prizes after — the table is conserved.
            let prize_of = |r: &BTreeMap<MemberId, (u64, Option<String>)>, member: &MemberId| {
                r.get(member).and_then(|r| r.1.clone())
            };
            let mut awarded: BTreeMap<MemberId, String> =
                was.iter().filter_map(|(k, v)| Some((k.clone(), v.1.clone()?))).collect();
            for p in &got.prizes {
                prop_assert_ne!(&p.before, &p.after);
                prop_assert_eq!(&p.before, &prize_of(&was, &p.member));
                prop_assert_eq!(&p.after, &prize_of(&now, &p.member));
                match &p.after {
                    Some(prize) => awarded.insert(p.member.clone(), prize.clone()),
                    None => awarded.remove(&p.member),
                };
            }
            let expected: BTreeMap<MemberId, String> =
                now.iter().filter_map(|(k, v)| Some((k.clone(), v.1.clone()?))).collect();
            prop_assert_eq!(awarded, expected);
            let listed = got.prizes.iter().map(|p| &p.member).collect::<std::collections::BTreeSet<_>>();
            prop_assert_eq!(listed.len(), got.prizes.len(), "one change per member");
        }
    }
}
