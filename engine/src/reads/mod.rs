//! Reads: rankings from the projection with the board's tie policy, display names and avatars
//! joined from this process's copy of the profiles (`names`), and the ledger entries behind a
//! score.
//!
//! Paging modes: live offset pages (may shift while a reader pages), snapshot pages (a pinned
//! copy: stable until it expires), keyset cursor pages (never skip or repeat), and around-me (a
//! member's neighbourhood, read atomically). An archived period is read from its settled
//! standings in the ledger instead of the projection, with the same ranks and order; so is a
//! settled period once its keys' life (`ranking_ttl_days`) is over. A bounded board's projection
//! holds its best `keep_top`: a read that reaches past them (a member below, a page ending at or
//! after K, a count of K or more) is answered from the ledger's order (`crate::reads::fallback`,
//! `source: ledger`), which is why ranks never depend on K.
//!
//! A scope naming a segment (`?segment=province:zj`) reads that segment value's ranking instead
//! (`crate::segments`): pages, cursor pages, around-me, member ranks, counts, ranks of a list and
//! snapshots, each from the segment's ranking in Redis, or from the ledger's totals of its
//! members when Redis cannot be read or the period is read from its standings.
//!
//! Besides pages: the top N (shared for a second, `caches.rs`), a member's rank, counts, ranks of
//! a list, "why this score" (the member's entries), the board's periods, cursor tokens, and
//! "find me" by display name (`Reads::members_named`). Each live page is one `window.lua` call
//! (`redis/window.rs`: rows, their position and the members ahead of the first row, atomically);
//! what each read may cost is docs/ARCHITECTURE.md's "What a request may cost". Pinned snapshots
//! are `snapshots.rs`; the fallback while Redis cannot be read is `crate::reads::fallback`. The path from
//! a window of rows to a page is `window.rs`; counts and ranks of a list are `counts.rs`.

pub mod asof;
mod caches;
mod counts;
pub mod fallback;
pub mod history;
pub mod leaders_chart;
pub mod names;
pub mod segments;
mod snapshots;
mod window;

pub(crate) use caches::keys_deadline;
pub use caches::{BOARD_CACHE_TTL, PeriodStatus, SharedTop};
pub use snapshots::{SNAPSHOT_LIFE, SNAPSHOT_WINDOW};

use crate::ledger::Viewer;
use crate::redis::{ReadFrom, Source, Window};
use crate::scope::Scope;
use crate::{Core, EngineError, Missing};
use domain::lifecycle::State;
use domain::view::{
    BoardSummary, CursorPage, Entry, LedgerEntry, MemberView, NameMatches, PeriodInfo, RankingPage,
    ReadSource,
};
use domain::{Board, BoardSlug, MemberId, PeriodKey};
use std::sync::Arc;

/// The most entries one page may hold.
pub const MAX_PAGE: u64 = 200;
/// The most members one ranks-of-a-list read may name.
pub const MAX_MEMBERS: usize = 100;
/// The widest around-me neighbourhood, on each side.
pub const MAX_RADIUS: u64 = 50;
/// Profiles a search by display name reads at most (`Reads::members_named`).
pub const NAME_CANDIDATES: usize = 50;
// A search asks `ranks_of` about every candidate.
const _: () = assert!(NAME_CANDIDATES <= MAX_MEMBERS);

/// Matches a search by display name answers at most.
pub const NAME_MATCHES: usize = 10;

/// A read's answer and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    pub value: T,
    pub source: ReadSource,
    /// When the public view was taken, while the period is publicly frozen (`engine::lifecycle::public`).
    pub frozen_at: Option<jiff::Timestamp>,
}

pub(crate) fn check_limit(limit: u64) -> Result<(), EngineError> {
    if limit == 0 || limit > MAX_PAGE {
        return Err(EngineError::Invalid(format!("limit must be between 1 and {MAX_PAGE}")));
    }
    Ok(())
}

