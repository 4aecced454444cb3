//! Counts (members with at least some points) and ranks of a list of members, in a scope's
//! ranking or segment: from Redis in one call each, from the standings of a period read from
//! them, or from the ledger's order where Redis cannot answer exactly (a bounded board's floor).

use super::Reads;
use super::{MAX_MEMBERS, PeriodStatus, Sourced};
use crate::EngineError;
use crate::redis::{ReadFrom, Source, Window};
use crate::scope::Scope;
use domain::MemberId;
use domain::view::{Entry, ReadSource};

impl Reads {
    /// Members with `min_points` or better (at least `min_points`, or at most on an ascending
    /// board), and where the count came from; in the scope's segment, if it names one.
    pub async fn count_at_least(&self, scope: &Scope, min_points: i64) -> Result<Sourced<u64>, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let segment = scope.segment();
        let (min, max) = board.codec.bounds();
        let status = self.status_for_reads(slug, period).await?;
        let frozen_at = self.public_frozen_in(scope, &status)?;
        if status.reads_standings(board) && segment.is_none() {
            let count = self.core.ledger.standings_at_least(slug, &period, board.sort(), min_points).await?;
            return Ok(Sourced { value: count, source: ReadSource::Standings, frozen_at: None });
        }
        // A threshold past the bounds counts everyone or nobody: clamp it to one past the worst
        // end (nobody) and the best end (everyone), within the exact range.
        let min_points = match board.sort() {
            domain::Sort::Desc => {
                min_points.clamp(min, max.saturating_add(1).min(domain::score::EXACT_LIMIT))
            }
            domain::Sort::Asc => {
                min_points.clamp(min.saturating_sub(1).max(-domain::score::EXACT_LIMIT), max)
            }
        };
        let min_score = board.codec.lowest_score_for(min_points);
        let counted = match status.reads_standings(board) {
            // A segment has no standings of its own: its members' totals, in the ledger.
            true => None,
            false => {
                let read =
                    self.core.projection.count_at_least(slug, &period, segment, ReadFrom::Replica, min_score);
                read.await.ok()
            }
        };
        match counted {
            Some((count, floor)) if floor.counts_from(min_score) => {
                Ok(Sourced { value: count, source: ReadSource::Redis, frozen_at })
            }
            // A bounded board counts down to its floor in Redis; below it, the ledger counts.
            _ => {
                let order = self.ledger_order_in(board, period, frozen_at.is_some(), segment).await?;
                Ok(Sourced { value: order.count_at_least(min_score), source: ReadSource::Ledger, frozen_at })
            }
        }
    }

    /// When the public view of the period was taken, for a public read of `scope`: the board's
    /// while it is publicly frozen. A segment has no public view: its public read is refused
    /// then (409 `segment_frozen`, as its pages are), and otherwise reads live (None).
    pub(super) fn public_frozen_in(
        &self,
        scope: &Scope,
        status: &PeriodStatus,
    ) -> Result<Option<jiff::Timestamp>, EngineError> {
        match scope.segment() {
            None => Ok(status.frozen_at),
            Some(segment) => {
                super::segments::refuse_frozen_segment(segment, status)?;
                Ok(None)
            }
        }
    }

    /// Ranks of a list of members (absent members are left out), best first; in the scope's
    /// segment, if it names one.
    pub async fn ranks_of(
        &self,
        scope: &Scope,
        members: &[MemberId],
    ) -> Result<Sourced<Vec<Entry>>, EngineError> {
        if members.is_empty() || members.len() > MAX_MEMBERS {
            return Err(EngineError::Invalid(format!("name 1 to {MAX_MEMBERS} members")));
        }
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let segment = scope.segment();
        let mut source = ReadSource::Redis;
        let status = self.status_for_reads(slug, period).await?;
        let frozen_at = self.public_frozen_in(scope, &status)?;
        let standings = status.reads_standings(board);
        let policy = board.tie_policy();
        let found = if let Some(segment) = segment.filter(|_| standings) {
            // A segment has no standings of its own: its members' totals, in the ledger.
            source = ReadSource::Ledger;
            let order = self.ledger_order_in(board, period, false, Some(segment)).await?;
            members.iter().map(|m| order.rank_of(m, policy)).collect()
        } else if standings {
            source = ReadSource::Standings;
            let mut found = Vec::with_capacity(members.len());
            for member in members {
                let window = self.read_window_raw(
                    board,
                    period,
                    Source::Live,
                    ReadFrom::Replica,
                    Window::Around { member, radius: 0 },
                    1,
                );
                found.push(match window.await {
                    Ok((page, _)) => page.entries.first().map(|e| (e.points, e.rank)),
                    Err(EngineError::NotFound { .. }) => None,
                    Err(e) => return Err(e),
                });
            }
            found
                .into_iter()
                .map(|f| f.map(|(points, rank)| (board.codec.lowest_score_for(points), rank)))
                .collect()
        } else {
            let base = board.codec.tie_base();
            let read =
                self.core.projection.ranks(slug, &period, segment, ReadFrom::Replica, base, policy, members);
            match read.await {
                // On a trimmed bounded board a member absent from the projection, or at or
                // below its floor, may rank wrongly in Redis: the ledger answers for all of them.
                Ok((found, floor))
                    if floor.0.is_none()
                        || members
                            .iter()
                            .zip(&found)
                            .all(|(m, f)| f.is_some_and(|(s, _)| floor.exact(s, m.as_str()))) =>
                {
                    found
                }
                _ => {
                    source = ReadSource::Ledger;
                    let order = self.ledger_order_in(board, period, frozen_at.is_some(), segment).await?;
                    members.iter().map(|m| order.rank_of(m, policy)).collect()
                }
            }
        };
        let present: Vec<(MemberId, i64, u64)> = members
            .iter()
            .zip(found)
            .filter_map(|(m, f)| f.map(|(score, rank)| (m.clone(), score, rank)))
            .collect();
        let ids: Vec<MemberId> = present.iter().map(|(m, _, _)| m.clone()).collect();
        let (mut names, mut avatars) = self.names_and_avatars(&ids).await?;
        let mut entries: Vec<Entry> = present
            .into_iter()
            .map(|(member, score, rank)| Entry {
                rank,
                points: board.codec.points(score),
                display_name: names.remove(&member),
                avatar_url: avatars.remove(&member),
                member,
                tied: false,
            })
            .collect();
        entries.sort_by(|a, b| a.rank.cmp(&b.rank).then_with(|| a.member.cmp(&b.member)));
        entries.dedup_by(|a, b| a.member == b.member);
        Ok(Sourced { value: entries, source, frozen_at: frozen_at.filter(|_| !standings) })
    }
}
