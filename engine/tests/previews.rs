//! Previews on real stores (Redis standalone and Cluster × SQLite and PostgreSQL): a preview
//! answers what its changes would do — moves, shifted members, prizes, the digest after — and
//! writes nothing but its draft: every other ledger table, the board's Redis keys and the audit
//! trail are byte for byte the same afterwards. What it predicts is what making the changes does.
//!
//! Every ledger table is dumped and every Redis key under the prefix `DUMP`ed around a preview;
//! refused changes store nothing; a settled period's `digest_after` equals the settlement's
//! digest of the same totals; under `first_reached` the predicted ranks are those the changes
//! settle to when made. On forty members tied on five point values, a settled period's preview
//! (stored standings) answers what the frozen period's (in memory) did, under both tie policies,
//! and its digest is revision 2's.

mod common;

use common::{TestProjection, each_store_at, expected_digest, five_members, point};
use domain::lifecycle::Transition;
use domain::preview::{Move, PreviewChange};
use domain::write::Outcome;
use domain::{EventId, MemberId, TiePolicy};
use engine::EngineError;
use sqlx::{Connection, Row};

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

fn ev(id: &str) -> EventId {
    EventId::parse(id).unwrap()
}

/// Every row of every ledger table but `previews` (and PostgreSQL's sequences), as text, sorted.
async fn ledger_rows(url: &str) -> Vec<String> {
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    let postgres = url.starts_with("postgres");
    let tables_sql = if postgres {
        "SELECT tablename::text AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
    } else {
        "SELECT name AS t FROM sqlite_master WHERE type = 'table' ORDER BY 1"
    };
    let tables: Vec<String> = sqlx::query(tables_sql)
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| r.try_get("t").unwrap())
        .filter(|t: &String| t != "previews")
        .collect();
    assert!(tables.iter().any(|t| t == "audit") && tables.len() > 15, "{tables:?}");
    let mut rows = Vec::new();
    for table in tables {
        let sql = if postgres {
            format!("SELECT row_to_json(x)::text AS r FROM \"{table}\" x")
        } else {
            let columns: Vec<String> = sqlx::query(&format!("SELECT name FROM pragma_table_info('{table}')"))
                .fetch_all(&mut conn)
                .await
                .unwrap()
                .iter()
                .map(|r| format!("quote(\"{}\")", r.try_get::<String, _>("name").unwrap()))
                .collect();
            // quote() writes every value exactly, blobs (migration checksums) included.
            format!("SELECT {} AS r FROM \"{table}\"", columns.join(" || ',' || "))
        };
        for r in sqlx::query(&sql).fetch_all(&mut conn).await.unwrap() {
            rows.push(format!("{table}: {}", r.try_get::<String, _>("r").unwrap()));
        }
    }
    if postgres {
        let seqs = "SELECT sequencename::text || ' ' || COALESCE(last_value, 0) AS r FROM pg_sequences \
                    WHERE schemaname = 'public' AND sequencename NOT LIKE 'previews%'";
        for r in sqlx::query(seqs).fetch_all(&mut conn).await.unwrap() {
            rows.push(format!("sequence: {}", r.try_get::<String, _>("r").unwrap()));
        }
    }
    conn.close().await.unwrap();
    rows.sort();
    rows
}

/// Every key under the test's prefix with its DUMP bytes and whether it expires.
async fn redis_keys(p: &TestProjection) -> Vec<(String, Vec<u8>, bool)> {
    let mut out = Vec::new();
    for (node, key) in p.keys().await {
        let mut conn =
            redis::Client::open(node.as_str()).unwrap().get_multiplexed_async_connection().await.unwrap();
        let dump: Vec<u8> = redis::cmd("DUMP").arg(&key).query_async(&mut conn).await.unwrap();
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut conn).await.unwrap();
        out.push((key, dump, ttl >= 0));
    }
    out.sort();
    assert!(!out.is_empty(), "the board has keys to compare");
    out
}

