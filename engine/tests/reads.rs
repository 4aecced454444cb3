//! Reading rankings on real Redis (standalone and Cluster): cursor pages never skip or repeat,
//! snapshots stay put while live pages drift, around-me is atomic, ranks follow the tie policy.
//!
//! Cursor paging is a property test on real Redis: random boards with many equal scores, members
//! added while paging, nothing skipped or repeated. Around-me's ranks hold under concurrent
//! writes; "why this score" pages on both ledgers. Profiles' display names and avatars join the
//! entries, and a replaced profile's show in the next read.

mod common;

use common::{TestLedger, TestProjection, each_store, engine, redis_targets, unique};
use domain::write::{Change, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::Engine;
use engine::redis::ProjectedTotal;
use proptest::prelude::*;
use std::collections::HashSet;

fn board(policy: TiePolicy) -> Board {
    Board {
        slug: BoardSlug::parse(unique("r").replace('_', "-").to_lowercase()).unwrap(),
        title: "reads".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(policy, 0, 1_000_000, if policy == TiePolicy::Shared { 1 } else { 1000 })
            .unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: vec![],
        unit: domain::Unit::Points,
    }
}

/// Records `delta` points for `member` through the ledger (snapshots are made from the ledger).
async fn record(e: &Engine, b: &Board, event: &str, member: &str, delta: i64) {
    let change = Change::Point { event_id: EventId::parse(event).unwrap(), delta };
    let write = Write {
        member: MemberId::parse(member).unwrap(),
        change,
        occurred_at: jiff::Timestamp::now(),
        metadata: None,
        segments: Default::default(),
    };
    e.writes().record(b, &[write]).await.unwrap();
}

/// Puts `member` at `points` straight into the projection (reads do not care how it got there).
async fn put(e: &Engine, b: &Board, member: &str, points: i64, version: i64) {
    let period = b.period_at(jiff::Timestamp::now());
    let score = b.codec.encode(points, 0).unwrap();
    let total = ProjectedTotal { member: MemberId::parse(member).unwrap(), version, score, hidden: false };
    e.projection().project(&b.slug, &period, &total).await.unwrap();
}

async fn each_redis(test: impl AsyncFn(&str, &Engine)) {
    for (name, target) in redis_targets() {
        let t = TestLedger::sqlite().await;
        let p = TestProjection::new(target);
        let e = engine(&t, &p).await;
        test(name, &e).await;
        p.cleanup().await;
        t.drop_db().await;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn cursor_paging_never_skips_or_repeats(
        scores in prop::collection::vec(0i64..4, 1..50),
        added in prop::collection::vec(0i64..4, 0..10),
        limit in 1u64..7,
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(each_redis(async |name, e| {
            let b = board(TiePolicy::Shared);
            e.boards().create_board(&b).await.unwrap();
            for (i, s) in scores.iter().enumerate() {
                put(e, &b, &format!("m{i:03}"), *s, 1).await;
            }
            let mut seen = Vec::new();
            let mut cursor: Option<String> = None;
            let mut pages = 0;
            loop {
                let found = e.reads().entries_after(&e.reads().scope(&b.slug, None).await.unwrap(), cursor.as_deref(), limit).await.unwrap();
                let (page, next) = (found.page, found.next_cursor);
                seen.extend(page.entries.iter().map(|en| (en.member.to_string(), en.points)));
                // Members join while we page; some sort before the cursor, some after.
                if let Some(s) = added.get(pages) {
                    put(e, &b, &format!("new{pages:02}"), *s, 1).await;
                }
                pages += 1;
                match next {
                    Some(n) => cursor = Some(n),
                    None => break,
                }
            }
            let members: Vec<&String> = seen.iter().map(|(m, _)| m).collect();
            let unique: HashSet<&String> = members.iter().copied().collect();
            assert_eq!(unique.len(), members.len(), "{name}: a member was repeated: {members:?}");
            for i in 0..scores.len() {
                assert!(unique.contains(&format!("m{i:03}")), "{name}: m{i:03} was skipped");
            }
            // Order: points never rise down the pages.
            assert!(seen.windows(2).all(|w| w[0].1 >= w[1].1), "{name}: out of order {seen:?}");
        }));
    }
}

#[tokio::test]
async fn snapshot_pages_stay_put_while_live_pages_drift() {
    each_redis(async |name, e| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        for i in 0..30 {
            record(e, &b, &format!("e{i}"), &format!("m{i:02}"), 100 + i).await;
        }
        let snap = e.reads().create_snapshot(&e.reads().scope(&b.slug, None).await.unwrap()).await.unwrap();
        assert_eq!(snap.total, 30);
        let pinned_first = e
            .reads()
            .snapshot_page(&e.reads().scope(&b.slug, None).await.unwrap(), &snap.snapshot_id, 0, 10)
            .await
            .unwrap();
        let live_first =
            e.reads().ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), 0, 10).await.unwrap();
        // A newcomer takes the lead between page 1 and page 2.
        record(e, &b, "e-new", "newcomer", 10_000).await;
        let pinned_second = e
            .reads()
            .snapshot_page(&e.reads().scope(&b.slug, None).await.unwrap(), &snap.snapshot_id, 10, 10)
            .await
            .unwrap();
        let live_second =
            e.reads().ranking_page(&e.reads().scope(&b.slug, None).await.unwrap(), 10, 10).await.unwrap();
        // Pinned: pages 1 and 2 are disjoint and ranks continue 11, 12, …
        let first: HashSet<_> = pinned_first.entries.iter().map(|en| en.member.clone()).collect();
        assert!(pinned_second.entries.iter().all(|en| !first.contains(&en.member)), "{name}");
        assert_eq!(pinned_second.entries[0].rank, 11, "{name}");
        assert_eq!(pinned_second.total, 30, "{name}");
        assert_eq!(
            e.reads()
                .snapshot_page(&e.reads().scope(&b.slug, None).await.unwrap(), &snap.snapshot_id, 0, 10)
                .await
                .unwrap()
                .entries,
            pinned_first.entries
        );
        // Live: the tenth member of page 1 shows again at the top of page 2 (documented drift).
        assert_eq!(live_second.entries[0].member, live_first.entries[9].member, "{name}");
        assert_eq!(live_second.total, 31, "{name}");
        // Unknown or malformed snapshot ids answer Gone.
        for id in ["00ff00ff00ff00ff00ff00ff", "not-hex", ""] {
            let err = e
                .reads()
                .snapshot_page(&e.reads().scope(&b.slug, None).await.unwrap(), id, 0, 10)
                .await
                .unwrap_err();
            assert!(matches!(err, engine::EngineError::Gone(_)), "{name}: {err}");
        }
    })
    .await;
}

