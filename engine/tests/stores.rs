//! The stores are reachable and behave as the engine expects: the projection round-trips on
//! standalone Redis and on a 3-master Cluster, the ledger migrates on SQLite and PostgreSQL, and
//! its pool replaces a connection the server closed.
//!
//! The migrations of both ledgers are the same versions, apply, and rerun as no-ops; migration
//! 0009 turns rows of the former `standings` table (migrated up to 0007 and filled, prizes that
//! need escaping) into blocks that read back identical at pages across block boundaries. Every key
//! of a period lands in one slot of the live Cluster.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets};
use domain::{BoardSlug, MemberId, PeriodKey};
use engine::redis::{ProjectedTotal, ReadFrom, Source, Window};
use redis::cluster_routing::Slot;

fn ids() -> (BoardSlug, PeriodKey) {
    (BoardSlug::parse("weekly-study").unwrap(), PeriodKey::parse("2026-W34").unwrap())
}

fn total(member: &MemberId, version: i64, score: i64) -> ProjectedTotal {
    ProjectedTotal { member: member.clone(), version, score, hidden: false }
}

fn hidden(member: &MemberId, version: i64, score: i64) -> ProjectedTotal {
    ProjectedTotal { hidden: true, ..total(member, version, score) }
}

#[tokio::test]
async fn projection_round_trips_on_standalone_and_cluster() {
    let (board, period) = ids();
    for (name, target) in redis_targets() {
        let t = TestProjection::new(target);
        let p = &t.projection;
        p.ping().await.unwrap_or_else(|e| panic!("{name}: {e}"));
        let (a, b) = (MemberId::parse("u1").unwrap(), MemberId::parse("u2").unwrap());
        assert!(p.project(&board, &period, &total(&a, 1, 100)).await.unwrap(), "{name}");
        assert!(p.project(&board, &period, &total(&b, 1, 250)).await.unwrap(), "{name}");
        let page = p
            .window(&board, &period, Source::Live, ReadFrom::Primary, Window::Offset(0), 10, 1)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(page.total, 2, "{name}");
        assert_eq!(page.rows, vec![(b.clone(), 250), (a.clone(), 100)], "{name}");
        assert_eq!(page.next, None, "{name}");
        t.cleanup().await;
    }
}

#[tokio::test]
async fn a_replayed_or_older_version_never_moves_a_score_back() {
    let (board, period) = ids();
    for (name, target) in redis_targets() {
        let t = TestProjection::new(target);
        let p = &t.projection;
        let m = MemberId::parse("u1").unwrap();
        assert!(p.project(&board, &period, &total(&m, 2, 300)).await.unwrap());
        // Version 1 arrives late, version 2 is replayed: neither changes anything.
        assert!(!p.project(&board, &period, &total(&m, 1, 100)).await.unwrap(), "{name}");
        assert!(!p.project(&board, &period, &total(&m, 2, 999)).await.unwrap(), "{name}");
        let page = p
            .window(&board, &period, Source::Live, ReadFrom::Primary, Window::Offset(0), 10, 1)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(page.rows, vec![(m.clone(), 300)], "{name}");
        t.cleanup().await;
    }
}