/// A keyset cursor: the last (score, member) a reader saw, as an opaque token.
pub fn encode_cursor(score: i64, member: &MemberId) -> String {
    crate::hex(format!("{score}~{member}").as_bytes())
}

pub fn decode_cursor(token: &str) -> Result<(i64, MemberId), EngineError> {
    let bad = || EngineError::Invalid("the cursor is not one this server made".into());
    if !token.len().is_multiple_of(2) || token.len() > 512 {
        return Err(bad());
    }
    let bytes = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect::<Result<Vec<u8>, _>>()?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let (score, member) = text.split_once('~').ok_or_else(bad)?;
    Ok((score.parse().map_err(|_| bad())?, MemberId::parse(member).map_err(|_| bad())?))
}

/// The reads service: every answer a reader sees, and what this process keeps to answer them
/// fast. Its state is its own: the top-N pages, board definitions and period states (`caches.rs`),
/// the rankings read from the ledger while Redis could not be read (`fallback.rs`), the display
/// names (`names.rs`), the snapshot maker (`snapshots.rs`), the segment value lists
/// (`segments.rs`), the as-of replays (`asof.rs`) and the leaders' charts (`leaders_chart.rs`).
/// Cheap to clone.
#[derive(Clone)]
pub struct Reads {
    core: Core,
    top_cache: Arc<caches::TopCache>,
    boards: Arc<caches::BoardCache>,
    states: Arc<caches::StateCache>,
    ledger_orders: Arc<fallback::LedgerOrders>,
    names: Arc<names::Names>,
    snapshots: Arc<snapshots::Snapshots>,
    segment_lists: Arc<segments::SegmentLists>,
    as_of: Arc<asof::Replays>,
    leaders_charts: Arc<leaders_chart::LeadersCharts>,
}

impl Reads {
    pub(crate) fn new(core: Core) -> Self {
        Self {
            core,
            top_cache: Arc::default(),
            boards: Arc::default(),
            states: Arc::default(),
            ledger_orders: Arc::default(),
            names: Arc::default(),
            snapshots: Arc::default(),
            segment_lists: Arc::default(),
            as_of: Arc::default(),
            leaders_charts: Arc::default(),
        }
    }

    /// All boards, each with its current period.
    pub async fn boards(&self) -> Result<Vec<BoardSummary>, EngineError> {
        let now = jiff::Timestamp::now();
        let boards = self.core.readable("boards", self.core.ledger.boards().await?);
        Ok(boards.iter().map(|b| summary(b, now)).collect())
    }

    /// A period named by a reader: `current` (or none) is the period containing now.
    pub fn period_of(&self, board: &Board, period: Option<&str>) -> Result<PeriodKey, EngineError> {
        match period {
            None | Some("current") => Ok(board.period_at(jiff::Timestamp::now())),
            // A key no period of this board can have (malformed, not in the calendar, outside the
            // supported years, of another cadence) names a period that does not exist.
            Some(p) => board.period_named(p).map_err(|e| EngineError::NotFound {
                what: crate::Missing::Period { key: p.to_owned(), why: Some(e.to_string()) },
            }),
        }
    }

    /// The periods a board has (with writes), plus the current one, newest first.
    pub async fn periods(&self, slug: &BoardSlug) -> Result<Vec<PeriodInfo>, EngineError> {
        let board = self.shared_board(slug).await?;
        let mut periods = self.core.readable("periods", self.core.ledger.periods(slug).await?);
        let current = board.period_at(jiff::Timestamp::now());
        if !periods.iter().any(|(p, _)| *p == current) {
            periods.push((current, State::Open));
            periods.sort_by_key(|(period, _)| std::cmp::Reverse(*period));
        }
        Ok(periods
            .into_iter()
            .map(|(period, state)| {
                let span = period.span(&board.zone);
                PeriodInfo { period, state, starts_at: span.start, ends_at: span.end }
            })
            .collect())
    }

