//! The settle/rebuild benchmark's driver (run by `scripts/bench-settle`; see docs/BENCHMARKS.md).
//!
//! Creates a weekly `incr` board, fills last week's period with N members straight into the
//! ledger (one point entry and one total per member, in multi-row INSERTs: a fixture, not the
//! write path), then times the engine's use cases on it — `Jobs::rebuild`, the freeze, the
//! projection cross-check alone, `Lifecycle::settle` as a whole, reading the settlement back; checks
//! that the stored standings hash to the digest and that members are found at their positions
//! (timing those lookups); and, in the same run, raw references: the pure standings + digest
//! computation, a raw `SELECT` of the N totals and a raw server-side `INSERT … SELECT` of the N
//! totals into a scratch table shaped as the standings were before they moved to blocks (a row
//! per member). Then a correction after settlement: five previews of revoking the winner's event
//! (their p50) and the re-settlement that applies one (revision 2), against the settlement's own
//! time. Then, unless `BENCH_SEGMENTS` is empty, the same members on a board with two segment
//! dimensions (`30x500`: 30 provinces, 500 classes) and a prize table each, settled against the
//! plain settlement's time (`RATIO segmented-settle/settle`). Then, unless `BENCH_SEASON_WEEKS`
//! is empty or 0, a `sum` season of that many weeks (default 12) of the same N members each (the
//! last week open, the others filled by the fixture): its first whole computation, its live top-10
//! read against the week's (`RATIO season-top10/week-top10`), the slowest Redis command while
//! ingest runs on the open week and the season follows it (`SLOWLOG`, threshold 25 ms), and its
//! settlement against the plain one (`RATIO season-settle/settle`; the past weeks are marked
//! settled by the fixture, as a season's settlement reads their totals, not their standings).
//! The settlement's step times are logged on stderr.
//! Prints one `RESULT phase=… members=… seconds=… per_s=…` line per measurement.
//!
//! usage: cargo run --release -p engine --example bench_settle -- DATABASE_URL REDIS_URL KEY_PREFIX MEMBERS

use domain::board::Prize;
use domain::lifecycle::Transition;
use domain::settlement::{FinalTotal, canonical_text, standings};
use domain::{Board, BoardSlug, Cadence, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::{Engine, EngineConfig};
use sha2::{Digest, Sha256};
use sqlx::Row;
use std::time::Instant;

/// Rows per multi-row INSERT of the fixture (10 columns: under PostgreSQL's 65 535 binds).
const CHUNK: usize = 500;

fn report(phase: &str, members: usize, started: Instant) {
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "RESULT phase={phase} members={members} seconds={seconds:.3} per_s={:.0}",
        members as f64 / seconds
    );
}

