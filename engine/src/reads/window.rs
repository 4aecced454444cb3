//! The read path from a ranking to a page: one window of rows read from the projection (or from
//! the settled standings of a period read from them, or the ledger's order past a bounded
//! board's kept members), then joined with names and avatars. Every page, cursor page,
//! around-me and member rank of `super` goes through [`Reads::read_window_raw`].

use super::Reads;
use super::summary;
use crate::EngineError;
use crate::redis::{RawPage, ReadFrom, Source, Window};
use domain::lifecycle::State;
use domain::view::{Entry, RankingPage, ReadSource};
use domain::{Board, MemberId, PeriodKey, ranking};

impl Reads {
    pub(super) async fn read_window(
        &self,
        board: &Board,
        period: PeriodKey,
        source: Source<'_>,
        window: Window<'_>,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        Ok(self.read_window_raw(board, period, source, ReadFrom::Replica, window, limit).await?.0)
    }

    /// Reads a window and assembles a page; also returns the last row (for cursors). The public
    /// ranking is read `from` a replica when replica reads are on; the others from the primary.
    pub(super) async fn read_window_raw(
        &self,
        board: &Board,
        period: PeriodKey,
        source: Source<'_>,
        from: ReadFrom,
        window: Window<'_>,
        limit: u64,
    ) -> Result<(RankingPage, Option<(MemberId, i64)>), EngineError> {
        let status = self.status_for_reads(&board.slug, period).await?;
        let state = status.state;
        let segment = match source {
            Source::Segment { segment, public } => {
                if public {
                    super::segments::refuse_frozen_segment(segment, &status)?;
                }
                Some(segment)
            }
            _ => None,
        };
        // Only the public reads the public view (Live is `:rank`, the view while frozen).
        let frozen_at = status.public_freeze().filter(|_| source == Source::Live);
        let (raw, from) = if let Some(segment) = segment.filter(|_| status.reads_standings(board)) {
            // A segment has no standings of its own (yet): its members' totals, in the ledger.
            let order = self.ledger_order_in(board, period, false, Some(segment)).await?;
            (order.window(window, limit), ReadSource::Ledger)
        } else if status.reads_standings(board) {
            (self.archived_window(board, period, window, limit).await?, ReadSource::Standings)
        } else {
            let tie_base = board.codec.tie_base();
            match self
                .core
                .projection
                .window(&board.slug, &period, source, from, window, limit, tie_base)
                .await
            {
                // A bounded board's projection ends at `keep_top`: a member it does not hold, or a
                // page that reaches its end, is read from the ledger (same order and ranks).
                Ok(raw) if past_kept(board, raw.as_ref()) => {
                    let order = self.ledger_order(board, period, frozen_at.is_some()).await?;
                    (order.window(window, limit), ReadSource::Ledger)
                }
                Ok(raw) => (raw, ReadSource::Redis),
                Err(error) if matches!(source, Source::Live | Source::Unfrozen | Source::Segment { .. }) => {
                    tracing::debug!(board = %board.slug, %period, %error, "ranking read from the ledger: Redis cannot be read");
                    let order = self.ledger_order_in(board, period, frozen_at.is_some(), segment).await?;
                    (order.window(window, limit), ReadSource::Ledger)
                }
                Err(error) => return Err(error.into()),
            }
        };
        let raw = raw.ok_or_else(|| match window {
            Window::Around { member, .. } => {
                EngineError::NotFound { what: crate::Missing::Member(member.clone()) }
            }
            _ => EngineError::Invalid("window not found".into()),
        })?;
        let last = raw.rows.last().cloned();
        let mut page = self.assemble(board, period, raw, from, state).await?;
        page.frozen_at = frozen_at;
        Ok((page, last))
    }

