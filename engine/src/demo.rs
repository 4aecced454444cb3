//! The demo (`laurel serve --demo`): what a newcomer should see of the product, written through
//! the real write path and lifecycle, never by inserting rows.
//!
//! - `demo`: a weekly `incr` board. Six past weeks, each frozen and settled with prizes and a
//!   digest; the oldest archived; the one two weeks ago corrected after its settlement (an entry
//!   revoked and a correction: revision 2, with reward deltas). The current week has the same
//!   members and points every time (the browser tests read them), spread over the days so far.
//! - `demo-sprint`: a weekly board under `first_reached`, where equal points are ranked by who
//!   reached them first.
//! - `demo-hot`: a hot board with a few hours of hits in hourly buckets.
//!
//! Each board is created only when absent, so restarting with `--demo` changes nothing. Past
//! weeks are recorded with `Writes::record_at`, as of their own days, so their writes are on time.

use crate::{Engine, EngineError};
use domain::board::Prize;
use domain::hot::{HotBoard, HotRules, HotSpec};
use domain::lifecycle::Transition;
use domain::preview::PreviewChange;
use domain::write::{Change, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, PeriodKey, ScoreCodec, TiePolicy};
use jiff::{SignedDuration, Timestamp};

pub const DEMO_BOARD: &str = "demo";
pub const DEMO_SPRINT: &str = "demo-sprint";
pub const DEMO_HOT: &str = "demo-hot";

/// The settled weeks before the current one.
pub const PAST_WEEKS: usize = 6;

/// The actor of the demo's lifecycle steps in the audit trail.
const ACTOR: &str = "demo";

/// (member, display name, points this week). Ties are deliberate: 1, 2, 2, 4 … shows
/// competition ranks.
const MEMBERS: &[(&str, &str, i64)] = &[
    ("u1001", "Ada Lovelace", 1420),
    ("u1002", "Grace Hopper", 1280),
    ("u1003", "Alan Turing", 1280),
    ("u1004", "Edsger Dijkstra", 1250),
    ("u1005", "Barbara Liskov", 1100),
    ("u1006", "Donald Knuth", 980),
    ("u1007", "Frances Allen", 980),
    ("u1008", "Ken Thompson", 980),
    ("u1009", "Margaret Hamilton", 900),
    ("u1010", "John McCarthy", 870),
    ("u1011", "Radia Perlman", 860),
    ("u1012", "Leslie Lamport", 820),
    ("u1013", "Adele Goldberg", 800),
    ("u1014", "Niklaus Wirth", 800),
    ("u1015", "Tony Hoare", 760),
    ("u1016", "Shafi Goldwasser", 700),
    ("u1017", "Dennis Ritchie", 650),
    ("u1018", "Jean Sammet", 600),
    ("u1019", "Robin Milner", 550),
    ("u1020", "Sophie Wilson", 500),
    ("u1021", "Butler Lampson", 450),
    ("u1022", "Hedy Lamarr", 400),
    ("u1023", "Fran Bilas", 350),
    ("u1024", "Kathleen Booth", 300),
    ("u1025", "u1025 has no profile", 250),
];

/// Creates the demo boards that do not exist yet. Answers whether the weekly board was created.
pub async fn ensure_demo(engine: &Engine, time_zone: &str) -> Result<bool, EngineError> {
    let zone = jiff::tz::TimeZone::get(time_zone).map_err(|e| EngineError::Invalid(e.to_string()))?;
    let now = Timestamp::now();
    let created = ensure_weekly(engine, &zone, now).await?;
    ensure_sprint(engine, &zone, now).await?;
    ensure_hot(engine, now).await?;
    Ok(created)
}

fn slug(s: &str) -> BoardSlug {
    BoardSlug::parse(s).expect("demo slugs are valid")
}

fn member(s: &str) -> MemberId {
    MemberId::parse(s).expect("demo member ids are valid")
}

