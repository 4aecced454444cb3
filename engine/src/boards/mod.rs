//! Board use cases: creation (with every check that keeps scores exact) and board details.

pub mod attention;

use crate::reads::Reads;
use crate::seasons::Seasons;
use crate::{Core, EngineError, Missing};
use domain::board::BoardSettings;
use domain::view::BoardSummary;
use domain::{Board, BoardSlug};
use serde::Serialize;
use std::sync::Arc;

/// A board with the state of its current period, as the API returns it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = Board))]
pub struct BoardDetails {
    #[serde(flatten)]
    pub summary: BoardSummary,
    pub min_points: i64,
    pub max_points: i64,
    /// B of the `first_reached` codec (1 under `shared`).
    pub tie_base: i64,
    pub freeze_grace_seconds: i64,
    /// The last this many seconds of each period are publicly frozen (contest mode; 0: never).
    pub public_freeze_seconds: i64,
    pub prizes: Vec<domain::board::Prize>,
    /// The current period's lifecycle state.
    #[cfg_attr(feature = "openapi", schema(schema_with = domain::view::period_state))]
    pub state: domain::lifecycle::State,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub starts_at: jiff::Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub ends_at: jiff::Timestamp,
    /// A bounded board: the live ranking keeps only the best this many members; the others are
    /// read from the ledger (`source: ledger`). Absent: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_top: Option<u64>,
    /// Days a settled period's Redis keys live after its settlement; its reads then come from
    /// its standings.
    pub ranking_ttl_days: i64,
    /// The board's segment dimensions (each value ranks its members on a ranking of its own);
    /// absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<String>,
    /// Each segment dimension's prize table, by dimension; absent when none.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, Vec<domain::board::Prize>>))]
    pub segment_prizes: domain::board::SegmentPrizes,
    /// A season board's definition: its `source` board, the source's `periods` it is made of,
    /// and its `rule`; absent on other boards.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub season: Option<domain::season::Season>,
}

/// The boards service: creates and edits boards and season boards, answers their details, and
/// the console's overview of what needs an admin (`attention.rs`). It keeps no state of its own;
/// an edit drops the reads' copy of the board. Cheap to clone.
#[derive(Clone)]
pub struct Boards {
    core: Core,
    reads: Reads,
    seasons: Arc<Seasons>,
}

impl Boards {
    pub(crate) fn new(core: Core, reads: Reads, seasons: Arc<Seasons>) -> Self {
        Self { core, reads, seasons }
    }

    /// Every board definition, periodic and hot, by slug; a definition that cannot be read is
    /// left out and reported.
    pub async fn every_board(&self) -> Result<(Vec<Board>, Vec<domain::hot::HotBoard>), EngineError> {
        let boards = self.core.readable("boards", self.core.ledger.boards().await?);
        let hot = self.core.readable("boards", self.core.ledger.hot_boards().await?);
        Ok((boards, hot))
    }

    /// Stores a new board; `board_exists` when the slug is taken.
    pub async fn create_board(&self, board: &Board) -> Result<BoardDetails, EngineError> {
        domain::board::check_prizes(&board.prizes).map_err(EngineError::Invalid)?;
        if !self.core.ledger.create_board(board, jiff::Timestamp::now()).await? {
            return Err(EngineError::BoardExists(board.slug.to_string()));
        }
        self.board_details(board).await
    }

    /// Changes a board's title, freeze grace, scheduled public freeze and prize table (audited as
    /// `board_edit`). A period settled before keeps the prizes it was settled with; one settled
    /// later uses the new table.
    /// Other processes see the change within [`crate::reads::BOARD_CACHE_TTL`]; a settlement
    /// always reads the board from the ledger.
    pub async fn edit_board(
        &self,
        slug: &BoardSlug,
        settings: &BoardSettings,
        actor: &str,
    ) -> Result<BoardDetails, EngineError> {
        let board = self
            .core
            .ledger
            .edit_board(slug, settings, actor, jiff::Timestamp::now())
            .await?
            .ok_or_else(|| EngineError::NotFound { what: Missing::Board(slug.clone()) })?;
        self.reads.forget_board(slug);
        self.board_details(&board).await
    }

