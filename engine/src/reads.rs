//! Reads: ranking pages from the projection, with display names joined from the ledger in one
//! batch per page (profiles never live in the ranking itself).

use crate::{Engine, EngineError};
use domain::view::{BoardSummary, Entry, RankingPage};
use domain::{Board, BoardSlug, PeriodKey, ranking};

/// The most entries one page may hold.
pub const MAX_PAGE: u64 = 200;

impl Engine {
    pub async fn board(&self, slug: &BoardSlug) -> Result<Board, EngineError> {
        self.ledger.board(slug).await?.ok_or_else(|| EngineError::NotFound { what: format!("board {slug}") })
    }

    /// All boards, each with its current period.
    pub async fn boards(&self) -> Result<Vec<BoardSummary>, EngineError> {
        let now = jiff::Timestamp::now();
        Ok(self.ledger.boards().await?.iter().map(|b| summary(b, now)).collect())
    }

    /// A live page of a period (the current one when `period` is None). Live pages may shift
    /// while a reader pages through them.
    pub async fn ranking_page(
        &self,
        slug: &BoardSlug,
        period: Option<&str>,
        offset: u64,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        if limit == 0 || limit > MAX_PAGE {
            return Err(EngineError::Invalid(format!("limit must be between 1 and {MAX_PAGE}")));
        }
        let board = self.board(slug).await?;
        let now = jiff::Timestamp::now();
        let period = match period {
            None | Some("current") => board.period_at(now),
            Some(p) => {
                PeriodKey::parse_for(board.cadence, p).map_err(|e| EngineError::Invalid(e.to_string()))?
            }
        };
        let raw = self.projection.page(&board.slug, &period, offset, limit, board.codec.tie_base()).await?;
        // Rank the page together with the entry after it, so a tie across the page end shows.
        let mut points: Vec<i64> = raw.rows.iter().map(|(_, s)| board.codec.points(*s)).collect();
        points.extend(raw.next.map(|s| board.codec.points(s)));
        let ranks = ranking::ranks(board.tie_policy(), offset, raw.ahead, &points);
        let tied = ranking::ties(&ranks, raw.ahead < offset);
        points.truncate(raw.rows.len());
        let members: Vec<_> = raw.rows.iter().map(|(m, _)| m.clone()).collect();
        let mut names = self.ledger.display_names(&members).await?;
        let entries: Vec<Entry> = members
            .into_iter()
            .zip(points)
            .zip(ranks.into_iter().zip(tied))
            .map(|((member, points), (rank, tied))| Entry {
                rank,
                display_name: names.remove(&member),
                member,
                points,
                tied,
            })
            .collect();
        let span = period.span(&board.zone);
        Ok(RankingPage {
            board: summary(&board, now),
            period,
            starts_at: span.start,
            ends_at: span.end,
            total: raw.total,
            offset,
            entries,
            has_more: raw.next.is_some(),
        })
    }
}

impl Engine {
    /// A period named by a reader: `current` (or none) is the period containing now.
    pub fn period_of(&self, board: &Board, period: Option<&str>) -> Result<PeriodKey, EngineError> {
        match period {
            None | Some("current") => Ok(board.period_at(jiff::Timestamp::now())),
            Some(p) => {
                PeriodKey::parse_for(board.cadence, p).map_err(|e| EngineError::Invalid(e.to_string()))
            }
        }
    }
}

pub(crate) fn summary(board: &Board, now: jiff::Timestamp) -> BoardSummary {
    BoardSummary {
        slug: board.slug.clone(),
        title: board.title.clone(),
        cadence: board.cadence,
        time_zone: board.time_zone().to_owned(),
        operator: board.operator,
        tie_policy: board.tie_policy(),
        current_period: board.period_at(now),
    }
}
