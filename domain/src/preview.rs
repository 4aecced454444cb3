//! What a preview (a dry run of admin changes) would do to a period's standings: which members
//! move because of the changes, how many others only shift, which prizes change hands. Pure: the
//! engine reads the standings inputs before, works out the changed members' totals after, and
//! this module compares the two with the settlement's own order, ranks and prizes
//! ([`crate::settlement::standing_order`], [`crate::settlement::ranked`]) — never a second copy.
//!
//! Cost: linear in the members plus k·log k for the k changed ones. The caller hands the totals
//! before already in the standings order; the list after is that list without the changed members
//! merged with their new totals, so the unchanged members keep their relative order and are
//! compared pairwise in one pass.

use crate::board::Prize;
use crate::ids::MemberId;
use crate::kinds::TiePolicy;
use crate::settlement::{FinalTotal, Standing, ranked, standing_order};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A member's total as the standings see it: points, reach sequence and whether it is hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contender {
    pub points: i64,
    pub reach_seq: i64,
    pub hidden: bool,
}

/// A member the changes touch, with its total before and after (`None`: no total).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub member: MemberId,
    pub before: Option<Contender>,
    pub after: Option<Contender>,
}

/// One member's place before and after. Points are `None` without a total; ranks are `None`
/// for a member that is not ranked (hidden, or no total).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Move {
    pub member: MemberId,
    pub points_before: Option<i64>,
    pub points_after: Option<i64>,
    pub rank_before: Option<u64>,
    pub rank_after: Option<u64>,
}

/// A prize that changes hands: what the member had before and would have after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PrizeChange {
    pub member: MemberId,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The comparison of the standings before and after the changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Touched members whose points or rank change, in the order they were given.
    pub moves: Vec<Move>,
    /// Untouched members whose rank changes only because others moved.
    pub shifted: u64,
    /// The first of them in the order after, at most the bound given to [`compare`].
    pub shifted_members: Vec<Move>,
    /// Every member whose prize changes, in the order after (then those no longer ranked).
    pub prizes: Vec<PrizeChange>,
    /// The standings after the changes (what a settlement of them would record).
    pub after: Vec<Standing>,
}

/// One change of a preview, as an admin asks for it. The same words as the admin routes that
/// make each change for real; written as the API takes it (`{"revoke": "<event_id>"}`,
/// `{"correct": {"member": …, "delta": …}}`, …) and stored with the draft so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PreviewChange {
    /// Revoke an applied event or submission of the period, by its id.
    Revoke(crate::ids::EventId),
    /// Correct a member's points by `delta`.
    Correct { member: MemberId, delta: i64 },
    /// Accept a pending late write of the period, by its id.
    AcceptLate(i64),
    /// Reject a pending late write of the period, by its id.
    RejectLate(i64),
    /// Hide a member from the period's ranking and standings.
    Hide(MemberId),
    /// Show a hidden member again.
    Unhide(MemberId),
    /// Revoke every entry of the member that counts in the period, oldest first.
    RevokeMember(MemberId),
}

/// The changes in words, for the people a revision concerns: "1 entry revoked, 2 corrections"
/// (each kind once, in the order the kinds first appear).
pub fn describe(changes: &[PreviewChange]) -> String {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for change in changes {
        let kind = match change {
            PreviewChange::Revoke(_) => "entry revoked",
            PreviewChange::RevokeMember(_) => "member's entries revoked",
            PreviewChange::Correct { .. } => "correction",
            PreviewChange::AcceptLate(_) => "late write accepted",
            PreviewChange::RejectLate(_) => "late write rejected",
            PreviewChange::Hide(_) => "member hidden",
            PreviewChange::Unhide(_) => "member shown again",
        };
        match counts.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((kind, 1)),
        }
    }
    let word = |kind: &str, n: usize| match (kind, n) {
        (k, 1) => format!("1 {k}"),
        ("entry revoked", n) => format!("{n} entries revoked"),
        ("member's entries revoked", n) => format!("{n} members' entries revoked"),
        ("correction", n) => format!("{n} corrections"),
        ("late write accepted", n) => format!("{n} late writes accepted"),
        ("late write rejected", n) => format!("{n} late writes rejected"),
        ("member hidden", n) => format!("{n} members hidden"),
        (_, n) => format!("{n} members shown again"),
    };
    counts.iter().map(|(k, n)| word(k, *n)).collect::<Vec<_>>().join(", ")
}

