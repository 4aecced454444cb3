//! Where Redis is and how to reach it: the target (standalone or Cluster), replica reads, the
//! one client type for both, and read-only scripts that may run on a replica.
//!
//! **Replica reads.** With `--read-from-replicas` ([`ReplicaReads`]) the reads that may lag go to
//! replicas: on a Cluster to a replica of the key's slot (redis-rs routes read-only commands
//! there; the read scripts run as `EVALSHA_RO`, Redis 7), on a standalone Redis to the replica at
//! `--redis-replica-url`. Replication is asynchronous, so a replica may be a moment behind: that
//! is allowed for public boards, never for a read that follows the caller's own write. Each read
//! says where it goes with [`ReadFrom`]:
//!
//! - replica (public, may lag): ranking pages, top-N, cursor pages and around-me (`window.lua` on
//!   `:rank`); counts (`ZCOUNT`) and member ranks (`ranks.lua`); hot-board merges (bucket slices
//!   on the bulk connection: O(N) work where it cannot hurt the primary; the clock is still the
//!   primary's);
//! - primary: live pushes (`Reads::ranking_page_fresh`: a push is made because a write just
//!   changed the ranking); snapshots, pinning and every page of one (the copy is read right after
//!   it was made); the console's live reads during a public freeze (`Source::Unfrozen`) and the
//!   public-freeze marker (admins act on what they read); version sums, levelling, rebuilds, the
//!   settlement's cross-check, rate limits and hot hits (they decide writes).
//!
//! A write's answer carries the new total and version, so a host never needs to read back its own
//! write. If a replica cannot be read, the read goes to the primary, and so do replica reads for
//! the next second (`Projection::replica_failed`): a replica's failure never pauses the primary's
//! projection the way a failed primary read does (`Projection::guarded`).

use ::redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use ::redis::cluster::ClusterClientBuilder;
use ::redis::cluster_async::ClusterConnection;
use ::redis::cluster_read_routing::RandomReplicaStrategy;
use ::redis::{
    Cmd, ErrorKind, FromRedisValue, Pipeline, RedisFuture, RedisResult, Script, ServerErrorKind, Value,
};
use std::time::Duration;

/// How long one command may take before the caller gives up and relies on the ledger.
pub(super) const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Opens a connection to `target` whose calls give up after `response_timeout`. On a Cluster,
/// `replicas` routes read-only commands to a replica of their slot (the others still go to its
/// primary).
pub(super) async fn connect(
    target: &RedisTarget,
    response_timeout: Duration,
    replicas: bool,
) -> RedisResult<RedisConn> {
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
/// go to replicas (the module doc lists which reads do). Replication is asynchronous, so
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
pub(super) struct ReadScript {
    code: &'static str,
    hash: String,
}

impl ReadScript {
    pub(super) fn new(code: &'static str) -> Self {
        Self { code, hash: Script::new(code).get_hash().to_owned() }
    }

    pub(super) async fn run<T: FromRedisValue>(
        &self,
        conn: &mut RedisConn,
        on_replica: bool,
        keys: &[&str],
        args: &[String],
    ) -> RedisResult<T> {
        let (by_hash, by_code) = if on_replica { ("EVALSHA_RO", "EVAL_RO") } else { ("EVALSHA", "EVAL") };
        let call = |name: &str, body: &str| {
            let mut cmd = ::redis::cmd(name);
            cmd.arg(body).arg(keys.len()).arg(keys).arg(args);
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
