//! What a read or a write is about: one period of one board, resolved once at the edge (the
//! REST extractor, the server functions' helper) and taken by the use cases instead of a slug
//! and a period named in words. A scope exists only for a board that exists and a period its
//! cadence can have: an impossible slug or period is a resource that does not exist.
//!
//! Every use case of a period takes one — reads, lifecycle, previews, moderation, rewards,
//! rebuild, export. `Reads::scope` resolves words (`current` is the period containing now) and
//! `Reads::scope_of` a key already parsed; the REST extractor `PeriodScope`
//! (`server/src/rest/params.rs`) and the server functions' `scope` helper (`app/src/api/mod.rs`)
//! call them once per request, after the caller's check.

use crate::EngineError;
use domain::segment::Segment;
use domain::{Board, BoardSlug, PeriodKey};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Scope {
    board: Arc<Board>,
    period: PeriodKey,
    /// A read of one segment value's ranking instead of the board's (`?segment=province:zj`).
    segment: Option<Segment>,
}

impl Scope {
    /// A scope of a board and a period its cadence has (checked by the caller: `Reads::scope`).
    pub(crate) fn new(board: Arc<Board>, period: PeriodKey) -> Self {
        Self { board, period, segment: None }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn slug(&self) -> &BoardSlug {
        &self.board.slug
    }

    pub fn period(&self) -> PeriodKey {
        self.period
    }

    /// The same board's `period`.
    pub fn with_period(&self, period: PeriodKey) -> Self {
        Self { board: Arc::clone(&self.board), period, segment: self.segment.clone() }
    }

    /// The segment value whose ranking a read is about (None: the board's).
    pub fn segment(&self) -> Option<&Segment> {
        self.segment.as_ref()
    }

    /// The same period, read in the segment a caller named (`dim:value`; None: the board's). A
    /// dimension the board does not declare, or a malformed value, is 422 `invalid`.
    pub fn in_segment(self, named: Option<&str>) -> Result<Self, EngineError> {
        let Some(text) = named else { return Ok(self) };
        let segment = Segment::parse(&self.board.segments, text).map_err(EngineError::Invalid)?;
        Ok(Self { segment: Some(segment), ..self })
    }
}
