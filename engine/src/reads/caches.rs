//! What reads keep in memory, per process: board definitions, period states and top-N pages, each
//! for at most a few seconds, and the read epoch that tells whoever keeps answers made from them
//! that they may no longer hold. Writes never wait for a cache. How stale each may be:
//!
//! - **board definitions**: [`BOARD_CACHE_TTL`] (10 s); only the settings (title, freeze grace,
//!   scheduled public freeze, prizes) ever change (`Reads::edit_board`, which drops this process's
//!   copy at once), and a settlement reads the board fresh from the ledger;
//! - **period states**, with when a public freeze began (the `frozen_at` label; the numbers come
//!   from `:rank`, never from this): 1 s, archived for good; dropped early by a transition, public
//!   freeze or reveal in this process;
//! - **top-N pages** (`Reads::top_shared`, shared as [`SharedTop`] by every reader of the second):
//!   1 s per board, period and limit; dropped early by a transition in this process, which also
//!   moves `Reads::read_epoch`;
//! - **top-N answer bytes** (the server's `top_cache.rs`, answered before routing): until the
//!   page's time is up (`SharedTop::until`: 1 s, and under `current` never past the period's end),
//!   or a new read epoch;
//! - **display names** (`crate::reads::names`): caught up by profile revision at most 1 s
//!   (`NAME_SYNC_INTERVAL`) behind; a profile written through this process (`PUT …/profile`) shows
//!   at once.
//!
//! So a renamed member shows at once on the instance that took the write and within a second on the
//! others, and a top-10 page may show a name up to a second older than that.

use super::Reads;
use super::check_limit;
use crate::redis::{Source, Window};
use crate::scope::Scope;
use crate::{EngineError, Missing};
use domain::lifecycle::State;
use domain::view::RankingPage;
use domain::{Board, BoardSlug, PeriodKey};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a top-N read is served from memory.
const TOP_CACHE_TTL: Duration = Duration::from_secs(1);

/// Board definitions by slug (see `Reads::board`), shared so a read does not copy one.
pub type BoardCache = std::sync::RwLock<HashMap<BoardSlug, (Instant, Arc<Board>)>>;

/// How long a process keeps a board's definition. Only its settings (title, freeze grace,
/// scheduled public freeze, prize table) ever change (`Reads::edit_board`, which drops this
/// process's copy at once); other processes see an edit within this time, and a settlement reads
/// the board fresh.
pub const BOARD_CACHE_TTL: Duration = Duration::from_secs(10);

/// How long reads trust a period state they looked up (archived is final and kept for good).
const STATE_CACHE_TTL: Duration = Duration::from_secs(1);

/// Period states as reads last saw them (see `Reads::state_for_reads`).
/// With the state, when the period's public view was taken if it is publicly frozen.
pub type StateCache = Mutex<HashMap<(BoardSlug, PeriodKey), (Instant, PeriodStatus)>>;

/// A period's state as reads last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodStatus {
    pub state: State,
    /// While publicly frozen: when its public view was taken.
    pub frozen_at: Option<jiff::Timestamp>,
    /// When the state last changed: for a settled period, its settlement.
    pub changed_at: jiff::Timestamp,
}

impl PeriodStatus {
    /// When the public view was taken while the period is publicly frozen; None once archived,
    /// whose final standings hide nothing.
    pub fn public_freeze(&self) -> Option<jiff::Timestamp> {
        self.frozen_at.filter(|_| self.state != State::Archived)
    }

    /// Whether reads come from the settled standings: archived, or settled and past its keys'
    /// life (`ranking_ttl_days`; the scheduler unlinks them after a grace longer than this cache
    /// lasts). The standings hold what the projection held at settlement, so answers do not change.
    pub fn reads_standings(&self, board: &domain::Board) -> bool {
        match self.state {
            State::Archived => true,
            State::Settled => keys_deadline(board, self.changed_at, self.frozen_at.is_some())
                .is_some_and(|deadline| deadline <= jiff::Timestamp::now()),
            State::Open | State::Frozen => false,
        }
    }
}

/// The most top-N pages kept at once (over all boards, periods and limits).
const TOP_CACHE_PAGES: usize = 1024;

/// One cached top-N page.
struct TopPage {
    at: Instant,
    page: Arc<RankingPage>,
}

