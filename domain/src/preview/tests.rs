use super::*;
use crate::settlement::{order, standings};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::future::Future;

/// In-memory standings that answer at most 3 standings per window, as a reader of stored
/// blocks may answer fewer than asked.
struct Chunked(Ranked);

impl StandingsBefore for Chunked {
    type Error = std::convert::Infallible;
    fn members(&self) -> u64 {
        self.0.members()
    }
    async fn place(&mut self, member: &MemberId) -> Result<Option<(u64, Standing)>, Self::Error> {
        self.0.place(member).await
    }
    async fn at_least(&mut self, points: i64) -> Result<u64, Self::Error> {
        self.0.at_least(points).await
    }
    async fn ahead_of(&mut self, total: &FinalTotal) -> Result<u64, Self::Error> {
        self.0.ahead_of(total).await
    }
    async fn window(&mut self, from: u64, count: u64) -> Result<Vec<Standing>, Self::Error> {
        self.0.window(from, count.min(3)).await
    }
}

/// Awaits a comparison of in-memory standings: it never waits, so one poll finishes it.
fn run(
    sort: Sort,
    policy: TiePolicy,
    prizes: &[Prize],
    ordered: Vec<FinalTotal>,
    touched: &[Touched],
    bound: usize,
) -> (Comparison, Vec<Standing>) {
    let mut before = Chunked(Ranked::new(sort, policy, ordered, prizes));
    let got = {
        let future = std::pin::pin!(compare(sort, policy, prizes, &mut before, touched, bound));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let std::task::Poll::Ready(Ok(got)) = future.poll(&mut cx) else {
            panic!("an in-memory comparison finishes at once")
        };
        got
    };
    let after = got.plan.after(before.0.standings().to_vec());
    (got, after)
}

fn m(s: &str) -> MemberId {
    MemberId::parse(s).unwrap()
}

fn c(points: i64, reach_seq: i64) -> Contender {
    Contender { points, reach_seq, hidden: false }
}

#[test]
fn changes_are_counted_by_kind_in_the_order_they_first_appear() {
    let e = |id: &str| crate::ids::EventId::parse(id).unwrap();
    let changes = [
        PreviewChange::Revoke(e("e1")),
        PreviewChange::Correct { member: m("u1"), delta: 2 },
        PreviewChange::Revoke(e("e2")),
        PreviewChange::Hide(m("u2")),
    ];
    let count = |kind, count| ChangeCount { kind, count };
    assert_eq!(
        summarize(&changes),
        [count(ChangeKind::Revoke, 2), count(ChangeKind::Correct, 1), count(ChangeKind::Hide, 1)]
    );
    assert_eq!(summarize(&changes[..1]), [count(ChangeKind::Revoke, 1)]);
    assert_eq!(summarize(&[]), []);
}

#[test]
fn changes_read_and_write_as_the_api_has_them() {
    let changes: Vec<PreviewChange> = serde_json::from_str(
        r#"[{"revoke": "e1"}, {"correct": {"member": "u1", "delta": -3}}, {"accept_late": 4},
            {"reject_late": 5}, {"hide": "u2"}, {"unhide": "u2"}, {"revoke_member": "u3"}]"#,
    )
    .unwrap();
    assert_eq!(changes[1], PreviewChange::Correct { member: m("u1"), delta: -3 });
    assert_eq!(changes[6], PreviewChange::RevokeMember(m("u3")));
    let text = serde_json::to_string(&changes[..2]).unwrap();
    assert_eq!(text, r#"[{"revoke":"e1"},{"correct":{"member":"u1","delta":-3}}]"#);
    for bad in [
        r#"{"revoke": "e1", "hide": "u2"}"#,
        r#"{"bogus": 1}"#,
        r#"{"correct": {"member": "u1", "delta": 1, "x": 0}}"#,
    ] {
        assert!(serde_json::from_str::<PreviewChange>(bad).is_err(), "{bad}");
    }
}

fn prize(from_rank: u64, to_rank: u64, prize: &str) -> Prize {
    Prize { from_rank, to_rank, prize: prize.into() }
}

/// The standings of every visible member of `board`, in order (the settlement's own).
fn full(
    sort: Sort,
    policy: TiePolicy,
    board: &BTreeMap<MemberId, Contender>,
    prizes: &[Prize],
) -> Vec<Standing> {
    let totals = board
        .iter()
        .filter(|(_, c)| !c.hidden)
        .map(|(member, c)| FinalTotal { member: member.clone(), points: c.points, reach_seq: c.reach_seq })
        .collect();
    standings(sort, policy, totals, prizes)
}

fn ordered(sort: Sort, policy: TiePolicy, board: &BTreeMap<MemberId, Contender>) -> Vec<FinalTotal> {
    let mut totals: Vec<FinalTotal> = board
        .iter()
        .filter(|(_, c)| !c.hidden)
        .map(|(member, c)| FinalTotal { member: member.clone(), points: c.points, reach_seq: c.reach_seq })
        .collect();
    order(sort, policy, &mut totals);
    totals
}

