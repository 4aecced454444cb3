//! The lifecycle scheduler: makes the clock's decisions durable without anyone's help.
//!
//! Every `laurel serve` ticks every `--scheduler-tick` (5 s by default). A pass, as of `now`:
//! 1. freezes every `open` period (a row in the ledger's `periods`) whose end + the board's grace
//!    is at or before `now` (`Board::closes_at`). The write path already treats such writes as
//!    late; the freeze makes the state durable and visible. Passes list every open period, so the
//!    first pass after downtime catches up on all periods that ended meanwhile. An open period not
//!    yet due whose board has `public_freeze_seconds` is frozen publicly once its last that-many
//!    seconds began — once: not if it is publicly frozen or was revealed
//!    (`Ledger::public_freeze_due`);
//! 2. with `archive_after` (`--archive-after-days`), archives `settled` periods settled at least
//!    that long ago, and reveals them (an archived period's standings are public);
//! 3. unlinks the Redis keys of periods archived in the last [`EXPIRY_LOOKBACK`] (7 days) once
//!    their grace is over — archives made while Redis was away, or whose process stopped within
//!    the grace — once per period per process, giving keys still within the grace their safety-net
//!    expiry; gives settled periods' keys their expiry and unlinks them once their board's
//!    `ranking_ttl_days` after the settlement are over (`Jobs::expire_settled`); and removes the
//!    copies of expired snapshots (`Projection::sweep_snapshots`).
//!
//! Every transition is the ledger's own (`Ledger::transition`): it re-reads the period's state
//! with its row locked and is idempotent, so a repeated pass changes nothing and writes no audit
//! row. Actor `scheduler`; the reason names the rule, the holder and its lease token.
//!
//! **One leader.** Every instance runs [`Jobs::spawn_scheduler`]; each tick it takes or renews
//! the ledger lease [`LEASE`] (`ledger/leases.rs`) and only the holder runs a pass. Before each
//! transition the pass checks that the lease is still its own, with the same fencing token and
//! not expired (`Ledger::holds_lease`); if not, it stops and leaves the rest to the new holder.
//! The check and the transition are separate transactions, so a holder that loses the lease in
//! between can still complete that one transition. That is safe because the scheduler's
//! transitions are functions of the ledger and the clock alone (the new holder would make the
//! same one), each runs with the period row locked and moves only from the state it read — two
//! holders freezing the same period make one move and one audit row — and the only human change
//! they can meet, a reopen, is met the same way by the current holder (a period reopened after
//! its end + grace is frozen again: writes to it are late either way). The fence's job is to stop
//! a holder that was paused (a GC stall, a suspended VM, a partition) from working through an old
//! list. Lease instants are the instances' clocks: they must agree to well within `lease_ttl`
//! (three ticks). On shutdown an instance releases the lease; a crashed leader is replaced once
//! the lease expires.
//! On SQLite the ledger is one process (see `ledger/mod.rs`), so the lease only orders engines
//! within it.

use super::Jobs;
use crate::EngineError;
use crate::lifecycle::public::RevealMode;
use crate::lifecycle::{ARCHIVE_GRACE, ARCHIVE_SAFETY_NET};
use domain::lifecycle::{State, Transition};
use domain::{Board, BoardSlug, PeriodKey};
use jiff::{SignedDuration, Timestamp};
use std::collections::HashMap;
use std::time::Duration;

/// The lease whose holder runs the scheduler.
pub const LEASE: &str = "scheduler";

/// The audit actor of the scheduler's transitions.
pub const ACTOR: &str = "scheduler";

/// How far back a pass looks for archived periods whose keys may still lack their expiry.
pub const EXPIRY_LOOKBACK: Duration = Duration::from_secs(7 * 24 * 3600);

