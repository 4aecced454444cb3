//! Test harness for the engine's integration tests: real stores on loopback, started by
//! `scripts/test` (see docs/ARCHITECTURE.md). Each test owns a unique key prefix and database and
//! removes only those — never FLUSHDB.
//!
//! Each Redis test runs on standalone **and** Cluster, under its own key prefix; each ledger test
//! on SQLite (a temporary file) **and** PostgreSQL (a database of its own, dropped after). The
//! stores and their environment variables are listed in docs/ARCHITECTURE.md, "Test".
#![allow(dead_code)]

use engine::Engine;
use engine::ledger::Ledger;
use engine::redis::keys::KeySpace;
use engine::redis::{Projection, RedisTarget};
use std::sync::atomic::{AtomicU32, Ordering};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the test suite with scripts/test, which starts the stores")
    })
}

/// A name no other test (or test process) uses.
pub fn unique(kind: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{kind}_{}_{}_{nanos}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// The Redis deployments every projection test runs against.
pub fn redis_targets() -> Vec<(&'static str, RedisTarget)> {
    vec![
        ("standalone", RedisTarget::parse(&env("LAUREL_TEST_REDIS_URL")).unwrap()),
        ("cluster", RedisTarget::parse(&env("LAUREL_TEST_REDIS_CLUSTER_URL")).unwrap()),
    ]
}

/// A projection under a fresh prefix; `cleanup` deletes that prefix's keys on every node.
pub struct TestProjection {
    pub projection: Projection,
}

impl TestProjection {
    pub fn new(target: RedisTarget) -> Self {
        Self { projection: Projection::new(target, KeySpace::new(unique("test"))) }
    }

    fn nodes(&self) -> Vec<String> {
        match self.projection.target() {
            RedisTarget::Standalone(url) => vec![url.clone()],
            RedisTarget::Cluster(nodes) => nodes.clone(),
        }
    }

    /// Every key under this test's prefix, with the node that holds it (a Cluster node only
    /// scans its own slots, so each master is asked directly).
    pub async fn keys(&self) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for node in self.nodes() {
            let mut conn =
                redis::Client::open(node.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
            let mut iter: redis::AsyncIter<String> = redis::cmd("SCAN")
                .cursor_arg(0)
                .arg("MATCH")
                .arg(self.projection.keys().pattern())
                .arg("COUNT")
                .arg(1000)
                .clone()
                .iter_async(&mut conn)
                .await
                .unwrap();
            while let Some(key) = iter.next_item().await {
                found.push((node.clone(), key.unwrap()));
            }
        }
        found
    }

    /// Runs one command of the test's own, routed by its key (on a Cluster, to its slot's node).
    pub async fn run(&self, cmd: &redis::Cmd) -> redis::Value {
        match self.projection.target() {
            RedisTarget::Standalone(url) => {
                let client = redis::Client::open(url.as_str()).unwrap();
                cmd.query_async(&mut client.get_multiplexed_async_connection().await.unwrap()).await.unwrap()
            }
            RedisTarget::Cluster(nodes) => {
                let client = redis::cluster::ClusterClient::new(nodes.clone()).unwrap();
                cmd.query_async(&mut client.get_async_connection().await.unwrap()).await.unwrap()
            }
        }
    }

    /// Empties the script cache on every node (EVALSHA must then fall back to loading).
    pub async fn flush_scripts(&self) {
        for node in self.nodes() {
            let mut conn =
                redis::Client::open(node.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
            redis::cmd("SCRIPT").arg("FLUSH").exec_async(&mut conn).await.unwrap();
        }
    }

    /// Deletes every key under this test's prefix (and nothing else).
    pub async fn cleanup(&self) {
        for (node, key) in self.keys().await {
            let mut conn =
                redis::Client::open(node.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
            redis::cmd("UNLINK").arg(&key).exec_async(&mut conn).await.unwrap();
        }
        assert!(self.keys().await.is_empty(), "keys left under the test prefix");
    }
}

/// A ledger in its own database; `drop_db` removes it.
pub struct TestLedger {
    pub name: &'static str,
    pub ledger: Ledger,
    /// The database's URL, for a test that reaches under the ledger (an older schema's rows).
    pub url: String,
    cleanup: Cleanup,
}

enum Cleanup {
    File(std::path::PathBuf),
    Database { admin_url: String, db: String },
}

impl TestLedger {
    pub async fn sqlite() -> Self {
        let dir = std::env::temp_dir().join(unique("laurel-ledger"));
        let url = format!("sqlite://{}/ledger.db", dir.display());
        let ledger = Ledger::connect(&url).await.unwrap();
        Self { name: "sqlite", ledger, url, cleanup: Cleanup::File(dir) }
    }

    pub async fn postgres() -> Self {
        let admin_url = env("LAUREL_TEST_POSTGRES_URL");
        let db = unique("laurel");
        admin(&admin_url, &format!("CREATE DATABASE {db}")).await;
        let (base, _) = admin_url.rsplit_once('/').expect("a postgres url ends in /<database>");
        let url = format!("{base}/{db}");
        let ledger = Ledger::connect(&url).await.unwrap();
        Self { name: "postgres", ledger, url, cleanup: Cleanup::Database { admin_url, db } }
    }

    pub async fn both() -> Vec<Self> {
        vec![Self::sqlite().await, Self::postgres().await]
    }

    pub async fn drop_db(self) {
        self.ledger.close().await;
        match self.cleanup {
            Cleanup::File(dir) => std::fs::remove_dir_all(dir).unwrap(),
            Cleanup::Database { admin_url, db } => {
                admin(&admin_url, &format!("DROP DATABASE {db} WITH (FORCE)")).await
            }
        }
    }
}

async fn admin(url: &str, sql: &str) {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    sqlx::query(sql).execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
}

/// An engine over a fresh ledger (already migrated) and a fresh projection prefix.
pub async fn engine(ledger: &TestLedger, projection: &TestProjection) -> Engine {
    ledger.ledger.migrate().await.unwrap();
    Engine::from_parts(ledger.ledger.clone(), projection.projection.clone())
}

/// Another instance of the service beside [`engine`]'s: the same ledger and keys, Redis
/// connections (and grouped calls, and caches) of its own.
pub fn another_instance(ledger: &TestLedger, projection: &TestProjection) -> Engine {
    let keys = projection.projection.keys().clone();
    Engine::from_parts(ledger.ledger.clone(), Projection::new(projection.projection.target().clone(), keys))
}

/// A Redis owned by one test — standalone, or a 3-master Cluster — which the test may stop and
/// restart empty (no persistence; Cluster nodes keep their identity and slots in nodes.conf, as a
/// real node restarted without data would).
pub struct OwnRedis {
    ports: Vec<u16>,
    cluster: bool,
    dir: std::path::PathBuf,
    children: Vec<std::process::Child>,
}

/// A loopback port that is free, and (for Cluster nodes) whose bus port (+10000) is free too.
fn free_port() -> u16 {
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        if port < 55000 && std::net::TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return port;
        }
    }
}

impl OwnRedis {
    pub fn standalone() -> Self {
        Self::start(1, false)
    }

    pub fn cluster() -> Self {
        let redis = Self::start(3, true);
        let nodes: Vec<String> = redis.ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
        let status = std::process::Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&nodes)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(std::process::Stdio::null())
            .status()
            .expect("redis-cli on PATH");
        assert!(status.success(), "cluster create failed");
        redis.wait_ready();
        redis
    }

    fn start(nodes: usize, cluster: bool) -> Self {
        let dir = std::env::temp_dir().join(unique("laurel-own-redis"));
        let ports = (0..nodes).map(|_| free_port()).collect();
        let mut redis = Self { ports, cluster, dir, children: Vec::new() };
        redis.spawn();
        redis
    }

    /// The url the engine is given (a node list for a Cluster).
    pub fn url(&self) -> String {
        self.ports.iter().map(|p| format!("redis://127.0.0.1:{p}")).collect::<Vec<_>>().join(",")
    }

    fn spawn(&mut self) {
        for port in self.ports.clone() {
            let dir = self.dir.join(port.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let mut cmd = std::process::Command::new("redis-server");
            cmd.args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(&dir)
            .stdout(std::process::Stdio::null());
            if self.cluster {
                cmd.args(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]);
                cmd.args(["--cluster-node-timeout", "2000"]);
            }
            self.children.push(cmd.spawn().expect("redis-server on PATH"));
        }
        for port in &self.ports {
            wait_until(|| std::net::TcpStream::connect(("127.0.0.1", *port)).is_ok(), "redis to listen");
        }
    }

    /// Waits until every Cluster node reports `cluster_state:ok`.
    fn wait_ready(&self) {
        for port in &self.ports {
            wait_until(
                || {
                    let out = std::process::Command::new("redis-cli")
                        .args(["-p", &port.to_string(), "cluster", "info"])
                        .output()
                        .unwrap();
                    String::from_utf8_lossy(&out.stdout).contains("cluster_state:ok")
                },
                "the cluster to be ok",
            );
        }
    }

    /// Kills every node; their data is gone.
    pub fn stop(&mut self) {
        for mut child in self.children.drain(..) {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Starts every node again, empty.
    pub fn restart(&mut self) {
        assert!(self.children.is_empty(), "already running");
        self.spawn();
        if self.cluster {
            self.wait_ready();
        }
    }
}

fn wait_until(mut ok: impl FnMut() -> bool, what: &str) {
    for _ in 0..300 {
        if ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The settlement tests' board: incr, Asia/Shanghai, points within ±1,000,000, gold for rank 1
/// and silver for ranks 2–3. `tag` names it (and prefixes its unique slug).
pub fn prized_board(tag: &str, policy: domain::TiePolicy, freeze_grace_seconds: i64) -> domain::Board {
    use domain::board::Prize;
    use domain::{BoardSlug, Cadence, Operator, ScoreCodec, TiePolicy};
    let tie_base = if policy == TiePolicy::Shared { 1 } else { 1_000_000 };
    domain::Board {
        slug: BoardSlug::parse(unique(tag).replace('_', "-").to_lowercase()).unwrap(),
        title: tag.into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("Asia/Shanghai").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(policy, -1_000_000, 1_000_000, tie_base).unwrap(),
        freeze_grace_seconds,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![
            Prize { from_rank: 1, to_rank: 1, prize: "gold".into() },
            Prize { from_rank: 2, to_rank: 3, prize: "silver".into() },
        ],
        unit: domain::Unit::Points,
    }
}

/// A point event of `member`, occurring now.
pub fn point(event: &str, member: &str, delta: i64) -> domain::write::Write {
    domain::write::Write {
        member: domain::MemberId::parse(member).unwrap(),
        change: domain::write::Change::Point { event_id: domain::EventId::parse(event).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: Default::default(),
    }
}

/// The code of the conflict a call answered; any other answer fails the test.
pub fn conflict_code(r: Result<impl std::fmt::Debug, engine::EngineError>) -> &'static str {
    match r {
        Err(engine::EngineError::Refused { code, .. }) => code.as_str(),
        other => panic!("expected a conflict, got {other:?}"),
    }
}

/// The digest a settlement of these totals must have, computed by the domain alone (reach
/// sequences 0: only for boards whose totals do not tie under `first_reached`).
pub fn expected_digest(b: &domain::Board, period: &str, totals: &[(&str, i64)]) -> String {
    use domain::settlement::{FinalTotal, canonical_text, standings};
    use sha2::{Digest, Sha256};
    let totals = totals
        .iter()
        .map(|(mb, pts)| FinalTotal {
            member: domain::MemberId::parse(*mb).unwrap(),
            points: *pts,
            reach_seq: 0,
        })
        .collect();
    let text =
        canonical_text(b.slug.as_str(), period, &standings(b.sort(), b.tie_policy(), totals, &b.prizes));
    Sha256::digest(text.as_bytes()).iter().map(|x| format!("{x:02x}")).collect()
}

/// Runs `test` on every store combination (Redis standalone and Cluster × SQLite and PostgreSQL),
/// each with a fresh engine, prefix and database, cleaned up after; `test` gets the combination's
/// name for its messages.
pub async fn each_store(test: impl AsyncFn(&str, &Engine, &TestProjection)) {
    for (redis_name, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            test(&format!("{redis_name}/{}", t.name), &e, &p).await;
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

/// [`each_store`], with the combination's ledger URL too (for tests that read tables directly).
pub async fn each_store_at(test: impl AsyncFn(&str, &Engine, &TestProjection, &str)) {
    for (redis_name, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            test(&format!("{redis_name}/{}", t.name), &e, &p, &t.url).await;
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

/// A prized board (gold for rank 1, silver for 2–3) whose current period holds u1 50, u2 30,
/// u3 30, u4 25 (events e4 and e6) and u5 5 (events e1–e6), all applied and projected; answers
/// the board and the period's key.
pub async fn five_members(e: &Engine, tag: &str, policy: domain::TiePolicy) -> (domain::Board, String) {
    let b = prized_board(tag, policy, 60);
    e.boards().create_board(&b).await.unwrap();
    let writes = [
        point("e1", "u1", 50),
        point("e2", "u2", 30),
        point("e3", "u3", 30),
        point("e4", "u4", 10),
        point("e5", "u5", 5),
        point("e6", "u4", 15),
    ];
    let out = e.writes().record(&b, &writes).await.unwrap();
    assert!(
        out.iter().all(|r| r.recorded.outcome == domain::write::Outcome::Applied && r.projected),
        "{out:?}"
    );
    let period = b.period_at(jiff::Timestamp::now()).to_string();
    (b, period)
}

/// Stores `board` with the columns of the first schema (for tests that stop an older schema's
/// ledger part-way: the current `create_board` names columns added since).
pub async fn create_board_in_old_schema(url: &str, board: &domain::Board) {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    let (min, max) = board.codec.bounds();
    sqlx::query(
        "INSERT INTO boards (slug, title, cadence, time_zone, operator, tie_policy, min_points, max_points, \
         tie_base, freeze_grace_seconds, prizes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0)",
    )
    .bind(board.slug.as_str())
    .bind(&board.title)
    .bind(board.cadence.as_str())
    .bind(board.time_zone())
    .bind(board.operator.as_str())
    .bind(board.tie_policy().as_str())
    .bind(min)
    .bind(max)
    .bind(board.codec.tie_base())
    .bind(board.freeze_grace_seconds)
    .bind(serde_json::to_string(&board.prizes).unwrap())
    .execute(&mut conn)
    .await
    .unwrap();
}
