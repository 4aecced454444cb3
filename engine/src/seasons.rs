//! Seasons (issue 45): a season board's standings are made of another board's periods by a rule
//! (`domain::season`). The ledger stays the truth: a season's totals are computed from the source
//! totals of its weeks and written into the ledger as the season's own totals, then projected like
//! any board's — so every read mode, the ledger fallback and the reconciler work on a season
//! unchanged, and a live season read costs what a weekly read costs.
//!
//! How a season follows its weeks:
//! - **Incrementally**: a write on a source board notes its members for every season that holds
//!   the write's period ([`Seasons::noted`]); the season loop recomputes only those members from
//!   their totals in every week ([`Seasons::level_pending`]). A `placement` season depends on other
//!   members' ranks, so a write marks it whole instead.
//! - **By a check** in every reconciler pass ([`Seasons::level_once`]): a `sum`, `best` or
//!   `weighted` season total's version is the sum of the member's weekly versions, so the season
//!   is current exactly when its version sum equals its weeks' — otherwise (a correction, a
//!   revocation, a hidden member, another instance's write, a restart) it is recomputed whole. A
//!   `placement` season is recomputed whole whenever its weeks' version sum moved.
//!
//! Versions make both paths safe together and across instances: a computation from older source
//! rows has a lower version and is never written over a newer one (`ledger/seasons.rs`). Nothing is
//! written to a season directly ([`refuse_direct`]).

