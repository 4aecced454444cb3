//! The score codec: how a member's points (and, under `first_reached`, the server-assigned reach
//! sequence) become the number stored in a Redis sorted set.
//!
//! Redis scores are IEEE doubles, exact only up to 2^53. Under `first_reached` the score is
//! `points × B + (B − 1 − seq)`: more points always win, and for equal points a smaller sequence
//! (reached earlier) wins. A board whose bounds could leave the exact range is refused at creation,
//! and a write that would leave its bounds is refused with a reason — never silent precision loss
//! (docs/DESIGN.md, "Tie encoding" and "The 2^53 budget").
//!
//! An ascending board (`Sort::Asc`, lower is better) encodes the negated points: `−points × B +
//! (B − 1 − seq)`. Every Redis read (`ZREVRANGE`, `window.lua`, cursors, around-me, snapshots,
//! `ZCOUNT` thresholds) then ranks fewer points first without knowing the board's order; only
//! encoding and decoding differ. The budget is the same because the bounds' magnitude is.

use crate::kinds::{Sort, TiePolicy};

/// 2^53: every integer of smaller magnitude is exact as an IEEE double.
pub const EXACT_LIMIT: i64 = 1 << 53;

/// Why a board's bounds or a write were refused by the codec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("min_points ({min}) must not be above max_points ({max})")]
    EmptyRange { min: i64, max: i64 },
    #[error("tie_base must be at least 2 for first_reached boards, got {0}")]
    BaseTooSmall(i64),
    #[error(
        "scores could not stay exact: max(|min_points|, max_points) × tie_base + tie_base = {budget} \
         exceeds 2^53; lower max_points or tie_base"
    )]
    BeyondExactRange { budget: i128 },
    #[error("{points} points is outside the board's bounds [{min}, {max}]")]
    PointsOutOfBounds { points: i64, min: i64, max: i64 },
    #[error("reach sequence {seq} is not below tie_base {base}: the period has used up its sequence budget")]
    SequenceExhausted { seq: i64, base: i64 },
}

/// The codec of one board. Construction proves the bounds can be encoded exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoreCodec {
    policy: TiePolicy,
    /// `B`: the number of distinct reach sequences per period (first_reached only; 1 for shared).
    base: i64,
    min_points: i64,
    max_points: i64,
    sort: Sort,
}

impl ScoreCodec {
    pub fn new(
        policy: TiePolicy,
        min_points: i64,
        max_points: i64,
        tie_base: i64,
    ) -> Result<Self, CodecError> {
        if min_points > max_points {
            return Err(CodecError::EmptyRange { min: min_points, max: max_points });
        }
        let base = match policy {
            TiePolicy::Shared => 1,
            TiePolicy::FirstReached if tie_base < 2 => return Err(CodecError::BaseTooSmall(tie_base)),
            TiePolicy::FirstReached => tie_base,
        };
        let magnitude = i128::from(min_points).abs().max(i128::from(max_points).abs());
        let budget = match policy {
            TiePolicy::Shared => magnitude,
            TiePolicy::FirstReached => magnitude * i128::from(base) + i128::from(base),
        };
        if budget > i128::from(EXACT_LIMIT) {
            return Err(CodecError::BeyondExactRange { budget });
        }
        Ok(Self { policy, base, min_points, max_points, sort: Sort::Desc })
    }

    /// The same codec for a board ranked in `sort` order (a new codec is descending).
    pub fn sorted(self, sort: Sort) -> Self {
        Self { sort, ..self }
    }

    pub fn policy(&self) -> TiePolicy {
        self.policy
    }

    /// Which end of the points ranks first.
    pub fn sort(&self) -> Sort {
        self.sort
    }

    /// The points as the score orders them: negated on ascending boards, so a higher key always
    /// ranks higher.
    fn key(&self, points: i64) -> i64 {
        match self.sort {
            Sort::Desc => points,
            // Cannot overflow: the bounds' magnitude is within 2^53.
            Sort::Asc => -points,
        }
    }

    /// The inclusive bounds of a member's points.
    pub fn bounds(&self) -> (i64, i64) {
        (self.min_points, self.max_points)
    }

    /// `B`, the number of reach sequences per period (1 under `shared`).
    pub fn tie_base(&self) -> i64 {
        self.base
    }

    /// Checks that `points` lies within the board's bounds.
    pub fn check_points(&self, points: i64) -> Result<(), CodecError> {
        if points < self.min_points || points > self.max_points {
            return Err(CodecError::PointsOutOfBounds { points, min: self.min_points, max: self.max_points });
        }
        Ok(())
    }

    /// The exact score for `points` reached at sequence `seq` (ignored under `shared`).
    pub fn encode(&self, points: i64, seq: i64) -> Result<i64, CodecError> {
        self.check_points(points)?;
        let points = self.key(points);
        match self.policy {
            TiePolicy::Shared => Ok(points),
            TiePolicy::FirstReached => {
                if !(0..self.base).contains(&seq) {
                    return Err(CodecError::SequenceExhausted { seq, base: self.base });
                }
                Ok(points * self.base + (self.base - 1 - seq))
            }
        }
    }

    /// The points a stored score stands for.
    pub fn points(&self, score: i64) -> i64 {
        self.key(score.div_euclid(self.base))
    }

