//! Every server function of the UI. Each one takes the engine from context, calls one use case
//! and converts the error — nothing else. They only read, except `pin_view`, which creates a
//! short-lived snapshot (public, like every read), the console's actions in [`console`] and
//! [`corrections`] (its front page's reads in [`attention`]), its sign-in and sign-out in
//! [`admin`], its ingest keys in [`keys`], its hot boards in [`hot_console`], and a
//! contestant's signed link in [`contestant`]; [`session`] is the one place that knows the cookies
//! (but for the new-key cookie of [`keys`]).

#[cfg(feature = "console")]
pub mod admin;
#[cfg(feature = "console")]
pub mod attention;
#[cfg(feature = "console")]
pub mod console;
pub mod contestant;
#[cfg(feature = "console")]
pub mod corrections;
pub mod history;
#[cfg(feature = "console")]
pub mod hot_console;
#[cfg(feature = "console")]
pub mod keys;
#[cfg(feature = "console")]
pub mod seasons;
#[cfg(feature = "ssr")]
pub mod session;

use crate::error::AppError;
use domain::hot::{HotBoardSummary, HotEntry};
use domain::view::{
    BoardSummary, CursorPage, MemberView, NameMatches, PeriodInfo, RankingPage, RevisionNote,
};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// Entries per page of the board view.
pub const PAGE_SIZE: u64 = 10;

#[cfg(feature = "ssr")]
fn engine() -> Result<engine::Engine, AppError> {
    use_context::<engine::Engine>().ok_or(AppError::Unavailable)
}

/// The headers of the request a server function is answering (its cookies, its scheme).
#[cfg(feature = "ssr")]
async fn request_headers() -> Result<http::HeaderMap, AppError> {
    leptos_axum::extract::<http::HeaderMap>().await.map_err(|e| AppError::Transport(e.to_string()))
}

#[cfg(feature = "ssr")]
fn board_slug(board: String) -> Result<domain::BoardSlug, AppError> {
    domain::BoardSlug::parse(board)
        .map_err(|_| AppError::NotFound(crate::i18n::tr!(crate::i18n::locale(), "error-no-board")))
}

/// The board and period a server function is about, resolved once: an impossible slug or
/// period is one that does not exist.
#[cfg(feature = "ssr")]
async fn scope(board: String, period: Option<&str>) -> Result<engine::scope::Scope, AppError> {
    Ok(engine()?.reads().scope(&board_slug(board)?, period).await?)
}

#[cfg(feature = "ssr")]
fn member_id(member: String) -> Result<domain::MemberId, AppError> {
    domain::MemberId::parse(member.trim()).map_err(|e| {
        let value = format!("{:?}", member.trim());
        let l = crate::i18n::locale();
        AppError::Invalid(crate::i18n::tr!(
            l,
            "error-not-an-id",
            value = value,
            kind = e.kind,
            problem = id_problem(l, &e.problem)
        ))
    })
}

/// What is wrong with a refused id, in the reader's words.
#[cfg(feature = "ssr")]
fn id_problem(l: crate::i18n::Locale, problem: &domain::IdProblem) -> String {
    use crate::i18n::tr;
    use domain::IdProblem as P;
    match problem {
        P::Empty => tr!(l, "error-id-empty"),
        P::TooLong { max, got } => tr!(l, "error-id-too-long", max = max.to_string(), got = got.to_string()),
        P::Forbidden { allowed, found } => {
            tr!(l, "error-id-forbidden", allowed = *allowed, found = format!("{found:?}"))
        }
    }
}

/// All boards with their current period.
#[server]
pub async fn read_boards() -> Result<Vec<BoardSummary>, AppError> {
    Ok(engine()?.reads().boards().await?)
}

/// All hot boards, with their windows in words.
#[server]
pub async fn read_hot_boards() -> Result<Vec<HotBoardSummary>, AppError> {
    Ok(engine()?.hot().summaries().await?)
}

/// A hot board's published list as its page shows it: the "Updated …" line in the reader's
/// words (made on the server: the contestants' bundle renders no time), how often a new list
/// comes, and the entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotRows {
    pub updated: String,
    pub snapshot_seconds: u64,
    pub entries: Vec<HotEntry>,
}

impl HotRows {
    /// A published list as the page shows it: its rows, and when it was computed in words (in
    /// UTC whatever zone database the build has).
    pub fn of(l: crate::i18n::Locale, list: domain::hot::HotList) -> HotRows {
        use crate::i18n::{Clock, tr};
        let seconds = list.snapshot_seconds.to_string();
        let updated = match list.updated_at {
            Some(at) => {
                let time = domain::local::in_zone(at, &jiff::tz::TimeZone::UTC, Clock::Second, l);
                tr!(l, "hot-updated", time = time, seconds = seconds)
            }
            None => tr!(l, "hot-no-list", seconds = seconds),
        };
        HotRows { updated, snapshot_seconds: list.snapshot_seconds, entries: list.entries }
    }
}

