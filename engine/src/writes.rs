//! Writes: recorded in the ledger first (the truth, exactly once), then projected into Redis.
//! A projection failure never fails a write: the response says `projected: false` and the
//! projection is brought level from the ledger later.

use crate::ledger::{IncrOutcome, PointEvent};
use crate::{Engine, EngineError};
use domain::Board;

/// An event's outcome after the ledger and the projection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncrResult {
    pub outcome: IncrOutcome,
    /// For applied events: whether Redis reflects the new total yet.
    pub projected: bool,
}

impl Engine {
    /// Records point events on an `incr` board and projects the totals they changed.
    pub async fn record_incr(
        &self,
        board: &Board,
        events: &[PointEvent],
    ) -> Result<Vec<IncrResult>, EngineError> {
        let outcomes = self.ledger.record_incr(board, events, jiff::Timestamp::now()).await?;
        let mut results = Vec::with_capacity(outcomes.len());
        for outcome in outcomes {
            let projected = match &outcome {
                IncrOutcome::Applied(p) => {
                    match self.projection.project(&board.slug, &p.period, &p.member, p.version, p.score).await
                    {
                        // `false` means a newer version is already there: still level.
                        Ok(_) => true,
                        Err(error) => {
                            tracing::warn!(board = %board.slug, period = %p.period, member = %p.member, %error,
                                "projection failed; the ledger has the write");
                            false
                        }
                    }
                }
                _ => false,
            };
            results.push(IncrResult { outcome, projected });
        }
        Ok(results)
    }
}
