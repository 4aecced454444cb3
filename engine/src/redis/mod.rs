//! The projection: Redis sorted sets that mirror the ledger's totals for live reads. The only
//! module that talks to Redis; key names come from [`keys`], writes go through the Lua scripts in
//! `scripts/` (one per file, each with a typed wrapper here that alone knows its argument order).
//!
//! One client ([`RedisConn`]) serves a standalone server and a Cluster alike. It connects lazily
//! and reconnects by itself, so the service starts and keeps accepting writes while Redis is away
//! (the ledger has them).

pub mod changes;
mod grouped;
pub mod hot;
pub mod keys;
mod public;
mod snapshots;

use crate::access::ratelimit::Cell;
use ::redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use ::redis::cluster::ClusterClientBuilder;
use ::redis::cluster_async::ClusterConnection;
use ::redis::cluster_read_routing::RandomReplicaStrategy;
use ::redis::{
    Cmd, ErrorKind, FromRedisValue, Pipeline, RedisFuture, RedisResult, Script, ServerErrorKind, Value,
};
use domain::{BoardSlug, MemberId, PeriodKey};
use grouped::Grouped;
use keys::KeySpace;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

static PROJECT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/project.lua")));
static WINDOW: LazyLock<ReadScript> = LazyLock::new(|| ReadScript::new(include_str!("scripts/window.lua")));
static RATE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/rate.lua")));
static RANKS: LazyLock<ReadScript> = LazyLock::new(|| ReadScript::new(include_str!("scripts/ranks.lua")));
static LEVEL: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/level.lua")));
static SWAP: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/swap.lua")));

/// Members per batch of `level.lua` calls and rebuild pipelines.
const BATCH: usize = 500;
/// Rebuild batches sent before waiting for the oldest answer.
const REBUILD_IN_FLIGHT: usize = 8;

/// How long one command may take before the caller gives up and relies on the ledger.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Opens a connection to `target` whose calls give up after `response_timeout`. On a Cluster,
/// `replicas` routes read-only commands to a replica of their slot (the others still go to its
/// primary).
async fn connect(target: &RedisTarget, response_timeout: Duration, replicas: bool) -> RedisResult<RedisConn> {
    match target {
        RedisTarget::Standalone(url) => {
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(CONNECT_TIMEOUT))
                .set_response_timeout(Some(response_timeout))
                .set_number_of_retries(2);
            let client = ::redis::Client::open(url.as_str())?;
            Ok(RedisConn::Standalone(ConnectionManager::new_lazy_with_config(client, config)?))
        }
        RedisTarget::Cluster(nodes) => {
            let mut builder = ClusterClientBuilder::new(nodes.clone())
                .connection_timeout(CONNECT_TIMEOUT)
                .response_timeout(response_timeout)
                .retries(2);
            if replicas {
                builder = builder.read_routing_strategy(RandomReplicaStrategy);
            }
            let client = builder.build()?;
            Ok(RedisConn::Cluster(client.get_async_connection().await?))
        }
    }
}

/// Where Redis is: one standalone server or the seed nodes of a Cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisTarget {
    Standalone(String),
    Cluster(Vec<String>),
}

impl RedisTarget {
    /// `redis://host:port` is a standalone server; a comma-separated list of nodes, or a
    /// `redis+cluster://host:port[,host:port…]` url, is a Cluster.
    pub fn parse(url: &str) -> Result<Self, String> {
        let nodes: Vec<&str> = url.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        let cluster = url.starts_with("redis+cluster://") || nodes.len() > 1;
        let normalise = |n: &str| -> Result<String, String> {
            let n = n.strip_prefix("redis+cluster://").unwrap_or(n);
            let n = if n.contains("://") { n.to_owned() } else { format!("redis://{n}") };
            if n.starts_with("redis://") || n.starts_with("rediss://") {
                Ok(n)
            } else {
                Err(format!("unsupported redis url {n:?}: use redis://host:port"))
            }
        };
        if nodes.is_empty() {
            return Err("empty redis url".into());
        }
        let nodes = nodes.into_iter().map(normalise).collect::<Result<Vec<_>, _>>()?;
        Ok(if cluster { RedisTarget::Cluster(nodes) } else { RedisTarget::Standalone(nodes[0].clone()) })
    }
}

