//! Seasons (issue 45): a board whose standing per member is made of another board's periods
//! (its *weeks*, whatever the source's cadence). The rule is fixed at creation:
//!
//! - `sum`: the member's totals added up;
//! - `best` K: the K highest totals, the others dropped (between equal totals the later week is
//!   dropped); a member with fewer than K weeks keeps them all;
//! - `weighted`: each week's total times its whole-number weight;
//! - `placement`: a table of points per weekly rank (25, 18, 15, …), so that one huge week
//!   cannot decide a season. Members sharing a weekly rank under `shared` all get that rank's
//!   points, as they share its prize; only members who placed are ranked in the season.
//!
//! Only weeks where the member has a total take part. The first three rules add points up, which
//! only means something when more is better: a source board ranked `asc` (times, strokes) can
//! only make a `placement` season. A season itself always ranks more points first.
//!
//! A season may **carry over** part of an earlier season ([`CarryOver`], a soft reset): each member
//! ranked there starts with `share_percent` % of what they had above `floor`, recorded at creation
//! as the season's opening entries and added to whatever the rule makes of the weeks.
//!
//! [`SeasonRule::apply`] works on one member's weeks at a time, so a season of a million members
//! is computed in one pass over the ledger's rows, member by member, and "why this season total"
//! is the same call's [`Contribution`]s.

use crate::ids::BoardSlug;
use crate::kinds::Sort;
use crate::period::PeriodKey;
use serde::{Deserialize, Serialize};

/// The most periods one season may be made of (a year of weeks, with room for a 53rd).
pub const MAX_SEASON_PERIODS: usize = 53;
/// The most members whose seasons are explained at once: a season's board page's first rows.
/// Small on purpose: anyone may ask, and a settled period's ranks are looked up member by member.
pub const SEASON_ROWS: usize = 10;
/// The longest placement table.
pub const MAX_PLACES: usize = 100;
/// The largest weight of one week.
pub const MAX_WEIGHT: i64 = 1000;

/// A season board's definition, fixed at creation: the board its weeks come from, those weeks in
/// order, and the rule. (Its draft is parsed beside the board's, `crate::board::SeasonDraft`.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Season {
    pub source: BoardSlug,
    /// The source's periods, ascending, without repeats; 1 to [`MAX_SEASON_PERIODS`].
    pub periods: Vec<PeriodKey>,
    pub rule: SeasonRule,
    /// What the season carries over from an earlier one, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carry_over: Option<CarryOver>,
}

/// A soft reset: each member ranked in the final standings of season `from` starts this one with
/// `share_percent` % of their points above `floor` (rounded down; nothing at or below it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CarryOver {
    /// The earlier season board.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub from: BoardSlug,
    /// 1 to 100.
    pub share_percent: i64,
    /// 0 or more.
    #[serde(default)]
    pub floor: i64,
    /// The settlement revision of `from` the openings were read from (set at creation).
    #[serde(default)]
    pub revision: i64,
    /// How many members opened with points (set at creation).
    #[serde(default)]
    pub members: u64,
}

impl CarryOver {
    /// Checks the share and the floor.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=100).contains(&self.share_percent) {
            return Err(format!("share_percent must be 1 to 100, got {}", self.share_percent));
        }
        if self.floor < 0 {
            return Err(format!("floor must be 0 or more, got {}", self.floor));
        }
        Ok(())
    }

    /// The opening of a member who ended `from` with `points`: None when nothing carries over.
    pub fn opening(&self, points: i64) -> Option<i64> {
        let above = points.checked_sub(self.floor).filter(|p| *p > 0)?;
        let share = i128::from(above) * i128::from(self.share_percent) / 100;
        i64::try_from(share).ok().filter(|p| *p > 0)
    }
}

impl Season {
    /// The season board's one period, named by its first and last week (`2026-W40..2026-W51`).
    pub fn key(&self) -> PeriodKey {
        let (first, last) = (self.periods[0], self.periods[self.periods.len() - 1]);
        PeriodKey::season(first, last).expect("a season's periods are of one cadence, ascending")
    }

    /// The position of a source period in the season (None: not one of its weeks).
    pub fn week_of(&self, period: PeriodKey) -> Option<usize> {
        self.periods.binary_search(&period).ok()
    }

