//! The fleet test (about 65 s): three `laurel serve` processes on one PostgreSQL database (the
//! fleet test's own server, `LAUREL_TEST_FLEET_POSTGRES_URL`, which it restarts) and the 3+3 Redis
//! Cluster (`LAUREL_TEST_REDIS_REPLICATED_URL`, started by `scripts/test`; no other test uses
//! either), public reads from the Cluster's replicas, a client spreading point events (30 %
//! duplicates, shuffled) over the three, and during the load, one after another:
//!
//! 1. the scheduler's leader `kill -9`ed as soon as the ledger shows its first freeze of 40 due
//!    periods (mid-pass): it is also the instance killed under load, whose failed requests the
//!    client sends again to another instance; it is started again afterwards;
//! 2. a Redis master `kill -9`ed: its replica takes over (cluster-node-timeout 2 s), and the killed
//!    node comes back as a replica;
//! 3. PostgreSQL slowed, silent, cut, then restarted: the instances reach it through
//!    [`proxy::FaultProxy`], which first delays every chunk, then forwards nothing with the
//!    connections open (longer than the client's timeout: the request deadline must answer), then
//!    closes every connection and refuses new ones for 3 s; then the server itself is
//!    restarted in immediate mode (`LAUREL_TEST_FLEET_POSTGRES_RESTART`), as after a crash;
//! 4. every node of the Cluster restarted empty (no persistence, and its `dump.rdb` removed: a
//!    replica would load its last full sync again; nodes keep their identity and slots in
//!    nodes.conf).
//!
//! Then: every event answered `applied` or `duplicate` is in the ledger exactly once and none was
//! answered `applied` twice, the totals equal the unique sums, the projection equals the ledger
//! within 5 s + the reconciler's tick after the load and the last fault, every due period was
//! frozen exactly once (some by an instance other than the killed leader), no client request waited
//! for its timeout, a key limited to 20 req/s was accepted at most its rate over the test plus its
//! bursts (see [`rate_bound`]), and public top pages were read on replicas only.
//!
//! `LAUREL_FLEET_EVENTS` sets the number of events (default 50 000, spread over 50 s);
//! `LAUREL_FLEET_STALL_SECONDS` how long PostgreSQL stays silent (default 16: longer than the
//! client's timeout, 15 s, so a statement in flight must be given up by the request deadline rather
//! than hang its request). Each test run owns its database and key prefix and removes them when it
//! passes (on a failure they are left for a look: the names are printed).

#[path = "support/proxy.rs"]
mod proxy;

use jiff::{SignedDuration, Timestamp, ToSpan};
use proxy::FaultProxy;
use serde_json::{Value, json};
use sqlx::PgPool;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const INSTANCES: usize = 3;
const MEMBERS: usize = 200;
const BATCH: usize = 25;
const WORKERS: usize = 6;
/// How long the load is spread over: the faults all happen inside it.
const LOAD_SECONDS: u64 = 50;
/// When the scheduler's boards fall due, after the load starts.
const DUE_AFTER: i64 = 6;
const SCHEDULED_BOARDS: usize = 40;
/// Time enough to create the scheduler's boards and the events before the load starts.
const SETUP_SECONDS: i64 = 12;
const LIMITED_RATE: u64 = 20;
const LIMITED_BURST: u64 = 20;
/// How long PostgreSQL stays silent: longer than the pool's wait for a connection (5 s) and than
/// the client's timeout, so a statement already sent must be given up by the request deadline
/// (`REQUEST_DEADLINE` in `server/src/rest/mod.rs`, 10 s) for no request to wait for the
/// client's timeout.
const STALL_SECONDS: u64 = 16;
/// Every client request gives up after this; none may need it.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(15);
/// `laurel serve`'s reconciler period.
const RECONCILER_TICK: Duration = Duration::from_secs(2);

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the test suite with scripts/test, which starts the stores")
    })
}

fn unique(kind: &str) -> String {
    let nanos = Timestamp::now().as_nanosecond() % 1_000_000_000;
    format!("{kind}_{}_{nanos}", std::process::id())
}

/// A small deterministic generator (xorshift64*): the shuffle is repeatable from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One event the client sends (a duplicate is the same event again).
#[derive(Clone)]
struct Event {
    id: String,
    member: String,
    delta: i64,
}

