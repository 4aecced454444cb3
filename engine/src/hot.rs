//! Hot boards (docs/DESIGN.md, "Hot boards"): sliding-window rankings kept in Redis alone. No
//! ledger entries, no lifecycle, no audit of hits — only the definition is stored in the ledger,
//! so every instance knows the same boards, and a change of its filter is audited.
//!
//! - [`Hot::hit`]: one hit, checked at the edge ([`HitFilter`], the board's value and action
//!   rules), then counted by one script with its dedup, cap, trim and `EXPIRE NX`
//!   (`redis/scripts/hot_hit.lua`). The bucket comes from the Redis server's clock.
//! - [`Hot::snapshot`]: merges the window (every bucket read in slices and weighted here,
//!   [`domain::hot::WindowMerge`]: Redis is never held for the whole window), compares it
//!   with the previous list ([`domain::hot::rank_changes`]: places gained, new entries; a list
//!   in the same order keeps the previous one's marks) and publishes it once per interval;
//!   then tends the buckets (UNLINK behind the window, TTL and size checks for `/metrics`).
//! - [`Hot::top`]: the public read, served from the published list so every viewer in an
//!   interval sees the same one (docs/DESIGN.md, "Published lists", gives three reasons).
//! - [`Hot::spawn_snapshots`]: the job, run by the one holder of the lease [`LEASE`].
//!
//! **Definition.** A board with `cadence: "hot"` (`POST /api/v1/boards`, parsed in
//! `server/src/rest/boards.rs`, checked by `domain::hot::HotRules::new`, stored in the ledger's
//! `hot_boards`). One slug names one board of either kind, held by both inserts under one lock.
//! Hot boards are listed by `GET /api/v1/boards` and on `/` under "Trending".
//!
//! **Hit** (`POST /api/v1/boards/{board}/hits`, ingest key or admin token): the member must be a
//! `HotMember` (blank, overlong or odd terms are `rejected` at the edge), the actor a member id,
//! the value and action valid (`HotRules::hit_score`), and the installed [`HitFilter`] must accept
//! it (the default accepts every well-formed member) — else `rejected`. The board's own filter
//! (`domain::hot::HotFilter`: only hits with results, no blocked member, only old enough actors;
//! changed by admins with [`Hot::set_filter`]) may still answer `filtered`. Then `hot_hit.lua`, one atomic step: the
//! bucket is the Redis server's `TIME` / bucket length (application clocks cannot split buckets);
//! with an actor, `deduplicated` if the actor already counted for this member in this interval,
//! `capped` at `actor_cap` hits per interval; else `ZINCRBY` (`count`) or `ZADD GT CH` (`best`),
//! `EXPIRE NX` (the TTL is set once and never pushed back), trimming beyond `max_members`
//! (`ZREMRANGEBYRANK`), the dedup marker and the cap counter, both expiring at the interval's
//! end. The interval is `snapshot_seconds`, aligned: dedup and refresh share one window
//! (docs/DESIGN.md, "Dedup, caps and weights"). A board's hits that arrive while a call is in
//! flight go in the next call together (`redis/grouped.rs`), counted one after the other.
//!
//! **Snapshot** (every `laurel serve` runs the job; only the lease holder works, each second):
//! when a board's interval turns, `Projection::hot_merge` reads each of the last `window_buckets`
//! buckets in slices of 1 000 entries (a closed bucket by rank with `ZRANGE … WITHSCORES`, the
//! live one with `ZSCAN … COUNT 1000`), four buckets at a time, on a connection of its own (the
//! bulk connection), and folds them into `domain::hot::WindowMerge` with the board's weights
//! (oldest first), summed or maxed, 100 entries kept. No command holds Redis for longer than one
//! slice; a bucket closed for 2 s is kept in the process (members interned) and only its `ZCARD`
//! is checked at later merges (docs/DESIGN.md, "The window merge"). `hot_publish.lua` stores the
//! list unless one of the same or a later interval is already there (a lease hand-over cannot
//! publish twice). Then `hot_tend.lua` unlinks the buckets that left the window and reports the
//! current bucket's size and the window's buckets without a TTL to `/metrics`
//! (`laurel_hot_bucket_members`, `laurel_hot_keys_without_ttl` — docs/DESIGN.md, "Bucket TTLs" —
//! and `laurel_hot_hits_total{result}` with the dedup and cap refusals).
//!
//! **Read** (`GET /api/v1/boards/{board}/hot/top?limit=`, the page `/hot/{board}`): the published
//! list only; before the first snapshot `updated_at` is null.

