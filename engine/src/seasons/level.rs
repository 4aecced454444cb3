//! Bringing a season's totals level with its weeks (the module docs of `seasons` say when): the
//! members a write noted, a whole season a page of members at a time, a `placement` season from
//! its weeks' rankings; then the ledger write and the projection.

use super::Pending;
use super::Seasons;
use crate::EngineError;
use crate::ledger::{SeasonTotal, StoredTotal, Viewer, placement_totals, summed_totals};
use domain::season::{Season, SeasonRule, WeekResult};
use domain::{Board, BoardSlug, MemberId, PeriodKey, State};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Members per page when a whole season is recomputed.
const PAGE: u64 = 5_000;

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeasonReport {
    pub seasons_checked: u64,
    pub seasons_levelled: u64,
    /// Season totals written (their version was newer than the ledger's).
    pub totals_written: u64,
    /// The seasons whose totals changed, to be announced to their live streams.
    pub changed: Vec<(BoardSlug, PeriodKey)>,
}

impl SeasonReport {
    fn add(&mut self, season: &Board, written: u64) {
        if written > 0 {
            self.seasons_levelled += 1;
            self.totals_written += written;
            self.changed.extend(season.season.as_ref().map(|d| (season.slug.clone(), d.key())));
        }
    }
}

impl Seasons {
    /// Recomputes what writes noted since the last call (the season loop's work).
    pub async fn follow(&self) -> Result<SeasonReport, EngineError> {
        let pending = self.take_pending();
        let seasons = self.seasons().await?;
        let mut report = SeasonReport::default();
        for (slug, what) in pending {
            let Some(season) = seasons.iter().find(|s| s.slug == slug) else { continue };
            let members: Vec<MemberId> = match what {
                Pending::Members(set) => set.into_iter().collect(),
                Pending::Whole => Vec::new(),
            };
            report.seasons_checked += 1;
            let only = (!members.is_empty()).then_some(members.as_slice());
            report.add(season, self.level_season(season, only, None).await?);
        }
        Ok(report)
    }

    /// Checks every season that is not settled against its weeks, and recomputes those that are
    /// behind (the reconciler's pass).
    pub async fn check(&self) -> Result<SeasonReport, EngineError> {
        self.forget();
        let mut report = SeasonReport::default();
        for season in self.seasons().await?.iter() {
            let Some(definition) = &season.season else { continue };
            let key = definition.key();
            if matches!(
                self.core.ledger.state_of(&season.slug, &key).await?,
                State::Settled | State::Archived
            ) {
                continue;
            }
            report.seasons_checked += 1;
            if let Some(weeks_sum) = self.season_behind(season, definition).await? {
                report.add(season, self.level_season(season, None, Some(weeks_sum)).await?);
            }
        }
        Ok(report)
    }

    /// Before a season is settled: every one of its weeks must be settled or archived (else
    /// `invalid_transition`), and its totals are brought level with their final standings.
    pub(crate) async fn before_settling_season(&self, season: &Board) -> Result<(), EngineError> {
        let Some(definition) = &season.season else { return Ok(()) };
        for week in &definition.periods {
            let state = self.core.ledger.state_of(&definition.source, week).await?;
            if !matches!(state, State::Settled | State::Archived) {
                return Err(EngineError::Refused {
                    code: domain::ErrorCode::InvalidTransition,
                    detail: format!(
                        "{} is settled after its weeks: {} {week} is {}",
                        season.slug,
                        definition.source,
                        state.as_str()
                    ),
                });
            }
        }
        if let Some(weeks_sum) = self.season_behind(season, definition).await? {
            self.level_season(season, None, Some(weeks_sum)).await?;
        }
        Ok(())
    }

    /// The weeks' version sum when a season's totals may be behind its weeks' (its version sum
    /// is not theirs; a `placement` season: they moved since it was computed here), else None.
    async fn season_behind(&self, season: &Board, definition: &Season) -> Result<Option<i64>, EngineError> {
        let weeks_sum = self.weeks_sum(definition).await?;
        let behind = if definition.rule.reads_ranks() {
            self.placed_at.lock().expect("placed at").get(&season.slug) != Some(&weeks_sum)
        } else {
            // Each opening is a version of its own (`ledger/season_openings.rs`).
            let opened = crate::ledger::opened(season);
            self.core.ledger.version_sum(&season.slug, &definition.key()).await? != weeks_sum + opened
        };
        Ok(behind.then_some(weeks_sum))
    }

