//! Live boards: subscribers of a board period get its top N and its state pushed when they
//! change (the server streams them as Server-Sent Events, `GET …/periods/{period}/stream`).
//!
//! * **Announce.** Whatever changes a ranking or a state calls [`Live::announce`] after its
//!   projection: it wakes this process's subscribers of the period and says "this period changed"
//!   (no data) with `SPUBLISH` on the period's channel (`KeySpace::changes`, inside the period's
//!   hash tag), so every instance hears it — on a Cluster, from the node that owns the period. At
//!   most one publish per period per [`PUSH_INTERVAL`] per process (a change inside the interval is
//!   carried by one publish at its end); a publish runs beside the write, never in it, bounded by
//!   [`PUBLISH_TIMEOUT`] and [`MAX_PUBLISHES_IN_FLIGHT`], and a failure only logs.
//! * **Listen.** One [`Listener`] connection per process holds one `SSUBSCRIBE` per period that
//!   has local subscribers (a `Feed`), made when the first subscriber comes and dropped when
//!   the last leaves.
//! * **Push.** Each feed recomputes at most once per [`PUSH_INTERVAL`] after it heard something,
//!   with the public read, from the primary (`Reads::ranking_page_fresh`: whatever
//!   `Reads::ranking_page` answers is what is pushed — tie policy, hidden members, names,
//!   `source`, the state read with the page), once per distinct key of its subscribers — a limit
//!   and, for a segment's subscribers, the segment (below) — and pushes to a subscriber only a
//!   ranking or a state that differs from the last one it got. Events are full top-N
//!   snapshots, never deltas, so a subscriber that missed some needs only the next one; pub/sub
//!   may lose messages (a reconnect), so a feed also re-reads every [`RECHECK_INTERVAL`] and
//!   after its listener reconnects.
//! * **Bounded.** Each subscriber has a queue of [`SUBSCRIBER_QUEUE`] events; one that is full
//!   (a client not reading) is dropped, not buffered: its stream ends and a browser reconnects.
//!   Nothing else grows with a slow client.
//!
//! **Segments** (issue 43). A subscriber may follow one segment value's top N (`?segment=
//! province:zj`; `Scope::in_segment`) instead of the board's: the same events and JSON, bounds and
//! throttling. It joins its period's feed (every write of the period announces on the period's
//! channel, a write moving a segment's member included, so there is no channel per segment), and
//! the feed reads its key with the segment's public read; a write elsewhere leaves its ranking
//! equal, so the comparison above pushes it nothing. A segment has no public frozen view
//! (`segments.rs`): subscribing during a public freeze is 409 `segment_frozen`, as its other
//! public reads; when a feed finds a public freeze begun (in the state it reads first, in a
//! segment read refused, or in the state it reads again after the segment reads, so a page read
//! after the freeze began never goes out), each segment subscriber gets the state if it changed
//! and then its stream **ends** (`LiveStats::closed_by_freeze`): no ranking of the segment goes
//! out until the reveal, and a browser that reconnects is told 409 rather than held open on a
//! stream that can say nothing. Segment subscribers count in the same stream caps as the others
//! (the server's slots); a feed reads at most [`MAX_FEED_SEGMENT_READS`] distinct segment keys,
//! and a subscriber that would add one more is refused 503 `streams_full`, so a recompute costs
//! at most that many reads beside the board's (one per distinct limit).
//!
//! Who announces: a write's projection (`Writes::record`, once per period of a batch), a
//! transition (by hand or the scheduler's), `project_total` (revokes, corrections, accepted late
//! writes, hides and unhides, applied previews), an applied preview of an archived period and
//! the reconciler after it levelled a period. The publish is `SPUBLISH
//! <prefix>:{<board>:<period>}:changes ""` on a task of its own: skipped while the projection is
//! paused after a Redis failure and beyond [`MAX_PUBLISHES_IN_FLIGHT`], a failure logged at debug
//! level, so a publish never fails or delays a write. The channel is inside the period's hash
//! tag, so on a Cluster channels spread by period (`redis/changes.rs` has the listener's two
//! modes; after any loss of its connection every feed recomputes).
//!
//! Before a recomputation a feed drops the period's cached state (the change may be another
//! instance's transition). A `ranking` also goes out when only the member count or the public
//! freeze changed (the compared value is the top N with `total` and `frozen_at`): a reveal that
//! moves no row still takes a page's freeze banner down. Event ids are milliseconds since the
//! epoch (or one more than the last), so `Last-Event-ID` is not needed: a reconnect gets the
//! current state and ranking. The events' JSON is `domain::live`; their frames `event.rs`.

mod event;
mod feed;

pub use event::LiveEvent;