async fn drafts(url: &str) -> i64 {
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    let n =
        sqlx::query("SELECT COUNT(*) AS n FROM previews").fetch_one(&mut conn).await.unwrap().try_get("n");
    conn.close().await.unwrap();
    n.unwrap()
}

fn mv(member: &str, points: (Option<i64>, Option<i64>), rank: (Option<u64>, Option<u64>)) -> Move {
    Move {
        member: m(member),
        points_before: points.0,
        points_after: points.1,
        rank_before: rank.0,
        rank_after: rank.1,
    }
}

#[tokio::test]
async fn a_preview_answers_the_changes_and_writes_nothing_but_its_draft() {
    each_store_at(async |name, e, p, url| {
        let (b, period) = five_members(e, "pv", TiePolicy::Shared).await;
        let (rows, keys) = (ledger_rows(url).await, redis_keys(p).await);
        let changes = vec![
            PreviewChange::Correct { member: m("u5"), delta: 40 },
            PreviewChange::Revoke(ev("e1")),
            PreviewChange::Hide(m("u2")),
        ];
        let before = jiff::Timestamp::now();
        let got = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "check the appeal",
                changes.clone(),
                "admin:ann",
            )
            .await
            .unwrap();

        // After: u5 45 (gold), u3 30 and u4 25 (silver), u1 0; u2 hidden.
        assert_eq!(
            got.moves,
            vec![
                mv("u5", (Some(5), Some(45)), (Some(5), Some(1))),
                mv("u1", (Some(50), Some(0)), (Some(1), Some(4))),
                mv("u2", (Some(30), Some(30)), (Some(2), None)),
            ],
            "{name}"
        );
        assert_eq!(got.shifted, 1, "{name}");
        assert_eq!(got.shifted_members, vec![mv("u4", (Some(25), Some(25)), (Some(4), Some(3)))], "{name}");
        let prizes: Vec<_> =
            got.prizes.iter().map(|c| (c.member.as_str(), c.before.as_deref(), c.after.as_deref())).collect();
        assert_eq!(
            prizes,
            vec![
                ("u5", None, Some("gold")),
                ("u4", None, Some("silver")),
                ("u1", Some("gold"), None),
                ("u2", Some("silver"), None)
            ],
            "{name}"
        );
        assert_eq!(
            (got.state, got.digest_after.as_deref(), got.based_on.revision),
            ("open", None, None),
            "{name}"
        );

        // Nothing but the draft was written.
        assert_eq!(ledger_rows(url).await, rows, "{name}: ledger");
        assert_eq!(redis_keys(p).await, keys, "{name}: redis");
        assert_eq!(drafts(url).await, 1, "{name}");
        let draft = e
            .lifecycle()
            .preview_draft(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &got.preview_id)
            .await
            .unwrap();
        assert_eq!(
            (draft.changes, draft.status.as_str(), draft.actor.as_str()),
            (changes, "draft", "admin:ann"),
            "{name}"
        );
        assert_eq!(draft.reason, "check the appeal", "{name}");
        assert_eq!(draft.watermark, got.based_on.watermark, "{name}");
        assert_eq!(got.expires_at, draft.expires_at, "{name}");
        let ttl = draft.expires_at.duration_since(before);
        assert!(
            ttl >= jiff::SignedDuration::from_mins(15) && ttl < jiff::SignedDuration::from_mins(16),
            "{name}: {ttl:?}"
        );

        // The watermark holds until the period's standings may change, and moves when they do.
        let key = domain::PeriodKey::parse_for(b.cadence, &period).unwrap();
        assert_eq!(e.ledger().preview_watermark(&b.slug, &key).await.unwrap(), got.based_on.watermark);
        e.writes().record(&b, &[point("e7", "u3", 1)]).await.unwrap();
        let moved = e.ledger().preview_watermark(&b.slug, &key).await.unwrap();
        assert_ne!(moved, got.based_on.watermark, "{name}: a write moves the watermark");
        e.lifecycle()
            .hide_member(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &m("u3"),
                "admin:ann",
                "dup",
            )
            .await
            .unwrap();
        assert_ne!(
            e.ledger().preview_watermark(&b.slug, &key).await.unwrap(),
            moved,
            "{name}: so does a hide"
        );

        // Cancelling closes the draft, once.
        let cancelled = e
            .lifecycle()
            .cancel_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &got.preview_id,
                "admin:bob",
            )
            .await
            .unwrap();
        assert_eq!(cancelled.status, "cancelled", "{name}");
        assert_eq!(
            e.lifecycle()
                .cancel_preview(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    &got.preview_id,
                    "admin:bob"
                )
                .await
                .unwrap()
                .status,
            "cancelled"
        );
        assert!(matches!(
            e.lifecycle()
                .cancel_preview(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    "pv_nope",
                    "admin:bob"
                )
                .await,
            Err(EngineError::NotFound { .. })
        ));
    })
    .await;
}

