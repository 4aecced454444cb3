//! Seasons on real stores (issue 45): a season board's standings are made of a source board's
//! periods by its rule. Every test runs on standalone Redis and a 3-master Cluster, and on SQLite
//! and PostgreSQL.
//!
//! - each rule (`sum`, `best` K, `weighted`, `placement`) ranks the members as a straightforward
//!   model of the rule says, read through the season's live ranking; it follows writes through
//!   the season loop, a correction in a week the same way, and another instance's write through
//!   the reconciler's check;
//! - the same holds for random writes (several seeds), against the same model;
//! - nothing is written to a season: writes, corrections, previews and hides are `season_board`;
//! - a season settles only after its weeks, and its standings are then the model's of the
//!   weeks' final totals;
//! - a public freeze of a week freezes its seasons with it: what the week hides does not show
//!   through a season until the week is revealed; admins read the season live;
//! - a whole season is read a page of members at a time, no member cut in two;
//! - a draft that names no board, or periods of another cadence, changes nothing;
//! - a correction of a settled week previews its effect on every season made of it, and applying
//!   it re-settles the settled seasons in the same operation: totals, standings, a digest naming
//!   the week's new revision, reward deltas only; a repeat changes nothing, and a crash at any
//!   step of it (failpoints) leaves nothing and reruns to the same revisions.

mod common;

use common::{each_store, point, unique};
use domain::board::{BoardDraft, CarryOverDraft, Prize, SeasonDraft};
use domain::lifecycle::Transition;
use domain::preview::{PreviewChange, SeasonChange};
use domain::season::SeasonRule;
use domain::write::Write;
use domain::{Board, BoardSlug, MemberId, PeriodKey, TiePolicy};
use engine::ledger::Viewer;
use engine::ledger::audit::AuditFilter;
use engine::lifecycle::Correction;
use engine::lifecycle::public::RevealMode;
use engine::redis::Projection;
use engine::{Engine, EngineError};
use std::collections::BTreeMap;

const DAY: i64 = 86_400;

/// A daily source board whose last four days are all still open for writes (7 days of grace).
async fn source(e: &Engine) -> Board {
    let draft = BoardDraft {
        slug: unique("src").replace('_', "-").to_lowercase(),
        title: "daily".into(),
        cadence: "daily".into(),
        time_zone: "UTC".into(),
        operator: "incr".into(),
        tie_policy: "shared".into(),
        max_points: 1_000_000,
        freeze_grace_seconds: Some(7 * DAY),
        ..BoardDraft::default()
    };
    let board = draft.parse().unwrap();
    e.boards().create_board(&board).await.unwrap();
    board
}

/// The source's last four days, oldest first.
fn days(source: &Board) -> Vec<PeriodKey> {
    let today = source.period_at(jiff::Timestamp::now());
    let mut days = vec![today];
    for _ in 0..3 {
        days.insert(0, days[0].previous());
    }
    days
}

async fn season(e: &Engine, source: &Board, rule: SeasonRule) -> Board {
    season_with(e, source, rule, vec![]).await
}

async fn season_with(e: &Engine, source: &Board, rule: SeasonRule, prizes: Vec<Prize>) -> Board {
    let draft = SeasonDraft {
        slug: unique("season").replace('_', "-").to_lowercase(),
        title: "season".into(),
        source: source.slug.to_string(),
        periods: Some(days(source).iter().map(ToString::to_string).collect()),
        from: None,
        to: None,
        rule,
        tie_policy: "shared".into(),
        prizes,
        carry_over: None,
    };
    create(e, draft).await
}

/// Freezes and settles a period.
async fn settle(e: &Engine, scope: &engine::scope::Scope) {
    e.lifecycle().transition(scope, Transition::Freeze, "admin:ann", None).await.unwrap();
    e.lifecycle().transition(scope, Transition::Settle, "admin:ann", None).await.unwrap();
}

/// Freezes and settles each of the source's four days.
async fn settle_days(e: &Engine, src: &Board) {
    for day in days(src) {
        settle(e, &e.reads().scope(&src.slug, Some(&day.to_string())).await.unwrap()).await;
    }
}

async fn create(e: &Engine, draft: SeasonDraft) -> Board {
    let slug = BoardSlug::parse(draft.slug.clone()).unwrap();
    e.boards().create_season(draft, "admin:ann").await.unwrap();
    e.reads().board(&slug).await.unwrap()
}

/// A point event of `member` on day `day` (0: the oldest of the four).
fn on_day(source: &Board, day: usize, id: &str, member: &str, delta: i64) -> Write {
    let start = days(source)[day].span(&source.zone).start;
    Write { occurred_at: start + jiff::SignedDuration::from_secs(3600), ..point(id, member, delta) }
}

/// Weekly totals: member → points per day (absent: no total that day).
type Weeks = BTreeMap<&'static str, [Option<i64>; 4]>;