/// How the scheduler of one process runs.
#[derive(Debug, Clone)]
pub struct SchedulerConfig {
    /// Names this process in the lease; unique per process ([`default_holder`]), or two
    /// processes would both believe they lead.
    pub holder: String,
    /// How often to take or renew the lease and, when held, run a pass.
    pub tick: Duration,
    /// How long the lease lasts unrenewed: a dead leader's successor waits at most this long.
    /// Longer than `tick` (the leader renews every tick).
    pub lease_ttl: Duration,
    /// Archive settled periods this long after their settlement; None leaves archiving to admins.
    pub archive_after: Option<Duration>,
}

impl SchedulerConfig {
    /// A config with a unique holder and a lease of three ticks (at least one second).
    pub fn new(tick: Duration, archive_after: Option<Duration>) -> Self {
        Self {
            holder: default_holder(),
            tick,
            lease_ttl: (tick * 3).max(Duration::from_secs(1)),
            archive_after,
        }
    }
}

/// `hostname-pid-random`: unique per process, readable in the audit trail.
pub fn default_holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "laurel".into());
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        // The pid and the clock still tell processes apart on one host.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        bytes = nanos.subsec_nanos().to_le_bytes();
    }
    let random = crate::hex(&bytes);
    format!("{host}-{}-{random}", std::process::id())
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Periods this pass froze (not those already frozen by someone else meanwhile).
    pub frozen: Vec<(BoardSlug, PeriodKey)>,
    /// Periods this pass archived.
    pub archived: Vec<(BoardSlug, PeriodKey)>,
    /// Periods this pass froze publicly (their board's `public_freeze_seconds`).
    pub publicly_frozen: Vec<(BoardSlug, PeriodKey)>,
    /// Archived periods whose Redis keys were given their expiry, or unlinked once the grace was
    /// over.
    pub expiries: u64,
    /// Copies of expired snapshots removed (`reads/snapshots.rs`).
    pub snapshots_removed: usize,
    /// Transitions that failed (logged); the next pass tries them again.
    pub failed: u64,
    /// The lease was no longer ours part-way: the pass stopped and left the rest to the holder.
    pub fenced_out: bool,
}

/// Archived periods whose keys this process already unlinked (so a running scheduler does it once
/// per period, not every tick), and settled periods whose keys it unlinked at their deadline.
#[derive(Debug, Default)]
struct Expired(HashMap<(BoardSlug, PeriodKey), Timestamp>, HashMap<(BoardSlug, PeriodKey), Timestamp>);

/// The lease a pass runs under.
#[derive(Debug, Clone, Copy)]
struct Fence {
    token: i64,
}

impl Jobs {
    /// One pass as of `now`, without a lease: for a single process, a one-off run or tests. Every
    /// call re-applies the expiry of all recently archived periods.
    pub async fn scheduler_pass(
        &self,
        config: &SchedulerConfig,
        now: Timestamp,
    ) -> Result<PassReport, EngineError> {
        self.pass(config, None, &mut Expired::default(), now).await
    }

    /// One pass as of `now` under the lease [`LEASE`] held by `config.holder` with `token`: before
    /// each transition it checks the lease is still that one, and stops (`fenced_out`) if not.
    pub async fn fenced_scheduler_pass(
        &self,
        config: &SchedulerConfig,
        token: i64,
        now: Timestamp,
    ) -> Result<PassReport, EngineError> {
        self.pass(config, Some(Fence { token }), &mut Expired::default(), now).await
    }