use crate::redis::hot::HitArgs;
use crate::{Core, Engine, EngineError, Missing};
use domain::BoardSlug;
use domain::hot::{
    HitFacts, HitResult, HotBoard, HotFilter, HotList, HotMember, HotWindow, SNAPSHOT_ENTRIES, rank_changes,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The lease whose holder takes the snapshots.
pub const LEASE: &str = "hot-snapshots";

/// How often the snapshot job looks for boards whose interval has turned.
pub const TICK: Duration = Duration::from_secs(1);

/// Hot board definitions by slug, with when this process read each. Only the hit filter ever
/// changes; an instance that did not make the change picks it up within [`BOARD_CACHE_TTL`].
type HotBoardCache = std::sync::RwLock<HashMap<BoardSlug, (Instant, HotBoard)>>;

/// How long a process trusts its copy of a hot board's definition.
const BOARD_CACHE_TTL: Duration = Duration::from_secs(5);

/// How long a process serves a board's published list from memory: a public read then costs
/// neither a Redis call nor parsing the list. A list this process publishes replaces its copy at
/// once; one published by another instance shows here at most this much later.
const LIST_CACHE_TTL: Duration = Duration::from_secs(1);

/// Published lists (None: none yet) as this process last read or published them.
type HotListCache = std::sync::Mutex<HashMap<BoardSlug, (Instant, Option<Arc<HotList>>)>>;

/// The validation hook: decides which members may count on a board, before Redis is touched
/// (docs/DESIGN.md, "Dedup, caps and weights": counting only searches with results stops most
/// fake volume). The default, [`AnyMember`], accepts every well-formed member; an embedding
/// application installs its own with [`Engine::with_hit_filter`] (e.g. only terms of its
/// catalogue).
pub trait HitFilter: Send + Sync {
    /// Ok to count, or the reason the hit is `rejected`.
    fn check(&self, board: &HotBoard, member: &HotMember) -> Result<(), String>;
}

/// Accepts every well-formed member (blank, overlong or odd ones never get this far).
pub struct AnyMember;

impl HitFilter for AnyMember {
    fn check(&self, _: &HotBoard, _: &HotMember) -> Result<(), String> {
        Ok(())
    }
}

/// A hit as a host platform sends it: raw values, checked by [`Hot::hit`].
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Hit {
    pub member: String,
    /// The count to add (`count` boards) or the score proposed (`best` boards); default 1.
    pub weight: Option<f64>,
    /// Who caused it (a user id): dedup and caps apply per actor. Hits without one are only
    /// valued, never deduplicated.
    pub actor: Option<String>,
    /// One of the board's `action_weights` (`search`, `click`, `order`).
    pub action: Option<String>,
    /// What the board's filter may ask: how many results the search found, when the actor's
    /// account was made.
    pub results: Option<u64>,
    pub actor_created_at: Option<jiff::Timestamp>,
}

/// What happened to a hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HitOutcome {
    pub result: HitResult,
    /// Why it was rejected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The member's score in the current bucket afterwards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

impl HitOutcome {
    fn refused(result: HitResult, reason: String) -> Self {
        Self { result, reason: Some(reason), score: None }
    }
}

/// A hot board as the API shows it: its definition and its window in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = HotBoard))]
pub struct HotBoardDetails {
    pub slug: BoardSlug,
    pub title: String,
    /// Always `hot`.
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "hot"))]
    pub cadence: &'static str,
    #[serde(flatten)]
    pub rules: domain::hot::HotRules,
    pub window: HotWindow,
}

