//! Test-only crash hooks. A use case calls [`Failpoints::hit`] between its durable steps; an
//! armed failpoint stops the work right there with [`LedgerError::Failpoint`], as a process
//! killed at that moment would (an open transaction is rolled back, nothing after it runs).
//! Tests arm them per engine, so parallel tests do not disturb each other; nothing arms them in
//! production. `LAUREL_FAILPOINTS=name,name` arms them in a running `laurel` (end-to-end tests).
//!
//! The names, in the order a settlement meets them:
//! - `settle.after_standings`, `settle.before_commit`: inside the settlement transaction;
//! - `settle.after_commit`: saved, before any reward is delivered;
//! - `reward.before_send`, `reward.after_send`: around one webhook delivery (after the receiver
//!   answered, before the ledger records it).
//!
//! And in the order applying a preview meets them (`ledger/revise.rs`, `previews.rs`):
//! - `resettle.after_standings`, `resettle.before_commit`, `apply.before_commit`: inside the
//!   apply's transaction, which writes the next settlement revision of a settled period;
//! - `apply.after_commit`: saved, before the moved totals are projected.

use crate::ledger::{Failpoint, LedgerError};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// The armed failpoints of one engine. Each fires once, then disarms itself.
#[derive(Debug, Default)]
pub struct Failpoints {
    armed: Mutex<HashSet<String>>,
}

impl Failpoints {
    /// Arms the names listed in `LAUREL_FAILPOINTS` (comma-separated), if set.
    pub fn from_env() -> Self {
        let points = Self::default();
        if let Ok(list) = std::env::var("LAUREL_FAILPOINTS") {
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                tracing::warn!(failpoint = name, "failpoint armed from LAUREL_FAILPOINTS");
                points.arm(name);
            }
        }
        points
    }

    pub fn arm(&self, name: &str) {
        self.armed.lock().expect("failpoints lock").insert(name.to_owned());
    }

    /// Stops the caller with an error if `name` is armed (and disarms it).
    pub fn hit(&self, name: &'static str) -> Result<(), LedgerError> {
        if self.armed.lock().expect("failpoints lock").remove(name) {
            tracing::warn!(failpoint = name, "failpoint hit");
            return Err(LedgerError::Failpoint(name));
        }
        Ok(())
    }

    /// The hook form the ledger takes (it runs on a task of its own).
    pub fn hook(self: &Arc<Self>) -> Failpoint {
        let points = self.clone();
        Arc::new(move |name| points.hit(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_armed_failpoint_fires_once() {
        let points = Failpoints::default();
        assert!(points.hit("settle.after_commit").is_ok());
        points.arm("settle.after_commit");
        assert!(matches!(
            points.hit("settle.after_commit"),
            Err(LedgerError::Failpoint("settle.after_commit"))
        ));
        assert!(points.hit("settle.after_commit").is_ok());
    }
}