#[tokio::test]
async fn a_hidden_version_leaves_the_ranking_and_no_older_one_brings_the_member_back() {
    let (board, period) = ids();
    for (name, target) in redis_targets() {
        let t = TestProjection::new(target);
        let p = &t.projection;
        let (a, b) = (MemberId::parse("u1").unwrap(), MemberId::parse("u2").unwrap());
        let ranked = async || {
            let page = p
                .window(&board, &period, Source::Live, ReadFrom::Primary, Window::Offset(0), 10, 1)
                .await
                .unwrap()
                .unwrap();
            (page.total, page.rows)
        };
        p.project_many(&board, &period, &[total(&a, 1, 100), total(&b, 1, 250)]).await.unwrap();
        // Version 2 hides u1: out of the ranking, its version still counted in vsum.
        assert!(p.project(&board, &period, &hidden(&a, 2, 100)).await.unwrap(), "{name}");
        assert_eq!(ranked().await, (1, vec![(b.clone(), 250)]), "{name}");
        assert_eq!(p.version_summary(&board, &period).await.unwrap(), (1, 3), "{name}");
        // Replays and reorders of older, visible versions change nothing, one by one or in a batch.
        assert!(!p.project(&board, &period, &total(&a, 1, 100)).await.unwrap(), "{name}");
        assert!(!p.project(&board, &period, &total(&a, 2, 100)).await.unwrap(), "{name}");
        assert_eq!(p.level(&board, &period, &[total(&a, 1, 100), total(&a, 2, 100)]).await.unwrap(), 0);
        assert_eq!(ranked().await, (1, vec![(b.clone(), 250)]), "{name}");
        // A write while hidden (version 3) records the version, the member stays out.
        assert_eq!(p.level(&board, &period, &[hidden(&a, 3, 400)]).await.unwrap(), 1, "{name}");
        assert_eq!(ranked().await, (1, vec![(b.clone(), 250)]), "{name}");
        // Version 4 shows it again with the total it has now.
        assert!(p.project(&board, &period, &total(&a, 4, 400)).await.unwrap(), "{name}");
        assert_eq!(ranked().await, (2, vec![(a.clone(), 400), (b.clone(), 250)]), "{name}");
        assert!(!p.project(&board, &period, &hidden(&a, 3, 400)).await.unwrap(), "{name}");
        assert_eq!(p.version_summary(&board, &period).await.unwrap(), (2, 5), "{name}");
        // A rebuild keeps hidden members' versions and leaves them out of the ranking.
        p.rebuild(&board, &period, &[hidden(&a, 5, 400), total(&b, 1, 250)], Default::default())
            .await
            .unwrap();
        assert_eq!(ranked().await, (1, vec![(b.clone(), 250)]), "{name}");
        assert_eq!(p.version_summary(&board, &period).await.unwrap(), (1, 6), "{name}");
        assert!(!p.project(&board, &period, &total(&a, 4, 400)).await.unwrap(), "{name}");
        // Every member hidden: the ranking is empty, the versions are all there.
        p.rebuild(&board, &period, &[hidden(&a, 5, 400), hidden(&b, 2, 250)], Default::default())
            .await
            .unwrap();
        assert_eq!(ranked().await, (0, vec![]), "{name}");
        assert_eq!(p.version_summary(&board, &period).await.unwrap(), (0, 7), "{name}");
        t.cleanup().await;
    }
}

#[tokio::test]
async fn every_key_of_a_period_lands_in_one_slot_of_the_live_cluster() {
    let (board, period) = ids();
    let (_, target) = redis_targets().into_iter().find(|(n, _)| *n == "cluster").unwrap();
    let t = TestProjection::new(target);
    let keys = t.projection.keys().period(&board, &period);
    let mut conn = t.projection.conn().await.unwrap();
    let mut slots = Vec::new();
    for key in keys.all() {
        let slot: u16 = redis::cmd("CLUSTER").arg("KEYSLOT").arg(key).query_async(&mut conn).await.unwrap();
        assert_eq!(Slot::for_key(key), Slot::new(slot).unwrap(), "client and server agree on {key}");
        slots.push(slot);
    }
    assert_eq!(slots[0], slots[1]);
}

/// The versions of the migration files of one backend (`migrations/<backend>/<version>_<name>.sql`).
fn migration_files(backend: &str) -> Vec<i64> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations").join(backend);
    let mut versions: Vec<i64> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|file| {
            let name = file.unwrap().file_name().into_string().unwrap();
            name.split('_').next().unwrap().parse().unwrap_or_else(|_| panic!("{backend}/{name}"))
        })
        .collect();
    versions.sort_unstable();
    versions
}

/// The pool does not ping a connection each time it lends it (sqlx pings it as it comes back),
/// but it pings one that was idle for a while: a connection PostgreSQL closed meanwhile (a
/// restart, an idle timeout) is replaced instead of failing the next request.
#[tokio::test]
async fn a_connection_the_server_closed_while_idle_is_replaced_before_a_request_uses_it() {
    use sqlx::Connection;
    let t = TestLedger::postgres().await;
    t.ledger.migrate().await.unwrap();
    t.ledger.ping().await.unwrap();
    let mut other = sqlx::AnyConnection::connect(&t.url).await.unwrap();
    let closed: i64 = sqlx::query_scalar(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut other)
    .await
    .unwrap();
    other.close().await.unwrap();
    assert!(closed >= 1, "the ledger's idle connection was closed by the server");
    // Idle past the ledger's threshold (one second), the next request pings first.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    t.ledger.ping().await.expect("a request after the server closed the idle connection");
    t.drop_db().await;
}

