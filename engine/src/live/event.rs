//! The events a live stream carries, each framed once for every subscriber that gets it.

use bytes::Bytes;
use domain::lifecycle::State;
use domain::live::{LiveRanking, LiveState, RANKING_EVENT, STATE_EVENT};
use domain::view::RankingPage;
use domain::{BoardSlug, PeriodKey};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One event, framed once (`id:`, `event:`, `data:`) for every subscriber that gets it.
#[derive(Debug)]
pub struct LiveEvent {
    /// Increases with every event this process makes (milliseconds since the epoch, or one more
    /// than the last), so ids from any instance keep growing for a reconnecting browser.
    pub id: u64,
    /// [`RANKING_EVENT`] or [`STATE_EVENT`].
    pub kind: &'static str,
    /// The JSON of a [`LiveRanking`] or a [`LiveState`].
    pub data: String,
    frame: Bytes,
}

impl LiveEvent {
    fn new(kind: &'static str, data: String) -> Arc<Self> {
        let id = next_event_id();
        let frame = Bytes::from(format!("id: {id}\nevent: {kind}\ndata: {data}\n\n"));
        Arc::new(Self { id, kind, data, frame })
    }

    pub(super) fn ranking(page: &RankingPage, limit: u64) -> Arc<Self> {
        let ranking = LiveRanking {
            board: page.board.slug.clone(),
            period: page.period,
            limit,
            entries: page.entries.clone(),
            total: page.total,
            frozen_at: page.frozen_at,
            source: page.source,
        };
        Self::new(RANKING_EVENT, serde_json::to_string(&ranking).expect("a ranking serializes"))
    }

    pub(super) fn state(board: &BoardSlug, period: PeriodKey, state: State) -> Arc<Self> {
        let state = LiveState { board: board.clone(), period, state };
        Self::new(STATE_EVENT, serde_json::to_string(&state).expect("a state serializes"))
    }

    /// The event as a Server-Sent Events frame (shared, not copied).
    pub fn frame(&self) -> Bytes {
        self.frame.clone()
    }
}

fn next_event_id() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = jiff::Timestamp::now().as_millisecond().max(0) as u64;
    let last = LAST.fetch_update(Ordering::AcqRel, Ordering::Acquire, |last| Some(now.max(last + 1)));
    now.max(last.expect("always Some") + 1)
}