use crate::reads::Reads;
use crate::redis::RedisTarget;
use crate::redis::changes::{Heard, Listener, PUBLISH_TIMEOUT};
use crate::scope::Scope;
use crate::{Core, EngineError};
use domain::{BoardSlug, PeriodKey};
use feed::{Feed, Leave, Shown, Subscriber};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, mpsc};

/// At most one publish, and one recompute, per board period per this interval.
pub const PUSH_INTERVAL: Duration = Duration::from_millis(250);
/// Events a subscriber may have waiting; one more drops it.
pub const SUBSCRIBER_QUEUE: usize = 16;
/// A feed with subscribers re-reads at least this often (pub/sub delivers at most once).
pub const RECHECK_INTERVAL: Duration = Duration::from_secs(5);
/// Publishes waiting for Redis at once, over all periods; beyond, a publish is skipped (the
/// recheck catches up).
pub const MAX_PUBLISHES_IN_FLIGHT: usize = 64;
/// Distinct (limit, segment) rankings of segments one feed recomputes; a subscriber that would
/// add one more is refused 503 `streams_full`, so a recompute reads at most this many segment
/// rankings beside the board's (at most one per limit, 200).
pub const MAX_FEED_SEGMENT_READS: usize = 256;
/// The wait before the listener tries a failed connection or subscription again.
const RETRY_PAUSE: Duration = Duration::from_secs(1);

/// A subscription to a period's live events. The first two are the state and the full ranking;
/// then an event whenever either changes. Ends when the subscriber was dropped (too slow) or the
/// process shuts down.
pub struct LiveSubscription {
    events: mpsc::Receiver<Arc<LiveEvent>>,
    _leave: Leave,
}

impl LiveSubscription {
    pub async fn next(&mut self) -> Option<Arc<LiveEvent>> {
        self.events.recv().await
    }

    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Arc<LiveEvent>>> {
        self.events.poll_recv(cx)
    }

    /// Events waiting to be read.
    pub fn queued(&self) -> usize {
        self.events.len()
    }
}

/// Counters of this process's live streams (tests and the benchmark read them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiveStats {
    /// Board periods with local subscribers (one subscription each).
    pub feeds: usize,
    pub subscribers: usize,
    /// Channels the listener holds.
    pub subscribed: usize,
    /// Publishes sent to Redis.
    pub publishes: u64,
    /// Recomputes of a feed (each reads the top N once per distinct limit).
    pub recomputes: u64,
    /// Events queued to subscribers (the first two of each subscription included).
    pub pushed: u64,
    /// Subscribers dropped because their queue was full.
    pub dropped: u64,
    /// Segment subscribers whose stream ended because a public freeze began.
    pub closed_by_freeze: u64,
}

/// When a period was last published, and whether a publish at the interval's end is due.
struct Published {
    at: Instant,
    scheduled: bool,
}

/// The live service: this process's feeds and subscribers, and the announcements of changes
/// (see the module doc). It reads pages through [`Reads`], as the public does. Cheap to clone.
#[derive(Clone)]
pub struct Live {
    core: Core,
    reads: Reads,
    streams: Arc<Streams>,
}

/// This process's live streams: the state only [`Live`] touches.
#[derive(Default)]
struct Streams {
    /// By channel name.
    feeds: Mutex<HashMap<String, Arc<Feed>>>,
    published: Mutex<HashMap<String, Published>>,
    publishes_in_flight: AtomicUsize,
    listener_started: AtomicBool,
    /// Wakes the listener: the feeds changed, or its connection was lost.
    wake: Arc<Notify>,
    /// Channels the listener's connection holds.
    subscribed: Mutex<HashSet<String>>,
    disconnected: AtomicBool,
    closed: AtomicBool,
    next_subscriber: AtomicU64,
    publishes: AtomicU64,
    recomputes: AtomicU64,
    pushed: AtomicU64,
    dropped: AtomicU64,
    closed_by_freeze: AtomicU64,
    /// Changes this process announced, per board hashed into a few counters (two boards may
    /// share one: that costs only an early refresh). See [`Live::announced_of`].
    announced: [AtomicU64; ANNOUNCED_BOARDS],
}

/// How many counters [`Streams::announced`] spreads boards over.
const ANNOUNCED_BOARDS: usize = 32;

/// The counter of [`Streams::announced`] that counts `board`'s changes.
fn announced_slot(board: &BoardSlug) -> usize {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    board.hash(&mut hasher);
    (hasher.finish() % ANNOUNCED_BOARDS as u64) as usize
}

impl Streams {
    /// Wakes the feed of `channel`, if this process has one.
    fn changed(&self, channel: &str) {
        if let Some(feed) = self.feeds.lock().expect("feeds").get(channel) {
            feed.changed.notify_one();
        }
    }

    fn all_changed(&self) {
        for feed in self.feeds.lock().expect("feeds").values() {
            feed.changed.notify_one();
        }
    }