/// The rule, written out as plainly as possible: what the season's standings must hold.
fn model(rule: &SeasonRule, weeks: &Weeks) -> BTreeMap<String, i64> {
    // Shared ranks per day: 1 + the number of members with more points that day.
    let rank =
        |day: usize, points: i64| 1 + weeks.values().filter(|w| w[day].is_some_and(|p| p > points)).count();
    let mut out = BTreeMap::new();
    for (member, w) in weeks {
        let points = match rule {
            SeasonRule::Sum {} => w.iter().flatten().sum(),
            SeasonRule::Best { k } => {
                let mut all: Vec<i64> = w.iter().flatten().copied().collect();
                all.sort_unstable_by(|a, b| b.cmp(a));
                all.iter().take(*k as usize).sum()
            }
            SeasonRule::Weighted { weights } => (0..4).map(|d| w[d].map_or(0, |p| p * weights[d])).sum(),
            SeasonRule::Placement { points } => {
                let placed: i64 = (0..4)
                    .filter_map(|d| w[d].map(|p| points.get(rank(d, p) - 1).copied().unwrap_or(0)))
                    .sum();
                if placed == 0 {
                    continue; // only members who placed are ranked
                }
                placed
            }
        };
        out.insert(member.to_string(), points);
    }
    out
}

/// The season's live ranking as member → points, and whether the ranks are competition ranks
/// of those points.
async fn read(e: &Engine, season: &Board) -> BTreeMap<String, i64> {
    read_as(e, Viewer::Public, season).await
}

async fn read_as(e: &Engine, viewer: Viewer, season: &Board) -> BTreeMap<String, i64> {
    let scope = e.reads().scope(&season.slug, None).await.unwrap();
    let page = e.reads().ranking_page_as(viewer, &scope, 0, 100).await.unwrap();
    for entry in &page.entries {
        let ahead = page.entries.iter().filter(|o| o.points > entry.points).count() as u64;
        assert_eq!(entry.rank, ahead + 1, "{entry:?} in {:?}", page.entries);
    }
    page.entries.iter().map(|entry| (entry.member.to_string(), entry.points)).collect()
}

fn rules() -> Vec<SeasonRule> {
    vec![
        SeasonRule::Sum {},
        SeasonRule::Best { k: 2 },
        SeasonRule::Weighted { weights: vec![1, 0, 2, 3] },
        SeasonRule::Placement { points: vec![10, 6, 4] },
    ]
}

#[tokio::test]
async fn each_rule_ranks_as_its_model_and_follows_writes_and_corrections() {
    each_store(async |store, e, p| {
        let src = source(e).await;
        let mut seasons = Vec::new();
        for rule in rules() {
            seasons.push(season(e, &src, rule).await);
        }
        let mut weeks = Weeks::new();
        let writes = [
            (0, "a1", "u1", 50),
            (1, "a2", "u1", 20),
            (3, "a3", "u1", 5),
            (0, "b1", "u2", 30),
            (2, "b2", "u2", 60),
            (0, "c1", "u3", 30),
            (1, "c2", "u3", 40),
            (2, "c3", "u3", 10),
            (3, "c4", "u3", 70),
            (3, "d1", "u4", 1),
            (1, "e1", "u5", 40),
        ];
        for (day, id, member, delta) in writes {
            let w = on_day(&src, day, id, member, delta);
            e.writes().record(&src, &[w]).await.unwrap();
            *weeks.entry(member).or_default()[day].get_or_insert(0) += delta;
        }
        // The season loop's work, run here: only the members the writes noted.
        e.seasons().follow().await.unwrap();
        for s in &seasons {
            let rule = &s.season.as_ref().unwrap().rule;
            assert_eq!(read(e, s).await, model(rule, &weeks), "{store} {} after writes", rule.kind());
        }

        // "Why this season total" adds up to the season's ranking, period by period.
        for s in &seasons {
            let scope = e.reads().scope(&s.slug, None).await.unwrap();
            for (member, points) in read(e, s).await {
                let why = e
                    .seasons()
                    .member_season(Viewer::Public, &scope, &MemberId::parse(&member).unwrap())
                    .await
                    .unwrap();
                assert_eq!((why.points, why.periods.len()), (points, 4), "{store} {member}: {why:?}");
                assert_eq!(why.periods.iter().map(|p| p.gave).sum::<i64>(), points, "{store} {member}");
            }
        }
        let best = e.reads().scope(&seasons[1].slug, None).await.unwrap();
        let why =
            e.seasons().member_season(Viewer::Public, &best, &MemberId::parse("u3").unwrap()).await.unwrap();
        let counted: Vec<bool> = why.periods.iter().map(|p| p.counted).collect();
        assert_eq!(
            (why.points, counted),
            (110, vec![false, true, false, true]),
            "{store}: best 2 of 30, 40, 10, 70"
        );
        let placement = e.reads().scope(&seasons[3].slug, None).await.unwrap();
        let why = e
            .seasons()
            .member_season(Viewer::Public, &placement, &MemberId::parse("u4").unwrap())
            .await
            .unwrap();
        let last = &why.periods[3];
        assert_eq!(
            (why.points, last.rank, last.gave, last.counted),
            (4, Some(3), 4, true),
            "{store}: u4, third on day 3"
        );
        assert!(!why.periods[0].counted && why.periods[0].points.is_none(), "{store}: no total on day 0");

        // A correction in a week is noted like a write and followed by the season loop.
        let scope = e.reads().scope(&src.slug, Some(&days(&src)[1].to_string())).await.unwrap();
        let correction = Correction {
            member: MemberId::parse("u5").unwrap(),
            delta: 35,
            correction_id: None,
            reason: "judge's recount".into(),
        };
        e.lifecycle().correct(&scope, &correction, "admin:ann").await.unwrap();
        *weeks.get_mut("u5").unwrap()[1].as_mut().unwrap() += 35;
        e.seasons().follow().await.unwrap();
        for s in &seasons {
            let rule = &s.season.as_ref().unwrap().rule;
            assert_eq!(read(e, s).await, model(rule, &weeks), "{store} {} after a correction", rule.kind());
        }

        // Another instance's write is noted there, not here: this instance's check finds the
        // season behind its weeks and recomputes it whole.
        let keys = p.projection.keys().clone();
        let other =
            Engine::from_parts(e.ledger().clone(), Projection::new(p.projection.target().clone(), keys));
        other.writes().record(&src, &[on_day(&src, 2, "z1", "u2", 25)]).await.unwrap();
        *weeks.get_mut("u2").unwrap()[2].as_mut().unwrap() += 25;
        let report = e.jobs().reconcile_once().await.unwrap();
        assert!(report.periods_checked >= seasons.len() as u64, "{store}: {report:?}");
        for s in &seasons {
            let rule = &s.season.as_ref().unwrap().rule;
            assert_eq!(
                read(e, s).await,
                model(rule, &weeks),
                "{store} {} after another's write",
                rule.kind()
            );
        }
        // Level: a second check writes nothing.
        let again = e.seasons().check().await.unwrap();
        assert_eq!(again.totals_written, 0, "{store}: {again:?}");
    })
    .await;
}

