//! `/hot/{board}`: a hot board's published list — the same for every viewer until the next
//! snapshot — with rank-change arrows, "new" badges, when it was computed and the window in words.
//!
//! The page is a server component; the list (its "Updated …" line, its rows) is an island,
//! [`HotListIsland`], that reads the list again every `snapshot_seconds` (at least
//! [`MIN_REFRESH`]) through the page's own read, `read_hot_list`, while the page is open, so a
//! reader who keeps it open sees each new list; without JavaScript the "Refresh" link does. The
//! "Updated …" words are made on the server ([`HotRows::of`]): the contestants' bundle renders no
//! time. The window's words ([`window_said`]) come from the catalogue, from the rules' numbers
//! (`domain::hot::WindowWords`); the console's hot board page says them the same way.

use crate::api::{HotRows, read_hot_list};
use crate::components::error_view::ErrorView;
use crate::i18n::{Locale, tr};
use domain::hot::{HotBoardSummary, HotEntry, SpanUnit, Weighting, WindowWords};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

/// The shortest pause between two reads of the list by an open page, whatever the board's
/// interval: a board refreshed every second must not make every reader ask every second.
pub const MIN_REFRESH: std::time::Duration = std::time::Duration::from_secs(5);

#[component]
pub fn HotPage() -> impl IntoView {
    let l = crate::i18n::locale();
    let params = use_params_map();
    let list = Resource::new(move || params.read().get("board").unwrap_or_default(), read_hot_list);
    view! {
        <Suspense fallback=move || view! { <p>{tr!(l, "hot-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { list.await.map(|(board, rows)| view! { <Hot board rows/> }) })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// The window in the reader's words: "last 24 hours, newer counts more" / "最近 24 小时，越新权重越高".
/// The English is `HotRules::describe`'s, byte for byte (the tests below hold them together).
pub fn window_said(l: Locale, w: &WindowWords) -> String {
    let span = match w.unit {
        SpanUnit::Day => tr!(l, "hot-window-days", count = w.count),
        SpanUnit::Hour => tr!(l, "hot-window-hours", count = w.count),
        SpanUnit::Minute => tr!(l, "hot-window-minutes", count = w.count),
        SpanUnit::Second => tr!(l, "hot-window-seconds", count = w.count),
    };
    let window =
        if w.best { tr!(l, "hot-window-best", span = span) } else { tr!(l, "hot-window-last", span = span) };
    match w.weighting {
        Weighting::Even => window,
        Weighting::NewerMore => tr!(l, "hot-window-newer-more", window = window),
        Weighting::ByAge => tr!(l, "hot-window-by-age", window = window),
    }
}

/// A score without float noise: `12`, `12.5`, `0.33`.
fn score(s: f64) -> String {
    let text = format!("{s:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The arrow and its accessible wording for a change of places.
fn change(l: Locale, e: &HotEntry) -> (&'static str, String, String) {
    match e.change {
        0 => ("same", "–".into(), tr!(l, "hot-same")),
        n if n > 0 => ("up", format!("▲{n}"), tr!(l, "hot-up", places = n.to_string())),
        n => ("down", format!("▼{}", -n), tr!(l, "hot-down", places = (-n).to_string())),
    }
}

#[component]
fn Hot(board: HotBoardSummary, rows: HotRows) -> impl IntoView {
    let l = crate::i18n::locale();
    let window = window_said(l, &board.window_words);
    view! {
        <Title text=board.title.clone()/>
        <h1>{board.title.clone()}</h1>
        <p class="window" data-testid="window">{window.clone()}</p>
        <HotListIsland board=board.slug.to_string() rows window/>
    }
}

/// The list and its "Updated …" line, read again every `snapshot_seconds` (at least
/// [`MIN_REFRESH`]) in the browser, each new list replacing the rows. The only island of the
/// page; its props are what the server read and worded.
#[island]
pub fn HotListIsland(
    board: String,
    rows: HotRows,
    /// The window in the reader's words, for the table's caption.
    window: String,
) -> impl IntoView {
    // In the browser, the page's `<html lang>`.
    let l = crate::i18n::locale();
    let rows = RwSignal::new(rows);
    // A list that updates itself can be paused (WCAG 2.2.2): the button shows only once the
    // island runs, as only then does the list update.
    let paused = RwSignal::new(false);
    let running = RwSignal::new(false);
    Effect::new(move |_| running.set(true));
    #[cfg(feature = "hydrate")]
    browser::refresh(board.clone(), rows, paused);
    let pause = move || {
        running.get().then(|| {
            view! {
                " "
                <button
                    type="button"
                    class="secondary"
                    aria-pressed=move || paused.get().to_string()
                    on:click=move |_| paused.update(|p| *p = !*p)
                    data-testid="hot-pause"
                >
                    {move || if paused.get() { tr!(l, "hot-resume") } else { tr!(l, "hot-pause") }}
                </button>
            }
        })
    };
    view! {
        <p class="meta" data-testid="updated">
            {move || rows.with(|r| r.updated.clone())} " "
            <a href=format!("/hot/{board}")>{tr!(l, "hot-refresh")}</a>
            {pause}
        </p>
        {move || rows.with(|r| table(l, &r.entries, &window))}
    }
}

/// The ranked entries, or a word that there are none yet.
fn table(l: Locale, entries: &[HotEntry], window: &str) -> AnyView {
    if entries.is_empty() {
        return view! { <p class="empty">{tr!(l, "hot-empty")}</p> }.into_any();
    }
    view! {
        <table class="ranking hot">
            <caption>{tr!(l, "hot-caption", count = entries.len().to_string(), window = window.to_owned())}</caption>
            <thead>
                <tr>
                    <th scope="col" class="rank">{tr!(l, "hot-rank")}</th>
                    <th scope="col" class="change">{tr!(l, "hot-change")}</th>
                    <th scope="col">{tr!(l, "hot-term")}</th>
                    <th scope="col" class="points">{tr!(l, "hot-score")}</th>
                </tr>
            </thead>
            <tbody>
                {entries.iter().map(|e| {
                    let (direction, arrow, words) = change(l, e);
                    view! {
                        <tr data-rank=e.rank data-member=e.member.clone()>
                            <td class="rank">{e.rank}</td>
                            <td class=format!("change {direction}")>
                                {if e.new {
                                    view! { <span class="new" data-testid="new">{tr!(l, "hot-new")}</span> }.into_any()
                                } else {
                                    view! {
                                        <span aria-hidden="true" title=words.clone() data-change=e.change>{arrow}</span>
                                        <span class="visually-hidden">{words}</span>
                                    }.into_any()
                                }}
                            </td>
                            <th scope="row" class="name">{e.member.clone()}</th>
                            <td class="points">{score(e.score)}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::MIN_REFRESH;
    use crate::api::{HotRows, read_hot_list};
    use leptos::prelude::*;
    use std::cell::Cell;
    use std::rc::Rc;

    /// Reads the list again every `snapshot_seconds` of the list shown (at least
    /// [`MIN_REFRESH`]) and puts it in `rows`. The timer stops when the island goes (the
    /// effect's cleanup); a read still under way then finds the signal gone and drops its
    /// answer. One read at a time: a slow answer is not asked for again meanwhile. A failed read
    /// keeps the rows shown, whose "Updated …" line says how old they are. While `paused`, no
    /// read is made.
    pub(super) fn refresh(board: String, rows: RwSignal<HotRows>, paused: RwSignal<bool>) {
        let seconds = rows.with_untracked(|r| r.snapshot_seconds);
        let every = std::time::Duration::from_secs(seconds).max(MIN_REFRESH);
        // Effects run only in the browser, after hydration.
        Effect::new(move |_| {
            let board = board.clone();
            let busy = Rc::new(Cell::new(false));
            let read = move || {
                if paused.get_untracked() || busy.replace(true) {
                    return;
                }
                let (board, busy) = (board.clone(), busy.clone());
                leptos::task::spawn_local(async move {
                    if let Ok((_, fresh)) = read_hot_list(board).await {
                        let _ = rows.try_set(fresh);
                    }
                    busy.set(false);
                });
            };
            if let Ok(timer) = set_interval_with_handle(read, every) {
                on_cleanup(move || timer.clear());
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::hot::{Aggregate, HotRules, HotSpec, WriteMode};

    fn rules(bucket_seconds: u64, window_buckets: u64, more: HotSpec) -> HotRules {
        let ttl_seconds = (3 * bucket_seconds * window_buckets).div_ceil(2);
        HotRules::new(HotSpec { bucket_seconds, window_buckets, ttl_seconds, ..more }).unwrap()
    }

    /// Windows of every unit, singular and plural, summed and best, with each weighting.
    fn windows() -> Vec<HotRules> {
        let mut all = Vec::new();
        for (bucket, buckets) in [
            (1, 1),
            (1, 30),
            (60, 1),
            (60, 2),
            (60, 10),
            (61, 288),
            (3600, 1),
            (3600, 24),
            (86_400, 1),
            (86_400, 3),
            (86_400, 7),
            (86_400, 200),
        ] {
            let n = buckets as usize;
            let rising: Vec<f64> = (1..=n).map(|i| i as f64).collect();
            let falling: Vec<f64> = rising.iter().rev().copied().collect();
            for weights in [None, Some(rising), Some(falling)] {
                for (write_mode, aggregate) in [
                    (None, None),
                    (Some(WriteMode::Best), None),
                    (Some(WriteMode::Count), Some(Aggregate::Max)),
                ] {
                    let more =
                        HotSpec { weights: weights.clone(), write_mode, aggregate, ..HotSpec::default() };
                    all.push(rules(bucket, buckets, more));
                }
            }
        }
        all
    }

    #[test]
    fn the_english_window_is_the_apis_description_byte_for_byte() {
        for r in windows() {
            assert_eq!(window_said(Locale::En, &r.window_words()), r.describe(), "{r:?}");
        }
    }

    #[test]
    fn the_window_reads_in_chinese() {
        let said = |r: HotRules| window_said(Locale::ZhCn, &r.window_words());
        assert_eq!(said(rules(60, 10, HotSpec::default())), "最近 10 分钟");
        let rising = HotSpec { weights: Some((1..=24).map(f64::from).collect()), ..HotSpec::default() };
        assert_eq!(said(rules(3600, 24, rising)), "最近 24 小时，越新权重越高");
        let best = HotSpec {
            write_mode: Some(WriteMode::Best),
            weights: Some(vec![2.0, 1.0]),
            ..HotSpec::default()
        };
        assert_eq!(said(rules(1, 2, best)), "最近 2 秒内的最高分，按时间远近加权");
        assert_eq!(said(rules(86_400, 7, HotSpec::default())), "最近 7 天");
        // No English left in any Chinese window.
        for r in windows() {
            let zh = said(r.clone());
            assert!(!zh.chars().any(|c| c.is_ascii_alphabetic()), "{zh} for {r:?}");
        }
    }

    #[test]
    fn the_updated_line_says_when_in_utc_and_how_often() {
        let list = |updated_at| domain::hot::HotList {
            updated_at,
            snapshot_seconds: 5,
            window: domain::hot::HotWindow::of(&domain::hot::HotBoard {
                slug: domain::BoardSlug::parse("t").unwrap(),
                title: "T".into(),
                rules: rules(60, 10, HotSpec::default()),
            }),
            entries: Vec::new(),
        };
        let at: jiff::Timestamp = "2026-12-06T17:00:05Z".parse().unwrap();
        assert_eq!(
            HotRows::of(Locale::En, list(Some(at))).updated,
            "Updated 2026-12-06 17:00:05 UTC; a new list every 5 s."
        );
        assert_eq!(
            HotRows::of(Locale::ZhCn, list(Some(at))).updated,
            "更新于 2026-12-06 17:00:05 UTC；每 5 秒生成一次新榜单。"
        );
        assert!(HotRows::of(Locale::En, list(None)).updated.starts_with("No list yet"));
    }

    #[test]
    fn a_move_shows_its_arrow_and_words() {
        let entry =
            |change| HotEntry { rank: 1, member: "m".into(), score: 1.0, change, new: false, share: 0.0 };
        assert_eq!(change(Locale::En, &entry(2)), ("up", "▲2".to_owned(), "up 2".to_owned()));
        assert_eq!(change(Locale::En, &entry(-3)), ("down", "▼3".to_owned(), "down 3".to_owned()));
        assert_eq!(change(Locale::En, &entry(0)), ("same", "–".to_owned(), "no change".to_owned()));
        assert_eq!(change(Locale::ZhCn, &entry(2)).2, "上升 2 位");
    }
}
