//! Receipts on real stores (Redis standalone and Cluster × SQLite and PostgreSQL): a member's
//! receipt of revision 1 still verifies after revision 3, with the chain of links to it; an absent
//! member's receipt proves the absence; revisions written before migration 0023 (no stored root
//! or link) give the same receipts, and the next revision chains to them; an export carries the
//! roots and links and verifies offline.

mod common;

use common::{each_store_at, five_members};
use domain::lifecycle::Transition;
use domain::preview::PreviewChange;
use domain::receipt::{Receipt, verify_export, verify_receipt};
use domain::{Board, EventId, MemberId, TiePolicy};
use engine::{Engine, EngineError};

fn m(id: &str) -> MemberId {
    MemberId::parse(id).unwrap()
}

async fn settle(e: &Engine, b: &Board, period: &str) {
    for t in [Transition::Freeze, Transition::Settle] {
        e.lifecycle()
            .transition(&e.reads().scope(&b.slug, Some(period)).await.unwrap(), t, "admin:ann", None)
            .await
            .unwrap();
    }
}

async fn apply(e: &Engine, b: &Board, period: &str, change: PreviewChange) {
    let scope = e.reads().scope(&b.slug, Some(period)).await.unwrap();
    let preview = e.lifecycle().preview(&scope, "appeal", vec![change], "admin:ann").await.unwrap();
    let applied = e.lifecycle().apply_preview(&scope, &preview.preview_id, "admin:bob").await.unwrap();
    assert!(applied.revision.is_some(), "{applied:?}");
}

async fn receipt(e: &Engine, b: &Board, period: &str, revision: i64, member: &str) -> Receipt {
    let scope = e.reads().scope(&b.slug, Some(period)).await.unwrap();
    let r = e.receipts().receipt(&scope, revision, &m(member)).await.unwrap();
    let report = verify_receipt(&r);
    assert!(report.ok(), "{member} in revision {revision}: {report:?}");
    r
}

fn revisions(r: &Receipt) -> Vec<i64> {
    r.chain.iter().map(|c| c.revision).collect()
}

#[tokio::test]
async fn a_receipt_of_revision_1_still_verifies_after_revision_3_with_the_chain() {
    each_store_at(async |name, e, _, url| {
        let (b, period) = five_members(e, "rc", TiePolicy::Shared).await;
        settle(e, &b, &period).await;
        // u1 50 gold; u2 and u3 30 silver (rank 2); u4 25; u5 5.
        let first = receipt(e, &b, &period, 1, "u2").await;
        let leaf = first.inclusion.clone().unwrap().leaf;
        assert_eq!((leaf.rank, leaf.points, leaf.prize.as_deref()), (2, 30, Some("silver")), "{name}");
        assert_eq!(revisions(&first), [1], "{name}");
        assert_eq!(first.leaves, 5, "{name}");
        let settlement =
            e.lifecycle().settlement(&e.reads().scope(&b.slug, Some(&period)).await.unwrap()).await.unwrap();
        assert_eq!(first.digest, settlement.digest, "{name}: the receipt names the settlement's digest");

        apply(e, &b, &period, PreviewChange::Correct { member: m("u5"), delta: 40 }).await;
        apply(e, &b, &period, PreviewChange::Revoke(EventId::parse("e1").unwrap())).await;
        let later = receipt(e, &b, &period, 1, "u2").await;
        assert_eq!(revisions(&later), [1, 2, 3], "{name}");
        assert_eq!(
            (&later.inclusion, &later.root, &later.chain[0]),
            (&first.inclusion, &first.root, &first.chain[0]),
            "{name}"
        );
        let latest = receipt(e, &b, &period, 3, "u2").await;
        assert_eq!(latest.chain, later.chain[2..], "{name}: both end in revision 3's link");
        // Revision 3: u5 45, u2 and u3 30, u4 25, u1 0.
        let leaf = latest.inclusion.clone().unwrap().leaf;
        assert_eq!((leaf.rank, leaf.points), (2, 30), "{name}");

        // A member without a standing gets the proof of its absence; an unknown revision is not found.
        let absent = receipt(e, &b, &period, 2, "u0").await;
        assert!(absent.inclusion.is_none() && absent.absence.as_ref().unwrap().after.is_some(), "{name}");
        let scope = e.reads().scope(&b.slug, Some(&period)).await.unwrap();
        assert!(
            matches!(e.receipts().receipt(&scope, 4, &m("u2")).await, Err(EngineError::NotFound { .. })),
            "{name}"
        );

        // The export carries each revision's root and link, and verifies offline.
        let export = e.transfer().export_period(&scope).await.unwrap();
        assert_eq!(export.settlement.merkle_root.as_ref(), Some(&latest.root), "{name}");
        assert_eq!(export.settlement.link.as_ref(), Some(&latest.chain[0].link), "{name}");
        let report = verify_export(&serde_json::to_value(&export).unwrap());
        assert!(report.ok(), "{name}: {report:?}");

        // Revisions written before migration 0023 stored neither root nor link: a fresh process
        // computes them from the standings, the same receipts come out, and the next revision
        // chains to the computed link.
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(url).await.unwrap();
        sqlx::query("UPDATE settlements SET merkle_root = NULL, link = NULL WHERE board = $1")
            .bind(b.slug.as_str())
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::Connection::close(conn).await.unwrap();
        let fresh = Engine::from_parts(e.ledger().clone(), e.projection().clone());
        assert_eq!(receipt(&fresh, &b, &period, 1, "u2").await, later, "{name}");
        apply(&fresh, &b, &period, PreviewChange::Hide(m("u4"))).await;
        let fourth = receipt(&fresh, &b, &period, 1, "u2").await;
        assert_eq!(revisions(&fourth), [1, 2, 3, 4], "{name}");
        assert_eq!(fourth.chain[..3], later.chain[..], "{name}");
        let hidden = receipt(&fresh, &b, &period, 4, "u4").await;
        assert!(hidden.absence.is_some(), "{name}: a hidden member has no standing");
        let scope = fresh.reads().scope(&b.slug, Some(&period)).await.unwrap();
        let report = verify_export(
            &serde_json::to_value(fresh.transfer().export_period(&scope).await.unwrap()).unwrap(),
        );
        assert!(report.ok(), "{name}: {report:?}");
    })
    .await;
}
