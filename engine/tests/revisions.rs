//! Applying previews on real stores (Redis standalone and Cluster × SQLite and PostgreSQL): an
//! apply makes exactly the draft's changes, once, only while the period has not moved; on a
//! settled or archived period it writes the next settlement revision, chained to the one before,
//! with reward deltas only for the prizes that changed hands.

mod common;

use common::{conflict_code, each_store, each_store_at, expected_digest, five_members, point};
use domain::lifecycle::Transition;
use domain::preview::{ChangeCount, ChangeKind, PreviewChange};
use domain::view::RewardKind;
use domain::{Board, EventId, MemberId, TiePolicy};
use engine::Engine;
use engine::ledger::audit::AuditFilter;

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

fn ev(id: &str) -> EventId {
    EventId::parse(id).unwrap()
}

async fn settle(e: &Engine, b: &Board, period: &str) {
    e.lifecycle()
        .transition(
            &e.reads().scope(&b.slug, Some(period)).await.unwrap(),
            Transition::Freeze,
            "admin:ann",
            None,
        )
        .await
        .unwrap();
    e.lifecycle()
        .transition(
            &e.reads().scope(&b.slug, Some(period)).await.unwrap(),
            Transition::Settle,
            "admin:ann",
            None,
        )
        .await
        .unwrap();
}

/// The live ranking as (member, points), best first.
async fn ranking(e: &Engine, b: &Board, period: &str) -> Vec<(String, i64)> {
    let page =
        e.reads().ranking_page(&e.reads().scope(&b.slug, Some(period)).await.unwrap(), 0, 100).await.unwrap();
    page.entries.iter().map(|x| (x.member.to_string(), x.points)).collect()
}

async fn audit_actions(e: &Engine, b: &Board, action: &str) -> usize {
    let filter = AuditFilter {
        board: Some(b.slug.to_string()),
        action: Some(action.into()),
        ..AuditFilter::default()
    };
    e.lifecycle().audit(&filter, None, 500).await.unwrap().len()
}

#[tokio::test]
async fn an_apply_makes_exactly_the_previewed_changes_once() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "rv", TiePolicy::Shared).await;
        let changes = vec![
            PreviewChange::Correct { member: m("u5"), delta: 40 },
            PreviewChange::Revoke(ev("e1")),
            PreviewChange::Hide(m("u2")),
        ];
        let preview = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "appeal 7",
                changes,
                "admin:ann",
            )
            .await
            .unwrap();
        let applied = e
            .lifecycle()
            .apply_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &preview.preview_id,
                "admin:bob",
            )
            .await
            .unwrap();
        assert_eq!(
            (applied.state.as_str(), applied.changes, applied.revision.as_ref()),
            ("open", 3, None),
            "{name}"
        );
        assert_ne!(applied.watermark, preview.based_on.watermark, "{name}: the period moved");

        // The ranking is the preview's "after": u5 45, u3 30, u4 25, u1 0 (u2 hidden).
        let after = ranking(e, &b, &period).await;
        let expected = [("u5", 45), ("u3", 30), ("u4", 25), ("u1", 0)].map(|(x, p)| (x.to_owned(), p));
        assert_eq!(after, expected, "{name}");
        for mv in &preview.moves {
            let now = after.iter().position(|(x, _)| x == mv.member.as_str()).map(|i| i as u64 + 1);
            assert_eq!(now, mv.rank_after, "{name}: {mv:?}");
        }
        // Each change is audited as the single route audits it, and the apply once.
        for action in ["correct", "revoke", "hide", "preview_applied"] {
            assert_eq!(audit_actions(e, &b, action).await, 1, "{name}: {action}");
        }

        // A repeat answers the same and makes nothing twice.
        let again = e
            .lifecycle()
            .apply_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &preview.preview_id,
                "admin:bob",
            )
            .await
            .unwrap();
        assert_eq!(again, applied, "{name}");
        assert_eq!(ranking(e, &b, &period).await, after, "{name}");
        assert_eq!(audit_actions(e, &b, "preview_applied").await, 1, "{name}");
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .cancel_preview(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        &preview.preview_id,
                        "admin:bob"
                    )
                    .await
            ),
            "preview_applied"
        );
        assert_eq!(
            e.lifecycle()
                .preview_draft(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &preview.preview_id)
                .await
                .unwrap()
                .status,
            "applied",
            "{name}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_stale_cancelled_or_expired_preview_changes_nothing() {
    each_store_at(async |name, e, _, url| {
        let (b, period) = five_members(e, "rv", TiePolicy::Shared).await;
        let hide = |x: &str| vec![PreviewChange::Hide(m(x))];
        let stale = e
            .lifecycle()
            .preview(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "r", hide("u1"), "admin:ann")
            .await
            .unwrap();
        e.writes().record(&b, &[point("e7", "u3", 1)]).await.unwrap();
        let before = ranking(e, &b, &period).await;
        match e
            .lifecycle()
            .apply_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &stale.preview_id,
                "admin:ann",
            )
            .await
        {
            Err(engine::EngineError::Refused { code: domain::ErrorCode::PreviewStale, detail }) => {
                let now = e.ledger().preview_watermark(&b.slug, &key(&b, &period)).await.unwrap();
                assert!(
                    detail.contains(&now) && detail.contains(&stale.based_on.watermark),
                    "{name}: {detail}"
                );
            }
            other => panic!("{name}: expected preview_stale, got {other:?}"),
        }
        assert_eq!(
            e.lifecycle()
                .preview_draft(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), &stale.preview_id)
                .await
                .unwrap()
                .status,
            "draft",
            "{name}"
        );

        let cancelled = e
            .lifecycle()
            .preview(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "r", hide("u1"), "admin:ann")
            .await
            .unwrap();
        e.lifecycle()
            .cancel_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &cancelled.preview_id,
                "admin:ann",
            )
            .await
            .unwrap();
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .apply_preview(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        &cancelled.preview_id,
                        "admin:ann"
                    )
                    .await
            ),
            "preview_cancelled"
        );

        let expired = e
            .lifecycle()
            .preview(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "r", hide("u1"), "admin:ann")
            .await
            .unwrap();
        let past = jiff::Timestamp::now().as_microsecond() - 1;
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(url).await.unwrap();
        sqlx::query("UPDATE previews SET expires_at = $1 WHERE id = $2")
            .bind(past)
            .bind(&expired.preview_id)
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::Connection::close(conn).await.unwrap();
        assert_eq!(
            conflict_code(
                e.lifecycle()
                    .apply_preview(
                        &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                        &expired.preview_id,
                        "admin:ann"
                    )
                    .await
            ),
            "preview_expired"
        );
        assert!(matches!(
            e.lifecycle()
                .apply_preview(
                    &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                    "pv_nope",
                    "admin:ann"
                )
                .await,
            Err(engine::EngineError::NotFound { .. })
        ));
        assert_eq!(ranking(e, &b, &period).await, before, "{name}");
        assert_eq!(audit_actions(e, &b, "hide").await, 0, "{name}");
    })
    .await;
}

