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
//! A settle or a rebuild shows its numbers while it runs: the page asks `admin_progress` at once
//! and every `POLL_EVERY` (500 ms) and shows a `<progress value max>` with "N / M unit (P %)";
//! when the step answers, one more request fetches each phase's final numbers. The registry of
//! jobs is per process (`engine::progress`): behind several instances a poll that reaches another
//! instance finds nothing, and the bar stays without numbers.

use crate::api::console::{EditBoard, JobProgress, PeriodConsole, Transition, read_period, read_progress};
use crate::api::corrections::{ApplyCorrection, PreviewCorrection};
use crate::components::console::{ActionOutcome, Confirm, FieldError, JobProgressView};
use crate::components::correction::{CorrectPanel, PreviewResult};
use crate::components::countdown::Countdown;
use crate::components::error_view::ErrorView;
use crate::components::export::{ExportRow, ExportRows};
use crate::components::ranking_table::RankingTable;
use domain::lifecycle::State;
use domain::local::{Clock, in_named_zone};
use domain::view::{LateEntry, RewardView, Settlement, SettlementSummary};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

/// `/admin/b/{board}/{period}`: a period's console — its state and the countdown to the freeze,
/// the lifecycle steps (each behind a confirmation that states its consequence), "Correct…" and
/// the late writes to review (each change previewed, then applied; on a settled period, a new
/// revision), the leaders
/// (each a link to the member drill-down), and once settled the standings, the digest, every
/// revision and every reward's deliveries.
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
    let page = move |c| view! { <Console c transition edit preview apply applied job/> };
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
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

