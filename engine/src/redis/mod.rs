//! The projection: Redis sorted sets that mirror the ledger's totals for live reads. The only
//! module that talks to Redis; key names come from [`keys`], writes go through the Lua scripts in
//! `scripts/`, one per file, each with one typed wrapper that alone knows its argument order:
//! writes here, the ranking reads in `window.rs`, levelling and rebuilds in `level.rs`, rate limits
//! in `rate.rs`, and the features' own in [`hot`], `public.rs`, `snapshots.rs` and `segments.rs`. Where Redis is
//! and how to reach it: `conn.rs`.
//!
//! One client ([`RedisConn`]) serves a standalone server and a Cluster alike. It connects lazily
//! and reconnects by itself, so the service starts and keeps accepting writes while Redis is away
//! (the ledger has them). After a failure, write-path projections, ranking reads and rate checks
//! skip Redis for a second (`PAUSE_AFTER_FAILURE`, `guarded`), so no request waits for a reconnect.
//! Calls with the same key that arrive while one is in flight go together (`grouped.rs`); live
//! boards' pub/sub is `changes.rs`; every key name is `keys.rs`.
//!
//! A bounded board (`keep_top` K) is trimmed to its best K by the write scripts themselves
//! (`project.lua`, `level.lua`: `ZREMRANGEBYRANK`, the trimmed members' versions too); the
//! scripts' comments say why that keeps the version guard sound and when they ask the reconciler
//! for a refill. The best score a trim removed is the ranking's floor (`bounded.lua`); the read
//! scripts answer it with their rows (`floor.lua`), and the engine reads from the ledger wherever
//! an entry does not rank before it (`RawPage::exact`). Laurel needs Redis 7.0 ([`MIN_VERSION`]): `laurel serve` checks every node's
//! `INFO server` at start and `/readyz` reports the versions.
//!
//! Scripts run with `EVALSHA` and fall back to loading on `NOSCRIPT` (redis-rs `Script`); they are
//! never queued inside a pipeline. Each touches one Cluster slot (`keys.rs`). Big keys never leave
//! Redis on its main thread: scripts `UNLINK` a ranking before a `RENAME` lands where it was
//! (`swap.lua`, `public_commit.lua`, `public_end.lua`), an archived period's keys are unlinked
//! after their grace, and snapshot copies are unlinked by the scheduler's sweep when they expire.

pub mod changes;
mod conn;
mod grouped;
pub mod hot;
pub mod keys;
mod level;
mod public;
mod rate;
mod segments;
mod snapshots;
mod window;

pub use conn::{ReadFrom, RedisConn, RedisTarget, ReplicaReads};
pub use window::{Floor, RawPage, Source, Window};

use crate::access::ratelimit::Cell;
use ::redis::{ErrorKind, FromRedisValue, RedisResult, Script, Value};
use conn::{RESPONSE_TIMEOUT, ReadScript, connect};
use domain::segment::Segment;
use domain::{BoardSlug, MemberId, PeriodKey};
use grouped::Grouped;
use keys::KeySpace;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

/// Members per batch of `level.lua` calls and rebuild pipelines.
const BATCH: usize = 500;

static PROJECT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        include_str!("scripts/floor.lua"),
        include_str!("scripts/bounded.lua"),
        include_str!("scripts/project.lua")
    ))
});

/// A hot board's closed buckets kept between merges, and the rules they were read under.
type KeptBuckets = (Option<domain::hot::HotRules>, domain::hot::WindowMerge);

/// A member's total as the projection stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectedTotal {
    pub member: MemberId,
    pub version: i64,
    /// The encoded score (see `domain::score`).
    pub score: i64,
    /// Hidden in the period: the version is recorded in `:ver` (and `vsum`), the member is left
    /// out of `:rank` — so every ranking read leaves it out, and an older version cannot put it
    /// back.
    pub hidden: bool,
}

/// A hidden flag as the scripts take it.
fn flag(hidden: bool) -> &'static str {
    if hidden { "1" } else { "0" }
}

/// After a failed projection, writes skip Redis for this long (answering `projected: false` at
/// once) instead of each waiting for its own timeout; the reconciler keeps probing and levels the
/// projection when Redis is back.
const PAUSE_AFTER_FAILURE: Duration = Duration::from_secs(1);