    pub async fn board_details(&self, board: &Board) -> Result<BoardDetails, EngineError> {
        let now = jiff::Timestamp::now();
        let period = board.period_at(now);
        let span = period.span(&board.zone);
        let (min_points, max_points) = board.codec.bounds();
        Ok(BoardDetails {
            summary: crate::reads::summary(board, now),
            min_points,
            max_points,
            tie_base: board.codec.tie_base(),
            freeze_grace_seconds: board.freeze_grace_seconds,
            public_freeze_seconds: board.public_freeze_seconds,
            prizes: board.prizes.clone(),
            state: self.core.ledger.state_of(&board.slug, &period).await?,
            starts_at: span.start,
            ends_at: span.end,
            keep_top: board.keep_top,
            ranking_ttl_days: board.ranking_ttl_days,
            segments: board.segments.clone(),
            segment_prizes: board.segment_prizes.clone(),
            season: board.season.clone(),
        })
    }

    /// Creates a season board from its draft and computes its totals from the source's periods
    /// at once (`crate::seasons`). The source must be a periodic board that exists, and a season
    /// carried over from must exist (else 422).
    pub async fn create_season(
        &self,
        draft: domain::board::SeasonDraft,
        actor: &str,
    ) -> Result<BoardDetails, EngineError> {
        let invalid =
            |e: domain::board::DraftError| EngineError::Invalid(format!("{}: {}", e.field, e.message));
        let source_slug = draft.source().map_err(invalid)?;
        let source = self.core.ledger.board(&source_slug).await?.ok_or_else(|| {
            EngineError::Invalid(format!("source: no periodic board is named {source_slug}"))
        })?;
        let previous =
            match draft.carried_from().map_err(invalid)? {
                Some(slug) => {
                    Some(self.core.ledger.board(&slug).await?.ok_or_else(|| {
                        EngineError::Invalid(format!("carry_over: no season is named {slug}"))
                    })?)
                }
                None => None,
            };
        let season = draft.parse_carrying(&source, previous.as_ref()).map_err(invalid)?;
        self.create_season_board(&season, actor).await
    }

    /// Stores a season board already checked against its source (`SeasonDraft::parse_carrying`)
    /// and computes its totals at once. A season that carries over opens, in the same
    /// transaction, with the openings of the earlier season's final standings, which must be
    /// settled (else `invalid_transition`).
    pub async fn create_season_board(
        &self,
        season: &Board,
        actor: &str,
    ) -> Result<BoardDetails, EngineError> {
        let Some(definition) = &season.season else {
            return Err(EngineError::Invalid(format!("{} is not a season", season.slug)));
        };
        domain::board::check_prizes(&season.prizes).map_err(EngineError::Invalid)?;
        let mut season = season.clone();
        let openings = match &definition.carry_over {
            Some(carry) => {
                let (revision, openings) = self.openings_from(carry).await?;
                let carry = season.season.as_mut().and_then(|s| s.carry_over.as_mut()).expect("carries over");
                (carry.revision, carry.members) = (revision, openings.len() as u64);
                openings
            }
            None => Vec::new(),
        };
        let opened = !openings.is_empty();
        if !self.core.ledger.create_season(&season, openings, actor, jiff::Timestamp::now()).await? {
            return Err(EngineError::BoardExists(season.slug.to_string()));
        }
        if opened {
            // The openings are totals already: the check below finds the season level.
            let key = season.season.as_ref().map(domain::season::Season::key).expect("a season");
            let totals = self.core.ledger.totals(&season.slug, &key).await?;
            self.seasons.project_season(&season, &key, totals).await;
        }
        self.seasons.forget();
        self.seasons.check().await?;
        self.board_details(&season).await
    }

    /// What each member carries over from an earlier season's latest settlement, best first,
    /// with that settlement's revision.
    async fn openings_from(
        &self,
        carry: &domain::season::CarryOver,
    ) -> Result<(i64, Vec<(domain::MemberId, i64)>), EngineError> {
        let from = self.reads.board(&carry.from).await?;
        let Some(key) = from.season.as_ref().map(domain::season::Season::key) else {
            return Err(EngineError::Invalid(format!("carry_over: {} is not a season", carry.from)));
        };
        let unsettled = || EngineError::Refused {
            code: domain::ErrorCode::InvalidTransition,
            detail: format!(
                "carry_over: settle {} first: its final standings are what carries over",
                carry.from
            ),
        };
        let header = self.core.ledger.settlement(&from.slug, &key, 0, 0).await?.ok_or_else(unsettled)?;
        let standings =
            self.core.ledger.standings(&from.slug, &key, header.revision, 0, header.members).await?;
        let openings =
            standings.into_iter().filter_map(|s| Some((s.member, carry.opening(s.points)?))).collect();
        Ok((header.revision, openings))
    }
}
