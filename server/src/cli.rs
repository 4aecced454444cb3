//! The command line: every flag also reads an environment variable (see README and .env.example).

use clap::{Args, Parser, Subcommand};
use engine::EngineConfig;
use engine::ReplicaReads;
use std::net::SocketAddr;

#[derive(Debug, Parser)]
#[command(name = "laurel", version, about = "Contest leaderboards with a settlement lifecycle")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web UI and the HTTP API (applies ledger migrations first).
    Serve(ServeArgs),
    /// Apply the ledger's migrations and exit.
    Migrate(LedgerArgs),
    /// Administration.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Ingest keys for host platforms.
    Apikey {
        #[command(subcommand)]
        command: ApikeyCommand,
    },
    /// Replace a period's Redis projection with the ledger's totals.
    Rebuild {
        #[command(flatten)]
        stores: StoreArgs,
        /// The board's slug.
        #[arg(long)]
        board: String,
        /// The period (`2026-W34`, `2026-08-20`, `2026-08` or `current`).
        #[arg(long)]
        period: String,
    },
    /// Print a signed link that tells the UI who "me" is (it highlights the contestant; it grants
    /// nothing).
    ContestantLink {
        /// The contestant's member id.
        #[arg(long)]
        member: String,
        /// How long the link stays valid.
        #[arg(long, default_value_t = 24)]
        hours: u32,
        /// Where this server is reached.
        #[arg(long, env = "LAUREL_PUBLIC_URL", default_value = "http://127.0.0.1:3000")]
        base_url: String,
        /// The secret `laurel serve` was given.
        #[arg(long, env = "LAUREL_LINK_SECRET", hide_env_values = true)]
        link_secret: String,
    },
    /// Write a settled or archived period (entries, late writes, settlement, standings) as JSON.
    Export {
        #[command(flatten)]
        stores: StoreArgs,
        /// The board's slug.
        #[arg(long)]
        board: String,
        /// The period (`2026-W34`, `2026-08-20`, `2026-08`).
        #[arg(long)]
        period: String,
        /// Where to write the JSON (standard output when absent).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// List the ledger rows the background jobs and listings leave out because they cannot read
    /// them; with --fix, move the movable ones into the `quarantine` table (audited
    /// `row_quarantine`). Exits 1 while rows that cannot be moved remain.
    Doctor {
        #[command(flatten)]
        ledger: LedgerArgs,
        /// Quarantine what can be moved: unreadable periods (with their totals, entries and late
        /// writes) and late writes no total could take. Nothing is deleted without a copy.
        #[arg(long)]
        fix: bool,
    },
    /// Import a period written by `laurel export`; refused unless it settles to the same digest.
    Import {
        #[command(flatten)]
        stores: StoreArgs,
        /// The JSON file `laurel export` wrote.
        #[arg(long)]
        file: std::path::PathBuf,
    },
    /// Check a receipt (`GET …/settlements/{revision}/receipts/{member}`) or a `laurel export`
    /// file offline — no server, no stores: prints what holds, or exactly what does not (exit 1).
    Verify {
        /// The receipt or export (JSON); which one it is is read from its `format`.
        file: std::path::PathBuf,
    },
    /// Import existing totals into an open period (a host moving to Laurel): all or nothing,
    /// once per import id, each total an `opening` entry. Audited as `import_totals` by `cli`.
    ImportTotals {
        #[command(flatten)]
        stores: StoreArgs,
        /// The board's slug.
        #[arg(long)]
        board: String,
        /// The period (`2026-W34`, `2026-08-20`, `2026-08` or `current`).
        #[arg(long)]
        period: String,
        /// `member,points` lines (`.csv`, an optional header) or `{"member","points"}` lines
        /// (`.jsonl`).
        #[arg(long)]
        file: std::path::PathBuf,
        /// `nx`: only members not yet on the board in the period; `replace`: set their totals.
        #[arg(long, default_value = "nx")]
        mode: String,
        /// Makes the import exactly-once; by default `file-` and the file's SHA-256, so running
        /// the same file again changes nothing.
        #[arg(long)]
        import_id: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create an admin API token and print it (it is shown only once).
    Token(StoreArgs),
    /// Create a console account. The password is read from LAUREL_ADMIN_PASSWORD or, when that is
    /// unset, asked for at the terminal (twice, without echo) — never from a flag, which would
    /// leave it in the shell history and the process list.
    Create {
        #[command(flatten)]
        stores: StoreArgs,
        /// 3-64 bytes of [a-z0-9_.-].
        #[arg(long)]
        username: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum ApikeyCommand {
    /// Create an ingest key for one or more boards and print it (it is shown only once). Audited
    /// as `apikey_create` by `cli`.
    Create {
        #[command(flatten)]
        stores: StoreArgs,
        /// A board the key may write to (repeat for several).
        #[arg(long = "board", required = true)]
        boards: Vec<String>,
        /// Requests per second the key may make on average, counted across all instances (1-10000;
        /// default 50).
        #[arg(long)]
        rate_per_second: Option<i64>,
        /// Requests the key may make at once (1-20000; default twice the rate).
        #[arg(long)]
        burst: Option<i64>,
    },
}

#[derive(Debug, Clone, Args)]
pub struct LedgerArgs {
    /// The ledger: `sqlite://path` (created if missing) or `postgres://user@host/db`.
    #[arg(long, env = "LAUREL_DATABASE_URL", default_value = "sqlite://./data/laurel.db")]
    pub database_url: String,
}

/// Where both stores are.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    #[command(flatten)]
    pub ledger: LedgerArgs,

    /// Redis: `redis://host:port` for a standalone server; a comma-separated list of nodes or
    /// `redis+cluster://host:port,…` for a Cluster.
    #[arg(long, env = "LAUREL_REDIS_URL", default_value = "redis://127.0.0.1:6379")]
    pub redis_url: String,

    /// Prefix of every Redis key, so several deployments can share one Redis.
    #[arg(long, env = "LAUREL_KEY_PREFIX", default_value = "laurel")]
    pub key_prefix: String,

    /// Public reads (rankings, counts, hot-board merges) from replicas: a Cluster's own, or the
    /// standalone replica at `--redis-replica-url`. Replication is asynchronous, so these reads
    /// may lag the writes a moment; the console, settlement checks and live pushes read primaries.
    #[arg(long, env = "LAUREL_READ_FROM_REPLICAS")]
    pub read_from_replicas: bool,

    /// The replica of a standalone Redis that `--read-from-replicas` reads from.
    #[arg(long, env = "LAUREL_REDIS_REPLICA_URL", requires = "read_from_replicas")]
    pub redis_replica_url: Option<String>,
}

impl StoreArgs {
    pub fn engine_config(&self) -> EngineConfig {
        let replica_reads = match (self.read_from_replicas, &self.redis_replica_url) {
            (false, _) => ReplicaReads::Off,
            (true, Some(url)) => ReplicaReads::Standalone(url.clone()),
            (true, None) => ReplicaReads::Cluster,
        };
        EngineConfig {
            database_url: self.ledger.database_url.clone(),
            redis_url: self.redis_url.clone(),
            key_prefix: self.key_prefix.clone(),
            replica_reads,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "LAUREL_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,

    #[command(flatten)]
    pub stores: StoreArgs,

    /// Create a demo weekly board with members, profiles and ties, if it does not exist.
    #[arg(long, env = "LAUREL_DEMO")]
    pub demo: bool,

    /// How often the lifecycle scheduler runs (seconds): it freezes periods whose end + grace
    /// has passed. Every instance ticks; one holds the ledger's lease and does the work.
    #[arg(long, env = "LAUREL_SCHEDULER_TICK", default_value = "5", value_parser = seconds)]
    pub scheduler_tick: std::time::Duration,

    /// Archive settled periods this many days after their settlement (default: never; admins
    /// archive by hand).
    #[arg(long, env = "LAUREL_ARCHIVE_AFTER_DAYS")]
    pub archive_after_days: Option<u32>,

    /// Where settlement rewards are delivered (`POST`, JSON, `Idempotency-Key` header). Without
    /// it rewards stay pending in the ledger. May carry a secret: its value is never shown.
    #[arg(long, env = "LAUREL_REWARDS_WEBHOOK", hide_env_values = true)]
    pub rewards_webhook: Option<String>,

    /// The secret contestant links are signed with (at least 32 bytes; shared with the host
    /// platform). Without it, `/me` links are refused.
    #[arg(long, env = "LAUREL_LINK_SECRET", hide_env_values = true)]
    pub link_secret: Option<String>,

    /// The origin browsers reach this server at (`https://boards.example.com`), when it is not
    /// the address it listens on (behind a proxy): console posts from it pass the cross-site
    /// check whatever `Host` the proxy sends, and an https origin turns on
    /// `Strict-Transport-Security`.
    #[arg(long, env = "LAUREL_PUBLIC_URL", value_parser = PublicUrl::parse)]
    pub public_url: Option<PublicUrl>,

    /// The proxies in front of this server whose `X-Forwarded-For` names the client (addresses
    /// or networks, comma-separated: `10.0.0.0/8,192.0.2.1`). Console logins are throttled per
    /// client address; without this setting the address is the connection's peer, and a
    /// forwarded header is ignored (any client can send one).
    #[arg(long, env = "LAUREL_TRUSTED_PROXIES", value_parser = crate::peer::TrustedProxies::parse)]
    pub trusted_proxies: Option<crate::peer::TrustedProxies>,

    /// Requests a second that each client without credentials may make (per IPv4 address or
    /// IPv6 /64, counted across every instance in Redis); over it, 429 with `Retry-After`. Health,
    /// readiness, metrics and the site's files are not counted, nor callers with a live key,
    /// token or console session. Behind a proxy, set --trusted-proxies, or every client shares
    /// the proxy's allowance. 0 turns the limit off.
    #[arg(long, env = "LAUREL_PUBLIC_RATE_PER_SECOND", default_value_t = 50)]
    pub public_rate_per_second: u32,

    /// How many requests such a client may make at once before the rate applies.
    #[arg(long, env = "LAUREL_PUBLIC_BURST", default_value_t = 500,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub public_burst: u32,
}

/// An origin browsers see: `http[s]://host[:port]`, no path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(String);

impl PublicUrl {
    pub fn parse(s: &str) -> Result<Self, String> {
        let trimmed = s.trim().trim_end_matches('/');
        let rest = trimmed
            .strip_prefix("https://")
            .or_else(|| trimmed.strip_prefix("http://"))
            .ok_or_else(|| format!("{s:?} must start with https:// or http://"))?;
        if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
            return Err(format!("{s:?} must be an origin: scheme, host and port only, no path"));
        }
        Ok(Self(trimmed.to_ascii_lowercase()))
    }

    /// `scheme://host[:port]`, as a browser's `Origin` header names it.
    pub fn origin(&self) -> &str {
        &self.0
    }

    pub fn is_https(&self) -> bool {
        self.0.starts_with("https://")
    }
}

impl ServeArgs {
    /// The scheduler of this process (a unique lease holder, a lease of three ticks).
    pub fn scheduler_config(&self) -> engine::jobs::scheduler::SchedulerConfig {
        let archive_after =
            self.archive_after_days.map(|days| std::time::Duration::from_secs(u64::from(days) * 24 * 3600));
        engine::jobs::scheduler::SchedulerConfig::new(self.scheduler_tick, archive_after)
    }
}

/// `laurel import-totals`: reads the file (CSV or JSONL, by its extension), refuses it with the
/// numbers of its bad lines, imports it and answers the report.
pub async fn import_totals(
    engine: &engine::Engine,
    board: &str,
    period: &str,
    file: &std::path::Path,
    mode: &str,
    import_id: Option<&str>,
    progress: &engine::progress::Progress,
) -> anyhow::Result<engine::writes::totals_import::TotalsImportReport> {
    use anyhow::Context as _;
    let bytes = std::fs::read(file).with_context(|| format!("read {}", file.display()))?;
    let text = std::str::from_utf8(&bytes).with_context(|| format!("{} is not UTF-8", file.display()))?;
    let rows = engine::writes::totals_import::parse_file(file, text).map_err(anyhow::Error::msg)?;
    let default_id = engine::writes::totals_import::file_import_id(&bytes);
    let import_id = import_id.unwrap_or(&default_id);
    let import = engine::writes::totals_import::build(import_id, mode, rows)?;
    let board = domain::BoardSlug::parse(board).context("--board is not a valid slug")?;
    let scope = engine.reads().scope(&board, Some(period)).await?;
    Ok(engine.writes().import_totals(&scope, &import, "cli", progress).await?)
}

/// How `laurel rebuild`, `export` and `import` show their progress on stderr (stdout keeps only
/// their result, which scripts read): a bar per phase on a terminal, each finished phase left as
/// a line above it; otherwise plain lines — each phase's start and end, and at most one a second
/// in between.
pub fn progress(job: &'static str) -> engine::progress::Progress {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        return bar(job);
    }
    let lines = std::sync::Mutex::new(Lines::default());
    engine::progress::Progress::observed(move |r| {
        let mut lines = lines.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(line) = lines.next(job, r, std::time::Instant::now()) {
            eprintln!("{line}");
        }
    })
}

/// The bar drawn on a terminal (indicatif draws it at most 20 times a second).
fn bar(job: &'static str) -> engine::progress::Progress {
    use indicatif::{ProgressBar, ProgressStyle};
    // Drawn from the first phase on, once it has its style.
    let bar = ProgressBar::hidden();
    let counted = ProgressStyle::with_template("{msg} [{bar:30}] {human_pos}/{human_len} ({percent} %)")
        .expect("a valid template")
        .progress_chars("=> ");
    let uncounted = ProgressStyle::with_template("{spinner} {msg}").expect("a valid template");
    let last = std::sync::Mutex::new(None::<engine::progress::Report>);
    engine::progress::Progress::observed(move |r| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        let ended = last.as_ref().filter(|l| r.done || l.phase != r.phase);
        if let Some(ended) = ended.filter(|l| !l.phase.is_empty()) {
            bar.println(line(job, ended));
        }
        if r.done {
            bar.finish_and_clear();
            return;
        }
        let new_phase = last.as_ref().is_none_or(|l| l.phase != r.phase);
        *last = Some(r.clone());
        if new_phase {
            bar.reset();
            bar.set_message(format!("{job} {} ({})", r.phase, r.unit));
            match r.total {
                Some(total) => {
                    bar.disable_steady_tick();
                    bar.set_style(counted.clone());
                    bar.set_length(total);
                }
                None => {
                    bar.set_style(uncounted.clone());
                    bar.enable_steady_tick(std::time::Duration::from_millis(120));
                }
            }
            if bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
        }
        if let Some(total) = r.total {
            bar.set_length(total);
        }
        bar.set_position(r.processed);
    })
}

/// The plain lines of a job's progress, as the next reading calls for them.
#[derive(Default)]
struct Lines {
    /// The phase of the last reading, and when its last line was printed, and that line.
    phase: &'static str,
    printed: Option<std::time::Instant>,
    line: String,
}

impl Lines {
    fn next(&mut self, job: &str, r: &engine::progress::Report, now: std::time::Instant) -> Option<String> {
        let new_phase = r.phase != self.phase;
        self.phase = r.phase;
        let ended = r.total == Some(r.processed) && (r.processed > 0 || new_phase);
        let due = self.printed.is_none_or(|at| now.duration_since(at) >= std::time::Duration::from_secs(1));
        if r.done || !(new_phase || ended || due) {
            return None;
        }
        let next = line(job, r);
        if next == self.line {
            return None;
        }
        self.printed = Some(now);
        self.line.clone_from(&next);
        Some(next)
    }
}

/// A reading as one line: `rebuild projecting: 40000/120000 members (33%)`.
fn line(job: &str, r: &engine::progress::Report) -> String {
    match r.total {
        Some(total) => {
            let percent = (r.processed * 100).checked_div(total).unwrap_or(100);
            format!("{job} {}: {}/{total} {} ({percent}%)", r.phase, r.processed, r.unit)
        }
        None => format!("{job} {}…", r.phase),
    }
}

/// A positive number of seconds (`5`, `0.5`).
fn seconds(s: &str) -> Result<std::time::Duration, String> {
    let n: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(n > 0.0 && n <= 86_400.0) {
        return Err(format!("{s} s is not between 0 and 86400 seconds"));
    }
    Ok(std::time::Duration::from_secs_f64(n))
}

#[cfg(test)]
mod tests {
    use super::{Lines, PublicUrl};

    /// `laurel import-totals`' function on real stores (SQLite and the test Redis): a CSV file
    /// and a JSONL file imported, the same file again a repeat, a bad line named by its number.
    #[tokio::test]
    async fn import_totals_reads_csv_and_jsonl_files() {
        use engine::redis::keys::KeySpace;
        use engine::redis::{Projection, RedisTarget};
        let name = format!("laurel-cli-import-{}", std::process::id());
        let dir = std::env::temp_dir().join(&name);
        std::fs::create_dir_all(&dir).unwrap();
        let url = std::env::var("LAUREL_TEST_REDIS_URL").expect("LAUREL_TEST_REDIS_URL: run scripts/test");
        let ledger =
            engine::ledger::Ledger::connect(&format!("sqlite://{}/l.db", dir.display())).await.unwrap();
        ledger.migrate().await.unwrap();
        let projection = Projection::new(RedisTarget::parse(&url).unwrap(), KeySpace::new(name));
        let engine = engine::Engine::from_parts(ledger, projection);
        let draft = serde_json::json!({"slug": "moved", "title": "Moved", "cadence": "weekly",
            "time_zone": "UTC", "operator": "incr", "tie_policy": "shared", "max_points": 1000, "prizes": []});
        let draft: domain::board::BoardDraft = serde_json::from_value(draft).unwrap();
        engine.boards().create_board(&draft.parse().unwrap()).await.unwrap();
        let progress = engine::progress::Progress::new();
        let run = async |file: &str, text: &str, mode: &str| {
            let path = dir.join(file);
            std::fs::write(&path, text).unwrap();
            super::import_totals(&engine, "moved", "current", &path, mode, None, &progress).await
        };
        let csv = run("a.csv", "member,points\nann,30\nbob,20\n", "nx").await.unwrap();
        assert_eq!((csv.rows, csv.imported, csv.repeated), (2, 2, false));
        assert!(csv.import_id.as_str().starts_with("file-"));
        let jsonl = run(
            "b.jsonl",
            "{\"member\":\"ann\",\"points\":5}\n{\"member\":\"cy\",\"points\":7}\n",
            "replace",
        )
        .await
        .unwrap();
        assert_eq!((jsonl.rows, jsonl.imported, jsonl.mode.as_str()), (2, 2, "replace"));
        assert!(run("a.csv", "member,points\nann,30\nbob,20\n", "nx").await.unwrap().repeated);
        let refused = run("c.csv", "ann,1\nbob,x\n", "nx").await.unwrap_err().to_string();
        assert!(refused.contains("row 2:") && !refused.contains("row 1:"), "{refused}");
        assert!(run("d.txt", "ann,1", "nx").await.is_err());
        let scope =
            engine.reads().scope(&domain::BoardSlug::parse("moved").unwrap(), Some("current")).await.unwrap();
        let page = engine.reads().ranking_page(&scope, 0, 10).await.unwrap();
        let ranked: Vec<(String, i64)> =
            page.entries.iter().map(|e| (e.member.to_string(), e.points)).collect();
        assert_eq!(ranked, [("bob".to_owned(), 20), ("cy".to_owned(), 7), ("ann".to_owned(), 5)]);
        let mut conn = engine.projection().conn().await.unwrap();
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(engine.projection().keys().pattern())
            .query_async(&mut conn)
            .await
            .unwrap();
        for key in keys {
            redis::cmd("UNLINK").arg(key).exec_async(&mut conn).await.unwrap();
        }
        engine.close().await;
        std::fs::remove_dir_all(dir).unwrap();
    }
    use engine::progress::Report;
    use std::time::{Duration, Instant};

    #[test]
    fn plain_progress_lines_are_each_phase_s_start_and_end_and_one_a_second_between() {
        let mut lines = Lines::default();
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let reading =
            |phase, processed, total, done| Report { phase, unit: "members", processed, total, done };
        let mut printed = Vec::new();
        let readings = [
            (0, reading("checking the projection", 0, None, false)),
            (10, reading("reading totals", 0, Some(3000), false)),
            (300, reading("reading totals", 1000, Some(3000), false)),
            (1200, reading("reading totals", 2000, Some(3000), false)),
            (1300, reading("reading totals", 3000, Some(3000), false)),
            // The same numbers again (a count settled at the end) print nothing new.
            (1350, reading("reading totals", 3000, Some(3000), false)),
            (1400, reading("writing rewards", 0, Some(0), false)),
            (1500, reading("writing rewards", 0, Some(0), true)),
        ];
        for (ms, r) in readings {
            printed.extend(lines.next("settle", &r, at(ms)));
        }
        assert_eq!(
            printed,
            [
                "settle checking the projection…",
                "settle reading totals: 0/3000 members (0%)",
                "settle reading totals: 2000/3000 members (66%)",
                "settle reading totals: 3000/3000 members (100%)",
                "settle writing rewards: 0/0 members (100%)",
            ]
        );
    }

    #[test]
    fn a_public_url_is_an_origin() {
        let url = PublicUrl::parse("https://Boards.Example.com/").unwrap();
        assert_eq!((url.origin(), url.is_https()), ("https://boards.example.com", true));
        assert!(!PublicUrl::parse("http://10.0.0.7:3000").unwrap().is_https());
        for bad in ["boards.example.com", "ftp://x", "https://", "https://x/laurel", "https://u@x"] {
            assert!(PublicUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
