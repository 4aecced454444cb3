//! `laurel`: the one binary. See `laurel --help`, README.md and docs/ARCHITECTURE.md.
//!
//! - [`cli`]: flags and environment variables.
//! - [`http`]: the router (operations, pages, server functions, embedded site).
//! - [`rest`]: the HTTP API v1.
//! - [`assets`]: the embedded site.
//! - [`listen`]: the accept loop; [`peer`]: who sent a request; [`security`]: the headers of every
//!   answer; [`anonymous`]: what a caller without credentials may spend; [`top_cache`]: repeated
//!   top-N answers; [`state`]: what every handler reaches.
//!
//! The allocator is mimalloc: glibc's malloc and free were about a tenth of the CPU of a cached
//! read (docs/BENCHMARKS.md, reads).

mod anonymous;
mod assets;
mod cli;
mod http;
mod listen;
mod page_cache;
mod peer;
mod rest;
mod security;
#[cfg(test)]
mod shape_tests;
mod state;
#[cfg(test)]
mod stores_tests;
mod top_cache;

#[cfg(test)]
mod docs_tests;

use anyhow::Context;
use clap::Parser;
use cli::{AdminCommand, ApikeyCommand, Cli, Command, ServeArgs};
use engine::Engine;
use leptos::prelude::LeptosOptions;
use tracing_subscriber::EnvFilter;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_env("LAUREL_LOG").unwrap_or_else(|_| EnvFilter::new("info")))
        // Logs go to stderr: `laurel export` writes its JSON to stdout.
        .with_writer(std::io::stderr)
        .init();
    match Cli::parse().command {
        Command::Serve(args) => serve(args).await,
        Command::Migrate(args) => {
            let applied = engine::doctor::migrate(&args.database_url).await.context("migrate the ledger")?;
            println!("ledger migrated: {} migration(s) applied", applied.len());
            Ok(())
        }
        Command::Admin { command: AdminCommand::Token(stores) } => {
            let engine = Engine::start(&stores.engine_config()).await.context("start the engine")?;
            println!("{}", engine.access().issue_admin_token().await?);
            Ok(())
        }
        Command::Admin { command: AdminCommand::Create { stores, username } } => {
            let password = admin_password()?;
            let engine = Engine::start(&stores.engine_config()).await.context("start the engine")?;
            engine.access().create_admin(&username, &password).await?;
            eprintln!("admin {username} created");
            Ok(())
        }
        Command::ContestantLink { member, hours, base_url, link_secret } => {
            let secret = engine::access::links::LinkSecret::new(&link_secret).map_err(anyhow::Error::msg)?;
            let member = domain::MemberId::parse(member).context("--member")?;
            let valid_for = jiff::SignedDuration::from_hours(i64::from(hours));
            let link = secret.sign(&member, valid_for, jiff::Timestamp::now()).map_err(anyhow::Error::msg)?;
            println!("{}/me?{}", base_url.trim_end_matches('/'), link.query());
            Ok(())
        }
        Command::Apikey { command } => create_api_key(command).await,
        Command::Rebuild { stores, board, period } => {
            let engine = Engine::start(&stores.engine_config()).await.context("start the engine")?;
            let board = domain::BoardSlug::parse(board).context("--board is not a valid slug")?;
            let scope = engine.reads().scope(&board, Some(&period)).await?;
            let progress = cli::progress("rebuild");
            let page = engine::jobs::reconciler::REBUILD_PAGE;
            let report = engine.jobs().rebuild_with_progress(&scope, "cli", page, &progress).await?;
            println!("rebuilt {board} {period}: {} members in {} ms", report.members, report.took_ms);
            Ok(())
        }
        Command::Export { stores, board, period, out } => export_period(stores, board, period, out).await,
        Command::Doctor { ledger, fix } => doctor(&ledger.database_url, fix).await,
        Command::ImportTotals { stores, board, period, file, mode, import_id } => {
            let engine = Engine::start(&stores.engine_config()).await.context("start the engine")?;
            let progress = cli::progress("import-totals");
            let r =
                cli::import_totals(&engine, &board, &period, &file, &mode, import_id.as_deref(), &progress)
                    .await?;
            let again = if r.repeated { " (a repeat of an earlier import: nothing changed)" } else { "" };
            println!(
                "import {} into {} {} ({}): {} rows, {} imported, {} kept, {} unchanged{again}",
                r.import_id,
                r.board,
                r.period,
                r.mode.as_str(),
                r.rows,
                r.imported,
                r.kept,
                r.unchanged
            );
            Ok(())
        }
        Command::Verify { file } => verify(&file),
        Command::Import { stores, file } => {
            let progress = cli::progress("import");
            progress.uncounted("reading the file", "bytes");
            let text = std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))?;
            let export: engine::transfer::PeriodExport = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a period export", file.display()))?;
            let engine = Engine::start(&stores.engine_config()).await.context("start the engine")?;
            let r = engine.transfer().import_period_with_progress(&export, &progress).await?;
            println!(
                "imported {} {} ({}): {} entries, {} late writes, {} members, digest {}",
                r.board, r.period, r.state, r.entries, r.late_entries, r.members, r.digest
            );
            Ok(())
        }
    }
}

