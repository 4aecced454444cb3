//! Pinned snapshots ("Pin this view", `POST …/snapshots`): a copy of a period's ranking whose
//! pages and rank numbers never change while it lives.
//!
//! A pin is public and anonymous, so its cost must not grow with the number of pins: every pin of
//! a period within one [`SNAPSHOT_WINDOW`] gets the same copy, named by the window (its id is the
//! window's start, in hex), made once whichever instance is asked and however many ask at once.
//! Redis therefore holds at most about `SNAPSHOT_LIFE / SNAPSHOT_WINDOW + 1` copies per pinned
//! period, never one per request. The copy is made from the ledger — the truth, read in one
//! statement — and written into Redis a slice at a time (`redis/snapshots.rs`), so making it never
//! blocks Redis the way a `COPY` of a big ranking would. An archived period needs no copy: its
//! settled standings never change, and its pages are read from them.
//!
//! Making copies is one at a time per process ([`Snapshots`]); the maker of a window's copy holds
//! a claim in Redis (`:snap:<id>:info:claim`), and a pin that finds another instance making it
//! waits for it, at most [`WAIT_FOR_MAKER`]. A pin of a period with no members writes only the
//! small info and claim keys: one pair per period per window, however a caller names the period.
//!
//! A scope naming a segment pins that segment value's ranking: the same rules, per segment value
//! instead of per period, the copy made from the ledger's totals of the segment's members and
//! kept under the segment's own hash tag, on its slot (`redis/snapshots.rs`). A segment has no
//! public view, so while the period is publicly frozen pinning a segment, or paging a segment's
//! copy, is 409 `segment_frozen` like its live pages; a period read from its standings pins
//! nothing and pages the segment from the ledger, as its live pages do. A pin of a value no
//! member holds writes no key at all (so made-up values cost Redis nothing) and pages as empty;
//! once someone holds the value, such a pin is gone (410) and a new pin copies the ranking.

use super::Reads;
use super::{check_limit, source_in};
use crate::EngineError;
use crate::ledger::Viewer;
use crate::redis::{Source, Window};
use crate::scope::Scope;
use domain::segment::Segment;
use domain::view::{RankingPage, SnapshotInfo};
use domain::{Board, MemberId, PeriodKey};
use std::time::{Duration, Instant};

/// Pins of one period within one window share a copy.
pub const SNAPSHOT_WINDOW: Duration = Duration::from_secs(300);
/// How long a copy lives from the start of its window: a pin always has at least
/// `SNAPSHOT_LIFE - SNAPSHOT_WINDOW` (five minutes) to page through it.
pub const SNAPSHOT_LIFE: Duration = Duration::from_secs(600);
/// How long a maker holds its claim: far longer than making a copy of a million members takes.
const CLAIM_HOLD: Duration = Duration::from_secs(60);
/// How long a pin waits for another instance's maker before answering 503.
const WAIT_FOR_MAKER: Duration = Duration::from_secs(10);
/// How often a waiting pin looks again.
const POLL: Duration = Duration::from_millis(50);

/// This process's snapshot maker: one copy made at a time, whatever the pins.
#[derive(Default)]
pub struct Snapshots {
    making: tokio::sync::Mutex<()>,
}

/// The window of `now`: its start, in seconds since the epoch.
fn window_start(now: jiff::Timestamp) -> i64 {
    let window = SNAPSHOT_WINDOW.as_secs() as i64;
    now.as_second().div_euclid(window) * window
}

