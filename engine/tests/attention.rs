//! The console's front page (`engine::boards::attention`) on both ledgers and both Redis modes: a new
//! ledger needs nothing; a period past its end plus grace is due while open and while frozen and
//! not once settled; late writes are counted per period while pending; rewards appear once an
//! attempt failed (retrying, then failed for good); a projection that lost its keys is behind
//! until the reconciler levels it, one ahead of the ledger until a rebuild; a key that used its
//! burst is near its limit until revoked, one that did not never is; and each board's entries per
//! hour cover the last 24 whole hours, with its current period's state.

mod common;

use common::{each_store, point, prized_board};
use domain::apikey::KeyLimits;
use domain::lifecycle::{State, Transition};
use domain::view::{Attention, DuePeriod, PeriodCount, ProjectionLag, RewardTrouble};
use domain::write::{Change, Outcome, Write};
use domain::{EventId, MemberId, TiePolicy};
use engine::boards::attention::ACTIVITY_HOURS;
use engine::rewards::RewardsConfig;
use jiff::{SignedDuration, Timestamp};
use std::time::Duration;

/// A point event that occurred at `at`.
fn point_at(event: &str, member: &str, delta: i64, at: Timestamp) -> Write {
    Write {
        member: MemberId::parse(member).unwrap(),
        change: Change::Point { event_id: EventId::parse(event).unwrap(), delta },
        occurred_at: at,
        metadata: None,
        segments: Default::default(),
    }
}

/// A webhook nothing listens on: every attempt fails at once (connection refused), and a reward
/// is failed for good after its second attempt.
fn refused_webhook() -> RewardsConfig {
    let mut config = RewardsConfig::new("http://127.0.0.1:1/hook").unwrap();
    config.timeout = Duration::from_secs(2);
    config.claim_timeout = Duration::from_secs(3);
    config.backoff_base = Duration::from_millis(1);
    config.backoff_max = Duration::from_millis(2);
    config.max_attempts = 2;
    config
}