#[tokio::test]
async fn migrations_apply_on_sqlite_and_postgres_and_rerun_as_no_ops() {
    // Both backends have the same migrations, and every one of them is applied.
    let expected = migration_files("sqlite");
    assert_eq!(migration_files("postgres"), expected, "migrations/sqlite and migrations/postgres differ");
    for t in TestLedger::both().await {
        t.ledger.migrate().await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        t.ledger.migrate().await.unwrap_or_else(|e| panic!("{} (second run): {e}", t.name));
        assert_eq!(t.ledger.applied_migrations().await.unwrap(), expected, "{}", t.name);
        t.ledger.ping().await.unwrap();
        t.drop_db().await;
    }
}

#[tokio::test]
async fn profile_changes_come_in_revision_order_and_concurrent_writes_each_take_their_own() {
    let m = |s: &str| MemberId::parse(s).unwrap();
    for t in TestLedger::both().await {
        t.ledger.migrate().await.unwrap();
        let now = jiff::Timestamp::now();
        for (member, name) in [("a", "Ann"), ("b", "Bob"), ("c", "Cy")] {
            t.ledger.put_profile(&m(member), name, None, &Default::default(), now).await.unwrap();
        }
        // A rename is the newest change: the member moves to the end, once, with its new name.
        t.ledger.put_profile(&m("a"), "Anna", None, &Default::default(), now).await.unwrap();
        let all = t.ledger.profile_changes(0, 10).await.unwrap();
        let named: Vec<(&str, &str)> = all.iter().map(|(m, n, _, _)| (m.as_str(), n.as_str())).collect();
        assert_eq!(named, vec![("b", "Bob"), ("c", "Cy"), ("a", "Anna")], "{}", t.name);
        assert!(all.windows(2).all(|w| w[0].3 < w[1].3), "{}: revisions rise", t.name);
        // Paged catch-up: "after the last revision seen" continues exactly where a page ended.
        let first = t.ledger.profile_changes(0, 2).await.unwrap();
        let rest = t.ledger.profile_changes(first[1].3, 10).await.unwrap();
        assert_eq!([first, rest].concat(), all, "{}", t.name);

        // Concurrent writers (several connections on PostgreSQL) never share a revision.
        let mut writers = tokio::task::JoinSet::new();
        for i in 0..40 {
            let ledger = t.ledger.clone();
            writers.spawn(async move {
                ledger
                    .put_profile(
                        &MemberId::parse(format!("w{i}")).unwrap(),
                        "W",
                        None,
                        &Default::default(),
                        now,
                    )
                    .await
            });
        }
        while let Some(written) = writers.join_next().await {
            written.unwrap().unwrap();
        }
        let after = t.ledger.profile_changes(all[2].3, 100).await.unwrap();
        let mut revisions: Vec<i64> = after.iter().map(|(_, _, _, r)| *r).collect();
        assert_eq!(after.len(), 40, "{}", t.name);
        revisions.dedup();
        assert_eq!(revisions.len(), 40, "{}: one revision per write", t.name);
        assert!(all.iter().chain(&after).all(|c| c.2.is_none()), "{}: no avatar was given", t.name);

        // An avatar comes with its profile's change; a profile replaced without one has none.
        let last = revisions.last().copied().unwrap();
        let url = "https://avatars.example/b.png";
        t.ledger.put_profile(&m("b"), "Bob", Some(url), &Default::default(), now).await.unwrap();
        let with = t.ledger.profile_changes(last, 10).await.unwrap();
        let seen: Vec<_> = with.iter().map(|(m, n, a, _)| (m.as_str(), n.as_str(), a.as_deref())).collect();
        assert_eq!(seen, vec![("b", "Bob", Some(url))], "{}", t.name);
        t.ledger.put_profile(&m("b"), "Bob", None, &Default::default(), now).await.unwrap();
        let without = t.ledger.profile_changes(with[0].3, 10).await.unwrap();
        let seen: Vec<_> = without.iter().map(|(m, _, a, _)| (m.as_str(), a.as_deref())).collect();
        assert_eq!(seen, vec![("b", None)], "{}: the avatar is gone", t.name);
        t.drop_db().await;
    }
}