#[tokio::test]
async fn nothing_is_written_to_a_season() {
    each_store(async |store, e, _| {
        let src = source(e).await;
        let s = season(e, &src, SeasonRule::Sum {}).await;
        let refused = |r: Result<_, EngineError>| match r {
            Err(EngineError::Refused { code, .. }) => code.as_str(),
            other => panic!("{store}: expected a refusal, got {other:?}"),
        };
        let write = point("x1", "u1", 5);
        let batch = engine::writes::check_batch(&s, s.operator, 1).map(|_| ());
        assert_eq!(refused(batch), "season_board");
        assert_eq!(refused(e.writes().record(&s, &[write]).await.map(|_| ())), "season_board");
        let scope = e.reads().scope(&s.slug, None).await.unwrap();
        let correction = Correction {
            member: MemberId::parse("u1").unwrap(),
            delta: 5,
            correction_id: None,
            reason: "x".into(),
        };
        assert_eq!(
            refused(e.lifecycle().correct(&scope, &correction, "admin:ann").await.map(|_| ())),
            "season_board"
        );
        let hide =
            e.lifecycle().hide_member(&scope, &MemberId::parse("u1").unwrap(), "admin:ann", "spam").await;
        assert_eq!(refused(hide.map(|_| ())), "season_board");
        assert!(read(e, &s).await.is_empty(), "{store}");
    })
    .await;
}

#[tokio::test]
async fn a_season_settles_after_its_weeks_from_their_final_totals() {
    each_store(async |store, e, _| {
        let src = source(e).await;
        let s = season(e, &src, SeasonRule::Best { k: 2 }).await;
        let mut weeks = Weeks::new();
        for (day, id, member, delta) in
            [(0, "a", "u1", 9), (2, "b", "u1", 4), (3, "c", "u2", 12), (1, "d", "u3", 3)]
        {
            e.writes().record(&src, &[on_day(&src, day, id, member, delta)]).await.unwrap();
            weeks.entry(member).or_default()[day] = Some(delta);
        }
        let season_scope = e.reads().scope(&s.slug, None).await.unwrap();
        e.lifecycle().transition(&season_scope, Transition::Freeze, "admin:ann", None).await.unwrap();
        let early = e.lifecycle().transition(&season_scope, Transition::Settle, "admin:ann", None).await;
        match early {
            Err(EngineError::Refused { code, detail }) => {
                assert_eq!(code.as_str(), "invalid_transition", "{store}");
                assert!(detail.contains("settled after its weeks"), "{store}: {detail}");
            }
            other => panic!("{store}: expected a refusal, got {other:?}"),
        }
        settle_days(e, &src).await;
        e.lifecycle().transition(&season_scope, Transition::Settle, "admin:ann", None).await.unwrap();
        let settlement = e.lifecycle().settlement(&season_scope).await.unwrap();
        let settled: BTreeMap<String, i64> =
            settlement.standings.iter().map(|st| (st.member.to_string(), st.points)).collect();
        assert_eq!(settled, model(&SeasonRule::Best { k: 2 }, &weeks), "{store}");
        // Its digest names each week's settlement: checked from the weeks' published digests.
        let mut named = Vec::new();
        for day in days(&src) {
            let scope = e.reads().scope(&src.slug, Some(&day.to_string())).await.unwrap();
            let week = e.lifecycle().settlement(&scope).await.unwrap();
            named.push(domain::settlement::SeasonWeek {
                period: day.to_string(),
                revision: 1,
                digest: week.digest,
            });
        }
        let key = season_scope.period().to_string();
        let own = domain::receipt::digest(s.slug.as_str(), &key, &settlement.standings);
        let expected = domain::receipt::season_digest(s.slug.as_str(), &key, &own, src.slug.as_str(), &named);
        assert_eq!(settlement.digest, expected, "{store}");
    })
    .await;
}

