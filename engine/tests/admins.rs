//! Console accounts on both ledgers: argon2id passwords, sessions that rotate at login and end at
//! logout or expiry, and throttled failed logins.

mod common;

use common::{TestLedger, TestProjection, engine, redis_targets};
use engine::access::admins::{
    LoginError, MAX_FAILURES, MAX_FAILURES_PER_ADDRESS, SESSION_TTL, THROTTLE_WINDOW,
};
use engine::ledger::FailuresOf;
use jiff::{SignedDuration, Timestamp};

const PASSWORD: &str = "correct horse battery";

#[tokio::test]
async fn admins_log_in_with_their_password_and_sessions_end() {
    for ledger in TestLedger::both().await {
        let projection = TestProjection::new(redis_targets().remove(0).1);
        let e = engine(&ledger, &projection).await;
        let name = ledger.name;
        e.access().create_admin("ann", PASSWORD).await.unwrap();
        assert!(matches!(
            e.access().create_admin("ann", "another long password").await,
            Err(engine::EngineError::Refused { code: domain::ErrorCode::AdminExists, .. })
        ));
        assert!(matches!(
            e.access().create_admin("ann2", "short").await,
            Err(engine::EngineError::Invalid(_))
        ));
        assert!(matches!(
            e.access().create_admin("Ann", PASSWORD).await,
            Err(engine::EngineError::Invalid(_))
        ));
        // Only a PHC argon2id string is stored.
        let stored = e.ledger().admin_by_username("ann").await.unwrap().unwrap();
        assert!(stored.password_hash.starts_with("$argon2id$"), "{name}");
        assert!(!stored.password_hash.contains(PASSWORD));

        let now = Timestamp::now();
        let first = e.access().login("ann", PASSWORD, None, now).await.unwrap();
        assert_eq!(first.actor, "admin:ann");
        assert_eq!(
            e.access().session_actor(&first.token, now).await.unwrap().as_deref(),
            Some("admin:ann"),
            "{name}"
        );
        // Every login is a new session.
        let second = e.access().login("ann", PASSWORD, None, now).await.unwrap();
        assert_ne!(first.token, second.token);
        e.access().logout(&first.token).await.unwrap();
        assert_eq!(e.access().session_actor(&first.token, now).await.unwrap(), None, "{name}: logged out");
        assert!(e.access().session_actor(&second.token, now).await.unwrap().is_some());
        let later = now.checked_add(SESSION_TTL).unwrap();
        assert_eq!(e.access().session_actor(&second.token, later).await.unwrap(), None, "{name}: expired");
        assert_eq!(e.access().session_actor("laurel_s_forged", now).await.unwrap(), None);
        assert_eq!(e.access().session_actor("anything", now).await.unwrap(), None);

        assert_eq!(
            e.access().login("ann", "wrong password!!", None, now).await,
            Err(LoginError::Refused),
            "{name}"
        );
        assert_eq!(e.access().login("nobody", PASSWORD, None, now).await, Err(LoginError::Refused), "{name}");
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn one_address_trying_a_password_on_many_usernames_is_throttled() {
    for ledger in TestLedger::both().await {
        let projection = TestProjection::new(redis_targets().remove(0).1);
        let e = engine(&ledger, &projection).await;
        let name = ledger.name;
        e.access().create_admin("kay", PASSWORD).await.unwrap();
        let (attacker, office) =
            (Some("203.0.113.9".parse().unwrap()), Some("198.51.100.4".parse().unwrap()));
        let t0 = Timestamp::now();
        let at = |s: i64| t0.checked_add(SignedDuration::from_secs(s)).unwrap();
        // One guess per username: no username reaches its own limit.
        for i in 0..MAX_FAILURES_PER_ADDRESS as i64 {
            let username = format!("user{i}");
            assert_eq!(
                e.access().login(&username, PASSWORD, attacker, at(i)).await,
                Err(LoginError::Refused),
                "{name}"
            );
        }
        assert_eq!(
            e.ledger().login_failures_since(FailuresOf::Address("203.0.113.9"), t0).await.unwrap().0,
            MAX_FAILURES_PER_ADDRESS,
            "{name}"
        );
        // That address is refused now, even for an account it never tried, with the right password.
        match e.access().login("kay", PASSWORD, attacker, at(60)).await {
            Err(LoginError::Throttled { retry_after_seconds }) => {
                assert_eq!(retry_after_seconds, THROTTLE_WINDOW.as_secs() as u64 - 60, "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
        // Another address, and a caller whose address is unknown, are not.
        assert!(e.access().login("kay", PASSWORD, office, at(60)).await.is_ok(), "{name}");
        assert!(e.access().login("kay", PASSWORD, None, at(60)).await.is_ok(), "{name}");
        // A success elsewhere does not clear the address's failures; the window does.
        assert!(matches!(
            e.access().login("kay", PASSWORD, attacker, at(61)).await,
            Err(LoginError::Throttled { .. })
        ));
        let lifted = at(THROTTLE_WINDOW.as_secs() + MAX_FAILURES_PER_ADDRESS as i64);
        assert!(e.access().login("kay", PASSWORD, attacker, lifted).await.is_ok(), "{name}");
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}

#[tokio::test]
async fn failed_logins_are_throttled_per_username_until_the_window_passes() {
    for ledger in TestLedger::both().await {
        let projection = TestProjection::new(redis_targets().remove(0).1);
        let e = engine(&ledger, &projection).await;
        let name = ledger.name;
        e.access().create_admin("bob", PASSWORD).await.unwrap();
        e.access().create_admin("eve", PASSWORD).await.unwrap();
        let t0 = Timestamp::now();
        let at = |s: i64| t0.checked_add(SignedDuration::from_secs(s)).unwrap();
        for i in 0..MAX_FAILURES as i64 {
            assert_eq!(
                e.access().login("bob", "guess number one", None, at(i)).await,
                Err(LoginError::Refused),
                "{name}"
            );
        }
        // Now even the right password is refused, with the time until the oldest failure ages out.
        match e.access().login("bob", PASSWORD, None, at(60)).await {
            Err(LoginError::Throttled { retry_after_seconds }) => {
                assert_eq!(retry_after_seconds, THROTTLE_WINDOW.as_secs() as u64 - 60, "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
        // Another username is not affected.
        assert!(e.access().login("eve", PASSWORD, None, at(60)).await.is_ok(), "{name}");
        // Once the window has passed the oldest failure, the right password works and clears them.
        let lifted = at(THROTTLE_WINDOW.as_secs() + 1);
        assert!(e.access().login("bob", PASSWORD, None, lifted).await.is_ok(), "{name}");
        assert_eq!(
            e.ledger().login_failures_since(FailuresOf::Username("bob"), t0).await.unwrap().0,
            0,
            "{name}"
        );
        projection.cleanup().await;
        ledger.drop_db().await;
    }
}
