//! The as-of benchmark's driver (run by `scripts/bench-settle --as-of`; see docs/API.md, "The
//! board as of any moment").
//!
//! Creates a weekly `incr` board and fills last week's period with N members straight into the
//! ledger: three point entries each (3N entries), recorded in three rounds over a day (member i's
//! entries at i, N + i and 2N + i of 3N even steps), one member in a hundred with its first entry
//! revoked half a day later, and the totals those entries make (a fixture, not the write path).
//! Then times `Reads::as_of` at the end of the day and in its middle (a page of 50), around a
//! member, `Reads::changes_between` the middle and the end (two replays), and an as-of answered
//! from the 5 s cache. Each timed read asks for an instant not asked before, so each replays.
//! Checks that the as-of ranking at the end is the ledger's ranking (`Jobs::rebuild`, then the
//! live page) and the middle one a plain sum of the entries recorded by then.
//! Prints one `RESULT phase=… members=… seconds=… per_s=…` line per measurement.
//!
//! usage: cargo run --release -p engine --example bench_asof -- DATABASE_URL REDIS_URL KEY_PREFIX MEMBERS

use domain::{Board, BoardSlug, Cadence, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::reads::asof::AsOfWindow;
use engine::{Engine, EngineConfig, Viewer};
use std::collections::HashMap;
use std::time::Instant;

/// Rows per multi-row INSERT of the fixture (8 columns: under PostgreSQL's 65 535 binds).
const CHUNK: usize = 500;
const DAY_US: i64 = 86_400_000_000;

fn report(phase: &str, members: usize, started: Instant) {
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "RESULT phase={phase} members={members} seconds={seconds:.3} per_s={:.0}",
        members as f64 / seconds
    );
}

/// Entry `round` of member `i`: its delta, spread so that ranks move between rounds.
fn delta(i: usize, round: usize) -> i64 {
    ((i as u64).wrapping_mul(2_654_435_761).wrapping_add(round as u64 * 40_503) % 10_000) as i64
}

