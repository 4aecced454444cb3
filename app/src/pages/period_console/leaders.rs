//! The period console's leaders, a page of `LEADERS_PAGE` at a time, each page a URL.

use super::*;

/// The leaders' section: a member to open by id, and a page of the leaders, read by their own
/// server function. A page's rows stay until the next page's arrive (a `Transition`), so paging
/// never draws the console again.
#[component]
pub(super) fn LeadersSection(
    slug: String,
    period: String,
    leaders: Resource<Result<RankingPage, AppError>>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <h2 id="leaders">{tr!(l, "period-leaders")}</h2>
        <form method="get" action=format!("/admin/b/{slug}/{period}/member") class="find">
            <label>{tr!(l, "period-member-id")} <input name="id" required autocomplete="off"/></label>
            <button type="submit" class="secondary">{tr!(l, "period-open-member")}</button>
        </form>
        <Transition fallback=move || view! { <p>{tr!(l, "period-leaders-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { leaders.await.map(|page| view! { <Leaders page/> }) })}
            </ErrorBoundary>
        </Transition>
    }
}

/// One page of Leaders: the table captioned with the positions it shows, the links to the pages
/// around it, and its export (the rows shown); past the end, a line saying so with a link back to
/// the first page.
#[component]
pub(super) fn Leaders(page: RankingPage) -> impl IntoView {
    let l = crate::i18n::locale();
    let RankingPage { board, period, total, offset, entries, has_more, .. } = page;
    let (slug, period) = (board.slug.to_string(), period.to_string());
    let pager = LeadersPager::of(offset, entries.len() as u64, has_more);
    // The links name the period as the URL does (`current` stays `current`): only the query
    // changes, so only Leaders are read again.
    let href = {
        let named = use_params_map().with_untracked(|p| (p.get("board"), p.get("period")));
        let board = named.0.unwrap_or_else(|| slug.clone());
        let period = named.1.unwrap_or_else(|| period.clone());
        move |offset| leaders_href(&board, &period, offset)
    };
    let caption = match pager.shown {
        LeadersShown::Rows { first, last } => range_words(l, first, last, total),
        LeadersShown::NoMembers => tr!(l, "period-leaders-none"),
        LeadersShown::PastEnd { from } => {
            return view! {
                <p class="empty" data-testid="leaders-past-end">
                    {past_end_words(l, from, total)} " "
                    <a href=href(0)>{tr!(l, "period-leaders-first-page")}</a>
                </p>
            }
            .into_any();
        }
    };
    let export: Vec<ExportRow> = entries.iter().map(|e| ExportRow::new(e, None)).collect();
    let step = l.number(LEADERS_PAGE as i64);
    let link = move |offset: u64, rel: &'static str, words: String| {
        view! { <a class="button secondary" rel=rel href=href(offset)>{words}</a> }
    };
    // No pager at all when every member fits on the page.
    let pages = (pager.previous.is_some() || pager.next.is_some()).then(|| {
        view! {
            <nav class="pager" aria-label=tr!(l, "period-leaders-pages") data-testid="leaders-pages">
                {pager.previous.map(|o| link(o, "prev", tr!(l, "period-leaders-previous", count = step.clone())))}
                {pager.next.map(|o| link(o, "next", tr!(l, "period-leaders-next", count = step.clone())))}
            </nav>
        }
    });
    view! {
        <RankingTable entries caption base=format!("/admin/b/{slug}/{period}") unit=board.unit/>
        {pages}
        <ExportRows rows=export board=slug period=period/>
    }
    .into_any()
}

/// What a page of Leaders shows, in positions counted from 1. Positions, not ranks: pages are
/// cut by position, and members tied across a page's edge share a rank but not a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LeadersShown {
    /// Positions `first..=last`.
    Rows { first: u64, last: u64 },
    /// The first page of a period without members.
    NoMembers,
    /// A page past the end, asked for from position `from`.
    PastEnd { from: u64 },
}

/// A page of Leaders and where its links lead: the offsets of the pages before and after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LeadersPager {
    shown: LeadersShown,
    /// "Previous 20": none on the first page, nor past the end (which links to the first page).
    previous: Option<u64>,
    /// "Next 20": none on the last page.
    next: Option<u64>,
}

impl LeadersPager {
    /// The page the engine read from `offset`: `rows` members, more after them or not.
    fn of(offset: u64, rows: u64, has_more: bool) -> Self {
        if rows == 0 {
            let shown = match offset {
                0 => LeadersShown::NoMembers,
                _ => LeadersShown::PastEnd { from: offset.saturating_add(1) },
            };
            return Self { shown, previous: None, next: None };
        }
        Self {
            shown: LeadersShown::Rows { first: offset.saturating_add(1), last: offset.saturating_add(rows) },
            // A page that began off the grid (`?leaders=5`) goes back to the first whole one.
            previous: (offset > 0).then(|| offset.saturating_sub(LEADERS_PAGE)),
            next: has_more.then(|| offset.saturating_add(rows)),
        }
    }
}

