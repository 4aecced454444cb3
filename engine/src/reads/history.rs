//! A contestant's history and a period's shape, for the member and board pages' charts. Every
//! number comes from a public read, so a public freeze shows here exactly as it shows on the
//! ranking: the points chart replays the entries the public member events read lists (the same
//! watermark), targets and the distribution read the public ranking (`:rank`, or the settled
//! standings of an archived period), and hidden members are absent as everywhere else.
//!
//! - **A member's points** (`member_history`): the entries the public events read lists — the
//!   same watermark, read in one statement — replayed in the order they happened, a revocation
//!   taking its entry out from then on. The time axis is the whole period, never the time of the
//!   read, so the same entries make the same page.
//! - **"N points to rank R"** (open periods only): the member at position rank − 2 of the public
//!   ranking, and at the lowest prized rank − 1 from outside the prizes; the gap under `shared`,
//!   one more under `first_reached`.
//! - **The member's last periods**: its rank in each of the board's last [`HISTORY_PERIODS`],
//!   settled and archived ones from the latest standings, open and frozen ones from the public
//!   ranking.
//! - **A period's distribution** (`distribution`): about [`MAX_BINS`] round-numbered bins, "me"
//!   from the public ranking, the prize winners once settled; **past results**
//!   (`period_results`): each past period's winners or leaders.
//!
//! The charts that draw these are `app/src/components/charts/` (server-rendered SVG).
//!
//! Costs. The distribution is two one-row window reads (the highest and lowest points) and at
//! most [`MAX_BINS`] + 2 `ZCOUNT`s (`O(log n)` each) on the period's ranking, whatever the number
//! of members, in two round trips (`counts_at_least`: one, then the rest at once); an archived
//! period counts in its standing blocks instead. A member's history reads at most
//! [`TIMELINE_ENTRIES`] entries, two one-row pages for the targets and one standing per period of
//! the last [`HISTORY_PERIODS`].

use super::Reads;
use crate::EngineError;
use crate::ledger::{TimelineEntry, Viewer};
use crate::scope::Scope;
use domain::board::Prize;
use domain::lifecycle::State;
use domain::view::{
    Distribution, Entry, MemberHistory, PeriodResult, PeriodStanding, PointStep, PointsBin, PrizeWinner,
    RankTarget,
};
use domain::write::{Counted, replay};
use domain::{Board, BoardSlug, MemberId, PeriodKey, Sort, TiePolicy};
use std::collections::HashSet;

/// The most entries the points chart replays (the oldest ones; the page says when there are more).
pub const TIMELINE_ENTRIES: u64 = 2000;
/// How many of a board's periods the histories cover, newest first.
pub const HISTORY_PERIODS: usize = 12;
/// About how many bars a distribution has (at most two more, see [`bin_edges`]).
pub const MAX_BINS: u32 = 10;
/// The most leaders a period result names (ties at rank 1 beyond that are counted, not named).
const LEADERS: u64 = 5;

impl Reads {
    /// A member's points through a period, what the next ranks take and their standing in the
    /// board's last periods. A hidden member is `NotFound`, as on the member page.
    pub async fn member_history(
        &self,
        scope: &Scope,
        member: &MemberId,
    ) -> Result<MemberHistory, EngineError> {
        let (slug, board, key) = (scope.slug(), scope.board(), scope.period());
        self.refuse_hidden(slug, &key, member).await?;
        let mut entries = self
            .core
            .ledger
            .member_timeline(slug, &key, member, TIMELINE_ENTRIES + 1, Viewer::Public)
            .await?;
        let truncated = entries.len() as u64 > TIMELINE_ENTRIES;
        entries.truncate(TIMELINE_ENTRIES as usize);
        let standing = self.public_standing(slug, key, member).await?;
        let open = self.state_for_reads(slug, key).await? == State::Open;
        let (next_rank, prize) = match &standing {
            Some(s) if open => self.targets(scope, s).await?,
            _ => (None, None),
        };
        let span = key.span(&board.zone);
        Ok(MemberHistory {
            period: key,
            from: span.start,
            until: span.end,
            tie_policy: board.tie_policy(),
            steps: steps(&entries, board.sort()),
            truncated,
            standing,
            next_rank,
            prize,
            periods: self.member_periods(board, member).await?,
        })
    }

