//! Progress of long work — settling, rebuilding, exporting and importing a period — as numbers:
//! the phase the work is in and how many of how many it has done there.
//!
//! A [`Progress`] is a cheap cloneable handle that the work updates once per block, page or
//! statement (never per row), so one short lock per update costs nothing next to the SQL or the
//! Redis round trip it follows; the lock keeps a reading whole (a phase with its own numbers).
//! Totals are counts known before a phase starts (a `COUNT` in the same transaction, or the rows
//! already read); a phase that cannot be counted has no total and is shown as working, not as a
//! guess. Each phase ends with `processed == total`.
//!
//! The phases: a settlement checks the projection (uncounted), reads totals, writes standings,
//! the member directory and rewards (the member count is one `COUNT` in the settlement's
//! transaction, before the reads); a rebuild projects ranked members per page, out of the ledger's
//! count at the start (a count that moves during the rebuild of an open period ends at what was
//! rebuilt); an export reads (uncounted), then writes rows as it serialises them; an import
//! inserts entries and late writes, replays and inserts totals, each revision's standings, and
//! projects, all counted from the export.
//!
//! Whoever wants the numbers reads them: the CLI through an observer called on every update
//! ([`Progress::observed`]); the console through [`latest`], this process's registry of the jobs
//! of each period ([`Progress::track`]). The registry is per process: behind several instances a
//! poll that reaches another instance finds nothing, and the console keeps its bar without
//! numbers.

use domain::{BoardSlug, PeriodKey};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

/// One reading of a job's progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// What the work is doing now (`reading totals`, `writing standings`, …); empty before the
    /// first phase.
    pub phase: &'static str,
    /// What the phase counts (`members`, `rows`, `entries`, …).
    pub unit: &'static str,
    pub processed: u64,
    /// How many there are in this phase; `None` for a phase that cannot be counted up front.
    pub total: Option<u64>,
    /// The work ended and succeeded.
    pub done: bool,
}

type Observer = Box<dyn Fn(&Report) + Send + Sync>;

/// The handle long work updates; clones share one reading.
#[derive(Clone, Default)]
pub struct Progress(Arc<Inner>);

#[derive(Default)]
struct Inner {
    report: Mutex<Readings>,
    observer: Option<Observer>,
}

/// The latest reading, and the last reading of each phase before it.
#[derive(Default)]
struct Readings {
    now: Report,
    ended: Vec<Report>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Progress").field(&self.report()).finish()
    }
}

impl Progress {
    pub fn new() -> Self {
        Self::default()
    }

    /// A handle that calls `observer` with every reading, on the working task: it must be quick
    /// (the CLI draws its bar or prints a line from it).
    pub fn observed(observer: impl Fn(&Report) + Send + Sync + 'static) -> Self {
        Self(Arc::new(Inner { report: Mutex::default(), observer: Some(Box::new(observer)) }))
    }

    /// The latest reading.
    pub fn report(&self) -> Report {
        self.0.report.lock().unwrap_or_else(|e| e.into_inner()).now.clone()
    }

    /// The last reading of every phase so far, in order, the current one last: what the work
    /// went through, with its final numbers once it is done.
    pub fn phases(&self) -> Vec<Report> {
        let readings = self.0.report.lock().unwrap_or_else(|e| e.into_inner());
        let current = Some(&readings.now).filter(|r| !r.phase.is_empty());
        readings.ended.iter().chain(current).cloned().collect()
    }

    fn update(&self, change: impl FnOnce(&mut Report)) {
        let report = {
            let mut readings = self.0.report.lock().unwrap_or_else(|e| e.into_inner());
            change(&mut readings.now);
            readings.now.clone()
        };
        if let Some(observer) = &self.0.observer {
            observer(&report);
        }
    }

    /// Starts a phase of `total` items (none done yet).
    pub fn phase(&self, phase: &'static str, unit: &'static str, total: u64) {
        self.begin(Report { phase, unit, processed: 0, total: Some(total), done: false });
    }

    /// Starts a phase whose size is not known before it ends.
    pub fn uncounted(&self, phase: &'static str, unit: &'static str) {
        self.begin(Report { phase, unit, processed: 0, total: None, done: false });
    }

    fn begin(&self, next: Report) {
        {
            let mut readings = self.0.report.lock().unwrap_or_else(|e| e.into_inner());
            let ended = std::mem::replace(&mut readings.now, next.clone());
            if !ended.phase.is_empty() {
                readings.ended.push(ended);
            }
        }
        if let Some(observer) = &self.0.observer {
            observer(&next);
        }
    }

    /// Counts `n` more items of the phase done. Items that appeared after the phase was counted
    /// (a write during a rebuild of an open period) raise the total with them.
    pub fn advance(&self, n: u64) {
        self.update(|r| {
            r.processed += n;
            if let Some(total) = &mut r.total {
                *total = (*total).max(r.processed);
            }
        });
    }