/// `laurel apikey create`: prints the key once, its facts on stderr.
async fn create_api_key(command: ApikeyCommand) -> anyhow::Result<()> {
    let ApikeyCommand::Create { stores, boards, rate_per_second, burst } = command;
    let limits = domain::apikey::KeyLimits::parse(rate_per_second, burst).map_err(anyhow::Error::msg)?;
    let engine = Engine::start(&stores.engine_config()).await.context("start the engine")?;
    let boards = boards
        .into_iter()
        .map(domain::BoardSlug::parse)
        .collect::<Result<Vec<_>, _>>()
        .context("a --board is not a valid slug")?;
    let issued = engine.access().issue_api_key(&boards, limits, "cli").await?;
    eprintln!(
        "ingest key #{} ({}…) for {}: {}/s, burst {}; copy it now, it will not be shown again",
        issued.view.id,
        issued.view.prefix,
        issued.view.boards.join(", "),
        issued.view.rate_per_second,
        issued.view.burst
    );
    println!("{}", issued.key);
    Ok(())
}

/// `laurel export`: a settled period's JSON, to a file or to standard output.
async fn export_period(
    stores: cli::StoreArgs,
    board: String,
    period: String,
    out: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let engine = Engine::start(&stores.engine_config()).await.context("start the engine")?;
    let board = domain::BoardSlug::parse(board).context("--board is not a valid slug")?;
    let scope = engine.reads().scope(&board, Some(&period)).await?;
    let progress = cli::progress("export");
    let export = engine.transfer().export_period_with_progress(&scope, &progress).await?;
    // The bytes `serde_json::to_string_pretty` makes, and a newline.
    use engine::transfer::write_export as write;
    match out {
        Some(path) => std::fs::File::create(&path)
            .and_then(|file| write(&export, std::io::BufWriter::new(file), &progress))
            .with_context(|| format!("write {}", path.display()))?,
        None => write(&export, std::io::BufWriter::new(std::io::stdout().lock()), &progress)?,
    }
    Ok(())
}

/// `laurel verify`: every fact a receipt or an export states, checked offline.
fn verify(file: &std::path::Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file).with_context(|| format!("read {}", file.display()))?;
    let report = domain::receipt::verify_json(&text);
    for fact in &report.holds {
        println!("holds: {fact}");
    }
    for failure in &report.fails {
        println!("FAILS: {failure}");
    }
    anyhow::ensure!(
        report.ok(),
        "{} ({}) does not verify: {}",
        file.display(),
        report.kind,
        report.fails.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    );
    println!("{} verifies: {} facts hold", file.display(), report.holds.len());
    Ok(())
}

/// The new admin's password: LAUREL_ADMIN_PASSWORD, or asked at the terminal twice.
fn admin_password() -> anyhow::Result<String> {
    if let Ok(password) = std::env::var("LAUREL_ADMIN_PASSWORD") {
        return Ok(password);
    }
    let password = rpassword::prompt_password("password: ").context("read the password")?;
    let again = rpassword::prompt_password("again: ").context("read the password")?;
    anyhow::ensure!(password == again, "the passwords differ");
    Ok(password)
}