    /// A live page from `offset`. Live pages may shift while a reader pages through them.
    pub async fn ranking_page(
        &self,
        scope: &Scope,
        offset: u64,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        self.ranking_page_as(Viewer::Public, scope, offset, limit).await
    }

    /// The public's page read from the primary, never a replica: a live feed reads it because a
    /// write just changed it.
    pub(crate) async fn ranking_page_fresh(
        &self,
        scope: &Scope,
        offset: u64,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        self.page_from(source_in(scope, Viewer::Public), ReadFrom::Primary, scope, offset, limit).await
    }

    /// `Reads::ranking_page` as `viewer` sees it: admins read live during a public freeze.
    pub async fn ranking_page_as(
        &self,
        viewer: Viewer,
        scope: &Scope,
        offset: u64,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        self.page_from(source_in(scope, viewer), ReadFrom::Replica, scope, offset, limit).await
    }

    async fn page_from(
        &self,
        source: Source<'_>,
        from: ReadFrom,
        scope: &Scope,
        offset: u64,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        check_limit(limit)?;
        let (board, period) = (scope.board(), scope.period());
        let window = Window::Offset(offset);
        Ok(self.read_window_raw(board, period, source, from, window, limit).await?.0)
    }

    /// The page strictly after a keyset cursor (None: from the top), and the cursor to continue.
    /// Neither skips nor repeats members, even in long runs of equal scores.
    pub async fn entries_after(
        &self,
        scope: &Scope,
        cursor: Option<&str>,
        limit: u64,
    ) -> Result<CursorPage, EngineError> {
        check_limit(limit)?;
        let (board, period) = (scope.board(), scope.period());
        let parsed = cursor.map(decode_cursor).transpose()?;
        let window = match &parsed {
            Some((score, member)) => Window::After { score: *score, member },
            None => Window::Offset(0),
        };
        let source = source_in(scope, Viewer::Public);
        let (page, last) =
            self.read_window_raw(board, period, source, ReadFrom::Replica, window, limit).await?;
        let next_cursor =
            if page.has_more { last.map(|(member, score)| encode_cursor(score, &member)) } else { None };
        Ok(CursorPage { page, next_cursor })
    }

    /// A member's rank and points; `NotFound` when the member has none in the period.
    pub async fn member_rank(&self, scope: &Scope, member: &MemberId) -> Result<Entry, EngineError> {
        let around = self.around(scope, member, 0).await?;
        around
            .entries
            .into_iter()
            .next()
            .ok_or_else(|| EngineError::NotFound { what: crate::Missing::Member(member.clone()) })
    }

    /// A member and `radius` neighbours on each side, read atomically. The leader's
    /// neighbourhood starts at rank 1.
    pub async fn around(
        &self,
        scope: &Scope,
        member: &MemberId,
        radius: u64,
    ) -> Result<RankingPage, EngineError> {
        self.around_as(Viewer::Public, scope, member, radius).await
    }

    /// `Reads::around` as `viewer` sees it: admins read live during a public freeze.
    pub async fn around_as(
        &self,
        viewer: Viewer,
        scope: &Scope,
        member: &MemberId,
        radius: u64,
    ) -> Result<RankingPage, EngineError> {
        if radius > MAX_RADIUS {
            return Err(EngineError::Invalid(format!("radius must be at most {MAX_RADIUS}")));
        }
        let (board, period) = (scope.board(), scope.period());
        let window = Window::Around { member, radius };
        self.read_window(board, period, source_in(scope, viewer), window, 2 * radius + 1).await
    }

