//! The ledger's upkeep from the command line, without Redis: `laurel migrate` applies the
//! migrations, `laurel doctor` finds the rows a job or listing would leave out and, with `--fix`,
//! moves the movable ones into `quarantine` (audited `row_quarantine`; the sweep itself is in
//! `ledger/doctor.rs`).

use crate::EngineError;
use crate::ledger::Ledger;

pub use crate::ledger::{Finding, InvalidRow};

/// Connects to the ledger and applies its migrations; answers the versions now applied.
pub async fn migrate(database_url: &str) -> Result<Vec<i64>, EngineError> {
    let ledger = Ledger::connect(database_url).await?;
    ledger.migrate().await?;
    Ok(ledger.applied_migrations().await?)
}

/// A ledger opened for `laurel doctor`.
pub struct Doctor {
    ledger: Ledger,
}

impl Doctor {
    /// Connects to the ledger and applies its migrations (the sweep reads every table).
    pub async fn open(database_url: &str) -> Result<Self, EngineError> {
        let ledger = Ledger::connect(database_url).await?;
        ledger.migrate().await?;
        Ok(Doctor { ledger })
    }

    /// Every row a job or listing would leave out.
    pub async fn find(&self) -> Result<Vec<Finding>, EngineError> {
        Ok(self.ledger.find_invalid_rows().await?)
    }

    /// Moves a movable row into `quarantine`; answers the rows moved.
    pub async fn quarantine(&self, finding: &Finding) -> Result<u64, EngineError> {
        Ok(self.ledger.quarantine(finding, jiff::Timestamp::now()).await?)
    }
}