#[tokio::test]
async fn a_draft_that_cannot_be_a_season_changes_nothing() {
    each_store(async |store, e, _| {
        let src = source(e).await;
        let draft = |source: &str, periods: Vec<String>| SeasonDraft {
            slug: "never-made".into(),
            title: "never".into(),
            source: source.into(),
            periods: Some(periods),
            from: None,
            to: None,
            rule: SeasonRule::Sum {},
            tie_policy: TiePolicy::Shared.as_str().into(),
            prizes: vec![],
            carry_over: None,
        };
        let days: Vec<String> = days(&src).iter().map(ToString::to_string).collect();
        for (bad, why) in [
            (draft("no-such-board", days.clone()), "no periodic board"),
            (draft(src.slug.as_str(), vec!["2026-W01".into()]), "not a daily period"),
        ] {
            match e.boards().create_season(bad, "admin:ann").await {
                Err(EngineError::Invalid(detail)) => assert!(detail.contains(why), "{store}: {detail}"),
                other => panic!("{store}: expected invalid, got {other:?}"),
            }
        }
        let missing = e.reads().board(&BoardSlug::parse("never-made").unwrap()).await;
        assert!(matches!(missing, Err(EngineError::NotFound { .. })), "{store}: {missing:?}");
    })
    .await;
}

#[tokio::test]
async fn a_public_freeze_of_a_week_hides_its_changes_in_the_season_until_the_reveal() {
    each_store(async |store, e, _| {
        let src = source(e).await;
        let s = season(e, &src, SeasonRule::Sum {}).await;
        e.writes()
            .record(&src, &[on_day(&src, 3, "a", "u1", 10), on_day(&src, 2, "b", "u2", 20)])
            .await
            .unwrap();
        e.seasons().follow().await.unwrap();
        let before: BTreeMap<String, i64> = [("u1".to_string(), 10), ("u2".to_string(), 20)].into();
        assert_eq!(read(e, &s).await, before, "{store}");

        let week = e.reads().scope(&src.slug, Some(&days(&src)[3].to_string())).await.unwrap();
        e.lifecycle().public_freeze(&week, "admin:ann", Some("last hour")).await.unwrap();
        e.writes().record(&src, &[on_day(&src, 3, "c", "u1", 15)]).await.unwrap();
        e.seasons().follow().await.unwrap();
        e.jobs().reconcile_once().await.unwrap();
        assert_eq!(read(e, &s).await, before, "{store}: the week's freeze leaked through the season");
        let live: BTreeMap<String, i64> = [("u1".to_string(), 25), ("u2".to_string(), 20)].into();
        assert_eq!(read_as(e, Viewer::Admin, &s).await, live, "{store}: admins read the season live");

        e.lifecycle().reveal(&week, RevealMode::All, "admin:ann", None).await.unwrap();
        assert_eq!(read(e, &s).await, live, "{store}: revealed with its week");
    })
    .await;
}

