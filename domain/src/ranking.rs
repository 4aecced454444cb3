//! Rank numbers. Under `shared`, rank = 1 + the number of members with strictly more points
//! (competition ranking 1, 2, 2, 4); under `first_reached`, scores are unique so rank = position.

use crate::kinds::TiePolicy;

/// Ranks for a run of entries read best-first from position `offset` (0-based) of a board.
///
/// `points` are the entries' points in board order. `ahead_of_first` is the number of members with
/// strictly more points than the first entry (only used under `shared`; equal to `offset` when the
/// first entry does not tie with the entry before it).
pub fn ranks(policy: TiePolicy, offset: u64, ahead_of_first: u64, points: &[i64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        let position = offset + i as u64;
        let rank = match policy {
            TiePolicy::FirstReached => position + 1,
            TiePolicy::Shared if i == 0 => ahead_of_first + 1,
            // Sorted best-first: equal points keep the previous rank; a drop means every earlier
            // position is strictly ahead.
            TiePolicy::Shared if points[i - 1] == *p => out[i - 1],
            TiePolicy::Shared => position + 1,
        };
        out.push(rank);
    }
    out
}

/// Which of a run of ranks are shared with a neighbour. `first_tied_before` tells whether the
/// first entry ties with the entry before the run (under `shared`: fewer members ahead of it than
/// its position).
pub fn ties(ranks: &[u64], first_tied_before: bool) -> Vec<bool> {
    (0..ranks.len())
        .map(|i| {
            (i == 0 && first_tied_before)
                || (i > 0 && ranks[i - 1] == ranks[i])
                || ranks.get(i + 1) == Some(&ranks[i])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shared_ranks_are_competition_ranks() {
        assert_eq!(ranks(TiePolicy::Shared, 0, 0, &[100, 90, 90, 80]), vec![1, 2, 2, 4]);
        assert_eq!(ranks(TiePolicy::FirstReached, 0, 0, &[100, 90, 90, 80]), vec![1, 2, 3, 4]);
    }

    #[test]
    fn a_page_that_starts_inside_a_tie_keeps_the_tie_rank() {
        // Board: 100, 90, 90, 90, 80 — the page from offset 2 starts inside the 90s (1 ahead).
        assert_eq!(ranks(TiePolicy::Shared, 2, 1, &[90, 90, 80]), vec![2, 2, 5]);
    }

    #[test]
    fn ties_mark_every_member_of_a_shared_rank() {
        assert_eq!(ties(&[1, 2, 2, 4], false), vec![false, true, true, false]);
        assert_eq!(ties(&[2, 2, 5], true), vec![true, true, false]);
        assert_eq!(ties(&[5], true), vec![true]);
        assert_eq!(ties(&[], false), Vec::<bool>::new());
    }

    proptest! {
        #[test]
        fn shared_ranks_match_a_naive_reference(
            mut board in prop::collection::vec(-5i64..5, 1..60),
            start in 0usize..60,
            len in 0usize..60,
        ) {
            board.sort_unstable_by(|a, b| b.cmp(a));
            let start = start.min(board.len());
            let end = (start + len).min(board.len());
            let page = &board[start..end];
            let naive = |p: i64| 1 + board.iter().filter(|q| **q > p).count() as u64;
            let ahead = page.first().map(|p| naive(*p) - 1).unwrap_or(0);
            let got = ranks(TiePolicy::Shared, start as u64, ahead, page);
            let expected: Vec<u64> = page.iter().map(|p| naive(*p)).collect();
            prop_assert_eq!(got, expected);
        }
    }
}