/// A snapshot id as the server makes it: the window's start in lowercase hex.
fn is_snapshot_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 16 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Reads {
    /// Pins the period's ranking, or the scope's segment's: the copy of this window, made now if
    /// no pin made it yet.
    pub async fn create_snapshot(&self, scope: &Scope) -> Result<SnapshotInfo, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let segment = scope.segment();
        let start = window_start(jiff::Timestamp::now());
        let snapshot_id = format!("{start:x}");
        let expires_at = jiff::Timestamp::from_second(start + SNAPSHOT_LIFE.as_secs() as i64)
            .map_err(|e| EngineError::Invalid(format!("no expiry for this snapshot: {e}")))?;
        let status = self.status_for_reads(slug, period).await?;
        let frozen_at = self.public_frozen_in(scope, &status)?;
        // A period read from its standings (archived, or settled past its keys' life) no longer
        // changes: the standings are the pinned copy (a segment's, its members' totals).
        let total = match (status.reads_standings(board), segment) {
            (true, None) => self.core.ledger.standings_window(slug, &period, 0, 0).await?.total,
            (true, Some(segment)) => {
                self.ledger_order_in(board, period, false, Some(segment)).await?.count_at_least(i64::MIN)
            }
            (false, _) => {
                self.pinned(board, period, segment, &snapshot_id, frozen_at.is_some(), expires_at).await?
            }
        };
        Ok(SnapshotInfo { snapshot_id, total, expires_at })
    }

    /// The member count of the window's copy, made here unless someone made it or is making it.
    async fn pinned(
        &self,
        board: &Board,
        period: PeriodKey,
        segment: Option<&Segment>,
        id: &str,
        public_view: bool,
        expires_at: jiff::Timestamp,
    ) -> Result<u64, EngineError> {
        let slug = &board.slug;
        if let Some(total) = self.core.projection.snapshot_total(slug, &period, segment, id).await? {
            return Ok(total);
        }
        if let Some(segment) = segment
            && !self.core.ledger.segment_held(slug, &period, &segment.dimension, &segment.value).await?
        {
            // Nobody holds the value: no copy and no key, however many values callers make up.
            return Ok(0);
        }
        let _one_at_a_time = self.snapshots.making.lock().await;
        let waiting_since = Instant::now();
        loop {
            if let Some(total) = self.core.projection.snapshot_total(slug, &period, segment, id).await? {
                return Ok(total);
            }
            if self.core.projection.claim_snapshot(slug, &period, segment, id, CLAIM_HOLD).await? {
                return self.make_snapshot(board, period, segment, id, public_view, expires_at).await;
            }
            if waiting_since.elapsed() > WAIT_FOR_MAKER {
                return Err(EngineError::Redis(::redis::RedisError::from((
                    ::redis::ErrorKind::Io,
                    "another instance is still making this snapshot",
                ))));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Makes the copy from the ledger: the public view of a publicly frozen period, else the
    /// live totals (a segment's: its members'), hidden members left out (exactly what the
    /// projection ranks).
    async fn make_snapshot(
        &self,
        board: &Board,
        period: PeriodKey,
        segment: Option<&Segment>,
        id: &str,
        public_view: bool,
        expires_at: jiff::Timestamp,
    ) -> Result<u64, EngineError> {
        let totals = match (segment, public_view) {
            (Some(segment), _) => self.core.segment_totals(board, &period, segment).await?,
            (None, true) => self.core.public_totals(board, &period).await?,
            (None, false) => self.core.projected_totals(board, &period).await?,
        };
        let rows: Vec<(MemberId, i64)> =
            totals.into_iter().filter(|t| !t.hidden).map(|t| (t.member, t.score)).collect();
        let life = expires_at.duration_since(jiff::Timestamp::now());
        let ttl = Duration::try_from(life).unwrap_or_default().max(Duration::from_secs(1));
        self.core.projection.write_snapshot(&board.slug, &period, segment, id, &rows, ttl).await?;
        Ok(rows.len() as u64)
    }

    /// A page of a pinned snapshot (of the scope's segment, if it names one); `Gone` once it
    /// expired.
    pub async fn snapshot_page(
        &self,
        scope: &Scope,
        snapshot_id: &str,
        offset: u64,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        check_limit(limit)?;
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let segment = scope.segment();
        let gone = || {
            EngineError::Gone(format!(
                "snapshot {snapshot_id} has expired (snapshots live 5 to 10 minutes); pin a new one"
            ))
        };
        if !is_snapshot_id(snapshot_id) {
            return Err(gone());
        }
        let status = self.status_for_reads(slug, period).await?;
        self.public_frozen_in(scope, &status)?;
        if status.reads_standings(board) {
            let source = source_in(scope, Viewer::Public);
            return self.read_window(board, period, source, Window::Offset(offset), limit).await;
        }
        let total = match self.core.projection.snapshot_total(slug, &period, segment, snapshot_id).await? {
            Some(total) => total,
            None => {
                let Some(segment) = segment else { return Err(gone()) };
                if self.core.ledger.segment_held(slug, &period, &segment.dimension, &segment.value).await? {
                    return Err(gone());
                }
                // A value nobody holds was pinned without a copy (`pinned`): its page is empty.
                0
            }
        };
        let source = Source::Snapshot { id: snapshot_id, segment };
        let mut page = self.read_window(board, period, source, Window::Offset(offset), limit).await?;
        // The copy may expire between the two reads; the info key carries the pinned count.
        if page.total != total && total > 0 {
            return Err(gone());
        }
        page.total = total;
        Ok(page)
    }

    /// Removes the copies of expired snapshots (the scheduler's pass).
    pub(crate) async fn sweep_snapshots(&self) -> Result<usize, EngineError> {
        Ok(self.core.projection.sweep_snapshots().await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_in_one_window_share_an_id_and_ids_are_checked() {
        let at = |s: &str| s.parse::<jiff::Timestamp>().unwrap();
        let first = window_start(at("2026-12-04T10:00:01Z"));
        assert_eq!(first, window_start(at("2026-12-04T10:04:59Z")));
        assert_ne!(first, window_start(at("2026-12-04T10:05:00Z")));
        assert!(is_snapshot_id(&format!("{first:x}")));
        for bad in ["", "not-hex", "00ff00ff00ff00ff00"] {
            assert!(!is_snapshot_id(bad), "{bad}");
        }
    }
}
