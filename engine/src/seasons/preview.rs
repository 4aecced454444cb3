//! What a preview of a week changes in the seasons made of it: each season's members whose points
//! or rank change, the others who only shift, and the prizes that change hands — compared with the
//! season's standings as they are (its latest settlement revision once settled) by the same
//! `domain::preview::compare` as the week's own, so a preview costs a few lookups per touched member
//! however many members the season has (an open season is ranked in memory, as an open week is).
//!
//! The season totals after are what the season's levelling would compute from the weeks after
//! the changes: for `sum`, `best` and `weighted`, the touched members' totals from their source
//! totals with the week's new ones; for `placement`, every week's paid places, the week's own from
//! its standings after (`domain::preview::top_after`). Applying re-settles the settled seasons
//! (`ledger/season_revise.rs`) from the ledger in the same transaction.

use super::Seasons;
use crate::EngineError;
use crate::ledger::{SeasonTotal, SourceTotal, StoredTotal, placement_totals, summed_totals};
use crate::lifecycle::previews::SHIFTED_LISTED;
use domain::preview::{Contender, Ranked, SeasonChange, Touched, compare};
use domain::season::{SeasonRule, WeekResult};
use domain::settlement::Standing;
use domain::{Board, MemberId, PeriodKey, TiePolicy};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A reach sequence after every one the season holds: a total whose points change reaches them
/// last (under `first_reached`), in the order members reached them.
const REACHED_LAST: i64 = i64::MAX / 2;

impl Seasons {
    /// The seasons made of `period` of `board`, and how deep a `placement` season among them
    /// reads the week's ranking (its table's length), if one does.
    pub(crate) async fn seasons_of_week(
        &self,
        board: &Board,
        period: PeriodKey,
    ) -> (Vec<Arc<Board>>, Option<u64>) {
        let seasons = self.holding(&board.slug, period).await;
        let depth = seasons
            .iter()
            .filter_map(|s| match &s.season.as_ref()?.rule {
                SeasonRule::Placement { points } => Some(points.len() as u64),
                _ => None,
            })
            .max();
        (seasons, depth)
    }

    /// What the `touched` members' week totals after do to each of `seasons`; `week_top`: the
    /// week's standings after down to the deepest `placement` table (see [`Seasons::seasons_of_week`]).
    pub(crate) async fn season_changes(
        &self,
        seasons: &[Arc<Board>],
        period: PeriodKey,
        touched: &[Touched],
        week_top: Option<&[Standing]>,
    ) -> Result<Vec<SeasonChange>, EngineError> {
        let mut changes = Vec::with_capacity(seasons.len());
        for season in seasons {
            let Some(definition) = &season.season else { continue };
            let key = definition.key();
            let (after, held) = match &definition.rule {
                SeasonRule::Placement { points } => {
                    let depth = points.len() as u64;
                    let mut weeks: BTreeMap<MemberId, Vec<WeekResult>> = BTreeMap::new();
                    for (at, week) in definition.periods.iter().enumerate() {
                        let places = match (*week == period, week_top) {
                            (true, Some(top)) => top
                                .iter()
                                .filter(|s| s.rank <= depth)
                                .map(|s| {
                                    let place = WeekResult {
                                        week: at,
                                        points: s.points,
                                        rank: s.rank,
                                        reached: at as i64,
                                    };
                                    (s.member.clone(), place)
                                })
                                .collect(),
                            _ => self.week_places(definition, at, depth).await?,
                        };
                        for (member, place) in places {
                            weeks.entry(member).or_default().push(place);
                        }
                    }
                    // Every member placed before: read once, they are also the totals before.
                    let held = self.core.ledger.totals(&season.slug, &key).await?;
                    for total in &held {
                        weeks.entry(total.member.clone()).or_default();
                    }
                    let openings = self.core.ledger.openings(season, None).await?;
                    (placement_totals(definition, weeks, 0, &openings), held)
                }
                _ => {
                    let members: Vec<MemberId> = touched.iter().map(|t| t.member.clone()).collect();
                    let mut rows = self
                        .core
                        .ledger
                        .source_totals(&definition.source, &definition.periods, &members)
                        .await?;
                    rows.retain(|r| r.period != period);
                    rows.extend(touched.iter().filter_map(|t| {
                        let after = t.after?;
                        Some(SourceTotal {
                            member: t.member.clone(),
                            period,
                            points: after.points,
                            version: 0,
                            hidden: after.hidden,
                            // The corrected week is the latest a member reached.
                            updated_at: i64::MAX,
                        })
                    }));
                    rows.sort_unstable_by(|a, b| (&a.member, a.period).cmp(&(&b.member, b.period)));
                    let openings = self.core.ledger.openings(season, Some(&members)).await?;
                    let held = self.core.ledger.totals_of(&season.slug, &key, &members).await?;
                    (summed_totals(definition, &rows, &openings), held)
                }
            };
            changes.push(self.season_change(season, key, after, held).await?);
        }
        Ok(changes)
    }

    /// Compares a season's standings now with those its totals `after` make; `held`: the season's
    /// totals now, of at least every member in `after`.
    async fn season_change(
        &self,
        season: &Board,
        key: PeriodKey,
        mut after: Vec<SeasonTotal>,
        held: Vec<StoredTotal>,
    ) -> Result<SeasonChange, EngineError> {
        let base = self.core.ledger.preview_base(season, key, &[]).await?;
        let held: HashMap<MemberId, Contender> = held
            .into_iter()
            .map(|t| (t.member, Contender { points: t.points, reach_seq: t.reach_seq, hidden: t.hidden }))
            .collect();
        after.sort_unstable_by(|a, b| (a.reached, &a.member).cmp(&(b.reached, &b.member)));
        let mut reach = REACHED_LAST;
        let mut touched = Vec::new();
        for total in after {
            let before = held.get(&total.member).copied();
            let unchanged = before.is_some_and(|b| (b.points, b.hidden) == (total.points, total.hidden));
            if unchanged || (before.is_none() && total.hidden) {
                continue;
            }
            let reach_seq = match before {
                Some(b) if b.points == total.points => b.reach_seq,
                _ if season.tie_policy() == TiePolicy::FirstReached => {
                    reach += 1;
                    reach
                }
                _ => 0,
            };
            let after = Contender { points: total.points, reach_seq, hidden: total.hidden };
            touched.push(Touched { member: total.member, before, after: Some(after) });
        }
        let (sort, policy) = (season.sort(), season.tie_policy());
        let prizes = base.prizes.clone().unwrap_or_else(|| season.prizes.clone());
        let comparison = match base.revision.filter(|_| !base.state.is_adjustable()) {
            Some(revision) => {
                let mut stored = self.core.ledger.stored_standings(
                    &season.slug,
                    &key,
                    sort,
                    policy,
                    revision,
                    base.members,
                );
                compare(sort, policy, &prizes, &mut stored, &touched, SHIFTED_LISTED).await?
            }
            None => {
                let mut before = base.before;
                domain::settlement::order(sort, policy, &mut before);
                let mut ranked = Ranked::new(sort, policy, before, &prizes);
                compare(sort, policy, &prizes, &mut ranked, &touched, SHIFTED_LISTED)
                    .await
                    .unwrap_or_else(|never| match never {})
            }
        };
        Ok(SeasonChange {
            board: season.slug.clone(),
            period: key,
            state: base.state,
            resettles: !base.state.is_adjustable(),
            moves: comparison.moves,
            shifted: comparison.shifted,
            prizes: comparison.prizes,
        })
    }
}
