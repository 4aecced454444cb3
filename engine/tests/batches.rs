//! A batch is recorded with a few set-based statements; its answers and what it leaves in the
//! ledger must be exactly those of recording the same writes one call each. Random batches (a
//! fixed seed per case): few members, ids repeated within and across batches, late writes,
//! deltas and totals beyond the bounds, shuffled `set` versions, a small reach-sequence budget —
//! for every operator and tie policy, on SQLite and PostgreSQL. The answers one call each gives
//! are checked against the operators' rules too (`check_rules`), so the comparison does not
//! only hold a path against itself. Concurrent batches of other members racing for the same ids
//! count each id once.

mod common;

use common::{TestLedger, unique};
use domain::board::Prize;
use domain::write::{Change, Outcome, Write};
use domain::{Board, BoardSlug, Cadence, EventId, MemberId, Operator, ScoreCodec, TiePolicy};
use engine::ledger::audit::AuditFilter;
use engine::ledger::{Ledger, Recorded};
use std::collections::HashMap;

/// xorshift64*: enough randomness for test data, the same sequence for the same seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }

    fn between(&mut self, low: i64, high: i64) -> i64 {
        low + self.below((high - low + 1) as u64) as i64
    }
}

/// Reach sequences per period under first_reached (`set` records fewer entries: most are stale).
fn budget(operator: Operator) -> i64 {
    if operator == Operator::Set { 10 } else { 60 }
}