/// Replica reads (`--read-from-replicas`): public reads that may lag a moment behind the writes
/// go to replicas (docs/ARCHITECTURE.md lists which reads do). Replication is asynchronous, so
/// nothing a caller reads right after its own write is read there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ReplicaReads {
    #[default]
    Off,
    /// The Cluster's replicas, each read going to a replica of its slot.
    Cluster,
    /// A replica of a standalone server, at this url.
    Standalone(String),
}

/// Which node may answer a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFrom {
    /// The primary: the console, the settlement's cross-checks, live pushes and anything read
    /// right after the caller's own write.
    Primary,
    /// A replica when replica reads are on (else the primary): public reads, which may lag.
    Replica,
}

/// A script that only reads. On a replica connection it runs with `EVALSHA_RO` (Redis 7): a
/// Cluster client that reads from replicas routes only read-only commands there, and a
/// standalone replica refuses scripts that may write.
struct ReadScript {
    code: &'static str,
    hash: String,
}

impl ReadScript {
    fn new(code: &'static str) -> Self {
        Self { code, hash: Script::new(code).get_hash().to_owned() }
    }

    async fn run<T: FromRedisValue>(
        &self,
        conn: &mut RedisConn,
        on_replica: bool,
        key: &str,
        args: &[String],
    ) -> RedisResult<T> {
        let (by_hash, by_code) = if on_replica { ("EVALSHA_RO", "EVAL_RO") } else { ("EVALSHA", "EVAL") };
        let call = |name: &str, body: &str| {
            let mut cmd = ::redis::cmd(name);
            cmd.arg(body).arg(1).arg(key).arg(args);
            cmd
        };
        match call(by_hash, &self.hash).query_async(conn).await {
            // A node that has not seen the script yet (each node keeps its own script cache).
            Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                call(by_code, self.code).query_async(conn).await
            }
            other => other,
        }
    }
}

/// A hot board's closed buckets kept between merges, and the rules they were read under.
type KeptBuckets = (Option<domain::hot::HotRules>, domain::hot::WindowMerge);

/// A connection to standalone Redis or a Cluster; cheap to clone (both sides multiplex).
#[derive(Clone)]
pub enum RedisConn {
    Standalone(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for RedisConn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            RedisConn::Standalone(c) => c.req_packed_command(cmd),
            RedisConn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            RedisConn::Standalone(c) => c.req_packed_commands(pipeline, offset, count),
            RedisConn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            RedisConn::Standalone(c) => c.get_db(),
            RedisConn::Cluster(c) => c.get_db(),
        }
    }
}

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

/// Which window of a ranking to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window<'a> {
    /// From a 0-based position.
    Offset(u64),
    /// A member and `radius` entries on each side.
    Around { member: &'a MemberId, radius: u64 },
    /// Strictly after a keyset cursor (score desc, member desc).
    After { score: i64, member: &'a MemberId },
}

/// Which ranking a window is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
    /// The ranking the public reads: the live one, or the public view while the period is
    /// publicly frozen (`engine::public`).
    Live,
    /// The live ranking whatever the public sees (admins).
    Unfrozen,
    Snapshot(&'a str),
}

/// One window as stored in Redis: raw scores, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPage {
    pub total: u64,
    /// Position (0-based) of the first row.
    pub offset: u64,
    /// Members with strictly more points than the first row.
    pub ahead: u64,
    pub rows: Vec<(MemberId, i64)>,
    /// The score of the entry right after the page, if any (tells ties and "more").
    pub next: Option<i64>,
}