#[tokio::test]
async fn attention_lists_what_needs_an_admin_and_each_item_leaves_once_fixed() {
    each_store(async |name, e, p| {
        let now = Timestamp::now();
        let attention = e.boards().attention(now).await.unwrap();
        assert!(attention.is_clear(), "{name}: {attention:?}");

        // Two writes now, and one two weeks old: kept as a late write, it opens its period, which
        // is past its end plus the grace.
        let a = prized_board("att", TiePolicy::Shared, 60);
        e.boards().create_board(&a).await.unwrap();
        let old_at = now.checked_sub(SignedDuration::from_hours(14 * 24)).unwrap();
        let answers = e
            .writes()
            .record(&a, &[point("e1", "u1", 10), point("e2", "u2", 5), point_at("old", "u3", 7, old_at)])
            .await
            .unwrap();
        let outcomes: Vec<_> = answers.iter().map(|r| r.recorded.outcome).collect();
        assert_eq!(outcomes, [Outcome::Applied, Outcome::Applied, Outcome::Late], "{name}");
        let (current, past) = (a.period_at(now), a.period_at(old_at));
        let due_at = past.span(&a.zone).end.checked_add(SignedDuration::from_secs(60)).unwrap();
        let due = |state: State| DuePeriod { board: a.slug.clone(), period: past, state, due_at };
        let attention = e.boards().attention(Timestamp::now()).await.unwrap();
        assert_eq!(
            attention,
            Attention {
                due: vec![due(State::Open)],
                late: vec![PeriodCount { board: a.slug.clone(), period: past, count: 1 }],
                ..Attention::default()
            },
            "{name}: the current period is not due, and is level"
        );
        // Just before the grace ends it was not due yet.
        let before =
            e.boards().attention(due_at.checked_sub(SignedDuration::from_secs(1)).unwrap()).await.unwrap();
        assert!(before.due.is_empty(), "{name}: {before:?}");

        // Frozen, it waits to be settled; once the late write is decided it is no longer counted.
        e.lifecycle()
            .transition(
                &e.reads().scope(&a.slug, Some(&past.to_string())).await.unwrap(),
                Transition::Freeze,
                "test",
                None,
            )
            .await
            .unwrap();
        assert_eq!(
            e.boards().attention(Timestamp::now()).await.unwrap().due,
            vec![due(State::Frozen)],
            "{name}"
        );
        let late = e
            .lifecycle()
            .late_entries(&e.reads().scope(&a.slug, Some(&past.to_string())).await.unwrap(), Some("pending"))
            .await
            .unwrap();
        e.lifecycle()
            .decide_late(
                &e.reads().scope(&a.slug, Some(&past.to_string())).await.unwrap(),
                late[0].id,
                false,
                "test",
                Some("too late"),
            )
            .await
            .unwrap();
        let attention = e.boards().attention(Timestamp::now()).await.unwrap();
        assert!(attention.late.is_empty(), "{name}: {attention:?}");
        e.lifecycle()
            .transition(
                &e.reads().scope(&a.slug, Some(&past.to_string())).await.unwrap(),
                Transition::Settle,
                "test",
                None,
            )
            .await
            .unwrap();
        assert!(
            e.boards().attention(Timestamp::now()).await.unwrap().is_clear(),
            "{name}: settled, nothing is due"
        );

        // Rewards: pending and never tried is not trouble; a failed attempt is (retrying), and
        // so is the last one (failed for good).
        let r = prized_board("attrw", TiePolicy::Shared, 60 * 86_400);
        e.boards().create_board(&r).await.unwrap();
        let writes: Vec<Write> =
            (0..4).map(|i| point_at(&format!("r{i}"), &format!("m{i}"), 100 - i, old_at)).collect();
        e.writes().record(&r, &writes).await.unwrap();
        let rp = r.period_at(old_at).to_string();
        e.lifecycle()
            .transition(&e.reads().scope(&r.slug, Some(&rp)).await.unwrap(), Transition::Freeze, "test", None)
            .await
            .unwrap();
        e.lifecycle()
            .transition(&e.reads().scope(&r.slug, Some(&rp)).await.unwrap(), Transition::Settle, "test", None)
            .await
            .unwrap();
        assert!(
            e.boards().attention(Timestamp::now()).await.unwrap().is_clear(),
            "{name}: rewards not tried yet"
        );
        let webhook = refused_webhook();
        let trouble = |failed, retrying| RewardTrouble {
            board: r.slug.clone(),
            period: r.period_at(old_at),
            failed,
            retrying,
        };
        let pass = e.rewards().deliver_due(&webhook).await.unwrap();
        assert_eq!(pass.retrying, 3, "{name}: {pass:?}");
        assert_eq!(
            e.boards().attention(Timestamp::now()).await.unwrap().rewards,
            vec![trouble(0, 3)],
            "{name}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        let pass = e.rewards().deliver_due(&webhook).await.unwrap();
        assert_eq!(pass.failed, 3, "{name}: {pass:?}");
        assert_eq!(
            e.boards().attention(Timestamp::now()).await.unwrap().rewards,
            vec![trouble(3, 0)],
            "{name}"
        );

        // The current period's keys lost: behind the ledger (two totals, version 1 each) until
        // the reconciler levels it.
        let keys = p.projection.keys().period(&a.slug, &current);
        let mut conn = p.projection.conn().await.unwrap();
        let _: () = redis::cmd("DEL")
            .arg(&keys.rank)
            .arg(&keys.ver)
            .arg(&keys.meta)
            .query_async(&mut conn)
            .await
            .unwrap();
        let lag = |projected| ProjectionLag { board: a.slug.clone(), period: current, ledger: 2, projected };
        assert_eq!(e.boards().attention(Timestamp::now()).await.unwrap().lagging, vec![lag(0)], "{name}");
        e.jobs().reconcile_once().await.unwrap();
        assert!(e.boards().attention(Timestamp::now()).await.unwrap().lagging.is_empty(), "{name}: levelled");
        // Ahead of the ledger (a version the ledger never had): listed until a rebuild.
        let _: () =
            redis::cmd("HINCRBY").arg(&keys.meta).arg("vsum").arg(5).query_async(&mut conn).await.unwrap();
        assert_eq!(e.boards().attention(Timestamp::now()).await.unwrap().lagging, vec![lag(7)], "{name}");
        e.jobs()
            .rebuild(&e.reads().scope(&a.slug, Some(&current.to_string())).await.unwrap(), "test")
            .await
            .unwrap();
        assert!(e.boards().attention(Timestamp::now()).await.unwrap().lagging.is_empty(), "{name}: rebuilt");

        // A key that used its burst (1/s, 8 at once) is near its limit; one that made a single
        // request of its 100 is not; a revoked key is never listed.
        let slow = KeyLimits { rate_per_second: 1, burst: 8 };
        let near = e.access().issue_api_key(std::slice::from_ref(&a.slug), slow, "test").await.unwrap();
        let calm = e
            .access()
            .issue_api_key(std::slice::from_ref(&a.slug), KeyLimits::default(), "test")
            .await
            .unwrap();
        let near_scope = e.access().api_key_scope(&near.key).await.unwrap().unwrap();
        for _ in 0..8 {
            assert_eq!(e.access().admit(&near_scope).await, Ok(()), "{name}");
        }
        e.access().admit(&e.access().api_key_scope(&calm.key).await.unwrap().unwrap()).await.unwrap();
        let listed = e.boards().attention(Timestamp::now()).await.unwrap().keys;
        assert_eq!(listed.len(), 1, "{name}: {listed:?}");
        assert_eq!(
            (listed[0].id, listed[0].prefix.as_str(), listed[0].burst),
            (near.view.id, &near.key[..16], 8)
        );
        assert!(listed[0].burst_left <= 1, "{name}: {listed:?}");
        e.access().revoke_api_key(near.view.id, "test", None).await.unwrap();
        assert!(e.boards().attention(Timestamp::now()).await.unwrap().keys.is_empty(), "{name}");

        // Activity: the entries recorded in the last 24 whole hours (the late write is not an
        // entry), with each board's current period's state.
        e.lifecycle()
            .transition(
                &e.reads().scope(&a.slug, Some(&current.to_string())).await.unwrap(),
                Transition::Freeze,
                "test",
                None,
            )
            .await
            .unwrap();
        let now = Timestamp::now();
        let activity = e.boards().board_activity(now).await.unwrap();
        let hour = now.as_second().div_euclid(3600) * 3600;
        let since = Timestamp::from_second(hour - 23 * 3600).unwrap();
        let seen: Vec<_> = activity
            .iter()
            .map(|b| {
                (
                    b.board.slug.clone(),
                    b.state.as_str(),
                    b.since,
                    b.per_hour.len(),
                    b.per_hour.iter().sum::<u64>(),
                )
            })
            .collect();
        let mut expected = vec![
            (a.slug.clone(), "frozen", since, ACTIVITY_HOURS, 2),
            (r.slug.clone(), "open", since, ACTIVITY_HOURS, 4),
        ];
        expected.sort();
        assert_eq!(seen, expected, "{name}");
        assert!(activity.iter().all(|b| b.per_hour[..ACTIVITY_HOURS - 2].iter().all(|n| *n == 0)), "{name}");
        // A day later they are out of the window.
        let later = e
            .boards()
            .board_activity(now.checked_add(SignedDuration::from_hours(25)).unwrap())
            .await
            .unwrap();
        assert!(later.iter().all(|b| b.per_hour.iter().all(|n| *n == 0)), "{name}: {later:?}");
    })
    .await;
}