    /// Whether to publish for `channel`, and after how long; None: a publish at the end of the
    /// interval is already due and will say it.
    fn publish_due(&self, channel: &str) -> Option<Duration> {
        let now = Instant::now();
        let mut published = self.published.lock().expect("published");
        if published.len() >= 4096 {
            published.retain(|_, p| p.scheduled || now.duration_since(p.at) < PUSH_INTERVAL);
        }
        match published.get_mut(channel) {
            None => {
                published.insert(channel.to_owned(), Published { at: now, scheduled: false });
                Some(Duration::ZERO)
            }
            Some(p) if p.scheduled => None,
            Some(p) if now.duration_since(p.at) >= PUSH_INTERVAL => {
                p.at = now;
                Some(Duration::ZERO)
            }
            Some(p) => {
                p.scheduled = true;
                Some(PUSH_INTERVAL - now.duration_since(p.at))
            }
        }
    }

    /// A scheduled publish is being sent: later changes need a publish of their own.
    fn publishing(&self, channel: &str) {
        if let Some(p) = self.published.lock().expect("published").get_mut(channel) {
            p.at = Instant::now();
            p.scheduled = false;
        }
    }

    /// What the listener heard (called on the connection's task: never blocks).
    fn heard(&self, heard: Heard) {
        match heard {
            Heard::Changed(channel) | Heard::Subscribed(channel) => self.changed(&channel),
            Heard::Unsubscribed(channel) => {
                // Ours, or the server's (a slot moved): the listener subscribes again if wanted.
                self.subscribed.lock().expect("subscribed").remove(&channel);
                self.wake.notify_one();
            }
            Heard::Disconnected => {
                self.disconnected.store(true, Ordering::Release);
                self.all_changed();
                self.wake.notify_one();
            }
        }
    }
}

impl Live {
    pub(crate) fn new(core: Core, reads: Reads) -> Self {
        Self { core, reads, streams: Arc::default() }
    }

    /// Says that a board period's ranking or state may have changed: this process's subscribers
    /// of it recompute, and the other instances' hear it through Redis (see the module doc).
    /// Returns at once; never fails (a publish that cannot be made is logged and skipped).
    pub fn announce(&self, board: &BoardSlug, period: &PeriodKey) {
        self.streams.announced[announced_slot(board)].fetch_add(1, Ordering::Release);
        let channel = self.core.projection.keys().changes(board, period);
        // This process's subscribers hear it even while Redis cannot be reached.
        self.streams.changed(&channel);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let live = &self.streams;
        if live.publishes_in_flight.fetch_add(1, Ordering::AcqRel) >= MAX_PUBLISHES_IN_FLIGHT {
            live.publishes_in_flight.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        let Some(delay) = live.publish_due(&channel) else {
            live.publishes_in_flight.fetch_sub(1, Ordering::AcqRel);
            return;
        };
        let (live, projection) = (Arc::clone(live), self.core.projection.clone());
        runtime.spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
                live.publishing(&channel);
            }
            let sent = tokio::time::timeout(PUBLISH_TIMEOUT, projection.spublish(&channel)).await;
            live.publishes_in_flight.fetch_sub(1, Ordering::AcqRel);
            match sent {
                Ok(Ok(())) => {
                    live.publishes.fetch_add(1, Ordering::Relaxed);
                }
                Ok(Err(error)) => tracing::debug!(%channel, %error, "change not published"),
                Err(_) => tracing::debug!(%channel, "change not published: Redis did not answer in time"),
            }
        });
    }

    /// A number that moves whenever this process announces a change of one of `board`'s periods
    /// ([`Live::announce`]: a write's projection, a transition, a hide, …), read before a read
    /// of the board: whoever keeps what it made of the reads (the server's page cache) makes it
    /// again once this moved, so this process's own changes show at once.
    pub fn announced_of(&self, board: &BoardSlug) -> u64 {
        self.streams.announced[announced_slot(board)].load(Ordering::Acquire)
    }

    /// Subscribes to a board period's live events (a scope named `current` is fixed when it is
    /// resolved) with the top `limit` entries (the top read's bounds), of the board or of the
    /// scope's segment. The first events are the state and the full ranking. A segment of a
    /// publicly frozen period is 409 `segment_frozen`, as its other public reads; a segment
    /// ranking past the feed's [`MAX_FEED_SEGMENT_READS`] is 503 `streams_full`.
    pub async fn subscribe(&self, scope: &Scope, limit: u64) -> Result<LiveSubscription, EngineError> {
        crate::reads::check_limit(limit)?;
        let (board, period) = (scope.board(), scope.period());
        let segment = scope.segment().cloned();
        loop {
            let feed = self.feed(&board.slug, period);
            let _serial = feed.serial.lock().await;
            if feed.retired.load(Ordering::Acquire) {
                continue;
            }
            let read = async {
                if let Some(segment) = &segment {
                    feed.admits(limit, segment)?;
                }
                self.reads.ranking_page(scope, 0, limit).await
            };
            let page = match read.await {
                Ok(page) => page,
                Err(error) => {
                    // The feed may have no subscriber now: its task retires it.
                    feed.changed.notify_one();
                    return Err(error);
                }
            };
            let (queue, events) = mpsc::channel(SUBSCRIBER_QUEUE);
            let first = [LiveEvent::state(&board.slug, period, page.state), LiveEvent::ranking(&page, limit)];
            for event in first {
                queue.try_send(event).expect("a new queue has room");
            }
            self.streams.pushed.fetch_add(2, Ordering::Relaxed);
            let id = self.streams.next_subscriber.fetch_add(1, Ordering::Relaxed);
            // After shutdown began, the stream ends after its first events.
            if !self.streams.closed.load(Ordering::Acquire) {
                let subscriber = Subscriber {
                    id,
                    limit,
                    segment,
                    queue,
                    seen: Arc::new(Shown::of(&page)),
                    state: page.state,
                };
                feed.subscribers.lock().expect("subscribers").push(subscriber);
            }
            return Ok(LiveSubscription { events, _leave: Leave { feed: Arc::clone(&feed), id } });
        }
    }

    /// Ends every live subscription (graceful shutdown: the streams end, so their connections
    /// can close); later subscriptions end after their first events.
    pub fn close(&self) {
        self.streams.closed.store(true, Ordering::Release);
        for feed in self.streams.feeds.lock().expect("feeds").values() {
            feed.subscribers.lock().expect("subscribers").clear();
            feed.changed.notify_one();
        }
    }

    /// This process's live streams in numbers.
    pub fn stats(&self) -> LiveStats {
        let live = &self.streams;
        let feeds = live.feeds.lock().expect("feeds");
        LiveStats {
            feeds: feeds.len(),
            subscribers: feeds.values().map(|f| f.subscribers.lock().expect("subscribers").len()).sum(),
            subscribed: live.subscribed.lock().expect("subscribed").len(),
            publishes: live.publishes.load(Ordering::Relaxed),
            recomputes: live.recomputes.load(Ordering::Relaxed),
            pushed: live.pushed.load(Ordering::Relaxed),
            dropped: live.dropped.load(Ordering::Relaxed),
            closed_by_freeze: live.closed_by_freeze.load(Ordering::Relaxed),
        }
    }
}