/// After a failed projection, writes skip Redis for this long (answering `projected: false` at
/// once) instead of each waiting for its own timeout; the reconciler keeps probing and levels the
/// projection when Redis is back.
const PAUSE_AFTER_FAILURE: Duration = Duration::from_secs(1);

/// A rebuild in progress (see [`Projection::start_rebuild`]). Several batches are in flight on
/// the multiplexed connection: Redis applies them while the next ones are read and encoded.
pub struct Rebuild {
    keys: keys::PeriodKeys,
    conn: RedisConn,
    in_flight: tokio::task::JoinSet<RedisResult<()>>,
    vsum: i64,
}

impl Rebuild {
    /// Sends `totals` into the rebuild keys, in batches. Hidden members get their version, not
    /// a place in the ranking.
    pub async fn push(&mut self, totals: &[ProjectedTotal]) -> RedisResult<()> {
        for chunk in totals.chunks(BATCH) {
            let scores: Vec<(i64, String)> =
                chunk.iter().filter(|t| !t.hidden).map(|t| (t.score, t.member.to_string())).collect();
            let versions: Vec<(String, i64)> =
                chunk.iter().map(|t| (t.member.to_string(), t.version)).collect();
            self.vsum += chunk.iter().map(|t| t.version).sum::<i64>();
            let mut pipe = ::redis::pipe();
            if !scores.is_empty() {
                pipe.zadd_multiple(&self.keys.rebuild_rank, &scores);
            }
            pipe.hset_multiple(&self.keys.rebuild_ver, &versions);
            while self.in_flight.len() >= REBUILD_IN_FLIGHT {
                self.in_flight.join_next().await.expect("a batch in flight").expect("batch task")?;
            }
            let mut conn = self.conn.clone();
            self.in_flight.spawn(async move { pipe.exec_async(&mut conn).await });
        }
        Ok(())
    }

    /// Waits for every batch, then swaps the rebuilt ranking in atomically (`swap.lua`).
    pub async fn finish(mut self) -> RedisResult<()> {
        while let Some(done) = self.in_flight.join_next().await {
            done.expect("batch task")?;
        }
        let keys = &self.keys;
        SWAP.key(&keys.rank)
            .key(&keys.ver)
            .key(&keys.meta)
            .key(&keys.rebuild_rank)
            .key(&keys.rebuild_ver)
            .key(&keys.public)
            .key(&keys.live)
            .arg(self.vsum)
            .invoke_async::<i64>(&mut self.conn)
            .await?;
        Ok(())
    }
}