#[tokio::test]
async fn a_whole_season_is_read_a_page_of_members_at_a_time() {
    each_store(async |store, e, _| {
        let src = source(e).await;
        // u1..u7 over the four days, some on one day only, so the days' pages end apart.
        let mut expected = Vec::new();
        for (i, member) in ["u1", "u2", "u3", "u4", "u5", "u6", "u7"].iter().enumerate() {
            for day in 0..4 {
                if (i + day) % 3 != 0 {
                    let id = format!("p{i}-{day}");
                    e.writes().record(&src, &[on_day(&src, day, &id, member, 1 + day as i64)]).await.unwrap();
                    expected.push((member.to_string(), days(&src)[day]));
                }
            }
        }
        let (mut read, mut after) = (Vec::new(), None::<MemberId>);
        loop {
            let (rows, next) =
                e.ledger().source_totals_page(&src.slug, &days(&src), after.as_ref(), 2).await.unwrap();
            let members: std::collections::BTreeSet<_> = rows.iter().map(|r| r.member.clone()).collect();
            assert!(
                read.iter().all(|(m, _): &(String, PeriodKey)| !members.iter().any(|x| x.as_str() == m)),
                "{store}: a member in two pages"
            );
            read.extend(rows.into_iter().map(|r| (r.member.to_string(), r.period)));
            match next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        read.sort();
        expected.sort();
        assert_eq!(read, expected, "{store}");
    })
    .await;
}

#[tokio::test]
async fn random_writes_rank_as_the_model_says_under_every_rule() {
    each_store(async |store, e, _| {
        for seed in [7u64, 1234, 99_991] {
            let src = source(e).await;
            let mut seasons = Vec::new();
            for rule in rules() {
                seasons.push(season(e, &src, rule).await);
            }
            let mut weeks = Weeks::new();
            let mut state = seed;
            let mut next = |n: u64| {
                // A small LCG: the same writes for a seed on every run.
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (state >> 33) % n
            };
            const MEMBERS: [&str; 8] = ["u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8"];
            for i in 0..40 {
                let (member, day, delta) = (MEMBERS[next(8) as usize], next(4) as usize, 1 + next(30) as i64);
                e.writes()
                    .record(&src, &[on_day(&src, day, &format!("r{seed}-{i}"), member, delta)])
                    .await
                    .unwrap();
                *weeks.entry(member).or_default()[day].get_or_insert(0) += delta;
                if i % 13 == 0 {
                    e.seasons().follow().await.unwrap();
                }
            }
            e.seasons().follow().await.unwrap();
            for s in &seasons {
                let rule = &s.season.as_ref().unwrap().rule;
                assert_eq!(read(e, s).await, model(rule, &weeks), "{store} seed {seed} {}", rule.kind());
            }
        }
    })
    .await;
}

fn prize(from_rank: u64, to_rank: u64, prize: &str) -> Prize {
    Prize { from_rank, to_rank, prize: prize.into() }
}

/// Two settled seasons of four settled days, with prizes: `sum` (gold for the first) and
/// `placement` 10/6/4 (a cup for the first, a plate for the second).
///
/// | day | 0 | 1 | 2 | 3 | sum | placement |
/// |---|---|---|---|---|---|---|
/// | u1 | 9 (1st) | | | | 9 | 10 |
/// | u2 | 8 (2nd) | 3 (1st) | | | 11 (gold) | 16 (cup) |
/// | u3 | | 2 (2nd) | | | 2 | 6 |
/// | u4 | | | 4 (1st) | 1 (1st) | 5 | 20 |
///
/// Placement: u4 20 (cup), u2 16 (plate), u1 10, u3 6.
async fn settled_seasons(e: &Engine) -> (Board, Board, Board) {
    let src = source(e).await;
    let sum = season_with(e, &src, SeasonRule::Sum {}, vec![prize(1, 1, "gold")]).await;
    let placed = season_with(
        e,
        &src,
        SeasonRule::Placement { points: vec![10, 6, 4] },
        vec![prize(1, 1, "cup"), prize(2, 2, "plate")],
    )
    .await;
    for (day, id, member, delta) in [
        (0, "a", "u1", 9),
        (0, "b", "u2", 8),
        (1, "c", "u2", 3),
        (1, "d", "u3", 2),
        (2, "f", "u4", 4),
        (3, "g", "u4", 1),
    ] {
        e.writes().record(&src, &[on_day(&src, day, id, member, delta)]).await.unwrap();
    }
    settle_days(e, &src).await;
    for s in [&sum, &placed] {
        settle(e, &e.reads().scope(&s.slug, None).await.unwrap()).await;
    }
    (src, sum, placed)
}

/// A season's latest standings as member → (points, rank, prize).
async fn standings(e: &Engine, season: &Board) -> BTreeMap<String, (i64, u64, Option<String>)> {
    let scope = e.reads().scope(&season.slug, None).await.unwrap();
    let settlement = e.lifecycle().settlement(&scope).await.unwrap();
    settlement.standings.iter().map(|s| (s.member.to_string(), (s.points, s.rank, s.prize.clone()))).collect()
}

/// A season's reward rows as (revision, kind, member, prize).
async fn rewards(e: &Engine, season: &Board) -> Vec<(i64, String, String, String)> {
    let scope = e.reads().scope(&season.slug, None).await.unwrap();
    let mut rows: Vec<_> = e
        .rewards()
        .of(&scope)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.revision, r.kind.as_str().to_owned(), r.member.to_string(), r.prize))
        .collect();
    rows.sort();
    rows
}

fn row(revision: i64, kind: &str, member: &str, prize: &str) -> (i64, String, String, String) {
    (revision, kind.into(), member.into(), prize.into())
}