    /// Checks the periods as listed: of the source's cadence, ascending, no repeats, not too many.
    pub fn check_periods(periods: &[PeriodKey], cadence: crate::kinds::Cadence) -> Result<(), String> {
        if periods.is_empty() || periods.len() > MAX_SEASON_PERIODS {
            return Err(format!("a season is made of 1 to {MAX_SEASON_PERIODS} periods"));
        }
        if let Some(p) = periods.iter().find(|p| p.cadence() != cadence) {
            return Err(format!("period {p} is not a {cadence} period of the source board"));
        }
        if let Some(w) = periods.windows(2).find(|w| w[0] >= w[1]) {
            return Err(format!("periods must be listed in order, each once: {} then {}", w[0], w[1]));
        }
        Ok(())
    }
}

/// How a season makes one standing out of a member's weekly totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeasonRule {
    /// Every week's total, added up. (Braces, so that a stray field such as `k` is refused.)
    Sum {},
    /// The `k` highest weekly totals, added up.
    Best { k: u32 },
    /// Each week's total times its weight (one whole number per week, in the season's order).
    Weighted { weights: Vec<i64> },
    /// Points by weekly rank: `points[0]` for rank 1, `points[1]` for rank 2, … nothing below.
    Placement { points: Vec<i64> },
}

/// One week of one member, as the season reads it from the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeekResult {
    /// The week's position in the season's list of periods.
    pub week: usize,
    /// The member's total that week.
    pub points: i64,
    /// The member's rank that week (only `placement` reads it).
    pub rank: u64,
    /// Where in the ledger's order the member reached that total (`first_reached` seasons rank
    /// equal season totals by the latest of the weeks that count).
    pub reached: i64,
}

/// What one week gave a member's season total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contribution {
    pub week: usize,
    /// The week's total.
    pub points: i64,
    /// The weekly rank (shown for `placement`).
    pub rank: u64,
    /// What it added to the season total.
    pub gave: i64,
    /// False when the rule dropped it (`best` K) or it earned nothing (`placement` below the
    /// table).
    pub counted: bool,
}

/// One member's season standing before ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeasonResult {
    pub points: i64,
    /// The latest `reached` of the weeks that count (0 when none does).
    pub reached: i64,
    /// Whether the member is ranked in the season at all (under `placement`, only if they placed).
    pub ranked: bool,
    /// One line per week the member has a total in, in the season's order.
    pub weeks: Vec<Contribution>,
}

/// "Why this season total": what each of a season's periods gave one member, as the public (or
/// an admin) sees those periods now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MemberSeason {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub member: crate::ids::MemberId,
    /// The board whose periods the season is made of.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub source: BoardSlug,
    /// `sum`, `best`, `weighted` or `placement`.
    pub rule: String,
    /// The season total the periods below make (what each `gave`, added up).
    pub points: i64,
    /// The member's rank in the season's ranking; absent when not ranked there (yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// What the member carried over from the earlier season (included in `points`); absent
    /// when nothing did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<i64>,
    /// Every period of the season, in order.
    pub periods: Vec<SeasonLine>,
}

/// One period of a member's season.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeasonLine {
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub period: PeriodKey,
    /// The member's total that period; absent when they have none (or are hidden there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<i64>,
    /// The member's rank that period; absent with `points`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// What it added to the season total.
    pub gave: i64,
    /// False when the rule dropped it (`best` K), it placed below the table (`placement`), or
    /// the member has no total that period.
    pub counted: bool,
}

impl Season {
    /// A member's season from their results in its periods (`results[i]` for `periods[i]`;
    /// `(points, rank)`, None where they have no total).
    pub fn explain(
        &self,
        member: crate::ids::MemberId,
        results: &[Option<(i64, u64)>],
        rank: Option<u64>,
        carried: Option<i64>,
    ) -> MemberSeason {
        let weeks: Vec<WeekResult> = results
            .iter()
            .enumerate()
            .filter_map(|(week, r)| r.map(|(points, rank)| WeekResult { week, points, rank, reached: 0 }))
            .collect();
        let applied = self.rule.apply(&weeks);
        let periods = self
            .periods
            .iter()
            .enumerate()
            .map(|(week, period)| {
                let line = applied.weeks.iter().find(|c| c.week == week);
                SeasonLine {
                    period: *period,
                    points: line.map(|c| c.points),
                    rank: line.map(|c| c.rank),
                    gave: line.map_or(0, |c| c.gave),
                    counted: line.is_some_and(|c| c.counted),
                }
            })
            .collect();
        MemberSeason {
            member,
            source: self.source.clone(),
            rule: self.rule.kind().into(),
            points: applied.points + carried.unwrap_or(0),
            rank,
            carried,
            periods,
        }
    }
}

