//! Standings and their digest: what a settlement records. Pure, so the same standings come out
//! of the ledger on any machine (an imported period gives the identical digest).
//!
//! - Order: points in the board's order (descending, or ascending on a lower-is-better board);
//!   under `first_reached` the earlier reach sequence first; under
//!   `shared` equal points are listed by member id, descending — the order the live projection
//!   shows them in (Redis orders equal scores by member, reversed), so an archived board reads
//!   exactly as it did live. The order is canonical; the rank is shared.
//! - Ranks follow the tie policy (`shared`: 1, 2, 2, 4).
//! - Prizes come from the board's prize table by rank. Under `shared`, tied members share the
//!   prize of their rank: two members at rank 2 both receive the rank-2 prize, and as the next
//!   rank is 4, a prize only for rank 3 goes to nobody.
//!
//! [`standing_order`] is the one comparator (previews use it too), [`ranked`] gives ranks and
//! prizes, and [`canonical_text`] is the text behind the digest, tagged with [`RULE_VERSION`].

use crate::board::Prize;
use crate::ids::MemberId;
use crate::kinds::{Sort, TiePolicy};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The settlement rules' version, recorded with every settlement. Raise it whenever the order,
/// ranks, prizes or digest text change, so old and new settlements are never confused.
pub const RULE_VERSION: i64 = 1;

/// One member's final total, as the ledger holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalTotal {
    pub member: MemberId,
    pub points: i64,
    pub reach_seq: i64,
}

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub rank: u64,
    pub member: MemberId,
    pub points: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prize: Option<String>,
}

/// Orders and ranks final totals and assigns prizes.
pub fn standings(
    sort: Sort,
    policy: TiePolicy,
    mut totals: Vec<FinalTotal>,
    prizes: &[Prize],
) -> Vec<Standing> {
    order(sort, policy, &mut totals);
    ranked(policy, totals, prizes)
}

/// The standings order of two totals: points in `sort` order, then the tie policy's order. A
/// total order over distinct members, so sorting by it gives one list whatever the input order.
/// Equal points follow the same rule in both orders, as the codec keeps the reach sequence's
/// part of a score as it is on ascending boards.
pub fn standing_order(sort: Sort, policy: TiePolicy, a: &FinalTotal, b: &FinalTotal) -> std::cmp::Ordering {
    sort.cmp(a.points, b.points).then_with(|| match policy {
        TiePolicy::FirstReached => a.reach_seq.cmp(&b.reach_seq).then_with(|| a.member.cmp(&b.member)),
        TiePolicy::Shared => b.member.cmp(&a.member),
    })
}

/// Sorts totals into the standings order ([`standing_order`]).
pub fn order(sort: Sort, policy: TiePolicy, totals: &mut [FinalTotal]) {
    // Unstable is enough: no two members compare equal.
    totals.sort_unstable_by(|a, b| standing_order(sort, policy, a, b));
}

/// Ranks totals already in the standings order and assigns prizes.
pub fn ranked(policy: TiePolicy, ordered: Vec<FinalTotal>, prizes: &[Prize]) -> Vec<Standing> {
    let points: Vec<i64> = ordered.iter().map(|t| t.points).collect();
    let ranks = crate::ranking::ranks(policy, 0, 0, &points);
    ordered
        .into_iter()
        .zip(ranks)
        .map(|(t, rank)| Standing {
            rank,
            prize: prize_for(prizes, rank),
            member: t.member,
            points: t.points,
        })
        .collect()
}

/// The prize of a rank, if the table has one.
pub fn prize_for(prizes: &[Prize], rank: u64) -> Option<String> {
    prizes.iter().find(|p| (p.from_rank..=p.to_rank).contains(&rank)).map(|p| p.prize.clone())
}