/// Top-N pages by board, then (period, limit), each kept at most `TOP_CACHE_TTL`. Keyed by
/// board first so a lookup borrows the request's slug instead of building a key.
#[derive(Default)]
pub struct TopCache {
    pages: Mutex<HashMap<BoardSlug, TopPages>>,
    /// Bumped whenever cached reads of some board may no longer hold (see [`Reads::read_epoch`]).
    epoch: AtomicU64,
}

/// One board's cached top-N pages by (period, limit).
type TopPages = HashMap<(PeriodKey, u64), Arc<TopPage>>;

impl TopCache {
    fn fresh(&self, board: &BoardSlug, period: PeriodKey, limit: u64) -> Option<Arc<TopPage>> {
        let pages = self.pages.lock().expect("top cache");
        let page = pages.get(board)?.get(&(period, limit))?;
        (page.at.elapsed() < TOP_CACHE_TTL).then(|| Arc::clone(page))
    }

    fn keep(&self, board: &BoardSlug, period: PeriodKey, limit: u64, page: Arc<TopPage>) {
        let mut pages = self.pages.lock().expect("top cache");
        if pages.values().map(HashMap::len).sum::<usize>() >= TOP_CACHE_PAGES {
            for periods in pages.values_mut() {
                periods.retain(|_, p| p.at.elapsed() < TOP_CACHE_TTL);
            }
            pages.retain(|_, periods| !periods.is_empty());
        }
        pages.entry(board.clone()).or_default().insert((period, limit), page);
    }
}

/// A top-N page shared by every reader of its second, and until when the words it was asked
/// with still mean it: at most `TOP_CACHE_TTL` after it was read and, for `current`, never
/// past the period's end (from then on `current` names the next period).
#[derive(Debug, Clone)]
pub struct SharedTop {
    pub page: Arc<RankingPage>,
    pub until: Instant,
}

impl Reads {
    /// Resolves a board and a period named by a caller: `current` (or none) is the period
    /// containing now. `NotFound` for a board that does not exist or a key no period of this
    /// board can have.
    pub async fn scope(&self, board: &BoardSlug, period: Option<&str>) -> Result<Scope, EngineError> {
        let board = self.shared_board(board).await?;
        let period = self.period_of(&board, period)?;
        Ok(Scope::new(board, period))
    }

    /// [`Reads::scope`] for a period already parsed for this board's cadence.
    pub async fn scope_of(&self, board: &BoardSlug, period: PeriodKey) -> Result<Scope, EngineError> {
        let board = self.shared_board(board).await?;
        if !board.has_period(period) {
            return Err(EngineError::NotFound {
                what: Missing::Period { key: period.to_string(), why: None },
            });
        }
        Ok(Scope::new(board, period))
    }

    /// A board's definition, from this process's copy when it is at most [`BOARD_CACHE_TTL`] old.
    pub async fn board(&self, slug: &BoardSlug) -> Result<Board, EngineError> {
        Ok(Board::clone(&*self.shared_board(slug).await?))
    }

    /// [`Reads::board`] without copying the definition (the read paths).
    pub(crate) async fn shared_board(&self, slug: &BoardSlug) -> Result<Arc<Board>, EngineError> {
        if let Some((at, board)) = self.boards.read().expect("board cache").get(slug)
            && at.elapsed() < BOARD_CACHE_TTL
        {
            return Ok(Arc::clone(board));
        }
        Ok(Arc::new(self.fresh_board(slug).await?))
    }

    /// A board's definition as the ledger has it now (and this process's copy renewed).
    pub(crate) async fn fresh_board(&self, slug: &BoardSlug) -> Result<Board, EngineError> {
        let board = self
            .core
            .ledger
            .board(slug)
            .await?
            .ok_or_else(|| EngineError::NotFound { what: crate::Missing::Board(slug.clone()) })?;
        self.boards
            .write()
            .expect("board cache")
            .insert(slug.clone(), (Instant::now(), Arc::new(board.clone())));
        Ok(board)
    }

    /// Drops this process's copy of a board (it was edited here).
    pub(crate) fn forget_board(&self, slug: &BoardSlug) {
        self.boards.write().expect("board cache").remove(slug);
        self.forget_cached(slug);
    }

    /// A period's state for reads: archived periods are served from their standings. Cached for
    /// at most a second (an archive by another instance leaves the projection for a grace period
    /// longer than that; see `ARCHIVE_GRACE`), and for good once archived.
    pub(crate) async fn state_for_reads(
        &self,
        board: &BoardSlug,
        period: PeriodKey,
    ) -> Result<State, EngineError> {
        Ok(self.status_for_reads(board, period).await?.state)
    }

