//! The board page, `/b/{board}[/{period}]`: one period's ranking, rendered on the server
//! (`SsrMode::Async`: the HTML already holds the rows). The query string picks the view, so every
//! view works without JavaScript: `?show=N` the live top N, `?find=<member>` around a member,
//! `?snap=<id>&offset=N` a page of a pinned snapshot ("Pin this view": `pin_view` pins the window's
//! shared copy and redirects to it), `?after=<cursor>` stable keyset pages, `?at=<instant>` the
//! ranking as the ledger had it then (the time slider, `components::then_slider`; seconds since
//! the epoch or RFC 3339). Its server functions (`read_ranking`, `read_around`, `read_snapshot`,
//! `read_after`, `read_as_of`, `read_periods`) run in-process and call one engine read each.
//!
//! The browser then loads the contestants' bundle and hydrates the page's islands (`Rows` and
//! the countdown; the rest stays the server's HTML). "Show more", the ranking's one pager, appends
//! keyset pages through `read_after`, so no member shows twice however the board moves; without
//! JavaScript it is a link (`?show=N`, or `?after=` on a keyset page). "Pin this view" is not
//! paging but sharing: a copy of the standings that stays put for 10 minutes, with its own
//! pager. On the live view (`?show=N`, from the top) the rows are `components::live::LiveRanking`, which opens the period's stream 1.5 s after hydration; the
//! member count, the freeze banner and the ranking's hint are the island's too and follow each
//! event's `total`, `frozen_at` and state, so a reveal or rows that arrive live never leave the
//! page contradicting itself.
//!
//! "Find me" looks for a member id first, then a display name (`read_named`): one match is shown
//! among its neighbours, several are listed to pick from. The period switcher's "←" stops at the
//! board's first period (the oldest it has rows for), and a period before it says so. Below the
//! ranking: the distribution, the prizes (with their winners once settled), the past periods
//! (`read_ranking_distribution`, `read_periods_with_winners`) and the settlement's later
//! revisions in words (`components::revisions`).

use crate::api::contestant::{MyLive, read_me, read_my_live};
use crate::api::history::{
    LeadersChart, Segments, read_leaders_chart, read_periods_with_winners, read_ranking_distribution,
    read_segment_values,
};
use crate::api::{PAGE_SIZE, read_after, read_periods, read_revisions};
use crate::components::charts::histogram::Histogram;
use crate::components::charts::leaders::LeadersRace;
use crate::components::error_view::ErrorView;
use crate::components::export::{ExportRow, ExportRows};
use crate::components::freeze_banner::FreezeBanner;
use crate::components::live::{LiveRanking, state_word};
use crate::components::movement::since_last_visit;
use crate::components::ranking_table::{prize_zones, zone_of};
use crate::components::revisions::RevisionNotes;
use crate::components::season_rows::SeasonRows;
use crate::error::AppError;
use crate::i18n::{Locale, Say, tr};
use domain::board::Prize;
use domain::segment::Segment;
use domain::view::{
    Distribution, Entry, PeriodInfo, PeriodResult, PrizeWinner, ReadSource, RevisionNote, SegmentValues,
};
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};
use serde::{Deserialize, Serialize};

mod below;
mod choices;
mod header;
mod load;
mod ranking;
mod rows;
mod then;

use below::{BelowRanking, Shape};
use choices::NameChoices;
use header::{BoardHeader, BoardTools, MeLine, PeriodSwitcher};
use load::{Loaded, load};
use ranking::{Ranking, RankingRules, SegmentHeading, TimeSlider};
pub use rows::Rows;

/// Most rows `?show=` may ask for in one server render, and the most one read returns.
const MAX_SHOWN: u64 = 200;
/// Rows per page of the board as it was (`?at=`).
const THEN_PAGE: u64 = 50;
/// Neighbours shown on each side of a found member.
const FIND_RADIUS: u64 = 5;
/// What a public freeze means on the board page, after when it began.
fn frozen_then(l: Locale) -> String {
    tr!(l, "board-frozen-then")
}

/// What the query string asks for. Every view is a plain URL, so all of them work without
/// JavaScript; with it, "Show more" appends rows in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// `?show=N`: the live top N (may shift while you read).
    Live { shown: u64 },
    /// `?find=<member>`: the member and its neighbours.
    Find { member: String },
    /// `?snap=<id>&offset=N`: a page of a pinned snapshot.
    Pinned { snapshot: String, offset: u64 },
    /// `?after=<cursor>`: keyset pages (an empty cursor starts at the top).
    Stable { after: String },
    /// `?at=<instant>&offset=N`: a page of the ranking as the ledger had it then.
    Then { at: jiff::Timestamp, offset: u64 },
}