/// The canonical text a settlement digest is computed over: a header naming the board, period
/// and rule version, then one tab-separated line per standing. Hash it with SHA-256.
pub fn canonical_text(board: &str, period: &str, standings: &[Standing]) -> String {
    let mut text =
        format!("laurel-standings\nrule_version\t{RULE_VERSION}\nboard\t{board}\nperiod\t{period}\n");
    for s in standings {
        let _ =
            writeln!(text, "{}\t{}\t{}\t{}", s.rank, s.member, s.points, s.prize.as_deref().unwrap_or(""));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(member: &str, points: i64, reach_seq: i64) -> FinalTotal {
        FinalTotal { member: MemberId::parse(member).unwrap(), points, reach_seq }
    }

    fn prize(from_rank: u64, to_rank: u64, prize: &str) -> Prize {
        Prize { from_rank, to_rank, prize: prize.into() }
    }

    fn summary(s: &[Standing]) -> Vec<(u64, &str, i64, Option<&str>)> {
        s.iter().map(|s| (s.rank, s.member.as_str(), s.points, s.prize.as_deref())).collect()
    }

    #[test]
    fn shared_ties_share_the_prize_of_their_rank_and_skip_the_next() {
        let prizes = [prize(1, 1, "gold"), prize(2, 2, "silver"), prize(3, 3, "bronze"), prize(4, 10, "pin")];
        let got = standings(
            Sort::Desc,
            TiePolicy::Shared,
            vec![t("c", 90, 0), t("a", 100, 9), t("b", 90, 1), t("d", 80, 2), t("e", 10, 3)],
            &prizes,
        );
        assert_eq!(
            summary(&got),
            vec![
                (1, "a", 100, Some("gold")),
                (2, "c", 90, Some("silver")),
                (2, "b", 90, Some("silver")),
                (4, "d", 80, Some("pin")),
                (5, "e", 10, Some("pin")),
            ]
        );
    }

    #[test]
    fn first_reached_orders_equal_points_by_reach_sequence() {
        let got = standings(
            Sort::Desc,
            TiePolicy::FirstReached,
            vec![t("c", 90, 0), t("b", 90, 1), t("a", 100, 9)],
            &[],
        );
        assert_eq!(summary(&got), vec![(1, "a", 100, None), (2, "c", 90, None), (3, "b", 90, None)]);
    }

    #[test]
    fn ascending_boards_list_fewer_points_first_with_the_same_tie_rules() {
        let prizes = [prize(1, 1, "gold"), prize(2, 2, "silver")];
        let all = vec![t("c", 90, 0), t("a", 100, 9), t("b", 90, 1), t("d", 80, 2)];
        let got = standings(Sort::Asc, TiePolicy::Shared, all.clone(), &prizes);
        assert_eq!(
            summary(&got),
            vec![
                (1, "d", 80, Some("gold")),
                (2, "c", 90, Some("silver")),
                (2, "b", 90, Some("silver")),
                (4, "a", 100, None),
            ]
        );
        let got = standings(Sort::Asc, TiePolicy::FirstReached, all, &prizes);
        assert_eq!(
            summary(&got),
            vec![
                (1, "d", 80, Some("gold")),
                (2, "c", 90, Some("silver")),
                (3, "b", 90, None),
                (4, "a", 100, None)
            ]
        );
    }

    #[test]
    fn the_canonical_text_does_not_depend_on_input_order() {
        let a = standings(Sort::Desc, TiePolicy::Shared, vec![t("x", 5, 0), t("y", 5, 1), t("z", 7, 2)], &[]);
        let b = standings(Sort::Desc, TiePolicy::Shared, vec![t("z", 7, 9), t("y", 5, 0), t("x", 5, 4)], &[]);
        assert_eq!(canonical_text("b", "2026-W34", &a), canonical_text("b", "2026-W34", &b));
        assert!(canonical_text("b", "2026-W34", &a).ends_with("1\tz\t7\t\n2\ty\t5\t\n2\tx\t5\t\n"));
    }
}
