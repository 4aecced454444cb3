//! A period's feed: its subscribers, grouped by what they read (the top `limit` of the board or
//! of one segment value), the task that recomputes their rankings at most once per
//! [`PUSH_INTERVAL`], and the push of what differs to each (see the module doc of `live`).

use super::{Live, LiveEvent, MAX_FEED_SEGMENT_READS, PUSH_INTERVAL, RECHECK_INTERVAL, Streams, listen};
use crate::EngineError;
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::segment::Segment;
use domain::view::{Entry, RankingPage};
use domain::{BoardSlug, PeriodKey};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{Notify, mpsc};

/// Takes a subscriber out of its feed when its subscription is dropped.
pub(super) struct Leave {
    pub(super) feed: Arc<Feed>,
    pub(super) id: u64,
}

impl Drop for Leave {
    fn drop(&mut self) {
        let mut subscribers = self.feed.subscribers.lock().expect("subscribers");
        subscribers.retain(|s| s.id != self.id);
        if subscribers.is_empty() {
            // The feed's task retires it (and its subscription) at its next turn.
            self.feed.changed.notify_one();
        }
    }
}

impl Feed {
    /// Whether a subscriber of `segment`'s top `limit` may join: a key the feed already reads
    /// costs nothing; a new one counts against [`MAX_FEED_SEGMENT_READS`].
    pub(super) fn admits(&self, limit: u64, segment: &Segment) -> Result<(), EngineError> {
        let subscribers = self.subscribers.lock().expect("subscribers");
        let mut keys = BTreeSet::new();
        for s in subscribers.iter() {
            if let Some(theirs) = &s.segment {
                if s.limit == limit && theirs == segment {
                    return Ok(());
                }
                keys.insert((s.limit, theirs));
            }
        }
        if keys.len() < MAX_FEED_SEGMENT_READS {
            return Ok(());
        }
        Err(EngineError::Refused {
            code: ErrorCode::StreamsFull,
            detail: format!(
                "this period's live streams follow {MAX_FEED_SEGMENT_READS} segment rankings already: \
                 follow one of them or the board's"
            ),
        })
    }
}

/// One board period with local subscribers.
pub(super) struct Feed {
    pub(super) board: BoardSlug,
    pub(super) period: PeriodKey,
    pub(super) channel: String,
    /// Something may have changed: the feed's task recomputes (at most once per interval).
    pub(super) changed: Notify,
    /// Held while a recompute reads and pushes, and while a new subscriber reads its first
    /// events: nobody gets an older ranking after a newer one.
    pub(super) serial: tokio::sync::Mutex<()>,
    pub(super) subscribers: Mutex<Vec<Subscriber>>,
    /// Retired: no longer in `Streams::feeds`; a subscriber who found it goes to a new one.
    pub(super) retired: AtomicBool,
}

/// What a `ranking` event shows: the top N, the member count and the public freeze's start
/// (a reveal that ends it changes no row, and the page must still drop its banner).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shown {
    pub(super) entries: Vec<Entry>,
    pub(super) total: u64,
    pub(super) frozen_at: Option<jiff::Timestamp>,
}

impl Shown {
    pub(super) fn of(page: &RankingPage) -> Self {
        Shown { entries: page.entries.clone(), total: page.total, frozen_at: page.frozen_at }
    }
}

/// What a group of a feed's subscribers reads at a recompute: the top `limit` of the board, or
/// of one segment value.
pub(super) type Key = (u64, Option<Segment>);

pub(super) struct Subscriber {
    pub(super) id: u64,
    pub(super) limit: u64,
    /// The segment value whose ranking it follows (None: the board's).
    pub(super) segment: Option<Segment>,
    pub(super) queue: mpsc::Sender<Arc<LiveEvent>>,
    /// The ranking and state it was last sent (or found unchanged).
    pub(super) seen: Arc<Shown>,
    pub(super) state: State,
}