fn event(s: String) -> EventId {
    EventId::parse(s).expect("demo event ids are valid")
}

fn point(member: &MemberId, event_id: EventId, delta: i64, at: Timestamp, note: &str) -> Write {
    Write {
        member: member.clone(),
        change: Change::Point { event_id, delta },
        occurred_at: at,
        metadata: Some(format!(r#"{{"source":"demo","note":"{note}"}}"#)),
        segments: Default::default(),
    }
}

/// A fixed scramble (splitmix64), so every demo has the same past weeks.
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The instant `fraction` (0..1) of the way from `start` to `end`.
fn between(start: Timestamp, end: Timestamp, fraction: f64) -> Timestamp {
    let span = end.duration_since(start).as_secs_f64();
    start + SignedDuration::from_secs_f64(span * fraction.clamp(0.0, 1.0))
}

async fn ensure_weekly(
    engine: &Engine,
    zone: &jiff::tz::TimeZone,
    now: Timestamp,
) -> Result<bool, EngineError> {
    let board = Board {
        slug: slug(DEMO_BOARD),
        title: "Weekly study points (demo)".into(),
        cadence: Cadence::Weekly,
        zone: zone.clone(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, -100_000, 1_000_000, 1).expect("demo bounds are exact"),
        freeze_grace_seconds: 3600,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![
            Prize { from_rank: 1, to_rank: 1, prize: "Gold laurel".into() },
            Prize { from_rank: 2, to_rank: 3, prize: "Silver laurel".into() },
        ],
        unit: domain::Unit::Points,
    };
    if !engine.ledger().create_board(&board, now).await? {
        return Ok(false);
    }
    for (m, name, _) in &MEMBERS[..MEMBERS.len() - 1] {
        // Through the engine, so this process's copy of the names has them before the first
        // page is served (the copy loaded at start may predate them: engine::names).
        engine.writes().put_profile(&member(m), name, None, &Default::default(), now).await?;
    }
    let current = board.period_at(now);
    let past: Vec<PeriodKey> =
        std::iter::successors(Some(current.previous()), |p| Some(p.previous())).take(PAST_WEEKS).collect();
    // Oldest first, each as the scheduler and an admin would: written during the week, frozen
    // after it, then settled.
    for (age, &period) in past.iter().enumerate().rev() {
        let weeks_ago = age as u64 + 1;
        write_past_week(engine, &board, period, weeks_ago).await?;
        let scope = engine.reads().scope_of(&board.slug, period).await?;
        engine.lifecycle().transition(&scope, Transition::Freeze, ACTOR, None).await?;
        engine.lifecycle().transition(&scope, Transition::Settle, ACTOR, None).await?;
    }
    revise_after_settlement(engine, &board, past[1], 2).await?;
    let oldest = engine.reads().scope_of(&board.slug, past[PAST_WEEKS - 1]).await?;
    engine
        .lifecycle()
        .transition(&oldest, Transition::Archive, ACTOR, Some("demo: older weeks are archived"))
        .await?;
    write_current_week(engine, &board, current, now).await?;
    Ok(true)
}

/// A member's points `weeks_ago`: around their points this week, and now and then absent.
fn past_points(index: usize, weeks_ago: u64) -> Option<i64> {
    let h = mix(index as u64 * 1_000_003 + weeks_ago);
    if h.is_multiple_of(9) {
        return None;
    }
    let percent = 55 + (h / 9 % 90) as i64;
    Some((MEMBERS[index].2 * percent / 100 / 10 * 10).max(10))
}

/// A past week's entries: each member's points in three parts on three days, recorded as they
/// happened, day by day, so every write is on time.
fn past_week_writes(board: &Board, period: PeriodKey, weeks_ago: u64) -> Vec<Write> {
    let span = period.span(&board.zone);
    let mut writes = Vec::new();
    for (i, (m, _, _)) in MEMBERS.iter().enumerate() {
        let Some(points) = past_points(i, weeks_ago) else { continue };
        let m = member(m);
        let parts = [points / 2, points / 3, points - points / 2 - points / 3];
        for (n, delta) in parts.into_iter().enumerate() {
            let h = mix(mix(i as u64) ^ (weeks_ago << 8) ^ n as u64);
            // Between 08:00 and 22:00 of one of the week's days, in the board's zone.
            let fraction = ((h % 7) as f64 + (8.0 + (h >> 8) as f64 % 14.0) / 24.0) / 7.0;
            let id = event(format!("demo-{period}-{m}-{}", n + 1));
            writes.push(point(&m, id, delta, between(span.start, span.end, fraction), "past week"));
        }
    }
    writes.sort_by_key(|w| w.occurred_at);
    writes
}

async fn write_past_week(
    engine: &Engine,
    board: &Board,
    period: PeriodKey,
    weeks_ago: u64,
) -> Result<(), EngineError> {
    let writes = past_week_writes(board, period, weeks_ago);
    for day in
        writes.chunk_by(|a, b| a.occurred_at.as_second() / 86_400 == b.occurred_at.as_second() / 86_400)
    {
        let received = day.last().expect("chunks are not empty").occurred_at + SignedDuration::from_secs(60);
        engine.writes().record_at(board, day, received).await?;
    }
    Ok(())
}

/// After its settlement, the week's winner turns out to have one entry that must not count, and
/// another member a missing one: revoked and corrected through a preview, which writes revision 2
/// of the settlement with its reward deltas, as an admin would.
async fn revise_after_settlement(
    engine: &Engine,
    board: &Board,
    period: PeriodKey,
    weeks_ago: u64,
) -> Result<(), EngineError> {
    let mut ranked: Vec<(usize, i64)> =
        (0..MEMBERS.len()).filter_map(|i| past_points(i, weeks_ago).map(|p| (i, p))).collect();
    ranked.sort_by_key(|&(i, p)| (std::cmp::Reverse(p), i));
    let winner = MEMBERS[ranked[0].0].0;
    let fifth = member(MEMBERS[ranked[4].0].0);
    let changes = vec![
        PreviewChange::Revoke(event(format!("demo-{period}-{winner}-1"))),
        PreviewChange::Correct { member: fifth, delta: 250 },
    ];
    let reason = "demo: a copied solution found after settlement; a graded exercise was missing";
    let scope = engine.reads().scope_of(&board.slug, period).await?;
    let preview = engine.lifecycle().preview(&scope, reason, changes, ACTOR).await?;
    engine.lifecycle().apply_preview(&scope, &preview.preview_id, ACTOR).await?;
    Ok(())
}

/// The current week: every member's fixed points in two parts, spread over the days so far
/// (the second part later, so "why this score" lists it first).
async fn write_current_week(
    engine: &Engine,
    board: &Board,
    period: PeriodKey,
    now: Timestamp,
) -> Result<(), EngineError> {
    let start = period.span(&board.zone).start;
    let count = MEMBERS.len() as f64;
    let mut writes = Vec::new();
    for (i, (m, _, points)) in MEMBERS.iter().enumerate() {
        let m = member(m);
        let shares = [
            (0.05 + 0.4 * i as f64 / count, points - points / 3),
            (0.5 + 0.45 * i as f64 / count, points / 3),
        ];
        for (n, (fraction, delta)) in shares.into_iter().enumerate() {
            let id = event(format!("demo-{m}-{}", n + 1));
            writes.push(point(&m, id, delta, between(start, now, fraction), "this week"));
        }
    }
    engine.writes().record(board, &writes).await?;
    Ok(())
}

/// Puzzles solved this week, 100 points each: (member, fraction of the week so far). Three
/// members reach 300 and two reach 200; `first_reached` ranks them by who got there first.
const SOLVES: &[(&str, f64)] = &[
    ("u1005", 0.04),
    ("u1001", 0.08),
    ("u1003", 0.12),
    ("u1002", 0.18),
    ("u1005", 0.22),
    ("u1004", 0.27),
    ("u1003", 0.31),
    ("u1001", 0.36),
    ("u1007", 0.40),
    ("u1005", 0.47),
    ("u1006", 0.52),
    ("u1002", 0.58),
    ("u1001", 0.63),
    ("u1007", 0.70),
    ("u1008", 0.76),
    ("u1003", 0.84),
];

async fn ensure_sprint(
    engine: &Engine,
    zone: &jiff::tz::TimeZone,
    now: Timestamp,
) -> Result<(), EngineError> {
    let board = Board {
        slug: slug(DEMO_SPRINT),
        title: "Puzzle sprint (demo)".into(),
        cadence: Cadence::Weekly,
        zone: zone.clone(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::FirstReached, 0, 100_000, 1_000_000)
            .expect("demo bounds are exact"),
        freeze_grace_seconds: 600,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![Prize { from_rank: 1, to_rank: 3, prize: "Sprint badge".into() }],
        unit: domain::Unit::Points,
    };
    if !engine.ledger().create_board(&board, now).await? {
        return Ok(());
    }
    let start = board.period_at(now).span(&board.zone).start;
    // One write at a time, in the order they happened: that order is who reached a total first.
    for (n, (m, fraction)) in SOLVES.iter().enumerate() {
        let id = event(format!("sprint-{m}-{n}"));
        engine
            .writes()
            .record(&board, &[point(&member(m), id, 100, between(start, now, *fraction), "puzzle")])
            .await?;
    }
    Ok(())
}

/// Search terms and their hits per hour, oldest hour first: some rise, some fall.
const TRENDS: &[(&str, [u32; 5])] = &[
    ("leptos islands", [1, 3, 6, 11, 16]),
    ("redis cluster", [14, 12, 9, 7, 5]),
    ("sorted sets", [6, 7, 6, 8, 7]),
    ("exactly once", [2, 2, 5, 5, 9]),
    ("sqlite wal", [9, 6, 4, 3, 2]),
    ("hash tags", [3, 4, 3, 4, 4]),
    ("lua scripts", [5, 5, 7, 6, 6]),
    ("settlement digest", [0, 1, 2, 4, 8]),
];

async fn ensure_hot(engine: &Engine, now: Timestamp) -> Result<(), EngineError> {
    let rules = HotRules::new(HotSpec {
        bucket_seconds: 3600,
        window_buckets: 24,
        ttl_seconds: 36 * 3600,
        ..HotSpec::default()
    })
    .map_err(EngineError::Invalid)?;
    let board = HotBoard { slug: slug(DEMO_HOT), title: "Trending searches (demo)".into(), rules };
    match engine.hot().create_board(&board).await {
        Ok(_) => {}
        Err(EngineError::BoardExists(_)) => return Ok(()),
        Err(e) => return Err(e),
    }
    let now_ms = now.as_millisecond();
    for (term, per_hour) in TRENDS {
        for (hour, &hits) in per_hour.iter().enumerate() {
            let hours_ago = (per_hour.len() - 1 - hour) as i64;
            for k in 0..i64::from(hits) {
                // Spread over the hour, never in the future.
                let at_ms = now_ms - hours_ago * 3_600_000 - k * 3_600_000 / i64::from(hits.max(1)) / 2;
                let hit = crate::hot::Hit { member: (*term).into(), ..Default::default() };
                engine.hot().hit_at(&board.slug, &hit, Some(at_ms)).await?;
            }
        }
    }
    // A list as of an hour ago first, so the published one shows how the last hour moved it.
    engine.hot().snapshot(&board.slug, Some(now_ms - 3_600_000)).await?;
    engine.hot().snapshot(&board.slug, None).await?;
    Ok(())
}