    /// The distribution of points in a period (about [`MAX_BINS`] bars of equal width on round
    /// numbers), "me" in it, the board's prizes and, once settled, the prized standings.
    pub async fn distribution(
        &self,
        scope: &Scope,
        me: Option<&MemberId>,
    ) -> Result<Distribution, EngineError> {
        let (slug, board, key) = (scope.slug(), scope.board(), scope.period());
        let state = self.state_for_reads(slug, key).await?;
        let top = self.ranking_page(scope, 0, 1).await?;
        let members = top.total;
        let mut bins = Vec::new();
        if let Some(best) = top.entries.first().map(|e| e.points) {
            let bottom = self.ranking_page(scope, members.saturating_sub(1), 1).await?;
            let worst = bottom.entries.first().map_or(best, |e| e.points);
            let (low, high) = (best.min(worst), best.max(worst));
            let edges = bin_edges(low, high, MAX_BINS);
            // `count_at_least` counts the members with an edge's points or better: from the top
            // of a descending board, from the bottom of an ascending one.
            let thresholds: Vec<i64> = match board.sort() {
                // The last edge is above the highest points: nobody has as many.
                Sort::Desc => edges[..edges.len() - 1].to_vec(),
                // Members below an edge: those with at most one point less. The first edge is at
                // or below the lowest points: nobody is below it.
                Sort::Asc => edges[1..].iter().map(|edge| edge.saturating_sub(1)).collect(),
            };
            let mut counted = self.counts_at_least(scope, &thresholds).await?;
            match board.sort() {
                Sort::Desc => counted.push(0),
                Sort::Asc => counted.insert(0, 0),
            }
            bins = edges
                .windows(2)
                .zip(counted.windows(2))
                .map(|(e, n)| {
                    let members = match board.sort() {
                        Sort::Desc => n[0].saturating_sub(n[1]),
                        Sort::Asc => n[1].saturating_sub(n[0]),
                    };
                    PointsBin { from: e[0], to: e[1], members }
                })
                .collect();
        }
        let me = match me {
            Some(member) => self.public_standing(slug, key, member).await?,
            None => None,
        };
        let winners = match state {
            State::Settled | State::Archived => {
                let lowest = lowest_prized(&board.prizes).unwrap_or(0).min(100);
                let window = self.core.ledger.standings_window(slug, &key, 0, lowest + 20).await?;
                let won: Vec<_> = window.rows.into_iter().filter(|s| s.prize.is_some()).collect();
                let ids: Vec<MemberId> = won.iter().map(|s| s.member.clone()).collect();
                let mut names = self.display_names(&ids).await?;
                won.into_iter()
                    .filter_map(|s| {
                        let standing = Entry {
                            rank: s.rank,
                            points: s.points,
                            display_name: names.remove(&s.member),
                            avatar_url: None,
                            member: s.member,
                            tied: false,
                        };
                        s.prize.map(|prize| PrizeWinner { standing, prize })
                    })
                    .collect()
            }
            State::Open | State::Frozen => Vec::new(),
        };
        Ok(Distribution { period: key, state, members, bins, me, prizes: board.prizes.clone(), winners })
    }

