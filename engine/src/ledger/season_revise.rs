//! Corrections that flow into seasons: when an applied preview writes a new settlement revision of
//! a week, every settled or archived season holding that week is re-settled in the same
//! transaction — all or nothing, under the same audit — so a season never names a week's
//! revision it was not computed from.
//!
//! For each such season: its totals are recomputed from the weeks inside the transaction — a
//! `sum`, `best` or `weighted` season for the members the changes moved (from their source totals,
//! with the new ones), a `placement` season from every week's settled standings down to the last
//! place its table pays (the corrected week's are the revision just written) — and written with
//! their versions (`seasons::level_season_in`, which never lets an older computation win); then
//! `resettle.rs` writes the season's next revision from them: standings, a digest naming the
//! weeks' latest revisions, and reward deltas only (a revoke of the prize a member held and a grant
//! of the new one). A season still open or frozen needs none of this: it follows its weeks live
//! (`crate::seasons`).
//!
//! The failpoints of the season's part are `season.after_totals`, `season.resettle.after_standings`
//! and `season.resettle.before_commit`; a crash at any of them leaves nothing, and the rerun writes
//! the same revisions (`engine/tests/seasons.rs`).

use super::boards::{BOARD_COLUMNS, StoredTotal, board_from_row};
use super::lifecycle::lock_period_state;
use super::resettle::{Cause, Revision, resettle};
use super::season_openings::openings_in;
use super::seasons::{
    level_season_in, placement_totals, season_members_in, source_totals_in, summed_totals,
    weeks_version_sum_in,
};
use super::settle::Failpoint;
use super::standings::read_standings;
use super::{Backend, LedgerError, Tx};
use domain::season::{Season, SeasonRule, WeekResult};
use domain::{Board, BoardSlug, MemberId, PeriodKey, State};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use std::collections::BTreeMap;

/// A season an apply re-settled: its new revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeasonRevision {
    /// The season board.
    pub board: BoardSlug,
    /// Its one period.
    pub period: PeriodKey,
    pub revision: Revision,
}

/// A season re-settled by an apply, with what the projection must mirror.
#[derive(Debug)]
pub struct ResettledSeason {
    pub season: Board,
    pub state: State,
    /// The season totals the recomputation wrote.
    pub totals: Vec<StoredTotal>,
    pub revision: SeasonRevision,
}

/// Standings read at once while looking for a week's places.
const PLACES_PAGE: u64 = 1000;

/// Re-settles every settled or archived season holding `week`'s corrected period (see the module's
/// doc); `moved`: the members whose totals the changes moved.
pub(super) async fn resettle_seasons(
    tx: &mut Tx,
    backend: Backend,
    week: &Board,
    moved: &[MemberId],
    cause: &Cause<'_>,
) -> Result<Vec<ResettledSeason>, LedgerError> {
    let period = cause.draft.period;
    let holding: Vec<Board> =
        sqlx::query(&format!("SELECT {BOARD_COLUMNS} FROM boards WHERE season IS NOT NULL ORDER BY slug"))
            .fetch_all(&mut **tx)
            .await?
            .iter()
            .map(board_from_row)
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .filter(|s| {
                s.season.as_ref().is_some_and(|d| d.source == week.slug && d.week_of(period).is_some())
            })
            .collect();
    let hook = season_failpoint(cause.failpoint);
    let cause = Cause { failpoint: &hook, ..*cause };
    let mut out = Vec::new();
    for season in holding {
        let Some(definition) = season.season.clone() else { continue };
        let key = definition.key();
        let state = lock_period_state(tx, backend, season.slug.as_str(), &key.to_string()).await?;
        if state.is_adjustable() {
            continue;
        }
        let rows = match &definition.rule {
            SeasonRule::Placement { points } => {
                let mut weeks: BTreeMap<MemberId, Vec<WeekResult>> = BTreeMap::new();
                for (at, period) in definition.periods.iter().enumerate() {
                    for (member, place) in
                        settled_places(tx, &definition, at, *period, points.len() as u64).await?
                    {
                        weeks.entry(member).or_default().push(place);
                    }
                }
                // Members placed before and no longer: their totals go to 0, out of the ranking.
                for member in season_members_in(tx, &season.slug, &key.to_string()).await? {
                    weeks.entry(member).or_default();
                }
                let version = weeks_version_sum_in(tx, &definition.source, &definition.periods).await?;
                let openings = openings_in(tx, &season, None).await?;
                placement_totals(&definition, weeks, version, &openings)
            }
            _ => {
                let rows = source_totals_in(tx, &definition.source, &definition.periods, moved).await?;
                let openings = openings_in(tx, &season, Some(moved)).await?;
                summed_totals(&definition, &rows, &openings)
            }
        };
        let totals = level_season_in(tx, backend, &season, rows, cause.now).await?;
        (cause.failpoint)("season.after_totals")?;
        let revision = resettle(tx, backend, &season, key, &cause).await?;
        let revision = SeasonRevision { board: season.slug.clone(), period: key, revision };
        out.push(ResettledSeason { season, state, totals, revision });
    }
    Ok(out)
}

/// The places of week `at` (`period`) of a season down to rank `depth`, from its latest
/// settlement's standings as this transaction sees them.
async fn settled_places(
    tx: &mut Tx,
    definition: &Season,
    at: usize,
    period: PeriodKey,
    depth: u64,
) -> Result<Vec<(MemberId, WeekResult)>, LedgerError> {
    let (source, key) = (definition.source.as_str(), period.to_string());
    let revision: i64 = sqlx::query(
        "SELECT CAST(COALESCE(MAX(revision), 0) AS BIGINT) AS r FROM settlements WHERE board = $1 AND period = $2",
    )
    .bind(source)
    .bind(&key)
    .fetch_one(&mut **tx)
    .await?
    .try_get("r")?;
    let mut places = Vec::new();
    loop {
        let page =
            read_standings(&mut **tx, source, &key, revision, places.len() as u64, PLACES_PAGE).await?;
        let full = page.len() as u64 == PLACES_PAGE;
        for s in page {
            if s.rank > depth {
                return Ok(places);
            }
            // The latest week that counts is when the member reached their total.
            let place = WeekResult { week: at, points: s.points, rank: s.rank, reached: at as i64 };
            places.push((s.member, place));
        }
        if !full {
            return Ok(places);
        }
    }
}

/// The apply's crash hook, with the season's steps named apart from the week's.
fn season_failpoint(hook: &Failpoint) -> Failpoint {
    let hook = hook.clone();
    std::sync::Arc::new(move |name| {
        hook(match name {
            "resettle.after_standings" => "season.resettle.after_standings",
            "resettle.before_commit" => "season.resettle.before_commit",
            other => other,
        })
    })
}