/// A hot board and its published list (the latest snapshot), as the page shows them. The page
/// reads it once; its island (`pages::hot::HotListIsland`) again each interval while it is open.
#[server]
pub async fn read_hot_list(board: String) -> Result<(HotBoardSummary, HotRows), AppError> {
    let engine = engine()?;
    let slug = board_slug(board)?;
    let summary = HotBoardSummary::of(&engine.hot().board(&slug).await?);
    let list = engine.hot().top(&slug, domain::hot::SNAPSHOT_ENTRIES).await?;
    Ok((summary, HotRows::of(crate::i18n::locale(), list)))
}

/// A period's settlement revisions in words, oldest first (with a member: its standing in each).
#[server]
pub async fn read_revisions(
    board: String,
    period: String,
    member: Option<String>,
) -> Result<Vec<RevisionNote>, AppError> {
    let member = member.map(member_id).transpose()?;
    Ok(engine()?.lifecycle().revision_notes(&scope(board, Some(&period)).await?, member.as_ref()).await?)
}

/// A board's periods, newest first.
#[server]
pub async fn read_periods(board: String) -> Result<Vec<PeriodInfo>, AppError> {
    Ok(engine()?.reads().periods(&board_slug(board)?).await?)
}

/// A live page of a board's period (`None`: the current one), or of one of its segments
/// (`dim:value`, as REST's `?segment=`).
#[server]
pub async fn read_ranking(
    board: String,
    period: Option<String>,
    offset: u64,
    limit: u64,
    segment: Option<String>,
) -> Result<RankingPage, AppError> {
    let scope = scope(board, period.as_deref()).await?.in_segment(segment.as_deref())?;
    Ok(engine()?.reads().ranking_page(&scope, offset, limit).await?)
}

/// The page after a keyset cursor (`None`: from the top): stable "load more" (in a segment's
/// ranking when one is named).
#[server]
pub async fn read_after(
    board: String,
    period: Option<String>,
    after: Option<String>,
    limit: u64,
    segment: Option<String>,
) -> Result<CursorPage, AppError> {
    let scope = scope(board, period.as_deref()).await?.in_segment(segment.as_deref())?;
    Ok(engine()?.reads().entries_after(&scope, after.as_deref(), limit).await?)
}

/// A member and their neighbours ("find me"), on the board or in a segment.
#[server]
pub async fn read_around(
    board: String,
    period: Option<String>,
    member: String,
    radius: u64,
    segment: Option<String>,
) -> Result<RankingPage, AppError> {
    let scope = scope(board, period.as_deref()).await?.in_segment(segment.as_deref())?;
    Ok(engine()?.reads().around(&scope, &member_id(member)?, radius).await?)
}

/// Members of a period whose display name starts with `name` ("find me" by name), best ranked
/// first: contestants know their name, not their member id.
#[server]
pub async fn read_named(
    board: String,
    period: Option<String>,
    name: String,
) -> Result<NameMatches, AppError> {
    Ok(engine()?.reads().members_named(&scope(board, period.as_deref()).await?, &name).await?)
}

/// A page of a period's ranking as the ledger had it at `at` (the board page's "then" view): the
/// public's, so never past a public freeze.
#[server]
pub async fn read_as_of(
    board: String,
    period: String,
    at: jiff::Timestamp,
    offset: u64,
    limit: u64,
) -> Result<domain::asof::AsOfPage, AppError> {
    let window = engine::reads::asof::AsOfWindow::Page { offset, limit };
    Ok(engine()?
        .reads()
        .as_of(engine::Viewer::Public, &scope(board, Some(&period)).await?, at, window)
        .await?)
}

/// A page of a pinned snapshot.
#[server]
pub async fn read_snapshot(
    board: String,
    period: Option<String>,
    snapshot: String,
    offset: u64,
    limit: u64,
) -> Result<RankingPage, AppError> {
    Ok(engine()?
        .reads()
        .snapshot_page(&scope(board, period.as_deref()).await?, &snapshot, offset, limit)
        .await?)
}

/// Pins the current ranking and sends the reader to its first page.
#[server]
pub async fn pin_view(board: String, period: String) -> Result<(), AppError> {
    let snapshot = engine()?.reads().create_snapshot(&scope(board.clone(), Some(&period)).await?).await?;
    leptos_axum::redirect(&format!("/b/{board}/{period}?snap={}", snapshot.snapshot_id));
    Ok(())
}

/// A member's standing and the entries behind it ("why this score").
#[server]
pub async fn read_member(
    board: String,
    period: String,
    member: String,
    before: Option<i64>,
) -> Result<MemberView, AppError> {
    Ok(engine()?
        .reads()
        .member_view(&scope(board, Some(&period)).await?, &member_id(member)?, before, 20)
        .await?)
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use crate::i18n::Locale;

    #[test]
    fn a_refused_member_id_is_said_in_each_language() {
        for (text, zh) in [("", "不能为空"), ("a b", "只能包含"), (&"x".repeat(65)[..], "最多 64 字节")]
        {
            let e = domain::MemberId::parse(text).unwrap_err();
            assert_eq!(id_problem(Locale::En, &e.problem), e.problem.to_string(), "{text:?}");
            assert!(id_problem(Locale::ZhCn, &e.problem).contains(zh), "{text:?}");
        }
    }
}