/// `laurel doctor [--fix]`: one line per unreadable row, then what was moved.
async fn doctor(database_url: &str, fix: bool) -> anyhow::Result<()> {
    let doctor = engine::doctor::Doctor::open(database_url).await.context("open the ledger")?;
    let found = doctor.find().await?;
    let mut left = 0;
    for finding in &found {
        let row = &finding.row;
        let what = if !finding.movable {
            left += 1;
            "fix by hand"
        } else if fix {
            let moved = doctor.quarantine(finding).await?;
            println!("{} {}: {} — quarantined ({moved} rows moved)", row.table, row.key, row.reason);
            continue;
        } else {
            left += 1;
            "movable with --fix"
        };
        println!("{} {}: {} — {what}", row.table, row.key, row.reason);
    }
    eprintln!("{} unreadable row(s) found, {left} left", found.len());
    if left > 0 {
        std::process::exit(1);
    }
    Ok(())
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let mut engine = Engine::start(&args.stores.engine_config()).await.context("start the engine")?;
    if let Some(secret) = &args.link_secret {
        let secret = engine::access::links::LinkSecret::new(secret)
            .map_err(anyhow::Error::msg)
            .context("--link-secret")?;
        engine = engine.with_link_secret(secret);
    }
    // Laurel's scripts need Redis 7.0: an older server would fail at the first write, so it is
    // refused here. A Redis that does not answer yet is not refused (writes go to the ledger
    // meanwhile); `/readyz` then tells its version once it answers.
    match engine.redis_version_refusal().await {
        Ok(None) => {}
        Ok(Some(refusal)) => anyhow::bail!("{refusal}"),
        Err(error) => tracing::warn!(%error, "Redis's version not checked: it does not answer yet"),
    }
    // Brings the projection level after Redis outages, restarts or crashes; no manual step.
    let reconciler = engine.jobs().spawn_reconciler(std::time::Duration::from_secs(2));
    // Seasons follow their weeks' writes within a gather of the first one (engine::seasons).
    let _seasons = engine.seasons().spawn(std::time::Duration::from_millis(50));
    // The display names are loaded now rather than by the first page read (engine::names).
    tokio::spawn({
        let engine = engine.clone();
        async move {
            if let Err(error) = engine.reads().load_names().await {
                tracing::warn!(%error, "display names not loaded yet; the first read will try again");
            }
        }
    });
    // Before the scheduler starts: its first tick would freeze a past week of the demo while the
    // demo still writes it, turning those writes into late ones that block its settlement.
    if args.demo {
        let created =
            engine::demo::ensure_demo(&engine, "Asia/Shanghai").await.context("create the demo board")?;
        tracing::info!(created, "demo board at /b/{}", engine::demo::DEMO_BOARD);
    }
    // Freezes ended periods (and archives settled ones); one instance leads, by a ledger lease.
    let (stop_scheduler, scheduler_stopped) = tokio::sync::oneshot::channel::<()>();
    let scheduler_config = args.scheduler_config();
    let holder = scheduler_config.holder.clone();
    let scheduler = engine.jobs().spawn_scheduler(scheduler_config, async move {
        let _ = scheduler_stopped.await;
    });
    // Publishes hot boards' lists once per interval; one instance leads, by another lease.
    let (stop_hot, hot_stopped) = tokio::sync::oneshot::channel::<()>();
    let hot_snapshots = engine.hot().spawn_snapshots(holder, async move {
        let _ = hot_stopped.await;
    });
    // Settlement rewards go to the webhook; without one they wait in the ledger's outbox.
    let rewards = match &args.rewards_webhook {
        Some(url) => {
            let config = engine::rewards::RewardsConfig::new(url).context("--rewards-webhook")?;
            Some(engine.rewards().spawn_delivery(config))
        }
        None => {
            tracing::info!("no --rewards-webhook: settlement rewards stay pending until one is set");
            None
        }
    };
    let site_files = assets::site_files().unwrap_or_else(|| {
        tracing::warn!(
            "this binary carries no browser bundle: pages render but do not hydrate (build with scripts/build)"
        );
        app::SiteFiles::default()
    });
    let leptos_options = LeptosOptions::builder()
        // Must equal the compile-time name leptos used for the <script> tags (.cargo/config.toml).
        .output_name(option_env!("LEPTOS_OUTPUT_NAME").unwrap_or("laurel"))
        .site_root("target/site")
        .site_pkg_dir("pkg")
        .site_addr(args.addr)
        .build();
    let web = state::Web {
        site_files,
        public_url: args.public_url.clone(),
        trusted_proxies: args.trusted_proxies.clone().unwrap_or_default(),
        public_limits: anonymous::limits(args.public_rate_per_second, args.public_burst),
    };
    let app = http::app(state::AppState::with_web(leptos_options, engine.clone(), web));
    // Live streams never end by themselves: they end when shutdown begins, so the drain can finish.
    let shutdown = {
        let engine = engine.clone();
        async move {
            shutdown_signal().await;
            engine.live().close();
        }
    };
    let listener =
        tokio::net::TcpListener::bind(args.addr).await.with_context(|| format!("listen on {}", args.addr))?;
    tracing::info!("serving on http://{}", listener.local_addr()?);
    // Each connection's requests carry its peer's address (`peer`: who is logging in).
    listen::serve(listener, app, shutdown).await;
    reconciler.abort();
    // Releases the leases, so another instance takes over at its next tick.
    let _ = stop_scheduler.send(());
    let _ = stop_hot.send(());
    let _ = scheduler.await;
    let _ = hot_snapshots.await;
    if let Some(rewards) = rewards {
        rewards.abort();
    }
    engine.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on SIGINT or SIGTERM; in-flight requests then finish before the process exits.
async fn shutdown_signal() {
    let interrupt = async { tokio::signal::ctrl_c().await.expect("install the SIGINT handler") };
    let terminate = async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("install the SIGTERM handler")
            .recv()
            .await;
    };
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    tracing::info!("shutdown signal received; draining");
}