impl Streams {
    /// Takes a feed without subscribers out (and so its subscription); false if it has some.
    fn retire(&self, feed: &Arc<Feed>) -> bool {
        let mut feeds = self.feeds.lock().expect("feeds");
        if !feed.subscribers.lock().expect("subscribers").is_empty() {
            return false;
        }
        feed.retired.store(true, Ordering::Release);
        if feeds.get(&feed.channel).is_some_and(|f| Arc::ptr_eq(f, feed)) {
            feeds.remove(&feed.channel);
        }
        drop(feeds);
        self.wake.notify_one();
        true
    }

    /// Sends each subscriber what differs from what it has: the state, and the ranking of its
    /// key. `before` holds the previous recompute's rankings by key, and is updated. While the
    /// period is publicly frozen a segment subscriber gets the state if it changed, then its
    /// queue is closed: its stream ends after what it holds (see the module doc).
    fn push(&self, feed: &Feed, now: &Recomputed, before: &mut BTreeMap<Key, Arc<Shown>>) {
        struct Group<'a> {
            page: &'a RankingPage,
            entries: Arc<Shown>,
            before: Option<Arc<Shown>>,
            changed: bool,
            event: Option<Arc<LiveEvent>>,
        }
        let mut groups: BTreeMap<&Key, Group> = now
            .pages
            .iter()
            .map(|(key, page)| {
                let entries = Arc::new(Shown::of(page));
                let before = before.get(key).cloned();
                let changed = before.as_deref() != Some(&*entries);
                (key, Group { page, entries, before, changed, event: None })
            })
            .collect();
        let state = now.state;
        let mut state_event = None;
        let (mut pushed, mut dropped, mut closed) = (0, 0, 0);
        feed.subscribers.lock().expect("subscribers").retain_mut(|sub| {
            let frozen_out = now.segments_frozen && sub.segment.is_some();
            let key = (sub.limit, sub.segment.clone());
            let group = groups.get_mut(&key);
            if group.is_none() && !frozen_out {
                return true;
            }
            let mut out = Vec::with_capacity(2);
            if sub.state != state {
                sub.state = state;
                out.push(Arc::clone(
                    state_event.get_or_insert_with(|| LiveEvent::state(&feed.board, feed.period, state)),
                ));
            }
            if let Some(group) = group.filter(|_| !frozen_out) {
                // Most subscribers hold the previous recompute's ranking: one comparison serves all.
                let differs = match &group.before {
                    Some(b) if Arc::ptr_eq(b, &sub.seen) => group.changed,
                    _ => *sub.seen != *group.entries,
                };
                if differs {
                    let event = group.event.get_or_insert_with(|| LiveEvent::ranking(group.page, sub.limit));
                    out.push(Arc::clone(event));
                }
                sub.seen = Arc::clone(&group.entries);
            }
            for event in out {
                match sub.queue.try_send(event) {
                    Ok(()) => pushed += 1,
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        dropped += 1;
                        return false;
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => return false,
                }
            }
            if frozen_out {
                closed += 1;
            }
            !frozen_out
        });
        // Keys nobody reads any more are forgotten (segments come and go with their subscribers).
        before.clear();
        for (key, group) in groups {
            before.insert(key.clone(), group.entries);
        }
        self.pushed.fetch_add(pushed, Ordering::Relaxed);
        self.dropped.fetch_add(dropped, Ordering::Relaxed);
        self.closed_by_freeze.fetch_add(closed, Ordering::Relaxed);
    }
}

/// What one recompute of a feed read.
pub(super) struct Recomputed {
    pub(super) state: State,
    /// The top N of each key read (no segment key while `segments_frozen`).
    pub(super) pages: BTreeMap<Key, RankingPage>,
    /// The period is publicly frozen (not archived): no segment ranking may go out.
    pub(super) segments_frozen: bool,
}