    /// Ends a phase whose count could move while it ran: what was processed is what there was
    /// (members hidden or added during a rebuild).
    pub fn settle_count(&self) {
        self.update(|r| r.total = Some(r.processed));
    }

    /// The work ended and succeeded.
    pub fn done(&self) {
        self.update(|r| r.done = true);
    }

    /// Registers this handle as the running `kind` of work on a period (`settle`, `rebuild`,
    /// `export`, `import`) in this process's registry, until the guard is dropped. The last job
    /// of a period stays readable for [`KEPT_AFTER_END`] after it ended, so a console that asks
    /// just after the work answered sees its final numbers.
    pub fn track(&self, kind: &'static str, board: &BoardSlug, period: &PeriodKey) -> Tracked {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let key = (board.to_string(), period.to_string());
        let mut jobs = JOBS.lock().unwrap_or_else(|e| e.into_inner());
        jobs.retain(|_, job| job.ended.is_none_or(|at| at.elapsed() < KEPT_AFTER_END));
        jobs.insert(key.clone(), Job { id, kind, progress: self.clone(), ended: None });
        Tracked { key, id }
    }
}

/// How long the registry keeps a period's last job after it ended.
pub const KEPT_AFTER_END: Duration = Duration::from_secs(60);

struct Job {
    id: u64,
    kind: &'static str,
    progress: Progress,
    ended: Option<Instant>,
}

/// The jobs of this process, by (board, period): the latest one of each period.
static JOBS: LazyLock<Mutex<HashMap<(String, String), Job>>> = LazyLock::new(Mutex::default);

/// Keeps a job registered while it runs; dropping it (at the end, or on an error) marks it ended.
#[must_use = "the job is registered only while the guard lives"]
pub struct Tracked {
    key: (String, String),
    id: u64,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let mut jobs = JOBS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(job) = jobs.get_mut(&self.key).filter(|job| job.id == self.id) {
            job.ended = Some(Instant::now());
        }
    }
}

/// The latest job of a period in this process, as the console shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobReport {
    /// `settle`, `rebuild`, `export` or `import`.
    pub kind: &'static str,
    pub report: Report,
    /// The last reading of each phase so far ([`Progress::phases`]).
    pub phases: Vec<Report>,
    /// How long ago it ended (None while it runs). Ended without `report.done`: it failed.
    pub ended_ago: Option<Duration>,
}

/// The running (or just ended) job of a period in this process, if any.
pub fn latest(board: &BoardSlug, period: &PeriodKey) -> Option<JobReport> {
    let jobs = JOBS.lock().unwrap_or_else(|e| e.into_inner());
    let job = jobs.get(&(board.to_string(), period.to_string()))?;
    let ended_ago = job.ended.map(|at| at.elapsed());
    if ended_ago.is_some_and(|ago| ago >= KEPT_AFTER_END) {
        return None;
    }
    Some(JobReport {
        kind: job.kind,
        report: job.progress.report(),
        phases: job.progress.phases(),
        ended_ago,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_ends_at_its_total_and_a_late_item_raises_it() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let p = Progress::observed(move |r| log.lock().unwrap().push((r.processed, r.total)));
        p.phase("projecting", "members", 3);
        p.advance(2);
        p.advance(2);
        p.settle_count();
        assert_eq!(*seen.lock().unwrap(), [(0, Some(3)), (2, Some(3)), (4, Some(4)), (4, Some(4))]);
        p.uncounted("swapping", "keys");
        p.done();
        assert!(p.report().done);
        let phases: Vec<_> = p.phases().iter().map(|r| (r.phase, r.processed, r.total, r.done)).collect();
        assert_eq!(phases, [("projecting", 4, Some(4), false), ("swapping", 0, None, true)]);
    }

    #[test]
    fn the_registry_keeps_a_period_s_last_job_after_it_ended() {
        let (board, period) =
            (BoardSlug::parse("progress-unit").unwrap(), PeriodKey::parse("2026-W10").unwrap());
        let first = Progress::new();
        let guard = first.track("settle", &board, &period);
        first.phase("writing standings", "members", 10);
        first.advance(10);
        let running = latest(&board, &period).unwrap();
        assert_eq!((running.kind, running.report.processed, running.ended_ago), ("settle", 10, None));
        first.done();
        drop(guard);
        let ended = latest(&board, &period).unwrap();
        assert!(ended.report.done && ended.ended_ago.is_some());
        // A newer job replaces it; the older guard no longer touches it.
        let second = Progress::new();
        let _guard = second.track("rebuild", &board, &period);
        assert_eq!(latest(&board, &period).unwrap().kind, "rebuild");
    }
}