    /// [`Reads::state_for_reads`] with when the public view was taken (publicly frozen).
    pub(crate) async fn status_for_reads(
        &self,
        board: &BoardSlug,
        period: PeriodKey,
    ) -> Result<PeriodStatus, EngineError> {
        let key = (board.clone(), period);
        let lasts = |(at, status): &(Instant, PeriodStatus)| {
            status.state == State::Archived || at.elapsed() < STATE_CACHE_TTL
        };
        if let Some(cached) = self.states.lock().expect("state cache").get(&key)
            && lasts(cached)
        {
            return Ok(cached.1);
        }
        let (state, frozen_at, changed_at) = self.core.ledger.period_status(board, &period).await?;
        let status = PeriodStatus { state, frozen_at, changed_at };
        let mut states = self.states.lock().expect("state cache");
        if states.len() >= 4096 {
            states.retain(|_, cached| lasts(cached));
        }
        states.insert(key, (Instant::now(), status));
        Ok(status)
    }

    /// Drops the state reads cached for one period, so the next read asks the ledger (a change
    /// may be a transition made by another instance).
    pub(crate) fn forget_state(&self, board: &BoardSlug, period: PeriodKey) {
        self.states.lock().expect("state cache").remove(&(board.clone(), period));
    }

    /// Drops what reads cached about a board's periods (after a transition in this process).
    pub(crate) fn forget_cached(&self, board: &BoardSlug) {
        self.states.lock().expect("state cache").retain(|(b, _), _| b != board);
        self.top_cache.pages.lock().expect("top cache").remove(board);
        self.top_cache.epoch.fetch_add(1, Ordering::Release);
    }

    /// The top `limit` entries, served from memory for up to a second (the same for every reader
    /// in that second).
    pub async fn top(&self, scope: &Scope, limit: u64) -> Result<RankingPage, EngineError> {
        Ok(self.top_shared(scope, limit).await?.page.as_ref().clone())
    }

    /// [`Reads::top`] without a copy, with how long the page may be answered again to the same
    /// words (a server may keep what it made of it until then; see [`Reads::read_epoch`]).
    pub async fn top_shared(&self, scope: &Scope, limit: u64) -> Result<SharedTop, EngineError> {
        check_limit(limit)?;
        if scope.segment().is_some() {
            // A segment's top is one `window.lua` call on its own slot, not shared: the cache
            // holds the boards' tops, whose readers are many more.
            let page = self.ranking_page(scope, 0, limit).await?;
            return Ok(SharedTop { page: Arc::new(page), until: Instant::now() });
        }
        let (board, key) = (scope.board(), scope.period());
        let top = match self.top_cache.fresh(&board.slug, key, limit) {
            Some(top) => top,
            None => {
                let page = self.read_window(board, key, Source::Live, Window::Offset(0), limit).await?;
                let top = Arc::new(TopPage { at: Instant::now(), page: Arc::new(page) });
                self.top_cache.keep(&board.slug, key, limit, Arc::clone(&top));
                top
            }
        };
        let mut until = top.at + TOP_CACHE_TTL;
        // A page of the current period is not answered past the period's end: a reader who asked
        // for `current` then means the next one.
        let now = jiff::Timestamp::now();
        if board.period_at(now) == key {
            let left = key.span(&board.zone).end.duration_since(now);
            until = until.min(Instant::now() + Duration::try_from(left).unwrap_or(Duration::ZERO));
        }
        Ok(SharedTop { page: Arc::clone(&top.page), until })
    }

    /// A number that changes whenever something this process did (a transition, a hide, an
    /// import, a rebuild) may have made a cached read wrong before its time is up. Whoever keeps
    /// answers made from reads compares it before answering one again.
    pub fn read_epoch(&self) -> u64 {
        self.top_cache.epoch.load(Ordering::Acquire)
    }
}

/// The rule of `Lifecycle::ranking_deadline` for a period settled at `settled_at`: its keys serve
/// until `ranking_ttl_days` later, or for as long as it stays publicly frozen.
pub(crate) fn keys_deadline(
    board: &Board,
    settled_at: jiff::Timestamp,
    publicly_frozen: bool,
) -> Option<jiff::Timestamp> {
    let life = jiff::SignedDuration::from_hours(board.ranking_ttl_days.saturating_mul(24));
    (!publicly_frozen).then(|| settled_at.checked_add(life).unwrap_or(jiff::Timestamp::MAX))
}