fn key(b: &Board, period: &str) -> domain::PeriodKey {
    domain::PeriodKey::parse_for(b.cadence, period).unwrap()
}

#[tokio::test]
async fn of_two_concurrent_applies_one_wins_and_the_other_is_stale() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "rv", TiePolicy::Shared).await;
        let one = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "r",
                vec![PreviewChange::Correct { member: m("u5"), delta: 1 }],
                "a",
            )
            .await
            .unwrap();
        let two = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "r",
                vec![PreviewChange::Correct { member: m("u4"), delta: 1 }],
                "a",
            )
            .await
            .unwrap();
        assert_eq!(one.based_on, two.based_on, "{name}");
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        let (a, c) = tokio::join!(
            e.lifecycle().apply_preview(&scope, &one.preview_id, "admin:ann"),
            e.lifecycle().apply_preview(&scope, &two.preview_id, "admin:bob")
        );
        let codes = [&a, &c].map(|r| match r {
            Ok(_) => "applied",
            Err(engine::EngineError::Refused { code, .. }) => code.as_str(),
            Err(other) => panic!("{name}: {other:?}"),
        });
        let mut sorted = codes;
        sorted.sort_unstable();
        assert_eq!(sorted, ["applied", "preview_stale"], "{name}");
        assert_eq!(audit_actions(e, &b, "correct").await, 1, "{name}");

        // The same draft applied twice at once: both get the one answer, one correction.
        let three = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "r",
                vec![PreviewChange::Correct { member: m("u3"), delta: 2 }],
                "a",
            )
            .await
            .unwrap();
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        let (x, y) = tokio::join!(
            e.lifecycle().apply_preview(&scope, &three.preview_id, "admin:ann"),
            e.lifecycle().apply_preview(&scope, &three.preview_id, "admin:ann")
        );
        assert_eq!(x.unwrap(), y.unwrap(), "{name}");
        assert_eq!(audit_actions(e, &b, "correct").await, 2, "{name}");
        let u3 = ranking(e, &b, &period).await.into_iter().find(|(x, _)| x == "u3").unwrap().1;
        assert_eq!(u3, 32, "{name}");
    })
    .await;
}

