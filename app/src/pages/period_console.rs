//! The console's period page, `/admin/b/{board}/{period}`: the lifecycle, late writes, the
//! settlement and its rewards, the ranking and corrections. Its server functions are
//! `api::console`'s and `api::corrections`' (all `admin_<name>`).
//!
//! Forms are `ActionForm`s (plain posts without JavaScript). Each lifecycle step sits in a
//! `<details>` that states its consequence before the confirming button, and only the steps that
//! can run are offered: no "Settle…" while a late write is pending (the page says so and links the
//! review), no step for a period before the board's first or after the current one. One outcome
//! shows at a time (a step's replaces an older apply's). Every change to standings — from the
//! "Correct…" panel, a late write's row or the member drill-down — is previewed (moves, prize
//! changes) and then applied exactly as previewed, or cancelled (`components::correction`).
//!
//! Leaders come in pages of `LEADERS_PAGE` (20), each a URL (`?leaders=<offset>`, none for the
//! first), linked by "Previous 20" and "Next 20" with the positions shown ("Ranks 21–40 of
//! 1 234"); a page past the end says so and links back to the first. They are read by their own
//! server function (`admin_leaders`), so a page change reads only them, and the section keeps
//! its rows until the next page arrives (a `Transition`) instead of drawing the console again.
//!
//! A settle or a rebuild shows its numbers while it runs: the page asks `admin_progress` at once
//! and every `POLL_EVERY` (500 ms) and shows a `<progress value max>` with "N / M unit (P %)";
//! when the step answers, one more request fetches each phase's final numbers. The registry of
//! jobs is per process (`engine::progress`): behind several instances a poll that reaches another
//! instance finds nothing, and the bar stays without numbers.

