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
//!
//! **Segments** (issue 43): each value of a declared dimension is a ranking of its own.
//! [`roster_standings`] takes each value's members out of the board's standings in their order
//! (the same comparator, so no second sort), ranks them anew under the tie policy and awards the
//! dimension's prize table; [`segment_standings`] does the same from each member's values. Each segment ranking has its digest (the canonical text with a `segment` line);
//! a settlement with at least one segment ranking records as its digest the SHA-256 of
//! [`folded_text`], which names the board's standings digest and every segment's member count and
//! digest. A board without segment rankings keeps the plain standings digest, as before.

use crate::board::{Prize, SegmentPrizes};
use crate::ids::MemberId;
use crate::kinds::{Sort, TiePolicy};
use crate::segment::{Segment, Values};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
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
    standings_text(board, period, None, standings)
}

/// The canonical text, with a `segment` line after the period for a segment ranking's.
fn standings_text(board: &str, period: &str, segment: Option<&Segment>, standings: &[Standing]) -> String {
    let mut text = String::with_capacity(96 + standings.len() * 24);
    let _ =
        write!(text, "laurel-standings\nrule_version\t{RULE_VERSION}\nboard\t{board}\nperiod\t{period}\n");
    if let Some(segment) = segment {
        let _ = writeln!(text, "segment\t{segment}");
    }
    for s in standings {
        let _ =
            writeln!(text, "{}\t{}\t{}\t{}", s.rank, s.member, s.points, s.prize.as_deref().unwrap_or(""));
    }
    text
}

/// One segment ranking's standings at a settlement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentStandings {
    pub segment: Segment,
    pub standings: Vec<Standing>,
}

/// What a settlement records of one segment ranking: how many members it ranks and the digest
/// of its standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SegmentSettled {
    pub dimension: String,
    pub value: String,
    pub members: u64,
    pub digest: String,
}

/// Every segment ranking of a settlement, in (dimension, value) order: each member of the
/// board's `standings` (in their order) joins the ranking of each value `values` gives it, is
/// ranked under `policy` among that ranking's members and awarded its dimension's prize.
pub fn segment_standings<'v>(
    policy: TiePolicy,
    standings: &[Standing],
    values: impl Fn(&MemberId) -> Option<&'v Values>,
    prizes: &SegmentPrizes,
) -> Vec<SegmentStandings> {
    let mut rosters: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for s in standings {
        for (dimension, value) in values(&s.member).into_iter().flatten() {
            rosters.entry((dimension, value)).or_default().push(s.member.as_str());
        }
    }
    let rosters = rosters.into_iter().map(|((dimension, value), members)| (dimension, value, members));
    roster_standings(policy, standings, rosters, prizes)
}

/// [`segment_standings`] from each value's roster — `(dimension, value, members)`, each value
/// once, members in any order — as the ledger lists them: a roster's members take their places
/// in the board's `standings` (members without a standing, hidden ones, have none in the
/// segment either), and a roster with no standing member makes no ranking.
pub fn roster_standings<'r, M: IntoIterator<Item = &'r str>>(
    policy: TiePolicy,
    standings: &[Standing],
    rosters: impl IntoIterator<Item = (&'r str, &'r str, M)>,
    prizes: &SegmentPrizes,
) -> Vec<SegmentStandings> {
    let place: HashMap<&str, usize> =
        standings.iter().enumerate().map(|(i, s)| (s.member.as_str(), i)).collect();
    let mut rankings: Vec<SegmentStandings> = rosters
        .into_iter()
        .filter_map(|(dimension, value, members)| {
            let mut places: Vec<usize> = members.into_iter().filter_map(|m| place.get(m).copied()).collect();
            if places.is_empty() {
                return None;
            }
            // The board's order, so no second sort by points.
            places.sort_unstable();
            let ordered = places
                .into_iter()
                .map(|i| FinalTotal {
                    member: standings[i].member.clone(),
                    points: standings[i].points,
                    reach_seq: 0,
                })
                .collect();
            let table = prizes.get(dimension).map_or(&[][..], Vec::as_slice);
            let segment = Segment { dimension: dimension.to_owned(), value: value.to_owned() };
            Some(SegmentStandings { standings: ranked(policy, ordered, table), segment })
        })
        .collect();
    rankings.sort_unstable_by(|a, b| {
        (&a.segment.dimension, &a.segment.value).cmp(&(&b.segment.dimension, &b.segment.value))
    });
    rankings
}

/// The canonical text of one segment ranking's standings: [`canonical_text`]'s, with a line
/// naming the segment after the period.
pub fn segment_canonical_text(
    board: &str,
    period: &str,
    segment: &Segment,
    standings: &[Standing],
) -> String {
    standings_text(board, period, Some(segment), standings)
}

/// The text a segmented settlement's digest is computed over: the board's standings digest,
/// then each segment ranking's member count and digest in (dimension, value) order.
pub fn folded_text(board: &str, period: &str, standings_digest: &str, segments: &[SegmentSettled]) -> String {
    let mut text = format!(
        "laurel-settlement\nrule_version\t{RULE_VERSION}\nboard\t{board}\nperiod\t{period}\nstandings\t{standings_digest}\n"
    );
    for s in segments {
        let _ = writeln!(text, "segment\t{}:{}\t{}\t{}", s.dimension, s.value, s.members, s.digest);
    }
    text
}

/// One period of a season as its settlement names it: the source period, the revision of its
/// settlement the season was settled from, and that revision's digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeasonWeek {
    pub period: String,
    pub revision: i64,
    pub digest: String,
}