/// A lifecycle step: its name (the server function's `step`), label, consequence and button.
type Step = (&'static str, &'static str, String, &'static str);

#[component]
fn Console(
    c: PeriodConsole,
    transition: ServerAction<Transition>,
    edit: ServerAction<EditBoard>,
    preview: ServerAction<PreviewCorrection>,
    apply: ServerAction<ApplyCorrection>,
    applied: RwSignal<Option<String>>,
    job: RwSignal<Option<JobProgress>>,
) -> impl IntoView {
    let PeriodConsole {
        board,
        prizes,
        freeze_grace_seconds,
        public_freeze_seconds,
        info,
        freezes_at,
        periods,
        leaders,
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
    } = c;
    // The leaders' export: the rows the table shows.
    let leader_rows: Vec<ExportRow> = leaders.entries.iter().map(|e| ExportRow::new(e, None)).collect();
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
        />
    };
    let slug = board.slug.to_string();
    let period = info.period.to_string();
    let state = info.state;
    let pending = transition.pending();
    let (step_slug, step_period) = (slug.clone(), period.clone());
    let step = move |(name, label, consequence, button): Step| {
        let (slug, period) = (step_slug.clone(), step_period.clone());
        // Settle and rebuild show their numbers; the job polled must be this step's.
        let progress = Signal::derive(move || job.get().filter(|j| j.kind == name));
        view! {
            <Confirm label consequence pending progress>
                <ActionForm action=transition>
                    <input type="hidden" name="board" value=slug/>
                    <input type="hidden" name="period" value=period/>
                    <input type="hidden" name="step" value=name/>
                    <label>"Reason" <input name="reason" placeholder=if name == "reopen" { "required" } else { "optional" }/></label>
                    <button type="submit" prop:disabled=move || pending.get() data-confirm=name>{button}</button>
                </ActionForm>
            </Confirm>
        }
    };
    let rebuild: Step = (
        "rebuild",
        "Rebuild…",
        "Rebuilds the live ranking from the ledger. Nothing in the ledger changes.".into(),
        "Rebuild now",
    );
    let blocking_late = late.iter().filter(|l| l.status == "pending").count();
    let mut steps: Vec<Step> = match state.as_str() {
        "open" => vec![
            ("freeze", "Freeze…", "Writes stop counting: new events for this period are kept as late writes for review. Reads stay public.".into(), "Freeze now"),
            rebuild,
        ],
        // Settling waits until no late write is pending: offered only then.
        "frozen" if blocking_late > 0 => vec![
            ("reopen", "Reopen…", "Writes count again until the next freeze. Pending late writes stay pending.".into(), "Reopen now"),
            rebuild,
        ],
        "frozen" => vec![
            ("settle", "Settle…", format!("Final standings and prizes are computed from the ledger and recorded with their digest; the {} prize range(s) are paid through the reward webhook. After this they change only through Correct…, as a new revision.", prizes.len()), "Settle now"),
            ("reopen", "Reopen…", "Writes count again until the next freeze. Pending late writes stay pending.".into(), "Reopen now"),
            rebuild,
        ],
        "settled" => vec![
            ("archive", "Archive…", "The live ranking is removed from Redis; every read is served from the stored standings, with the same ranks.".into(), "Archive now"),
        ],
        _ => vec![],
    };
    // Contest mode: the public freeze is beside the lifecycle, not a step of it.
    match (public_frozen_at, state.as_str()) {
        (None, "open" | "frozen") => steps.push((
            "public-freeze",
            "Freeze publicly…",
            "The public keeps seeing the standings as they are now, with a banner; writes keep counting and admins see them. Reveal later, at once or step by step.".into(),
            "Freeze publicly now",
        )),
        (Some(_), "archived") | (None, _) => {}
        (Some(_), _) => steps.extend([
            (
                "reveal-next",
                "Reveal next…",
                format!("Makes one member's live standing public, from the bottom of the frozen board up, so the winners come last. {}", next_reveal.clone().unwrap_or_default()),
                "Reveal next",
            ),
            ("reveal-all", "Reveal all…", "The public sees the live standings at once.".into(), "Reveal all now"),
        ]),
    }
    // A period before the board's first (the oldest it has rows for) or after the current one
    // never existed or has not begun: nothing to freeze or settle there.
    let first = periods.iter().map(|p| p.period).min().unwrap_or(board.current_period);
    let exists = info.period >= first && info.period <= board.current_period;
    let outside = (!exists).then(|| {
        steps.clear();
        let said = if info.period < first {
            format!("{} has no period before {first}, its first: {period} never existed.", board.title)
        } else {
            format!("{period} has not begun: the current period is {}.", board.current_period)
        };
        view! { <p class="notice" role="status" data-testid="outside">{said}</p> }
    });
    let transition_error = move || transition.value().get().and_then(Result::err);
    view! {
        <Title text=format!("{} {period} · Console", board.title)/>
        <p><a href="/admin">"← Console"</a></p>
        <h1>{board.title.clone()} " " {period.clone()}</h1>
        <p class="meta">
            <span class=format!("state state-{state}") data-testid="state">{state.as_str()}</span>
            {format!(
                " · {} · {} · ties {} · {} · {}",
                board.slug,
                board.operator,
                board.tie_policy,
                match (board.sort, board.unit) {
                    (domain::Sort::Desc, _) => "higher is better",
                    (domain::Sort::Asc, domain::Unit::Ms) => "fastest first",
                    (domain::Sort::Asc, domain::Unit::Points) => "lower is better",
                },
                board.time_zone
            )}
        </p>
        <p class="meta" data-testid="period-links">
            // The public page is the contestants' bundle, outside the console's router.
            <a href=format!("/b/{}/{period}", board.slug) rel="external">"Public page"</a>
            " · "
            <a href=format!("/admin/audit?board={}&period={period}", board.slug)>"Audit trail of this period"</a>
        </p>
        {public_frozen_at.map(|at| view! {
            <p class="notice frozen" role="status" data-testid="public-freeze">
                {format!("Publicly frozen since {} ({}): the public sees the standings of that moment; the leaders below are live.", in_named_zone(at, &board.time_zone, Clock::Second, crate::i18n::locale()), board.time_zone)}
            </p>
        })}
        {next_reveal.clone().map(|next| view! { <p data-testid="next-reveal">{next}</p> })}
        {(state == State::Open && exists).then(|| view! {
            <p>"Freezes in " <Countdown ends_at=freezes_at/>
               {format!(" (at {} in {}, the period's end plus the grace)", in_named_zone(freezes_at, &board.time_zone, Clock::Minute, crate::i18n::locale()), board.time_zone)}
            </p>
        })}
        {outside}
        {(state == State::Frozen && blocking_late > 0).then(|| view! {
            <p class="notice" role="status" data-testid="settle-waits">
                {match blocking_late {
                    1 => "Settling waits for 1 pending late write: ".to_owned(),
                    n => format!("Settling waits for {n} pending late writes: "),
                }}
                <a href="#late" rel="external">"review them"</a>
                "; then Settle… is offered."
            </p>
        })}
        <nav class="periods" aria-label="Periods">
            {periods.into_iter().take(8).map(|p| {
                let current = p.period.to_string() == period;
                view! {
                    <a href=format!("/admin/b/{slug}/{}", p.period) aria-current=current.then_some("page")>
                        {format!("{} ({})", p.period, p.state)}
                    </a>
                }
            }).collect_view()}
        </nav>
        // Keyed by step: after a transition the page re-renders in place, and an open confirmation
        // must not be carried over to the step that replaces it.
        <section class="steps" id="lifecycle" aria-label="Lifecycle">
            <For each=move || steps.clone() key=|s| s.0 children=step/>
        </section>
        <FieldError error=transition_error field="reason"/>
        <ActionOutcome outcome=move || transition.value().get()/>
        {move || job.get().filter(|j| !j.running).map(|job| view! { <JobProgressView job/> })}
        {settings}
        <CorrectPanel slug=slug.clone() period=period.clone() state preview/>
        <PreviewResult preview apply applied/>
        <h2 id="late">"Late writes"</h2>
        <LateWrites late slug=slug.clone() period=period.clone() preview/>
        <h2>"Leaders"</h2>
        <form method="get" action=format!("/admin/b/{slug}/{period}/member") class="find">
            <label>"Member id" <input name="id" required autocomplete="off"/></label>
            <button type="submit" class="secondary">"Open member"</button>
        </form>
        <RankingTable
            entries=leaders.entries
            caption=format!("Top of {period} ({} members)", leaders.total)
            base=format!("/admin/b/{slug}/{period}")
            unit=board.unit
        />
        <ExportRows rows=leader_rows board=slug.clone() period=period.clone()/>
        {settlement.map(|s| view! { <SettlementView s revisions rewards delivers_rewards names unit=board.unit/> })}
    }
}

