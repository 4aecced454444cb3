//! The board page's ranking as its query string asks for it (`Mode`): one read of the engine per
//! view, a segment's ranking refused during a public freeze said as such, and "find me" by id
//! first, then by the start of a display name.

use super::{FIND_RADIUS, Mode, THEN_PAGE};
use crate::api::{PAGE_SIZE, read_after, read_around, read_as_of, read_named, read_ranking, read_snapshot};
use crate::error::AppError;
use crate::i18n::{Locale, tr};
use domain::asof::AsOfPage;
use domain::view::{NameMatches, RankingPage};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Loaded {
    pub(super) page: RankingPage,
    pub(super) mode: Mode,
    pub(super) next_cursor: Option<String>,
    /// Said above the table (e.g. a member that was not found).
    pub(super) notice: Option<String>,
    /// "Find me" by a name several members' names start with: the ones to pick from.
    pub(super) choices: Option<(String, NameMatches)>,
    /// `?at=`: the page of the ranking then (`page` is then only the period's header).
    pub(super) then: Option<AsOfPage>,
    /// `?segment=` during a public freeze: the segment's ranking is closed until the reveal
    /// (`page` is then only the period's header, with no rows).
    pub(super) segment_frozen: bool,
}

/// The page's ranking as the query string asks for it: the whole board's, or a segment's
/// (`segment`: `dim:value`, checked by the reads). A segment's ranking refused during a public
/// freeze is said as such (`Loaded::segment_frozen`), never as an error.
pub(super) async fn load(
    l: Locale,
    board: String,
    period: String,
    mode: Mode,
    segment: Option<String>,
) -> Result<Loaded, AppError> {
    let Some(named) = segment.clone() else { return load_ranking(l, board, period, mode, None).await };
    // Pinned copies and replays of an instant are the whole board's only (the engine refuses
    // a segment there): say so rather than show the board's rows under the segment's name.
    if matches!(mode, Mode::Pinned { .. } | Mode::Then { .. }) {
        return Err(AppError::Invalid(tr!(l, "segment-view-unsupported")));
    }
    match load_ranking(l, board.clone(), period.clone(), mode.clone(), Some(named)).await {
        Err(AppError::Invalid(why)) => {
            // Refused: a segment of a publicly frozen period is `segment_frozen` (the switcher's
            // read has already refused a malformed or undeclared segment). The period's header
            // from a one-row read of the board's public view tells which.
            let mut page = read_ranking(board, Some(period), 0, 1, None).await?;
            if page.frozen_at.is_none() {
                return Err(AppError::Invalid(why));
            }
            (page.entries, page.has_more, page.total) = (Vec::new(), false, 0);
            let mode = Mode::Live { shown: PAGE_SIZE };
            Ok(Loaded { segment_frozen: true, ..plain(page, mode) })
        }
        loaded => loaded,
    }
}

fn plain(page: RankingPage, mode: Mode) -> Loaded {
    Loaded { page, mode, next_cursor: None, notice: None, choices: None, then: None, segment_frozen: false }
}

async fn load_ranking(
    l: Locale,
    board: String,
    period: String,
    mode: Mode,
    segment: Option<String>,
) -> Result<Loaded, AppError> {
    let p = Some(period.clone());
    let seg = segment.clone();
    match mode {
        Mode::Live { shown } => Ok(plain(read_ranking(board, p, 0, shown, seg).await?, Mode::Live { shown })),
        Mode::Find { member: asked } => {
            // A member id first (a "me" link, a name picked from the choices), else the start of
            // a display name: contestants know their name, rarely their id. Names are found on
            // the whole board; the member is then shown in the segment's ranking.
            let around =
                |member: String| read_around(board.clone(), p.clone(), member, FIND_RADIUS, seg.clone());
            if domain::MemberId::parse(asked.as_str()).is_ok() {
                match around(asked.clone()).await {
                    Ok(page) => return Ok(plain(page, Mode::Find { member: asked })),
                    Err(AppError::NotFound(_) | AppError::Invalid(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            let found = read_named(board.clone(), p.clone(), asked.clone()).await?;
            if let [one] = found.entries.as_slice()
                && !found.more
            {
                let member = one.member.to_string();
                return Ok(plain(around(member.clone()).await?, Mode::Find { member }));
            }
            let mut loaded = plain(
                read_ranking(board, p, 0, PAGE_SIZE, seg.clone()).await?,
                Mode::Live { shown: PAGE_SIZE },
            );
            let period = loaded.page.period;
            let in_segment = seg.as_deref().and_then(|s| s.split_once(':'));
            if let (true, Some((dimension, value))) = (found.entries.is_empty(), in_segment) {
                loaded.notice = Some(tr!(
                    l,
                    "segment-nobody-found",
                    dimension = dimension,
                    value = value,
                    period = period.to_string(),
                    asked = asked,
                ));
            } else if found.entries.is_empty() {
                loaded.notice =
                    Some(tr!(l, "board-nobody-found", period = period.to_string(), asked = asked));
            } else {
                loaded.choices = Some((asked, found));
            }
            Ok(loaded)
        }
        Mode::Pinned { snapshot, offset } => {
            let page = read_snapshot(board, p, snapshot.clone(), offset, PAGE_SIZE).await?;
            Ok(plain(page, Mode::Pinned { snapshot, offset }))
        }
        Mode::Stable { after } => {
            let cursor = (!after.is_empty()).then(|| after.clone());
            let found = read_after(board, p, cursor, PAGE_SIZE, seg).await?;
            Ok(Loaded { next_cursor: found.next_cursor, ..plain(found.page, Mode::Stable { after }) })
        }
        Mode::Then { at, offset } => {
            // The period's header (its bounds, state and board) from a one-row live read.
            let page = read_ranking(board.clone(), p, 0, 1, None).await?;
            let then = read_as_of(board, page.period.to_string(), at, offset, THEN_PAGE).await?;
            Ok(Loaded { then: Some(then), ..plain(page, Mode::Then { at, offset }) })
        }
    }
}