impl SeasonRule {
    /// The rule's word, as the API and the UI name it.
    pub fn kind(&self) -> &'static str {
        match self {
            SeasonRule::Sum {} => "sum",
            SeasonRule::Best { .. } => "best",
            SeasonRule::Weighted { .. } => "weighted",
            SeasonRule::Placement { .. } => "placement",
        }
    }

    /// Checks the rule against the season's number of weeks and the source's order.
    pub fn check(&self, weeks: usize, source_sort: Sort) -> Result<(), String> {
        if source_sort == Sort::Asc && !matches!(self, SeasonRule::Placement { .. }) {
            return Err(format!(
                "a {} season adds totals up, which means nothing on a board where fewer points rank \
                 first; use the placement rule",
                self.kind()
            ));
        }
        match self {
            SeasonRule::Sum {} => Ok(()),
            SeasonRule::Best { k } if *k == 0 || *k as usize > weeks => {
                Err(format!("best k must be 1 to the season's {weeks} periods, not {k}"))
            }
            SeasonRule::Best { .. } => Ok(()),
            SeasonRule::Weighted { weights } if weights.len() != weeks => Err(format!(
                "weighted needs one weight per period: {} weights for {weeks} periods",
                weights.len()
            )),
            SeasonRule::Weighted { weights } if weights.iter().any(|w| !(0..=MAX_WEIGHT).contains(w)) => {
                Err(format!("each weight is a whole number from 0 to {MAX_WEIGHT}"))
            }
            SeasonRule::Weighted { weights } if weights.iter().all(|w| *w == 0) => {
                Err("at least one weight must be above 0".into())
            }
            SeasonRule::Weighted { .. } => Ok(()),
            SeasonRule::Placement { points } if points.is_empty() || points.len() > MAX_PLACES => {
                Err(format!("a placement table has 1 to {MAX_PLACES} entries"))
            }
            SeasonRule::Placement { points } if points.iter().any(|p| *p < 0) => {
                Err("placement points are 0 or more".into())
            }
            SeasonRule::Placement { points } if points.windows(2).any(|w| w[1] > w[0]) => {
                Err("placement points must not grow down the table (25, 18, 15, …)".into())
            }
            SeasonRule::Placement { points } if points[0] == 0 => {
                Err("the first place must earn points".into())
            }
            SeasonRule::Placement { .. } => Ok(()),
        }
    }

    /// The season's bounds of points, from the source's (`min`, `max`) and its number of weeks:
    /// what the season's score codec must hold. None when they do not fit in an `i64`.
    pub fn bounds(&self, weeks: usize, (min, max): (i64, i64)) -> Option<(i64, i64)> {
        let scale = |factor: i64| Some((min.min(0).checked_mul(factor)?, max.max(0).checked_mul(factor)?));
        match self {
            SeasonRule::Sum {} => scale(weeks as i64),
            SeasonRule::Best { k } => scale(i64::from(*k)),
            SeasonRule::Weighted { weights } => {
                scale(weights.iter().try_fold(0i64, |a, w| a.checked_add(*w))?)
            }
            SeasonRule::Placement { points } => Some((0, points[0].checked_mul(weeks as i64)?)),
        }
    }

    /// Whether weekly ranks matter (only `placement` reads them).
    pub fn reads_ranks(&self) -> bool {
        matches!(self, SeasonRule::Placement { .. })
    }

    /// One member's season standing from their weeks (in any order; each week at most once).
    pub fn apply(&self, results: &[WeekResult]) -> SeasonResult {
        let mut weeks: Vec<Contribution> = results
            .iter()
            .map(|r| Contribution { week: r.week, points: r.points, rank: r.rank, gave: 0, counted: true })
            .collect();
        weeks.sort_unstable_by_key(|c| c.week);
        match self {
            SeasonRule::Sum {} => weeks.iter_mut().for_each(|c| c.gave = c.points),
            SeasonRule::Weighted { weights } => {
                weeks.iter_mut().for_each(|c| c.gave = c.points.saturating_mul(weights[c.week]))
            }
            SeasonRule::Best { k } => {
                // The k highest; between equal totals the earlier week counts.
                let mut by_points: Vec<usize> = (0..weeks.len()).collect();
                by_points.sort_by(|a, b| weeks[*b].points.cmp(&weeks[*a].points).then(a.cmp(b)));
                for (place, i) in by_points.into_iter().enumerate() {
                    let c = &mut weeks[i];
                    c.counted = place < *k as usize;
                    c.gave = if c.counted { c.points } else { 0 };
                }
            }
            SeasonRule::Placement { points } => {
                for c in &mut weeks {
                    c.gave = usize::try_from(c.rank)
                        .ok()
                        .and_then(|rank| rank.checked_sub(1))
                        .and_then(|i| points.get(i).copied())
                        .unwrap_or(0);
                    c.counted = c.gave > 0;
                }
            }
        }
        let points = weeks.iter().fold(0i64, |sum, c| sum.saturating_add(c.gave));
        let reached = weeks
            .iter()
            .filter(|c| c.counted)
            .filter_map(|c| results.iter().find(|r| r.week == c.week).map(|r| r.reached))
            .max()
            .unwrap_or(0);
        let ranked = !self.reads_ranks() || weeks.iter().any(|c| c.counted);
        SeasonResult { points, reached, ranked, weeks }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn week(week: usize, points: i64, rank: u64) -> WeekResult {
        WeekResult { week, points, rank, reached: 100 + week as i64 }
    }

    #[test]
    fn rules_parse_from_the_api_words() {
        let parse = |s: &str| serde_json::from_str::<SeasonRule>(s);
        assert_eq!(parse(r#"{"kind":"sum"}"#).unwrap(), SeasonRule::Sum {});
        assert_eq!(parse(r#"{"kind":"best","k":2}"#).unwrap(), SeasonRule::Best { k: 2 });
        assert_eq!(
            parse(r#"{"kind":"placement","points":[25,18,15]}"#).unwrap(),
            SeasonRule::Placement { points: vec![25, 18, 15] }
        );
        assert!(parse(r#"{"kind":"average"}"#).is_err());
        assert!(parse(r#"{"kind":"sum","k":2}"#).is_err());
    }

    #[test]
    fn checks_name_what_is_wrong() {
        let check = |r: SeasonRule| r.check(4, Sort::Desc).unwrap_err();
        assert!(check(SeasonRule::Best { k: 5 }).contains("1 to the season's 4"));
        assert!(check(SeasonRule::Weighted { weights: vec![1, 2] }).contains("2 weights for 4"));
        assert!(check(SeasonRule::Weighted { weights: vec![0; 4] }).contains("above 0"));
        assert!(check(SeasonRule::Placement { points: vec![10, 12] }).contains("must not grow"));
        assert!(SeasonRule::Sum {}.check(4, Sort::Asc).unwrap_err().contains("placement"));
        assert!(SeasonRule::Placement { points: vec![3, 2, 1] }.check(4, Sort::Asc).is_ok());
    }

    #[test]
    fn best_k_drops_the_later_of_equal_weeks() {
        let got = SeasonRule::Best { k: 2 }.apply(&[week(0, 50, 0), week(1, 80, 0), week(2, 50, 0)]);
        assert_eq!(got.points, 130);
        let counted: Vec<bool> = got.weeks.iter().map(|c| c.counted).collect();
        assert_eq!(counted, vec![true, true, false]);
        assert_eq!(got.reached, 101, "the latest week that counts");
    }

    #[test]
    fn placement_pays_by_rank_and_ranks_only_those_who_placed() {
        let rule = SeasonRule::Placement { points: vec![25, 18, 15] };
        let got = rule.apply(&[week(0, 900, 1), week(1, 10, 7), week(2, 300, 3)]);
        assert_eq!((got.points, got.ranked), (40, true));
        assert_eq!(got.weeks[1], Contribution { week: 1, points: 10, rank: 7, gave: 0, counted: false });
        assert!(!rule.apply(&[week(0, 5, 4)]).ranked);
    }

    #[test]
    fn bounds_scale_the_source_bounds() {
        assert_eq!(SeasonRule::Sum {}.bounds(12, (0, 1000)), Some((0, 12_000)));
        assert_eq!(SeasonRule::Best { k: 3 }.bounds(12, (-5, 10)), Some((-15, 30)));
        assert_eq!(SeasonRule::Placement { points: vec![25, 18] }.bounds(12, (0, 1)), Some((0, 300)));
        assert_eq!(SeasonRule::Sum {}.bounds(12, (0, i64::MAX)), None);
    }

    #[test]
    fn the_admin_guides_examples_hold() {
        // docs/SEASONS.md: (points, shared rank) per week; None: no points that week.
        type Weeks = [Option<(i64, u64)>; 4];
        let table: [(&str, Weeks); 3] = [
            ("ann", [Some((50, 1)), Some((20, 2)), None, Some((5, 2))]),
            ("bob", [Some((30, 2)), None, Some((60, 1)), None]),
            ("cy", [Some((30, 2)), Some((40, 1)), Some((10, 2)), Some((70, 1))]),
        ];
        let season = |rule: SeasonRule| -> Vec<i64> {
            table
                .iter()
                .map(|(_, weeks)| {
                    let results: Vec<WeekResult> = weeks
                        .iter()
                        .enumerate()
                        .filter_map(|(week, w)| {
                            w.map(|(points, rank)| WeekResult { week, points, rank, reached: 0 })
                        })
                        .collect();
                    rule.apply(&results).points
                })
                .collect()
        };
        assert_eq!(season(SeasonRule::Sum {}), [75, 90, 150]);
        assert_eq!(season(SeasonRule::Best { k: 2 }), [70, 90, 110]);
        assert_eq!(season(SeasonRule::Weighted { weights: vec![1, 1, 1, 2] }), [80, 90, 220]);
        assert_eq!(season(SeasonRule::Placement { points: vec![10, 6, 4] }), [22, 16, 32]);
    }

    fn weeks_strategy() -> impl Strategy<Value = Vec<WeekResult>> {
        prop::collection::vec((-50i64..200, 1u64..8, 0i64..1000), 0..8).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(week, (points, rank, reached))| WeekResult { week, points, rank, reached })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn every_rule_matches_a_straightforward_model(
            weeks in weeks_strategy(),
            k in 1u32..8,
            weights in prop::collection::vec(0i64..5, 8),
            table in prop::collection::vec(0i64..30, 1..5),
        ) {
            let mut table = table;
            table.sort_unstable_by(|a, b| b.cmp(a));
            let points: Vec<i64> = weeks.iter().map(|w| w.points).collect();

            prop_assert_eq!(SeasonRule::Sum {}.apply(&weeks).points, points.iter().sum::<i64>());

            let mut sorted = points.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let best = SeasonRule::Best { k }.apply(&weeks);
            prop_assert_eq!(best.points, sorted.iter().take(k as usize).sum::<i64>());
            let kept: Vec<&Contribution> = best.weeks.iter().filter(|c| c.counted).collect();
            prop_assert_eq!(kept.len(), weeks.len().min(k as usize));
            for dropped in best.weeks.iter().filter(|c| !c.counted) {
                prop_assert!(kept.iter().all(|c| c.points >= dropped.points));
            }

            let weighted = SeasonRule::Weighted { weights: weights.clone() }.apply(&weeks);
            let model: i64 = weeks.iter().map(|w| w.points * weights[w.week]).sum();
            prop_assert_eq!(weighted.points, model);

            let placed = SeasonRule::Placement { points: table.clone() }.apply(&weeks);
            let model: i64 = weeks.iter().map(|w| table.get(w.rank as usize - 1).copied().unwrap_or(0)).sum();
            prop_assert_eq!(placed.points, model);

            for got in [best, weighted, placed] {
                prop_assert_eq!(got.weeks.iter().map(|c| c.gave).sum::<i64>(), got.points);
                prop_assert_eq!(got.weeks.len(), weeks.len());
            }
        }
    }
}