use crate::ledger::{SeasonTotal, SourceTotal};
use crate::{Core, EngineError};
use domain::season::{Season, SeasonRule, WeekResult};
use domain::settlement::FinalTotal;
use domain::{Board, BoardSlug, ErrorCode, MemberId, PeriodKey};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the list of seasons is kept before it is read again (seasons are created rarely and
/// never changed; a write on a source is noted for the seasons known then, the check finds the rest).
const INDEX_TTL: Duration = Duration::from_secs(5);

/// Every season board, as read at an instant.
type SeasonList = Arc<Vec<Arc<Board>>>;

/// What a season waits for: some members, or a whole recomputation.
enum Pending {
    Members(BTreeSet<MemberId>),
    Whole,
}

/// The season service: the list of seasons, the members writes changed, and what each
/// `placement` season was last computed from.
pub struct Seasons {
    core: Core,
    index: Mutex<Option<(Instant, SeasonList)>>,
    pending: Mutex<HashMap<BoardSlug, Pending>>,
    wake: tokio::sync::Notify,
    /// The weeks' version sum each `placement` season was last computed at, in this process.
    placed_at: Mutex<HashMap<BoardSlug, i64>>,
}

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

/// Refuses a direct write, correction or import on a season board: its totals are computed from
/// its source's periods.
pub(crate) fn refuse_direct(board: &Board) -> Result<(), EngineError> {
    match &board.season {
        Some(season) => Err(EngineError::Refused {
            code: ErrorCode::SeasonBoard,
            detail: format!(
                "{} is a season: its totals come from {}'s periods; write to {} instead",
                board.slug, season.source, season.source
            ),
        }),
        None => Ok(()),
    }
}

impl Seasons {
    pub(crate) fn new(core: Core) -> Self {
        Self {
            core,
            index: Mutex::default(),
            pending: Mutex::default(),
            wake: tokio::sync::Notify::new(),
            placed_at: Mutex::default(),
        }
    }

    /// Every season board, read from the ledger at most once per [`INDEX_TTL`].
    pub async fn seasons(&self) -> Result<SeasonList, EngineError> {
        if let Some((read, seasons)) = &*self.index.lock().expect("season index")
            && read.elapsed() < INDEX_TTL
        {
            return Ok(Arc::clone(seasons));
        }
        let seasons: SeasonList =
            Arc::new(self.core.ledger.season_boards().await?.into_iter().map(Arc::new).collect());
        *self.index.lock().expect("season index") = Some((Instant::now(), Arc::clone(&seasons)));
        Ok(seasons)
    }

    /// The seasons that hold `period` of `source` (none when the list cannot be read: logged).
    pub(crate) async fn holding(&self, source: &BoardSlug, period: PeriodKey) -> Vec<Arc<Board>> {
        match self.seasons().await {
            Ok(seasons) => seasons.iter().filter(|s| holds(s, source, period)).cloned().collect(),
            Err(error) => {
                tracing::warn!(%source, %period, %error, "seasons not read");
                Vec::new()
            }
        }
    }

    /// Forgets the list of seasons (a season was created here).
    pub(crate) fn forget(&self) {
        *self.index.lock().expect("season index") = None;
    }

    /// Notes that a write changed `members` of `source` in `period`, for every season known to
    /// hold that period, and wakes the season loop. Never waits: the seasons not known yet are
    /// found by the next check.
    pub(crate) fn noted<'m>(
        &self,
        source: &BoardSlug,
        period: PeriodKey,
        members: impl Iterator<Item = &'m MemberId>,
    ) {
        let seasons = match &*self.index.lock().expect("season index") {
            Some((_, seasons)) => Arc::clone(seasons),
            None => return,
        };
        let holding: Vec<&Arc<Board>> = seasons.iter().filter(|s| holds(s, source, period)).collect();
        if holding.is_empty() {
            return;
        }
        let members: Vec<&MemberId> = members.collect();
        let mut pending = self.pending.lock().expect("season pending");
        for season in holding {
            let whole = season.season.as_ref().is_some_and(|d| d.rule.reads_ranks());
            let entry =
                pending.entry(season.slug.clone()).or_insert_with(|| Pending::Members(BTreeSet::new()));
            match (entry, whole) {
                (entry, true) => *entry = Pending::Whole,
                (Pending::Members(set), false) => set.extend(members.iter().map(|m| (*m).clone())),
                (Pending::Whole, false) => {}
            }
        }
        drop(pending);
        self.wake.notify_one();
    }

    /// Recomputes what writes noted since the last call.
    pub async fn level_pending(&self) -> Result<SeasonReport, EngineError> {
        let pending = std::mem::take(&mut *self.pending.lock().expect("season pending"));
        let seasons = self.seasons().await?;
        let mut report = SeasonReport::default();
        for (slug, what) in pending {
            let Some(season) = seasons.iter().find(|s| s.slug == slug) else { continue };
            let members: Vec<MemberId> = match what {
                Pending::Members(set) => set.into_iter().collect(),
                Pending::Whole => Vec::new(),
            };
            let only = (!members.is_empty()).then_some(members.as_slice());
            report.seasons_checked += 1;
            report.add(season, self.level(season, only).await?);
        }
        Ok(report)
    }

    /// Checks every season that is not settled against its weeks, and recomputes those that are
    /// behind (module docs).
    pub async fn level_once(&self) -> Result<SeasonReport, EngineError> {
        self.forget();
        let mut report = SeasonReport::default();
        for season in self.seasons().await?.iter() {
            let Some(definition) = &season.season else { continue };
            let key = definition.key();
            if matches!(
                self.core.ledger.state_of(&season.slug, &key).await?,
                domain::State::Settled | domain::State::Archived
            ) {
                continue;
            }
            report.seasons_checked += 1;
            let mut weeks_sum = 0;
            for week in &definition.periods {
                weeks_sum += self.core.ledger.version_sum(&definition.source, week).await?;
            }
            let behind = if definition.rule.reads_ranks() {
                self.placed_at.lock().expect("placed at").get(&season.slug) != Some(&weeks_sum)
            } else {
                self.core.ledger.version_sum(&season.slug, &key).await? != weeks_sum
            };
            if behind {
                report.add(season, self.level(season, None).await?);
            }
        }
        Ok(report)
    }

    /// Recomputes a season's totals (every member's, or only `members`'), writes those that are
    /// newer than the ledger's and projects them. A projection that fails is left to the
    /// reconciler. Returns the totals written.
    async fn level(&self, season: &Board, members: Option<&[MemberId]>) -> Result<u64, EngineError> {
        let Some(definition) = &season.season else { return Ok(0) };
        let ranks = definition.rule.reads_ranks();
        // A placement season reads whole weeks: a rank depends on every member.
        let members = if ranks { None } else { members };
        let rows = self.core.ledger.source_totals(&definition.source, &definition.periods, members).await?;
        let weekly_ranks = match ranks {
            true => {
                let source = self.core.ledger.board(&definition.source).await?.ok_or_else(|| {
                    EngineError::Invalid(format!(
                        "the source board {} of {} is gone",
                        definition.source, season.slug
                    ))
                })?;
                Some(weekly_ranks(&source, &rows))
            }
            false => None,
        };
        let weeks_sum: i64 = rows.iter().map(|r| r.version).sum();
        let totals = season_totals(definition, &rows, weekly_ranks.as_ref(), weeks_sum);
        let stored = self.core.ledger.level_season(season, totals, jiff::Timestamp::now()).await?;
        if ranks {
            self.placed_at.lock().expect("placed at").insert(season.slug.clone(), weeks_sum);
        }
        let written = stored.len() as u64;
        if stored.is_empty() {
            return Ok(0);
        }
        let projected: Vec<_> =
            stored.into_iter().filter_map(|t| crate::reconciler::encode(season, t).ok()).collect();
        if let Err(error) = self.core.projection.level(&season.slug, &definition.key(), &projected).await {
            tracing::warn!(season = %season.slug, %error, "season totals recorded; the reconciler will project them");
        }
        Ok(written)
    }

    /// Before a season is settled: every one of its weeks must be settled or archived (else
    /// `invalid_transition`), and its totals are brought level with their final standings.
    pub(crate) async fn before_settling(&self, season: &Board) -> Result<(), EngineError> {
        let Some(definition) = &season.season else { return Ok(()) };
        for week in &definition.periods {
            let state = self.core.ledger.state_of(&definition.source, week).await?;
            if !matches!(state, domain::State::Settled | domain::State::Archived) {
                return Err(EngineError::Refused {
                    code: ErrorCode::InvalidTransition,
                    detail: format!(
                        "{} is settled after its weeks: {} {week} is {}",
                        season.slug,
                        definition.source,
                        state.as_str()
                    ),
                });
            }
        }
        self.placed_at.lock().expect("placed at").remove(&season.slug);
        self.level(season, None).await?;
        Ok(())
    }
}

