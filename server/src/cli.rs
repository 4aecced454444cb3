//! The command line: every flag also reads an environment variable (see README and .env.example).

use clap::{Args, Parser, Subcommand};
use engine::EngineConfig;
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
}

impl StoreArgs {
    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            database_url: self.ledger.database_url.clone(),
            redis_url: self.redis_url.clone(),
            key_prefix: self.key_prefix.clone(),
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
    pub fn scheduler_config(&self) -> engine::scheduler::SchedulerConfig {
        let archive_after =
            self.archive_after_days.map(|days| std::time::Duration::from_secs(u64::from(days) * 24 * 3600));
        engine::scheduler::SchedulerConfig::new(self.scheduler_tick, archive_after)
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
    use super::PublicUrl;

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