    /// Members of a period's public ranking whose display name starts with `prefix` (ASCII
    /// letters in either case): "Find me" by name, for contestants who do not know their member
    /// id. Reads the first [`NAME_CANDIDATES`] profiles by name (one index range of the ledger,
    /// `Ledger::profiles_named`), keeps those ranked in the period (`ranks_of`: the public view,
    /// hidden members out), best ranked first, at most [`NAME_MATCHES`]. `more` says other
    /// matches may lie past those read: a longer prefix narrows them.
    pub async fn members_named(&self, scope: &Scope, prefix: &str) -> Result<NameMatches, EngineError> {
        let candidates = self.core.ledger.profiles_named(prefix, NAME_CANDIDATES as i64).await?;
        let more = candidates.len() == NAME_CANDIDATES;
        let members: Vec<MemberId> = candidates.into_iter().map(|(m, _)| m).collect();
        if members.is_empty() {
            return Ok(NameMatches { entries: Vec::new(), more });
        }
        let mut entries = self.ranks_of(scope, &members).await?.value;
        let more = more || entries.len() > NAME_MATCHES;
        entries.truncate(NAME_MATCHES);
        Ok(NameMatches { entries, more })
    }

    /// The ledger entries behind a member's score in a period, newest first ("why this score").
    /// A hidden member is `NotFound`, as if absent.
    pub async fn member_entries(
        &self,
        scope: &Scope,
        member: &MemberId,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<LedgerEntry>, EngineError> {
        self.member_entries_as(Viewer::Public, scope, member, before, limit).await
    }

    /// `Reads::member_entries` as `viewer` sees it: during a public freeze the public sees
    /// no entry recorded after it, admins see them all.
    pub async fn member_entries_as(
        &self,
        viewer: Viewer,
        scope: &Scope,
        member: &MemberId,
        before: Option<i64>,
        limit: u64,
    ) -> Result<Vec<LedgerEntry>, EngineError> {
        check_limit(limit)?;
        let (slug, period) = (scope.slug(), scope.period());
        self.refuse_hidden(slug, &period, member).await?;
        Ok(self.core.ledger.member_entries(slug, &period, member, before, limit, viewer).await?)
    }

    /// A member's standing and the newest entries behind it (the member page). A hidden member
    /// is `NotFound`, as if absent (the console reads it with [`crate::Lifecycle::member_view_admin`]).
    pub async fn member_view(
        &self,
        scope: &Scope,
        member: &MemberId,
        before: Option<i64>,
        limit: u64,
    ) -> Result<MemberView, EngineError> {
        let (slug, board, key) = (scope.slug(), scope.board(), scope.period());
        self.refuse_hidden(slug, &key, member).await?;
        self.member_view_unchecked(board, key, member, before, limit, Viewer::Public).await
    }

    /// `Reads::member_view` whether or not the member is hidden (a hidden member's standing
    /// is None: it is not ranked), as `viewer` sees it.
    pub(crate) async fn member_view_unchecked(
        &self,
        board: &Board,
        key: PeriodKey,
        member: &MemberId,
        before: Option<i64>,
        limit: u64,
        viewer: Viewer,
    ) -> Result<MemberView, EngineError> {
        check_limit(limit)?;
        let slug = &board.slug;
        let around =
            self.read_window(board, key, source_for(viewer), Window::Around { member, radius: 0 }, 1).await;
        let (standing, standing_source) = match around {
            Ok(page) => (page.entries.into_iter().next(), Some(page.source)),
            Err(EngineError::NotFound { .. }) => (None, None),
            Err(e) => return Err(e),
        };
        let frozen_at = match viewer {
            Viewer::Public => self.public_frozen_at(slug, key).await?,
            Viewer::Admin => None,
        };
        let entries = self.core.ledger.member_entries(slug, &key, member, before, limit, viewer).await?;
        let older = (entries.len() as u64 == limit).then(|| entries.last().map(|e| e.id)).flatten();
        Ok(MemberView {
            board: summary(board, jiff::Timestamp::now()),
            period: key,
            member: member.clone(),
            standing,
            standing_source,
            entries,
            older,
            frozen_at,
        })
    }

    /// A member's neighbourhood in the live ranking, whatever the public sees (None: absent).
    pub(crate) async fn live_around(
        &self,
        board: &Board,
        period: PeriodKey,
        member: &MemberId,
        radius: u64,
    ) -> Result<Option<RankingPage>, EngineError> {
        let window = Window::Around { member, radius };
        match self.read_window(board, period, Source::Unfrozen, window, 2 * radius + 1).await {
            Ok(page) => Ok(Some(page)),
            Err(EngineError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `NotFound`, as if absent, when `member` is hidden in the period: public member reads that
    /// come from the ledger (entries, the member page) call this first. Ranking reads need not:
    /// the projection has no hidden member, and archived standings have none either.
    pub(crate) async fn refuse_hidden(
        &self,
        slug: &BoardSlug,
        period: &PeriodKey,
        member: &MemberId,
    ) -> Result<(), EngineError> {
        match self.core.ledger.member_total(slug, period, member).await? {
            Some(total) if total.hidden => {
                Err(EngineError::NotFound { what: Missing::Member(member.clone()) })
            }
            _ => Ok(()),
        }
    }

    /// When the public view of a period was taken, if it is publicly frozen (for reads: from the
    /// period state cache, at most a second old — labels only; the numbers come from `:rank`).
    pub async fn public_frozen_at(
        &self,
        slug: &BoardSlug,
        period: PeriodKey,
    ) -> Result<Option<jiff::Timestamp>, EngineError> {
        Ok(self.status_for_reads(slug, period).await?.frozen_at)
    }

    /// A member's own live points while the public sees a frozen standing (their signed "me"
    /// link), and how many of their entries the public does not see yet. Not their live rank:
    /// that would tell them about everyone else's writes. None when the period is not publicly
    /// frozen.
    pub async fn my_live_standing(
        &self,
        slug: &BoardSlug,
        period: PeriodKey,
        member: &MemberId,
    ) -> Result<Option<(Option<i64>, u64)>, EngineError> {
        let Some(view) = self.core.ledger.public_view(slug, &period).await? else {
            return Ok(None);
        };
        let board = self.board(slug).await?;
        let live = self.live_around(&board, period, member, 0).await?;
        let points = live.and_then(|p| p.entries.into_iter().next()).map(|e| e.points);
        let pending = self.core.ledger.entries_after(slug, &period, member, view.watermark).await?;
        Ok(Some((points, pending)))
    }

    /// A period with its state, as the API shows it.
    pub async fn period_info(&self, board: &Board, period: PeriodKey) -> Result<PeriodInfo, EngineError> {
        let span = period.span(&board.zone);
        let state = self.core.ledger.state_of(&board.slug, &period).await?;
        Ok(PeriodInfo { period, state, starts_at: span.start, ends_at: span.end })
    }
}

/// The ranking `viewer` reads in `scope`: its segment's, if it names one; else the board's.
fn source_in(scope: &Scope, viewer: Viewer) -> Source<'_> {
    match scope.segment() {
        Some(segment) => Source::Segment { segment, public: viewer == Viewer::Public },
        None => source_for(viewer),
    }
}

/// The ranking `viewer` reads: the public's (the public view while publicly frozen), or live.
fn source_for(viewer: Viewer) -> Source<'static> {
    match viewer {
        Viewer::Public => Source::Live,
        Viewer::Admin => Source::Unfrozen,
    }
}

pub fn summary(board: &Board, now: jiff::Timestamp) -> BoardSummary {
    BoardSummary {
        slug: board.slug.clone(),
        title: board.title.clone(),
        cadence: board.cadence,
        time_zone: board.time_zone().to_owned(),
        operator: board.operator,
        tie_policy: board.tie_policy(),
        current_period: board.period_at(now),
        sort: board.sort(),
        unit: board.unit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_forgeries() {
        let m = MemberId::parse("u:1@x").unwrap();
        let token = encode_cursor(-42, &m);
        assert_eq!(decode_cursor(&token).unwrap(), (-42, m));
        for bad in ["", "zz", "abc", &"00".repeat(300), "7e"] {
            assert!(decode_cursor(bad).is_err(), "{bad}");
        }
    }
}