#[tokio::test]
async fn revoking_the_winner_after_settlement_writes_revision_two_with_reward_deltas() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "rv", TiePolicy::Shared).await;
        settle(e, &b, &period).await;
        let first =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        // Single-change routes stay refused on a settled period.
        assert_eq!(
            conflict_code(e.lifecycle().revoke(&b.slug, &ev("e1"), "admin:ann", "cheat").await),
            "period_settled"
        );

        let changes = vec![PreviewChange::Revoke(ev("e1"))];
        let preview = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "u1 cheated",
                changes,
                "admin:ann",
            )
            .await
            .unwrap();
        let applied = e
            .lifecycle()
            .apply_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &preview.preview_id,
                "admin:bob",
            )
            .await
            .unwrap();
        let revision = applied.revision.clone().expect("a settled period is re-settled");
        assert_eq!((applied.state.as_str(), revision.revision), ("settled", 2), "{name}");
        assert_eq!(revision.previous_digest, first.digest, "{name}: the chain");
        assert_eq!(Some(revision.digest.as_str()), preview.digest_after.as_deref(), "{name}: as previewed");
        let expected =
            expected_digest(&b, &period, &[("u1", 0), ("u2", 30), ("u3", 30), ("u4", 25), ("u5", 5)]);
        assert_eq!(revision.digest, expected, "{name}");

        // Before: u1 gold, u2 and u3 silver. After: u2 and u3 gold (tied at rank 1), u4 silver.
        let deltas: Vec<(&str, RewardKind, &str)> =
            revision.rewards.iter().map(|d| (d.member.as_str(), d.kind, d.prize.as_str())).collect();
        assert_eq!(
            deltas,
            vec![
                ("u1", RewardKind::Revoke, "gold"),
                ("u2", RewardKind::Revoke, "silver"),
                ("u2", RewardKind::Grant, "gold"),
                ("u3", RewardKind::Revoke, "silver"),
                ("u3", RewardKind::Grant, "gold"),
                ("u4", RewardKind::Grant, "silver"),
            ],
            "{name}"
        );
        let slug = b.slug.as_str();
        let u1 = &revision.rewards[0];
        assert_eq!(u1.idempotency_key, format!("laurel:{slug}:{period}:2:u1:revoke"), "{name}");
        assert_eq!(
            u1.compensates.as_deref(),
            Some(format!("laurel:{slug}:{period}:1:u1").as_str()),
            "{name}"
        );
        assert_eq!(revision.rewards[2].idempotency_key, format!("laurel:{slug}:{period}:2:u2"), "{name}");

        // The outbox holds the first settlement's three grants and these six rows.
        let rewards = e.rewards().of(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        assert_eq!(rewards.len(), 9, "{name}");
        assert_eq!(
            rewards.iter().filter(|r| r.revision == 2 && r.kind == RewardKind::Revoke).count(),
            3,
            "{name}"
        );

        // Both revisions stay readable; the latest is the settlement.
        let latest =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        assert_eq!((latest.revision, latest.digest.as_str()), (2, revision.digest.as_str()), "{name}");
        assert_eq!(latest.previous_digest.as_deref(), Some(first.digest.as_str()), "{name}");
        assert_eq!(latest.reason.as_deref(), Some("u1 cheated"), "{name}");
        let old = e
            .lifecycle()
            .settlement_revision(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(1), 0, 100)
            .await
            .unwrap();
        assert_eq!((old.digest, old.standings), (first.digest.clone(), first.standings.clone()), "{name}");
        let listed =
            e.lifecycle().settlements(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        let chain: Vec<(i64, Option<&str>)> =
            listed.iter().map(|s| (s.revision, s.previous_digest.as_deref())).collect();
        assert_eq!(chain, vec![(1, None), (2, Some(first.digest.as_str()))], "{name}");
        assert_eq!(listed[1].preview_id.as_deref(), Some(preview.preview_id.as_str()), "{name}");
        assert!(matches!(
            e.lifecycle()
                .settlement_revision(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(3), 0, 100)
                .await,
            Err(engine::EngineError::NotFound { .. })
        ));

        // The live board of the settled period shows the new totals.
        assert_eq!(ranking(e, &b, &period).await[0].1, 30, "{name}");
        for action in ["revoke", "resettle", "preview_applied"] {
            assert_eq!(audit_actions(e, &b, action).await, 1, "{name}: {action}");
        }
        assert_eq!(audit_actions(e, &b, "reward_compensated").await, 4, "{name}");

        // Contestants read what each revision changed and why, and a member its rank in each.
        let notes = e
            .lifecycle()
            .revision_notes(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), None)
            .await
            .unwrap();
        let said: Vec<_> =
            notes.iter().map(|n| (n.revision, n.changes.clone(), n.reason.as_deref())).collect();
        let revoked = vec![ChangeCount { kind: ChangeKind::Revoke, count: 1 }];
        assert_eq!(said, vec![(1, None, None), (2, Some(revoked), Some("u1 cheated"))], "{name}");
        let u2 = e
            .lifecycle()
            .revision_notes(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(&m("u2")))
            .await
            .unwrap();
        let ranks: Vec<Option<u64>> = u2.iter().map(|n| n.standing.as_ref().map(|s| s.rank)).collect();
        assert_eq!(ranks, vec![Some(2), Some(1)], "{name}");
        let nobody = e
            .lifecycle()
            .revision_notes(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), Some(&m("nobody")))
            .await
            .unwrap();
        assert!(nobody.iter().all(|n| n.standing.is_none()), "{name}");

        // A change that moves no prize writes a revision and no reward.
        let small = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "typo",
                vec![PreviewChange::Correct { member: m("u5"), delta: 1 }],
                "admin:ann",
            )
            .await
            .unwrap();
        let third = e
            .lifecycle()
            .apply_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &small.preview_id,
                "admin:ann",
            )
            .await
            .unwrap()
            .revision
            .unwrap();
        assert_eq!((third.revision, third.rewards.len()), (3, 0), "{name}");
        assert_eq!(third.previous_digest, revision.digest, "{name}");
        assert_eq!(
            e.rewards().of(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap().len(),
            9,
            "{name}"
        );
    })
    .await;
}