#[tokio::test]
async fn a_change_that_could_not_be_made_is_refused_and_nothing_is_stored() {
    each_store_at(async |name, e, p, url| {
        let (b, period) = five_members(e, "pv", TiePolicy::Shared).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        // Two late writes: one rejected, one pending.
        let late = e.writes().record(&b, &[point("l1", "u5", 100), point("l2", "u5", 7)]).await.unwrap();
        assert!(late.iter().all(|r| r.recorded.outcome == Outcome::Late), "{late:?}");
        let ids: Vec<i64> = e
            .lifecycle()
            .late_entries(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), None)
            .await
            .unwrap()
            .iter()
            .map(|l| l.id)
            .collect();
        e.lifecycle()
            .decide_late(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                ids[0],
                false,
                "admin:ann",
                Some("spam"),
            )
            .await
            .unwrap();
        e.lifecycle().revoke(&b.slug, &ev("e5"), "admin:ann", "dup").await.unwrap();
        let (rows, keys) = (ledger_rows(url).await, redis_keys(p).await);

        let preview = async |changes: Vec<PreviewChange>| {
            e.lifecycle()
                .preview(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "why", changes, "admin:ann")
                .await
        };
        let invalid = |r: Result<_, EngineError>, what: &str| match r {
            Err(EngineError::Invalid(reason)) => assert!(reason.contains(what), "{name}: {reason}"),
            other => panic!("{name}: expected Invalid({what}), got {other:?}"),
        };
        let not_found = |r: Result<_, EngineError>| {
            assert!(matches!(r, Err(EngineError::NotFound { .. })), "{name}: {r:?}")
        };
        not_found(preview(vec![PreviewChange::Revoke(ev("nope"))]).await);
        not_found(preview(vec![PreviewChange::AcceptLate(999_999)]).await);
        not_found(preview(vec![PreviewChange::Hide(m("nobody"))]).await);
        invalid(preview(vec![PreviewChange::AcceptLate(ids[0])]).await, "is rejected, not pending");
        invalid(
            preview(vec![PreviewChange::RejectLate(ids[1]), PreviewChange::AcceptLate(ids[1])]).await,
            "decided twice",
        );
        invalid(preview(vec![PreviewChange::Revoke(ev("e5"))]).await, "already revoked");
        invalid(
            preview(vec![PreviewChange::Revoke(ev("e2")), PreviewChange::Revoke(ev("e2"))]).await,
            "change 2",
        );
        invalid(preview(vec![PreviewChange::Unhide(m("u1"))]).await, "already visible");
        invalid(
            preview(vec![PreviewChange::Correct { member: m("u1"), delta: 999_990 }]).await,
            "would be rejected",
        );
        invalid(preview(vec![PreviewChange::RevokeMember(m("u5"))]).await, "no entry that counts");
        invalid(preview(vec![]).await, "changes");
        invalid(
            e.lifecycle()
                .preview(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    " ",
                    vec![PreviewChange::Hide(m("u1"))],
                    "admin:ann",
                )
                .await,
            "reason",
        );
        assert_eq!(drafts(url).await, 0, "{name}");
        assert_eq!(ledger_rows(url).await, rows, "{name}: ledger");
        assert_eq!(redis_keys(p).await, keys, "{name}: redis");

        // The pending one can be previewed: accepting it puts u5 (0 after the revoke) at 7.
        let got = preview(vec![PreviewChange::AcceptLate(ids[1])]).await.unwrap();
        assert_eq!(got.moves, vec![mv("u5", (Some(0), Some(7)), (Some(5), Some(5)))], "{name}");
        assert_eq!(got.state, "frozen", "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_settled_period_previews_the_digest_its_new_standings_would_have() {
    each_store_at(async |name, e, p, url| {
        let (b, period) = five_members(e, "pv", TiePolicy::Shared).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let settled =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        let (rows, keys) = (ledger_rows(url).await, redis_keys(p).await);

        // A change that moves nobody: the digest the settlement has.
        let same = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "no-op",
                vec![PreviewChange::Correct { member: m("u2"), delta: 0 }],
                "admin:ann",
            )
            .await
            .unwrap();
        assert!(same.moves.is_empty() && same.prizes.is_empty() && same.shifted == 0, "{name}: {same:?}");
        assert_eq!(same.digest_after.as_deref(), Some(settled.digest.as_str()), "{name}");
        assert_eq!(same.based_on.revision, Some(1), "{name}");

        // Every entry of u4 revoked: u4 at 0, the settlement's own digest of those totals.
        let got = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "cheat",
                vec![PreviewChange::RevokeMember(m("u4"))],
                "admin:ann",
            )
            .await
            .unwrap();
        assert_eq!(got.moves, vec![mv("u4", (Some(25), Some(0)), (Some(4), Some(5)))], "{name}");
        assert_eq!(got.shifted_members, vec![mv("u5", (Some(5), Some(5)), (Some(5), Some(4)))], "{name}");
        let expected =
            expected_digest(&b, &period, &[("u1", 50), ("u2", 30), ("u3", 30), ("u4", 0), ("u5", 5)]);
        assert_eq!(got.digest_after.as_deref(), Some(expected.as_str()), "{name}");
        assert_ne!(expected, settled.digest, "{name}");
        assert_eq!(ledger_rows(url).await, rows, "{name}: ledger");
        assert_eq!(redis_keys(p).await, keys, "{name}: redis");
        assert_eq!(drafts(url).await, 2, "{name}");
    })
    .await;
}

