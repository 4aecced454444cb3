//! The board page's ranking rows, its island: "Show more" through `read_after`, the live table,
//! the pinned pager.

use super::*;

/// The ranking's rows and what changes them in the browser: "Show more" appends keyset pages
/// through a server function, the live table follows the period's stream, the pinned pager.
/// The one island of the board page besides the countdown (the rest is server-rendered HTML):
/// its props are what the server read, serialized into the page.
#[island]
pub fn Rows(
    entries: Vec<Entry>,
    has_more: bool,
    next_cursor: Option<String>,
    mode: Mode,
    board: String,
    period: String,
    /// The period's state as the page was rendered with.
    state: String,
    caption: String,
    /// `/b/{board}/{period}`: member links go to `{base}/m/{member}`.
    base: String,
    /// A found member, else "me".
    highlight: Option<String>,
    /// The first row's offset.
    offset: u64,
    /// The public ranking's member count as read.
    total: u64,
    /// While publicly frozen: the freeze banner's words (`freeze_words`), made on the server.
    frozen_words: Option<String>,
    /// The board's prize lines (none when they could not be read): their zones are marked.
    prizes: Vec<Prize>,
    /// The board's unit: `ms` points are shown as durations.
    unit: domain::Unit,
    /// `dim:value`: the rows are this segment's ranking (its pages are read in it, its links keep
    /// it). The live stream and "since your last visit" are the whole board's: not here.
    segment: Option<String>,
) -> impl IntoView {
    // In the browser, the page's `<html lang>`.
    let l = crate::i18n::locale();
    let live = match mode {
        Mode::Live { shown } if offset == 0 && segment.is_none() => Some(shown),
        _ => None,
    };
    let (entries, set_entries) = signal(entries);
    // What the stream may change besides the rows: the state, the count, the public freeze.
    let state = RwSignal::new(state);
    let total = RwSignal::new(total);
    let frozen = RwSignal::new(frozen_words.is_some());
    // A freeze that begins while the page is open has no words from the server.
    let banner = move || {
        frozen.get().then(|| {
            let words = frozen_words
                .clone()
                .unwrap_or_else(|| format!("{}{}", tr!(l, "board-frozen-just-now"), frozen_then(l)));
            view! { <FreezeBanner words/> }
        })
    };
    let count = move || {
        let n = total.get();
        tr!(l, "board-members", count = n, shown = l.number(n as i64))
    };
    let (has_more, set_has_more) = signal(has_more);
    let (cursor, set_cursor) = signal(next_cursor);

    let show_more = show_more(
        (board.clone(), period.clone(), segment.clone()),
        (entries, set_entries),
        set_has_more,
        (cursor, set_cursor),
    );
    let failure = move || {
        show_more
            .value()
            .get()
            .and_then(Result::err)
            .map(|e| view! { <p class="error" role="alert">{e.to_string()}</p> })
    };
    let paging = Paging { entries, has_more, cursor, show_more };
    let controls = controls(l, mode, segment.clone(), state, paging);
    // What "Export" saves: the rows as shown now, each with its zone's prize.
    let zones = prize_zones(prizes.clone());
    let export = Signal::derive(move || {
        entries.with(|rows| {
            rows.iter()
                .map(|e| ExportRow::new(e, zone_of(&zones, e.rank).map(|(_, p)| p.prize.clone())))
                .collect()
        })
    });
    let (export_board, export_period) = (board.clone(), period.clone());
    // Who moved since the visitor's last visit to this period.
    // Segment ranks are not the board's ranks the last visit kept.
    let seen = segment.is_none().then(|| {
        since_last_visit(board.clone(), period.clone(), move || {
            entries.with(|rows| rows.iter().map(|e| (e.member.to_string(), e.rank)).collect())
        })
        .into()
    });
    view! {
        {banner}
        <p class="meta" data-testid="member-count">{count}</p>
        <LiveRanking live board period state total frozen entries set_entries caption base highlight=highlight.unwrap_or_default() prizes seen unit/>
        <Show when=move || !entries.with(Vec::is_empty)>
            <ExportRows rows=export board=export_board.clone() period=export_period.clone()/>
        </Show>
        <Show when=move || entries.with(Vec::is_empty)>
            <p class="empty">{if offset > 0 { tr!(l, "board-no-more") } else { tr!(l, "board-no-points-yet") }}</p>
        </Show>
        {controls}
        {failure}
    }
}