#[tokio::test]
async fn migration_0009_packs_existing_standings_into_blocks() {
    use domain::settlement::Standing;
    use sqlx::Connection;
    // Standings written row by row before 0009: 2 500 of one settlement (three blocks of up to
    // 1 000, a partial last one) with prizes that need escaping, and 3 of another revision.
    let prizes = [None, Some("gold \"1\" \\ {a,b}\n\u{e9}"), Some("null"), Some("")];
    let many: Vec<Standing> = (0..2500)
        .map(|i: u64| Standing {
            rank: i / 3 + 1,
            member: MemberId::parse(format!("m{:05}.x@y:z-_", (i * 7919) % 10_000)).unwrap(),
            points: 5_000_000_000 - (i / 3) as i64,
            prize: prizes[(i % 4) as usize].map(str::to_owned),
        })
        .collect();
    let few: Vec<Standing> = (0..3)
        .map(|i: u64| Standing {
            rank: 1,
            member: MemberId::parse(format!("u{i}")).unwrap(),
            points: -7,
            prize: None,
        })
        .collect();
    let (board, period) = ids();
    for t in TestLedger::both().await {
        t.ledger.migrate_until(8).await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        sqlx::any::install_default_drivers();
        let mut conn = sqlx::AnyConnection::connect(&t.url).await.unwrap();
        for (revision, rows) in [(1_i64, &many), (2, &few)] {
            for (chunk_no, chunk) in rows.chunks(100).enumerate() {
                let values: Vec<String> = (0..chunk.len())
                    .map(|r| {
                        format!(
                            "({})",
                            (1..=8).map(|c| format!("${}", r * 8 + c)).collect::<Vec<_>>().join(", ")
                        )
                    })
                    .collect();
                let sql = format!(
                    "INSERT INTO standings (board, period, revision, position, rank, member, points, prize) VALUES {}",
                    values.join(", ")
                );
                let mut query = sqlx::query(&sql);
                for (i, s) in chunk.iter().enumerate() {
                    query = query
                        .bind(board.as_str())
                        .bind(period.to_string())
                        .bind(revision)
                        .bind((chunk_no * 100 + i) as i64)
                        .bind(s.rank as i64)
                        .bind(s.member.as_str())
                        .bind(s.points)
                        .bind(s.prize.as_deref());
                }
                query.execute(&mut conn).await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
            }
        }
        t.ledger.migrate().await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let blocks: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT first_position, members, last_points FROM standing_blocks ORDER BY revision, first_position",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        let last = |p: usize| many[p].points;
        assert_eq!(
            blocks,
            [(0, 1000, last(999)), (1000, 1000, last(1999)), (2000, 500, last(2499)), (0, 3, -7)],
            "{}",
            t.name
        );
        let old = sqlx::query("SELECT COUNT(*) FROM standings").fetch_one(&mut conn).await;
        assert!(old.is_err(), "{}: the standings table is gone", t.name);
        conn.close().await.unwrap();
        let read = |revision, offset, limit| t.ledger.standings(&board, &period, revision, offset, limit);
        assert_eq!(read(2, 0, 10_000).await.unwrap(), few, "{}", t.name);
        for (offset, limit) in [(0, 10_000), (999, 2), (1000, 1000), (1500, 1000), (2499, 5), (2500, 1)] {
            let (from, to) = (offset as usize, ((offset + limit) as usize).min(many.len()));
            let page = read(1, offset, limit).await.unwrap();
            // The first difference, rather than two pages of standings.
            let differs = (0..page.len().max(to - from)).find(|&i| page.get(i) != many[from..to].get(i));
            assert_eq!(differs.map(|i| (i, page.get(i), many[from..to].get(i))), None, "{} {offset}", t.name);
        }
        t.drop_db().await;
    }
}