/// The digest a season's latest settlement must have: its standings' own, folded with each day's
/// latest settlement (as published on the days' settlements).
async fn expected_season_digest(e: &Engine, src: &Board, season: &Board) -> String {
    let scope = e.reads().scope(&season.slug, None).await.unwrap();
    let settlement = e.lifecycle().settlement(&scope).await.unwrap();
    let mut named = Vec::new();
    for day in days(src) {
        let scope = e.reads().scope(&src.slug, Some(&day.to_string())).await.unwrap();
        let week = e.lifecycle().settlement(&scope).await.unwrap();
        let revision = e.lifecycle().settlements(&scope).await.unwrap().len() as i64;
        named.push(domain::settlement::SeasonWeek { period: day.to_string(), revision, digest: week.digest });
    }
    let key = scope.period().to_string();
    let own = domain::receipt::digest(season.slug.as_str(), &key, &settlement.standings);
    domain::receipt::season_digest(season.slug.as_str(), &key, &own, src.slug.as_str(), &named)
}

/// Day 1's correction: u2's 3 points there were counted twice (−3 leaves u2 0 points, behind u3).
fn correction() -> Vec<PreviewChange> {
    vec![PreviewChange::Correct { member: MemberId::parse("u2").unwrap(), delta: -3 }]
}

#[tokio::test]
async fn a_correction_of_a_settled_week_previews_and_resettles_its_seasons_with_reward_deltas_only() {
    each_store(async |store, e, _| {
        let (src, sum, placed) = settled_seasons(e).await;
        let day1 = e.reads().scope(&src.slug, Some(&days(&src)[1].to_string())).await.unwrap();
        assert_eq!(rewards(e, &sum).await, [row(1, "grant", "u2", "gold")], "{store}");
        let preview =
            e.lifecycle().preview(&day1, "double counted", correction(), "admin:ann").await.unwrap();

        // The preview lists both seasons, sorted as the seasons are: what each would become.
        let by_board: BTreeMap<&str, &SeasonChange> =
            preview.seasons.iter().map(|c| (c.board.as_str(), c)).collect();
        assert_eq!(by_board.len(), 2, "{store}: {:?}", preview.seasons);
        let s = by_board[sum.slug.as_str()];
        assert!(s.resettles, "{store}");
        let u2 = s.moves.iter().find(|m| m.member.as_str() == "u2").expect("u2 moves in the sum season");
        assert_eq!(
            (u2.points_before, u2.points_after, u2.rank_before, u2.rank_after),
            (Some(11), Some(8), Some(1), Some(2)),
            "{store}"
        );
        let prizes: Vec<_> =
            s.prizes.iter().map(|p| (p.member.as_str(), p.before.as_deref(), p.after.as_deref())).collect();
        assert_eq!(prizes, [("u1", None, Some("gold")), ("u2", Some("gold"), None)], "{store}");
        // Day 1 after: u3 first (10 points in the placement season), u2 second (6).
        let p = by_board[placed.slug.as_str()];
        let moved: BTreeMap<&str, (Option<i64>, Option<i64>)> =
            p.moves.iter().map(|m| (m.member.as_str(), (m.points_before, m.points_after))).collect();
        assert_eq!(
            moved,
            BTreeMap::from([("u2", (Some(16), Some(12))), ("u3", (Some(6), Some(10)))]),
            "{store}"
        );
        assert!(p.prizes.is_empty(), "{store}: nobody's prize changes: {:?}", p.prizes);

        let applied = e.lifecycle().apply_preview(&day1, &preview.preview_id, "admin:ann").await.unwrap();
        assert_eq!(applied.revision.as_ref().map(|r| r.revision), Some(2), "{store}");
        let revisions: BTreeMap<&str, i64> =
            applied.seasons.iter().map(|s| (s.board.as_str(), s.revision.revision)).collect();
        assert_eq!(revisions, BTreeMap::from([(sum.slug.as_str(), 2), (placed.slug.as_str(), 2)]), "{store}");

        // Standings as the rule makes them from the corrected days; rewards moved by deltas only.
        let expect =
            |rows: &[(&str, i64, u64, Option<&str>)]| -> BTreeMap<String, (i64, u64, Option<String>)> {
                rows.iter().map(|(m, p, r, z)| (m.to_string(), (*p, *r, z.map(str::to_owned)))).collect()
            };
        let sum_after =
            expect(&[("u1", 9, 1, Some("gold")), ("u2", 8, 2, None), ("u4", 5, 3, None), ("u3", 2, 4, None)]);
        assert_eq!(standings(e, &sum).await, sum_after, "{store}");
        let placed_after = expect(&[
            ("u4", 20, 1, Some("cup")),
            ("u2", 12, 2, Some("plate")),
            ("u1", 10, 3, None),
            ("u3", 10, 3, None),
        ]);
        assert_eq!(standings(e, &placed).await, placed_after, "{store}");
        let sum_rewards =
            [row(1, "grant", "u2", "gold"), row(2, "grant", "u1", "gold"), row(2, "revoke", "u2", "gold")];
        assert_eq!(rewards(e, &sum).await, sum_rewards, "{store}");
        let placed_rewards = [row(1, "grant", "u2", "plate"), row(1, "grant", "u4", "cup")];
        assert_eq!(rewards(e, &placed).await, placed_rewards, "{store}: an unchanged prize writes nothing");
        // Each season's digest names day 1's new revision.
        for season in [&sum, &placed] {
            let scope = e.reads().scope(&season.slug, None).await.unwrap();
            let digest = e.lifecycle().settlement(&scope).await.unwrap().digest;
            assert_eq!(digest, expected_season_digest(e, &src, season).await, "{store}");
            let published = applied.seasons.iter().find(|s| s.board == season.slug).unwrap();
            assert_eq!(published.revision.digest, digest, "{store}");
        }
        // The live rankings of the seasons follow too.
        assert_eq!(read_as(e, Viewer::Admin, &sum).await.get("u2"), Some(&8), "{store}");

        // A repeat answers the same and changes nothing.
        let again = e.lifecycle().apply_preview(&day1, &preview.preview_id, "admin:ann").await.unwrap();
        assert_eq!(again, applied, "{store}");
        assert_eq!(rewards(e, &sum).await, sum_rewards, "{store}");
        let sum_scope = e.reads().scope(&sum.slug, None).await.unwrap();
        assert_eq!(e.lifecycle().settlements(&sum_scope).await.unwrap().len(), 2, "{store}");
    })
    .await;
}