/// Whether `season` is made of `period` of `source`.
fn holds(season: &Board, source: &BoardSlug, period: PeriodKey) -> bool {
    season.season.as_ref().is_some_and(|d| d.source == *source && d.week_of(period).is_some())
}

/// Each week's rank of each member who is not hidden that week, by the source's order and ties.
fn weekly_ranks(source: &Board, rows: &[SourceTotal]) -> HashMap<(PeriodKey, MemberId), u64> {
    let mut by_week: HashMap<PeriodKey, Vec<FinalTotal>> = HashMap::new();
    for r in rows.iter().filter(|r| !r.hidden) {
        by_week.entry(r.period).or_default().push(FinalTotal {
            member: r.member.clone(),
            points: r.points,
            reach_seq: r.reach_seq,
        });
    }
    let mut ranks = HashMap::with_capacity(rows.len());
    for (week, totals) in by_week {
        for s in domain::settlement::standings(source.sort(), source.tie_policy(), totals, &[]) {
            ranks.insert((week, s.member), s.rank);
        }
    }
    ranks
}

/// The season totals of the members in `rows` (sorted by member, then week). A `sum`, `best` or
/// `weighted` total's version is the member's weekly versions added up; a `placement` total's is
/// `weeks_sum`, every week's version sum, as another member's write can move it.
fn season_totals(
    definition: &Season,
    rows: &[SourceTotal],
    ranks: Option<&HashMap<(PeriodKey, MemberId), u64>>,
    weeks_sum: i64,
) -> Vec<SeasonTotal> {
    let mut totals = Vec::new();
    for member_rows in rows.chunk_by(|a, b| a.member == b.member) {
        let member = &member_rows[0].member;
        let weeks: Vec<WeekResult> = member_rows
            .iter()
            .filter(|r| !r.hidden)
            .filter_map(|r| {
                Some(WeekResult {
                    week: definition.week_of(r.period)?,
                    points: r.points,
                    rank: ranks
                        .and_then(|ranks| ranks.get(&(r.period, member.clone())).copied())
                        .unwrap_or(0),
                    reached: r.updated_at,
                })
            })
            .collect();
        let result = definition.rule.apply(&weeks);
        let version = match definition.rule {
            SeasonRule::Placement { .. } => weeks_sum,
            _ => member_rows.iter().map(|r| r.version).sum(),
        };
        totals.push(SeasonTotal {
            member: member.clone(),
            points: result.points,
            version,
            hidden: weeks.is_empty() || !result.ranked,
            reached: result.reached,
        });
    }
    totals
}

impl crate::Engine {
    /// Runs the season loop until the process ends: whatever writes noted, within `gather` of
    /// the first note, announced to the seasons' live streams.
    pub fn spawn_seasons(&self, gather: Duration) -> tokio::task::JoinHandle<()> {
        let engine = self.clone();
        tokio::spawn(async move {
            loop {
                engine.seasons.wake.notified().await;
                tokio::time::sleep(gather).await;
                match engine.seasons.level_pending().await {
                    Ok(report) => engine.announce_seasons(&report),
                    Err(error) => {
                        tracing::warn!(%error, "season totals not levelled; the next check retries")
                    }
                }
            }
        })
    }

    /// Tells the live streams of the seasons a pass changed.
    pub(crate) fn announce_seasons(&self, report: &SeasonReport) {
        for (slug, period) in &report.changed {
            self.announce(slug, period);
        }
    }

    /// "Why this season total": what each period of the season in `scope` gave `member`, read
    /// from the periods' rankings as `viewer` sees them (a public freeze's view for the public),
    /// with the member's rank in the season. 422 on a board that is not a season.
    pub async fn member_season(
        &self,
        viewer: crate::ledger::Viewer,
        scope: &crate::scope::Scope,
        member: &MemberId,
    ) -> Result<domain::season::MemberSeason, EngineError> {
        let Some(definition) = &scope.board().season else {
            return Err(EngineError::Invalid(format!("{} is not a season board", scope.slug())));
        };
        let mut results = Vec::with_capacity(definition.periods.len());
        for period in &definition.periods {
            let week = self.scope_of(&definition.source, *period).await?;
            results.push(self.entry_of(viewer, &week, member).await?);
        }
        let rank = self.entry_of(viewer, scope, member).await?.map(|(_, rank)| rank);
        Ok(definition.explain(member.clone(), &results, rank))
    }

    /// A member's points and rank in a ranking as `viewer` sees it; None when not in it.
    async fn entry_of(
        &self,
        viewer: crate::ledger::Viewer,
        scope: &crate::scope::Scope,
        member: &MemberId,
    ) -> Result<Option<(i64, u64)>, EngineError> {
        match self.around_as(viewer, scope, member, 0).await {
            Ok(page) => {
                Ok(page.entries.into_iter().find(|e| e.member == *member).map(|e| (e.points, e.rank)))
            }
            Err(EngineError::NotFound { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }
}