#[tokio::test]
async fn the_demo_board_ranks_ties_through_both_stores() {
    for (redis_name, target) in redis_targets() {
        for t in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let e = engine(&t, &p).await;
            // As `laurel serve --demo` starts: the names are loaded before the demo's profiles
            // exist, and the first page (within a second) must already show them.
            e.reads().load_names().await.unwrap();
            assert!(engine::demo::ensure_demo(&e, "Asia/Shanghai").await.unwrap());
            assert!(!engine::demo::ensure_demo(&e, "Asia/Shanghai").await.unwrap(), "created only once");
            let slug = BoardSlug::parse("demo").unwrap();
            let page =
                e.reads().ranking_page(&e.reads().scope(&slug, None).await.unwrap(), 0, 4).await.unwrap();
            let ctx = format!("{redis_name}/{}", t.name);
            let ranks: Vec<u64> = page.entries.iter().map(|e| e.rank).collect();
            assert_eq!(ranks, vec![1, 2, 2, 4], "{ctx}");
            assert_eq!(page.entries[0].display_name.as_deref(), Some("Ada Lovelace"), "{ctx}");
            assert_eq!(page.entries[0].points, 1420, "{ctx}");
            assert_eq!(page.total, 25, "{ctx}");
            assert!(page.has_more, "{ctx}");
            // A page that starts inside a tie: u1006..u1008 share 980 points at rank 6.
            let page =
                e.reads().ranking_page(&e.reads().scope(&slug, None).await.unwrap(), 6, 3).await.unwrap();
            let ranks: Vec<(u64, bool)> = page.entries.iter().map(|e| (e.rank, e.tied)).collect();
            assert_eq!(ranks, vec![(6, true), (6, true), (9, false)], "{ctx}");
            // The last member has no profile: no display name, the id is the fallback.
            let last =
                e.reads().ranking_page(&e.reads().scope(&slug, None).await.unwrap(), 24, 10).await.unwrap();
            assert_eq!(last.entries.len(), 1);
            assert_eq!(last.entries[0].display_name, None, "{ctx}");
            assert_eq!(last.entries[0].name(), "u1025", "{ctx}");
            assert!(!last.has_more, "{ctx}");

            // Six past weeks through the lifecycle: the oldest archived, the others settled, the
            // one two weeks ago revised after its settlement.
            let periods = e.reads().periods(&slug).await.unwrap();
            let states: Vec<&str> = periods.iter().map(|p| p.state.as_str()).collect();
            let past = engine::demo::PAST_WEEKS;
            let mut expected = vec!["open"];
            expected.extend(std::iter::repeat_n("settled", past - 1));
            expected.push("archived");
            assert_eq!(states, expected, "{ctx}");
            for (age, info) in periods.iter().enumerate().skip(1) {
                let settlement = e
                    .lifecycle()
                    .settlement(&e.reads().scope(&slug, Some(&info.period.to_string())).await.unwrap())
                    .await
                    .unwrap();
                assert_eq!(settlement.revision, if age == 2 { 2 } else { 1 }, "{ctx} {}", info.period);
                assert_eq!(settlement.previous_digest.is_some(), age == 2, "{ctx}");
                assert!(settlement.members > 15, "{ctx}: {} members", settlement.members);
            }
            // Past entries were recorded during their week, on time: none waits for review.
            for info in &periods[1..] {
                let late = e
                    .lifecycle()
                    .late_entries(
                        &e.reads().scope(&slug, Some(&info.period.to_string())).await.unwrap(),
                        None,
                    )
                    .await
                    .unwrap();
                assert!(late.is_empty(), "{ctx} {}: {late:?}", info.period);
            }

            // The sprint board ranks equal points by who reached them first.
            let sprint = BoardSlug::parse(engine::demo::DEMO_SPRINT).unwrap();
            let page =
                e.reads().ranking_page(&e.reads().scope(&sprint, None).await.unwrap(), 0, 10).await.unwrap();
            let order: Vec<(&str, i64, u64)> =
                page.entries.iter().map(|x| (x.member.as_str(), x.points, x.rank)).collect();
            assert_eq!(
                order,
                vec![
                    ("u1005", 300, 1),
                    ("u1001", 300, 2),
                    ("u1003", 300, 3),
                    ("u1002", 200, 4),
                    ("u1007", 200, 5),
                    ("u1004", 100, 6),
                    ("u1006", 100, 7),
                    ("u1008", 100, 8)
                ],
                "{ctx}"
            );

            // The hot board has a published list from a few hours of hits.
            let hot = BoardSlug::parse(engine::demo::DEMO_HOT).unwrap();
            let list = e.hot().top(&hot, 3).await.unwrap();
            let top: Vec<&str> = list.entries.iter().map(|x| x.member.as_str()).collect();
            assert_eq!(top, vec!["redis cluster", "leptos islands", "sorted sets"], "{ctx}");
            p.cleanup().await;
            t.drop_db().await;
        }
    }
}