    /// Runs the scheduler until `shutdown` resolves: every tick it takes or renews the lease and,
    /// while it holds it, runs a pass with the current time. On shutdown it releases the lease so
    /// another instance takes over at its next tick rather than after the TTL.
    pub fn spawn_scheduler(
        &self,
        config: SchedulerConfig,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> tokio::task::JoinHandle<()> {
        let engine = self.clone();
        tokio::spawn(async move {
            let holder = config.holder.as_str();
            let mut shutdown = std::pin::pin!(shutdown);
            let mut tick = tokio::time::interval(config.tick);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut leading: Option<crate::ledger::Lease> = None;
            let mut expired = Expired::default();
            loop {
                tokio::select! {
                    () = &mut shutdown => break,
                    _ = tick.tick() => {}
                }
                let now = Timestamp::now();
                match engine.core.ledger.acquire_lease(LEASE, holder, config.lease_ttl, now).await {
                    Ok(Some(lease)) => {
                        if leading.map(|l| l.token) != Some(lease.token) {
                            tracing::info!(holder, token = lease.token, "scheduler leadership gained");
                        }
                        leading = Some(lease);
                        let fence = Some(Fence { token: lease.token });
                        let pass = engine.pass(&config, fence, &mut expired, now).await;
                        engine.core.metrics.count_pass("scheduler", pass.is_ok());
                        if let Err(error) = pass {
                            tracing::warn!(holder, %error, "scheduler pass failed; the next tick retries");
                        }
                    }
                    Ok(None) => {
                        if let Some(lost) = leading.take() {
                            tracing::info!(holder, token = lost.token, "scheduler leadership lost");
                        }
                    }
                    Err(error) => {
                        tracing::warn!(holder, %error, "scheduler lease not taken or renewed");
                        // Unrenewed, the lease still runs until its expiry; after that it is lost.
                        if let Some(lost) = leading.filter(|l| l.expires_at <= now) {
                            leading = None;
                            tracing::info!(holder, token = lost.token, "scheduler leadership lost");
                        }
                    }
                }
            }
            if leading.is_some() {
                match engine.core.ledger.release_lease(LEASE, holder).await {
                    Ok(_) => tracing::info!(holder, "scheduler lease released"),
                    Err(error) => tracing::warn!(holder, %error, "scheduler lease not released; it expires"),
                }
            }
        })
    }

    async fn pass(
        &self,
        config: &SchedulerConfig,
        fence: Option<Fence>,
        expired: &mut Expired,
        now: Timestamp,
    ) -> Result<PassReport, EngineError> {
        // The pass's clock: `now`, moved on by the time the pass has taken so far.
        let started = std::time::Instant::now();
        let clock = || now.checked_add(started.elapsed()).unwrap_or(now);
        let signature = match fence {
            Some(f) => format!("by {} with lease token {}", config.holder, f.token),
            None => format!("by {} without a lease", config.holder),
        };
        let mut report = PassReport::default();

        let open_periods = self.core.ledger.periods_changed(State::Open, None, Timestamp::MAX).await?;
        for open in self.core.readable("scheduler", open_periods) {
            let Some(board) = self.board_of_row(&open, &mut report).await else { continue };
            let end = open.period.span(&board.zone).end;
            if board.closes_at(open.period) > now {
                self.scheduled_public_freeze(config, fence, &board, open.period, now, &mut report).await?;
                continue;
            }
            if !self.still_leading(config, fence, clock()).await? {
                report.fenced_out = true;
                return Ok(report);
            }
            let reason = format!(
                "period ended at {} (+ {} s grace); {signature}",
                end.to_zoned(board.zone.clone()),
                board.freeze_grace_seconds
            );
            if self.scheduled(&board, open.period, Transition::Freeze, &reason, clock(), &mut report).await {
                report.frozen.push((board.slug.clone(), open.period));
            }
        }

        if let Some(after) = config.archive_after {
            let after = SignedDuration::try_from(after).unwrap_or(SignedDuration::MAX);
            // Settled at least `after` ago: at or before the cutoff (the query's bound is strict).
            let cutoff = now.checked_sub(after).unwrap_or(Timestamp::MIN);
            let before = cutoff.checked_add(SignedDuration::from_micros(1)).unwrap_or(cutoff);
            let settled_periods = self.core.ledger.periods_changed(State::Settled, None, before).await?;
            for settled in self.core.readable("scheduler", settled_periods) {
                let Some(board) = self.board_of_row(&settled, &mut report).await else { continue };
                if !self.still_leading(config, fence, clock()).await? {
                    report.fenced_out = true;
                    return Ok(report);
                }
                let at = settled.changed_at.map_or_else(|| "an unknown time".into(), |t| t.to_string());
                let reason = format!("settled at {at}, archived {after:#} later; {signature}");
                if self
                    .scheduled(&board, settled.period, Transition::Archive, &reason, clock(), &mut report)
                    .await
                {
                    report.archived.push((board.slug.clone(), settled.period));
                    // Its expiry is set below with the other recently archived periods.
                }
            }
        }

        let lookback = SignedDuration::try_from(EXPIRY_LOOKBACK).unwrap_or(SignedDuration::MAX);
        let since = now.checked_sub(lookback).unwrap_or(Timestamp::MIN);
        expired.0.retain(|_, at| *at >= since);
        let archived_periods =
            self.core.ledger.periods_changed(State::Archived, Some(since), Timestamp::MAX).await?;
        let grace = SignedDuration::try_from(ARCHIVE_GRACE).unwrap_or(SignedDuration::MAX);
        for archived in self.core.readable("scheduler", archived_periods) {
            let key = (archived.board, archived.period);
            if expired.0.contains_key(&key) {
                continue;
            }
            let archived_at = archived.changed_at.unwrap_or(now);
            // Within the grace other instances may still read the keys (their one-second state
            // caches): they get an expiry as a safety net, and are unlinked once it is over.
            let grace_over = archived_at.checked_add(grace).is_ok_and(|end| end <= now);
            let done = match grace_over {
                true => self.core.unlink_period_keys(&key.0, &key.1).await,
                false => self.core.expire_period_keys(&key.0, &key.1, ARCHIVE_SAFETY_NET).await,
            };
            match done {
                Ok(()) => {
                    if grace_over {
                        expired.0.insert(key, archived_at);
                    }
                    report.expiries += 1;
                }
                Err(error) => {
                    // Redis is away: the next pass tries again.
                    tracing::warn!(board = %key.0, period = %key.1, %error, "archived period's keys not removed yet");
                    break;
                }
            }
        }
        self.expire_settled(expired, now, &mut report).await?;
        match self.reads.sweep_snapshots().await {
            Ok(swept) => report.snapshots_removed = swept,
            Err(error) => tracing::warn!(%error, "expired snapshots not removed yet"),
        }
        Ok(report)
    }

    /// Settled periods' keys live for their board's `ranking_ttl_days` after the settlement
    /// (`Lifecycle::ranking_deadline`; reads then come from the standings). Before the deadline
    /// they carry an expiry of the deadline + [`ARCHIVE_SAFETY_NET`] (re-applied each pass, so a
    /// changed setting takes effect); once it and [`ARCHIVE_GRACE`] are over, they are unlinked
    /// — the same UNLINK as archived periods', so Redis frees a big ranking off its main thread
    /// rather than by a lazy expiry. Publicly frozen periods keep theirs until the reveal.
    async fn expire_settled(
        &self,
        expired: &mut Expired,
        now: Timestamp,
        report: &mut PassReport,
    ) -> Result<(), EngineError> {
        let settled = self.core.ledger.periods_changed(State::Settled, None, Timestamp::MAX).await?;
        let grace = SignedDuration::try_from(ARCHIVE_GRACE).unwrap_or(SignedDuration::MAX);
        let net = SignedDuration::try_from(ARCHIVE_SAFETY_NET).unwrap_or(SignedDuration::MAX);
        for row in self.core.readable("scheduler", settled) {
            let key = (row.board.clone(), row.period);
            let Some(board) = self.board_of_row(&row, report).await else { continue };
            let Some(deadline) = self.lifecycle.ranking_deadline(&board, row.period).await? else { continue };
            if expired.1.get(&key) == Some(&deadline) {
                continue;
            }
            let over = deadline.checked_add(grace).is_ok_and(|end| end <= now);
            let done = match over {
                true => self.core.unlink_period_keys(&key.0, &key.1).await,
                false => {
                    let until = deadline.checked_add(net).unwrap_or(Timestamp::MAX);
                    let ttl = now.duration_until(until).unsigned_abs();
                    self.core.expire_period_keys(&key.0, &key.1, ttl.max(Duration::from_secs(1))).await
                }
            };
            match done {
                Ok(()) => {
                    if over {
                        expired.1.insert(key, deadline);
                    }
                    report.expiries += 1;
                }
                Err(error) => {
                    tracing::warn!(board = %key.0, period = %key.1, %error, "settled period's keys not expired yet");
                    break;
                }
            }
        }
        Ok(())
    }

    /// The board of a listed period; one that cannot be read fails that period only (counted in
    /// the report, logged), and the pass goes on with the others.
    async fn board_of_row(
        &self,
        row: &crate::ledger::PeriodInState,
        report: &mut PassReport,
    ) -> Option<Board> {
        match self.reads.board(&row.board).await {
            Ok(board) => Some(board),
            Err(error) => {
                report.failed += 1;
                tracing::warn!(board = %row.board, period = %row.period, %error, "period skipped: its board cannot be read");
                None
            }
        }
    }

    /// Whether the pass may go on: always without a fence, else while the lease is still ours.
    async fn still_leading(
        &self,
        config: &SchedulerConfig,
        fence: Option<Fence>,
        at: Timestamp,
    ) -> Result<bool, EngineError> {
        let Some(fence) = fence else { return Ok(true) };
        let held = self.core.ledger.holds_lease(LEASE, &config.holder, fence.token, at).await?;
        if !held {
            tracing::info!(holder = %config.holder, token = fence.token, "scheduler lease lost mid-pass; stopping");
        }
        Ok(held)
    }

    /// Freezes a period publicly once its last `public_freeze_seconds` began (contest mode),
    /// unless it is already publicly frozen or was revealed.
    async fn scheduled_public_freeze(
        &self,
        config: &SchedulerConfig,
        fence: Option<Fence>,
        board: &Board,
        period: PeriodKey,
        now: Timestamp,
        report: &mut PassReport,
    ) -> Result<(), EngineError> {
        let lead = SignedDuration::from_secs(board.public_freeze_seconds);
        let from = period.span(&board.zone).end.checked_sub(lead).unwrap_or(Timestamp::MIN);
        if board.public_freeze_seconds == 0
            || from > now
            || !self.core.ledger.public_freeze_due(&board.slug, &period).await?
        {
            return Ok(());
        }
        if !self.still_leading(config, fence, now).await? {
            return Ok(());
        }
        let reason = format!("the last {} s of the period began at {from}", board.public_freeze_seconds);
        match self.lifecycle.public_freeze_at(board, period, ACTOR, Some(&reason), now).await {
            Ok(done) if done.changed => {
                tracing::info!(board = %board.slug, %period, reason, "scheduled public freeze");
                report.publicly_frozen.push((board.slug.clone(), period));
            }
            Ok(_) => {}
            Err(error) => {
                report.failed += 1;
                tracing::warn!(board = %board.slug, %period, %error, "scheduled public freeze failed");
            }
        }
        Ok(())
    }

    /// Applies one scheduled transition; true when it moved the period (false when it was already
    /// there, or it failed — logged and counted, the next pass retries).
    async fn scheduled(
        &self,
        board: &Board,
        period: PeriodKey,
        transition: Transition,
        reason: &str,
        at: Timestamp,
        report: &mut PassReport,
    ) -> bool {
        match self.core.ledger.transition(board, period, transition, ACTOR, Some(reason), at).await {
            Ok(done) => {
                if done.moved {
                    self.reads.forget_cached(&board.slug);
                    self.live.announce(&board.slug, &period);
                    tracing::info!(board = %board.slug, %period, transition = transition.as_str(), reason, "scheduled transition");
                }
                // An archived period's standings are public: its public freeze ends (also when
                // an earlier pass archived it and died before this).
                if transition == Transition::Archive
                    && let Err(error) =
                        self.lifecycle.reveal_at(board, period, RevealMode::All, ACTOR, Some(reason)).await
                {
                    tracing::warn!(board = %board.slug, %period, %error, "archived period not revealed; the next pass retries");
                }
                done.moved
            }
            Err(error) => {
                report.failed += 1;
                tracing::warn!(board = %board.slug, %period, transition = transition.as_str(), %error, "scheduled transition failed");
                false
            }
        }
    }
}
