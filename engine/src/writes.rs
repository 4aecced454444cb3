//! Writes: recorded in the ledger first (the truth, exactly once), then projected into Redis.
//! A projection failure never fails a write: the answer says `projected: false` and the
//! reconciler brings the projection level from the ledger.

use crate::ledger::Recorded;
use crate::{Engine, EngineError};
use domain::Board;
use domain::write::Write;

/// The most writes one batch may carry.
pub const MAX_BATCH: usize = 1000;

/// A write's answer after the ledger and the projection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteResult {
    pub recorded: Recorded,
    /// For writes that changed a total: whether Redis reflects it yet.
    pub projected: bool,
}

impl Engine {
    /// Records writes on `board` in one ledger transaction, then projects the totals that changed.
    /// Every write must use the board's operator (checked by the caller's endpoint).
    pub async fn record(&self, board: &Board, writes: &[Write]) -> Result<Vec<WriteResult>, EngineError> {
        if writes.len() > MAX_BATCH {
            return Err(EngineError::Invalid(format!("a batch holds at most {MAX_BATCH} writes")));
        }
        if let Some(w) = writes.iter().find(|w| w.change.operator() != board.operator) {
            return Err(EngineError::WrongOperator { board: board.operator, sent: w.change.operator() });
        }
        let recorded = self.ledger.record(board, writes, jiff::Timestamp::now()).await?;
        let mut results = Vec::with_capacity(recorded.len());
        for recorded in recorded {
            let projected = match &recorded.total {
                Some(t) => {
                    match self.projection.project(&board.slug, &t.period, &t.member, t.version, t.score).await
                    {
                        // `false` means a newer version is already there: still level.
                        Ok(_) => true,
                        Err(error) => {
                            self.metrics().redis_errors.inc();
                            tracing::warn!(board = %board.slug, period = %t.period, member = %t.member, %error,
                            "projection failed; the ledger has the write and the reconciler will level it");
                            false
                        }
                    }
                }
                None => false,
            };
            self.metrics().count_write(&board.slug, board.operator, recorded.outcome);
            results.push(WriteResult { recorded, projected });
        }
        Ok(results)
    }
}