/// The listener's task: keeps one subscription per feed on one connection, made when the first
/// feed appears; replaces a lost standalone connection and subscribes everything again after any
/// loss. Ends when the engine is gone.
async fn listen(live: Weak<Streams>, wake: Arc<Notify>, target: RedisTarget) {
    let mut listener: Option<Listener> = None;
    loop {
        let Some(strong) = live.upgrade() else { return };
        let mut failed = false;
        if strong.disconnected.swap(false, Ordering::AcqRel) {
            strong.subscribed.lock().expect("subscribed").clear();
            if listener.as_ref().is_some_and(|l| !l.reconnects_by_itself()) {
                listener = None;
            }
        }
        let wanted: HashSet<String> = strong.feeds.lock().expect("feeds").keys().cloned().collect();
        if listener.is_none() && !wanted.is_empty() {
            let heard = {
                let live = live.clone();
                move |heard: Heard| {
                    if let Some(live) = live.upgrade() {
                        live.heard(heard);
                    }
                }
            };
            match Listener::connect(&target, heard).await {
                Ok(connected) => {
                    strong.subscribed.lock().expect("subscribed").clear();
                    listener = Some(connected);
                }
                Err(error) => {
                    tracing::warn!(%error, "live changes: cannot connect to Redis; retrying");
                    failed = true;
                }
            }
        }
        if let Some(conn) = listener.as_mut() {
            let held = strong.subscribed.lock().expect("subscribed").clone();
            for channel in wanted.difference(&held) {
                match conn.ssubscribe(channel).await {
                    Ok(()) => {
                        strong.subscribed.lock().expect("subscribed").insert(channel.clone());
                    }
                    Err(error) => {
                        tracing::warn!(%channel, %error, "live changes: not subscribed; retrying");
                        failed = true;
                        break;
                    }
                }
            }
            for channel in held.difference(&wanted) {
                match conn.sunsubscribe(channel).await {
                    Ok(()) => {
                        strong.subscribed.lock().expect("subscribed").remove(channel);
                    }
                    Err(error) => {
                        tracing::debug!(%channel, %error, "live changes: not unsubscribed; retrying");
                        failed = true;
                        break;
                    }
                }
            }
        }
        drop(strong);
        let pause = if failed { RETRY_PAUSE } else { RECHECK_INTERVAL };
        tokio::select! {
            () = wake.notified() => {}
            () = tokio::time::sleep(pause) => {}
        }
    }
}