/// `?at=`: seconds since the epoch (the slider's value) or an RFC 3339 instant (a link).
fn instant(at: &str) -> Option<jiff::Timestamp> {
    let at = at.trim();
    at.parse::<i64>().ok().and_then(|s| jiff::Timestamp::from_second(s).ok()).or_else(|| at.parse().ok())
}

/// `/b/{board}` and `/b/{board}/{period}`: a period's ranking, with the period switcher, its
/// state and countdown, find-me, pinned and stable paging; below it the distribution of points
/// (with "you are here"), the prizes beside their ranks (and, once settled, their winners) and
/// the board's past periods with their winners.
#[component]
pub fn BoardPage() -> impl IntoView {
    let l = crate::i18n::locale();
    let params = use_params_map();
    let query = use_query_map();
    let board = move || params.read().get("board").unwrap_or_default();
    // `?segment=dim:value`: a segment's ranking instead of the whole board's (empty: the board's,
    // as the switcher's "the whole board" sends it).
    let segment = move || query.read().get("segment").map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let source = move || {
        let q = query.read();
        // The path names the period; the switcher's form (no JavaScript) sends `?period=`.
        let period =
            params.read().get("period").or_else(|| q.get("period")).unwrap_or_else(|| "current".into());
        let number = |k: &str| q.get(k).and_then(|s| s.parse::<u64>().ok());
        let mode = if let Some(member) = q.get("find").filter(|m| !m.trim().is_empty()) {
            Mode::Find { member: member.trim().to_owned() }
        } else if let Some(snapshot) = q.get("snap") {
            Mode::Pinned { snapshot, offset: number("offset").unwrap_or(0) }
        } else if let Some(after) = q.get("after") {
            Mode::Stable { after }
        } else if let Some(at) = q.get("at").as_deref().and_then(instant) {
            Mode::Then { at, offset: number("offset").unwrap_or(0) }
        } else {
            Mode::Live { shown: number("show").unwrap_or(PAGE_SIZE).clamp(1, MAX_SHOWN) }
        };
        (board(), period, mode, segment())
    };
    let loaded =
        Resource::new(source, move |(board, period, mode, segment)| load(l, board, period, mode, segment));
    let periods = Resource::new(board, read_periods);
    let me = Resource::new(|| (), |_| read_me());
    let board_period = move || {
        let q = query.read();
        let period =
            params.read().get("period").or_else(|| q.get("period")).unwrap_or_else(|| "current".into());
        (board(), period)
    };
    let revisions = Resource::new(board_period, |(board, period)| read_revisions(board, period, None));
    let my_live = Resource::new(board_period, |(board, period)| read_my_live(board, period));
    // The charts, prizes and past periods are the whole board's: not read in a segment's view,
    // which does not show them.
    let in_segment = move || segment().is_some();
    let distribution = Resource::new(
        move || (board_period(), in_segment()),
        |((board, period), segment)| async move {
            if segment { None } else { Some(read_ranking_distribution(board, Some(period)).await) }
        },
    );
    let results = Resource::new(
        move || (board(), in_segment()),
        |(board, segment)| async move {
            if segment { None } else { Some(read_periods_with_winners(board).await) }
        },
    );
    // The leaders' race: not read for the moment's page (`?at=`), which shows no period charts.
    let at_moment = move || query.read().get("at").as_deref().and_then(instant).is_some();
    let leaders = Resource::new(
        move || (board_period(), at_moment() || in_segment()),
        |((board, period), then)| async move {
            if then { None } else { Some(read_leaders_chart(board, Some(period)).await) }
        },
    );
    // The switcher's lists; with a segment named, the read checks it first.
    let choices = Resource::new(
        move || (board_period(), segment()),
        |((board, period), segment)| read_segment_values(board, Some(period), segment),
    );
    view! {
        <Suspense fallback=move || view! { <p>{tr!(l, "board-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    // A failed list is said as such (`Board`), never shown as an empty one.
                    let periods = periods.await.ok();
                    // "Me" is a nicety: a failure to read it never hides the board.
                    let me = me.await.ok().flatten();
                    // Revision notes are a nicety too: a failure to read them never hides the board.
                    let revisions = revisions.await.unwrap_or_default();
                    // And so is "me"'s own live standing during a public freeze.
                    let my_live = my_live.await.ok().flatten();
                    // The charts below the ranking say when they could not be read.
                    let shape = Shape {
                        distribution: distribution.await.and_then(Result::ok),
                        leaders: leaders.await.and_then(Result::ok),
                        results: results.await.and_then(Result::ok),
                    };
                    // A segment's view stands on its segment: a malformed or undeclared one is
                    // the page's error. On the whole board the switcher is a nicety.
                    let choices = match (choices.await, segment()) {
                        (Err(e), Some(_)) => return Err(e),
                        (found, _) => found.ok(),
                    };
                    let segment = segment().and_then(|s| {
                        s.split_once(':').map(|(d, v)| Segment { dimension: d.to_owned(), value: v.to_owned() })
                    });
                    loaded.await.map(|loaded| view! { <Board loaded periods me my_live revisions shape choices segment/> })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// A period's board as read: the header, the period switcher, "me" and the tools, what the
/// page says above the ranking, the ranking and its rules, and below it the period's shape.
#[component]
fn Board(
    loaded: Loaded,
    periods: Option<Vec<PeriodInfo>>,
    me: Option<String>,
    my_live: Option<MyLive>,
    revisions: Vec<RevisionNote>,
    shape: Shape,
    /// The switcher's lists (None: not read).
    choices: Option<Segments<Vec<SegmentValues>>>,
    /// `?segment=`: the segment whose ranking the table shows.
    segment: Option<Segment>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let Loaded { page, mode, next_cursor, notice, choices: named, then, segment_frozen } = loaded;
    let (board, period) = (page.board.clone(), page.period);
    let slug = board.slug.to_string();
    let base = format!("/b/{slug}/{period}");
    let current = board.current_period;
    // The board's first period: the oldest it has rows for (the list holds those and the
    // current one). Before it nothing ever existed, so the way back stops there.
    let first = periods.as_ref().and_then(|list| list.iter().map(|p| p.period).min()).unwrap_or(current);
    let before_first = (period < first).then(|| {
        view! {
            <p class="notice" role="status" data-testid="before-first">
                {tr!(
                    l,
                    "board-before-first",
                    title = board.title.clone(),
                    first = first.to_string(),
                    period = period.to_string(),
                )}
            </p>
        }
    });
    let from_ledger = (page.source == ReadSource::Ledger).then(|| {
        view! {
            <p class="notice degraded" role="status" data-testid="from-ledger">
                {tr!(l, "board-from-ledger")}
            </p>
        }
    });
    // A segment's view shows none of the whole board's revisions (nor its charts, prizes or past
    // periods), which would read as the segment's.
    let revisions =
        segment.is_none().then(|| view! { <RevisionNotes notes=revisions zone=board.time_zone.clone()/> });
    // A season's rows, period by period: on its live page only (not a moment's).
    let season_rows = (board.cadence == domain::Cadence::Season && then.is_none()).then(|| {
        let members =
            page.entries.iter().take(domain::season::SEASON_ROWS).map(|e| e.member.to_string()).collect();
        view! { <SeasonRows board=slug.clone() period=period.to_string() members/> }
    });
    // The prize lines, read with the distribution below the table. They mark board ranks: not a
    // segment's.
    let prizes = match (&segment, &shape.distribution) {
        (None, Some(d)) => d.prizes.clone(),
        _ => Vec::new(),
    };
    // The badge comes from the read that gave the rows.
    let state = page.state.as_str().to_owned();
    let (starts_at, ends_at) = (page.starts_at, page.ends_at);
    let (at, in_segment) = (then.as_ref().map(|t| t.at), segment.is_some());
    let zone = board.time_zone.clone();
    view! {
        <BoardHeader title=board.title.clone() period state ends_at zone=zone.clone()/>
        <PeriodSwitcher slug=slug.clone() period current first periods segment=segment.clone()/>
        <MeLine me=me.clone() my_live base=base.clone() segment=segment.clone() unit=board.unit/>
        <BoardTools slug=slug.clone() period segment=segment.clone()/>
        {before_first}
        {from_ledger}
        {revisions}
        <TimeSlider starts_at ends_at zone at in_segment/>
        <SegmentHeading choices segment_frozen segment=segment.clone() base=base.clone()/>
        {notice.map(|n| view! { <p class="notice" role="status" data-testid="find-notice">{n}</p> })}
        {named.map(|(asked, found)| view! { <NameChoices asked found base=base.clone() unit=board.unit segment=segment.clone()/> })}
        <Ranking page mode next_cursor then segment_frozen me base=base.clone() prizes segment/>
        <RankingRules sort=board.sort unit=board.unit tie_policy=board.tie_policy/>
        {season_rows}
        <BelowRanking shape board=slug unit=board.unit base in_segment at_moment=at.is_some()/>
    }
}

/// The hidden field that keeps the segment shown in a GET form (the period switcher, find me).
fn segment_input(segment: Option<&Segment>) -> Option<impl IntoView + use<>> {
    segment.map(|s| view! { <input type="hidden" name="segment" value=s.to_string()/> })
}

/// How the board's order is said under the ranking: nothing for the usual "more is better".
pub fn order_words(l: Locale, sort: domain::Sort, unit: domain::Unit) -> Option<String> {
    match (sort, unit) {
        (domain::Sort::Desc, _) => None,
        (domain::Sort::Asc, domain::Unit::Ms) => Some(tr!(l, "board-order-fastest")),
        (domain::Sort::Asc, domain::Unit::Points) => Some(tr!(l, "board-order-fewest")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue's English is what the page said before it had one, spaces and all.
    #[test]
    fn the_board_says_in_english_what_it_always_said() {
        let l = Locale::En;
        assert_eq!(tr!(l, "board-period-label", period = "2026-W49"), " Period 2026-W49 · ");
        assert_eq!(crate::components::countdown::ends_in(l, 180), "ends in 3m");
        assert_eq!(
            tr!(l, "board-ends-at", ends = "Mon 2026-12-07 01:00", zone = "UTC"),
            " (Mon 2026-12-07 01:00, UTC)"
        );
        let early = tr!(l, "board-ended-early", state = "frozen", word = "frozen", ends = "E", zone = "Z");
        assert_eq!(early, "frozen early; the period ends E (Z)");
        let me = format!("{}u1{}", tr!(l, "board-you-are"), tr!(l, "board-you-are-end"));
        assert_eq!(me, "You are u1. ");
        assert_eq!(tr!(l, "board-my-live", points = "12"), " · Your live points: 12");
        assert_eq!(
            tr!(l, "board-my-pending", count = 1, shown = "1"),
            " (1 of your entries is not public yet)"
        );
        assert_eq!(
            tr!(l, "board-my-pending", count = 3, shown = "3"),
            " (3 of your entries are not public yet)"
        );
        assert_eq!(tr!(l, "board-members", count = 1, shown = "1"), "1 member");
        assert_eq!(tr!(l, "board-members", count = 0, shown = "0"), "0 members");
        let then = tr!(l, "board-then-notice", when = "W", zone = "Z", total = "2");
        assert_eq!(then, "The board as it stood at W (Z): 2 member(s) ranked then. ");
        assert_eq!(
            tr!(l, "board-then-frozen"),
            "The standings were frozen then; nothing after the freeze is shown. "
        );
        assert_eq!(
            tr!(l, "board-choice-line", member = "u1", rank = "2", points = "3 points"),
            " (u1) — rank 2, 3 points"
        );
        assert_eq!(tr!(l, "board-won-rank", rank = "1", points = "3 points"), " (rank 1, 3 points) ");
        assert_eq!(tr!(l, "board-leader-points", points = "3 points"), " (3 points) ");
        assert_eq!(tr!(l, "board-winner-is"), "Winner: ");
        let just_now = format!("{}{}", tr!(l, "board-frozen-just-now"), frozen_then(l));
        assert_eq!(
            just_now,
            " just now. Points scored since then still count; they are revealed at the end."
        );
        assert_eq!(tr!(l, "board-choices", asked = "Ad"), "Several names start with “Ad”; which one is you?");
        assert_eq!(order_words(l, domain::Sort::Desc, domain::Unit::Points), None);
    }

    #[test]
    fn the_board_speaks_chinese() {
        let l = Locale::ZhCn;
        let early = tr!(l, "board-ended-early", state = "settled", word = "已结算", ends = "E", zone = "Z");
        assert_eq!(early, "已提前结算；本周期于 E（Z）结束");
        assert_eq!(tr!(l, "board-members", count = 1, shown = "1"), "1 名成员");
        assert_eq!(tr!(l, "board-my-pending", count = 2, shown = "2"), "（你有 2 条记录尚未公开）");
        assert_eq!(
            order_words(l, domain::Sort::Asc, domain::Unit::Points).as_deref(),
            Some("越低越好：积分最少者名次最高。")
        );
    }
}