#[tokio::test]
async fn around_me_starts_at_rank_one_for_the_leader_and_refuses_absent_members() {
    each_redis(async |name, e| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        for (m, p) in [("a", 100), ("b", 90), ("c", 90), ("d", 80), ("e", 70)] {
            put(e, &b, m, p, 1).await;
        }
        let leader = e
            .reads()
            .around(&e.reads().scope(&b.slug, None).await.unwrap(), &MemberId::parse("a").unwrap(), 2)
            .await
            .unwrap();
        let ranks: Vec<u64> = leader.entries.iter().map(|en| en.rank).collect();
        assert_eq!(ranks, vec![1, 2, 2], "{name}");
        let mid = e
            .reads()
            .around(&e.reads().scope(&b.slug, None).await.unwrap(), &MemberId::parse("d").unwrap(), 1)
            .await
            .unwrap();
        let got: Vec<(String, u64)> = mid.entries.iter().map(|en| (en.member.to_string(), en.rank)).collect();
        // Equal points sort by member id, descending (Redis order): a, c, b, d, e.
        assert_eq!(got, vec![("b".into(), 2), ("d".into(), 4), ("e".into(), 5)], "{name}");
        let err = e
            .reads()
            .around(&e.reads().scope(&b.slug, None).await.unwrap(), &MemberId::parse("nobody").unwrap(), 2)
            .await
            .unwrap_err();
        assert!(matches!(err, engine::EngineError::NotFound { .. }), "{name}");
        let me = e
            .reads()
            .member_rank(&e.reads().scope(&b.slug, None).await.unwrap(), &MemberId::parse("c").unwrap())
            .await
            .unwrap();
        assert_eq!((me.rank, me.points, me.tied), (2, 90, true), "{name}");
        // Social view and thresholds.
        let members: Vec<MemberId> =
            ["e", "b", "zz", "a"].iter().map(|m| MemberId::parse(*m).unwrap()).collect();
        let ranks: Vec<(String, u64)> = e
            .reads()
            .ranks_of(&e.reads().scope(&b.slug, None).await.unwrap(), &members)
            .await
            .unwrap()
            .value
            .into_iter()
            .map(|en| (en.member.to_string(), en.rank))
            .collect();
        assert_eq!(ranks, vec![("a".into(), 1), ("b".into(), 2), ("e".into(), 5)], "{name}");
        assert_eq!(
            e.reads().count_at_least(&e.reads().scope(&b.slug, None).await.unwrap(), 90).await.unwrap().value,
            3,
            "{name}"
        );
        assert_eq!(
            e.reads()
                .count_at_least(&e.reads().scope(&b.slug, None).await.unwrap(), 101)
                .await
                .unwrap()
                .value,
            0,
            "{name}"
        );
    })
    .await;
}