    /// Runs the season loop until the process ends: whatever writes noted, within `gather` of
    /// the first note, announced to the seasons' live streams.
    pub fn spawn(self: &Arc<Self>, gather: Duration) -> tokio::task::JoinHandle<()> {
        let engine = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                engine.wake.notified().await;
                tokio::time::sleep(gather).await;
                match engine.follow().await {
                    Ok(report) => engine.announce(&report),
                    Err(error) => {
                        tracing::warn!(%error, "season totals not levelled; the next check retries")
                    }
                }
            }
        })
    }

    /// Tells the live streams of the seasons a pass changed.
    pub(crate) fn announce(&self, report: &SeasonReport) {
        for (slug, period) in &report.changed {
            self.live.announce(slug, period);
        }
    }

    /// The version sum of a season's weeks: the ledger's, except for settled weeks whose
    /// revisions did not change since their sum was read.
    async fn weeks_sum(&self, definition: &Season) -> Result<i64, EngineError> {
        let mut sum = 0;
        for week in &definition.periods {
            let ledger = &self.core.ledger;
            let settled =
                matches!(ledger.state_of(&definition.source, week).await?, State::Settled | State::Archived);
            sum += if settled {
                let revisions = ledger.settlements(&definition.source, week).await?.len();
                match self.settled_sum(&definition.source, *week, revisions) {
                    Some(known) => known,
                    None => {
                        let read = ledger.version_sum(&definition.source, week).await?;
                        self.keep_settled_sum(&definition.source, *week, revisions, read);
                        read
                    }
                }
            } else {
                ledger.version_sum(&definition.source, week).await?
            };
        }
        Ok(sum)
    }

    /// Recomputes a season's totals (every member's, or only `members`'), writes those newer than
    /// the ledger's and projects them; a projection that fails is left to the reconciler.
    /// `weeks_sum`, when the caller has just read it, spares a `placement` season reading it
    /// again. Returns the totals written.
    async fn level_season(
        &self,
        season: &Board,
        members: Option<&[MemberId]>,
        weeks_sum: Option<i64>,
    ) -> Result<u64, EngineError> {
        let Some(definition) = &season.season else { return Ok(0) };
        if definition.rule.reads_ranks() {
            let weeks_sum = match weeks_sum {
                Some(sum) => sum,
                None => self.weeks_sum(definition).await?,
            };
            return self.level_placement(season, definition, weeks_sum).await;
        }
        let source = &definition.source;
        if let Some(members) = members {
            let rows = self.core.ledger.source_totals(source, &definition.periods, members).await?;
            let openings = self.core.ledger.openings(season, Some(members)).await?;
            return self.write_season(season, summed_totals(definition, &rows, &openings)).await;
        }
        let (mut written, mut after) = (0, None);
        loop {
            let (rows, next) = self
                .core
                .ledger
                .source_totals_page(source, &definition.periods, after.as_ref(), PAGE)
                .await?;
            let mut members: Vec<MemberId> = rows.iter().map(|r| r.member.clone()).collect();
            members.dedup();
            let openings = self.core.ledger.openings(season, Some(&members)).await?;
            written += self.write_season(season, summed_totals(definition, &rows, &openings)).await?;
            match next {
                Some(next) => after = Some(next),
                None => return Ok(written),
            }
        }
    }

    /// A `placement` season, recomputed from each week's ranking (as admins read it: live during
    /// a public freeze, the standings once settled) down to the last place the table pays, and
    /// the members who placed before: only totals that changed are written.
    async fn level_placement(
        &self,
        season: &Board,
        definition: &Season,
        weeks_sum: i64,
    ) -> Result<u64, EngineError> {
        let SeasonRule::Placement { points: table } = &definition.rule else { return Ok(0) };
        let mut weeks: BTreeMap<MemberId, Vec<WeekResult>> = BTreeMap::new();
        for week in 0..definition.periods.len() {
            for (member, result) in self.week_places(definition, week, table.len() as u64).await? {
                weeks.entry(member).or_default().push(result);
            }
        }
        // Members placed before and no longer: their totals go to 0, out of the ranking.
        let key = definition.key();
        for held in self.core.ledger.totals(&season.slug, &key).await? {
            weeks.entry(held.member).or_default();
        }
        let openings = self.core.ledger.openings(season, None).await?;
        let totals = placement_totals(definition, weeks, weeks_sum, &openings);
        let written = self.write_season(season, totals).await?;
        self.placed_at.lock().expect("placed at").insert(season.slug.clone(), weeks_sum);
        Ok(written)
    }

    /// The places of week `week` of a season (as admins read its ranking: live during a public
    /// freeze, the standings once settled) down to rank `depth`.
    pub(super) async fn week_places(
        &self,
        definition: &Season,
        week: usize,
        depth: u64,
    ) -> Result<Vec<(MemberId, WeekResult)>, EngineError> {
        let scope = self.reads.scope_of(&definition.source, definition.periods[week]).await?;
        let (mut places, mut offset) = (Vec::new(), 0);
        loop {
            let page =
                self.reads.ranking_page_as(Viewer::Admin, &scope, offset, crate::reads::MAX_PAGE).await?;
            for entry in &page.entries {
                if entry.rank > depth {
                    return Ok(places);
                }
                // The latest week that counts is when the member reached their total.
                let result =
                    WeekResult { week, points: entry.points, rank: entry.rank, reached: week as i64 };
                places.push((entry.member.clone(), result));
            }
            if !page.has_more || page.entries.is_empty() {
                return Ok(places);
            }
            offset += page.entries.len() as u64;
        }
    }

    /// Writes season totals to the ledger (those newer than its own) and projects them.
    async fn write_season(&self, season: &Board, totals: Vec<SeasonTotal>) -> Result<u64, EngineError> {
        let Some(definition) = &season.season else { return Ok(0) };
        if totals.is_empty() {
            return Ok(0);
        }
        let stored = self.core.ledger.level_season(season, totals, jiff::Timestamp::now()).await?;
        let written = stored.len() as u64;
        self.project_season(season, &definition.key(), stored).await;
        Ok(written)
    }

    /// Projects season totals the ledger holds; a projection that fails is left to the reconciler.
    pub(crate) async fn project_season(&self, season: &Board, key: &PeriodKey, stored: Vec<StoredTotal>) {
        if stored.is_empty() {
            return;
        }
        let projected: Vec<_> =
            stored.into_iter().filter_map(|t| crate::totals::encode(season, t).ok()).collect();
        if let Err(error) = self.core.projection.level(&season.slug, key, &projected).await {
            tracing::warn!(season = %season.slug, %error, "season totals recorded; the reconciler will project them");
        }
    }
}