/// The member's points: spread over 0..100 000 so a million members hold many ties.
fn points(i: usize) -> i64 {
    ((i as u64).wrapping_mul(2_654_435_761) % 100_000) as i64
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, database_url, redis_url, key_prefix, members] = &args[..] else {
        return Err("usage: bench_settle DATABASE_URL REDIS_URL KEY_PREFIX MEMBERS".into());
    };
    let n: usize = members.parse()?;
    // The settlement's step times ("settlement written") and other engine logs, on stderr.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("engine=info"))
        .with_writer(std::io::stderr)
        .init();
    let config = EngineConfig {
        database_url: database_url.clone(),
        redis_url: redis_url.clone(),
        key_prefix: key_prefix.clone(),
        replica_reads: Default::default(),
    };
    let engine = Engine::start(&config).await?;
    let board = Board {
        slug: BoardSlug::parse(format!("settle-{n}"))?,
        title: format!("Settle {n}"),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::UTC,
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, 0, 1_000_000_000, 1)?,
        freeze_grace_seconds: 0,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![
            Prize { from_rank: 1, to_rank: 1, prize: "gold".into() },
            Prize { from_rank: 2, to_rank: 3, prize: "silver".into() },
            Prize { from_rank: 4, to_rank: 10, prize: "bronze".into() },
        ],
        unit: domain::Unit::Points,
    };
    engine.boards().create_board(&board).await?;
    let now = jiff::Timestamp::now();
    let period = board.period_at(now - jiff::SignedDuration::from_hours(7 * 24));
    let key = period.to_string();
    let slug = board.slug.as_str();

    // The fixture, through a pool of its own (the ledger's SQL stays in engine/src/ledger).
    sqlx::any::install_default_drivers();
    let url = if database_url.starts_with("sqlite:") && !database_url.contains('?') {
        format!("{database_url}?mode=rwc")
    } else {
        database_url.clone()
    };
    let pool = sqlx::any::AnyPoolOptions::new().max_connections(1).connect(&url).await?;
    if database_url.starts_with("sqlite:") {
        // The ledger's own settings (engine/src/ledger/mod.rs), for the raw references too.
        sqlx::query("PRAGMA synchronous = NORMAL").execute(&pool).await?;
    }
    let started = Instant::now();
    let sqlite = database_url.starts_with("sqlite:");
    fill(&pool, sqlite, (slug, &key), n, None, now, "e").await?;
    report("fill (fixture: N entries + N totals)", n, started);

    let started = Instant::now();
    let scope = engine.reads().scope_of(&board.slug, period).await?;
    let rebuilt = engine.jobs().rebuild(&scope, "bench").await?;
    assert_eq!(rebuilt.members as usize, n);
    report("rebuild (Jobs::rebuild)", n, started);

    let started = Instant::now();
    engine.lifecycle().transition(&scope, Transition::Freeze, "bench", None).await?;
    report("freeze (Lifecycle::transition Freeze)", n, started);

    let started = Instant::now();
    let check = engine.lifecycle().cross_check(&board, period, "bench").await?;
    assert_eq!((check.members as usize, check.mismatched), (n, 0));
    report("cross-check alone (Lifecycle::cross_check)", n, started);

    let started = Instant::now();
    let settlement = engine.lifecycle().settle(&board, period, "bench").await?;
    assert_eq!(settlement.members as usize, n);
    report("settle (Lifecycle::settle: cross-check + ledger transaction)", n, started);
    let settle_seconds = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let again = engine.ledger().settlement(&board.slug, &period, 0, n as u64).await?.expect("settled");
    assert_eq!((again.digest.as_str(), again.standings.len()), (settlement.digest.as_str(), n));
    report("all standings read back (Ledger::settlement)", n, started);
    // The stored rows hash to the settlement's digest, and members are found where they stand.
    let stored: String = Sha256::digest(canonical_text(slug, &key, &again.standings).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(stored, settlement.digest);
    let started = Instant::now();
    let probes = n.min(1000);
    for i in 0..probes {
        let position = i * n / probes;
        let member = &again.standings[position].member;
        let at = engine.ledger().standing_position(&board.slug, &period, member).await?;
        assert_eq!(at, Some(position as u64));
    }
    report("member lookups (Ledger::standing_position: this many, per second)", probes, started);

    // --- raw references, same run, same data -------------------------------------------------
    let started = Instant::now();
    let rows = sqlx::query("SELECT member, points, reach_seq FROM totals WHERE board = $1 AND period = $2")
        .bind(slug)
        .bind(&key)
        .fetch_all(&pool)
        .await?;
    report("raw SQL: SELECT N totals", n, started);
    let totals = rows
        .iter()
        .map(|r| {
            Ok(FinalTotal {
                member: MemberId::parse(r.try_get::<String, _>("member")?)?,
                points: r.try_get("points")?,
                reach_seq: r.try_get("reach_seq")?,
            })
        })
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    let started = Instant::now();
    let computed = standings(board.sort(), board.tie_policy(), totals, &board.prizes);
    let digest: String = Sha256::digest(canonical_text(slug, &key, &computed).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(digest, settlement.digest);
    report("pure: standings + digest (domain)", n, started);

    // A row per member in a scratch table of the shape the standings had before they moved to
    // blocks (migration 0009), filled in key order from the totals: what writing the standings
    // one row each would cost at least.
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS bench_standings (board TEXT NOT NULL, period TEXT NOT NULL, \
         revision BIGINT NOT NULL, position BIGINT NOT NULL, rank BIGINT NOT NULL, member TEXT NOT NULL, \
         points BIGINT NOT NULL, prize TEXT, PRIMARY KEY (board, period, revision, position))",
    )
    .execute(&pool)
    .await?;
    let started = Instant::now();
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO bench_standings (board, period, revision, position, rank, member, points, prize) \
         SELECT board, period, 1, ROW_NUMBER() OVER (ORDER BY member) - 1, ROW_NUMBER() OVER (ORDER BY member), \
         member, points, NULL FROM totals WHERE board = $1 AND period = $2",
    )
    .bind(slug)
    .bind(&key)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    report("raw SQL: INSERT ... SELECT N totals into a standings-shaped table", n, started);
    sqlx::query("DROP TABLE bench_standings").execute(&pool).await?;

    // Last (it changes the period the references above read): a correction after settlement,
    // previews of one revoke (the winner's only event), then the re-settlement that applies one
    // of them (revision 2). Previews write only their draft, so each sees the same period.
    let winner = &again.standings[0].member;
    // The fixture gives member m{i:07} one event, e{i}.
    let event = domain::EventId::parse(format!("e{}", winner.as_str()[1..].parse::<usize>()?))?;
    let change = || vec![domain::preview::PreviewChange::Revoke(event.clone())];
    let (mut took, mut digested) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..5 {
        let started = Instant::now();
        let preview = engine.lifecycle().preview(&scope, "bench", change(), "bench").await?;
        took.push(started.elapsed().as_secs_f64());
        // Above 100 000 members the digest after follows on the draft: wait for it before the
        // next preview, so that no preview is timed beside another one's digest.
        let digest = loop {
            let draft = engine.lifecycle().preview_draft(&scope, &preview.preview_id).await?;
            if let Some(digest) = draft.digest_after {
                break digest;
            }
            assert!(preview.digest_pending, "a digest is in the answer or pending");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        };
        digested.push(started.elapsed().as_secs_f64());
        last = Some((preview, digest));
    }
    took.sort_by(f64::total_cmp);
    digested.sort_by(f64::total_cmp);
    let (preview, digest_after) = last.expect("five previews");
    assert_eq!(preview.moves.len(), 1, "the winner falls");
    println!(
        "RESULT phase=preview of one revoke (Lifecycle::preview, p50 of 5) members={n} seconds={:.3} per_s={:.0}",
        took[2],
        n as f64 / took[2]
    );
    println!(
        "RESULT phase=its digest_after on the draft (from the request, p50 of 5) members={n} seconds={:.3} per_s={:.0}",
        digested[2],
        n as f64 / digested[2]
    );
    let started = Instant::now();
    let applied = engine.lifecycle().apply_preview(&scope, &preview.preview_id, "bench").await?;
    let revision = applied.revision.expect("a settled period is re-settled");
    assert_eq!((revision.revision, revision.digest.as_str()), (2, digest_after.as_str()));
    report("re-settle one revoke (Lifecycle::apply_preview: revision 2)", n, started);
    println!(
        "RATIO re-settle/settle={:.2} preview_p50_ms={:.0} settle_seconds={settle_seconds:.3}",
        started.elapsed().as_secs_f64() / settle_seconds,
        took[2] * 1000.0
    );

    // Settlement in segments: the same members in BENCH_SEGMENTS provinces x classes (30x500), a
    // prize table per dimension, settled beside the plain board's settlement above.
    if let Some((provinces, classes)) = segment_counts()? {
        let prize = |to_rank, prize: &str| vec![Prize { from_rank: 1, to_rank, prize: prize.into() }];
        let segmented = Board {
            slug: BoardSlug::parse(format!("settle-seg-{n}"))?,
            segments: vec!["province".into(), "class".into()],
            segment_prizes: [("province".into(), prize(3, "medal")), ("class".into(), prize(1, "star"))]
                .into(),
            ..board.clone()
        };
        engine.boards().create_board(&segmented).await?;
        let started = Instant::now();
        fill(&pool, sqlite, (segmented.slug.as_str(), &key), n, Some((provinces, classes)), now, "e").await?;
        report("fill in segments (fixture: N entries + N totals + 2N memberships)", n, started);
        let scope = engine.reads().scope_of(&segmented.slug, period).await?;
        let started = Instant::now();
        engine.jobs().rebuild(&scope, "bench").await?;
        report("rebuild in segments (Jobs::rebuild: the board and every segment)", n, started);
        engine.lifecycle().transition(&scope, Transition::Freeze, "bench", None).await?;
        let started = Instant::now();
        let settled = engine.lifecycle().settle(&segmented, period, "bench").await?;
        assert_eq!(
            (settled.members as usize, settled.segments.len()),
            (n, provinces.min(n) + classes.min(n))
        );
        report(&format!("settle in segments ({provinces} provinces x {classes} classes)"), n, started);
        println!("RATIO segmented-settle/settle={:.2}", started.elapsed().as_secs_f64() / settle_seconds);
    }
    if let Some(weeks) = season_weeks()? {
        season_run(&engine, &pool, sqlite, &board, n, weeks, settle_seconds, redis_url).await?;
    }
    pool.close().await;
    engine.close().await;
    Ok(())
}

