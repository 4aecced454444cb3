//! Ingest keys on both ledgers: made with limits and audited, listed by prefix only, limited per
//! key, revoked (idempotently, audited) and refused from then on.
//!
//! Keys are refused for no board, an unknown board or limits out of bounds (nothing written);
//! made with limits and an audit row naming the creator and the prefix, never the secret; limited
//! per key (the burst, then refused with the wait, counted by prefix in the metrics); revoked with
//! the reason audited, a repeat answering the same without a second row; an unknown id not found.
//! A key revoked on one instance is refused by another within a second. Two instances on one
//! Redis (standalone and Cluster) share one burst — 40 requests at once on two instances are
//! admitted up to the burst and no more — and an instance without Redis keeps its own count.

mod common;

use common::{TestLedger, TestProjection, another_instance, engine, redis_targets, unique};
use domain::apikey::KeyLimits;
use domain::board::Prize;
use domain::{Board, BoardSlug, Cadence, Operator, ScoreCodec, TiePolicy};
use engine::EngineError;
use engine::access::keys::RateLimited;
use engine::ledger::audit::AuditFilter;

fn board() -> Board {
    Board {
        slug: BoardSlug::parse(unique("k").replace('_', "-").to_lowercase()).unwrap(),
        title: "keys".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("UTC").unwrap(),
        operator: Operator::Incr,
        codec: ScoreCodec::new(TiePolicy::Shared, 0, 1000, 1).unwrap(),
        freeze_grace_seconds: 60,
        public_freeze_seconds: 0,
        keep_top: None,
        ranking_ttl_days: 7,
        segments: Vec::new(),
        segment_prizes: Default::default(),
        season: None,
        prizes: Vec::<Prize>::new(),
        unit: domain::Unit::Points,
    }
}

fn action(name: &str) -> AuditFilter {
    AuditFilter { action: Some(name.to_owned()), ..AuditFilter::default() }
}

