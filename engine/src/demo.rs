//! The demo board (`laurel serve --demo`): a weekly `incr` board in the current week with
//! profiles and ties, written through the real write path (ledger, then projection). Created only
//! when absent, so restarting with `--demo` changes nothing.

use crate::{Engine, EngineError};
use domain::board::Prize;
use domain::write::{Change, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};

pub const DEMO_BOARD: &str = "demo";

/// (member, display name, points). Ties are deliberate: 1, 2, 2, 4 … shows competition ranks.
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

/// Creates the demo board and its current-week events if the board does not exist yet.
/// Returns whether it was created.
pub async fn ensure_demo(engine: &Engine, time_zone: &str) -> Result<bool, EngineError> {
    let slug = BoardSlug::parse(DEMO_BOARD).expect("the demo slug is valid");
    let zone = jiff::tz::TimeZone::get(time_zone).map_err(|e| EngineError::Invalid(e.to_string()))?;
    let board = Board {
        slug,
        title: "Weekly study points (demo)".into(),
        cadence: Cadence::Weekly,
        zone,
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, -100_000, 1_000_000, 1).expect("demo bounds are exact"),
        freeze_grace_seconds: 3600,
        public_freeze_seconds: 0,
        prizes: vec![
            Prize { from_rank: 1, to_rank: 1, prize: "Gold laurel".into() },
            Prize { from_rank: 2, to_rank: 3, prize: "Silver laurel".into() },
        ],
    };
    let now = jiff::Timestamp::now();
    if !engine.ledger().create_board(&board, now).await? {
        return Ok(false);
    }
    let mut events = Vec::new();
    for (i, (member, name, points)) in MEMBERS.iter().enumerate() {
        let member = MemberId::parse(*member).expect("demo member ids are valid");
        if i + 1 < MEMBERS.len() {
            // Through the engine, so this process's copy of the names has them before the
            // first page is served (the copy loaded at start may predate them: engine::names).
            engine.put_profile(&member, name, None, now).await?;
        }
        // Two events each, so "why this score" has something to explain.
        for (n, delta) in [(1, points - points / 3), (2, points / 3)] {
            let event_id = EventId::parse(format!("demo-{member}-{n}")).expect("demo event ids are valid");
            events.push(Write {
                member: member.clone(),
                change: Change::Point { event_id, delta },
                occurred_at: now,
                metadata: Some(format!(r#"{{"source":"demo","part":{n}}}"#)),
            });
        }
    }
    engine.record(&board, &events).await?;
    Ok(true)
}