impl HotBoardDetails {
    pub fn of(board: &HotBoard) -> Self {
        Self {
            slug: board.slug.clone(),
            title: board.title.clone(),
            cadence: domain::board::HOT_CADENCE,
            rules: board.rules.clone(),
            window: HotWindow::of(board),
        }
    }
}

impl Engine {
    /// Installs the validation hook for hits (see [`HitFilter`]).
    pub fn with_hit_filter(mut self, filter: impl HitFilter + 'static) -> Self {
        self.services_mut().hot.filter = Arc::new(filter);
        self
    }
}

/// The hot boards service: their definitions, hits, published lists and the snapshot job. Owns
/// the caches of definitions and lists and the hit filter.
#[derive(Clone)]
pub struct Hot {
    core: Core,
    boards: Arc<HotBoardCache>,
    lists: Arc<HotListCache>,
    /// Which members may count (see [`HitFilter`]).
    filter: Arc<dyn HitFilter>,
}

impl Hot {
    pub(crate) fn new(core: Core) -> Self {
        Self { core, boards: Arc::default(), lists: Arc::default(), filter: Arc::new(AnyMember) }
    }

    /// Stores a new hot board; `board_exists` when the slug names a board of either kind.
    pub async fn create_board(&self, board: &HotBoard) -> Result<HotBoard, EngineError> {
        if !self.core.ledger.create_hot_board(board, jiff::Timestamp::now()).await? {
            return Err(EngineError::BoardExists(board.slug.to_string()));
        }
        Ok(board.clone())
    }

    /// A hot board's definition, read from the ledger at most once per [`BOARD_CACHE_TTL`].
    pub async fn board(&self, slug: &BoardSlug) -> Result<HotBoard, EngineError> {
        if let Some((read, board)) = self.boards.read().expect("hot board cache").get(slug)
            && read.elapsed() < BOARD_CACHE_TTL
        {
            return Ok(board.clone());
        }
        let board = self
            .core
            .ledger
            .hot_board(slug)
            .await?
            .ok_or_else(|| EngineError::NotFound { what: Missing::HotBoard(slug.clone()) })?;
        self.remember(&board);
        Ok(board)
    }

    fn remember(&self, board: &HotBoard) {
        let mut boards = self.boards.write().expect("hot board cache");
        boards.insert(board.slug.clone(), (Instant::now(), board.clone()));
    }

    /// Replaces a board's hit filter (checked by `domain::hot::HotFilter::checked`), audited as
    /// `hot_filter`. This process
    /// applies it at once, the others within [`BOARD_CACHE_TTL`].
    pub async fn set_filter(
        &self,
        slug: &BoardSlug,
        filter: HotFilter,
        actor: &str,
    ) -> Result<HotBoard, EngineError> {
        let filter = filter.checked().map_err(EngineError::Invalid)?;
        let board = self
            .core
            .ledger
            .set_hot_filter(slug, &filter, actor, jiff::Timestamp::now())
            .await?
            .ok_or_else(|| EngineError::NotFound { what: Missing::HotBoard(slug.clone()) })?;
        self.remember(&board);
        Ok(board)
    }

    /// Counts one hit now (the Redis server's clock picks the bucket).
    pub async fn hit(&self, board: &BoardSlug, hit: &Hit) -> Result<HitOutcome, EngineError> {
        self.hit_at(board, hit, None).await
    }

    /// Counts one hit as of `at_ms` (unix ms) instead of the server's clock: for tests that
    /// move through buckets without waiting.
    pub async fn hit_at(
        &self,
        slug: &BoardSlug,
        hit: &Hit,
        at_ms: Option<i64>,
    ) -> Result<HitOutcome, EngineError> {
        let board = self.board(slug).await?;
        let now = at_ms
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
            .unwrap_or_else(jiff::Timestamp::now);
        let facts = HitFacts { results: hit.results, actor_created_at: hit.actor_created_at };
        let outcome = match self.check_hit(&board, hit) {
            Err(reason) => HitOutcome::refused(HitResult::Rejected, reason),
            Ok((member, score)) => match board.rules.filter.check(&member, facts, now) {
                Err(reason) => HitOutcome::refused(HitResult::Filtered, reason),
                Ok(()) => {
                    let args = HitArgs { member: &member, score, actor: hit.actor.as_deref(), at_ms };
                    let answer = self.core.projection.hot_hit(slug, &board.rules, args).await?;
                    HitOutcome { result: answer.result, reason: None, score: answer.score }
                }
            },
        };
        self.core.metrics.count_hit(slug, outcome.result);
        Ok(outcome)
    }