#[tokio::test]
async fn a_crash_while_a_season_is_resettled_leaves_nothing_and_reruns_to_the_same_revisions() {
    let steps = [
        "season.after_totals",
        "season.resettle.after_standings",
        "season.resettle.before_commit",
        "apply.before_commit",
    ];
    each_store(async |store, e, _| {
        // Without a crash first: the revisions every rerun must reach.
        let (src, sum, placed) = settled_seasons(e).await;
        let day1 = e.reads().scope(&src.slug, Some(&days(&src)[1].to_string())).await.unwrap();
        let preview = e.lifecycle().preview(&day1, "double counted", correction(), "admin:ann").await.unwrap();
        let clean = e.lifecycle().apply_preview(&day1, &preview.preview_id, "admin:ann").await.unwrap();
        let digests = |applied: &engine::ledger::Applied| -> Vec<(String, String)> {
            applied.seasons.iter().map(|s| (s.board.to_string(), s.revision.digest.clone())).collect()
        };
        let clean_standings = (standings(e, &sum).await, standings(e, &placed).await);
        for step in steps {
            let (src, sum, placed) = settled_seasons(e).await;
            let day1 = e.reads().scope(&src.slug, Some(&days(&src)[1].to_string())).await.unwrap();
            let preview = e.lifecycle().preview(&day1, "double counted", correction(), "admin:ann").await.unwrap();
            e.failpoints().arm(step);
            let crashed = e.lifecycle().apply_preview(&day1, &preview.preview_id, "admin:ann").await;
            assert!(
                matches!(&crashed, Err(EngineError::Ledger(engine::ledger::LedgerError::Failpoint(n))) if *n == step),
                "{store} {step}: {crashed:?}"
            );
            // Nothing of the apply is left: the day and both seasons still have one revision.
            for scope in [day1.clone(), e.reads().scope(&sum.slug, None).await.unwrap(), e.reads().scope(&placed.slug, None).await.unwrap()] {
                assert_eq!(e.lifecycle().settlements(&scope).await.unwrap().len(), 1, "{store} {step}");
            }
            assert_eq!(rewards(e, &sum).await, [row(1, "grant", "u2", "gold")], "{store} {step}");
            let rerun = e.lifecycle().apply_preview(&day1, &preview.preview_id, "admin:ann").await.unwrap();
            // The same standings and reward deltas as without the crash (the slugs differ, so the
            // digests are compared by shape: one per season, each the expected one).
            assert_eq!((standings(e, &sum).await, standings(e, &placed).await), clean_standings, "{store} {step}");
            assert_eq!(rerun.seasons.len(), digests(&clean).len(), "{store} {step}");
            for season in [&sum, &placed] {
                let published = rerun.seasons.iter().find(|s| s.board == season.slug).unwrap();
                assert_eq!(published.revision.revision, 2, "{store} {step}");
                assert_eq!(published.revision.digest, expected_season_digest(e, &src, season).await, "{store} {step}");
            }
            let sum_rewards = [row(1, "grant", "u2", "gold"), row(2, "grant", "u1", "gold"), row(2, "revoke", "u2", "gold")];
            assert_eq!(rewards(e, &sum).await, sum_rewards, "{store} {step}");
        }
    })
    .await;
}