    /// [`Reads::count_at_least`] of each threshold, in one Redis round trip rather than one
    /// each: the first alone (it may leave what the others need cached: the period's state, the
    /// ledger's order while Redis is away), then the rest together, whose scripts go out at once
    /// on the one multiplexed connection.
    async fn counts_at_least(&self, scope: &Scope, thresholds: &[i64]) -> Result<Vec<u64>, EngineError> {
        let Some((first, rest)) = thresholds.split_first() else { return Ok(Vec::new()) };
        let mut counted = vec![self.count_at_least(scope, *first).await?.value];
        let mut reads: Vec<_> = rest.iter().map(|t| Some(Box::pin(self.count_at_least(scope, *t)))).collect();
        let mut values = vec![0; rest.len()];
        std::future::poll_fn(|cx| {
            let mut waiting = false;
            for (read, value) in reads.iter_mut().zip(values.iter_mut()) {
                let Some(pending) = read else { continue };
                match pending.as_mut().poll(cx) {
                    std::task::Poll::Ready(done) => {
                        *value = done?.value;
                        *read = None;
                    }
                    std::task::Poll::Pending => waiting = true,
                }
            }
            if waiting { std::task::Poll::Pending } else { std::task::Poll::Ready(Ok::<_, EngineError>(())) }
        })
        .await?;
        counted.extend(values);
        Ok(counted)
    }

    /// The board's last [`HISTORY_PERIODS`] periods, newest first, each with its state and its
    /// rank-1 members: the winners of the latest settlement once settled, else the leaders of the
    /// public ranking.
    pub async fn period_results(&self, slug: &BoardSlug) -> Result<Vec<PeriodResult>, EngineError> {
        let mut out = Vec::new();
        for info in self.periods(slug).await?.into_iter().take(HISTORY_PERIODS) {
            let (members, leaders) = match info.state {
                State::Settled | State::Archived => {
                    let window = self.core.ledger.standings_window(slug, &info.period, 0, LEADERS).await?;
                    let first: Vec<_> = window.rows.into_iter().filter(|s| s.rank == 1).collect();
                    let ids: Vec<MemberId> = first.iter().map(|s| s.member.clone()).collect();
                    let mut names = self.display_names(&ids).await?;
                    let tied = first.len() > 1;
                    let leaders = first
                        .into_iter()
                        .map(|s| Entry {
                            rank: s.rank,
                            points: s.points,
                            display_name: names.remove(&s.member),
                            avatar_url: None,
                            member: s.member,
                            tied,
                        })
                        .collect();
                    (window.total, leaders)
                }
                _ => {
                    let page =
                        self.ranking_page(&self.scope_of(slug, info.period).await?, 0, LEADERS).await?;
                    (page.total, page.entries.into_iter().filter(|e| e.rank == 1).collect())
                }
            };
            out.push(PeriodResult { period: info.period, state: info.state, members, leaders });
        }
        Ok(out)
    }

    /// A member's rank and points in each of the board's last periods: from the latest
    /// settlement's standings once settled, from the public ranking before.
    async fn member_periods(
        &self,
        board: &Board,
        member: &MemberId,
    ) -> Result<Vec<PeriodStanding>, EngineError> {
        let slug = &board.slug;
        let mut out = Vec::new();
        for info in self.periods(slug).await?.into_iter().take(HISTORY_PERIODS) {
            let key = info.period;
            let (members, standing) = match info.state {
                State::Settled | State::Archived => {
                    match self.core.ledger.standing_position(slug, &key, member).await? {
                        Some(at) => {
                            let window = self.core.ledger.standings_window(slug, &key, at, 1).await?;
                            let row = window.rows.into_iter().next().filter(|s| &s.member == member);
                            (window.total, row.map(|s| (s.rank, s.points)))
                        }
                        None => (self.core.ledger.standings_window(slug, &key, 0, 0).await?.total, None),
                    }
                }
                _ => match self.public_standing_page(slug, key, member).await? {
                    Some((total, e)) => (total, Some((e.rank, e.points))),
                    None => (self.ranking_page(&self.scope_of(slug, key).await?, 0, 1).await?.total, None),
                },
            };
            out.push(PeriodStanding {
                period: key,
                state: info.state,
                rank: standing.map(|s| s.0),
                points: standing.map(|s| s.1),
                members,
            });
        }
        Ok(out)
    }