#[tokio::test]
async fn migration_0010_keeps_totals_and_one_revocation_per_entry() {
    use domain::TiePolicy;
    use engine::ledger::Revoked;
    for t in TestLedger::both().await {
        t.ledger.migrate_until(9).await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let now = jiff::Timestamp::now();
        let board = common::prized_board("m10", TiePolicy::FirstReached, 0);
        common::create_board_in_old_schema(&t.url, &board).await;
        let writes: Vec<_> =
            (0..40).map(|i| common::point(&format!("e{i}"), &format!("u{}", i % 7), i - 10)).collect();
        t.ledger.record(&board, &writes, now).await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let period = board.period_at(now);
        let before = t.ledger.totals(&board.slug, &period).await.unwrap();
        assert_eq!(before.len(), 7, "{}", t.name);

        t.ledger.migrate().await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        assert_eq!(t.ledger.totals(&board.slug, &period).await.unwrap(), before, "{}", t.name);
        // The partial unique index still allows one revocation per entry.
        let e3 = domain::EventId::parse("e3").unwrap();
        let first = t.ledger.revoke(&board, &e3, "admin", "test", now).await.unwrap();
        assert!(matches!(first, Revoked::Revoked { .. }), "{}: {first:?}", t.name);
        let again = t.ledger.revoke(&board, &e3, "admin", "test", now).await.unwrap();
        assert!(matches!(again, Revoked::AlreadyRevoked { .. }), "{}: {again:?}", t.name);
        // And writes go on as before, on the rebuilt totals.
        let more = [common::point("e40", "u3", 5)];
        t.ledger.record(&board, &more, now).await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let u3 = |totals: &[engine::ledger::StoredTotal]| {
            totals.iter().find(|s| s.member.as_str() == "u3").map(|s| s.points)
        };
        let after = t.ledger.totals(&board.slug, &period).await.unwrap();
        // e3 was u3's event with delta -7, now revoked; e40 adds 5.
        assert_eq!(u3(&after), u3(&before).map(|p| p + 7 + 5), "{}", t.name);
        t.drop_db().await;
    }
}