#[tokio::test]
async fn under_first_reached_equal_points_are_never_tied() {
    each_redis(async |name, e| {
        let b = board(TiePolicy::FirstReached);
        e.boards().create_board(&b).await.unwrap();
        // a reaches 90 first, then b; c trails.
        for (event, member, delta) in [("e1", "a", 90), ("e2", "b", 90), ("e3", "c", 10)] {
            record(e, &b, event, member, delta).await;
        }
        let scope = e.reads().scope(&b.slug, None).await.unwrap();
        for (member, rank) in [("a", 1), ("b", 2)] {
            let me = e.reads().member_rank(&scope, &MemberId::parse(member).unwrap()).await.unwrap();
            assert_eq!((me.rank, me.points, me.tied), (rank, 90, false), "{name}: {member}");
            let page = e.reads().around(&scope, &MemberId::parse(member).unwrap(), 0).await.unwrap();
            assert_eq!(page.entries.len(), 1, "{name}: {member}");
            assert!(!page.entries[0].tied, "{name}: {member} alone on its page is not tied");
        }
        let top = e.reads().ranking_page(&scope, 1, 2).await.unwrap();
        let got: Vec<(u64, bool)> = top.entries.iter().map(|en| (en.rank, en.tied)).collect();
        assert_eq!(
            got,
            vec![(2, false), (3, false)],
            "{name}: a page that starts at the second of two equal totals"
        );
    })
    .await;
}