    /// "N points to rank R": the member just above (the next better rank), and the lowest prized
    /// rank when the member is outside the prizes, both read from the public ranking by position
    /// (`rank − 1` members rank strictly better under either tie policy).
    async fn targets(
        &self,
        scope: &Scope,
        me: &Entry,
    ) -> Result<(Option<RankTarget>, Option<RankTarget>), EngineError> {
        let board = scope.board();
        let target = async |position: u64| -> Result<Option<RankTarget>, EngineError> {
            let page = self.ranking_page(scope, position, 1).await?;
            Ok(page.entries.into_iter().next().map(|ahead| RankTarget {
                rank: ahead.rank,
                points: points_to_reach(board.sort(), board.tie_policy(), me.points, ahead.points),
                prize: prize_of(&board.prizes, ahead.rank),
            }))
        };
        let next = match me.rank {
            0 | 1 => None,
            rank => target(rank - 2).await?,
        };
        let prize = match lowest_prized(&board.prizes) {
            Some(lowest) if me.rank > lowest => target(lowest - 1).await?,
            _ => None,
        };
        Ok((next, prize))
    }

    async fn public_standing(
        &self,
        slug: &BoardSlug,
        period: PeriodKey,
        member: &MemberId,
    ) -> Result<Option<Entry>, EngineError> {
        Ok(self.public_standing_page(slug, period, member).await?.map(|(_, e)| e))
    }

