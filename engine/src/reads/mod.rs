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
//! after K, a count of K or more) is answered from the ledger's order (`crate::fallback`,
//! `source: ledger`), which is why ranks never depend on K.
//!
//! A scope naming a segment (`?segment=province:zj`) reads that segment value's ranking instead
//! (`crate::segments`): pages, cursor pages, around-me, member ranks, counts, ranks of a list and
//! snapshots, each from the segment's ranking in Redis, or from the ledger's totals of its
//! members when Redis cannot be read or the period is read from its standings.
//!
//! Besides pages: the top N (shared for a second, `caches.rs`), a member's rank, counts, ranks of
//! a list, "why this score" (the member's entries), the board's periods, cursor tokens, and
//! "find me" by display name (`Engine::members_named`). Each live page is one `window.lua` call
//! (`redis/window.rs`: rows, their position and the members ahead of the first row, atomically);
//! what each read may cost is docs/ARCHITECTURE.md's "What a request may cost". Pinned snapshots
//! are `snapshots.rs`; the fallback while Redis cannot be read is `crate::fallback`.

mod caches;
mod snapshots;

pub use caches::{BOARD_CACHE_TTL, BoardCache, PeriodStatus, SharedTop, StateCache, TopCache};
pub use snapshots::{SNAPSHOT_LIFE, SNAPSHOT_WINDOW, Snapshots};

use crate::ledger::Viewer;
use crate::redis::{RawPage, ReadFrom, Source, Window};
use crate::scope::Scope;
use crate::{Engine, EngineError};
use domain::lifecycle::State;
use domain::view::{
    BoardSummary, CursorPage, Entry, LedgerEntry, MemberView, NameMatches, PeriodInfo, RankingPage,
    ReadSource,
};
use domain::{Board, BoardSlug, MemberId, PeriodKey, ranking};

/// The most entries one page may hold.
pub const MAX_PAGE: u64 = 200;
/// The most members one ranks-of-a-list read may name.
pub const MAX_MEMBERS: usize = 100;
/// The widest around-me neighbourhood, on each side.
pub const MAX_RADIUS: u64 = 50;
/// Profiles a search by display name reads at most (`Engine::members_named`).
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
    /// When the public view was taken, while the period is publicly frozen (`engine::public`).
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

impl Engine {
    /// All boards, each with its current period.
    pub async fn boards(&self) -> Result<Vec<BoardSummary>, EngineError> {
        let now = jiff::Timestamp::now();
        let boards = self.readable("boards", self.core.ledger.boards().await?);
        Ok(boards.iter().map(|b| summary(b, now)).collect())
    }

    /// A period named by a reader: `current` (or none) is the period containing now.
    pub fn period_of(&self, board: &Board, period: Option<&str>) -> Result<PeriodKey, EngineError> {
        match period {
            None | Some("current") => Ok(board.period_at(jiff::Timestamp::now())),
            // A key no period of this board can have (malformed, not in the calendar, outside the
            // supported years, of another cadence) names a period that does not exist.
            Some(p) => PeriodKey::parse_for(board.cadence, p).map_err(|e| EngineError::NotFound {
                what: crate::Missing::Period { key: p.to_owned(), why: Some(e.to_string()) },
            }),
        }
    }

