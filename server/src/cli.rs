//! The command line: every flag also reads an environment variable (see README and .env.example).

use clap::{Args, Parser, Subcommand};
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
}

#[derive(Debug, Clone, Args)]
pub struct LedgerArgs {
    /// The ledger: `sqlite://path` (created if missing) or `postgres://user@host/db`.
    #[arg(long, env = "LAUREL_DATABASE_URL", default_value = "sqlite://./data/laurel.db")]
    pub database_url: String,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "LAUREL_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,

    /// Redis: `redis://host:port` for a standalone server; a comma-separated list of nodes or
    /// `redis+cluster://host:port,…` for a Cluster.
    #[arg(long, env = "LAUREL_REDIS_URL", default_value = "redis://127.0.0.1:6379")]
    pub redis_url: String,

    #[command(flatten)]
    pub ledger: LedgerArgs,

    /// Prefix of every Redis key, so several deployments can share one Redis.
    #[arg(long, env = "LAUREL_KEY_PREFIX", default_value = "laurel")]
    pub key_prefix: String,

    /// Create a demo weekly board with members, profiles and ties, if it does not exist.
    #[arg(long, env = "LAUREL_DEMO")]
    pub demo: bool,
}