/// The three instances: processes of the test's own binary, killed when the test ends.
struct Fleet {
    bin: PathBuf,
    dir: PathBuf,
    stores: Vec<(String, String)>,
    ports: Vec<u16>,
    children: Vec<Option<Child>>,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for child in self.children.iter_mut().flatten() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Fleet {
    fn new(database_url: &str, redis_url: &str, prefix: &str) -> Self {
        let dir = std::env::temp_dir().join(unique("laurel-fleet"));
        std::fs::create_dir_all(&dir).unwrap();
        let stores = vec![
            ("LAUREL_DATABASE_URL".into(), database_url.into()),
            ("LAUREL_REDIS_URL".into(), redis_url.into()),
            ("LAUREL_KEY_PREFIX".into(), prefix.into()),
            ("LAUREL_LOG".into(), "info".into()),
            // Public reads from the Cluster's replicas (checked after the load).
            ("LAUREL_READ_FROM_REPLICAS".into(), "true".into()),
        ];
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_laurel"));
        Self { bin, dir, stores, ports: (0..INSTANCES).map(|_| free_port()).collect(), children: Vec::new() }
    }

    /// Runs a CLI command against the fleet's stores and returns what it printed.
    fn cli(&self, args: &[&str]) -> String {
        let out = Command::new(&self.bin).args(args).envs(self.stores.clone()).output().unwrap();
        assert!(out.status.success(), "laurel {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    fn spawn(&self, i: usize) -> Child {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("laurel-{i}.log")))
            .unwrap();
        Command::new(&self.bin)
            .args(["serve", "--addr", &format!("127.0.0.1:{}", self.ports[i]), "--scheduler-tick", "1"])
            // Its reads poll from one address, as fast as they can: no anonymous limit.
            .args(["--public-rate-per-second", "0"])
            .envs(self.stores.clone())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap()
    }

    async fn start(&mut self) {
        self.children = (0..INSTANCES).map(|i| Some(self.spawn(i))).collect();
        for i in 0..INSTANCES {
            self.wait_ready(i).await;
        }
    }

    async fn wait_ready(&self, i: usize) {
        let client = reqwest::Client::new();
        let url = format!("{}/healthz", self.base(i));
        for _ in 0..600 {
            if client.get(&url).send().await.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("instance {i} did not start (log in {})", self.dir.display());
    }

    fn base(&self, i: usize) -> String {
        format!("http://127.0.0.1:{}", self.ports[i])
    }

    /// `kill -9` of instance `i`.
    fn kill(&mut self, i: usize) {
        let mut child = self.children[i].take().expect("instance running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    fn pid(&self, i: usize) -> Option<u32> {
        self.children[i].as_ref().map(Child::id)
    }
}

/// The 3+3 Cluster of `LAUREL_TEST_REDIS_REPLICATED_URL`, driven through `redis-cli`.
struct Cluster {
    ports: Vec<u16>,
}

fn redis_cli(port: u16, args: &[&str]) -> Option<String> {
    let out = Command::new("redis-cli").arg("-p").arg(port.to_string()).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).replace('\r', ""))
}

impl Cluster {
    fn new(url: &str) -> Self {
        let ports = url
            .split(',')
            .map(|n| n.trim().rsplit(':').next().unwrap().trim_end_matches('/').parse().unwrap())
            .collect::<Vec<u16>>();
        assert_eq!(ports.len(), 6, "a Cluster of 3 masters + 3 replicas: {url}");
        Self { ports }
    }

    /// The ports of the nodes that are masters now (as the first live node sees it).
    fn masters(&self) -> Vec<u16> {
        let nodes =
            self.ports.iter().find_map(|&p| redis_cli(p, &["cluster", "nodes"])).expect("a live node");
        nodes
            .lines()
            .filter(|l| l.contains("master") && !l.contains("fail"))
            .filter_map(|l| l.split_whitespace().nth(1))
            .filter_map(|addr| addr.split('@').next()?.rsplit(':').next()?.parse().ok())
            .collect()
    }

    /// Calls of the read-only script commands each node has run, and whether it is a replica.
    fn script_reads(&self) -> HashMap<u16, (u64, bool)> {
        self.ports
            .iter()
            .map(|&p| {
                let stats = redis_cli(p, &["info", "commandstats"]).expect("a live node");
                let calls = stats
                    .lines()
                    .filter(|l| l.starts_with("cmdstat_evalsha_ro:") || l.starts_with("cmdstat_eval_ro:"))
                    .filter_map(|l| l.split("calls=").nth(1)?.split(',').next()?.parse::<u64>().ok())
                    .sum();
                let replica =
                    redis_cli(p, &["info", "replication"]).is_some_and(|i| i.contains("role:slave"));
                (p, (calls, replica))
            })
            .collect()
    }

    fn ok(&self) -> bool {
        self.ports
            .iter()
            .all(|&p| redis_cli(p, &["cluster", "info"]).is_some_and(|i| i.contains("cluster_state:ok")))
            && self.masters().len() == 3
    }

    async fn wait_ok(&self, what: &str) {
        for _ in 0..300 {
            if self.ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the 3+3 Cluster did not come back after {what}");
    }

    fn config(port: u16, name: &str) -> String {
        let out = redis_cli(port, &["config", "get", name]).unwrap();
        out.lines().nth(1).unwrap_or_default().to_string()
    }

    fn pid(port: u16) -> u32 {
        let info = redis_cli(port, &["info", "server"]).unwrap();
        info.lines().find_map(|l| l.strip_prefix("process_id:")).unwrap().trim().parse().unwrap()
    }

    /// Starts node `port` again, daemonized as `scripts/lib/services.sh` starts it (same folder,
    /// pid file and log, so `stop_services` stops it), with no data.
    fn start(port: u16, dir: &str, pidfile: &str, logfile: &str) {
        let status = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--daemonize", "yes"])
            .args(["--dir", dir, "--pidfile", pidfile, "--logfile", logfile])
            .args(["--save", "", "--appendonly", "no", "--cluster-enabled", "yes"])
            .args(["--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"])
            .status()
            .unwrap();
        assert!(status.success(), "redis-server on {port} did not start");
    }

    /// Stops node `port` (`kill -9` when `kill`, else SHUTDOWN NOSAVE) and starts it again empty
    /// after `down`; answers once it answers PING.
    async fn restart(port: u16, kill: bool, down: Duration) {
        let (dir, pidfile, logfile) =
            (Self::config(port, "dir"), Self::config(port, "pidfile"), Self::config(port, "logfile"));
        // A replica keeps the snapshot of its last full sync on disk and would load it again.
        let snapshot = PathBuf::from(&dir).join(Self::config(port, "dbfilename"));
        if kill {
            let pid = Self::pid(port);
            assert!(Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap().success());
        } else {
            let _ = redis_cli(port, &["shutdown", "nosave"]);
        }
        for _ in 0..100 {
            if redis_cli(port, &["ping"]).is_none() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(down).await;
        match std::fs::remove_file(&snapshot) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("{}: {e}", snapshot.display()),
        }
        Self::start(port, &dir, &pidfile, &logfile);
        for _ in 0..100 {
            if redis_cli(port, &["ping"]).is_some_and(|p| p.contains("PONG")) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis on {port} did not come back");
    }

    /// Removes every key under `prefix` (each master holds only its own slots' keys).
    fn cleanup(&self, prefix: &str) {
        for port in self.masters() {
            let keys = redis_cli(port, &["--scan", "--pattern", &format!("{prefix}:*")]).unwrap_or_default();
            for key in keys.lines().filter(|k| !k.is_empty()) {
                let _ = redis_cli(port, &["unlink", key]);
            }
            let left = redis_cli(port, &["--scan", "--pattern", &format!("{prefix}:*")]).unwrap_or_default();
            assert!(left.trim().is_empty(), "keys left under {prefix} on {port}: {left}");
        }
    }
}

/// What the client saw.
#[derive(Default)]
struct Answers {
    /// Every answer per event id, in the order received.
    by_id: HashMap<String, Vec<String>>,
    period: Option<String>,
    unexpected: Vec<String>,
}

#[derive(Default)]
struct Counters {
    requests: AtomicU64,
    retries: AtomicU64,
    timeouts: AtomicU64,
    server_errors: AtomicU64,
    /// Requests that reached an instance and got no answer (it died, or closed the connection).
    unanswered: AtomicU64,
    /// The longest a load request waited for its answer, in milliseconds.
    slowest_ms: AtomicU64,
    /// Load requests waiting for their answer, per instance.
    in_flight: [AtomicUsize; INSTANCES],
}

/// Sends one batch until an instance answers it with 200, trying the next instance after any
/// failure (a refused connection, a 5xx, a dropped answer).
async fn send_batch(
    client: &reqwest::Client,
    bases: &[String],
    key: &str,
    board: &str,
    start: usize,
    events: &[Value],
    counters: &Counters,
) -> Vec<Value> {
    let body = json!({ "events": events });
    for attempt in 0.. {
        let instance = (start + attempt) % bases.len();
        let base = &bases[instance];
        counters.requests.fetch_add(1, Ordering::Relaxed);
        if attempt > 0 {
            counters.retries.fetch_add(1, Ordering::Relaxed);
        }
        let asked = Instant::now();
        counters.in_flight[instance].fetch_add(1, Ordering::SeqCst);
        let sent = client
            .post(format!("{base}/api/v1/boards/{board}/events"))
            .bearer_auth(key)
            .json(&body)
            .send()
            .await;
        counters.in_flight[instance].fetch_sub(1, Ordering::SeqCst);
        counters.slowest_ms.fetch_max(asked.elapsed().as_millis() as u64, Ordering::Relaxed);
        match sent {
            Ok(res) if res.status() == 200 => {
                if let Ok(v) = res.json::<Value>().await {
                    return v["results"].as_array().unwrap().clone();
                }
            }
            Ok(res) => {
                if res.status().is_server_error() {
                    counters.server_errors.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(e) if e.is_timeout() => {
                counters.timeouts.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) if !e.is_connect() => {
                counters.unanswered.fetch_add(1, Ordering::Relaxed);
            }
            Err(_) => {}
        }
        assert!(attempt < 600, "a batch was never answered");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    unreachable!()
}

/// At most how many requests a key limited to `rate`/s with `burst` may see accepted over
/// `seconds`, across `INSTANCES` instances: its rate over the whole test and one burst, one more
/// burst per time Redis lost its cells (restarted empty, or a master failed before its replica
/// had the cell), and while Redis could not be reached each instance's own allowance on top
/// (the others' rate, and a burst each per loss) (docs/API.md, "Rate limits").
fn rate_bound(seconds: f64, redis_losses: u64, unreachable_seconds: f64) -> f64 {
    let (rate, burst) = (LIMITED_RATE as f64, LIMITED_BURST as f64);
    rate * seconds
        + burst * (1 + redis_losses) as f64
        + (INSTANCES - 1) as f64 * rate * unreachable_seconds
        + INSTANCES as f64 * burst * redis_losses as f64
}

async fn admin_sql(url: &str, sql: &str) {
    let pool = PgPool::connect(url).await.unwrap();
    sqlx::query(sql).execute(&pool).await.unwrap();
    pool.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_instances_lose_nothing_through_kills_failovers_cuts_and_empty_restarts() {
    let test_started = Instant::now();
    let events_wanted: usize = std::env::var("LAUREL_FLEET_EVENTS")
        .ok()
        .map(|v| v.parse().expect("LAUREL_FLEET_EVENTS: a number"))
        .unwrap_or(50_000);
    let stall_seconds: u64 = std::env::var("LAUREL_FLEET_STALL_SECONDS")
        .ok()
        .map(|v| v.parse().expect("LAUREL_FLEET_STALL_SECONDS: a number"))
        .unwrap_or(STALL_SECONDS);
    let redis_url = env("LAUREL_TEST_REDIS_REPLICATED_URL");
    // A PostgreSQL of the fleet test's own, so that it may restart it.
    let pg_admin = env("LAUREL_TEST_FLEET_POSTGRES_URL");
    let pg_restart = env("LAUREL_TEST_FLEET_POSTGRES_RESTART");
    let cluster = Cluster::new(&redis_url);
    cluster.wait_ok("the start").await;

    // The ledger: a database of its own, reached by the instances through the fault proxy.
    let db = unique("laurel_fleet");
    admin_sql(&pg_admin, &format!("CREATE DATABASE {db}")).await;
    let pg_upstream = {
        let url = reqwest::Url::parse(&pg_admin).unwrap();
        let host = url.host_str().unwrap().to_string();
        tokio::net::lookup_host((host, url.port().unwrap_or(5432))).await.unwrap().next().unwrap()
    };
    let proxy = FaultProxy::start(pg_upstream).await;
    let (base, _) = pg_admin.rsplit_once('/').unwrap();
    let direct_url = format!("{base}/{db}");
    let proxied_url = direct_url.replace(&pg_upstream.to_string(), &proxy.addr.to_string());
    assert_ne!(direct_url, proxied_url, "the instances must reach PostgreSQL through the proxy");
    let prefix = unique("fleet");

    let mut fleet = Fleet::new(&proxied_url, &redis_url, &prefix);
    eprintln!("fleet: database {db}, prefix {prefix}, logs in {}", fleet.dir.display());
    fleet.cli(&["migrate"]);
    let admin = fleet.cli(&["admin", "token"]);
    fleet.start().await;
    let ledger = PgPool::connect(&direct_url).await.unwrap();
    let client = reqwest::Client::builder().timeout(CLIENT_TIMEOUT).build().unwrap();
    let bases: Vec<String> = (0..INSTANCES).map(|i| fleet.base(i)).collect();

    let create_board = async |slug: &str, cadence: &str, grace: i64| {
        let res = client
            .post(format!("{}/api/v1/boards", bases[0]))
            .bearer_auth(&admin)
            .json(&json!({"slug": slug, "title": slug, "cadence": cadence, "time_zone": "UTC",
                "operator": "incr", "tie_policy": "shared", "max_points": 1_000_000_000,
                "freeze_grace_seconds": grace}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201, "board {slug}: {}", res.text().await.unwrap());
    };

    // The load's board: every event at one instant, with the longest grace, so one period that
    // stays open whatever the clock does during the test.
    let started_at = Timestamp::now();
    create_board("load", "weekly", 7 * 24 * 3600).await;
    let load_key =
        fleet.cli(&["apikey", "create", "--board", "load", "--rate-per-second", "10000", "--burst", "20000"]);
    create_board("limited", "weekly", 7 * 24 * 3600).await;
    let limited_key = fleet.cli(&[
        "apikey",
        "create",
        "--board",
        "limited",
        "--rate-per-second",
        &LIMITED_RATE.to_string(),
        "--burst",
        &LIMITED_BURST.to_string(),
    ]);

    // The scheduler's boards: yesterday's day (UTC) with a grace that ends DUE_AFTER seconds
    // into the load (which waits for it), one event each so each has a period row to freeze.
    let today = Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC).date();
    let midnight = today.to_zoned(jiff::tz::TimeZone::UTC).unwrap().timestamp();
    let setup = SignedDuration::from_secs(SETUP_SECONDS + DUE_AFTER);
    let grace = (Timestamp::now() + setup).duration_since(midnight).as_secs() + 1;
    let due = midnight + SignedDuration::from_secs(grace);
    let yesterday_noon =
        (today - 1.day()).at(12, 0, 0, 0).to_zoned(jiff::tz::TimeZone::UTC).unwrap().timestamp();
    let mut yesterday = String::new();
    for b in 0..SCHEDULED_BOARDS {
        let slug = format!("due-{b}");
        create_board(&slug, "daily", grace).await;
        let res: Value = client
            .post(format!("{}/api/v1/boards/{slug}/events", bases[b % INSTANCES]))
            .bearer_auth(&admin)
            .json(&json!({"event_id": "due", "member": "m", "delta": 1, "occurred_at": yesterday_noon.to_string()}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(res["results"][0]["result"], "applied", "{res}");
        yesterday = res["results"][0]["period"].as_str().unwrap().to_string();
    }

    // The events: unique ids with random members and deltas, 30 % of them sent twice, shuffled.
    let seed = Timestamp::now().as_nanosecond() as u64 | 1;
    let mut rng = Rng(seed);
    let uniques = events_wanted * 7 / 10;
    let mut events: Vec<Event> = (0..uniques)
        .map(|i| Event {
            id: format!("e{i}"),
            member: format!("m{}", rng.below(MEMBERS)),
            delta: 1 + rng.below(9) as i64,
        })
        .collect();
    for _ in uniques..events_wanted {
        let again = events[rng.below(uniques)].clone();
        events.push(again);
    }
    for i in (1..events.len()).rev() {
        events.swap(i, rng.below(i + 1));
    }
    eprintln!("fleet: {} events ({uniques} unique), seed {seed}", events.len());
    let at = started_at.to_string();
    let batches: Vec<Vec<Value>> = events
        .chunks(BATCH)
        .map(|c| {
            c.iter()
                .map(|e| json!({"event_id": e.id, "member": e.member, "delta": e.delta, "occurred_at": at}))
                .collect()
        })
        .collect();
    let batches = Arc::new(batches);

    let answers = Arc::new(Mutex::new(Answers::default()));
    let counters = Arc::new(Counters::default());
    let wait = (due - SignedDuration::from_secs(DUE_AFTER)).duration_since(Timestamp::now());
    assert!(
        wait > SignedDuration::ZERO,
        "the setup took more than {SETUP_SECONDS} s: the periods fall due too early"
    );
    tokio::time::sleep(wait.unsigned_abs()).await;
    let load_start = Instant::now();
    let pace = Duration::from_secs(LOAD_SECONDS).div_f64(batches.len() as f64);
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (client, bases, key) = (client.clone(), bases.clone(), load_key.clone());
            let (batches, next, answers, counters) =
                (batches.clone(), next.clone(), answers.clone(), counters.clone());
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(batch) = batches.get(i) else { return };
                    tokio::time::sleep_until((load_start + pace * i as u32).into()).await;
                    let results = send_batch(&client, &bases, &key, "load", i, batch, &counters).await;
                    let mut a = answers.lock().unwrap();
                    for (sent, got) in batch.iter().zip(&results) {
                        let id = sent["event_id"].as_str().unwrap();
                        assert_eq!(got["event_id"], id);
                        let result = got["result"].as_str().unwrap_or_default().to_string();
                        if result != "applied" && result != "duplicate" {
                            a.unexpected.push(got.to_string());
                        }
                        if let Some(p) = got["period"].as_str() {
                            a.period.get_or_insert_with(|| p.to_string());
                        }
                        a.by_id.entry(id.to_string()).or_default().push(result);
                    }
                }
            })
        })
        .collect();

    // The rate-limited key, as fast as two clients can send, for as long as the load runs.
    let limited_done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let limited_accepted = Arc::new(AtomicU64::new(0));
    let limiters: Vec<_> = (0..2)
        .map(|w| {
            let (client, bases, key) = (client.clone(), bases.clone(), limited_key.clone());
            let (done, accepted, counters) =
                (limited_done.clone(), limited_accepted.clone(), counters.clone());
            tokio::spawn(async move {
                let mut n = 0usize;
                while !done.load(Ordering::SeqCst) {
                    n += 1;
                    let res = client
                        .post(format!("{}/api/v1/boards/limited/events", bases[(n + w) % INSTANCES]))
                        .bearer_auth(&key)
                        .json(&json!({"event_id": format!("l{w}-{n}"), "member": "m", "delta": 1}))
                        .send()
                        .await;
                    match res {
                        Ok(r) if r.status() == 200 => {
                            accepted.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                        Err(e) => {
                            if e.is_timeout() {
                                counters.timeouts.fetch_add(1, Ordering::Relaxed);
                            }
                            tokio::time::sleep(Duration::from_millis(20)).await
                        }
                    }
                }
            })
        })
        .collect();

    // The faults, one after another.
    let log = |what: &str| eprintln!("fleet: {:>5.1}s {what}", load_start.elapsed().as_secs_f64());
    let mut redis_losses = 0u64;
    let mut unreachable = Duration::ZERO;

    // 1. The scheduler's leader, killed at its first freeze.
    let first_freeze_reason: String = loop {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT reason FROM audit WHERE action = 'freeze' AND actor = 'scheduler' ORDER BY id LIMIT 1",
        )
        .fetch_optional(&ledger)
        .await
        .unwrap();
        if let Some((reason,)) = row {
            break reason;
        }
        assert!(
            Timestamp::now() < due + SignedDuration::from_secs(30),
            "no period frozen 30 s after it fell due"
        );
        tokio::time::sleep(Duration::from_millis(3)).await;
    };
    let leader = holder_of(&first_freeze_reason);
    let leader_pid: u32 = leader.rsplit('-').nth(1).unwrap().parse().unwrap();
    let killed =
        (0..INSTANCES).find(|&i| fleet.pid(i) == Some(leader_pid)).expect("the leader is one of ours");
    // With a load request in flight to it (waiting at most 200 ms for one), so that the client
    // has something to send again elsewhere.
    let mut in_flight = 0;
    for _ in 0..200 {
        in_flight = counters.in_flight[killed].load(Ordering::SeqCst);
        if in_flight > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    fleet.kill(killed);
    log(&format!(
        "killed instance {killed}, the scheduler's leader ({leader}), at its first freeze, \
         with {in_flight} load requests in flight to it"
    ));
    tokio::time::sleep(Duration::from_secs(3)).await;
    fleet.children[killed] = Some(fleet.spawn(killed));
    fleet.wait_ready(killed).await;
    log(&format!("instance {killed} started again"));

    // 2. A Redis master killed; its replica takes over; the node comes back as a replica.
    tokio::time::sleep_until((load_start + Duration::from_secs(12)).into()).await;
    let master = cluster.masters()[0];
    let failed = Instant::now();
    let masters_before = cluster.masters();
    log(&format!("kill -9 of Redis master {master}"));
    let restart = tokio::spawn(Cluster::restart(master, true, Duration::from_secs(5)));
    for _ in 0..200 {
        let now = cluster.masters();
        if now.len() == 3 && !now.contains(&master) && now != masters_before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    log(&format!("masters now {:?}", cluster.masters()));
    restart.await.unwrap();
    cluster.wait_ok("a master's failover").await;
    unreachable += failed.elapsed();
    redis_losses += 1;
    log("Cluster ok again");

    // 3. PostgreSQL slowed, then silent (the slowed queries still in flight), then cut, then
    // restarted.
    tokio::time::sleep_until((load_start + Duration::from_secs(18)).into()).await;
    log("PostgreSQL: 150 ms per chunk for 2 s");
    proxy.set_latency(Duration::from_millis(150));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let stall = Duration::from_secs(stall_seconds);
    log(&format!("PostgreSQL: silent for {stall_seconds} s (connections open, nothing forwarded)"));
    let ledger_lost = Instant::now();
    proxy.set_stalled(true);
    tokio::time::sleep(stall).await;
    proxy.set_latency(Duration::ZERO);
    proxy.set_stalled(false);
    log("PostgreSQL: every connection cut for 3 s");
    proxy.set_cut(true);
    tokio::time::sleep(Duration::from_secs(3)).await;
    proxy.set_cut(false);
    log("PostgreSQL answers again; now restarted (immediate shutdown, as a crash)");
    let restarted = Instant::now();
    let out = Command::new("sh").arg("-c").arg(&pg_restart).output().unwrap();
    assert!(out.status.success(), "PostgreSQL restart: {}", String::from_utf8_lossy(&out.stderr));
    log(&format!("PostgreSQL restarted in {:.1}s", restarted.elapsed().as_secs_f64()));
    // No write can be accepted while the ledger is silent, cut or restarting.
    let ledger_down = ledger_lost.elapsed();

    // 4. Every Redis node restarted empty.
    tokio::time::sleep_until(
        (load_start + Duration::from_secs(42).max(Duration::from_secs(26) + stall)).into(),
    )
    .await;
    let emptied = Instant::now();
    log("every Redis node restarted empty");
    let restarts: Vec<_> =
        cluster.ports.iter().map(|&p| tokio::spawn(Cluster::restart(p, false, Duration::ZERO))).collect();
    for r in restarts {
        r.await.unwrap();
    }
    cluster.wait_ok("restarting every node empty").await;
    unreachable += emptied.elapsed();
    redis_losses += 1;
    let last_fault = Instant::now();
    log("Cluster ok again (the last fault is over)");

    for w in workers {
        w.await.unwrap();
    }
    let load_end = Instant::now();
    limited_done.store(true, Ordering::SeqCst);
    for l in limiters {
        l.await.unwrap();
    }
    let load_seconds = load_end.duration_since(load_start).as_secs_f64() + 1.0;
    log(&format!(
        "load done: {} requests, {} retried, {} answered 5xx, {} unanswered, {} timed out, slowest {} ms",
        counters.requests.load(Ordering::Relaxed),
        counters.retries.load(Ordering::Relaxed),
        counters.server_errors.load(Ordering::Relaxed),
        counters.unanswered.load(Ordering::Relaxed),
        counters.timeouts.load(Ordering::Relaxed),
        counters.slowest_ms.load(Ordering::Relaxed)
    ));
    assert_eq!(counters.timeouts.load(Ordering::Relaxed), 0, "a request waited for the client's timeout");
    assert!(load_end > last_fault, "every fault happened during the load");
    if in_flight > 0 {
        assert!(
            counters.unanswered.load(Ordering::Relaxed) > 0,
            "requests in flight to the killed instance went unanswered (and were sent again)"
        );
    }

    // Every event answered, applied at most once, and in the ledger exactly once.
    let answers = std::mem::take(&mut *answers.lock().unwrap());
    assert!(answers.unexpected.is_empty(), "answers other than applied/duplicate: {:?}", answers.unexpected);
    let period = answers.period.clone().expect("answers name their period");
    let mut expected: HashMap<String, i64> = HashMap::new();
    let mut seen = HashSet::new();
    for e in &events {
        if seen.insert(e.id.clone()) {
            *expected.entry(e.member.clone()).or_default() += e.delta;
        }
        let got = &answers.by_id[&e.id];
        assert!(
            got.iter().filter(|r| *r == "applied").count() <= 1,
            "{} answered applied twice: {got:?}",
            e.id
        );
    }
    let rows: Vec<(String, i64)> =
        sqlx::query_as("SELECT external_id, COUNT(*) FROM entries WHERE board = 'load' GROUP BY external_id")
            .fetch_all(&ledger)
            .await
            .unwrap();
    assert_eq!(rows.len(), uniques, "every unique event is in the ledger");
    for (id, count) in &rows {
        assert_eq!(*count, 1, "{id} is in the ledger {count} times");
        assert!(answers.by_id.contains_key(id), "{id} is in the ledger but was never sent");
    }
    let late: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM late_entries WHERE board = 'load'")
        .fetch_one(&ledger)
        .await
        .unwrap();
    assert_eq!(late.0, 0, "no load event was kept as late");

    // Totals: the ledger's equal the unique sums, and its entries add up to them.
    let totals: HashMap<String, i64> = sqlx::query_as::<_, (String, i64)>(
        "SELECT member, points FROM totals WHERE board = 'load' AND period = $1",
    )
    .bind(&period)
    .fetch_all(&ledger)
    .await
    .unwrap()
    .into_iter()
    .collect();
    assert_eq!(totals, expected, "ledger totals = the unique sums");
    let sums: HashMap<String, i64> = sqlx::query_as::<_, (String, i64)>(
        "SELECT member, SUM(delta)::BIGINT FROM entries WHERE board = 'load' GROUP BY member",
    )
    .fetch_all(&ledger)
    .await
    .unwrap()
    .into_iter()
    .collect();
    assert_eq!(sums, expected, "the entries add up to the unique sums");

    // The projection: level with the ledger within 5 s + the reconciler's tick.
    let level_by = load_end.max(last_fault) + Duration::from_secs(5) + RECONCILER_TICK;
    let rank_key = format!("{prefix}:{{load:{period}}}:rank");
    let redis = redis::cluster::ClusterClient::new(redis_url.split(',').collect::<Vec<_>>()).unwrap();
    let mut last = HashMap::new();
    let level_at = loop {
        if let Ok(mut conn) = redis.get_async_connection().await {
            let scores: Result<Vec<(String, f64)>, _> = redis::cmd("ZRANGE")
                .arg(&rank_key)
                .arg(0)
                .arg(-1)
                .arg("WITHSCORES")
                .query_async(&mut conn)
                .await;
            if let Ok(scores) = scores {
                last = scores.into_iter().map(|(m, s)| (m, s as i64)).collect::<HashMap<_, _>>();
                if last == expected {
                    break Instant::now();
                }
            }
        }
        assert!(
            Instant::now() < level_by,
            "the projection is not level 5 s + the reconciler's tick after the load and the last fault: \
             {} of {} members differ",
            expected.iter().filter(|(m, p)| last.get(*m) != Some(*p)).count(),
            expected.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    log(&format!(
        "projection level {:.1}s after the load and the last fault",
        level_at.saturating_duration_since(load_end.max(last_fault)).as_secs_f64()
    ));

    // Public reads go to the replicas (`--read-from-replicas`): top pages of 1 to 10 entries from
    // each instance (distinct, so none is answered from an instance's memory) run their script
    // on replicas only, and once the replicas have caught up they answer the ledger's ranking.
    let mut best: Vec<(&String, &i64)> = expected.iter().collect();
    best.sort_by(|a, b| b.1.cmp(a.1).then(b.0.cmp(a.0)));
    let before = cluster.script_reads();
    let client = reqwest::Client::builder().timeout(CLIENT_TIMEOUT).build().unwrap();
    let caught_up_by = Instant::now() + Duration::from_secs(10);
    for limit in 1..=10usize {
        for i in 0..INSTANCES {
            let url = format!("{}/api/v1/boards/load/periods/{period}/top?limit={limit}", fleet.base(i));
            loop {
                let top: Value = client.get(&url).send().await.unwrap().json().await.unwrap();
                let got: Vec<(String, i64)> = top["entries"]
                    .as_array()
                    .expect("a top page")
                    .iter()
                    .map(|e| (e["member"].as_str().unwrap().to_owned(), e["points"].as_i64().unwrap()))
                    .collect();
                let want: Vec<(String, i64)> =
                    best.iter().take(limit).map(|(m, p)| ((*m).clone(), **p)).collect();
                // A read a replica could not answer yet (still syncing after the empty restart)
                // is answered by the ledger, right but without a script: wait for Redis's page.
                let source = top["source"].as_str().unwrap_or_default().to_owned();
                if got == want && source == "redis" {
                    break;
                }
                assert!(
                    Instant::now() < caught_up_by,
                    "a replica still differs from the ledger or cannot be read ({source}): {got:?} {want:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    let after = cluster.script_reads();
    let (on_replicas, on_primaries) = after.iter().fold((0, 0), |(r, p), (port, (calls, replica))| {
        let ran = calls - before.get(port).map_or(0, |b| b.0);
        if *replica { (r + ran, p) } else { (r, p + ran) }
    });
    log(&format!("public top reads: {on_replicas} script calls on replicas, {on_primaries} on primaries"));
    assert!(on_replicas >= 10 * INSTANCES as u64, "every top read ran on a replica: {on_replicas}");
    assert_eq!(on_primaries, 0, "no read-only script ran on a primary");

    // The scheduler: every due period frozen exactly once, some by another instance than the
    // leader killed mid-pass.
    let frozen: Vec<(String, i64, String)> = sqlx::query_as(
        "SELECT p.board, COUNT(a.id), MIN(a.reason) FROM periods p \
         LEFT JOIN audit a ON a.board = p.board AND a.period = p.period AND a.action = 'freeze' \
         WHERE p.board LIKE 'due-%' AND p.period = $1 AND p.state = 'frozen' GROUP BY p.board",
    )
    .bind(&yesterday)
    .fetch_all(&ledger)
    .await
    .unwrap();
    assert_eq!(frozen.len(), SCHEDULED_BOARDS, "every due period is frozen");
    let mut by_holder: HashMap<String, usize> = HashMap::new();
    for (board, count, reason) in &frozen {
        assert_eq!(*count, 1, "{board} {yesterday} frozen {count} times");
        *by_holder.entry(holder_of(reason)).or_default() += 1;
    }
    log(&format!("due periods frozen by holder: {by_holder:?}"));
    assert!(
        by_holder.keys().any(|h| *h != leader),
        "the killed leader froze every period before it died: the kill was not mid-pass"
    );

    // The rate-limited key: the ledger's acceptances within the bound.
    let limited: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM entries WHERE board = 'limited'")
        .fetch_one(&ledger)
        .await
        .unwrap();
    let seen_accepted = limited_accepted.load(Ordering::SeqCst);
    let bound = rate_bound(load_seconds, redis_losses, unreachable.as_secs_f64());
    log(&format!(
        "limited key: {} accepted in {load_seconds:.0}s ({} answered), bound {bound:.0}; Redis unreachable {:.1}s",
        limited.0,
        seen_accepted,
        unreachable.as_secs_f64()
    ));
    assert!(limited.0 as u64 >= seen_accepted, "every accepted request is in the ledger");
    assert!((limited.0 as f64) <= bound, "the key was accepted {} times, more than {bound:.0}", limited.0);
    let writable_seconds = load_seconds - ledger_down.as_secs_f64();
    assert!(
        limited.0 as f64 >= LIMITED_RATE as f64 * writable_seconds / 2.0,
        "the limited key was hardly accepted ({} in the {writable_seconds:.0} s the ledger could write): \
         the client did not press it",
        limited.0
    );

    // Clean up: the instances, the database and the prefix.
    let logs = fleet.dir.clone();
    drop(fleet);
    std::fs::remove_dir_all(logs).unwrap();
    ledger.close().await;
    admin_sql(&pg_admin, &format!("DROP DATABASE {db} WITH (FORCE)")).await;
    cluster.cleanup(&prefix);
    eprintln!("fleet: passed in {:.0}s", test_started.elapsed().as_secs_f64());
}

/// The holder named by a scheduler transition's reason (`… by <holder> with lease token <n>`).
fn holder_of(reason: &str) -> String {
    let after = reason.rsplit_once(" by ").map(|(_, h)| h).unwrap_or(reason);
    after.split(" with lease token").next().unwrap().to_string()
}
