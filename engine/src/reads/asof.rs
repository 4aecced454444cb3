//! The board as of any moment: a period's ranking exactly as the ledger had it at an instant —
//! the entries recorded by then, revocations and corrections made by then — replayed with the
//! operators' rules and ranked with the board's tie policy (`domain::asof`). Served from the
//! ledger, never the projection, for any state of the period (open, frozen, settled, archived).
//!
//! - [`Reads::as_of`]: a page of that ranking (`offset`/`limit`) or a member's neighbourhood.
//! - [`Reads::changes_between`]: who entered and left the top N between two instants, and
//!   every rank move in it (`domain::asof::changes` of two as-of rankings).
//! - A public freeze holds: the public's instant is clamped to the freeze's moment, and the
//!   ledger read keeps to the freeze's watermark in the same statement (`Viewer`). Admins see
//!   past it. Members hidden now are left out, as on every ranking.
//!
//! Cost: one replay reads every entry of the period recorded by the instant (O(entries); under
//! 0.75 s for 300 000 entries on either ledger, docs/API.md); `changes` replays both instants from
//! one read, up to the later one. So a hostile public cannot multiply it, replays run
//! one at a time per process ([`Replays`]'s semaphore) and each ranking is kept for
//! [`ASOF_CACHE_TTL`], keyed by (board, period, instant, viewer): a slider or a crowd asking
//! for the same moment pays once. Replays take at most one core of a process; callers wait in
//! line for it (503 `unavailable` after 10 s). The line is not shared out per client address:
//! one client asking for new instants can make other callers' as-of reads wait; no other route
//! waits on it (docs/BENCHMARKS.md, abuse).

use super::Reads;
use crate::ledger::{LedgerError, Viewer};
use crate::reads::{MAX_PAGE, MAX_RADIUS, check_limit};
use crate::scope::Scope;
use crate::{EngineError, Missing};
use domain::asof::{PastEntry, RankChanges, TopChanges};
use domain::settlement::Standing;
use domain::view::Entry;
use domain::{BoardSlug, MemberId, PeriodKey, ranking};
use jiff::Timestamp;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use domain::asof::AsOfPage;

/// How long a replayed ranking is kept.
pub const ASOF_CACHE_TTL: Duration = Duration::from_secs(5);
/// Rankings kept at most (each may hold every member of a period).
const KEPT: usize = 8;
/// The widest top N a changes read compares.
pub const MAX_TOP: u64 = MAX_PAGE;

type Key = (BoardSlug, PeriodKey, i64, Viewer);
/// A replayed ranking and when it was made.
type Kept = (Instant, Arc<Vec<Standing>>);

/// This process's replays: one at a time, each kept for [`ASOF_CACHE_TTL`].
pub struct Replays {
    one_at_a_time: tokio::sync::Semaphore,
    kept: Mutex<HashMap<Key, Kept>>,
}

impl Default for Replays {
    fn default() -> Self {
        Self { one_at_a_time: tokio::sync::Semaphore::new(1), kept: Mutex::default() }
    }
}

impl Replays {
    fn get(&self, key: &Key) -> Option<Arc<Vec<Standing>>> {
        let kept = self.kept.lock().expect("as-of cache");
        kept.get(key).filter(|(at, _)| at.elapsed() < ASOF_CACHE_TTL).map(|(_, s)| Arc::clone(s))
    }

    fn keep(&self, key: Key, standings: Arc<Vec<Standing>>) {
        let mut kept = self.kept.lock().expect("as-of cache");
        kept.retain(|_, (at, _)| at.elapsed() < ASOF_CACHE_TTL);
        if kept.len() >= KEPT
            && let Some(oldest) = kept.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone())
        {
            kept.remove(&oldest);
        }
        kept.insert(key, (Instant::now(), standings));
    }
}

/// Which part of an as-of ranking to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsOfWindow {
    /// `limit` entries from position `offset` (0-based).
    Page { offset: u64, limit: u64 },
    /// A member and `radius` neighbours on each side.
    Around { member: MemberId, radius: u64 },
}

impl Reads {
    /// A period's ranking as the ledger had it at `at`, as `viewer` may see it: the public never
    /// past a public freeze (`at` is clamped to its moment; the answer's `at` says so).
    pub async fn as_of(
        &self,
        viewer: Viewer,
        scope: &Scope,
        at: Timestamp,
        window: AsOfWindow,
    ) -> Result<AsOfPage, EngineError> {
        let (frozen_at, at) = self.instant_for(viewer, scope, at).await?;
        let standings = self.standings_at(viewer, scope, at).await?;
        let (offset, len) = match &window {
            AsOfWindow::Page { offset, limit } => {
                check_limit(*limit)?;
                (*offset, *limit)
            }
            AsOfWindow::Around { member, radius } => {
                if *radius > MAX_RADIUS {
                    return Err(EngineError::Invalid(format!("radius must be at most {MAX_RADIUS}")));
                }
                // Not on the board then; the instant is not named (the public's may be a freeze's).
                let position = standings
                    .iter()
                    .position(|s| &s.member == member)
                    .ok_or_else(|| EngineError::NotFound { what: Missing::Member(member.clone()) })?
                    as u64;
                let from = position.saturating_sub(*radius);
                (from, position + radius + 1 - from)
            }
        };
        let start = (offset as usize).min(standings.len());
        let end = start.saturating_add(len as usize).min(standings.len());
        let run = &standings[start..end];
        let ranks: Vec<u64> = run.iter().map(|s| s.rank).collect();
        // Under `shared` a run that starts inside a tie shares its first rank with the one before.
        let tied_before = start > 0 && standings[start - 1].rank == ranks.first().copied().unwrap_or(0);
        let ties = ranking::ties(&ranks, tied_before);
        let members: Vec<MemberId> = run.iter().map(|s| s.member.clone()).collect();
        let mut names = self.display_names(&members).await?;
        let entries = run
            .iter()
            .zip(ties)
            .map(|(s, tied)| Entry {
                rank: s.rank,
                display_name: names.remove(&s.member),
                avatar_url: None,
                member: s.member.clone(),
                points: s.points,
                tied,
            })
            .collect();
        Ok(AsOfPage {
            board: scope.slug().clone(),
            period: scope.period(),
            at,
            frozen_at,
            total: standings.len() as u64,
            offset: start as u64,
            entries,
            has_more: end < standings.len(),
        })
    }