use crate::api::console::{
    EditBoard, JobProgress, LEADERS_PAGE, PeriodConsole, Transition, read_leaders, read_period, read_progress,
};
use crate::api::corrections::{ApplyCorrection, PreviewCorrection};
use crate::components::console::{ActionOutcome, Confirm, FieldError, JobProgressView};
use crate::components::correction::{CorrectPanel, PreviewResult};
use crate::components::countdown::Countdown;
use crate::components::error_view::ErrorView;
use crate::components::export::{ExportRow, ExportRows};
use crate::components::ranking_table::RankingTable;
use crate::components::season_weeks::SeasonWeeks;
use crate::error::AppError;
use crate::i18n::{Clock, Locale, Say, tr};
use domain::lifecycle::State;
use domain::view::{LateEntry, RankingPage, RewardView, Settlement, SettlementSummary};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/admin/b/{board}/{period}`: a period's console — its state and the countdown to the freeze,
/// the lifecycle steps (each behind a confirmation that states its consequence), "Correct…" and
/// the late writes to review (each change previewed, then applied; on a settled period, a new
/// revision), the leaders (each a link to the member drill-down; a page of them at
/// `?leaders=<offset>`), and once settled the standings, the digest, every revision and every
/// reward's deliveries.
#[component]
pub fn PeriodConsolePage() -> impl IntoView {
    let params = use_params_map();
    let transition = ServerAction::<Transition>::new();
    let edit = ServerAction::<EditBoard>::new();
    let preview = ServerAction::<PreviewCorrection>::new();
    let apply = ServerAction::<ApplyCorrection>::new();
    let applied = RwSignal::new(None::<String>);
    let source = move || {
        let p = params.read();
        let get = |k: &str| p.get(k).unwrap_or_default();
        // Refetch after every action (with JavaScript; without it the browser reloads the page).
        let versions = (transition.version().get(), edit.version().get(), apply.version().get());
        (get("board"), get("period"), versions)
    };
    let data = Resource::new(source, |(board, period, _)| read_period(board, period));
    // Leaders' page is the query's: following "Next 20" reads the leaders alone.
    let query = use_query_map();
    let leaders_source = move || {
        let offset = query.read().get("leaders").and_then(|o| o.parse::<u64>().ok()).unwrap_or(0);
        (source(), offset)
    };
    let leaders =
        Resource::new(leaders_source, |((board, period, _), offset)| read_leaders(board, period, offset));
    // One outcome at a time: a step's answer replaces an older "Applied", and an apply's replaces
    // an older step's.
    Effect::new(move |_| {
        if transition.input().with(Option::is_some) {
            apply.value().set(None);
        }
    });
    Effect::new(move |_| {
        if apply.input().with(Option::is_some) {
            transition.value().set(None);
        }
    });
    // Here, not in `Console`: the console is drawn again when the step ends, and the final
    // numbers arrive after that.
    let job = RwSignal::new(None::<JobProgress>);
    follow_jobs(transition, move || source().0, job);
    let page = move |c| view! { <Console c transition edit preview apply applied job leaders/> };
    let l = crate::i18n::locale();
    view! {
        <Suspense fallback=move || view! { <p>{tr!(l, "period-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { data.await.map(page) })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// Steps whose progress the engine counts (`engine::progress`).
const MEASURED: [&str; 2] = ["settle", "rebuild"];

/// How often the console asks how far a settlement or rebuild is.
const POLL_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// How recently a job must have ended for its final numbers to be this step's.
const ENDED_WITHIN_MS: u64 = 10_000;

/// While a settlement or a rebuild runs, asks at once and every [`POLL_EVERY`] how far it is
/// (`read_progress`, answered by the instance that polled: another instance knows nothing of
/// it, and the bar stays without numbers); when the step answers, once more, for the final
/// numbers of the job that just ended. In the browser only (effects do not run on the server).
fn follow_jobs(
    transition: ServerAction<Transition>,
    board: impl Fn() -> String + Copy + Send + Sync + 'static,
    job: RwSignal<Option<JobProgress>>,
) {
    let period = move || transition.input().with(|t| t.as_ref().map(|t| (t.period.clone(), t.step.clone())));
    Effect::new(move |following: Option<Option<(IntervalHandle, String, String)>>| {
        let input = period();
        if input.is_some() {
            // Another step began: the numbers of the last one are no longer news.
            job.set(None);
        }
        let running = input.filter(|(_, step)| MEASURED.contains(&step.as_str()));
        if let Some(Some((handle, period, step))) = following {
            handle.clear();
            if running.is_none() {
                let board = board();
                leptos::task::spawn_local(async move {
                    if let Ok(Some(found)) = read_progress(board, period).await
                        && found.kind == step
                        && found.done
                        && found.ended_ms_ago.is_some_and(|ms| ms < ENDED_WITHIN_MS)
                    {
                        job.set(Some(found));
                    }
                });
            }
        }
        let (period, step) = running?;
        let (poll_board, poll_period) = (board(), period.clone());
        let poll = move || {
            let (board, period) = (poll_board.clone(), poll_period.clone());
            leptos::task::spawn_local(async move {
                let found = read_progress(board, period).await.ok().flatten();
                // A job that ended is an earlier one (this one's end is read once it answered).
                if transition.pending().get_untracked() {
                    job.set(found.filter(|j| j.running));
                }
            });
        };
        // At once too: a step shorter than a poll still shows what it was doing.
        poll.clone()();
        set_interval_with_handle(poll, POLL_EVERY).ok().map(|handle| (handle, period, step))
    });
}

/// A lifecycle step: its name (the server function's `step`), its label in English (the
/// disclosure's `data-step`) and in the reader's language, its consequence and its button.
type Step = (&'static str, &'static str, String, String, String);

#[component]
fn Console(
    c: PeriodConsole,
    transition: ServerAction<Transition>,
    edit: ServerAction<EditBoard>,
    preview: ServerAction<PreviewCorrection>,
    apply: ServerAction<ApplyCorrection>,
    applied: RwSignal<Option<String>>,
    job: RwSignal<Option<JobProgress>>,
    leaders: Resource<Result<RankingPage, AppError>>,
) -> impl IntoView {
    let PeriodConsole {
        board,
        prizes,
        freeze_grace_seconds,
        public_freeze_seconds,
        info,
        freezes_at,
        periods,
        public_frozen_at,
        next_reveal,
        late,
        settlement,
        revisions,
        rewards,
        delivers_rewards,
        names,
        keep_top,
        ranking_ttl_days,
        segments,
        segment_prizes,
    } = c;
    let l = crate::i18n::locale();
    let settings = view! {
        <BoardSettingsForm
            slug=board.slug.to_string()
            title=board.title.clone()
            freeze_grace_seconds
            public_freeze_seconds
            prizes=prizes.clone()
            edit
            keep_top
            ranking_ttl_days
            segments=segments.clone()
            segment_prizes
        />
    };
    let slug = board.slug.to_string();
    let period = info.period.to_string();
    let state = info.state;
    let pending = transition.pending();
    let (step_slug, step_period) = (slug.clone(), period.clone());
    let step = move |(name, label, summary, consequence, button): Step| {
        let (slug, period) = (step_slug.clone(), step_period.clone());
        // Settle and rebuild show their numbers; the job polled must be this step's.
        let progress = Signal::derive(move || job.get().filter(|j| j.kind == name));
        view! {
            <Confirm label summary consequence pending progress>
                <ActionForm action=transition>
                    <input type="hidden" name="board" value=slug/>
                    <input type="hidden" name="period" value=period/>
                    <input type="hidden" name="step" value=name/>
                    <label>
                        {tr!(l, "period-reason")}
                        <input
                            name="reason"
                            placeholder=if name == "reopen" {
                                tr!(l, "period-reason-required")
                            } else {
                                tr!(l, "period-reason-optional")
                            }
                        />
                    </label>
                    <button type="submit" prop:disabled=move || pending.get() data-confirm=name>{button}</button>
                </ActionForm>
            </Confirm>
        }
    };
    let rebuild: Step = (
        "rebuild",
        "Rebuild…",
        tr!(l, "period-rebuild"),
        tr!(l, "period-rebuild-consequence"),
        tr!(l, "period-rebuild-button"),
    );
    let reopen: Step = (
        "reopen",
        "Reopen…",
        tr!(l, "period-reopen"),
        tr!(l, "period-reopen-consequence"),
        tr!(l, "period-reopen-button"),
    );
    let blocking_late = late.iter().filter(|l| l.status == "pending").count();
    let mut steps: Vec<Step> = match state.as_str() {
        "open" => vec![
            (
                "freeze",
                "Freeze…",
                tr!(l, "period-freeze"),
                tr!(l, "period-freeze-consequence"),
                tr!(l, "period-freeze-button"),
            ),
            rebuild,
        ],
        // Settling waits until no late write is pending: offered only then.
        "frozen" if blocking_late > 0 => vec![reopen, rebuild],
        "frozen" => vec![
            (
                "settle",
                "Settle…",
                tr!(l, "period-settle"),
                tr!(l, "period-settle-consequence", ranges = prizes.len().to_string()),
                tr!(l, "period-settle-button"),
            ),
            reopen,
            rebuild,
        ],
        "settled" => vec![(
            "archive",
            "Archive…",
            tr!(l, "period-archive"),
            tr!(l, "period-archive-consequence"),
            tr!(l, "period-archive-button"),
        )],
        _ => vec![],
    };
    // Contest mode: the public freeze is beside the lifecycle, not a step of it.
    match (public_frozen_at, state.as_str()) {
        (None, "open" | "frozen") => steps.push((
            "public-freeze",
            "Freeze publicly…",
            tr!(l, "period-public-freeze"),
            tr!(l, "period-public-freeze-consequence"),
            tr!(l, "period-public-freeze-button"),
        )),
        (Some(_), "archived") | (None, _) => {}
        (Some(_), _) => steps.extend([
            (
                "reveal-next",
                "Reveal next…",
                tr!(l, "period-reveal-next"),
                tr!(l, "period-reveal-next-consequence", next = next_reveal.clone().unwrap_or_default()),
                tr!(l, "period-reveal-next-button"),
            ),
            (
                "reveal-all",
                "Reveal all…",
                tr!(l, "period-reveal-all"),
                tr!(l, "period-reveal-all-consequence"),
                tr!(l, "period-reveal-all-button"),
            ),
        ]),
    }
    // A period before the board's first (the oldest it has rows for) or after the current one
    // never existed or has not begun: nothing to freeze or settle there.
    let first = periods.iter().map(|p| p.period).min().unwrap_or(board.current_period);
    let exists = info.period >= first && info.period <= board.current_period;
    let outside = (!exists).then(|| {
        steps.clear();
        let said = if info.period < first {
            tr!(
                l,
                "period-before-first",
                board = board.title.clone(),
                first = first.to_string(),
                period = period.clone(),
            )
        } else {
            tr!(l, "period-not-begun", period = period.clone(), current = board.current_period.to_string())
        };
        view! { <p class="notice" role="status" data-testid="outside">{said}</p> }
    });
    let transition_error = move || transition.value().get().and_then(Result::err);
    view! {
        <Title text=tr!(l, "period-title", board = board.title.clone(), period = period.clone())/>
        <p><a href="/admin">{tr!(l, "period-back")}</a></p>
        <h1>{board.title.clone()} " " {period.clone()}</h1>
        <p class="meta">
            <span class=format!("state state-{state}") data-testid="state">{l.state(state)}</span>
            " "
            {tr!(
                l,
                "period-meta",
                slug = board.slug.to_string(),
                operator = board.operator.to_string(),
                ties = board.tie_policy.to_string(),
                order = match (board.sort, board.unit) {
                    (domain::Sort::Desc, _) => tr!(l, "period-order-higher"),
                    (domain::Sort::Asc, domain::Unit::Ms) => tr!(l, "period-order-fastest"),
                    (domain::Sort::Asc, domain::Unit::Points) => tr!(l, "period-order-lower"),
                },
                zone = board.time_zone.clone(),
            )}
        </p>
        <p class="meta" data-testid="period-links">
            // The public page is the contestants' bundle, outside the console's router.
            <a href=format!("/b/{}/{period}", board.slug) rel="external">{tr!(l, "period-public-page")}</a>
            " · "
            <a href=format!("/admin/audit?board={}&period={period}", board.slug)>{tr!(l, "period-audit-link")}</a>
        </p>
        {public_frozen_at.map(|at| view! {
            <p class="notice frozen" role="status" data-testid="public-freeze">
                {tr!(
                    l,
                    "period-public-frozen-since",
                    at = l.time(at, &board.time_zone, Clock::Second),
                    zone = board.time_zone.clone(),
                )}
            </p>
        })}
        {next_reveal.clone().map(|next| view! { <p data-testid="next-reveal">{next}</p> })}
        {(state == State::Open && exists).then(|| view! {
            <p>
                {tr!(l, "period-freezes-in")} " " <Countdown ends_at=freezes_at/> " "
                {tr!(
                    l,
                    "period-freezes-at",
                    at = l.time(freezes_at, &board.time_zone, Clock::Minute),
                    zone = board.time_zone.clone(),
                )}
            </p>
        })}
        {outside}
        {(state == State::Frozen && blocking_late > 0).then(|| view! {
            <p class="notice" role="status" data-testid="settle-waits">
                {tr!(l, "period-settle-waits", count = blocking_late, shown = blocking_late.to_string())} " "
                <a href="#late" rel="external">{tr!(l, "period-review-them")}</a>
                {tr!(l, "period-then-settle")}
            </p>
        })}
        <nav class="periods" aria-label=tr!(l, "period-periods")>
            {periods.into_iter().take(8).map(|p| {
                let current = p.period.to_string() == period;
                view! {
                    <a href=format!("/admin/b/{slug}/{}", p.period) aria-current=current.then_some("page")>
                        {tr!(l, "period-in-state", period = p.period.to_string(), state = l.state(p.state))}
                    </a>
                }
            }).collect_view()}
        </nav>
        // Keyed by step: after a transition the page re-renders in place, and an open confirmation
        // must not be carried over to the step that replaces it.
        <section class="steps" id="lifecycle" aria-label=tr!(l, "period-lifecycle")>
            <For each=move || steps.clone() key=|s| s.0 children=step/>
        </section>
        <FieldError error=transition_error field="reason"/>
        <ActionOutcome outcome=move || transition.value().get()/>
        <SeasonWeeks slug=slug.clone() period=period.clone()/>
        {move || job.get().filter(|j| !j.running).map(|job| view! { <JobProgressView job/> })}
        {settings}
        <CorrectPanel slug=slug.clone() period=period.clone() state segments preview/>
        <PreviewResult preview apply applied/>
        <h2 id="late">{tr!(l, "period-late-writes")}</h2>
        <LateWrites late slug=slug.clone() period=period.clone() preview/>
        <h2 id="leaders">{tr!(l, "period-leaders")}</h2>
        <form method="get" action=format!("/admin/b/{slug}/{period}/member") class="find">
            <label>{tr!(l, "period-member-id")} <input name="id" required autocomplete="off"/></label>
            <button type="submit" class="secondary">{tr!(l, "period-open-member")}</button>
        </form>
        // A page's rows stay until the next page's arrive.
        <Transition fallback=move || view! { <p>{tr!(l, "period-leaders-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { leaders.await.map(|page| view! { <Leaders page/> }) })}
            </ErrorBoundary>
        </Transition>
        {settlement.map(|s| view! { <SettlementView s revisions rewards delivers_rewards names unit=board.unit/> })}
    }
}

/// One page of Leaders: the table captioned with the positions it shows, the links to the pages
/// around it, and its export (the rows shown); past the end, a line saying so with a link back to
/// the first page.
#[component]
fn Leaders(page: RankingPage) -> impl IntoView {
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

#[component]
fn LateWrites(
    late: Vec<LateEntry>,
    slug: String,
    period: String,
    preview: ServerAction<PreviewCorrection>,
) -> impl IntoView {
    let loc = crate::i18n::locale();
    if late.is_empty() {
        return view! { <p class="empty">{tr!(loc, "period-no-late")}</p> }.into_any();
    }
    view! {
        <table class="entries late">
            <caption>{tr!(loc, "period-late-caption")}</caption>
            <thead><tr>
                <th scope="col">{tr!(loc, "period-col-id")}</th>
                <th scope="col">{tr!(loc, "period-col-member")}</th>
                <th scope="col">{tr!(loc, "period-col-write")}</th>
                <th scope="col">{tr!(loc, "period-col-received")}</th>
                <th scope="col">{tr!(loc, "period-col-status")}</th>
                <th scope="col">{tr!(loc, "period-col-decision")}</th>
            </tr></thead>
            <tbody>
                <For each=move || late.clone() key=|l| (l.id, l.status.clone()) let:l>{{
                    let write = match (l.delta, l.value) {
                        (Some(d), _) => format!("{} {} {d:+}", l.kind, l.external_id.clone().unwrap_or_default()),
                        (_, Some(v)) => format!("{} {} = {v}", l.kind, l.external_id.clone().unwrap_or_default()),
                        _ => l.kind.clone(),
                    };
                    let pending = l.status == "pending";
                    let status = late_status(loc, &l.status);
                    let (slug, period) = (slug.clone(), period.clone());
                    view! {
                        <tr data-late=l.id>
                            <td>{l.id}</td>
                            <td>{l.member.to_string()}</td>
                            <td>{write}</td>
                            <td>{l.received_at.strftime("%Y-%m-%d %H:%M:%S").to_string()}</td>
                            <td>{status} {l.decision_reason.clone().map(|r| format!(": {r}"))}</td>
                            <td>{pending.then(|| view! {
                                // Previewed like any change; the preview above says what it does.
                                <ActionForm action=preview attr:class="inline">
                                    <input type="hidden" name="board" value=slug/>
                                    <input type="hidden" name="period" value=period/>
                                    <input type="hidden" name="target" value=l.id/>
                                    <input type="hidden" name="delta" value=""/>
                                    <label class="visually-hidden" for=format!("late-reason-{}", l.id)>
                                        {tr!(loc, "period-reason")}
                                    </label>
                                    <input
                                        id=format!("late-reason-{}", l.id)
                                        name="reason"
                                        required
                                        placeholder=tr!(loc, "period-reason-placeholder")
                                    />
                                    <button type="submit" name="change" value="accept_late">{tr!(loc, "period-accept")}</button>
                                    <button type="submit" name="change" value="reject_late" class="secondary">
                                        {tr!(loc, "period-reject")}
                                    </button>
                                </ActionForm>
                            })}</td>
                        </tr>
                    }
                }}</For>
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
fn SettlementView(
    s: Settlement,
    revisions: Vec<SettlementSummary>,
    rewards: Vec<RewardView>,
    delivers_rewards: bool,
    names: std::collections::BTreeMap<String, String>,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    // "Ada Lovelace (u1001)" where the member has a display name, as Leaders names them.
    let who = move |member: &domain::MemberId| match names.get(member.as_str()) {
        Some(name) => tr!(l, "period-member-named", name = name.clone(), member = member.to_string()),
        None => member.to_string(),
    };
    // Instants in figures, as every language writes them.
    let by = move |at: String, actor: &str| tr!(l, "period-by", at = at, actor = actor.to_owned());
    view! {
        <h2>{tr!(l, "period-settlement")}</h2>
        <dl class="settlement">
            <dt>{tr!(l, "period-digest-sha")}</dt><dd class="id" data-testid="digest">{s.digest.clone()}</dd>
            <dt>{tr!(l, "period-revision")}</dt><dd>{s.revision}</dd>
            <dt>{tr!(l, "period-members")}</dt><dd>{s.members}</dd>
            <dt>{tr!(l, "period-watermark")}</dt><dd>{s.watermark}</dd>
            <dt>{tr!(l, "period-settled")}</dt>
            <dd>{by(s.settled_at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(), &s.actor)}</dd>
        </dl>
        {(revisions.len() > 1).then(|| view! {
            <table class="entries revisions" data-testid="revisions">
                <caption>{tr!(l, "period-revisions-caption")}</caption>
                <thead><tr>
                    <th scope="col">{tr!(l, "period-revision")}</th>
                    <th scope="col">{tr!(l, "period-col-written")}</th>
                    <th scope="col">{tr!(l, "period-reason")}</th>
                    <th scope="col">{tr!(l, "period-col-digest")}</th>
                    <th scope="col">{tr!(l, "period-col-previous-digest")}</th>
                </tr></thead>
                <tbody>
                    {revisions.iter().map(|r| view! {
                        <tr data-revision=r.revision>
                            <td>{r.revision}</td>
                            <td>{by(r.settled_at.strftime("%Y-%m-%d %H:%M").to_string(), &r.actor)}</td>
                            <td>{r.reason.clone().unwrap_or_else(|| tr!(l, "period-first-settlement"))}</td>
                            <td class="id">{short(&r.digest)}</td>
                            <td class="id">{r.previous_digest.as_deref().map(short).unwrap_or_default()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        })}
        <table class="entries standings">
            <caption>
                {tr!(
                    l,
                    "period-standings-caption",
                    shown = s.standings.len().to_string(),
                    members = s.members.to_string(),
                )}
            </caption>
            <thead><tr>
                <th scope="col">{tr!(l, "period-col-rank")}</th>
                <th scope="col">{tr!(l, "period-col-member")}</th>
                <th scope="col">{tr!(l, "period-col-points")}</th>
                <th scope="col">{tr!(l, "period-col-prize")}</th>
            </tr></thead>
            <tbody>
                {s.standings.iter().map(|st| view! {
                    <tr>
                        <td>{st.rank}</td>
                        <td>{who(&st.member)}</td>
                        <td>{l.points(st.points, unit)}</td>
                        <td>{st.prize.clone().unwrap_or_default()}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        <h3 id="rewards">{tr!(l, "period-rewards")}</h3>
        {if rewards.is_empty() {
            view! { <p class="empty">{tr!(l, "period-no-prizes")}</p> }.into_any()
        } else {
            view! {
                // Else "pending, 0 attempts" would read as a stuck delivery.
                {(!delivers_rewards).then(|| view! {
                    <p class="notice" data-testid="no-webhook">{tr!(l, "period-no-webhook")}</p>
                })}
                <table class="entries rewards">
                    <caption>{tr!(l, "period-rewards-caption")}</caption>
                    <thead><tr>
                        <th scope="col">{tr!(l, "period-revision")}</th>
                        <th scope="col">{tr!(l, "period-col-delivery")}</th>
                        <th scope="col">{tr!(l, "period-col-member")}</th>
                        <th scope="col">{tr!(l, "period-col-ranking")}</th>
                        <th scope="col">{tr!(l, "period-col-rank")}</th>
                        <th scope="col">{tr!(l, "period-col-prize")}</th>
                        <th scope="col">{tr!(l, "period-col-status")}</th>
                        <th scope="col">{tr!(l, "period-col-attempts")}</th>
                    </tr></thead>
                    <tbody>
                        {rewards.into_iter().map(|r| view! {
                            <tr data-reward=r.id data-kind=r.kind.as_str()>
                                <td>{r.revision}</td>
                                <td>{match r.kind {
                                    domain::view::RewardKind::Grant => tr!(l, "period-delivery-grant"),
                                    domain::view::RewardKind::Revoke => tr!(l, "period-delivery-revoke"),
                                }}</td>
                                <td>{who(&r.member)}</td>
                                <td>{r.ranking.clone().unwrap_or_else(|| tr!(l, "period-ranking-board"))}</td>
                                <td>{r.rank}</td><td>{r.prize.clone()}</td>
                                <td>{if r.status == "pending" && r.attempts == 0 && !delivers_rewards {
                                    tr!(l, "period-pending-no-webhook")
                                } else {
                                    reward_status(l, &r.status)
                                }}</td>
                                <td>
                                    <details>
                                        <summary>
                                            {tr!(
                                                l,
                                                "period-attempts",
                                                count = r.attempts.to_string(),
                                            )}
                                        </summary>
                                        <ul class="attempts">
                                            {r.history.iter().map(|a| view! {
                                                <li>{format!("{} — {}", a.attempted_at.strftime("%Y-%m-%d %H:%M:%S"),
                                                    match (a.http_status, &a.error) {
                                                        (Some(code), None) => format!("HTTP {code}"),
                                                        (Some(code), Some(e)) => format!("HTTP {code}: {e}"),
                                                        (None, Some(e)) => e.clone(),
                                                        (None, None) => tr!(l, "period-no-answer"),
                                                    })}</li>
                                            }).collect_view()}
                                        </ul>
                                    </details>
                                </td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
    }
}

/// The board's settings that may change (title, freeze grace, prizes), behind a disclosure; the
/// refusal of a field is shown next to it.
#[component]
fn BoardSettingsForm(
    slug: String,
    title: String,
    freeze_grace_seconds: i64,
    public_freeze_seconds: i64,
    prizes: Vec<domain::board::Prize>,
    edit: ServerAction<EditBoard>,
    keep_top: Option<u64>,
    ranking_ttl_days: i64,
    /// The board's segment dimensions and their prize tables (none: no field for them).
    segments: Vec<String>,
    segment_prizes: domain::board::SegmentPrizes,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let bounded = match keep_top {
        Some(k) => tr!(l, "period-keeps-best", count = k.to_string()),
        None => tr!(l, "period-keeps-all"),
    };
    let error = move || edit.value().get().and_then(Result::err);
    view! {
        <details class="confirm" data-step="Board settings…">
            <summary class="button secondary">{tr!(l, "period-settings")}</summary>
            <div class="confirm-body">
                <p>{tr!(l, "period-settings-explained")}</p>
                <ActionForm action=edit attr:class="stacked" attr:data-testid="board-settings">
                    <input type="hidden" name="board" value=slug/>
                    <label>{tr!(l, "period-field-title")} <input name="title" value=title required/></label>
                    <FieldError error field="title"/>
                    <label>
                        {tr!(l, "period-field-freeze-grace")}
                        <input name="freeze_grace_seconds" inputmode="numeric" value=freeze_grace_seconds/>
                    </label>
                    <FieldError error field="freeze_grace_seconds"/>
                    <label>
                        {tr!(l, "period-field-public-freeze")}
                        <input name="public_freeze_seconds" inputmode="numeric" value=public_freeze_seconds/>
                    </label>
                    <FieldError error field="public_freeze_seconds"/>
                    <label>{tr!(l, "period-field-prizes")}
                        <textarea name="prizes" rows="3">{domain::board::prize_lines(&prizes)}</textarea>
                    </label>
                    <FieldError error field="prizes"/>
                    {(!segments.is_empty()).then(|| view! {
                        <label>{tr!(l, "period-field-segment-prizes", dimensions = segments.join(", "))}
                            <textarea name="segment_prizes" rows="3" placeholder="province 1-3: Medal">
                                {domain::board::segment_prize_lines(&segment_prizes)}
                            </textarea>
                        </label>
                        <FieldError error field="segment_prizes"/>
                    })}
                    <label>
                        {tr!(l, "period-field-ranking-ttl")}
                        <input name="ranking_ttl_days" inputmode="numeric" value=ranking_ttl_days/>
                    </label>
                    <FieldError error field="ranking_ttl_days"/>
                    <p class="hint">{bounded}</p>
                    <button type="submit">{tr!(l, "period-save-settings")}</button>
                </ActionForm>
            </div>
        </details>
        <ActionOutcome outcome=move || edit.value().get()/>
    }
}

/// A late write's status in words (`pending`, `accepted`, `rejected`; another as it is).
fn late_status(l: crate::i18n::Locale, status: &str) -> String {
    match status {
        "pending" => tr!(l, "period-late-pending"),
        "accepted" => tr!(l, "period-late-accepted"),
        "rejected" => tr!(l, "period-late-rejected"),
        other => other.to_owned(),
    }
}

/// A reward's status in words (`pending`, `delivered`, `failed`; another as it is).
fn reward_status(l: crate::i18n::Locale, status: &str) -> String {
    match status {
        "pending" => tr!(l, "period-reward-pending"),
        "delivered" => tr!(l, "period-reward-delivered"),
        "failed" => tr!(l, "period-reward-failed"),
        other => other.to_owned(),
    }
}

/// The first 12 hex digits of a digest (the full one is in the settlement above and the API).
fn short(digest: &str) -> String {
    format!("{}…", digest.get(..12).unwrap_or(digest))
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