#[test]
fn a_correction_moves_one_member_shifts_the_ones_it_passes_and_hands_over_the_prize() {
    let board: BTreeMap<MemberId, Contender> =
        [("a", 100), ("b", 90), ("c", 80), ("d", 70)].iter().map(|(n, p)| (m(n), c(*p, 0))).collect();
    let prizes = [prize(1, 1, "gold"), prize(2, 3, "silver")];
    let touched = [Touched { member: m("d"), before: Some(c(70, 0)), after: Some(c(95, 9)) }];
    let (got, _) = run(
        Sort::Desc,
        TiePolicy::Shared,
        &prizes,
        ordered(Sort::Desc, TiePolicy::Shared, &board),
        &touched,
        100,
    );
    assert_eq!(
        got.moves,
        vec![Move {
            member: m("d"),
            points_before: Some(70),
            points_after: Some(95),
            rank_before: Some(4),
            rank_after: Some(2)
        }]
    );
    assert_eq!(got.shifted, 2);
    let shifted: Vec<_> =
        got.shifted_members.iter().map(|s| (s.member.as_str(), s.rank_before, s.rank_after)).collect();
    assert_eq!(shifted, vec![("b", Some(2), Some(3)), ("c", Some(3), Some(4))]);
    let prizes: Vec<_> =
        got.prizes.iter().map(|p| (p.member.as_str(), p.before.as_deref(), p.after.as_deref())).collect();
    assert_eq!(prizes, vec![("d", None, Some("silver")), ("c", Some("silver"), None)]);
}

#[test]
fn a_hidden_member_leaves_the_ranks_and_shared_ranks_close_up() {
    let board: BTreeMap<MemberId, Contender> =
        [("a", 100), ("b", 90), ("c", 90), ("d", 80)].iter().map(|(n, p)| (m(n), c(*p, 0))).collect();
    let hidden = Contender { hidden: true, ..c(100, 0) };
    let touched = [Touched { member: m("a"), before: Some(c(100, 0)), after: Some(hidden) }];
    let (got, _) = run(
        Sort::Desc,
        TiePolicy::Shared,
        &[prize(1, 1, "gold")],
        ordered(Sort::Desc, TiePolicy::Shared, &board),
        &touched,
        1,
    );
    assert_eq!(got.moves[0].rank_after, None);
    assert_eq!(got.moves[0].points_after, Some(100));
    assert_eq!((got.shifted, got.shifted_members.len()), (3, 1), "the bound limits the list, not the count");
    let prizes: Vec<_> =
        got.prizes.iter().map(|p| (p.member.as_str(), p.before.as_deref(), p.after.as_deref())).collect();
    // Both members tied at the new rank 1 share its prize; the hidden one loses it.
    assert_eq!(prizes, vec![("c", None, Some("gold")), ("b", None, Some("gold")), ("a", Some("gold"), None)]);
}

fn policy() -> impl Strategy<Value = TiePolicy> {
    prop_oneof![Just(TiePolicy::Shared), Just(TiePolicy::FirstReached)]
}

fn sort() -> impl Strategy<Value = Sort> {
    prop_oneof![Just(Sort::Desc), Just(Sort::Asc)]
}

fn contender() -> impl Strategy<Value = Option<Contender>> {
    prop::option::weighted(0.85, (-3i64..4, 0i64..6, prop::bool::weighted(0.15)))
        .prop_map(|c| c.map(|(points, reach_seq, hidden)| Contender { points, reach_seq, hidden }))
}

