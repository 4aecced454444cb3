//! A member's segment ranks on real stores (issue 43, the member page): `Reads::member_segments`
//! answers the member's rank, points and the segment's member count in each segment it holds, in
//! the board's order of dimensions. Every test runs on standalone Redis and a 3-master Cluster,
//! and on SQLite and PostgreSQL.
//!
//! - ranks, ties, points and counts match each segment's own ranking, under both tie policies; a
//!   member holding one dimension only lists one; a member with no points lists none;
//! - a hidden member is not found, and leaves its segments' counts and ranks;
//! - during a public freeze the public gets 409 `segment_frozen`, whatever the member holds.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets, unique};
use domain::view::MemberSegment;
use domain::write::{Change, Outcome, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::scope::Scope;
use engine::{Engine, EngineError};

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

fn board(policy: TiePolicy) -> Board {
    Board {
        slug: BoardSlug::parse(unique("mseg").replace('_', "-").to_lowercase()).unwrap(),
        title: "member segments".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(policy, 0, 1_000_000, if policy == TiePolicy::Shared { 1 } else { 1000 })
            .unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: vec!["province".into(), "class".into()],
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![],
        unit: domain::Unit::Points,
    }
}

fn event(id: &str, member: &str, delta: i64, segments: &[(&str, &str)]) -> Write {
    Write {
        member: m(member),
        change: Change::Point { event_id: EventId::parse(id).unwrap(), delta },
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: segments.iter().map(|(d, v)| (d.to_string(), v.to_string())).collect(),
    }
}

async fn each_store(test: impl AsyncFn(&str, &Engine)) {
    for (redis, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            test(&format!("{}/{redis}", t.name), &e).await;
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

/// zj: u1 50, u2 30, u5 30 (u2 first); js: u3 40, u4 20. c1: u1 50, u3 40; c2: u2 30, u5 30.
/// u4 holds no class.
async fn setup(e: &Engine, b: &Board) {
    e.boards().create_board(b).await.unwrap();
    let writes = [
        event("e1", "u1", 50, &[("class", "c1"), ("province", "zj")]),
        event("e2", "u2", 30, &[("province", "zj"), ("class", "c2")]),
        event("e3", "u3", 40, &[("province", "js"), ("class", "c1")]),
        event("e4", "u4", 20, &[("province", "js")]),
    ];
    let out = e.writes().record(b, &writes).await.unwrap();
    assert!(out.iter().all(|r| r.recorded.outcome == Outcome::Applied && r.projected), "{out:?}");
    let out =
        e.writes().record(b, &[event("e5", "u5", 30, &[("province", "zj"), ("class", "c2")])]).await.unwrap();
    assert!(out[0].projected, "{out:?}");
}

async fn scope(e: &Engine, b: &Board) -> Scope {
    e.reads().scope(&b.slug, None).await.unwrap()
}

/// (segment, rank, tied, points, members)
fn said(found: &[MemberSegment]) -> Vec<(String, u64, bool, i64, u64)> {
    found.iter().map(|s| (s.name(), s.rank, s.tied, s.points, s.members)).collect()
}

fn seg(name: &str, rank: u64, tied: bool, points: i64, members: u64) -> (String, u64, bool, i64, u64) {
    (name.to_owned(), rank, tied, points, members)
}

#[tokio::test]
async fn a_member_sees_its_rank_points_and_count_in_each_of_its_segments() {
    each_store(async |name, e| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let b = board(policy);
            setup(e, &b).await;
            let s = scope(e, &b).await;
            let of = async |member: &str| e.reads().member_segments(&s, &m(member)).await.unwrap();
            let shared = policy == TiePolicy::Shared;
            // The board's order of dimensions, whatever order the write named them in.
            assert_eq!(
                said(&of("u1").await),
                vec![seg("province:zj", 1, false, 50, 3), seg("class:c1", 1, false, 50, 2)],
                "{name} {policy:?}"
            );
            // u2 and u5 tie on 30: shared ranks them both 2nd in zj and 1st in c2; under
            // `first_reached` u2 reached 30 first.
            assert_eq!(
                said(&of("u2").await),
                vec![seg("province:zj", 2, shared, 30, 3), seg("class:c2", 1, shared, 30, 2)],
                "{name} {policy:?}"
            );
            let (zj5, c25) = if shared { (2, 1) } else { (3, 2) };
            assert_eq!(
                said(&of("u5").await),
                vec![seg("province:zj", zj5, shared, 30, 3), seg("class:c2", c25, shared, 30, 2)],
                "{name} {policy:?}"
            );
            assert_eq!(
                said(&of("u3").await),
                vec![seg("province:js", 1, false, 40, 2), seg("class:c1", 2, false, 40, 2)],
                "{name} {policy:?}"
            );
            // One dimension held: one line.
            assert_eq!(said(&of("u4").await), vec![seg("province:js", 2, false, 20, 2)], "{name}");
            // No points in the period: nothing to list (and not an error).
            assert_eq!(said(&of("nobody").await), vec![], "{name}");
            // A later write moves the member in every segment it holds.
            e.writes().record(&b, &[event("e6", "u4", 100, &[])]).await.unwrap();
            assert_eq!(said(&of("u4").await), vec![seg("province:js", 1, false, 120, 2)], "{name}");
            assert_eq!(said(&of("u3").await)[0], seg("province:js", 2, false, 40, 2), "{name}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_hidden_member_is_not_found_and_leaves_its_segments() {
    each_store(async |name, e| {
        let b = board(TiePolicy::Shared);
        setup(e, &b).await;
        let s = scope(e, &b).await;
        e.lifecycle().hide_member(&s, &m("u1"), "admin:ann", "cheating").await.unwrap();
        let hidden = e.reads().member_segments(&s, &m("u1")).await;
        assert!(matches!(hidden, Err(EngineError::NotFound { .. })), "{name}: {hidden:?}");
        // The others rank without it: u3 leads c1 alone, u2 and u5 lead zj together.
        let u3 = e.reads().member_segments(&s, &m("u3")).await.unwrap();
        assert_eq!(said(&u3), vec![seg("province:js", 1, false, 40, 2), seg("class:c1", 1, false, 40, 1)]);
        let u2 = e.reads().member_segments(&s, &m("u2")).await.unwrap();
        assert_eq!(said(&u2)[0], seg("province:zj", 1, true, 30, 2), "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_public_freeze_hides_every_segment_rank_until_the_reveal() {
    each_store(async |name, e| {
        let b = board(TiePolicy::Shared);
        setup(e, &b).await;
        let s = scope(e, &b).await;
        assert_eq!(e.reads().member_segments(&s, &m("u2")).await.unwrap().len(), 2, "{name}");
        e.lifecycle().public_freeze(&s, "admin:ann", None).await.unwrap();
        // u2 overtakes u1 after the freeze: no segment may show it.
        e.writes().record(&b, &[event("after", "u2", 100, &[])]).await.unwrap();
        let s = scope(e, &b).await;
        for member in ["u1", "u2", "u4", "nobody"] {
            match e.reads().member_segments(&s, &m(member)).await {
                Err(EngineError::Refused { code, .. }) => {
                    assert_eq!(code.as_str(), "segment_frozen", "{name} {member}")
                }
                other => panic!("{name} {member}: {other:?}"),
            }
        }
        // A hidden member stays not found during the freeze too.
        e.lifecycle().hide_member(&s, &m("u3"), "admin:ann", "cheating").await.unwrap();
        let hidden = e.reads().member_segments(&s, &m("u3")).await;
        assert!(matches!(hidden, Err(EngineError::NotFound { .. })), "{name}: {hidden:?}");
    })
    .await;
}