/// Write requests' projections, by period's ranking (the board's, or one segment's): each call's
/// totals, answered how many members the round's call wrote.
type GroupedProjections = Grouped<GroupedRanking, Vec<ProjectedTotal>, RedisResult<u64>>;
/// A ranking grouped projections write: the board's with its `keep_top` (0: unbounded), which
/// the round's script call trims to, or a segment's (never bounded).
type GroupedRanking = (BoardSlug, PeriodKey, u64, Option<Segment>);
/// Write requests' rate checks, by ingest key id and its limits (share, tolerance).
type GroupedRateChecks = Grouped<(Cell, Duration, Duration), (), RedisResult<Option<Duration>>>;
/// Hot boards' hits, by board and the rules they are counted under (`hot.rs`).
type GroupedHits = Grouped<hot::HitRound, hot::QueuedHit, RedisResult<hot::HitAnswer>>;

/// The projection store.
#[derive(Clone)]
pub struct Projection {
    /// Shared rather than copied: every request clones the engine, and with it the projection.
    target: Arc<RedisTarget>,
    keys: Arc<KeySpace>,
    conn: Arc<OnceCell<RedisConn>>,
    /// A second connection for bulk reads (a hot board's window merge reads every bucket in
    /// slices, megabytes per merge): their replies never queue ahead of the short calls' answers.
    bulk: Arc<OnceCell<RedisConn>>,
    replica_reads: Arc<ReplicaReads>,
    /// The connection of [`ReadFrom::Replica`] reads, when replica reads are on.
    replica: Arc<OnceCell<RedisConn>>,
    /// Until when replica reads go to the primary after a replica failed (see `replica_failed`).
    replica_paused_until: Arc<std::sync::Mutex<Option<Instant>>>,
    /// Each hot board's buckets kept between merges, with the rules they were read under
    /// (`hot.rs`, `Projection::hot_merge`).
    hot_merges: Arc<std::sync::Mutex<HashMap<BoardSlug, Arc<tokio::sync::Mutex<KeptBuckets>>>>>,
    /// Until when write-path projections and ranking reads skip Redis (see [`PAUSE_AFTER_FAILURE`]).
    paused_until: Arc<std::sync::Mutex<Option<Instant>>>,
    /// Write requests' projections waiting for a round, by period (`grouped.rs`).
    projections: Arc<GroupedProjections>,
    /// Rate checks waiting for a round, by cell and its limits.
    rate_checks: Arc<GroupedRateChecks>,
    /// Hits waiting for a round, by hot board and its rules.
    hits: Arc<GroupedHits>,
}

impl Projection {
    pub fn new(target: RedisTarget, keys: KeySpace) -> Self {
        Self {
            target: Arc::new(target),
            keys: Arc::new(keys),
            conn: Arc::new(OnceCell::new()),
            bulk: Arc::new(OnceCell::new()),
            replica_reads: Arc::default(),
            replica: Arc::new(OnceCell::new()),
            replica_paused_until: Arc::default(),
            hot_merges: Arc::default(),
            paused_until: Arc::default(),
            projections: Arc::default(),
            rate_checks: Arc::default(),
            hits: Arc::default(),
        }
    }

    /// Turns replica reads on; refuses a choice that does not fit the target (a replica url
    /// for a Cluster, whose replicas are found by themselves; Cluster replicas for a standalone
    /// server).
    pub fn with_replica_reads(mut self, reads: ReplicaReads) -> Result<Self, String> {
        match (&*self.target, &reads) {
            (_, ReplicaReads::Off) | (RedisTarget::Cluster(_), ReplicaReads::Cluster) => {}
            (RedisTarget::Standalone(_), ReplicaReads::Standalone(url)) => {
                if !matches!(RedisTarget::parse(url)?, RedisTarget::Standalone(_)) {
                    return Err(format!("the replica url {url:?} must name one server"));
                }
            }
            (RedisTarget::Standalone(_), ReplicaReads::Cluster) => {
                return Err("reading from replicas of a standalone Redis needs the replica's url \
                            (--redis-replica-url)"
                    .into());
            }
            (RedisTarget::Cluster(_), ReplicaReads::Standalone(_)) => {
                return Err("a replica url is for a standalone Redis: a Cluster's replicas are \
                            found from its nodes (--read-from-replicas alone)"
                    .into());
            }
        }
        self.replica_reads = Arc::new(reads);
        Ok(self)
    }

    /// Where replica reads go, if they are on: the target and whether to route to replicas.
    fn replica_target(&self) -> Option<(RedisTarget, bool)> {
        match &*self.replica_reads {
            ReplicaReads::Off => None,
            ReplicaReads::Cluster => Some(((*self.target).clone(), true)),
            ReplicaReads::Standalone(url) => Some((RedisTarget::Standalone(url.clone()), false)),
        }
    }