/// `BENCH_SEASON_WEEKS`: the season's weeks (default 12); empty or `0`: no season run.
fn season_weeks() -> Result<Option<usize>, Box<dyn std::error::Error>> {
    let spec = std::env::var("BENCH_SEASON_WEEKS").unwrap_or_else(|_| "12".into());
    match spec.as_str() {
        "" | "0" => Ok(None),
        weeks => Ok(Some(weeks.parse()?)),
    }
}

/// Writes batches of 100 one-point events to `source`'s open week for 10 s (ids `<prefix><n>`),
/// then, with `follow`, lets the season loop follow each batch; answers how many were written.
async fn ingest_for_10s(
    engine: &Engine,
    source: &Board,
    n: usize,
    prefix: &str,
    follow: bool,
) -> Result<usize, Box<dyn std::error::Error>> {
    let started = Instant::now();
    let mut events = 0;
    while started.elapsed() < std::time::Duration::from_secs(10) {
        let batch: Vec<domain::write::Write> = (0..100)
            .map(|j| {
                let i = (events + j) * 7_919 % n;
                domain::write::Write {
                    member: MemberId::parse(format!("m{i:07}")).expect("a member id"),
                    change: domain::write::Change::Point {
                        event_id: domain::EventId::parse(format!("{prefix}{}", events + j)).expect("an id"),
                        delta: 1,
                    },
                    occurred_at: jiff::Timestamp::now(),
                    metadata: None,
                    segments: Default::default(),
                }
            })
            .collect();
        engine.writes().record(source, &batch).await?;
        if follow {
            engine.seasons().follow().await?;
        }
        events += batch.len();
    }
    Ok(events)
}