fn board(operator: Operator, policy: TiePolicy) -> Board {
    Board {
        slug: BoardSlug::parse(unique("b").replace('_', "-").to_lowercase()).unwrap(),
        title: "test".into(),
        cadence: Cadence::Weekly,
        zone: jiff::tz::TimeZone::get("Asia/Shanghai").unwrap(),
        operator,
        // A small sequence budget under first_reached: the last writes run out of it.
        codec: ScoreCodec::new(
            policy,
            -1000,
            1000,
            if policy == TiePolicy::Shared { 1 } else { budget(operator) },
        )
        .unwrap(),
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

fn batch(rng: &mut Rng, operator: Operator, now: jiff::Timestamp) -> Vec<Write> {
    let len = rng.between(1, 40);
    (0..len)
        .map(|_| {
            let id = EventId::parse(format!("e{}", rng.below(90))).unwrap();
            let change = match operator {
                Operator::Incr if rng.below(8) == 0 => {
                    Change::Correction { correction_id: Some(id), delta: rng.between(-300, 300) }
                }
                Operator::Incr => Change::Point { event_id: id, delta: rng.between(-400, 400) },
                Operator::Set => {
                    Change::Total { version: rng.between(1, 40), total: rng.between(-1200, 1200) }
                }
                Operator::Best => Change::Submission { submission_id: id, score: rng.between(-1200, 1200) },
            };
            // One write in ten is for last week: kept as late.
            let ago = if rng.below(10) == 0 { 9 * 24 * 3600 } else { rng.between(0, 60) };
            Write {
                member: MemberId::parse(format!("m{}", rng.below(5))).unwrap(),
                change,
                occurred_at: now - jiff::SignedDuration::from_secs(ago),
                metadata: (rng.below(3) == 0).then(|| format!("{{\"n\":{}}}", rng.below(100))),
                segments: Default::default(),
            }
        })
        .collect()
}

/// The answers to `writes` (in order, from an empty board), checked from first principles: each
/// change moves its member's total by the operator's rule and its version by one, and under
/// `first_reached` a member whose points move takes the period's next reach sequence — one per
/// recorded entry (an exhausted budget uses one up too).
fn check_rules(b: &Board, writes: &[Write], answers: &[Recorded], ctx: &str) {
    let mut recorded = 0;
    let mut totals: HashMap<&str, (i64, i64)> = HashMap::new();
    for (i, (w, a)) in writes.iter().zip(answers).enumerate() {
        let ctx = format!("{ctx}: write {i} {w:?} answered {a:?}");
        match a.outcome {
            Outcome::Applied | Outcome::Improved => {
                let t = a.total.as_ref().expect(&ctx);
                let (points, version) = totals.get(w.member.as_str()).copied().unwrap_or_default();
                let expected = match w.change {
                    Change::Point { delta, .. } | Change::Correction { delta, .. } => points + delta,
                    Change::Total { total, .. } => total,
                    Change::Submission { score, .. } => score,
                };
                assert_eq!((t.points, t.version), (expected, version + 1), "{ctx}");
                if b.tie_policy() == TiePolicy::FirstReached && (t.points != points || version == 0) {
                    assert_eq!(b.codec.sequence(t.score), recorded, "{ctx}");
                }
                totals.insert(w.member.as_str(), (t.points, t.version));
                recorded += 1;
            }
            Outcome::NotHigher => recorded += 1,
            Outcome::Rejected if a.reason.as_deref().is_some_and(|r| r.contains("sequence budget")) => {
                recorded += 1
            }
            _ => {}
        }
    }
    if b.tie_policy() == TiePolicy::FirstReached {
        assert!(
            recorded > budget(b.operator),
            "{ctx}: the sequence budget was not used up ({recorded} entries)"
        );
    }
}

/// Everything a board holds in the ledger, without row ids (the boards share the tables).
async fn contents(ledger: &Ledger, b: &Board, now: jiff::Timestamp) -> String {
    let mut out = String::new();
    for at in [now, now - jiff::SignedDuration::from_hours(9 * 24)] {
        let period = b.period_at(at);
        for t in ledger.totals(&b.slug, &period).await.unwrap() {
            out.push_str(&format!("total {period} {t:?}\n"));
        }
        for m in 0..5 {
            let member = MemberId::parse(format!("m{m}")).unwrap();
            for mut e in ledger
                .member_entries(&b.slug, &period, &member, None, 10_000, engine::ledger::Viewer::Admin)
                .await
                .unwrap()
            {
                e.id = 0;
                out.push_str(&format!("entry {period} {member} {e:?}\n"));
            }
        }
        for mut e in ledger.late_entries(&b.slug, &period, None).await.unwrap() {
            e.id = 0;
            out.push_str(&format!("late {e:?}\n"));
        }
    }
    let filter = AuditFilter { board: Some(b.slug.to_string()), ..Default::default() };
    for mut a in ledger.audit_page(&filter, None, 10_000).await.unwrap() {
        a.id = 0;
        out.push_str(&format!("audit {a:?}\n"));
    }
    out
}

#[tokio::test]
async fn a_batch_answers_and_records_exactly_as_one_write_per_call() {
    for t in TestLedger::both().await {
        t.ledger.migrate().await.unwrap();
        let now = jiff::Timestamp::now();
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        let mut rejected = false;
        for operator in [Operator::Incr, Operator::Set, Operator::Best] {
            for policy in [TiePolicy::Shared, TiePolicy::FirstReached] {
                seed += 1;
                let mut rng = Rng(seed);
                let (batched, single) = (board(operator, policy), board(operator, policy));
                t.ledger.create_board(&batched, now).await.unwrap();
                t.ledger.create_board(&single, now).await.unwrap();
                let (mut all_writes, mut all_answers) = (Vec::new(), Vec::new());
                for round in 0..12 {
                    let writes = batch(&mut rng, operator, now);
                    let answers = t.ledger.record(&batched, &writes, now).await.unwrap();
                    let mut expected = Vec::new();
                    for w in &writes {
                        expected
                            .extend(t.ledger.record(&single, std::slice::from_ref(w), now).await.unwrap());
                    }
                    let ctx = format!("{} {operator:?} {policy:?} round {round}", t.name);
                    assert_eq!(answers.len(), writes.len(), "{ctx}");
                    for (i, (a, e)) in answers.iter().zip(&expected).enumerate() {
                        assert_eq!(a, e, "{ctx}: write {i} {:?}", writes[i]);
                    }
                    all_writes.extend(writes);
                    all_answers.extend(expected);
                }
                check_rules(
                    &single,
                    &all_writes,
                    &all_answers,
                    &format!("{} {operator:?} {policy:?}", t.name),
                );
                let (b, s) =
                    (contents(&t.ledger, &batched, now).await, contents(&t.ledger, &single, now).await);
                assert!(b.contains("total ") && b.contains("late "), "{b}");
                rejected |= b.contains("write_rejected");
                assert_eq!(b.replace(batched.slug.as_str(), "B"), s.replace(single.slug.as_str(), "B"));
            }
        }
        assert!(rejected, "{}: no write was rejected", t.name);
        t.drop_db().await;
    }
}

#[tokio::test]
async fn an_id_recorded_concurrently_for_other_members_counts_once() {
    for t in TestLedger::both().await {
        t.ledger.migrate().await.unwrap();
        let now = jiff::Timestamp::now();
        // shared: the period row is only share-locked, so batches of different members run at
        // the same time on PostgreSQL and race for the same ids: the loser of a race rolls back
        // and retries. (The ids go in the same order, batched differently: in different orders
        // two batches can deadlock on the unique index, as one write after the other could; a
        // deadlock is retried three times, then answered as an error.)
        let b = board(Operator::Incr, TiePolicy::Shared);
        t.ledger.create_board(&b, now).await.unwrap();
        let mut clients = Vec::new();
        for c in 0..6 {
            let (ledger, b) = (t.ledger.clone(), b.clone());
            let writes: Vec<Write> = (0..200)
                .map(|i| Write {
                    member: MemberId::parse(format!("m{c}")).unwrap(),
                    change: Change::Point { event_id: EventId::parse(format!("e{i}")).unwrap(), delta: 1 },
                    occurred_at: now,
                    metadata: None,
                    segments: Default::default(),
                })
                .collect();
            clients.push(tokio::spawn(async move {
                let mut applied = 0;
                for chunk in writes.chunks(10 + 7 * c) {
                    for r in ledger.record(&b, chunk, now).await.unwrap() {
                        match r.outcome {
                            Outcome::Applied => applied += 1,
                            Outcome::Duplicate => {}
                            other => panic!("{other:?}"),
                        }
                    }
                }
                (c, applied)
            }));
        }
        let mut answered = Vec::new();
        for client in clients {
            answered.push(client.await.unwrap());
        }
        let period = b.period_at(now);
        let totals: HashMap<String, i64> = t
            .ledger
            .totals(&b.slug, &period)
            .await
            .unwrap()
            .into_iter()
            .map(|t| (t.member.to_string(), t.points))
            .collect();
        let mut sum = 0;
        for (c, applied) in answered {
            assert_eq!(totals.get(&format!("m{c}")).copied().unwrap_or(0), applied, "{}", t.name);
            sum += applied;
        }
        assert_eq!(sum, 200, "{}: each id counts once", t.name);
        t.drop_db().await;
    }
}