    /// The replica connection for a read `from`, if replica reads are on, `from` allows it and no
    /// replica read failed in the last [`PAUSE_AFTER_FAILURE`].
    async fn replica_conn(&self, from: ReadFrom) -> Option<RedisConn> {
        let (ReadFrom::Replica, Some((target, routed))) = (from, self.replica_target()) else { return None };
        let until = *self.replica_paused_until.lock().expect("pause lock");
        if until.is_some_and(|t| Instant::now() < t) {
            return None;
        }
        match self.replica.get_or_try_init(|| connect(&target, RESPONSE_TIMEOUT, routed)).await {
            Ok(conn) => Some(conn.clone()),
            Err(error) => {
                self.replica_failed(&error);
                None
            }
        }
    }

    /// A replica that cannot be read sends reads to the primary for a while: it never pauses the
    /// primary's projection (writes) the way a failed primary read does.
    fn replica_failed(&self, error: &::redis::RedisError) {
        tracing::warn!(%error, "a replica read failed; reading the primary for a second");
        *self.replica_paused_until.lock().expect("pause lock") = Some(Instant::now() + PAUSE_AFTER_FAILURE);
    }

    /// Runs a read-only script `from` a replica when allowed, else (or when the replica fails) on
    /// the primary.
    async fn read_script<T: FromRedisValue>(
        &self,
        script: &ReadScript,
        from: ReadFrom,
        keys: &[&str],
        args: &[String],
    ) -> RedisResult<T> {
        if let Some(mut conn) = self.replica_conn(from).await {
            match script.run(&mut conn, true, keys, args).await {
                Ok(value) => return Ok(value),
                Err(error) => self.replica_failed(&error),
            }
        }
        script.run(&mut self.conn().await?, false, keys, args).await
    }

    fn paused(&self) -> bool {
        let until = *self.paused_until.lock().expect("pause lock");
        until.is_some_and(|t| Instant::now() < t)
    }

    fn pause(&self) {
        *self.paused_until.lock().expect("pause lock") = Some(Instant::now() + PAUSE_AFTER_FAILURE);
    }

    pub fn keys(&self) -> &KeySpace {
        &self.keys
    }

    pub fn target(&self) -> &RedisTarget {
        &self.target
    }

    /// The shared connection, established on first use. A standalone manager is created lazily
    /// and reconnects by itself; a Cluster connection is retried on the next call until it works.
    pub async fn conn(&self) -> RedisResult<RedisConn> {
        Ok(self.conn.get_or_try_init(|| connect(&self.target, RESPONSE_TIMEOUT, false)).await?.clone())
    }

    /// The connection for bulk reads (see `bulk`): a replica's when replica reads are on (only
    /// hot-board merges use it, and they may lag).
    pub(crate) async fn bulk_conn(&self) -> RedisResult<RedisConn> {
        let (target, routed) = self.replica_target().unwrap_or(((*self.target).clone(), false));
        Ok(self.bulk.get_or_try_init(|| connect(&target, RESPONSE_TIMEOUT, routed)).await?.clone())
    }

    /// PING (readiness).
    pub async fn ping(&self) -> RedisResult<()> {
        let mut conn = self.conn().await?;
        ::redis::cmd("PING").query_async::<String>(&mut conn).await?;
        Ok(())
    }