    /// The edge checks of a hit: its member, actor, value and action. Answers the member and
    /// what the hit is worth.
    fn check_hit(&self, board: &HotBoard, hit: &Hit) -> Result<(HotMember, f64), String> {
        let member = HotMember::parse(&hit.member)?;
        if let Some(actor) = &hit.actor {
            domain::MemberId::parse(actor.as_str()).map_err(|e| format!("actor: {e}"))?;
        }
        let score = board.rules.hit_score(hit.weight, hit.action.as_deref())?;
        self.filter.check(board, &member)?;
        Ok((member, score))
    }

    /// Every hot board, by slug, for the list of boards.
    pub async fn summaries(&self) -> Result<Vec<domain::hot::HotBoardSummary>, EngineError> {
        let boards = self.core.readable("boards", self.core.ledger.hot_boards().await?);
        Ok(boards.iter().map(domain::hot::HotBoardSummary::of).collect())
    }

    /// The published list, if any. One that cannot be read (written by another version) counts
    /// as absent: the next snapshot replaces it, and a reader is never blamed for it.
    async fn published(&self, slug: &BoardSlug) -> Result<Option<HotList>, EngineError> {
        let Some(json) = self.core.projection.hot_snapshot(slug).await? else { return Ok(None) };
        match serde_json::from_str(&json) {
            Ok(list) => Ok(Some(list)),
            Err(error) => {
                tracing::warn!(board = %slug, %error, "published hot list unreadable; treated as absent");
                Ok(None)
            }
        }
    }

    /// The public list: the latest snapshot, its first `limit` entries.
    pub async fn top(&self, slug: &BoardSlug, limit: usize) -> Result<HotList, EngineError> {
        if limit == 0 || limit > SNAPSHOT_ENTRIES {
            return Err(EngineError::Invalid(format!("limit must be between 1 and {SNAPSHOT_ENTRIES}")));
        }
        let board = self.board(slug).await?;
        let cached = {
            let lists = self.lists.lock().expect("hot list cache");
            lists.get(slug).filter(|(at, _)| at.elapsed() < LIST_CACHE_TTL).map(|(_, list)| list.clone())
        };
        let published = match cached {
            Some(list) => list,
            None => {
                let list = self.published(slug).await?.map(Arc::new);
                let mut lists = self.lists.lock().expect("hot list cache");
                lists.insert(slug.clone(), (Instant::now(), list.clone()));
                list
            }
        };
        Ok(match published {
            Some(list) => HotList {
                updated_at: list.updated_at,
                snapshot_seconds: list.snapshot_seconds,
                window: list.window.clone(),
                entries: list.entries.iter().take(limit).cloned().collect(),
            },
            None => HotList {
                updated_at: None,
                snapshot_seconds: board.rules.snapshot_seconds,
                window: HotWindow::of(&board),
                entries: Vec::new(),
            },
        })
    }

