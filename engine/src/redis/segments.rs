//! Segment rankings (`crate::segments`): one per segment value of a period, under a hash tag of
//! its own (`keys.rs`, [`KeySpace::segment`](super::keys::KeySpace::segment)), written, levelled,
//! rebuilt and removed by the very scripts and calls of a period's ranking — each call on one
//! segment's keys, so on one slot: a member's write is projected into its segments by separate
//! calls after the board's, never by a script across slots. Reads name a segment as their
//! [`Source`](super::Source).

use super::level::Rebuild;
use super::{ProjectedTotal, Projection};
use ::redis::RedisResult;
use domain::segment::Segment;
use domain::{BoardSlug, PeriodKey};
use std::time::Duration;

impl Projection {
    /// The write path's projection of totals into one segment's ranking (`level.lua`, the
    /// version guard), grouped with the other requests' waiting for that segment as the board's
    /// are ([`Projection::project_grouped`]); skipped while projections are paused, like the
    /// board's.
    pub async fn project_segment(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: &Segment,
        totals: Vec<ProjectedTotal>,
    ) -> RedisResult<u64> {
        self.grouped((board.clone(), *period, 0, Some(segment.clone())), totals).await
    }

    /// Levels a segment's ranking with the ledger's totals (the reconciler).
    pub async fn level_segment(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: &Segment,
        totals: &[ProjectedTotal],
    ) -> RedisResult<u64> {
        self.level_keys(&self.keys.segment(board, period, segment), totals, 0).await
    }

    /// The sum of the versions projected into a segment's ranking.
    pub async fn segment_version_sum(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: &Segment,
    ) -> RedisResult<i64> {
        self.vsum_of(&self.keys.segment(board, period, segment)).await
    }

    /// Starts replacing a segment's ranking (pushed and swapped in like a period's).
    pub async fn start_segment_rebuild(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: &Segment,
    ) -> RedisResult<Rebuild> {
        self.start_rebuild_of(self.keys.segment(board, period, segment)).await
    }

    /// Gives every key of these segments an expiry (archived and settled periods' safety net).
    pub async fn expire_segments(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segments: &[Segment],
        ttl: Duration,
    ) -> RedisResult<()> {
        for segment in segments {
            self.expire_keys(&self.keys.segment(board, period, segment), ttl).await?;
        }
        Ok(())
    }

    /// Unlinks every key of these segments, one call per segment (each on its own slot).
    pub async fn unlink_segments(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segments: &[Segment],
    ) -> RedisResult<()> {
        for segment in segments {
            self.unlink_keys(&self.keys.segment(board, period, segment)).await?;
        }
        Ok(())
    }
}