    /// Every node's `redis_version` (one for a standalone server; each master's on a Cluster).
    pub async fn versions(&self) -> RedisResult<Vec<String>> {
        let mut conn = self.conn().await?;
        let info: Value = ::redis::cmd("INFO").arg("server").query_async(&mut conn).await?;
        let texts: Vec<String> = match info {
            Value::Map(nodes) => {
                nodes.into_iter().filter_map(|(_, v)| ::redis::from_redis_value(v).ok()).collect()
            }
            other => vec![::redis::from_redis_value(other)?],
        };
        Ok(texts
            .iter()
            .map(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("redis_version:"))
                    .map_or_else(|| "unknown".to_owned(), |v| v.trim().to_owned())
            })
            .collect())
    }

    /// Why this Redis cannot serve Laurel (a node older than [`MIN_VERSION`]), in words naming
    /// the version found; None when every node is recent enough. On a Cluster every node is asked,
    /// since one old node fails the writes of its slots alone.
    pub async fn version_refusal(&self) -> RedisResult<Option<String>> {
        Ok(self.versions().await?.iter().find_map(|v| too_old(v)))
    }

    /// Whether Redis has reached its `maxmemory` (on a Cluster: any node): then it refuses
    /// writes (`noeviction`), and the projection falls behind the ledger until there is room.
    /// None when there is room or no limit; else the figures, in words.
    pub async fn memory_full(&self) -> RedisResult<Option<String>> {
        let mut conn = self.conn().await?;
        let info: Value = ::redis::cmd("INFO").arg("memory").query_async(&mut conn).await?;
        // One node answers a string; a Cluster connection may answer one string per node.
        let texts: Vec<String> = match info {
            Value::Map(nodes) => {
                nodes.into_iter().filter_map(|(_, v)| ::redis::from_redis_value(v).ok()).collect()
            }
            other => vec![::redis::from_redis_value(other)?],
        };
        Ok(texts.iter().find_map(|text| full_in(text)))
    }

    /// Writes a member's absolute score — or, when hidden, takes it out of the ranking — if
    /// `total.version` is newer than the one projected. Returns whether it was written (false: a
    /// newer or equal version was already there).
    pub async fn project(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        total: &ProjectedTotal,
    ) -> RedisResult<bool> {
        self.guarded(async {
            let keys = self.keys.period(board, period);
            let mut conn = self.conn().await?;
            let written: i64 = PROJECT
                .key(&keys.rank)
                .key(&keys.ver)
                .key(&keys.meta)
                .key(&keys.public)
                .key(&keys.live)
                .arg(total.member.as_str())
                .arg(total.version)
                .arg(total.score)
                .arg(flag(total.hidden))
                .arg(0)
                .invoke_async(&mut conn)
                .await?;
            Ok(written == 1)
        })
        .await
    }

    /// The write path's projection of many totals of one period: one `level.lua` call per batch
    /// instead of a round trip per member, with the same version guard.
    pub async fn project_many(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
    ) -> RedisResult<u64> {
        self.project_kept(board, period, totals, 0).await
    }

    /// [`Projection::project_many`] on a board that keeps only its best `keep` members (0: all).
    pub async fn project_kept(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
        keep: u64,
    ) -> RedisResult<u64> {
        self.guarded(self.level_kept(board, period, totals, keep)).await
    }

    /// Projects one write request's totals of a period, in one `level.lua` call with the totals
    /// of the other requests waiting for that period (`grouped.rs`): a member in several of them
    /// is projected once, at its highest version, which is what the calls one by one would
    /// have left. Answers how many members the round's call wrote.
    pub async fn project_grouped(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: Vec<ProjectedTotal>,
        keep: u64,
    ) -> RedisResult<u64> {
        self.grouped((board.clone(), *period, keep, None), totals).await
    }

    /// One round of grouped projections into `ranking`, shared by the calls waiting for it.
    pub(super) async fn grouped(
        &self,
        ranking: GroupedRanking,
        totals: Vec<ProjectedTotal>,
    ) -> RedisResult<u64> {
        let this = self.clone();
        let round = move |(board, period, keep, segment): &GroupedRanking,
                          calls: Vec<Vec<ProjectedTotal>>| {
            let (this, board, period, keep, segment) =
                (this.clone(), board.clone(), *period, *keep, segment.clone());
            async move {
                let n = calls.len();
                let mut highest: HashMap<MemberId, ProjectedTotal> = HashMap::new();
                for t in calls.into_iter().flatten() {
                    match highest.get(&t.member) {
                        Some(kept) if kept.version >= t.version => {}
                        _ => {
                            highest.insert(t.member.clone(), t);
                        }
                    }
                }
                let totals: Vec<ProjectedTotal> = highest.into_values().collect();
                let written = match &segment {
                    None => this.project_kept(&board, &period, &totals, keep).await,
                    Some(segment) => {
                        let keys = this.keys.segment(&board, &period, segment);
                        this.guarded(this.level_keys(&keys, &totals, 0)).await
                    }
                };
                vec![written; n]
            }
        };
        self.projections.call(ranking, totals, round).await.unwrap_or_else(|| {
            Err(::redis::RedisError::from((ErrorKind::Io, "the period's grouped projection stopped")))
        })
    }

    /// Runs a write-path projection or a ranking read unless paused by a recent failure; a
    /// failure pauses. While paused, writes answer `projected: false` and reads come from the
    /// ledger (`fallback.rs`) at once, instead of each waiting for its own reconnect.
    async fn guarded<T>(&self, call: impl std::future::Future<Output = RedisResult<T>>) -> RedisResult<T> {
        if self.paused() {
            return Err(::redis::RedisError::from((
                ::redis::ErrorKind::Io,
                "projection paused after a recent Redis failure",
            )));
        }
        let result = call.await;
        if result.is_err() {
            self.pause();
        }
        result
    }
}