impl Live {
    /// The feed of a board period, made (with its task and subscription) if there is none.
    pub(super) fn feed(&self, board: &BoardSlug, period: PeriodKey) -> Arc<Feed> {
        let channel = self.core.projection.keys().changes(board, &period);
        let mut feeds = self.streams.feeds.lock().expect("feeds");
        if let Some(feed) = feeds.get(&channel) {
            return Arc::clone(feed);
        }
        let feed = Arc::new(Feed {
            board: board.clone(),
            period,
            channel: channel.clone(),
            changed: Notify::new(),
            serial: tokio::sync::Mutex::new(()),
            subscribers: Mutex::default(),
            retired: AtomicBool::new(false),
        });
        feeds.insert(channel, Arc::clone(&feed));
        drop(feeds);
        tokio::spawn(self.clone().run_feed(Arc::clone(&feed)));
        if !self.streams.listener_started.swap(true, Ordering::AcqRel) {
            let target = self.core.projection.target().clone();
            tokio::spawn(listen(Arc::downgrade(&self.streams), Arc::clone(&self.streams.wake), target));
        }
        self.streams.wake.notify_one();
        feed
    }

    /// A feed's task: waits for a change (or the recheck), recomputes at most once per
    /// [`PUSH_INTERVAL`], pushes what differs; retires the feed when its last subscriber left.
    async fn run_feed(self, feed: Arc<Feed>) {
        let mut last_run: Option<Instant> = None;
        let mut before: BTreeMap<Key, Arc<Shown>> = BTreeMap::new();
        loop {
            tokio::select! {
                () = feed.changed.notified() => {}
                () = tokio::time::sleep(RECHECK_INTERVAL) => {}
            }
            if let Some(at) = last_run {
                tokio::time::sleep_until((at + PUSH_INTERVAL).into()).await;
            }
            last_run = Some(Instant::now());
            let _serial = feed.serial.lock().await;
            if self.streams.retire(&feed) {
                return;
            }
            let keys: BTreeSet<Key> = feed
                .subscribers
                .lock()
                .expect("subscribers")
                .iter()
                .map(|s| (s.limit, s.segment.clone()))
                .collect();
            self.streams.recomputes.fetch_add(1, Ordering::Relaxed);
            // The change may be a transition made by another instance: read the state afresh.
            self.reads.forget_state(&feed.board, feed.period);
            match self.recompute(&feed, keys).await {
                Ok(now) => self.streams.push(&feed, &now, &mut before),
                Err(error) => tracing::warn!(board = %feed.board, period = %feed.period, %error,
                    "live ranking not read; trying again at the next change or recheck"),
            }
        }
    }

    /// Reads the state and each key's top N, as the public reads them, from the primary. A
    /// public freeze (seen in the state, or refused by a segment's read when it began in
    /// between) leaves every segment key unread.
    async fn recompute(&self, feed: &Feed, keys: BTreeSet<Key>) -> Result<Recomputed, EngineError> {
        let scope = self.reads.scope_of(&feed.board, feed.period).await?;
        let status = self.reads.status_for_reads(&feed.board, feed.period).await?;
        let mut segments_frozen = status.public_freeze().is_some();
        let mut pages = BTreeMap::new();
        for key in keys {
            let page = match &key.1 {
                None => self.reads.ranking_page_fresh(&scope, 0, key.0).await?,
                Some(_) if segments_frozen => continue,
                Some(segment) => {
                    let in_segment = scope.clone().in_segment(Some(&segment.to_string()))?;
                    match self.reads.ranking_page_fresh(&in_segment, 0, key.0).await {
                        Ok(page) => page,
                        Err(EngineError::Refused { code: ErrorCode::SegmentFrozen, .. }) => {
                            segments_frozen = true;
                            continue;
                        }
                        Err(error) => return Err(error),
                    }
                }
            };
            pages.insert(key, page);
        }
        if !segments_frozen && pages.keys().any(|(_, segment)| segment.is_some()) {
            // A public freeze (and a write it hides) may have come between the state read and a
            // segment's: ask the ledger again, so a page read after a freeze never goes out.
            self.reads.forget_state(&feed.board, feed.period);
            let after = self.reads.status_for_reads(&feed.board, feed.period).await?;
            segments_frozen = after.public_freeze().is_some();
        }
        if segments_frozen {
            // A segment read before the freeze was seen is not pushed either.
            pages.retain(|(_, segment), _| segment.is_none());
        }
        Ok(Recomputed { state: status.state, pages, segments_frozen })
    }
}