/// A season of a fresh source carrying 50 % of what the last season's members had above 4.
fn carried_draft(source: &Board, from: &Board) -> SeasonDraft {
    SeasonDraft {
        slug: unique("next").replace('_', "-").to_lowercase(),
        title: "next season".into(),
        source: source.slug.to_string(),
        periods: Some(days(source).iter().map(ToString::to_string).collect()),
        from: None,
        to: None,
        rule: SeasonRule::Best { k: 2 },
        tie_policy: "shared".into(),
        prizes: vec![prize(1, 1, "gold")],
        carry_over: Some(CarryOverDraft { from: from.slug.to_string(), share_percent: 50, floor: 4 }),
    }
}

#[tokio::test]
async fn a_season_carries_over_a_share_of_the_last_ones_standings_as_audited_openings() {
    each_store(async |store, e, _| {
        // The last season, settled: u2 11, u1 9, u4 5, u3 2 (`settled_seasons`).
        let (_, last, _) = settled_seasons(e).await;
        let src = source(e).await;
        let next = create(e, carried_draft(&src, &last)).await;
        let carry = next.season.as_ref().and_then(|s| s.carry_over.clone()).expect("carries over");
        assert_eq!((carry.revision, carry.members), (1, 2), "{store}");
        // Above 4, halved and rounded down: u2 (11 − 4) / 2 = 3, u1 (9 − 4) / 2 = 2, u4 0 (none).
        assert_eq!(read(e, &next).await, BTreeMap::from([("u2".into(), 3), ("u1".into(), 2)]), "{store}");
        let filter = AuditFilter {
            action: Some("season_opened".into()),
            board: Some(next.slug.to_string()),
            ..Default::default()
        };
        let opened = e.lifecycle().audit(&filter, None, 10).await.unwrap();
        assert_eq!(opened.len(), 1, "{store}");
        let after = opened[0].after.clone().unwrap();
        assert_eq!(
            (after["from"].as_str(), after["members"].as_i64(), after["share_percent"].as_i64()),
            (Some(last.slug.as_str()), Some(2), Some(50)),
            "{store}"
        );

        // The rule's points come on top, through the season loop and the reconciler alike.
        for (day, id, member, delta) in [(0, "n1", "u1", 5), (1, "n2", "u1", 1), (2, "n3", "u5", 4)] {
            e.writes().record(&src, &[on_day(&src, day, id, member, delta)]).await.unwrap();
        }
        e.seasons().follow().await.unwrap();
        let expected = BTreeMap::from([("u1".into(), 8), ("u2".into(), 3), ("u5".into(), 4)]);
        assert_eq!(read(e, &next).await, expected, "{store}");
        assert_eq!(
            e.seasons().check().await.unwrap().totals_written,
            0,
            "{store}: the openings' versions are counted"
        );
        let scope = e.reads().scope(&next.slug, None).await.unwrap();
        let why =
            e.seasons().member_season(Viewer::Admin, &scope, &MemberId::parse("u1").unwrap()).await.unwrap();
        assert_eq!((why.points, why.carried), (8, Some(2)), "{store}");

        // Settled like any season, the openings included.
        settle_days(e, &src).await;
        settle(e, &scope).await;
        let settled: BTreeMap<String, (i64, u64, Option<String>)> = standings(e, &next).await;
        assert_eq!(settled.get("u1"), Some(&(8, 1, Some("gold".to_owned()))), "{store}");
        assert_eq!(settled.get("u2"), Some(&(3, 3, None)), "{store}");
    })
    .await;
}

#[tokio::test]
async fn a_carry_over_from_an_unsettled_season_or_a_plain_board_creates_nothing() {
    each_store(async |store, e, _| {
        let src = source(e).await;
        let open = season(e, &src, SeasonRule::Sum {}).await;
        let unsettled = carried_draft(&src, &open);
        let slug = BoardSlug::parse(unsettled.slug.clone()).unwrap();
        match e.boards().create_season(unsettled, "admin:ann").await {
            Err(EngineError::Refused { code, detail }) => {
                assert_eq!(code.as_str(), "invalid_transition", "{store}");
                assert!(detail.contains("settle"), "{store}: {detail}");
            }
            other => panic!("{store}: expected a refusal, got {other:?}"),
        }
        assert!(e.reads().board(&slug).await.is_err(), "{store}: nothing was created");
        let plain = carried_draft(&src, &src);
        let share = SeasonDraft {
            carry_over: Some(CarryOverDraft { from: open.slug.to_string(), share_percent: 0, floor: 0 }),
            ..carried_draft(&src, &open)
        };
        for (bad, why) in [(plain, "is not a season"), (share, "share_percent")] {
            match e.boards().create_season(bad, "admin:ann").await {
                Err(EngineError::Invalid(detail)) => assert!(detail.contains(why), "{store}: {detail}"),
                other => panic!("{store}: expected invalid, got {other:?}"),
            }
        }
    })
    .await;
}