    /// Takes a snapshot as of `at_ms` (None: the Redis server's clock): merges the window,
    /// compares with the published list and publishes the result unless a list for this interval
    /// is already out (answers None then). Then tends the buckets and updates the metrics.
    pub async fn snapshot(
        &self,
        slug: &BoardSlug,
        at_ms: Option<i64>,
    ) -> Result<Option<HotList>, EngineError> {
        let board = self.board(slug).await?;
        let rules = &board.rules;
        let started = Instant::now();
        let merged = self.core.projection.hot_merge(slug, rules, SNAPSHOT_ENTRIES, at_ms).await?;
        let (now_ms, top, heat) = (merged.now_ms, merged.top, merged.heat);
        tracing::debug!(board = %slug, entries = merged.entries_read, fetched = merged.entries_fetched,
            ms = started.elapsed().as_millis() as u64, "hot window merged");
        // The previous list's entries with their marks: a list in the same order keeps them.
        let previous = self.published(slug).await?.map(|list| list.entries);
        let list =
            HotList {
                updated_at: Some(jiff::Timestamp::from_millisecond(now_ms).map_err(|e| {
                    EngineError::Invalid(format!("the Redis clock answered {now_ms} ms: {e}"))
                })?),
                snapshot_seconds: rules.snapshot_seconds,
                window: HotWindow::of(&board),
                entries: rank_changes(previous.as_deref(), &top),
            };
        let mut list = list;
        domain::hot::heat_shares(&mut list.entries, heat);
        let seq = now_ms / (rules.snapshot_seconds as i64 * 1000);
        let json = serde_json::to_string(&list).expect("a hot list serialises");
        let published = self.core.projection.hot_publish(slug, seq, &json, rules.ttl_seconds).await?;
        if published {
            let mut lists = self.lists.lock().expect("hot list cache");
            lists.insert(slug.clone(), (Instant::now(), Some(Arc::new(list.clone()))));
        }
        let tended = self.core.projection.hot_tend(slug, rules, at_ms).await?;
        self.core.metrics.observe_hot(slug, tended, published);
        Ok(published.then_some(list))
    }

    /// One pass of the snapshot job as of `now`: every board whose interval turned since `seen`
    /// was last updated gets a snapshot. Errors are logged per board; the next interval retries.
    async fn pass(&self, seen: &mut HashMap<BoardSlug, i64>, now: jiff::Timestamp) {
        let boards = match self.core.ledger.hot_boards().await {
            Ok(boards) => self.core.readable("hot-snapshots", boards),
            Err(error) => {
                tracing::warn!(%error, "hot boards not listed; the next tick retries");
                return;
            }
        };
        for board in boards {
            let interval = now.as_millisecond() / (board.rules.snapshot_seconds as i64 * 1000);
            if seen.get(&board.slug) == Some(&interval) {
                continue;
            }
            // One attempt per interval, even a failed one: a merge that timed out on our side
            // may still be running in Redis, and retrying at once would pile merges onto it.
            seen.insert(board.slug.clone(), interval);
            if let Err(error) = self.snapshot(&board.slug, None).await {
                tracing::warn!(board = %board.slug, %error, "hot snapshot failed; the next interval tries again");
            }
        }
    }

    /// Runs the snapshot job until `shutdown` resolves. Every instance runs it; each tick it takes
    /// or renews the ledger lease [`LEASE`] and only the holder works. Publication is guarded per
    /// interval as well (`hot_publish.lua`), so even two holders at a lease hand-over publish one
    /// list per interval.
    pub fn spawn_snapshots(
        &self,
        holder: String,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> tokio::task::JoinHandle<()> {
        let hot = self.clone();
        tokio::spawn(async move {
            let mut shutdown = std::pin::pin!(shutdown);
            let mut tick = tokio::time::interval(TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut seen = HashMap::new();
            let mut leading = false;
            loop {
                tokio::select! {
                    () = &mut shutdown => break,
                    _ = tick.tick() => {}
                }
                let now = jiff::Timestamp::now();
                match hot.core.ledger.acquire_lease(LEASE, &holder, TICK * 3, now).await {
                    Ok(Some(_)) => {
                        if !leading {
                            tracing::info!(holder, "hot snapshot leadership gained");
                            leading = true;
                        }
                        hot.pass(&mut seen, now).await;
                    }
                    Ok(None) => {
                        if leading {
                            tracing::info!(holder, "hot snapshot leadership lost");
                            leading = false;
                        }
                    }
                    Err(error) => tracing::warn!(holder, %error, "hot snapshot lease not taken"),
                }
            }
            if leading && let Err(error) = hot.core.ledger.release_lease(LEASE, &holder).await {
                tracing::warn!(holder, %error, "hot snapshot lease not released; it expires");
            }
        })
    }
}