fn revoked(i: usize) -> bool {
    i.is_multiple_of(100)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, database_url, redis_url, key_prefix, members] = &args[..] else {
        return Err("usage: bench_asof DATABASE_URL REDIS_URL KEY_PREFIX MEMBERS".into());
    };
    let n: usize = members.parse()?;
    let config = EngineConfig {
        database_url: database_url.clone(),
        redis_url: redis_url.clone(),
        key_prefix: key_prefix.clone(),
        replica_reads: Default::default(),
    };
    let engine = Engine::start(&config).await?;
    let board = Board {
        slug: BoardSlug::parse(format!("asof-{n}"))?,
        title: format!("As of {n}"),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::UTC,
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, 0, 1_000_000_000, 1)?,
        freeze_grace_seconds: 0,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        prizes: vec![],
        unit: domain::Unit::Points,
        segments: vec![],
        segment_prizes: Default::default(),
        season: None,
    };
    engine.boards().create_board(&board).await?;
    let now = jiff::Timestamp::now();
    let period = board.period_at(now - jiff::SignedDuration::from_hours(7 * 24));
    let key = period.to_string();
    let slug = board.slug.as_str();
    let t0 = period.span(&board.zone).start.as_microsecond() + 3_600_000_000;
    let step = DAY_US / (3 * n as i64);
    let at = |j: usize| t0 + j as i64 * step;

    sqlx::any::install_default_drivers();
    let url = if database_url.starts_with("sqlite:") && !database_url.contains('?') {
        format!("{database_url}?mode=rwc")
    } else {
        database_url.clone()
    };
    let pool = sqlx::any::AnyPoolOptions::new().max_connections(1).connect(&url).await?;
    let sqlite = database_url.starts_with("sqlite:");
    let started = Instant::now();
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO periods (board, period, state, next_seq) VALUES ($1, $2, 'open', 0)")
        .bind(slug)
        .bind(&key)
        .execute(&mut *tx)
        .await?;
    for round in 0..3 {
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
                // A first entry to revoke is named `r…`, so the revocations find it below.
                let prefix = if round == 0 && revoked(i) { "r" } else { "e" };
                let t = at(round * n + i);
                q = q
                    .bind(slug)
                    .bind(key.clone())
                    .bind(format!("m{i:07}"))
                    .bind("point")
                    .bind(format!("{prefix}{round}-{i}"))
                    .bind(delta(i, round))
                    .bind(t)
                    .bind(t);
            }
            q.execute(&mut *tx).await?;
        }
    }
    sqlx::query(
        "INSERT INTO entries (board, period, member, kind, delta, occurred_at, recorded_at, revokes) \
         SELECT board, period, member, 'revocation', -delta, occurred_at + $3, recorded_at + $3, id \
         FROM entries WHERE board = $1 AND period = $2 AND external_id LIKE 'r%'",
    )
    .bind(slug)
    .bind(&key)
    .bind(DAY_US / 2)
    .execute(&mut *tx)
    .await?;
    let total = |i: usize| (0..3).filter(|r| *r > 0 || !revoked(i)).map(|r| delta(i, r)).sum::<i64>();
    for start in (0..n).step_by(CHUNK) {
        let rows = CHUNK.min(n - start);
        let sql = values(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) VALUES ",
            8,
            rows,
            sqlite,
        );
        let mut q = sqlx::query(&sql);
        for i in start..start + rows {
            let version = if revoked(i) { 4_i64 } else { 3 };
            q = q.bind(slug).bind(key.clone()).bind(format!("m{i:07}")).bind(total(i)).bind(version);
            q = q.bind(0_i64).bind(0_i64).bind(at(3 * n));
        }
        q.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    if sqlite {
        sqlx::query("ANALYZE").execute(&pool).await?;
    } else {
        sqlx::query("ANALYZE entries").execute(&pool).await?;
    }
    let entries = 3 * n + n.div_ceil(100);
    println!("fixture: {n} members, {entries} entries in {:.1}s", started.elapsed().as_secs_f64());

    let scope = engine.reads().scope_of(&board.slug, period).await?;
    let page = AsOfWindow::Page { offset: 0, limit: 50 };
    let ts = |us: i64| jiff::Timestamp::from_microsecond(us).expect("an instant");
    let end = ts(at(3 * n) + DAY_US);
    let middle = ts(at(3 * n / 2));

    let started = Instant::now();
    let last = engine.reads().as_of(Viewer::Admin, &scope, end, page.clone()).await?;
    report("as-of at the end (page of 50)", n, started);
    // The next page of the same moment, within the 5 s the ranking is kept.
    let started = Instant::now();
    engine.reads().as_of(Viewer::Admin, &scope, end, AsOfWindow::Page { offset: 50, limit: 50 }).await?;
    report("as-of, the next page of the same moment (kept for 5 s)", n, started);
    let started = Instant::now();
    let mid = engine.reads().as_of(Viewer::Admin, &scope, middle, page.clone()).await?;
    report("as-of in the middle (page of 50)", n, started);
    let member = MemberId::parse(format!("m{:07}", n / 2))?;
    let started = Instant::now();
    let around = engine
        .reads()
        .as_of(Viewer::Admin, &scope, ts(end.as_microsecond() - 1), AsOfWindow::Around { member, radius: 5 })
        .await?;
    report("as-of around a member (radius 5)", n, started);
    let started = Instant::now();
    let changes = engine
        .reads()
        .changes_between(
            Viewer::Admin,
            &scope,
            ts(middle.as_microsecond() + 1),
            ts(end.as_microsecond() - 2),
            10,
        )
        .await?;
    report("changes in the top 10, middle to end (two replays)", n, started);
    // The ledger read alone, to tell it from the replay in the figures above.
    let started = Instant::now();
    let read = engine.ledger().past(&board.slug, &period, end, Viewer::Admin).await?;
    report("of which the ledger read (Ledger::past, to the end)", n, started);
    assert_eq!(read.entries.len(), 3 * n + n.div_ceil(100));

    // The end is the ledger's ranking; the middle a plain sum of the entries recorded by then.
    assert_eq!((last.total as usize, around.entries.len()), (n, 11));
    engine.jobs().rebuild(&scope, "bench").await?;
    let live = engine.reads().ranking_page_as(Viewer::Admin, &scope, 0, 50).await?;
    let rows = |e: &[domain::view::Entry]| {
        e.iter().map(|e| (e.rank, e.member.to_string(), e.points)).collect::<Vec<_>>()
    };
    assert_eq!(rows(&last.entries), rows(&live.entries), "as-of at the end is the ledger's ranking");
    let cut = middle.as_microsecond();
    let mut sums: HashMap<String, i64> = HashMap::new();
    for i in 0..n {
        for r in 0..3 {
            let t = at(r * n + i);
            let gone = r == 0 && revoked(i) && t + DAY_US / 2 <= cut;
            if t <= cut && !gone {
                *sums.entry(format!("m{i:07}")).or_default() += delta(i, r);
            }
        }
    }
    assert_eq!(mid.total as usize, sums.len());
    for e in &mid.entries {
        assert_eq!(sums[e.member.as_str()], e.points, "{} in the middle", e.member);
    }
    println!(
        "CHECK end = ledger ranking, middle = sum of entries by then; changes: {} entered, {} left, {} moves",
        changes.entered.len(),
        changes.left.len(),
        changes.moves.len()
    );
    pool.close().await;
    engine.close().await;
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