/// What a preview predicts under `first_reached` (reach sequences moved by corrections and
/// revokes) is what the settlement of the changes made for real records.
#[tokio::test]
async fn a_preview_predicts_the_standings_of_the_changes_made() {
    each_store_at(async |name, e, _, _| {
        let (b, period) = five_members(e, "pv", TiePolicy::FirstReached).await;
        let changes = vec![
            // u5 reaches 30 last: behind u2 and u3.
            PreviewChange::Correct { member: m("u5"), delta: 25 },
            // u4 back to 10, reached at e4's sequence: ahead of nobody new.
            PreviewChange::Revoke(ev("e6")),
            // u2 loses its 30 and regains it: now after u5.
            PreviewChange::Correct { member: m("u2"), delta: -1 },
            PreviewChange::Correct { member: m("u2"), delta: 1 },
        ];
        let got = e
            .lifecycle()
            .preview(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "appeal", changes, "admin:ann")
            .await
            .unwrap();
        e.lifecycle()
            .correct(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &correction("u5", 25),
                "admin:ann",
            )
            .await
            .unwrap();
        e.lifecycle().revoke(&b.slug, &ev("e6"), "admin:ann", "appeal").await.unwrap();
        e.lifecycle()
            .correct(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &correction("u2", -1),
                "admin:ann",
            )
            .await
            .unwrap();
        e.lifecycle()
            .correct(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &correction("u2", 1),
                "admin:ann",
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Freeze,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Settle,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let settled =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        let rank_of =
            |member: &MemberId| settled.standings.iter().find(|s| &s.member == member).map(|s| s.rank);
        assert_eq!(
            settled.standings.iter().map(|s| s.member.as_str()).collect::<Vec<_>>(),
            ["u1", "u3", "u5", "u2", "u4"],
            "{name}"
        );
        for moved in got.moves.iter().chain(&got.shifted_members) {
            assert_eq!(moved.rank_after, rank_of(&moved.member), "{name}: {moved:?}");
        }
        let listed: Vec<&str> =
            got.moves.iter().chain(&got.shifted_members).map(|m| m.member.as_str()).collect();
        assert_eq!(listed, ["u5", "u4", "u2", "u3"], "{name}: u1 keeps its rank, u3 only shifts");
    })
    .await;
}

fn correction(member: &str, delta: i64) -> engine::lifecycle::Correction {
    engine::lifecycle::Correction { member: m(member), delta, correction_id: None, reason: "appeal".into() }
}

/// A settled period's preview compares with the stored standings, read only where it looks; a
/// frozen one's with its totals ranked in memory. On the same totals — forty members on five
/// point values, so every change lands in a tie — both answer the same, under either tie policy,
/// and the settled one's digest is what the re-settlement records.
#[tokio::test]
async fn a_settled_preview_reads_the_stored_standings_and_answers_as_the_frozen_one() {
    common::each_store(async |name, e, _| {
        for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
            let b = common::prized_board("pvst", policy, 60);
            e.boards().create_board(&b).await.unwrap();
            let writes: Vec<_> = (0..40)
                .map(|i| point(&format!("e{i}"), &format!("u{i}"), ((i * 7) % 5) as i64 * 10 + 10))
                .collect();
            e.writes().record(&b, &writes).await.unwrap();
            let period = b.period_at(jiff::Timestamp::now()).to_string();
            let changes = vec![
                PreviewChange::Correct { member: m("u3"), delta: 20 },
                PreviewChange::Revoke(ev("e10")),
                PreviewChange::Hide(m("u7")),
                PreviewChange::RevokeMember(m("u12")),
                PreviewChange::Correct { member: m("u20"), delta: -10 },
                PreviewChange::Correct { member: m("u31"), delta: 30 },
            ];
            e.lifecycle()
                .transition(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    Transition::Freeze,
                    "admin:ann",
                    None,
                )
                .await
                .unwrap();
            let frozen = e
                .lifecycle()
                .preview(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    "check",
                    changes.clone(),
                    "admin:ann",
                )
                .await
                .unwrap();
            e.lifecycle()
                .transition(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    Transition::Settle,
                    "admin:ann",
                    None,
                )
                .await
                .unwrap();
            let settled = e
                .lifecycle()
                .preview(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    "check",
                    changes,
                    "admin:ann",
                )
                .await
                .unwrap();
            let at = format!("{name} {policy:?}");
            assert_eq!(settled.moves, frozen.moves, "{at}");
            assert!(settled.moves.len() >= 5, "{at}: {:?}", settled.moves);
            assert_eq!(
                (settled.shifted, &settled.shifted_members),
                (frozen.shifted, &frozen.shifted_members),
                "{at}"
            );
            assert!(settled.shifted > 0, "{at}");
            assert_eq!(settled.prizes, frozen.prizes, "{at}");
            assert_eq!((frozen.digest_after.as_ref(), frozen.digest_pending), (None, false), "{at}");
            assert!(!settled.digest_pending, "{at}: 40 members are digested in the answer");
            let draft = e
                .lifecycle()
                .preview_draft(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &settled.preview_id)
                .await
                .unwrap();
            assert_eq!(draft.digest_after, settled.digest_after, "{at}: the draft keeps it");
            e.lifecycle()
                .apply_preview(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    &settled.preview_id,
                    "admin:bob",
                )
                .await
                .unwrap();
            let revision = e
                .lifecycle()
                .settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap())
                .await
                .unwrap();
            assert_eq!((revision.revision, Some(revision.digest)), (2, settled.digest_after), "{at}");
        }
    })
    .await;
}