#[component]
fn LateWrites(
    late: Vec<LateEntry>,
    slug: String,
    period: String,
    preview: ServerAction<PreviewCorrection>,
) -> impl IntoView {
    if late.is_empty() {
        return view! { <p class="empty">"No late writes."</p> }.into_any();
    }
    view! {
        <table class="entries late">
            <caption>"Writes that arrived after the period stopped taking them, oldest first"</caption>
            <thead><tr>
                <th scope="col">"Id"</th><th scope="col">"Member"</th><th scope="col">"Write"</th>
                <th scope="col">"Received (UTC)"</th><th scope="col">"Status"</th><th scope="col">"Decision"</th>
            </tr></thead>
            <tbody>
                <For each=move || late.clone() key=|l| (l.id, l.status.clone()) let:l>{{
                    let write = match (l.delta, l.value) {
                        (Some(d), _) => format!("{} {} {d:+}", l.kind, l.external_id.clone().unwrap_or_default()),
                        (_, Some(v)) => format!("{} {} = {v}", l.kind, l.external_id.clone().unwrap_or_default()),
                        _ => l.kind.clone(),
                    };
                    let pending = l.status == "pending";
                    let (slug, period) = (slug.clone(), period.clone());
                    view! {
                        <tr data-late=l.id>
                            <td>{l.id}</td>
                            <td>{l.member.to_string()}</td>
                            <td>{write}</td>
                            <td>{l.received_at.strftime("%Y-%m-%d %H:%M:%S").to_string()}</td>
                            <td>{l.status.clone()} {l.decision_reason.clone().map(|r| format!(": {r}"))}</td>
                            <td>{pending.then(|| view! {
                                // Previewed like any change; the preview above says what it does.
                                <ActionForm action=preview attr:class="inline">
                                    <input type="hidden" name="board" value=slug/>
                                    <input type="hidden" name="period" value=period/>
                                    <input type="hidden" name="target" value=l.id/>
                                    <input type="hidden" name="delta" value=""/>
                                    <label class="visually-hidden" for=format!("late-reason-{}", l.id)>"Reason"</label>
                                    <input id=format!("late-reason-{}", l.id) name="reason" required placeholder="reason"/>
                                    <button type="submit" name="change" value="accept_late">"Accept…"</button>
                                    <button type="submit" name="change" value="reject_late" class="secondary">"Reject…"</button>
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
    // "Ada Lovelace (u1001)" where the member has a display name, as Leaders names them.
    let who = move |member: &domain::MemberId| match names.get(member.as_str()) {
        Some(name) => format!("{name} ({member})"),
        None => member.to_string(),
    };
    view! {
        <h2>"Settlement"</h2>
        <dl class="settlement">
            <dt>"Digest (SHA-256)"</dt><dd class="id" data-testid="digest">{s.digest.clone()}</dd>
            <dt>"Revision"</dt><dd>{s.revision}</dd>
            <dt>"Members"</dt><dd>{s.members}</dd>
            <dt>"Ledger watermark"</dt><dd>{s.watermark}</dd>
            <dt>"Settled"</dt><dd>{format!("{} by {}", s.settled_at.strftime("%Y-%m-%d %H:%M:%S UTC"), s.actor)}</dd>
        </dl>
        {(revisions.len() > 1).then(|| view! {
            <table class="entries revisions" data-testid="revisions">
                <caption>"Revisions: each names the digest of the one it replaced"</caption>
                <thead><tr>
                    <th scope="col">"Revision"</th><th scope="col">"Written"</th><th scope="col">"Reason"</th>
                    <th scope="col">"Digest"</th><th scope="col">"Previous digest"</th>
                </tr></thead>
                <tbody>
                    {revisions.iter().map(|r| view! {
                        <tr data-revision=r.revision>
                            <td>{r.revision}</td>
                            <td>{format!("{} by {}", r.settled_at.strftime("%Y-%m-%d %H:%M"), r.actor)}</td>
                            <td>{r.reason.clone().unwrap_or_else(|| "first settlement".into())}</td>
                            <td class="id">{short(&r.digest)}</td>
                            <td class="id">{r.previous_digest.as_deref().map(short).unwrap_or_default()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        })}
        <table class="entries standings">
            <caption>{format!("Standings (first {} of {})", s.standings.len(), s.members)}</caption>
            <thead><tr><th scope="col">"Rank"</th><th scope="col">"Member"</th><th scope="col">"Points"</th><th scope="col">"Prize"</th></tr></thead>
            <tbody>
                {s.standings.iter().map(|st| view! {
                    <tr><td>{st.rank}</td><td>{who(&st.member)}</td><td>{domain::format::points(st.points, unit, crate::i18n::locale())}</td><td>{st.prize.clone().unwrap_or_default()}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
        <h3 id="rewards">"Rewards"</h3>
        {if rewards.is_empty() {
            view! { <p class="empty">"No prizes were won."</p> }.into_any()
        } else {
            view! {
                // Else "pending, 0 attempts" would read as a stuck delivery.
                {(!delivers_rewards).then(|| view! {
                    <p class="notice" data-testid="no-webhook">"This server has no rewards webhook (--rewards-webhook), "
                        "so it sends no rewards: they wait in the ledger, pending, until a server that has one delivers them."</p>
                })}
                <table class="entries rewards">
                    <caption>"Each reward is sent once to the webhook with its Idempotency-Key"</caption>
                    <thead><tr>
                        <th scope="col">"Revision"</th><th scope="col">"Delivery"</th>
                        <th scope="col">"Member"</th><th scope="col">"Rank"</th><th scope="col">"Prize"</th>
                        <th scope="col">"Status"</th><th scope="col">"Attempts"</th>
                    </tr></thead>
                    <tbody>
                        {rewards.into_iter().map(|r| view! {
                            <tr data-reward=r.id data-kind=r.kind.as_str()>
                                <td>{r.revision}</td>
                                <td>{r.kind.as_str()}</td>
                                <td>{who(&r.member)}</td><td>{r.rank}</td><td>{r.prize.clone()}</td>
                                <td>{if r.status == "pending" && r.attempts == 0 && !delivers_rewards {
                                    "pending: no webhook here".to_owned()
                                } else {
                                    r.status.clone()
                                }}</td>
                                <td>
                                    <details>
                                        <summary>{format!("{} attempt(s)", r.attempts)}</summary>
                                        <ul class="attempts">
                                            {r.history.iter().map(|a| view! {
                                                <li>{format!("{} — {}", a.attempted_at.strftime("%Y-%m-%d %H:%M:%S"),
                                                    match (a.http_status, &a.error) {
                                                        (Some(code), None) => format!("HTTP {code}"),
                                                        (Some(code), Some(e)) => format!("HTTP {code}: {e}"),
                                                        (None, Some(e)) => e.clone(),
                                                        (None, None) => "no answer".into(),
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
) -> impl IntoView {
    let bounded = match keep_top {
        Some(k) => format!(
            "The live ranking keeps the best {k} members (fixed at creation); the others are read from the ledger."
        ),
        None => "The live ranking keeps every member.".to_owned(),
    };
    let error = move || edit.value().get().and_then(Result::err);
    view! {
        <details class="confirm" data-step="Board settings…">
            <summary class="button secondary">"Board settings…"</summary>
            <div class="confirm-body">
                <p>"Title, freeze grace, the public freeze and prizes may change; a period settled later uses the new prizes, settled ones keep theirs. With a public freeze, the public sees each period's standings as they were that long before its end, until you reveal them."</p>
                <ActionForm action=edit attr:class="stacked" attr:data-testid="board-settings">
                    <input type="hidden" name="board" value=slug/>
                    <label>"Title" <input name="title" value=title required/></label>
                    <FieldError error field="title"/>
                    <label>"Freeze grace (seconds)" <input name="freeze_grace_seconds" inputmode="numeric" value=freeze_grace_seconds/></label>
                    <FieldError error field="freeze_grace_seconds"/>
                    <label>"Public freeze before the end (seconds; 0: none)" <input name="public_freeze_seconds" inputmode="numeric" value=public_freeze_seconds/></label>
                    <FieldError error field="public_freeze_seconds"/>
                    <label>"Prizes, one range per line"
                        <textarea name="prizes" rows="3">{domain::board::prize_lines(&prizes)}</textarea>
                    </label>
                    <FieldError error field="prizes"/>
                    <label>"Days a settled period's live ranking is kept (then read from its standings)" <input name="ranking_ttl_days" inputmode="numeric" value=ranking_ttl_days/></label>
                    <FieldError error field="ranking_ttl_days"/>
                    <p class="hint">{bounded}</p>
                    <button type="submit">"Save settings"</button>
                </ActionForm>
            </div>
        </details>
        <ActionOutcome outcome=move || edit.value().get()/>
    }
}

/// The first 12 hex digits of a digest (the full one is in the settlement above and the API).
fn short(digest: &str) -> String {
    format!("{}…", digest.get(..12).unwrap_or(digest))
}