    /// A member's public standing and the number of ranked members (None: not ranked).
    async fn public_standing_page(
        &self,
        slug: &BoardSlug,
        period: PeriodKey,
        member: &MemberId,
    ) -> Result<Option<(u64, Entry)>, EngineError> {
        match self.around(&self.scope_of(slug, period).await?, member, 0).await {
            Ok(page) => Ok(page.entries.into_iter().next().map(|e| (page.total, e))),
            Err(EngineError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// The points a member with `mine` needs to gain (or, on an ascending board, to shed) to reach
/// the rank of a member with `theirs` (better): under `shared` equalling them shares their rank;
/// under `first_reached` they reached it first, so it takes one more. At least 1 (the two reads
/// are not one snapshot).
pub fn points_to_reach(sort: Sort, policy: TiePolicy, mine: i64, theirs: i64) -> i64 {
    let gap = match sort {
        Sort::Desc => theirs.saturating_sub(mine),
        Sort::Asc => mine.saturating_sub(theirs),
    };
    match policy {
        TiePolicy::Shared => gap,
        TiePolicy::FirstReached => gap.saturating_add(1),
    }
    .max(1)
}

/// The lowest rank a prize goes to.
pub fn lowest_prized(prizes: &[Prize]) -> Option<u64> {
    prizes.iter().map(|p| p.to_rank).max().filter(|r| *r > 0)
}

fn prize_of(prizes: &[Prize], rank: u64) -> Option<String> {
    prizes.iter().find(|p| (p.from_rank..=p.to_rank).contains(&rank)).map(|p| p.prize.clone())
}

/// Bin edges on round numbers: a step of 1, 2 or 5 × 10ᵏ that makes at most `bins` + 1 bins (one
/// more when `low` is not on a step), the first edge at or below `low`, the last above `high`.
pub fn bin_edges(low: i64, high: i64, bins: u32) -> Vec<i64> {
    let span = high.saturating_sub(low).saturating_add(1).max(1);
    let bins = i64::from(bins.max(1));
    let raw = (span / bins + i64::from(span % bins != 0)).max(1);
    let mut power = 1i64;
    let step = loop {
        if let Some(s) = [1, 2, 5].into_iter().map(|m| m * power).find(|s| *s >= raw) {
            break s;
        }
        match power.checked_mul(10) {
            Some(p) => power = p,
            None => break raw,
        }
    };
    let first = low.div_euclid(step) * step;
    let mut edges = vec![first];
    while let Some(&last) = edges.last()
        && last <= high
    {
        match last.checked_add(step) {
            Some(next) => edges.push(next),
            None => break,
        }
    }
    edges
}

/// The chart's steps, by when each entry happened (ties in ledger order): after each, the total
/// replayed from the entries that count at that moment — a revocation takes its entry out from
/// then on. The order does not change the last total: sums, the highest submission and the
/// highest total version are the same in any order.
pub(crate) fn steps(entries: &[TimelineEntry], sort: Sort) -> Vec<PointStep> {
    let revoked: HashSet<i64> = entries.iter().filter_map(|e| e.revokes).collect();
    let mut in_time: Vec<&TimelineEntry> = entries.iter().collect();
    in_time.sort_by_key(|e| (e.occurred_at, e.id));
    let mut counting: Vec<(i64, Counted)> = Vec::new();
    // Revoked before they happened (an entry may be dated a few minutes ahead): never count.
    let mut gone: HashSet<i64> = HashSet::new();
    let mut points = 0;
    in_time
        .into_iter()
        .map(|e| {
            match (e.counted, e.revokes) {
                (Some(c), _) if !gone.contains(&e.id) => counting.push((e.id, c)),
                (None, Some(target)) => {
                    counting.retain(|(id, _)| *id != target);
                    gone.insert(target);
                }
                _ => {}
            }
            let counted: Vec<Counted> = counting.iter().map(|(_, c)| *c).collect();
            // A total past the bounds cannot be stored, so replay fails only on a corrupt row: keep
            // the last total rather than fail the page.
            points = replay(&counted, sort).map_or(points, |r| r.points);
            PointStep {
                entry: e.id,
                kind: e.kind.clone(),
                at: e.occurred_at,
                points,
                revoked: revoked.contains(&e.id),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_follow_the_tie_policy() {
        assert_eq!(points_to_reach(Sort::Desc, TiePolicy::Shared, 10, 25), 15);
        assert_eq!(points_to_reach(Sort::Desc, TiePolicy::FirstReached, 10, 25), 16);
        assert_eq!(points_to_reach(Sort::Desc, TiePolicy::Shared, 30, 25), 1);
        // Ascending: 25 is ahead of 30, so 30 must shed 5.
        assert_eq!(points_to_reach(Sort::Asc, TiePolicy::Shared, 30, 25), 5);
        assert_eq!(points_to_reach(Sort::Asc, TiePolicy::FirstReached, 30, 25), 6);
    }

    #[test]
    fn steps_follow_the_time_entries_happened_and_revocations_take_them_out() {
        use domain::write::Effect;
        let at = |s: i64| jiff::Timestamp::from_second(1_800_000_000 + s).unwrap();
        let entry = |id, kind: &str, second, effect: Option<Effect>, revokes| TimelineEntry {
            id,
            kind: kind.into(),
            occurred_at: at(second),
            counted: effect.map(|effect| Counted { effect, reach_seq: None }),
            revokes,
        };
        let entries = [
            entry(1, "point", 20, Some(Effect::Add(5)), None),
            entry(2, "point", 10, Some(Effect::Add(3)), None),
            entry(3, "revocation", 30, None, Some(1)),
            entry(4, "submission", 40, Some(Effect::Submission(2)), None),
            // Dated before the revocation that comes first in time: never counts.
            entry(6, "revocation", 45, None, Some(5)),
            entry(5, "point", 50, Some(Effect::Add(100)), None),
        ];
        let got: Vec<(i64, i64, bool)> =
            steps(&entries, Sort::Desc).iter().map(|s| (s.entry, s.points, s.revoked)).collect();
        assert_eq!(
            got,
            [(2, 3, false), (1, 8, true), (3, 3, false), (4, 3, false), (6, 3, false), (5, 3, true)]
        );
    }

    #[test]
    fn bins_cover_the_points_on_round_numbers() {
        assert_eq!(bin_edges(5, 50, 10), vec![5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]);
        assert_eq!(bin_edges(7, 7, 10), vec![7, 8]);
        assert_eq!(bin_edges(-3, 12, 4), vec![-5, 0, 5, 10, 15]);
        let wide = bin_edges(-1_000_000, 1_000_000, 10);
        assert!(wide.len() <= 12 && wide[0] <= -1_000_000 && *wide.last().unwrap() > 1_000_000, "{wide:?}");
    }
}
