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

mod header;
mod late;
mod leaders;
mod settlement;
mod steps;

use header::{PeriodHeader, PeriodNav, PeriodNotices};
use late::LateWrites;
use leaders::LeadersSection;
use settlement::SettlementView;
use steps::{LifecycleSteps, lifecycle_steps};

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
use domain::PeriodKey;
use domain::lifecycle::State;
use domain::view::{
    BoardSummary, LateEntry, PeriodInfo, RankingPage, RewardView, Settlement, SettlementSummary,
};
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

/// A period's console once read: its header and notices, the board's periods, the lifecycle
/// steps, the season's weeks, the board's settings, "Correct…" and its preview, the late writes,
/// the leaders and, once settled, the settlement.
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
    let blocking_late = late.iter().filter(|l| l.status == "pending").count();
    // A period before the board's first (the oldest it has rows for) or after the current one
    // never existed or has not begun: nothing to freeze or settle there.
    let first = periods.iter().map(|p| p.period).min().unwrap_or(board.current_period);
    let exists = info.period >= first && info.period <= board.current_period;
    let steps = if exists {
        lifecycle_steps(l, state, blocking_late, prizes.len(), public_frozen_at, next_reveal.as_deref())
    } else {
        Vec::new()
    };
    view! {
        <PeriodHeader board=board.clone() period=period.clone() state/>
        <PeriodNotices
            board=board.clone()
            period=info.period
            state
            first
            exists
            freezes_at
            public_frozen_at
            next_reveal
            blocking_late
        />
        <PeriodNav periods slug=slug.clone() period=period.clone()/>
        <LifecycleSteps steps slug=slug.clone() period=period.clone() transition job/>
        <SeasonWeeks slug=slug.clone() period=period.clone()/>
        {move || job.get().filter(|j| !j.running).map(|job| view! { <JobProgressView job/> })}
        {settings}
        <CorrectPanel slug=slug.clone() period=period.clone() state segments preview/>
        <PreviewResult preview apply applied/>
        <h2 id="late">{tr!(l, "period-late-writes")}</h2>
        <LateWrites late slug=slug.clone() period=period.clone() preview/>
        <LeadersSection slug period leaders/>
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