fn prize_table() -> impl Strategy<Value = Vec<Prize>> {
    prop::collection::vec(1u64..4, 0..4).prop_map(|widths| {
        let mut from = 1;
        widths
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                let p = prize(from, from + w - 1, &format!("p{i}"));
                from += w;
                p
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn changing_nothing_moves_nobody(
        sort in sort(),
        policy in policy(),
        prizes in prize_table(),
        board in prop::collection::vec(contender(), 0..30),
        same in prop::collection::vec(0usize..30, 0..5),
    ) {
        let board: BTreeMap<MemberId, Contender> = board
            .into_iter()
            .enumerate()
            .filter_map(|(i, c)| Some((m(&format!("m{i}")), c?)))
            .collect();
        // Touching members without changing them is no change either.
        let touched: Vec<Touched> = same
            .into_iter()
            .map(|i| m(&format!("m{i}")))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|member| Touched { before: board.get(&member).copied(), after: board.get(&member).copied(), member })
            .collect();
        let (got, after) = run(sort, policy, &prizes, ordered(sort, policy, &board), &touched, 100);
        prop_assert!(got.moves.is_empty());
        prop_assert_eq!(got.shifted, 0);
        prop_assert!(got.prizes.is_empty());
        prop_assert_eq!(after, full(sort, policy, &board, &prizes));
    }

    #[test]
    fn moves_shifts_and_prizes_account_for_every_difference(
        sort in sort(),
        policy in policy(),
        prizes in prize_table(),
        board in prop::collection::vec(contender(), 0..40),
        changes in prop::collection::btree_map(0usize..45, contender(), 0..6),
        bound in 0usize..5,
    ) {
        let before_board: BTreeMap<MemberId, Contender> = board
            .into_iter()
            .enumerate()
            .filter_map(|(i, c)| Some((m(&format!("m{i}")), c?)))
            .collect();
        let mut after_board = before_board.clone();
        let mut touched = Vec::new();
        for (i, after) in changes {
            let member = m(&format!("m{i}"));
            let before = before_board.get(&member).copied();
            match after {
                Some(a) => after_board.insert(member.clone(), a),
                None => after_board.remove(&member),
            };
            touched.push(Touched { member, before, after });
        }
        let (got, after) = run(sort, policy, &prizes, ordered(sort, policy, &before_board), &touched, bound);

        // The standings after are the settlement's own of the board after.
        let (old, new) = (full(sort, policy, &before_board, &prizes), full(sort, policy, &after_board, &prizes));
        prop_assert_eq!(&after, &new);

        let rank = |s: &[Standing]| -> BTreeMap<MemberId, (u64, Option<String>)> {
            s.iter().map(|s| (s.member.clone(), (s.rank, s.prize.clone()))).collect()
        };
        let (was, now) = (rank(&old), rank(&new));
        let is_touched = |member: &MemberId| touched.iter().any(|t| &t.member == member);
        let everyone: std::collections::BTreeSet<&MemberId> = before_board.keys().chain(after_board.keys()).collect();

        // Moves: exactly the touched members whose points or rank differ, with both.
        let mut expected_moves = Vec::new();
        for t in &touched {
            let m = Move {
                member: t.member.clone(),
                points_before: before_board.get(&t.member).map(|c| c.points),
                points_after: after_board.get(&t.member).map(|c| c.points),
                rank_before: was.get(&t.member).map(|r| r.0),
                rank_after: now.get(&t.member).map(|r| r.0),
            };
            if m.points_before != m.points_after || m.rank_before != m.rank_after {
                expected_moves.push(m);
            }
        }
        prop_assert_eq!(&got.moves, &expected_moves);

        // Shifted: every untouched member whose rank changed, listed in the order after.
        let shifted: Vec<Move> = new
            .iter()
            .filter(|s| !is_touched(&s.member) && was.get(&s.member).map(|r| r.0) != Some(s.rank))
            .map(|s| Move {
                member: s.member.clone(),
                points_before: Some(s.points),
                points_after: Some(s.points),
                rank_before: was.get(&s.member).map(|r| r.0),
                rank_after: Some(s.rank),
            })
            .collect();
        prop_assert_eq!(got.shifted, shifted.len() as u64);
        prop_assert_eq!(&got.shifted_members[..], &shifted[..bound.min(shifted.len())]);
        // Together they are every member whose rank changed.
        let changed_rank = everyone
            .iter()
            .filter(|member| was.get(**member).map(|r| r.0) != now.get(**member).map(|r| r.0))
            .count() as u64;
        let touched_rank = got.moves.iter().filter(|m| m.rank_before != m.rank_after).count() as u64;
        prop_assert_eq!(touched_rank + got.shifted, changed_rank);

        // Prizes: one change per member whose prize differs, and applying them to the prizes
        // before gives the prizes after — the table is conserved.
        let prize_of = |r: &BTreeMap<MemberId, (u64, Option<String>)>, member: &MemberId| {
            r.get(member).and_then(|r| r.1.clone())
        };
        let mut awarded: BTreeMap<MemberId, String> =
            was.iter().filter_map(|(k, v)| Some((k.clone(), v.1.clone()?))).collect();
        for p in &got.prizes {
            prop_assert_ne!(&p.before, &p.after);
            prop_assert_eq!(&p.before, &prize_of(&was, &p.member));
            prop_assert_eq!(&p.after, &prize_of(&now, &p.member));
            match &p.after {
                Some(prize) => awarded.insert(p.member.clone(), prize.clone()),
                None => awarded.remove(&p.member),
            };
        }
        let expected: BTreeMap<MemberId, String> =
            now.iter().filter_map(|(k, v)| Some((k.clone(), v.1.clone()?))).collect();
        prop_assert_eq!(awarded, expected);
        let listed = got.prizes.iter().map(|p| &p.member).collect::<std::collections::BTreeSet<_>>();
        prop_assert_eq!(listed.len(), got.prizes.len(), "one change per member");
    }
}
