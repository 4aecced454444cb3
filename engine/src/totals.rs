//! The ledger's totals of a period as the projection holds them: what levelling, rebuilding,
//! snapshots and the ledger fallback compare with or copy ([`encode`], [`kept`] for a bounded
//! board). Shared by every service, so on [`Core`].

use crate::redis::{Floor, ProjectedTotal};
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

/// What a bounded board's projection holds of `totals`: the best `keep_top` ranked members in
/// the projection's order (score, then member id descending, as Redis orders them) and every
/// hidden member's version, with the floor (`bounded.lua`: the best entry left out, none when
/// none is). All of `totals` when the board is unbounded.
pub(crate) fn kept(board: &Board, totals: Vec<ProjectedTotal>) -> (Vec<ProjectedTotal>, Floor) {
    let Some(keep) = board.keep_top else { return (totals, Floor::default()) };
    let (mut ranked, hidden): (Vec<_>, Vec<_>) = totals.into_iter().partition(|t| !t.hidden);
    ranked.sort_unstable_by(|a, b| b.score.cmp(&a.score).then_with(|| b.member.cmp(&a.member)));
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    let floor = Floor(ranked.get(keep).map(|t| (t.score, t.member.to_string())));
    ranked.truncate(keep);
    ranked.extend(hidden);
    (ranked, floor)
}

/// A stored total as the projection holds it.
pub(crate) fn encode(board: &Board, t: crate::ledger::StoredTotal) -> Result<ProjectedTotal, EngineError> {
    let score = board
        .codec
        .encode(t.points, t.reach_seq)
        .map_err(|e| EngineError::Invalid(format!("stored total of {} cannot be encoded: {e}", t.member)))?;
    Ok(ProjectedTotal { member: t.member, version: t.version, score, hidden: t.hidden })
}