/// The URL of Leaders' page from `offset` (`period` as the URL names it): the period page itself
/// for the first, `?leaders=` for the others; `#leaders` so that the page opens (or the router
/// scrolls) at the section.
fn leaders_href(slug: &str, period: &str, offset: u64) -> String {
    match offset {
        0 => format!("/admin/b/{slug}/{period}#leaders"),
        _ => format!("/admin/b/{slug}/{period}?leaders={offset}#leaders"),
    }
}

/// "Ranks 21–40 of 1 234" ("Rank 41 of 41" for one row), numbers as the reader's language writes
/// them.
fn range_words(l: Locale, first: u64, last: u64, total: u64) -> String {
    let (first_shown, total) = (l.number(first as i64), l.number(total as i64));
    if first == last {
        return tr!(l, "period-leaders-one", first = first_shown, total = total);
    }
    tr!(l, "period-leaders-range", first = first_shown, last = l.number(last as i64), total = total)
}

/// "No members from rank 41 on: this period has 25 members."
fn past_end_words(l: Locale, from: u64, total: u64) -> String {
    tr!(
        l,
        "period-leaders-past-end",
        from = l.number(from as i64),
        shown = l.number(total as i64),
        count = total,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaders_go_by_twenty_with_no_link_past_either_end() {
        let page = |offset, rows, has_more| LeadersPager::of(offset, rows, has_more);
        let rows = |first, last| LeadersShown::Rows { first, last };
        // 25 members: the first page leads on, the second back.
        assert_eq!(page(0, 20, true), LeadersPager { shown: rows(1, 20), previous: None, next: Some(20) });
        assert_eq!(page(20, 5, false), LeadersPager { shown: rows(21, 25), previous: Some(0), next: None });
        assert_eq!(
            page(20, 20, true),
            LeadersPager { shown: rows(21, 40), previous: Some(0), next: Some(40) }
        );
        // Off the grid: back to the first whole page, on from the last row shown.
        assert_eq!(page(5, 20, true), LeadersPager { shown: rows(6, 25), previous: Some(0), next: Some(25) });
        assert_eq!(page(45, 20, true).previous, Some(25));
        // Everyone on one page: no link at all.
        assert_eq!(page(0, 3, false), LeadersPager { shown: rows(1, 3), previous: None, next: None });
        // Nothing there: a period without members, or a page past the end.
        assert_eq!(
            page(0, 0, false),
            LeadersPager { shown: LeadersShown::NoMembers, previous: None, next: None }
        );
        let past = LeadersPager { shown: LeadersShown::PastEnd { from: 41 }, previous: None, next: None };
        assert_eq!(page(40, 0, false), past);
    }

    #[test]
    fn each_leaders_page_is_a_url_that_opens_at_the_section() {
        assert_eq!(leaders_href("demo", "2026-W49", 0), "/admin/b/demo/2026-W49#leaders");
        assert_eq!(leaders_href("demo", "2026-W49", 20), "/admin/b/demo/2026-W49?leaders=20#leaders");
        assert_eq!(leaders_href("demo", "current", 40), "/admin/b/demo/current?leaders=40#leaders");
    }

    #[test]
    fn the_range_and_the_links_are_said_in_each_language() {
        let (en, zh) = (Locale::En, Locale::ZhCn);
        assert_eq!(range_words(en, 21, 40, 1_234), "Ranks 21–40 of 1\u{202f}234");
        assert_eq!(range_words(en, 41, 41, 41), "Rank 41 of 41");
        assert_eq!(range_words(zh, 21, 40, 1_234), "第 21–40 名，共 1,234 名");
        assert_eq!(range_words(zh, 41, 41, 41), "第 41 名，共 41 名");
        assert_eq!(past_end_words(en, 41, 25), "No members from rank 41 on: this period has 25 members.");
        assert_eq!(past_end_words(en, 3, 1), "No members from rank 3 on: this period has 1 member.");
        assert_eq!(past_end_words(zh, 41, 25), "从第 41 名起没有成员：本周期共有 25 名成员。");
        let step = en.number(LEADERS_PAGE as i64);
        assert_eq!(tr!(en, "period-leaders-previous", count = step.clone()), "Previous 20");
        assert_eq!(tr!(en, "period-leaders-next", count = step), "Next 20");
        assert_eq!(tr!(zh, "period-leaders-next", count = zh.number(LEADERS_PAGE as i64)), "下 20 名");
    }
}