/// A `sum` season of `weeks` weeks of `n` members each; see the module docs.
#[allow(clippy::too_many_arguments, reason = "a benchmark's driver, called once")]
async fn season_run(
    engine: &Engine,
    pool: &sqlx::AnyPool,
    sqlite: bool,
    plain: &Board,
    n: usize,
    weeks: usize,
    settle_seconds: f64,
    redis_url: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let source =
        Board { slug: BoardSlug::parse(format!("season-src-{n}"))?, prizes: vec![], ..plain.clone() };
    engine.boards().create_board(&source).await?;
    let now = jiff::Timestamp::now();
    let mut periods = vec![source.period_at(now)];
    while periods.len() < weeks {
        periods.insert(0, periods[0].previous());
    }
    let started = Instant::now();
    for period in &periods {
        fill(pool, sqlite, (source.slug.as_str(), &period.to_string()), n, None, now, &format!("{period}-"))
            .await?;
    }
    report(&format!("season fill (fixture: {weeks} weeks x N members)"), n * weeks, started);
    let open = *periods.last().expect("weeks");
    let week = engine.reads().scope_of(&source.slug, open).await?;
    engine.jobs().rebuild(&week, "bench").await?;
    // The baseline of the ingest below: the same writes before any season holds the week.
    let started = Instant::now();
    let plain_events = ingest_for_10s(engine, &source, n, "p", false).await?;
    report("ingest on the open week, no season (baseline)", plain_events, started);
    let plain_rate = plain_events as f64 / started.elapsed().as_secs_f64();

    // The first whole computation runs when the season is created.
    let mut redis = redis::Client::open(redis_url)?.get_multiplexed_async_connection().await?;
    redis::cmd("CONFIG").arg("SET").arg("slowlog-log-slower-than").arg(25_000).exec_async(&mut redis).await?;
    redis::cmd("SLOWLOG").arg("RESET").exec_async(&mut redis).await?;
    let draft = domain::board::SeasonDraft {
        slug: format!("season-{n}"),
        title: "Season".into(),
        source: source.slug.to_string(),
        periods: Some(periods.iter().map(ToString::to_string).collect()),
        from: None,
        to: None,
        rule: domain::season::SeasonRule::Sum {},
        tie_policy: "shared".into(),
        prizes: vec![Prize { from_rank: 1, to_rank: 3, prize: "cup".into() }],
        carry_over: None,
    };
    let started = Instant::now();
    engine.boards().create_season(draft, "bench").await?;
    report(&format!("season: first whole computation ({weeks} weeks x N members)"), n, started);
    let season = engine.reads().board(&BoardSlug::parse(format!("season-{n}"))?).await?;
    let season_scope = engine.reads().scope(&season.slug, None).await?;

    // Live top-10 reads, one window.lua call each (the 1 s cache is not used), 32 at a time.
    let reads = 20_000;
    let mut rates = Vec::new();
    for (name, scope) in [("week", &week), ("season", &season_scope)] {
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..32 {
            let (engine, scope) = (engine.clone(), scope.clone());
            tasks.spawn(async move {
                for _ in 0..reads / 32 {
                    engine.reads().ranking_page(&scope, 0, 10).await.expect("a top-10 read");
                }
            });
        }
        while let Some(done) = tasks.join_next().await {
            done?;
        }
        report(&format!("live top-10 read of the {name} (32 at a time)"), reads, started);
        rates.push(reads as f64 / started.elapsed().as_secs_f64());
    }
    println!("RATIO season-top10/week-top10={:.2}", rates[1] / rates[0]);

    // Ingest on the open week for 10 s, the season following every batch.
    let started = Instant::now();
    let events = ingest_for_10s(engine, &source, n, "s", true).await?;
    report("ingest on the open week, the season following each batch of 100", events, started);
    let rate = events as f64 / started.elapsed().as_secs_f64();
    println!("RATIO ingest-then-season-per-batch/ingest-alone={:.2}", rate / plain_rate);
    // As a server runs it: the season loop gathers what writes noted for 50 ms, beside the ingest.
    let looping = engine.seasons().spawn(std::time::Duration::from_millis(50));
    let started = Instant::now();
    let events = ingest_for_10s(engine, &source, n, "l", false).await?;
    report("ingest on the open week, the season loop following (50 ms gather)", events, started);
    let rate = events as f64 / started.elapsed().as_secs_f64();
    println!("RATIO ingest-with-season-loop/ingest-alone={:.2}", rate / plain_rate);
    // How long the loop takes to be level once the ingest stops: the season's version sum equals
    // its weeks' (polled in SQL every 10 ms); then the reconciler's check must find nothing.
    let started = Instant::now();
    let level = "SELECT (SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM totals WHERE board = $1) - \
                 (SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM totals WHERE board = $2) AS gap";
    loop {
        let gap: i64 = sqlx::query_scalar(level)
            .bind(season.slug.as_str())
            .bind(source.slug.as_str())
            .fetch_one(pool)
            .await?;
        if gap == 0 || started.elapsed() > std::time::Duration::from_secs(60) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    report("the season level with its weeks after that ingest stopped (the loop's lag)", 1, started);
    looping.abort();
    let behind = engine.seasons().check().await?.totals_written;
    println!("season totals the reconciler's check still wrote once level: {behind}");
    let slow: Vec<redis::Value> = redis::cmd("SLOWLOG").arg("GET").arg(128).query_async(&mut redis).await?;
    println!("SLOWLOG commands over 25 ms during the season's computation and ingest: {}", slow.len());
    for entry in &slow {
        println!("  {entry:?}");
    }

    // Settlement: the open week for real, the past ones marked settled by the fixture.
    engine.lifecycle().transition(&week, Transition::Freeze, "bench", None).await?;
    engine.lifecycle().settle(&source, open, "bench").await?;
    for period in &periods[..weeks - 1] {
        sqlx::query("UPDATE periods SET state = 'settled' WHERE board = $1 AND period = $2")
            .bind(source.slug.as_str())
            .bind(period.to_string())
            .execute(pool)
            .await?;
    }
    engine.lifecycle().transition(&season_scope, Transition::Freeze, "bench", None).await?;
    let started = Instant::now();
    let settled = engine.lifecycle().settle(&season, season_scope.period(), "bench").await?;
    assert_eq!(settled.members as usize, n);
    report(&format!("settle the season ({weeks} weeks)"), n, started);
    println!("RATIO season-settle/settle={:.2}", started.elapsed().as_secs_f64() / settle_seconds);
    Ok(())
}

/// `BENCH_SEGMENTS`: `<provinces>x<classes>` (default 30x500); empty or `0`: no segmented run.
fn segment_counts() -> Result<Option<(usize, usize)>, Box<dyn std::error::Error>> {
    let spec = std::env::var("BENCH_SEGMENTS").unwrap_or_else(|_| "30x500".into());
    if spec.is_empty() || spec == "0" {
        return Ok(None);
    }
    let (p, c) = spec.split_once('x').ok_or("BENCH_SEGMENTS is <provinces>x<classes>, e.g. 30x500")?;
    Ok(Some((p.parse()?, c.parse()?)))
}

/// The fixture: period `key` of board `slug` open, with `n` members `m0000000`… holding one point
/// event (ids `<ids><i>`, unique on the board) and one total each, and, with `segments` (provinces, classes), member i in province
/// `p<i % provinces>` and class `c<i % classes>`.
async fn fill(
    pool: &sqlx::AnyPool,
    sqlite: bool,
    (slug, key): (&str, &str),
    n: usize,
    segments: Option<(usize, usize)>,
    now: jiff::Timestamp,
    ids: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let us = now.as_microsecond();
    // SQLite resolves `$n` placeholders by name, one linear search per parameter: a 4 000-parameter
    // statement then costs ~10x more than with anonymous `?`, which the fixture uses there.
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO periods (board, period, state, next_seq) VALUES ($1, $2, 'open', 0)")
        .bind(slug)
        .bind(key)
        .execute(&mut *tx)
        .await?;
    for start in (0..n).step_by(CHUNK) {
        let rows = CHUNK.min(n - start);
        let sql = values(
            "INSERT INTO entries (board, period, member, kind, external_id, delta, occurred_at, recorded_at) VALUES ",
            8,
            rows,
            sqlite,
        );
        let mut q = sqlx::query(&sql);
        for i in start..start + rows {
            q = q
                .bind(slug)
                .bind(key)
                .bind(format!("m{i:07}"))
                .bind("point")
                .bind(format!("{ids}{i}"))
                .bind(points(i))
                .bind(us)
                .bind(us);
        }
        q.execute(&mut *tx).await?;
        let sql = values(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) VALUES ",
            8,
            rows,
            sqlite,
        );
        let mut q = sqlx::query(&sql);
        for i in start..start + rows {
            q = q.bind(slug).bind(key).bind(format!("m{i:07}")).bind(points(i)).bind(1_i64);
            q = q.bind(0_i64).bind(0_i64).bind(us);
        }
        q.execute(&mut *tx).await?;
        if let Some((provinces, classes)) = segments {
            let sql = values(
                "INSERT INTO segment_members (board, period, member, dimension, value) VALUES ",
                5,
                2 * rows,
                sqlite,
            );
            let mut q = sqlx::query(&sql);
            for i in start..start + rows {
                for (dimension, value) in
                    [("province", format!("p{}", i % provinces)), ("class", format!("c{}", i % classes))]
                {
                    q = q.bind(slug).bind(key).bind(format!("m{i:07}")).bind(dimension).bind(value);
                }
            }
            q.execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// `prefix` followed by `rows` groups of `columns` placeholders (`$n`, or `?` when `anonymous`).
fn values(prefix: &str, columns: usize, rows: usize, anonymous: bool) -> String {
    let mut sql = String::from(prefix);
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        let cells: Vec<String> = (1..=columns)
            .map(|c| if anonymous { "?".into() } else { format!("${}", row * columns + c) })
            .collect();
        sql.push_str(&cells.join(", "));
        sql.push(')');
    }
    sql
}