/// Write requests' projections, by period: each call's totals, answered how many members the
/// round's call wrote.
type GroupedProjections = Grouped<(BoardSlug, PeriodKey), Vec<ProjectedTotal>, RedisResult<u64>>;
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
        key: &str,
        args: &[String],
    ) -> RedisResult<T> {
        if let Some(mut conn) = self.replica_conn(from).await {
            match script.run(&mut conn, true, key, args).await {
                Ok(value) => return Ok(value),
                Err(error) => self.replica_failed(&error),
            }
        }
        script.run(&mut self.conn().await?, false, key, args).await
    }

    /// Runs a read command `from` a replica when allowed, else (or when the replica fails) on the
    /// primary.
    async fn read_cmd<T: FromRedisValue>(&self, from: ReadFrom, cmd: &Cmd) -> RedisResult<T> {
        if let Some(mut conn) = self.replica_conn(from).await {
            match cmd.query_async(&mut conn).await {
                Ok(value) => return Ok(value),
                Err(error) => self.replica_failed(&error),
            }
        }
        cmd.query_async(&mut self.conn().await?).await
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
        self.guarded(self.level(board, period, totals)).await
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
    ) -> RedisResult<u64> {
        let this = self.clone();
        let round = move |(board, period): &(BoardSlug, PeriodKey), calls: Vec<Vec<ProjectedTotal>>| {
            let (this, board, period) = (this.clone(), board.clone(), *period);
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
                vec![this.project_many(&board, &period, &totals).await; n]
            }
        };
        self.projections.call((board.clone(), *period), totals, round).await.unwrap_or_else(|| {
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

    /// Counts one request of `cell` (an ingest key, an anonymous client) against its shared
    /// allowance (`rate.lua`): None when admitted, else how long until one would be. `share` is
    /// one request's part of a second, `tolerance` how far ahead a burst may run. Skipped while
    /// paused, like the write path's other calls: the caller then falls back to its local limit.
    ///
    /// The cell's requests waiting meanwhile are counted in the same call (`grouped.rs`): the
    /// first ones the allowance holds are admitted, in arrival order, as in calls one by one.
    pub async fn rate_check(
        &self,
        cell: Cell,
        share: Duration,
        tolerance: Duration,
    ) -> RedisResult<Option<Duration>> {
        let this = self.clone();
        let round = move |(cell, share, tolerance): &(Cell, Duration, Duration), calls: Vec<()>| {
            let (this, cell, share, tolerance) = (this.clone(), cell.clone(), *share, *tolerance);
            async move {
                let n = calls.len();
                match this.rate_round(&cell, share, tolerance, n).await {
                    Ok((admitted, wait)) => {
                        (0..n).map(|i| Ok((i >= admitted).then(|| Duration::from_micros(wait)))).collect()
                    }
                    Err(e) => vec![Err(e); n],
                }
            }
        };
        self.rate_checks.call((cell, share, tolerance), (), round).await.unwrap_or_else(|| {
            Err(::redis::RedisError::from((ErrorKind::Io, "the grouped rate check stopped")))
        })
    }

    /// Counts `n` requests that arrived together (`rate.lua`): how many of them, first to last,
    /// are admitted, and the µs until the next would be.
    async fn rate_round(
        &self,
        cell: &Cell,
        share: Duration,
        tolerance: Duration,
        n: usize,
    ) -> RedisResult<(usize, u64)> {
        let key = self.keys.rate(cell);
        let (admitted, wait): (u64, u64) = self
            .guarded(async {
                let mut conn = self.conn().await?;
                RATE.key(&key)
                    .arg(share.as_micros() as u64)
                    .arg(tolerance.as_micros() as u64)
                    .arg(n)
                    .invoke_async(&mut conn)
                    .await
            })
            .await?;
        Ok((usize::try_from(admitted).unwrap_or(n).min(n), wait))
    }

    /// How far ingest key `key_id`'s shared allowance runs ahead of now: the expiry `rate.lua`
    /// gives its cell (zero when there is no cell: the whole burst is left).
    pub async fn rate_ahead(&self, key_id: i64) -> RedisResult<Duration> {
        let mut conn = self.conn().await?;
        let ttl_ms: i64 =
            ::redis::cmd("PTTL").arg(self.keys.rate(&Cell::Key(key_id))).query_async(&mut conn).await?;
        Ok(Duration::from_millis(u64::try_from(ttl_ms).unwrap_or(0)))
    }

    /// The sum of the versions projected for a period (0 when Redis holds nothing of it).
    pub async fn version_sum(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<i64> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let sum: Option<i64> =
            ::redis::cmd("HGET").arg(&keys.meta).arg("vsum").query_async(&mut conn).await?;
        Ok(sum.unwrap_or(0))
    }

    /// [`Projection::version_sum`] and the period's public-view marker, in one round trip.
    pub async fn version_sum_and_marker(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> RedisResult<(i64, Option<String>)> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let (sum, marker): (Option<i64>, Option<String>) = ::redis::pipe()
            .cmd("HGET")
            .arg(&keys.meta)
            .arg("vsum")
            .cmd("GET")
            .arg(&keys.public)
            .query_async(&mut conn)
            .await?;
        Ok((sum.unwrap_or(0), marker))
    }

    /// Applies ledger totals with the version guard, in batches; safe while writes continue.
    /// Returns how many members were behind.
    pub async fn level(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
    ) -> RedisResult<u64> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let mut written = 0;
        for chunk in totals.chunks(BATCH) {
            let mut call = LEVEL.key(&keys.rank);
            call.key(&keys.ver).key(&keys.meta).key(&keys.public).key(&keys.live);
            for t in chunk {
                call.arg(t.member.as_str()).arg(t.version).arg(t.score).arg(flag(t.hidden));
            }
            written += call.invoke_async::<u64>(&mut conn).await?;
        }
        Ok(written)
    }

    /// Replaces a period's projection with `totals`: assembled in pipelined batches under
    /// rebuild keys, then swapped in atomically.
    pub async fn rebuild(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
    ) -> RedisResult<()> {
        let mut rebuild = self.start_rebuild(board, period).await?;
        rebuild.push(totals).await?;
        rebuild.finish().await
    }

    /// Starts replacing a period's projection: totals are then [`Rebuild::push`]ed in any number
    /// of calls (a large period streams in from the ledger) and [`Rebuild::finish`] swaps them in.
    pub async fn start_rebuild(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<Rebuild> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        ::redis::pipe().unlink(&keys.rebuild_rank).unlink(&keys.rebuild_ver).exec_async(&mut conn).await?;
        Ok(Rebuild { keys, conn, in_flight: tokio::task::JoinSet::new(), vsum: 0 })
    }

    /// How many members a period's live ranking holds, and the sum of the projected versions
    /// (hidden members' included).
    pub async fn version_summary(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<(u64, i64)> {
        let keys = self.keys.period(board, period);
        let ranking = self.live_ranking(board, period).await?;
        let mut conn = self.conn().await?;
        let (members, vsum): (u64, Option<i64>) = ::redis::pipe()
            .cmd("ZCARD")
            .arg(&ranking)
            .cmd("HGET")
            .arg(&keys.meta)
            .arg("vsum")
            .query_async(&mut conn)
            .await?;
        Ok((members, vsum.unwrap_or(0)))
    }

    /// Every (member, score) of a period's live ranking, read in chunks (settlement's cross-check).
    pub async fn scores(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<HashMap<String, i64>> {
        const CHUNK: isize = 20_000;
        let ranking = self.live_ranking(board, period).await?;
        let mut conn = self.conn().await?;
        let mut all = HashMap::new();
        let mut start = 0;
        loop {
            let chunk: Vec<(String, i64)> = ::redis::cmd("ZRANGE")
                .arg(&ranking)
                .arg(start)
                .arg(start + CHUNK - 1)
                .arg("WITHSCORES")
                .query_async(&mut conn)
                .await?;
            let len = chunk.len() as isize;
            all.extend(chunk);
            if len < CHUNK {
                return Ok(all);
            }
            start += CHUNK;
        }
    }

    /// Gives every key of a period an expiry of `ttl` (an archived period's safety net: its keys
    /// are unlinked after the grace, [`Projection::unlink_period`]).
    pub async fn expire(&self, board: &BoardSlug, period: &PeriodKey, ttl: Duration) -> RedisResult<()> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let mut pipe = ::redis::pipe();
        for key in keys.all() {
            pipe.cmd("PEXPIRE").arg(key).arg(ttl.as_millis() as u64).ignore();
        }
        pipe.exec_async(&mut conn).await
    }

    /// Removes every key of a period with UNLINK: Redis frees a big ranking off its main thread
    /// (an expiry, or DEL, would free it on the main thread and stall every other command).
    pub async fn unlink_period(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<()> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        ::redis::cmd("UNLINK").arg(&keys.all()[..]).exec_async(&mut conn).await
    }

    /// Reads a window of `limit` entries (or a member's neighbourhood) atomically, with the
    /// score of the entry after it. None when `Window::Around` names an absent member. Only the
    /// public ranking (`Source::Live`) is ever read `from` a replica.
    #[allow(clippy::too_many_arguments)]
    pub async fn window(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        source: Source<'_>,
        from: ReadFrom,
        window: Window<'_>,
        limit: u64,
        tie_base: i64,
    ) -> RedisResult<Option<RawPage>> {
        self.guarded(async {
            let key = match source {
                Source::Live => self.keys.rank(board, period),
                Source::Unfrozen => self.live_ranking(board, period).await?,
                Source::Snapshot(id) => self.keys.snapshot(board, period, id).0,
            };
            let (limit_arg, base) = (limit.to_string(), tie_base.to_string());
            let args = match window {
                Window::Offset(offset) => {
                    ["offset", &limit_arg, &base, &offset.to_string()].map(String::from).to_vec()
                }
                Window::Around { member, radius } => {
                    ["around", &limit_arg, &base, member.as_str(), &radius.to_string()]
                        .map(String::from)
                        .to_vec()
                }
                Window::After { score, member } => {
                    ["after", &limit_arg, &base, &score.to_string(), member.as_str()]
                        .map(String::from)
                        .to_vec()
                }
            };
            let from = if matches!(source, Source::Live) { from } else { ReadFrom::Primary };
            let reply: Vec<Value> = self.read_script(&WINDOW, from, &key, &args).await?;
            let mut it = reply.into_iter();
            let mut int =
                || -> RedisResult<i64> { Ok(::redis::from_redis_value(it.next().unwrap_or(Value::Int(0)))?) };
            let total = int()? as u64;
            let offset = int()?;
            if offset < 0 {
                return Ok(None);
            }
            let ahead = int()? as u64;
            let wanted = int()? as usize;
            let mut rows = Vec::new();
            while let (Some(m), Some(s)) = (it.next(), it.next()) {
                let member: String = ::redis::from_redis_value(m)?;
                let score: String = ::redis::from_redis_value(s)?;
                rows.push((parse_member(member)?, parse_score(&score)?));
            }
            let next = (rows.len() > wanted).then(|| rows.pop().map(|(_, s)| s)).flatten();
            Ok(Some(RawPage { total, offset: offset as u64, ahead, rows, next }))
        })
        .await
    }

    /// Raw scores and ranks of `members` (None for absent ones), read atomically.
    pub async fn ranks(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        from: ReadFrom,
        tie_base: i64,
        policy: domain::TiePolicy,
        members: &[MemberId],
    ) -> RedisResult<Vec<Option<(i64, u64)>>> {
        self.guarded(async {
            let keys = self.keys.period(board, period);
            let mut args = vec![tie_base.to_string(), policy.as_str().to_owned()];
            args.extend(members.iter().map(|m| m.as_str().to_owned()));
            let reply: Vec<Value> = self.read_script(&RANKS, from, &keys.rank, &args).await?;
            let mut out = Vec::with_capacity(members.len());
            let mut it = reply.into_iter();
            while let (Some(score), Some(rank)) = (it.next(), it.next()) {
                let score: Option<String> = ::redis::from_redis_value(score)?;
                let rank: u64 = ::redis::from_redis_value(rank)?;
                out.push(match score {
                    Some(s) => Some((parse_score(&s)?, rank)),
                    None => None,
                });
            }
            Ok(out)
        })
        .await
    }

    /// Members whose score is at least `min_score`.
    pub async fn count_at_least(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        from: ReadFrom,
        min_score: i64,
    ) -> RedisResult<u64> {
        self.guarded(async {
            let keys = self.keys.period(board, period);
            self.read_cmd(from, ::redis::cmd("ZCOUNT").arg(keys.rank).arg(min_score).arg("+inf")).await
        })
        .await
    }
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
    fn scores_must_be_exact_integers() {
        assert_eq!(parse_score("1250").unwrap(), 1250);
        assert_eq!(parse_score("-3").unwrap(), -3);
        assert_eq!(parse_score("9007199254740992").unwrap(), 1 << 53);
        assert!(parse_score("1.5").is_err());
        assert!(parse_score("inf").is_err());
    }
}