/// Commits do not checkpoint (`wal_autocheckpoint = 0`): the ledger's own checkpointer copies the
/// WAL back into the database file and, past its limit, makes the WAL start over. Without it the
/// database file would stay as the migrations left it and the WAL would hold every write.
///
/// How far the WAL grows while writes outrun the 50 ms tick depends on the machine's speed, so the
/// test asserts the two things that do not: the entries reach the database file with no write to
/// trigger it, and a write made after that finds a WAL that started over (it holds a few frames,
/// not the thousands written before).
#[tokio::test]
async fn the_sqlite_wal_is_checkpointed_beside_the_writes_and_starts_over() {
    use domain::TiePolicy;
    use sqlx::{Connection, Row};
    engine::ledger::set_wal_limit(64);
    let t = TestLedger::sqlite().await;
    t.ledger.migrate().await.unwrap();
    let now = jiff::Timestamp::now();
    let board = common::prized_board("wal", TiePolicy::Shared, 0);
    t.ledger.create_board(&board, now).await.unwrap();
    let db = std::path::PathBuf::from(t.url.trim_start_matches("sqlite://"));
    let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    // 80 batches of 100 entries with 1 KiB of metadata each: 8 MB of entries, 2,000+ WAL frames.
    let metadata = format!("{{\"note\":\"{}\"}}", "x".repeat(1000));
    for b in 0..80 {
        let writes: Vec<_> = (0..100)
            .map(|i| domain::write::Write {
                metadata: Some(metadata.clone()),
                segments: Default::default(),
                ..common::point(&format!("b{b}-e{i}"), &format!("u{}", (i * 37 + b) % 1000), 1)
            })
            .collect();
        t.ledger.record(&board, &writes, now).await.unwrap();
    }
    // The entries reach the database file within a few ticks, with no write to trigger it...
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while size(&db) < 8_000_000 {
        assert!(std::time::Instant::now() < deadline, "the database file holds {} bytes", size(&db));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // ...and once the checkpointer has caught up (it may be mid-copy when the file reaches that
    // size), the next write starts the WAL over. A PASSIVE checkpoint from an outside connection
    // reports the frames in the WAL without waiting for anyone.
    let mut outside = sqlx::AnyConnection::connect(&t.url).await.unwrap();
    let mut frames_after = Vec::new();
    for n in 0..50 {
        t.ledger.record(&board, &[common::point(&format!("after-{n}"), "u1", 1)], now).await.unwrap();
        let row = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(&mut outside).await.unwrap();
        let frames: i64 = row.try_get(1).unwrap();
        frames_after.push(frames);
        if frames < 64 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        frames_after.last().is_some_and(|&frames| frames < 64),
        "the WAL never started over; frames in it after each later write: {frames_after:?}"
    );
    outside.close().await.unwrap();
    let period = board.period_at(now);
    let points: i64 = t.ledger.totals(&board.slug, &period).await.unwrap().iter().map(|s| s.points).sum();
    assert_eq!(points, 8000 + frames_after.len() as i64);
    t.drop_db().await;
}

/// Migration 0013 rebuilds `rewards` on SQLite (a new unique key, with `kind`): every reward and
/// its attempts stay, the ids go on from where they were, and the foreign keys still hold.
#[tokio::test]
async fn migration_0013_keeps_rewards_and_their_attempts() {
    use domain::TiePolicy;
    use domain::view::RewardKind;
    use sqlx::{Connection, Row};
    for t in TestLedger::both().await {
        t.ledger.migrate_until(12).await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let now = jiff::Timestamp::now();
        let board = common::prized_board("m13", TiePolicy::Shared, 0);
        common::create_board_in_old_schema(&t.url, &board).await;
        let writes: Vec<_> =
            (0..5).map(|i| common::point(&format!("e{i}"), &format!("u{i}"), 10 * i + 1)).collect();
        t.ledger.record(&board, &writes, now).await.unwrap();
        let period = board.period_at(now);
        // A settlement as schema 12 wrote it: three rewards, one with an attempt.
        let mut conn = sqlx::AnyConnection::connect(&t.url).await.unwrap();
        let (slug, key) = (board.slug.as_str(), period.to_string());
        sqlx::query(
            "INSERT INTO settlements (board, period, revision, rule_version, watermark, digest, members, actor, settled_at) \
             VALUES ($1, $2, 1, 1, 5, 'd', 5, 'admin', 0)",
        )
        .bind(slug)
        .bind(&key)
        .execute(&mut conn)
        .await
        .unwrap();
        for (i, member) in ["u4", "u3", "u2"].iter().enumerate() {
            sqlx::query(
                "INSERT INTO rewards (board, period, revision, member, rank, prize, idempotency_key, next_attempt_at) \
                 VALUES ($1, $2, 1, $3, $4, 'gold', $5, 0)",
            )
            .bind(slug)
            .bind(&key)
            .bind(*member)
            .bind(i as i64 + 1)
            .bind(format!("laurel:{slug}:{key}:1:{member}"))
            .execute(&mut conn)
            .await
            .unwrap();
        }
        sqlx::query(
            "INSERT INTO reward_attempts (reward_id, attempted_at, http_status) \
             SELECT MIN(id), 0, 500 FROM rewards WHERE board = $1",
        )
        .bind(slug)
        .execute(&mut conn)
        .await
        .unwrap();
        let rows = async |conn: &mut sqlx::AnyConnection| -> Vec<String> {
            let sql = "SELECT r.id || ' ' || r.member || ' ' || r.idempotency_key || ' ' || r.status || ' ' || \
                       (SELECT COUNT(*) FROM reward_attempts a WHERE a.reward_id = r.id) AS r FROM rewards r ORDER BY r.id";
            sqlx::query(sql).fetch_all(conn).await.unwrap().iter().map(|r| r.get::<String, _>("r")).collect()
        };
        let before = rows(&mut conn).await;

        t.ledger.migrate().await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        assert_eq!(rows(&mut conn).await, before, "{}", t.name);
        let after = t.ledger.rewards(&board.slug, &period).await.unwrap();
        assert!(after.iter().all(|r| r.kind == RewardKind::Grant && r.compensates.is_none()), "{}", t.name);
        assert_eq!(after.len(), 3, "{}", t.name);
        assert_eq!(after.iter().map(|r| r.history.len()).sum::<usize>(), 1, "{}", t.name);
        if t.name == "sqlite" {
            let broken = sqlx::query("PRAGMA foreign_key_check").fetch_all(&mut conn).await.unwrap();
            assert!(broken.is_empty(), "{} foreign key violations", broken.len());
            // New reward rows take ids after the old ones.
            let seq: i64 = sqlx::query("SELECT seq FROM sqlite_sequence WHERE name = 'rewards'")
                .fetch_one(&mut conn)
                .await
                .unwrap()
                .get("seq");
            assert_eq!(seq, after.iter().map(|r| r.id).max().unwrap());
        }
        conn.close().await.unwrap();
        t.drop_db().await;
    }
}

/// Migration 0027 stores segment memberships clustered on SQLite (WITHOUT ROWID) and gives
/// PostgreSQL's by-value index the member: every membership stays.
#[tokio::test]
async fn migration_0027_keeps_segment_memberships() {
    use domain::TiePolicy;
    use domain::write::Write;
    use sqlx::{Connection, Row};
    for t in TestLedger::both().await {
        t.ledger.migrate_until(26).await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        let now = jiff::Timestamp::now();
        let board = domain::Board {
            segments: vec!["province".into()],
            ..common::prized_board("m27", TiePolicy::Shared, 0)
        };
        // Schema 26's board: the first schema's columns and the declared dimension.
        common::create_board_in_old_schema(&t.url, &board).await;
        let mut conn = sqlx::AnyConnection::connect(&t.url).await.unwrap();
        sqlx::query("UPDATE boards SET segments = $1 WHERE slug = $2")
            .bind(r#"["province"]"#)
            .bind(board.slug.as_str())
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let writes: Vec<Write> = (0..6)
            .map(|i| Write {
                segments: [("province".to_owned(), format!("p{}", i % 2))].into(),
                ..common::point(&format!("e{i}"), &format!("u{i}"), i + 1)
            })
            .collect();
        t.ledger.record(&board, &writes, now).await.unwrap();
        let period = board.period_at(now);
        let before = t.ledger.memberships(&board.slug, period).await.unwrap();
        assert_eq!(before.len(), 6, "{}", t.name);

        t.ledger.migrate().await.unwrap_or_else(|e| panic!("{}: {e}", t.name));
        assert_eq!(t.ledger.memberships(&board.slug, period).await.unwrap(), before, "{}", t.name);
        let mut conn = sqlx::AnyConnection::connect(&t.url).await.unwrap();
        let (sql, shape) = match t.name {
            "sqlite" => {
                ("SELECT sql AS s FROM sqlite_master WHERE name = 'segment_members'", "WITHOUT ROWID")
            }
            _ => (
                "SELECT indexdef AS s FROM pg_indexes WHERE indexname = 'segment_members_by_value'",
                "INCLUDE (member)",
            ),
        };
        let schema: String = sqlx::query(sql).fetch_one(&mut conn).await.unwrap().get("s");
        assert!(schema.contains(shape), "{}: {schema}", t.name);
        conn.close().await.unwrap();
        t.drop_db().await;
    }
}

/// Laurel needs Redis 7.0: the test servers (standalone and every Cluster node) are 7.x or newer,
/// so they pass the check `laurel serve` makes at start and `/readyz` reports their versions.
/// (That an older version is refused, by name, is the unit test of `redis::too_old`.)
#[tokio::test]
async fn the_test_servers_are_recent_enough_and_every_node_tells_its_version() {
    for (name, target) in redis_targets() {
        let t = TestProjection::new(target);
        let versions = t.projection.versions().await.unwrap();
        assert!(!versions.is_empty(), "{name}");
        if name == "cluster" {
            assert!(versions.len() >= 3, "{name}: every master answers: {versions:?}");
        }
        for v in &versions {
            assert_eq!(engine::redis::too_old(v), None, "{name}: {v}");
        }
        assert_eq!(t.projection.version_refusal().await.unwrap(), None, "{name}");
    }
}
