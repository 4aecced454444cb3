//! The ledger's totals of a period as the projection holds them: what levelling, rebuilding,
//! snapshots and the ledger fallback compare with or copy. Shared by every service, so on [`Core`].

use crate::reconciler::encode;
use crate::redis::ProjectedTotal;
use crate::{Core, EngineError};
use domain::segment::Segment;
use domain::{Board, MemberId, PeriodKey};

impl Core {
    /// A period's totals (hidden members' versions included).
    pub(crate) async fn projected_totals(
        &self,
        board: &Board,
        period: &PeriodKey,
    ) -> Result<Vec<ProjectedTotal>, EngineError> {
        self.ledger.totals(&board.slug, period).await?.into_iter().map(|t| encode(board, t)).collect()
    }

    /// The public standings of a publicly frozen period as the projection holds them.
    pub(crate) async fn public_totals(
        &self,
        board: &Board,
        period: &PeriodKey,
    ) -> Result<Vec<ProjectedTotal>, EngineError> {
        Ok(self
            .public_rows(board, period)
            .await?
            .into_iter()
            .map(|(member, score)| ProjectedTotal { member, version: 0, score, hidden: false })
            .collect())
    }

    /// The public standings as (member, score) pairs.
    pub(crate) async fn public_rows(
        &self,
        board: &Board,
        period: &PeriodKey,
    ) -> Result<Vec<(MemberId, i64)>, EngineError> {
        self.ledger
            .public_standings(&board.slug, period)
            .await?
            .into_iter()
            .map(|(member, points, seq)| {
                let score = board.codec.encode(points, seq).map_err(|e| {
                    EngineError::Invalid(format!("public standing of {member} cannot be encoded: {e}"))
                })?;
                Ok((member, score))
            })
            .collect()
    }

    /// A segment's totals as the projection holds them (hidden members' versions included).
    pub(crate) async fn segment_totals(
        &self,
        board: &Board,
        period: &PeriodKey,
        segment: &Segment,
    ) -> Result<Vec<ProjectedTotal>, EngineError> {
        let stored =
            self.ledger.segment_totals(&board.slug, period, &segment.dimension, &segment.value).await?;
        stored.into_iter().map(|t| encode(board, t)).collect()
    }
}
