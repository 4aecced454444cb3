//! The background jobs: the scheduler ([`scheduler`]: freezes ended periods, archives settled
//! ones, expires and unlinks keys; one leader per ledger) and the reconciler ([`reconciler`]:
//! levels the projection with the ledger; rebuilds a period). Every process runs both; what they
//! change goes through the lifecycle and the stores, like an admin's step.

pub mod reconciler;
pub mod scheduler;

use crate::Core;
use crate::lifecycle::Lifecycle;
use crate::live::Live;
use crate::reads::Reads;
use crate::seasons::Seasons;
use std::sync::Arc;

/// The jobs service. It keeps no state of its own: the scheduler's lease is in the ledger, and
/// each pass reads what it needs afresh. Cheap to clone.
#[derive(Clone)]
pub struct Jobs {
    core: Core,
    reads: Reads,
    live: Live,
    seasons: Arc<Seasons>,
    lifecycle: Lifecycle,
}

impl Jobs {
    pub(crate) fn new(
        core: Core,
        reads: Reads,
        live: Live,
        seasons: Arc<Seasons>,
        lifecycle: Lifecycle,
    ) -> Self {
        Self { core, reads, live, seasons, lifecycle }
    }
}