    /// The periods a board has (with writes), plus the current one, newest first.
    pub async fn periods(&self, slug: &BoardSlug) -> Result<Vec<PeriodInfo>, EngineError> {
        let board = self.shared_board(slug).await?;
        let mut periods = self.readable("periods", self.core.ledger.periods(slug).await?);
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

    /// [`Engine::ranking_page`] as `viewer` sees it: admins read live during a public freeze.
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

    /// [`Engine::around`] as `viewer` sees it: admins read live during a public freeze.
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

    /// Members with `min_points` or better (at least `min_points`, or at most on an ascending
    /// board), and where the count came from; in the scope's segment, if it names one.
    pub async fn count_at_least(&self, scope: &Scope, min_points: i64) -> Result<Sourced<u64>, EngineError> {
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let segment = scope.segment();
        let (min, max) = board.codec.bounds();
        let status = self.status_for_reads(slug, period).await?;
        let frozen_at = self.public_frozen_in(scope, &status)?;
        if status.reads_standings(board) && segment.is_none() {
            let count = self.core.ledger.standings_at_least(slug, &period, board.sort(), min_points).await?;
            return Ok(Sourced { value: count, source: ReadSource::Standings, frozen_at: None });
        }
        // A threshold past the bounds counts everyone or nobody: clamp it to one past the worst
        // end (nobody) and the best end (everyone), within the exact range.
        let min_points = match board.sort() {
            domain::Sort::Desc => {
                min_points.clamp(min, max.saturating_add(1).min(domain::score::EXACT_LIMIT))
            }
            domain::Sort::Asc => {
                min_points.clamp(min.saturating_sub(1).max(-domain::score::EXACT_LIMIT), max)
            }
        };
        let min_score = board.codec.lowest_score_for(min_points);
        let counted = match status.reads_standings(board) {
            // A segment has no standings of its own: its members' totals, in the ledger.
            true => None,
            false => {
                let read =
                    self.core.projection.count_at_least(slug, &period, segment, ReadFrom::Replica, min_score);
                read.await.ok()
            }
        };
        match counted {
            Some((count, floor)) if floor.counts_from(min_score) => {
                Ok(Sourced { value: count, source: ReadSource::Redis, frozen_at })
            }
            // A bounded board counts down to its floor in Redis; below it, the ledger counts.
            _ => {
                let order = self.ledger_order_in(board, period, frozen_at.is_some(), segment).await?;
                Ok(Sourced { value: order.count_at_least(min_score), source: ReadSource::Ledger, frozen_at })
            }
        }
    }

    /// When the public view of the period was taken, for a public read of `scope`: the board's
    /// while it is publicly frozen. A segment has no public view: its public read is refused
    /// then (409 `segment_frozen`, as its pages are), and otherwise reads live (None).
    fn public_frozen_in(
        &self,
        scope: &Scope,
        status: &PeriodStatus,
    ) -> Result<Option<jiff::Timestamp>, EngineError> {
        match scope.segment() {
            None => Ok(status.frozen_at),
            Some(segment) => {
                self.refuse_frozen_segment(segment, status)?;
                Ok(None)
            }
        }
    }

    /// Ranks of a list of members (absent members are left out), best first; in the scope's
    /// segment, if it names one.
    pub async fn ranks_of(
        &self,
        scope: &Scope,
        members: &[MemberId],
    ) -> Result<Sourced<Vec<Entry>>, EngineError> {
        if members.is_empty() || members.len() > MAX_MEMBERS {
            return Err(EngineError::Invalid(format!("name 1 to {MAX_MEMBERS} members")));
        }
        let (slug, board, period) = (scope.slug(), scope.board(), scope.period());
        let segment = scope.segment();
        let mut source = ReadSource::Redis;
        let status = self.status_for_reads(slug, period).await?;
        let frozen_at = self.public_frozen_in(scope, &status)?;
        let standings = status.reads_standings(board);
        let policy = board.tie_policy();
        let found = if let Some(segment) = segment.filter(|_| standings) {
            // A segment has no standings of its own: its members' totals, in the ledger.
            source = ReadSource::Ledger;
            let order = self.ledger_order_in(board, period, false, Some(segment)).await?;
            members.iter().map(|m| order.rank_of(m, policy)).collect()
        } else if standings {
            source = ReadSource::Standings;
            let mut found = Vec::with_capacity(members.len());
            for member in members {
                let window = self.read_window_raw(
                    board,
                    period,
                    Source::Live,
                    ReadFrom::Replica,
                    Window::Around { member, radius: 0 },
                    1,
                );
                found.push(match window.await {
                    Ok((page, _)) => page.entries.first().map(|e| (e.points, e.rank)),
                    Err(EngineError::NotFound { .. }) => None,
                    Err(e) => return Err(e),
                });
            }
            found
                .into_iter()
                .map(|f| f.map(|(points, rank)| (board.codec.lowest_score_for(points), rank)))
                .collect()
        } else {
            let base = board.codec.tie_base();
            let read =
                self.core.projection.ranks(slug, &period, segment, ReadFrom::Replica, base, policy, members);
            match read.await {
                // On a trimmed bounded board a member absent from the projection, or at or
                // below its floor, may rank wrongly in Redis: the ledger answers for all of them.
                Ok((found, floor))
                    if floor.0.is_none()
                        || members
                            .iter()
                            .zip(&found)
                            .all(|(m, f)| f.is_some_and(|(s, _)| floor.exact(s, m.as_str()))) =>
                {
                    found
                }
                _ => {
                    source = ReadSource::Ledger;
                    let order = self.ledger_order_in(board, period, frozen_at.is_some(), segment).await?;
                    members.iter().map(|m| order.rank_of(m, policy)).collect()
                }
            }
        };
        let present: Vec<(MemberId, i64, u64)> = members
            .iter()
            .zip(found)
            .filter_map(|(m, f)| f.map(|(score, rank)| (m.clone(), score, rank)))
            .collect();
        let ids: Vec<MemberId> = present.iter().map(|(m, _, _)| m.clone()).collect();
        let (mut names, mut avatars) = self.names_and_avatars(&ids).await?;
        let mut entries: Vec<Entry> = present
            .into_iter()
            .map(|(member, score, rank)| Entry {
                rank,
                points: board.codec.points(score),
                display_name: names.remove(&member),
                avatar_url: avatars.remove(&member),
                member,
                tied: false,
            })
            .collect();
        entries.sort_by(|a, b| a.rank.cmp(&b.rank).then_with(|| a.member.cmp(&b.member)));
        entries.dedup_by(|a, b| a.member == b.member);
        Ok(Sourced { value: entries, source, frozen_at: frozen_at.filter(|_| !standings) })
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

    /// [`Engine::member_entries`] as `viewer` sees it: during a public freeze the public sees
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
    /// is `NotFound`, as if absent (the console reads it with [`Engine::member_view_admin`]).
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

    /// [`Engine::member_view`] whether or not the member is hidden (a hidden member's standing
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

    async fn read_window(
        &self,
        board: &Board,
        period: PeriodKey,
        source: Source<'_>,
        window: Window<'_>,
        limit: u64,
    ) -> Result<RankingPage, EngineError> {
        Ok(self.read_window_raw(board, period, source, ReadFrom::Replica, window, limit).await?.0)
    }

    /// Reads a window and assembles a page; also returns the last row (for cursors). The public
    /// ranking is read `from` a replica when replica reads are on; the others from the primary.
    async fn read_window_raw(
        &self,
        board: &Board,
        period: PeriodKey,
        source: Source<'_>,
        from: ReadFrom,
        window: Window<'_>,
        limit: u64,
    ) -> Result<(RankingPage, Option<(MemberId, i64)>), EngineError> {
        let status = self.status_for_reads(&board.slug, period).await?;
        let state = status.state;
        let segment = match source {
            Source::Segment { segment, public } => {
                if public {
                    self.refuse_frozen_segment(segment, &status)?;
                }
                Some(segment)
            }
            _ => None,
        };
        // Only the public reads the public view (Live is `:rank`, the view while frozen).
        let frozen_at = status.public_freeze().filter(|_| source == Source::Live);
        let (raw, from) = if let Some(segment) = segment.filter(|_| status.reads_standings(board)) {
            // A segment has no standings of its own (yet): its members' totals, in the ledger.
            let order = self.ledger_order_in(board, period, false, Some(segment)).await?;
            (order.window(window, limit), ReadSource::Ledger)
        } else if status.reads_standings(board) {
            (self.archived_window(board, period, window, limit).await?, ReadSource::Standings)
        } else {
            let tie_base = board.codec.tie_base();
            match self
                .core
                .projection
                .window(&board.slug, &period, source, from, window, limit, tie_base)
                .await
            {
                // A bounded board's projection ends at `keep_top`: a member it does not hold, or a
                // page that reaches its end, is read from the ledger (same order and ranks).
                Ok(raw) if past_kept(board, raw.as_ref()) => {
                    let order = self.ledger_order(board, period, frozen_at.is_some()).await?;
                    (order.window(window, limit), ReadSource::Ledger)
                }
                Ok(raw) => (raw, ReadSource::Redis),
                Err(error) if matches!(source, Source::Live | Source::Unfrozen | Source::Segment { .. }) => {
                    tracing::debug!(board = %board.slug, %period, %error, "ranking read from the ledger: Redis cannot be read");
                    let order = self.ledger_order_in(board, period, frozen_at.is_some(), segment).await?;
                    (order.window(window, limit), ReadSource::Ledger)
                }
                Err(error) => return Err(error.into()),
            }
        };
        let raw = raw.ok_or_else(|| match window {
            Window::Around { member, .. } => {
                EngineError::NotFound { what: crate::Missing::Member(member.clone()) }
            }
            _ => EngineError::Invalid("window not found".into()),
        })?;
        let last = raw.rows.last().cloned();
        let mut page = self.assemble(board, period, raw, from, state).await?;
        page.frozen_at = frozen_at;
        Ok((page, last))
    }

    /// The same window as [`crate::redis::Projection::window`], read from an archived period's
    /// standings: the ranks are the settled ones, the order the one the live board had. Scores
    /// are re-encoded from points and position (under `first_reached` the position orders ties,
    /// exactly as the reach sequence did).
    async fn archived_window(
        &self,
        board: &Board,
        period: PeriodKey,
        window: Window<'_>,
        limit: u64,
    ) -> Result<Option<RawPage>, EngineError> {
        let slug = &board.slug;
        let (from, count) = match window {
            Window::Offset(offset) => (offset, limit),
            Window::Around { member, radius } => {
                let Some(at) = self.core.ledger.standing_position(slug, &period, member).await? else {
                    return Ok(None);
                };
                let from = at.saturating_sub(radius);
                (from, at - from + radius + 1)
            }
            Window::After { member, .. } => {
                match self.core.ledger.standing_position(slug, &period, member).await? {
                    Some(at) => (at + 1, limit),
                    None => {
                        return Err(EngineError::Invalid("the cursor does not belong to this period".into()));
                    }
                }
            }
        };
        let mut window =
            self.core.ledger.standings_window(slug, &period, from, count.saturating_add(1)).await?;
        // The score the projection would hold, so the page decodes as a live one (negated on an
        // ascending board).
        let score = |position: u64, points: i64| match board.tie_policy() {
            domain::TiePolicy::Shared => Ok(board.codec.lowest_score_for(points)),
            domain::TiePolicy::FirstReached => board
                .codec
                .encode(points, position as i64)
                .map_err(|e| EngineError::Invalid(format!("standing at {position} cannot be encoded: {e}"))),
        };
        let next = match window.rows.len() as u64 > count {
            true => window.rows.pop().map(|s| score(from + count, s.points)).transpose()?,
            false => None,
        };
        let ahead = match board.tie_policy() {
            domain::TiePolicy::Shared => window.rows.first().map_or(from, |s| s.rank - 1),
            domain::TiePolicy::FirstReached => from,
        };
        let rows = window
            .rows
            .into_iter()
            .enumerate()
            .map(|(i, s)| Ok((s.member, score(from + i as u64, s.points)?)))
            .collect::<Result<Vec<_>, EngineError>>()?;
        Ok(Some(RawPage { total: window.total, offset: from, ahead, rows, next, exact: true }))
    }

    async fn assemble(
        &self,
        board: &Board,
        period: PeriodKey,
        raw: RawPage,
        source: ReadSource,
        state: State,
    ) -> Result<RankingPage, EngineError> {
        // Rank the page together with the entry after it, so a tie across the page end shows.
        let mut points: Vec<i64> = raw.rows.iter().map(|(_, s)| board.codec.points(*s)).collect();
        points.extend(raw.next.map(|s| board.codec.points(s)));
        let ranks = ranking::ranks(board.tie_policy(), raw.offset, raw.ahead, &points);
        // Only `shared` ranks tie: under `first_reached` equal points still rank one after the
        // other, though fewer members have more points than a page's first entry has ahead.
        let shared = board.tie_policy() == domain::TiePolicy::Shared;
        let tied = ranking::ties(&ranks, shared && raw.ahead < raw.offset);
        points.truncate(raw.rows.len());
        let members: Vec<_> = raw.rows.iter().map(|(m, _)| m.clone()).collect();
        let (mut names, mut avatars) = self.names_and_avatars(&members).await?;
        let entries: Vec<Entry> = members
            .into_iter()
            .zip(points)
            .zip(ranks.into_iter().zip(tied))
            .map(|((member, points), (rank, tied))| Entry {
                rank,
                display_name: names.remove(&member),
                avatar_url: avatars.remove(&member),
                member,
                points,
                tied,
            })
            .collect();
        let span = period.span(&board.zone);
        Ok(RankingPage {
            board: summary(board, jiff::Timestamp::now()),
            period,
            starts_at: span.start,
            ends_at: span.end,
            ends_local: domain::local::in_zone(
                span.end,
                &board.zone,
                domain::local::Clock::Minute,
                domain::locale::Locale::En,
            ),
            total: raw.total,
            offset: raw.offset,
            entries,
            has_more: raw.next.is_some(),
            source,
            state,
            frozen_at: None,
        })
    }
}

/// Whether a page read from a bounded board's projection needs the ledger: the member asked
/// about is not held (None), or the page is not exact (`RawPage::exact`: a trimmed member may
/// rank within it or right after it).
fn past_kept(board: &Board, raw: Option<&RawPage>) -> bool {
    board.keep_top.is_some() && raw.is_none_or(|raw| !raw.exact)
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