#[tokio::test]
async fn an_archived_period_is_re_settled_without_bringing_its_keys_back() {
    each_store(async |name, e, p| {
        let (b, period) = five_members(e, "rv", TiePolicy::Shared).await;
        settle(e, &b, &period).await;
        e.lifecycle()
            .transition(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                Transition::Archive,
                "admin:ann",
                None,
            )
            .await
            .unwrap();
        let keys = p.keys().await.len();
        let changes = vec![PreviewChange::RevokeMember(m("u1"))];
        let preview = e
            .lifecycle()
            .preview(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), "cheat", changes, "admin:ann")
            .await
            .unwrap();
        let applied = e
            .lifecycle()
            .apply_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &preview.preview_id,
                "admin:ann",
            )
            .await
            .unwrap();
        assert_eq!(
            (applied.state.as_str(), applied.revision.map(|r| r.revision)),
            ("archived", Some(2)),
            "{name}"
        );
        assert!(p.keys().await.len() <= keys, "{name}: no key written back");
        // The archived board is read from the latest standings.
        let page = e
            .reads()
            .ranking_page(&e.reads().scope(&b.slug, Some(&period)).await.unwrap(), 0, 10)
            .await
            .unwrap();
        let mut top: Vec<(&str, i64)> = page.entries.iter().map(|x| (x.member.as_str(), x.points)).collect();
        top[..2].sort_unstable();
        assert_eq!(top[..2], [("u2", 30), ("u3", 30)], "{name}: tied first, in the standings' order");
        assert_eq!(top.last(), Some(&("u1", 0)), "{name}");
    })
    .await;
}

/// The board's prize table edited after settlement applies to periods settled later: a
/// correction of the settled one keeps the table it was settled with.
#[tokio::test]
async fn a_re_settlement_keeps_the_prize_table_the_period_was_settled_with() {
    each_store(async |name, e, _| {
        let (b, period) = five_members(e, "rv", TiePolicy::Shared).await;
        settle(e, &b, &period).await;
        let platinum = vec![domain::board::Prize { from_rank: 1, to_rank: 5, prize: "platinum".into() }];
        let settings = domain::board::BoardSettings::check(&b.title, Some(60), None, platinum, None).unwrap();
        e.boards().edit_board(&b.slug, &settings, "admin:ann").await.unwrap();

        let changes = vec![PreviewChange::Revoke(ev("e1"))];
        let preview = e
            .lifecycle()
            .preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                "u1 cheated",
                changes,
                "admin:ann",
            )
            .await
            .unwrap();
        let mut prizes: Vec<(&str, Option<&str>, Option<&str>)> = preview
            .prizes
            .iter()
            .map(|p| (p.member.as_str(), p.before.as_deref(), p.after.as_deref()))
            .collect();
        prizes.sort_unstable();
        // Gold and silver still: u1 loses its gold, u2 and u3 tie for gold, u4 silver.
        assert_eq!(
            prizes,
            vec![
                ("u1", Some("gold"), None),
                ("u2", Some("silver"), Some("gold")),
                ("u3", Some("silver"), Some("gold")),
                ("u4", None, Some("silver"))
            ],
            "{name}"
        );
        let applied = e
            .lifecycle()
            .apply_preview(
                &e.reads().scope(&b.slug, Some(&period)).await.unwrap(),
                &preview.preview_id,
                "admin:ann",
            )
            .await
            .unwrap();
        assert_eq!(applied.revision.map(|r| r.digest), preview.digest_after, "{name}");
        let latest =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        assert!(
            latest.standings.iter().all(|s| s.prize.as_deref() != Some("platinum")),
            "{name}: {latest:?}"
        );
    })
    .await;
}