    /// Who entered and left the top `top` between `from` and `to`, and every rank move in it:
    /// the difference of the two as-of rankings, as `viewer` may see them (both instants clamped
    /// to a public freeze for the public).
    pub async fn changes_between(
        &self,
        viewer: Viewer,
        scope: &Scope,
        from: Timestamp,
        to: Timestamp,
        top: u64,
    ) -> Result<RankChanges, EngineError> {
        if top == 0 || top > MAX_TOP {
            return Err(EngineError::Invalid(format!("top must be between 1 and {MAX_TOP}")));
        }
        if from > to {
            return Err(EngineError::Invalid("from must not be after to".into()));
        }
        let (frozen_at, from) = self.instant_for(viewer, scope, from).await?;
        let (_, to) = self.instant_for(viewer, scope, to).await?;
        // Both from one read of the ledger, up to `to`.
        let [before, after] = self.standings_at_each(viewer, scope, [from, to]).await?;
        let TopChanges { mut entered, mut left, mut moves } = domain::asof::changes(&before, &after, top);
        let members: Vec<MemberId> = moves.iter().map(|m| m.member.clone()).collect();
        let names = self.display_names(&members).await?;
        for m in entered.iter_mut().chain(left.iter_mut()).chain(moves.iter_mut()) {
            m.display_name = names.get(&m.member).cloned();
        }
        Ok(RankChanges {
            board: scope.slug().clone(),
            period: scope.period(),
            from,
            to,
            top,
            frozen_at,
            entered,
            left,
            moves,
        })
    }

    /// The public freeze this viewer is held to (None for admins, or while none holds), and the
    /// instant it may see.
    async fn instant_for(
        &self,
        viewer: Viewer,
        scope: &Scope,
        at: Timestamp,
    ) -> Result<(Option<Timestamp>, Timestamp), EngineError> {
        if viewer == Viewer::Admin {
            return Ok((None, at));
        }
        // Read from the ledger, not the state cache: a freeze made a moment ago already holds.
        let view = self.core.ledger.public_view(scope.slug(), &scope.period()).await?;
        Ok(match view {
            Some(view) => (Some(view.frozen_at), at.min(view.frozen_at)),
            None => (None, at),
        })
    }

    /// The whole ranking at `at`, replayed (one at a time in this process) or kept.
    async fn standings_at(
        &self,
        viewer: Viewer,
        scope: &Scope,
        at: Timestamp,
    ) -> Result<Arc<Vec<Standing>>, EngineError> {
        let [standings] = self.standings_at_each(viewer, scope, [at]).await?;
        Ok(standings)
    }

    /// The whole rankings at each of `instants`, kept or replayed: the ones not kept come from
    /// one read of the ledger, up to the latest of them (one read at a time in this process).
    async fn standings_at_each<const N: usize>(
        &self,
        viewer: Viewer,
        scope: &Scope,
        instants: [Timestamp; N],
    ) -> Result<[Arc<Vec<Standing>>; N], EngineError> {
        let key =
            |at: Timestamp| -> Key { (scope.slug().clone(), scope.period(), at.as_microsecond(), viewer) };
        let kept = || instants.map(|at| self.as_of.get(&key(at)));
        let found = kept();
        if found.iter().all(Option::is_some) {
            return Ok(found.map(|f| f.expect("kept")));
        }
        let _one = self.as_of.one_at_a_time.acquire().await.expect("the semaphore is never closed");
        // Another caller may have replayed the same moments while this one waited.
        let mut found = kept();
        let missing: Vec<Timestamp> =
            instants.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(at, _)| *at).collect();
        let Some(latest) = missing.iter().max().copied() else {
            return Ok(found.map(|f| f.expect("kept")));
        };
        let past = self.core.ledger.past(scope.slug(), &scope.period(), latest, viewer).await?;
        let board = scope.board();
        let (sort, policy, prizes) = (board.sort(), board.tie_policy(), board.prizes.clone());
        let wanted = missing.clone();
        let replayed = tokio::task::spawn_blocking(move || {
            let entries: Vec<PastEntry> =
                past.entries.into_iter().filter(|e| !past.hidden.contains(&e.member)).collect();
            wanted
                .iter()
                .map(|at| {
                    let totals = domain::asof::totals(&entries, at.as_microsecond(), sort)
                        .map_err(|m| LedgerError::Corrupt(format!("the total of {m} overflows")))?;
                    Ok(Arc::new(domain::asof::ranking(sort, policy, totals, &prizes)))
                })
                .collect::<Result<Vec<_>, EngineError>>()
        })
        .await
        .map_err(|e| EngineError::Invalid(format!("as-of replay: {e}")))??;
        for (at, standings) in missing.into_iter().zip(replayed) {
            self.as_of.keep(key(at), Arc::clone(&standings));
            for (slot, instant) in found.iter_mut().zip(instants) {
                if instant == at && slot.is_none() {
                    *slot = Some(Arc::clone(&standings));
                }
            }
        }
        Ok(found.map(|f| f.expect("every instant replayed or kept")))
    }
}