/// The oldest Redis Laurel runs on: its scripts use 7.0's commands and options (`ZADD GT`,
/// sharded pub/sub, `EXPIRE … NX`), which an older server refuses at the first write.
pub const MIN_VERSION: (u64, u64) = (7, 0);

/// Why a node of version `found` (`INFO server`'s `redis_version`) cannot serve, or None.
/// A version that cannot be read is refused too: Laurel cannot tell it works.
pub fn too_old(found: &str) -> Option<String> {
    let mut parts = found.trim().split('.').map(|p| p.parse::<u64>().ok());
    let (major, minor) = (parts.next().flatten(), parts.next().flatten());
    let ok = match (major, minor) {
        (Some(major), Some(minor)) => (major, minor) >= MIN_VERSION,
        _ => false,
    };
    (!ok).then(|| {
        format!(
            "Redis {found:?} found; Laurel needs Redis {}.{} or newer (its scripts use commands \
             older servers refuse)",
            MIN_VERSION.0, MIN_VERSION.1
        )
    })
}

/// "used X of maxmemory Y" when an `INFO memory` answer shows the limit reached.
fn full_in(info: &str) -> Option<String> {
    let field = |name: &str| {
        info.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(':')?.trim().parse::<u64>().ok())
    };
    let (used, max) = (field("used_memory")?, field("maxmemory")?);
    (max > 0 && used >= max).then(|| format!("used_memory {used} bytes has reached maxmemory {max}"))
}

fn invalid(what: String) -> ::redis::RedisError {
    ::redis::RedisError::from((::redis::ErrorKind::Parse, "unexpected value in the projection", what))
}

fn parse_member(s: String) -> RedisResult<MemberId> {
    MemberId::parse(s).map_err(|e| invalid(e.to_string()))
}

/// Scores are written as integers within ±2^53, so the double Redis returns is exact.
fn parse_score(s: &str) -> RedisResult<i64> {
    let f: f64 = s.parse().map_err(|_| invalid(format!("score {s:?}")))?;
    if f.fract() != 0.0 || f.abs() > domain::score::EXACT_LIMIT as f64 {
        return Err(invalid(format!("score {s:?} is not an exact integer")));
    }
    Ok(f as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_choose_standalone_or_cluster() {
        assert_eq!(
            RedisTarget::parse("redis://127.0.0.1:6379").unwrap(),
            RedisTarget::Standalone("redis://127.0.0.1:6379".into())
        );
        let cluster = RedisTarget::Cluster(vec!["redis://a:1".into(), "redis://b:2".into()]);
        assert_eq!(RedisTarget::parse("redis://a:1,redis://b:2").unwrap(), cluster);
        assert_eq!(RedisTarget::parse("redis+cluster://a:1,b:2").unwrap(), cluster);
        assert_eq!(
            RedisTarget::parse("redis+cluster://a:1").unwrap(),
            RedisTarget::Cluster(vec!["redis://a:1".into()])
        );
        assert!(RedisTarget::parse("http://a").is_err());
        assert!(RedisTarget::parse("").is_err());
    }

    #[test]
    fn a_full_redis_is_told_from_its_info() {
        let info = "# Memory\r\nused_memory:2048\r\nused_memory_human:2K\r\nmaxmemory:1024\r\n";
        assert_eq!(full_in(info).as_deref(), Some("used_memory 2048 bytes has reached maxmemory 1024"));
        assert_eq!(full_in("used_memory:2048\r\nmaxmemory:0\r\n"), None, "no limit");
        assert_eq!(full_in("used_memory:512\r\nmaxmemory:1024\r\n"), None);
    }

    #[test]
    fn redis_older_than_seven_is_refused_by_name() {
        for ok in ["7.0.0", "7.2.4", "8.0.1", "10.0"] {
            assert_eq!(too_old(ok), None, "{ok}");
        }
        for old in ["6.2.14", "5.0.7", "6", "", "unknown", "x.y"] {
            let refusal = too_old(old).unwrap_or_else(|| panic!("{old} accepted"));
            assert!(refusal.contains(&format!("{old:?}")) && refusal.contains("7.0"), "{refusal}");
        }
    }

    #[test]
    fn scores_must_be_exact_integers() {
        assert_eq!(parse_score("1250").unwrap(), 1250);
        assert_eq!(parse_score("-3").unwrap(), -3);
        assert_eq!(parse_score("9007199254740992").unwrap(), 1 << 53);
        assert!(parse_score("1.5").is_err());
        assert!(parse_score("inf").is_err());
    }
}
