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

mod rankings;

pub use rankings::{SeasonChange, SegmentChange, segment_changes};

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
mod tests;