#[tokio::test]
async fn around_me_is_consistent_while_writes_continue() {
    each_redis(async |name, e| {
        let b = board(TiePolicy::FirstReached);
        e.boards().create_board(&b).await.unwrap();
        for i in 0..40 {
            put(e, &b, &format!("m{i:02}"), i * 3, 1).await;
        }
        let writer = {
            let (e, b) = (e.clone(), b.clone());
            tokio::spawn(async move {
                for v in 2..200 {
                    put(&e, &b, &format!("m{:02}", v % 40), (v * 7) % 150, v).await;
                }
            })
        };
        let me = MemberId::parse("m20").unwrap();
        for _ in 0..100 {
            let page =
                e.reads().around(&e.reads().scope(&b.slug, None).await.unwrap(), &me, 3).await.unwrap();
            // One atomic read: ranks are consecutive, points never rise, and the member is there.
            let ranks: Vec<u64> = page.entries.iter().map(|en| en.rank).collect();
            assert!(ranks.windows(2).all(|w| w[1] == w[0] + 1), "{name}: {ranks:?}");
            assert!(page.entries.windows(2).all(|w| w[0].points >= w[1].points), "{name}");
            assert!(page.entries.iter().any(|en| en.member == me), "{name}");
            assert_eq!(ranks[0], page.offset + 1, "{name}");
        }
        writer.await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn why_this_score_lists_the_members_entries_newest_first() {
    for t in TestLedger::both().await {
        let (_, target) = redis_targets().remove(0);
        let p = TestProjection::new(target);
        let e = engine(&t, &p).await;
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let writes: Vec<Write> = (0..5)
            .map(|i| Write {
                member: MemberId::parse("u1").unwrap(),
                change: Change::Point { event_id: EventId::parse(format!("e{i}")).unwrap(), delta: i + 1 },
                occurred_at: jiff::Timestamp::now(),
                metadata: Some(format!(r#"{{"task":{i}}}"#)),
                segments: Default::default(),
            })
            .collect();
        e.writes().record(&b, &writes).await.unwrap();
        let u1 = MemberId::parse("u1").unwrap();
        let first = e
            .reads()
            .member_entries(&e.reads().scope(&b.slug, None).await.unwrap(), &u1, None, 3)
            .await
            .unwrap();
        let ids: Vec<_> = first.iter().map(|en| en.external_id.clone().unwrap()).collect();
        assert_eq!(ids, vec!["e4", "e3", "e2"], "{}", t.name);
        assert_eq!(first[0].delta, Some(5));
        assert_eq!(first[0].metadata, Some(serde_json::json!({"task": 4})));
        let rest = e
            .reads()
            .member_entries(&e.reads().scope(&b.slug, None).await.unwrap(), &u1, Some(first[2].id), 3)
            .await
            .unwrap();
        let ids: Vec<_> = rest.iter().map(|en| en.external_id.clone().unwrap()).collect();
        assert_eq!(ids, vec!["e1", "e0"], "{}", t.name);
        p.cleanup().await;
        t.drop_db().await;
    }
}

fn names_of(page: &domain::view::RankingPage) -> Vec<(String, Option<String>)> {
    page.entries.iter().map(|en| (en.member.to_string(), en.display_name.clone())).collect()
}

#[tokio::test]
async fn a_profile_written_through_the_engine_shows_at_once_in_around_me() {
    for (name, target) in redis_targets() {
        let t = TestLedger::sqlite().await;
        let p = TestProjection::new(target);
        let e = engine(&t, &p).await;
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        for (m, points) in [("a", 100), ("b", 90), ("c", 80)] {
            put(&e, &b, m, points, 1).await;
        }
        let (a, bee) = (MemberId::parse("a").unwrap(), MemberId::parse("b").unwrap());
        let none = |m: &str| (m.to_owned(), None);
        // The first read remembers that nobody has a profile.
        let page = e.reads().around(&e.reads().scope(&b.slug, None).await.unwrap(), &bee, 1).await.unwrap();
        assert_eq!(names_of(&page), vec![none("a"), none("b"), none("c")], "{name}");
        // A new profile, then a renamed one: each shows in the very next read.
        let now = jiff::Timestamp::now();
        for display in ["Bea", "Beatrice"] {
            e.writes().put_profile(&bee, display, None, &Default::default(), now).await.unwrap();
            let page =
                e.reads().around(&e.reads().scope(&b.slug, None).await.unwrap(), &bee, 1).await.unwrap();
            let named = ("b".to_owned(), Some(display.to_owned()));
            assert_eq!(names_of(&page), vec![none("a"), named, none("c")], "{name}");
            assert_eq!(
                e.reads()
                    .member_rank(&e.reads().scope(&b.slug, None).await.unwrap(), &bee)
                    .await
                    .unwrap()
                    .display_name
                    .as_deref(),
                Some(display)
            );
            let listed = e
                .reads()
                .ranks_of(&e.reads().scope(&b.slug, None).await.unwrap(), std::slice::from_ref(&bee))
                .await
                .unwrap()
                .value;
            assert_eq!(listed[0].display_name.as_deref(), Some(display), "{name}");
        }
        // Another instance over the same ledger reads names it has not cached from the ledger,
        // and its own profile writes show in its own reads at once.
        let other = engine(&t, &p).await;
        other.writes().put_profile(&a, "Ann", None, &Default::default(), now).await.unwrap();
        let page =
            other.reads().around(&other.reads().scope(&b.slug, None).await.unwrap(), &bee, 1).await.unwrap();
        let want = vec![
            ("a".to_owned(), Some("Ann".to_owned())),
            ("b".to_owned(), Some("Beatrice".to_owned())),
            none("c"),
        ];
        assert_eq!(names_of(&page), want, "{name}");
        // The first engine's copy catches up with the other's write within the sync interval.
        tokio::time::sleep(engine::reads::names::NAME_SYNC_INTERVAL + std::time::Duration::from_millis(100))
            .await;
        let page = e.reads().around(&e.reads().scope(&b.slug, None).await.unwrap(), &bee, 1).await.unwrap();
        assert_eq!(names_of(&page), want, "{name}: a profile written elsewhere shows within the interval");
        p.cleanup().await;
        t.drop_db().await;
    }
}

fn avatars_of(entries: &[domain::view::Entry]) -> Vec<(String, Option<String>)> {
    entries.iter().map(|en| (en.member.to_string(), en.avatar_url.clone())).collect()
}

#[tokio::test]
async fn a_profile_s_avatar_shows_on_ranking_entries_until_a_profile_without_one_replaces_it() {
    each_store(async |name, e, _| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        for (m, points) in [("a", 100), ("b", 90), ("c", 80)] {
            put(e, &b, m, points, 1).await;
        }
        let (a, bee) = (MemberId::parse("a").unwrap(), MemberId::parse("b").unwrap());
        let url = "https://avatars.example/u.png";
        let now = jiff::Timestamp::now();
        // The engine answers the profile's URL as it is, http too: which to show is the pages'.
        e.writes().put_profile(&a, "Ann", Some(url), &Default::default(), now).await.unwrap();
        e.writes()
            .put_profile(&bee, "Bea", Some("http://avatars.example/b.png"), &Default::default(), now)
            .await
            .unwrap();
        let scope = e.reads().scope(&b.slug, None).await.unwrap();
        let page = e.reads().ranking_page(&scope, 0, 10).await.unwrap();
        let want = vec![
            ("a".to_owned(), Some(url.to_owned())),
            ("b".to_owned(), Some("http://avatars.example/b.png".to_owned())),
            ("c".to_owned(), None),
        ];
        assert_eq!(avatars_of(&page.entries), want, "{name}: the page");
        // The member page's standing, and ranks of a list (the other way entries are made).
        let view = e.reads().member_view(&scope, &a, None, 10).await.unwrap();
        assert_eq!(view.standing.and_then(|s| s.avatar_url).as_deref(), Some(url), "{name}");
        let listed =
            e.reads().ranks_of(&scope, &[a.clone(), MemberId::parse("c").unwrap()]).await.unwrap().value;
        assert_eq!(avatars_of(&listed), vec![want[0].clone(), want[2].clone()], "{name}: ranks of a list");

        // The profile replaced without an avatar: the name stays, the avatar is gone at once.
        e.writes().put_profile(&a, "Ann", None, &Default::default(), now).await.unwrap();
        let page = e.reads().ranking_page(&scope, 0, 10).await.unwrap();
        assert_eq!(avatars_of(&page.entries)[0], ("a".to_owned(), None), "{name}: removed");
        assert_eq!(page.entries[0].display_name.as_deref(), Some("Ann"), "{name}");
        let listed = e.reads().ranks_of(&scope, std::slice::from_ref(&a)).await.unwrap().value;
        assert_eq!(listed[0].avatar_url, None, "{name}: removed from ranks of a list");
        // Without an avatar the field is left out of the JSON.
        let json = serde_json::to_value(&page.entries[0]).unwrap();
        assert!(json.get("avatar_url").is_none(), "{name}: {json}");
        let json = serde_json::to_value(&page.entries[1]).unwrap();
        assert_eq!(json["avatar_url"], "http://avatars.example/b.png", "{name}: {json}");
    })
    .await;
}

#[tokio::test]
async fn a_cached_top_page_is_shared_for_its_second_and_a_transition_drops_it() {
    each_redis(async |name, e| {
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        for (m, points) in [("a", 100), ("b", 90), ("c", 80)] {
            put(e, &b, m, points, 1).await;
        }
        // The shared page is the page top() answers, held for at most a second.
        let top = e.reads().top(&e.reads().scope(&b.slug, None).await.unwrap(), 10).await.unwrap();
        let shared = e.reads().top_shared(&e.reads().scope(&b.slug, None).await.unwrap(), 10).await.unwrap();
        assert_eq!(*shared.page, top, "{name}");
        assert!(shared.until <= std::time::Instant::now() + std::time::Duration::from_secs(1), "{name}");
        // Readers of the same cached page share it (checked when both reads fall well inside the
        // cache's second; a slow machine may let the page expire in between).
        for _ in 0..5 {
            let started = std::time::Instant::now();
            let first =
                e.reads().top_shared(&e.reads().scope(&b.slug, None).await.unwrap(), 10).await.unwrap();
            let second =
                e.reads().top_shared(&e.reads().scope(&b.slug, None).await.unwrap(), 10).await.unwrap();
            if started.elapsed() < std::time::Duration::from_millis(500) {
                assert!(std::sync::Arc::ptr_eq(&first.page, &second.page), "{name}: the page is shared");
                break;
            }
        }
        // Each limit is its own page.
        let two = e.reads().top_shared(&e.reads().scope(&b.slug, None).await.unwrap(), 2).await.unwrap();
        assert_eq!(two.page.entries.len(), 2, "{name}");
        // A newcomer leads; a transition in this process drops the cached pages at once and
        // tells whoever keeps answers made from them (the read epoch).
        let epoch = e.reads().read_epoch();
        put(e, &b, "z", 1000, 1).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some("current")).await.unwrap(),
                domain::lifecycle::Transition::Freeze,
                "test",
                None,
            )
            .await
            .unwrap();
        assert_ne!(e.reads().read_epoch(), epoch, "{name}: the transition moved the read epoch");
        let top = e.reads().top_shared(&e.reads().scope(&b.slug, None).await.unwrap(), 10).await.unwrap();
        assert_eq!(top.page.entries[0].member.as_str(), "z", "{name}");
    })
    .await;
}

#[tokio::test]
async fn find_me_by_name_reads_a_bounded_range_of_names_and_keeps_the_ranked_members() {
    let (name, target) = redis_targets().into_iter().next().expect("a Redis target");
    for t in TestLedger::both().await {
        let p = TestProjection::new(target.clone());
        let e = engine(&t, &p).await;
        let b = board(TiePolicy::Shared);
        e.boards().create_board(&b).await.unwrap();
        let tag = unique("n").replace('_', "");
        let now = jiff::Timestamp::now();
        let people = [
            ("a", "Ada Lovelace", Some(100)),
            ("b", "adam smith", Some(90)),
            ("c", "Ádám", Some(80)),
            ("d", "Bob", Some(70)),
            // A profile without points in this period is no match on this board.
            ("e", "Adele", None),
        ];
        for (id, display, points) in people {
            let member = format!("{id}-{tag}");
            e.writes()
                .put_profile(
                    &MemberId::parse(&member).unwrap(),
                    &format!("{tag} {display}"),
                    None,
                    &Default::default(),
                    now,
                )
                .await
                .unwrap();
            if let Some(points) = points {
                put(&e, &b, &member, points, 1).await;
            }
        }
        let found = |prefix: String| {
            let (e, slug) = (&e, b.slug.clone());
            async move {
                let m = e
                    .reads()
                    .members_named(&e.reads().scope(&slug, None).await.unwrap(), &prefix)
                    .await
                    .unwrap();
                (
                    m.entries
                        .iter()
                        .map(|en| en.member.as_str().split('-').next().unwrap().to_owned())
                        .collect::<Vec<_>>(),
                    m.more,
                )
            }
        };
        let store = format!("{name}/{}", t.name);
        // ASCII letters in either case, best ranked first; the unranked profile left out.
        assert_eq!(
            found(format!("{} ADA", tag.to_uppercase())).await,
            (vec!["a".into(), "b".into()], false),
            "{store}"
        );
        assert_eq!(found(format!("  {tag} ada l ")).await, (vec!["a".into()], false), "{store}: trimmed");
        // Other letters compare as they are written.
        assert_eq!(found(format!("{tag} Ád")).await, (vec!["c".into()], false), "{store}");
        assert_eq!(found(format!("{tag} ád")).await, (vec![], false), "{store}");
        assert_eq!(found(format!("{tag} z")).await, (vec![], false), "{store}");
        assert_eq!(found("   ".into()).await, (vec![], false), "{store}: nothing typed");
        // A renamed member is found by the new name only.
        e.writes()
            .put_profile(
                &MemberId::parse(format!("a-{tag}")).unwrap(),
                &format!("{tag} Zed"),
                None,
                &Default::default(),
                now,
            )
            .await
            .unwrap();
        assert_eq!(found(format!("{tag} ada")).await, (vec!["b".into()], false), "{store}: renamed");
        assert_eq!(found(format!("{tag} zed")).await, (vec!["a".into()], false), "{store}");
        // Past the candidates read: at most 10 matches, and `more` says there may be others.
        for i in 0..engine::reads::NAME_CANDIDATES + 1 {
            let member = format!("m{i}-{tag}");
            e.writes()
                .put_profile(
                    &MemberId::parse(&member).unwrap(),
                    &format!("{tag} Many {i:03}"),
                    None,
                    &Default::default(),
                    now,
                )
                .await
                .unwrap();
            if i < 12 {
                put(&e, &b, &member, 10 + i as i64, 1).await;
            }
        }
        let (many, more) = found(format!("{tag} many")).await;
        assert_eq!((many.len(), more), (engine::reads::NAME_MATCHES, true), "{store}: {many:?}");
        assert_eq!(many[0], "m11", "{store}: best ranked first");
        // An unknown board is not "nobody": it has no scope to search in.
        let missing = BoardSlug::parse("no-such-board").unwrap();
        assert!(
            matches!(e.reads().scope(&missing, None).await, Err(engine::EngineError::NotFound { .. })),
            "{store}"
        );
        p.cleanup().await;
        t.drop_db().await;
    }
}