#[tokio::test]
async fn keys_are_made_listed_by_prefix_limited_and_revoked_with_an_audit_trail() {
    for ledger in TestLedger::both().await {
        let projection = TestProjection::new(redis_targets().remove(0).1);
        let e = engine(&ledger, &projection).await;
        let name = ledger.name;
        let b = board();
        e.boards().create_board(&b).await.unwrap();
        let slow = KeyLimits { rate_per_second: 1, burst: 2 };

        // Refused: no board, an unknown board, limits out of bounds. Nothing is written.
        let unknown = BoardSlug::parse("no-such-board").unwrap();
        for (boards, limits, words) in [
            (vec![], slow, "at least one board"),
            (vec![b.slug.clone(), unknown], slow, "board no-such-board does not exist"),
            (vec![b.slug.clone()], KeyLimits { rate_per_second: 0, burst: 2 }, "rate_per_second"),
            (vec![b.slug.clone()], KeyLimits { rate_per_second: 5, burst: 20_001 }, "burst"),
        ] {
            match e.access().issue_api_key(&boards, limits, "admin:ann").await {
                Err(EngineError::Invalid(reason)) => assert!(reason.contains(words), "{name}: {reason}"),
                other => panic!("{name}: {words}: {other:?}"),
            }
        }
        assert!(e.access().api_keys().await.unwrap().is_empty(), "{name}");
        assert!(e.lifecycle().audit(&action("apikey_create"), None, 10).await.unwrap().is_empty(), "{name}");

        // A board named twice is one board.
        let issued =
            e.access().issue_api_key(&[b.slug.clone(), b.slug.clone()], slow, "admin:ann").await.unwrap();
        let key = issued.key.clone();
        assert!(key.starts_with("laurel_ik_") && key.len() > 40, "{name}: {key}");
        assert_eq!(issued.view.prefix, key[..16], "{name}");
        assert_eq!(issued.view.boards, vec![b.slug.to_string()], "{name}");
        assert_eq!((issued.view.rate_per_second, issued.view.burst), (1, 2));
        assert_eq!(issued.view.created_by.as_deref(), Some("admin:ann"));
        let defaults = e
            .access()
            .issue_api_key(std::slice::from_ref(&b.slug), KeyLimits::default(), "cli")
            .await
            .unwrap();
        assert_eq!((defaults.view.rate_per_second, defaults.view.burst), (50, 100), "{name}");

        // The listing: both keys, oldest first, prefixes only — never the secret or its digest.
        let listed = e.access().api_keys().await.unwrap();
        assert_eq!(listed, vec![issued.view.clone(), defaults.view.clone()], "{name}");
        let digest: String = {
            use sha2::Digest;
            sha2::Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
        };
        let text = serde_json::to_string(&listed).unwrap();
        assert!(!text.contains(&key) && !text.contains(&digest), "{name}: {text}");
        assert!(!text.contains(&defaults.key), "{name}");

        // The scope names the key and its limits; the limiter counts this key alone.
        let scope = e.access().api_key_scope(&key).await.unwrap().expect("a live key");
        assert_eq!((scope.id, scope.limits, scope.prefix.as_str()), (issued.view.id, slow, &key[..16]));
        assert!(scope.allows(&b.slug));
        assert_eq!(e.access().admit(&scope).await, Ok(()), "{name}");
        assert_eq!(e.access().admit(&scope).await, Ok(()), "{name}");
        assert_eq!(e.access().admit(&scope).await, Err(RateLimited { retry_after_seconds: 1 }), "{name}");
        let other = e.access().api_key_scope(&defaults.key).await.unwrap().unwrap();
        assert_eq!(e.access().admit(&other).await, Ok(()), "{name}: another key has its own allowance");
        let metrics = e.metrics().render();
        assert!(
            metrics.contains(&format!("laurel_rate_limited_total{{key_prefix=\"{}\"}} 1", &key[..16])),
            "{name}: {metrics}"
        );
        assert!(!metrics.contains(&key), "{name}");

        // The audit trail names the creator and the key's prefix, never the secret.
        let created = e.lifecycle().audit(&action("apikey_create"), None, 10).await.unwrap();
        assert_eq!(created.len(), 2, "{name}");
        let first = created.iter().find(|a| a.actor == "admin:ann").expect("ann's row");
        let after = first.after.as_ref().unwrap();
        assert_eq!(after["prefix"], key[..16], "{name}");
        assert_eq!(after["id"], issued.view.id);
        assert_eq!(after["rate_per_second"], 1);
        let trail = serde_json::to_string(&created).unwrap();
        assert!(!trail.contains(&key) && !trail.contains(&digest) && !trail.contains(&defaults.key));

        // Revoking: the key is refused from then on; a repeat answers the same and writes nothing.
        let revoked = e.access().revoke_api_key(issued.view.id, "token#1", Some("  leaked  ")).await.unwrap();
        assert!(revoked.revoked_at.is_some(), "{name}");
        assert_eq!(revoked.revoked_by.as_deref(), Some("token#1"));
        assert_eq!(e.access().api_key_scope(&key).await.unwrap(), None, "{name}: a revoked key is refused");
        let again = e.access().revoke_api_key(issued.view.id, "admin:bob", Some("again")).await.unwrap();
        assert_eq!(again, revoked, "{name}: revoking twice answers the same");
        let trail = e.lifecycle().audit(&action("apikey_revoke"), None, 10).await.unwrap();
        assert_eq!(trail.len(), 1, "{name}: {trail:?}");
        assert_eq!((trail[0].actor.as_str(), trail[0].reason.as_deref()), ("token#1", Some("leaked")));
        assert_eq!(trail[0].before.as_ref().unwrap()["revoked"], false);
        assert_eq!(trail[0].after.as_ref().unwrap()["revoked"], true);
        // The other key still works; the listing shows the revocation.
        assert!(e.access().api_key_scope(&defaults.key).await.unwrap().is_some(), "{name}");
        assert_eq!(e.access().api_keys().await.unwrap(), vec![revoked, defaults.view.clone()], "{name}");

        assert!(
            matches!(
                e.access().revoke_api_key(999_999, "token#1", None).await,
                Err(EngineError::NotFound { .. })
            ),
            "{name}"
        );
        let long = "x".repeat(1001);
        assert!(matches!(
            e.access().revoke_api_key(defaults.view.id, "token#1", Some(&long)).await,
            Err(EngineError::Invalid(_))
        ));
        assert!(
            e.access().api_key_scope(&defaults.key).await.unwrap().is_some(),
            "{name}: a refused revoke changes nothing"
        );
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

/// Each process keeps the keys it found for `CREDENTIAL_TTL` instead of reading the ledger on
/// every request: a key revoked through another instance (another engine on the same ledger)
/// stops working here once that time has passed; a key made there works here at once (unknown
/// keys are never kept).
#[tokio::test]
async fn a_key_revoked_on_another_instance_stops_within_the_credential_ttl() {
    for ledger in TestLedger::both().await {
        let projection = TestProjection::new(redis_targets().remove(0).1);
        let (here, there) = (engine(&ledger, &projection).await, engine(&ledger, &projection).await);
        let name = ledger.name;
        let b = board();
        here.boards().create_board(&b).await.unwrap();
        let limits = KeyLimits { rate_per_second: 100, burst: 100 };
        assert_eq!(
            here.access()
                .api_key_scope("laurel_ik_0123456789abcdef0123456789abcdef0123456789abcdef")
                .await
                .unwrap(),
            None
        );
        let issued =
            there.access().issue_api_key(std::slice::from_ref(&b.slug), limits, "token#1").await.unwrap();
        assert!(
            here.access().api_key_scope(&issued.key).await.unwrap().is_some(),
            "{name}: made there, works here"
        );
        there.access().revoke_api_key(issued.view.id, "token#1", Some("leaked")).await.unwrap();
        assert_eq!(
            there.access().api_key_scope(&issued.key).await.unwrap(),
            None,
            "{name}: revoked there, at once"
        );
        tokio::time::sleep(engine::access::keys::CREDENTIAL_TTL + std::time::Duration::from_millis(100))
            .await;
        assert_eq!(
            here.access().api_key_scope(&issued.key).await.unwrap(),
            None,
            "{name}: revoked there, refused here after the credential TTL"
        );
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn a_key_limit_holds_across_instances_and_each_process_keeps_it_while_redis_is_down() {
    for (mode, target) in redis_targets() {
        for ledger in TestLedger::both().await {
            let p = TestProjection::new(target.clone());
            let a = engine(&ledger, &p).await;
            let b = another_instance(&ledger, &p);
            let name = format!("{mode}/{}", ledger.name);
            let board = board();
            a.boards().create_board(&board).await.unwrap();
            // One request a second, three at once: the burst is the fleet's, not each instance's.
            let limits = KeyLimits { rate_per_second: 1, burst: 3 };
            let key = a
                .access()
                .issue_api_key(std::slice::from_ref(&board.slug), limits, "test")
                .await
                .unwrap()
                .key;
            let scope = a.access().api_key_scope(&key).await.unwrap().unwrap();
            assert_eq!(a.access().admit(&scope).await, Ok(()), "{name}");
            assert_eq!(b.access().admit(&scope).await, Ok(()), "{name}");
            assert_eq!(a.access().admit(&scope).await, Ok(()), "{name}");
            assert_eq!(b.access().admit(&scope).await, Err(RateLimited { retry_after_seconds: 1 }), "{name}");
            assert_eq!(a.access().admit(&scope).await, Err(RateLimited { retry_after_seconds: 1 }), "{name}");
            // The shared cell lives under a hash tag of its own and expires once it no longer
            // matters (the allowance is full again after the burst's time).
            let mut conn = p.projection.conn().await.unwrap();
            let ttl: i64 = redis::cmd("PTTL")
                .arg(p.projection.keys().rate(&engine::access::ratelimit::Cell::Key(scope.id)))
                .query_async(&mut conn)
                .await
                .unwrap();
            assert!(ttl > 0 && ttl <= 3_001, "{name}: {ttl}");

            // An instance whose Redis cannot be reached fails open, to a limit of its own.
            let down = engine::Engine::from_parts(
                ledger.ledger.clone(),
                engine::redis::Projection::new(
                    engine::redis::RedisTarget::parse("redis://127.0.0.1:9").unwrap(),
                    p.projection.keys().clone(),
                ),
            );
            for i in 0..3 {
                assert_eq!(down.access().admit(&scope).await, Ok(()), "{name}: local burst, request {i}");
            }
            assert_eq!(
                down.access().admit(&scope).await,
                Err(RateLimited { retry_after_seconds: 1 }),
                "{name}"
            );
            p.cleanup().await;
            ledger.drop_db().await;
        }
    }
}

/// Requests of a key that arrive together are counted together (one `rate.lua` call for those
/// that wait for the same round): the allowance admits as many as it holds, no more, whichever
/// instance they reach.
#[tokio::test]
async fn requests_that_arrive_together_are_admitted_up_to_the_burst_and_no_more() {
    for (mode, target) in redis_targets() {
        let ledger = TestLedger::sqlite().await;
        let p = TestProjection::new(target.clone());
        let a = engine(&ledger, &p).await;
        let b = another_instance(&ledger, &p);
        let board = board();
        a.boards().create_board(&board).await.unwrap();
        let limits = KeyLimits { rate_per_second: 1, burst: 5 };
        let key =
            a.access().issue_api_key(std::slice::from_ref(&board.slug), limits, "test").await.unwrap().key;
        let scope = a.access().api_key_scope(&key).await.unwrap().unwrap();
        let mut requests = tokio::task::JoinSet::new();
        for i in 0..40 {
            let (instance, scope) = (if i % 2 == 0 { a.clone() } else { b.clone() }, scope.clone());
            requests.spawn(async move { instance.access().admit(&scope).await });
        }
        let answers = requests.join_all().await;
        let admitted = answers.iter().filter(|a| a.is_ok()).count();
        assert_eq!(admitted, 5, "{mode}: {answers:?}");
        assert!(
            answers.iter().all(|a| a.is_ok() || *a == Err(RateLimited { retry_after_seconds: 1 })),
            "{mode}: {answers:?}"
        );
        p.cleanup().await;
        ledger.drop_db().await;
    }
}