/// Compares the standings of `before` (the ranked — visible — totals, in the standings order)
/// with the standings after the `touched` members' totals change. A touched member's `before`
/// must be what `before` holds for it (in it exactly when visible); untouched members keep
/// their totals. Lists at most `shifted_bound` shifted members.
pub fn compare(
    policy: TiePolicy,
    prizes: &[Prize],
    before: Vec<FinalTotal>,
    touched: &[Touched],
    shifted_bound: usize,
) -> Comparison {
    let index: HashMap<&MemberId, usize> = touched.iter().enumerate().map(|(i, t)| (&t.member, i)).collect();
    let mut entering: Vec<FinalTotal> = touched
        .iter()
        .filter_map(|t| {
            let a = t.after.filter(|a| !a.hidden)?;
            Some(FinalTotal { member: t.member.clone(), points: a.points, reach_seq: a.reach_seq })
        })
        .collect();
    entering.sort_unstable_by(|a, b| standing_order(policy, a, b));
    // The list after: the untouched members in their order, merged with the touched ones.
    let mut after = Vec::with_capacity(before.len() + entering.len());
    let mut entering = entering.into_iter().peekable();
    for t in before.iter().filter(|t| !index.contains_key(&t.member)) {
        while let Some(e) = entering.next_if(|e| standing_order(policy, e, t).is_lt()) {
            after.push(e);
        }
        after.push(t.clone());
    }
    after.extend(entering);
    let before = ranked(policy, before, prizes);
    let after = ranked(policy, after, prizes);

    // Pairwise over the untouched members, which appear in the same order in both lists.
    let mut shifted = 0;
    let mut shifted_members = Vec::new();
    let mut prize_changes = Vec::new();
    let mut was: Vec<Option<&Standing>> = vec![None; touched.len()];
    let mut now: Vec<Option<(usize, &Standing)>> = vec![None; touched.len()];
    let mut old = before.iter();
    for (position, s) in after.iter().enumerate() {
        if let Some(&i) = index.get(&s.member) {
            now[i] = Some((position, s));
            continue;
        }
        let b = loop {
            let b = old.next().expect("every untouched member is in both lists");
            match index.get(&b.member) {
                Some(&i) => was[i] = Some(b),
                None => break b,
            }
        };
        if b.rank != s.rank {
            shifted += 1;
            if shifted_members.len() < shifted_bound {
                shifted_members.push(Move {
                    member: s.member.clone(),
                    points_before: Some(b.points),
                    points_after: Some(s.points),
                    rank_before: Some(b.rank),
                    rank_after: Some(s.rank),
                });
            }
        }
        if b.prize != s.prize {
            let change =
                PrizeChange { member: s.member.clone(), before: b.prize.clone(), after: s.prize.clone() };
            prize_changes.push((Some(position), change));
        }
    }
    for b in old {
        if let Some(&i) = index.get(&b.member) {
            was[i] = Some(b);
        }
    }

    let mut moves = Vec::new();
    for (i, t) in touched.iter().enumerate() {
        let (was, now) = (was[i], now[i]);
        let m = Move {
            member: t.member.clone(),
            points_before: t.before.map(|c| c.points),
            points_after: t.after.map(|c| c.points),
            rank_before: was.map(|s| s.rank),
            rank_after: now.map(|(_, s)| s.rank),
        };
        if m.points_before != m.points_after || m.rank_before != m.rank_after {
            moves.push(m);
        }
        let (p, q) = (was.and_then(|s| s.prize.clone()), now.and_then(|(_, s)| s.prize.clone()));
        if p != q {
            prize_changes.push((
                now.map(|(position, _)| position),
                PrizeChange { member: t.member.clone(), before: p, after: q },
            ));
        }
    }
    // In the order after; members no longer ranked last (None sorts first, hence the flip).
    prize_changes.sort_by_key(|(position, _)| (position.is_none(), *position));
    let prizes = prize_changes.into_iter().map(|(_, c)| c).collect();
    Comparison { moves, shifted, shifted_members, prizes, after }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settlement::{order, standings};
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn m(s: &str) -> MemberId {
        MemberId::parse(s).unwrap()
    }

    fn c(points: i64, reach_seq: i64) -> Contender {
        Contender { points, reach_seq, hidden: false }
    }

    #[test]
    fn changes_are_described_by_kind_in_the_order_they_first_appear() {
        let e = |id: &str| crate::ids::EventId::parse(id).unwrap();
        let changes = [
            PreviewChange::Revoke(e("e1")),
            PreviewChange::Correct { member: m("u1"), delta: 2 },
            PreviewChange::Revoke(e("e2")),
            PreviewChange::Hide(m("u2")),
        ];
        assert_eq!(describe(&changes), "2 entries revoked, 1 correction, 1 member hidden");
        assert_eq!(describe(&changes[..1]), "1 entry revoked");
        assert_eq!(describe(&[]), "");
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
    fn full(policy: TiePolicy, board: &BTreeMap<MemberId, Contender>, prizes: &[Prize]) -> Vec<Standing> {
        let totals = board
            .iter()
            .filter(|(_, c)| !c.hidden)
            .map(|(member, c)| FinalTotal {
                member: member.clone(),
                points: c.points,
                reach_seq: c.reach_seq,
            })
            .collect();
        standings(policy, totals, prizes)
    }

    fn ordered(policy: TiePolicy, board: &BTreeMap<MemberId, Contender>) -> Vec<FinalTotal> {
        let mut totals: Vec<FinalTotal> = board
            .iter()
            .filter(|(_, c)| !c.hidden)
            .map(|(member, c)| FinalTotal {
                member: member.clone(),
                points: c.points,
                reach_seq: c.reach_seq,
            })
            .collect();
        order(policy, &mut totals);
        totals
    }

    #[test]
    fn a_correction_moves_one_member_shifts_the_ones_it_passes_and_hands_over_the_prize() {
        let board: BTreeMap<MemberId, Contender> =
            [("a", 100), ("b", 90), ("c", 80), ("d", 70)].iter().map(|(n, p)| (m(n), c(*p, 0))).collect();
        let prizes = [prize(1, 1, "gold"), prize(2, 3, "silver")];
        let touched = [Touched { member: m("d"), before: Some(c(70, 0)), after: Some(c(95, 9)) }];
        let got = compare(TiePolicy::Shared, &prizes, ordered(TiePolicy::Shared, &board), &touched, 100);
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
        let got = compare(
            TiePolicy::Shared,
            &[prize(1, 1, "gold")],
            ordered(TiePolicy::Shared, &board),
            &touched,
            1,
        );
        assert_eq!(got.moves[0].rank_after, None);
        assert_eq!(got.moves[0].points_after, Some(100));
        assert_eq!(
            (got.shifted, got.shifted_members.len()),
            (3, 1),
            "the bound limits the list, not the count"
        );
        let prizes: Vec<_> =
            got.prizes.iter().map(|p| (p.member.as_str(), p.before.as_deref(), p.after.as_deref())).collect();
        // Both members tied at the new rank 1 share its prize; the hidden one loses it.
        assert_eq!(
            prizes,
            vec![("c", None, Some("gold")), ("b", None, Some("gold")), ("a", Some("gold"), None)]
        );
    }

    fn policy() -> impl Strategy<Value = TiePolicy> {
        prop_oneof![Just(TiePolicy::Shared), Just(TiePolicy::FirstReached)]
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
            let got = compare(policy, &prizes, ordered(policy, &board), &touched, 100);
            prop_assert!(got.moves.is_empty());
            prop_assert_eq!(got.shifted, 0);
            prop_assert!(got.prizes.is_empty());
            prop_assert_eq!(got.after, full(policy, &board, &prizes));
        }

        #[test]
        fn moves_shifts_and_prizes_account_for_every_difference(
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
            let got = compare(policy, &prizes, ordered(policy, &before_board), &touched, bound);

            // The standings after are the settlement's own of the board after.
            let (old, new) = (full(policy, &before_board, &prizes), full(policy, &after_board, &prizes));
            prop_assert_eq!(&got.after, &new);

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
}