/// The text a season's settlement digest is computed over: the season's own settlement digest,
/// then the source board and each of its periods' settlement revision and digest, in the
/// season's order — so a season is checked from its weeks' published digests.
pub fn season_text(
    board: &str,
    period: &str,
    own_digest: &str,
    source: &str,
    weeks: &[SeasonWeek],
) -> String {
    let mut text = format!(
        "laurel-season\nrule_version\t{RULE_VERSION}\nboard\t{board}\nperiod\t{period}\nstandings\t{own_digest}\nsource\t{source}\n"
    );
    for w in weeks {
        let _ = writeln!(text, "week\t{}\t{}\t{}", w.period, w.revision, w.digest);
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
    fn a_segment_ranks_its_members_in_the_board_order_with_its_dimension_prizes() {
        let prizes = SegmentPrizes::from([("province".to_owned(), vec![prize(1, 1, "provincial gold")])]);
        let board = standings(
            Sort::Desc,
            TiePolicy::Shared,
            vec![t("a", 100, 0), t("b", 90, 1), t("c", 90, 2), t("d", 80, 3), t("e", 70, 4)],
            &[prize(1, 1, "gold")],
        );
        let v = |p: &str, k: &str| Values::from([("province".into(), p.into()), ("class".into(), k.into())]);
        let held = std::collections::HashMap::from([
            ("a", v("zj", "c1")),
            ("b", v("js", "c1")),
            ("c", v("js", "c1")),
            ("d", v("zj", "c2")),
        ]);
        let got = segment_standings(TiePolicy::Shared, &board, |m| held.get(m.as_str()), &prizes);
        let named: Vec<String> = got.iter().map(|s| s.segment.to_string()).collect();
        assert_eq!(named, ["class:c1", "class:c2", "province:js", "province:zj"]);
        // c and b tie at 90 in js: both rank 1 and share the provincial prize; classes have none.
        assert_eq!(
            summary(&got[2].standings),
            vec![(1, "c", 90, Some("provincial gold")), (1, "b", 90, Some("provincial gold"))]
        );
        assert_eq!(
            summary(&got[3].standings),
            vec![(1, "a", 100, Some("provincial gold")), (2, "d", 80, None)]
        );
        assert_eq!(
            summary(&got[0].standings),
            vec![(1, "a", 100, None), (2, "c", 90, None), (2, "b", 90, None)]
        );
        let text = segment_canonical_text("b", "2026-W34", &got[3].segment, &got[3].standings);
        assert!(
            text.contains("period\t2026-W34\nsegment\tprovince:zj\n1\ta\t100\tprovincial gold\n"),
            "{text}"
        );
        let folded = folded_text(
            "b",
            "2026-W34",
            "d0",
            &[SegmentSettled {
                dimension: "class".into(),
                value: "c1".into(),
                members: 3,
                digest: "d1".into(),
            }],
        );
        assert!(folded.ends_with("standings\td0\nsegment\tclass:c1\t3\td1\n"), "{folded}");
    }

    #[test]
    fn the_canonical_text_does_not_depend_on_input_order() {
        let a = standings(Sort::Desc, TiePolicy::Shared, vec![t("x", 5, 0), t("y", 5, 1), t("z", 7, 2)], &[]);
        let b = standings(Sort::Desc, TiePolicy::Shared, vec![t("z", 7, 9), t("y", 5, 0), t("x", 5, 4)], &[]);
        assert_eq!(canonical_text("b", "2026-W34", &a), canonical_text("b", "2026-W34", &b));
        assert!(canonical_text("b", "2026-W34", &a).ends_with("1\tz\t7\t\n2\ty\t5\t\n2\tx\t5\t\n"));
    }

    proptest::proptest! {
        /// Ranking from the ledger's rosters (any member order, hidden members — held values but
        /// no standing — included) gives what ranking from each member's values gives.
        #[test]
        fn rosters_rank_as_each_member_values_do(
            members in proptest::collection::vec((0i64..6, 0usize..3, 0usize..4, proptest::bool::weighted(0.2)), 0..40),
            first_reached in proptest::bool::ANY,
        ) {
            let policy = if first_reached { TiePolicy::FirstReached } else { TiePolicy::Shared };
            let name = |i: usize| format!("m{i}");
            let totals: Vec<FinalTotal> = members
                .iter()
                .enumerate()
                .filter(|(_, (.., hidden))| !hidden)
                .map(|(i, (points, ..))| t(&name(i), *points, i as i64))
                .collect();
            let board = standings(Sort::Desc, policy, totals, &[]);
            let values: std::collections::HashMap<String, Values> = members
                .iter()
                .enumerate()
                .map(|(i, (_, p, k, _))| {
                    (name(i), Values::from([("province".into(), format!("p{p}")), ("class".into(), format!("k{k}"))]))
                })
                .collect();
            let prizes = SegmentPrizes::from([("province".to_owned(), vec![prize(1, 2, "medal")])]);
            let want = segment_standings(policy, &board, |m| values.get(m.as_str()), &prizes);
            let mut rosters: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
            for (member, held) in &values {
                for (d, v) in held {
                    rosters.entry((d, v)).or_default().push(member);
                }
            }
            for members in rosters.values_mut() {
                members.sort_unstable_by(|a, b| b.cmp(a));
            }
            let got = roster_standings(
                policy,
                &board,
                rosters.iter().rev().map(|((d, v), m)| (*d, *v, m.iter().copied())),
                &prizes,
            );
            proptest::prop_assert_eq!(got, want);
        }
    }
}