/// "Show more", the ranking's one pager: the rows after the last one shown, by keyset cursor,
/// so however the board moves no member shows twice or is skipped. The live view's first page
/// is an offset read (the cached top), so its first "Show more" reads those rows again with a
/// cursor, one page longer; each later one appends a page after the cursor.
fn show_more(
    (slug, period, segment): (String, String, Option<String>),
    (entries, set_entries): (ReadSignal<Vec<Entry>>, WriteSignal<Vec<Entry>>),
    set_has_more: WriteSignal<bool>,
    (cursor, set_cursor): (ReadSignal<Option<String>>, WriteSignal<Option<String>>),
) -> Action<(), Result<(), AppError>> {
    Action::new(move |_: &()| {
        let after = cursor.get_untracked();
        let shown = entries.with_untracked(Vec::len) as u64;
        let (slug, period, segment) = (slug.clone(), period.clone(), segment.clone());
        async move {
            let next = match after {
                Some(after) => {
                    let next = read_after(slug, Some(period), Some(after), PAGE_SIZE, segment).await?;
                    set_entries.update(|e| e.extend(next.page.entries.iter().cloned()));
                    next
                }
                None => {
                    let limit = (shown + PAGE_SIZE).min(MAX_SHOWN);
                    let next = read_after(slug, Some(period), None, limit, segment).await?;
                    set_entries.set(next.page.entries.clone());
                    next
                }
            };
            set_has_more.set(next.page.has_more);
            set_cursor.set(next.next_cursor);
            Ok::<_, AppError>(())
        }
    })
}

/// What the rows' pager reads and moves: the rows shown, whether more follow, the next cursor,
/// and "Show more".
#[derive(Clone, Copy)]
struct Paging {
    entries: ReadSignal<Vec<Entry>>,
    has_more: ReadSignal<bool>,
    cursor: ReadSignal<Option<String>>,
    show_more: Action<(), Result<(), AppError>>,
}

/// What follows the rows: the hint and "Show more" (live and stable views), the pinned pager, or
/// the way back to the top (a found member).
fn controls(
    l: Locale,
    mode: Mode,
    segment: Option<String>,
    state: RwSignal<String>,
    paging: Paging,
) -> AnyView {
    let Paging { entries, has_more, cursor, show_more } = paging;
    let seg_q = segment.as_ref().map(|s| format!("&segment={s}")).unwrap_or_default();
    let more = move |href: String| {
        view! {
            <a class="button" href=href on:click=move |ev| { ev.prevent_default(); show_more.dispatch(()); }>
                {move || if show_more.pending().get() { tr!(l, "board-loading-more") } else { tr!(l, "board-show-more") }}
            </a>
        }
    };

    match mode {
        Mode::Live { .. } => {
            let seg_q = seg_q.clone();
            let href = move || format!("?show={}{seg_q}", entries.with(Vec::len) as u64 + PAGE_SIZE);
            // Only an open period's rows still move with new points.
            let hint = move || match state.get().as_str() {
                "open" => tr!(l, "board-hint-open"),
                "frozen" => tr!(l, "board-hint-frozen"),
                _ => tr!(l, "board-hint-final"),
            };
            view! {
                <p class="hint" data-testid="ranking-hint">{hint}</p>
                {move || has_more.get().then(|| more(href()))}
            }
            .into_any()
        }
        // `?after=`: the same pager, reached by a link without JavaScript.
        Mode::Stable { .. } => {
            let seg_q = seg_q.clone();
            let href = move || format!("?after={}{seg_q}", cursor.get().unwrap_or_default());
            view! {
                <p class="hint">{tr!(l, "board-hint-stable")}</p>
                {move || has_more.get().then(|| more(href()))}
            }
            .into_any()
        }
        Mode::Pinned { snapshot, offset } => {
            let older =
                (offset > 0).then(|| format!("?snap={snapshot}&offset={}", offset.saturating_sub(PAGE_SIZE)));
            let newer =
                move || has_more.get().then(|| format!("?snap={snapshot}&offset={}", offset + PAGE_SIZE));
            view! {
                <p class="hint">{tr!(l, "board-hint-pinned")}</p>
                <nav class="pager" aria-label=tr!(l, "board-pinned-pages")>
                    {older.map(|href| view! { <a class="button" rel="prev" href=href>{tr!(l, "board-previous-page")}</a> })}
                    " "
                    {move || newer().map(|href| view! { <a class="button" rel="next" href=href>{tr!(l, "board-next-page")}</a> })}
                    " "
                    <a class="button secondary" href="?">{tr!(l, "board-back-to-live")}</a>
                </nav>
            }
            .into_any()
        }
        // `Then` pages are `BoardThen`'s, never these rows'.
        Mode::Find { .. } | Mode::Then { .. } => {
            let top = segment.as_ref().map_or_else(|| "?".to_owned(), |s| format!("?segment={s}"));
            view! { <p><a class="button secondary" href=top>{tr!(l, "board-back-to-top")}</a></p> }.into_any()
        }
    }
}
