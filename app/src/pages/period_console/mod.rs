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

mod late;
mod leaders;
mod settlement;

use late::LateWrites;
use leaders::Leaders;
use settlement::SettlementView;

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