    /// The same window as [`crate::redis::Projection::window`], read from an archived period's
    /// standings: the ranks are the settled ones, the order the one the live board had. Scores
    /// are re-encoded from points and position (under `first_reached` the position orders ties,
    /// exactly as the reach sequence did).
    pub(super) async fn archived_window(
        &self,
        board: &Board,
        period: PeriodKey,
        window: Window<'_>,
        limit: u64,
    ) -> Result<Option<RawPage>, EngineError> {
        let slug = &board.slug;
        let (from, count) = match window {
            Window::Offset(offset) => (offset, limit),
            Window::Around { member, radius } => {
                let Some(at) = self.core.ledger.standing_position(slug, &period, member).await? else {
                    return Ok(None);
                };
                let from = at.saturating_sub(radius);
                (from, at - from + radius + 1)
            }
            Window::After { member, .. } => {
                match self.core.ledger.standing_position(slug, &period, member).await? {
                    Some(at) => (at + 1, limit),
                    None => {
                        return Err(EngineError::Invalid("the cursor does not belong to this period".into()));
                    }
                }
            }
        };
        let mut window =
            self.core.ledger.standings_window(slug, &period, from, count.saturating_add(1)).await?;
        // The score the projection would hold, so the page decodes as a live one (negated on an
        // ascending board).
        let score = |position: u64, points: i64| match board.tie_policy() {
            domain::TiePolicy::Shared => Ok(board.codec.lowest_score_for(points)),
            domain::TiePolicy::FirstReached => board
                .codec
                .encode(points, position as i64)
                .map_err(|e| EngineError::Invalid(format!("standing at {position} cannot be encoded: {e}"))),
        };
        let next = match window.rows.len() as u64 > count {
            true => window.rows.pop().map(|s| score(from + count, s.points)).transpose()?,
            false => None,
        };
        let ahead = match board.tie_policy() {
            domain::TiePolicy::Shared => window.rows.first().map_or(from, |s| s.rank - 1),
            domain::TiePolicy::FirstReached => from,
        };
        let rows = window
            .rows
            .into_iter()
            .enumerate()
            .map(|(i, s)| Ok((s.member, score(from + i as u64, s.points)?)))
            .collect::<Result<Vec<_>, EngineError>>()?;
        Ok(Some(RawPage { total: window.total, offset: from, ahead, rows, next, exact: true }))
    }

    pub(super) async fn assemble(
        &self,
        board: &Board,
        period: PeriodKey,
        raw: RawPage,
        source: ReadSource,
        state: State,
    ) -> Result<RankingPage, EngineError> {
        // Rank the page together with the entry after it, so a tie across the page end shows.
        let mut points: Vec<i64> = raw.rows.iter().map(|(_, s)| board.codec.points(*s)).collect();
        points.extend(raw.next.map(|s| board.codec.points(s)));
        let ranks = ranking::ranks(board.tie_policy(), raw.offset, raw.ahead, &points);
        // Only `shared` ranks tie: under `first_reached` equal points still rank one after the
        // other, though fewer members have more points than a page's first entry has ahead.
        let shared = board.tie_policy() == domain::TiePolicy::Shared;
        let tied = ranking::ties(&ranks, shared && raw.ahead < raw.offset);
        points.truncate(raw.rows.len());
        let members: Vec<_> = raw.rows.iter().map(|(m, _)| m.clone()).collect();
        let (mut names, mut avatars) = self.names_and_avatars(&members).await?;
        let entries: Vec<Entry> = members
            .into_iter()
            .zip(points)
            .zip(ranks.into_iter().zip(tied))
            .map(|((member, points), (rank, tied))| Entry {
                rank,
                display_name: names.remove(&member),
                avatar_url: avatars.remove(&member),
                member,
                points,
                tied,
            })
            .collect();
        let span = period.span(&board.zone);
        Ok(RankingPage {
            board: summary(board, jiff::Timestamp::now()),
            period,
            starts_at: span.start,
            ends_at: span.end,
            ends_local: domain::local::in_zone(
                span.end,
                &board.zone,
                domain::local::Clock::Minute,
                domain::locale::Locale::En,
            ),
            total: raw.total,
            offset: raw.offset,
            entries,
            has_more: raw.next.is_some(),
            source,
            state,
            frozen_at: None,
        })
    }
}

/// Whether a page read from a bounded board's projection needs the ledger: the member asked
/// about is not held (None), or the page is not exact (`RawPage::exact`: a trimmed member may
/// rank within it or right after it).
fn past_kept(board: &Board, raw: Option<&RawPage>) -> bool {
    board.keep_top.is_some() && raw.is_none_or(|raw| !raw.exact)
}