    /// The reach sequence a stored score carries (always 0 under `shared`).
    pub fn sequence(&self, score: i64) -> i64 {
        self.base - 1 - score.rem_euclid(self.base)
    }

    /// The lowest score that stands for `points` or better — at least `points` on a descending
    /// board, at most `points` on an ascending one (for threshold counts).
    pub fn lowest_score_for(&self, points: i64) -> i64 {
        self.key(points) * self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bounds_that_cannot_be_exact_are_refused() {
        // 10^9 points × 10^7 sequences ≈ 10^16 > 2^53 ≈ 9.007 × 10^15.
        let err = ScoreCodec::new(TiePolicy::FirstReached, 0, 1_000_000_000, 10_000_000).unwrap_err();
        assert!(matches!(err, CodecError::BeyondExactRange { .. }));
        assert!(ScoreCodec::new(TiePolicy::FirstReached, -1_000_000, 1_000_000, 1_000_000_000).is_ok());
        assert!(ScoreCodec::new(TiePolicy::Shared, 0, EXACT_LIMIT, 0).is_ok());
        assert!(ScoreCodec::new(TiePolicy::Shared, 0, EXACT_LIMIT + 1, 0).is_err());
        // The negative bound counts as much as the positive one.
        assert!(ScoreCodec::new(TiePolicy::Shared, -EXACT_LIMIT - 1, 0, 0).is_err());
        assert!(ScoreCodec::new(TiePolicy::Shared, 5, 4, 0).is_err());
    }

    #[test]
    fn out_of_range_writes_are_refused_with_a_reason() {
        let c = ScoreCodec::new(TiePolicy::FirstReached, -10, 100, 1000).unwrap();
        assert_eq!(c.encode(101, 0), Err(CodecError::PointsOutOfBounds { points: 101, min: -10, max: 100 }));
        assert_eq!(c.encode(1, 1000), Err(CodecError::SequenceExhausted { seq: 1000, base: 1000 }));
        assert!(c.encode(-10, 999).is_ok());
    }

    #[test]
    fn ascending_boards_rank_fewer_points_first() {
        let c = ScoreCodec::new(TiePolicy::FirstReached, 0, 1000, 1000).unwrap().sorted(Sort::Asc);
        assert!(c.encode(61, 5).unwrap() > c.encode(62, 0).unwrap());
        assert!(c.encode(61, 3).unwrap() > c.encode(61, 4).unwrap());
        assert_eq!(c.points(c.encode(61, 3).unwrap()), 61);
        assert_eq!(c.sequence(c.encode(61, 3).unwrap()), 3);
        let c = ScoreCodec::new(TiePolicy::Shared, 0, 1000, 1).unwrap().sorted(Sort::Asc);
        assert_eq!(c.encode(62, 0).unwrap(), -62);
    }

    #[test]
    fn earlier_reach_wins_among_equal_points() {
        let c = ScoreCodec::new(TiePolicy::FirstReached, 0, 1000, 1_000_000).unwrap();
        assert!(c.encode(90, 3).unwrap() > c.encode(90, 4).unwrap());
        assert!(c.encode(91, 999_999).unwrap() > c.encode(90, 0).unwrap());
    }

    fn codec_and_points() -> impl Strategy<Value = (ScoreCodec, i64, i64, i64, i64)> {
        (1i64..=1_000_000, 2i64..=1_000_000, any::<bool>(), any::<bool>())
            .prop_filter_map("bounds must be exact", |(max, base, shared, asc)| {
                let policy = if shared { TiePolicy::Shared } else { TiePolicy::FirstReached };
                let sort = if asc { Sort::Asc } else { Sort::Desc };
                ScoreCodec::new(policy, -max, max, base).ok().map(|c| (c.sorted(sort), max, base))
            })
            .prop_flat_map(|(c, max, base)| (Just(c), -max..=max, 0..base, -max..=max, 0..base))
    }

    proptest! {
        #[test]
        fn decode_inverts_encode((c, p, s, _, _) in codec_and_points()) {
            let score = c.encode(p, s).unwrap();
            prop_assert_eq!(c.points(score), p);
            if c.policy() == TiePolicy::FirstReached {
                prop_assert_eq!(c.sequence(score), s);
            }
            prop_assert!(score.abs() <= EXACT_LIMIT);
            prop_assert_eq!(score as f64 as i64, score, "score must be exact as a double");
        }

        #[test]
        fn thresholds_count_the_members_at_least_as_good((c, p, s, q, _) in codec_and_points()) {
            // A member with `p` points is counted for the threshold `q` exactly when `p` is `q` or
            // better in the board's order.
            let score = c.encode(p, s).unwrap();
            prop_assert_eq!(score >= c.lowest_score_for(q), p == q || c.sort().better(p, q));
        }

        #[test]
        fn encoding_preserves_the_ranking_order((c, p1, s1, p2, s2) in codec_and_points()) {
            let (a, b) = (c.encode(p1, s1).unwrap(), c.encode(p2, s2).unwrap());
            // Better points (more, or fewer on an ascending board) rank higher under every policy.
            if c.sort().better(p1, p2) { prop_assert!(a > b); }
            // Equal points: shared ties, first_reached prefers the smaller sequence.
            if p1 == p2 {
                match c.policy() {
                    TiePolicy::Shared => prop_assert_eq!(a, b),
                    TiePolicy::FirstReached => prop_assert_eq!(a > b, s1 < s2),
                }
            }
        }
    }
}
