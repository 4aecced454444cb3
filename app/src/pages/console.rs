use crate::api::admin::{Logout, read_signed_in};
use crate::api::attention::{read_activity, read_attention};
use crate::api::console::CreateBoard;
use crate::api::hot_console::CreateHotBoard;
use crate::api::read_hot_boards;
use crate::api::seasons::CreateSeason;
use crate::components::charts::sparkline::Sparkline;
use crate::components::console::{ActionOutcome, FieldError};
use crate::components::error_view::ErrorView;
use crate::i18n::{Locale, Say, tr};
use domain::view::{
    Attention, BoardActivity, DuePeriod, KeyNearLimit, PeriodCount, ProjectionLag, RewardTrouble,
};
use leptos::prelude::*;
use leptos_meta::Title;

/// `/admin`: the console's front page — who is signed in, what needs attention first (each item a
/// link to the page that fixes it), the boards with their activity over the last day and a link
/// to each current period's console, the hot boards (each a link to its filter), and the forms that
/// create a board and a hot board.
#[component]
pub fn ConsolePage() -> impl IntoView {
    let l = crate::i18n::locale();
    let who = Resource::new(|| (), |_| read_signed_in());
    let logout = ServerAction::<Logout>::new();
    view! {
        <Title text=tr!(l, "console-title")/>
        <h1>{tr!(l, "console-title")}</h1>
        <Suspense fallback=move || view! { <p>{tr!(l, "console-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    who.await.map(|who| match who {
                        Some(actor) => view! {
                            <div class="console-bar">
                                <p data-testid="signed-in">
                                    {tr!(l, "console-signed-in-as")} " " <strong>{actor}</strong>
                                </p>
                                <nav class="console-nav" aria-label=tr!(l, "console-title")>
                                    <a href="/admin/audit">{tr!(l, "console-audit-link")}</a>
                                    <a href="/admin/keys" data-testid="keys-link">{tr!(l, "console-keys-link")}</a>
                                </nav>
                                <ActionForm action=logout>
                                    <button type="submit" class="secondary">{tr!(l, "console-sign-out")}</button>
                                </ActionForm>
                            </div>
                            <NeedsAttention/>
                            <ConsoleBoards/>
                            <ConsoleHotBoards/>
                            <NewBoardForm/>
                            <NewSeasonForm/>
                            <NewHotBoardForm/>
                        }.into_any(),
                        None => view! {
                            <p data-testid="signed-out">
                                {tr!(l, "console-signed-out")} " "
                                <a href="/admin/login">{tr!(l, "console-sign-in")}</a>
                            </p>
                        }.into_any(),
                    })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// What needs an admin first: due periods, late writes to review, undelivered rewards,
/// projections not level with the ledger and keys near their limit — each a link to where it is
/// fixed (the period console's sections: `#late`, `#rewards`, `#lifecycle` for a rebuild; the keys
/// page). A link to a section is a full load (`rel="external"`: the router leaves it alone), so the
/// browser scrolls to the section in the page the server rendered whole.
#[component]
fn NeedsAttention() -> impl IntoView {
    let l = crate::i18n::locale();
    let attention = Resource::new(|| (), |_| read_attention());
    view! {
        <section class="attention" aria-labelledby="attention-title" data-testid="attention">
            <h2 id="attention-title">{tr!(l, "console-attention-title")}</h2>
            <Suspense fallback=move || view! { <p>{tr!(l, "console-loading")}</p> }>
                <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                    {move || Suspend::new(async move { attention.await.map(|a| view! { <AttentionList a/> }) })}
                </ErrorBoundary>
            </Suspense>
        </section>
    }
}

/// The items that need attention, kind by kind (or that nothing does).
#[component]
fn AttentionList(a: Attention) -> impl IntoView {
    let l = crate::i18n::locale();
    if a.is_clear() {
        return view! { <p class="empty" data-testid="attention-clear">{tr!(l, "console-attention-clear")}</p> }
            .into_any();
    }
    let due = a.due.into_iter().map(|d| due_item(l, d)).collect_view();
    let late = a.late.into_iter().map(|late| late_item(l, late)).collect_view();
    let rewards = a.rewards.into_iter().map(|r| rewards_item(l, r)).collect_view();
    let lagging = a.lagging.into_iter().map(|lag| lag_item(l, lag)).collect_view();
    let keys = a.keys.into_iter().map(|k| key_item(l, k)).collect_view();
    // `why` is the Redis client's own message, in English.
    let redis = a.redis_unreadable.map(|why| {
        view! {
            <li data-attention="redis">
                <span class="kind">{tr!(l, "console-kind-redis")}</span>
                {tr!(l, "console-redis-unreadable", why = why)}
            </li>
        }
    });
    let full = a.redis_full.map(|why| {
        view! {
            <li data-attention="redis-full">
                <span class="kind">{tr!(l, "console-kind-redis")}</span>
                {tr!(l, "console-redis-full", why = why)}
            </li>
        }
    });
    view! { <ul class="attention-list">{due}{late}{rewards}{lagging}{keys}{redis}{full}</ul> }.into_any()
}

/// The period console of a board's period, where every item about a period is fixed.
fn period_page(board: &domain::BoardSlug, period: &domain::PeriodKey) -> String {
    format!("/admin/b/{board}/{period}")
}

/// A period past its end and grace: to freeze (the scheduler has not), or to settle.
fn due_item(l: Locale, d: DuePeriod) -> impl IntoView + use<> {
    let href = period_page(&d.board, &d.period);
    // UTC in figures, as every language writes them (the item names the zone).
    let at = d.due_at.strftime("%Y-%m-%d %H:%M UTC").to_string();
    let (board, period) = (d.board.to_string(), d.period.to_string());
    let (link, why) = match d.state.as_str() {
        "frozen" => (
            tr!(l, "console-due-settle", board = board, period = period),
            tr!(l, "console-due-settle-why", at = at),
        ),
        _ => (
            tr!(l, "console-due-freeze", board = board, period = period),
            tr!(l, "console-due-freeze-why", at = at),
        ),
    };
    view! {
        <li data-attention="due" data-period=format!("{} {}", d.board, d.period)>
            <span class="kind">{tr!(l, "console-kind-due")}</span>
            <a href=href>{link}</a>
            <span class="meta">{format!(" — {why}")}</span>
        </li>
    }
}

/// A period's late writes waiting for a decision, linked to their review.
fn late_item(l: Locale, late: PeriodCount) -> impl IntoView + use<> {
    let href = format!("{}#late", period_page(&late.board, &late.period));
    let link = tr!(
        l,
        "console-late-review",
        count = late.count,
        shown = l.number(late.count as i64),
        board = late.board.to_string(),
        period = late.period.to_string(),
    );
    view! {
        <li data-attention="late" data-period=format!("{} {}", late.board, late.period)>
            <span class="kind">{tr!(l, "console-kind-late")}</span>
            <a href=href rel="external">{link}</a>
        </li>
    }
}

/// A period's rewards that failed for good or are being retried, linked to their deliveries.
fn rewards_item(l: Locale, r: RewardTrouble) -> impl IntoView + use<> {
    let href = format!("{}#rewards", period_page(&r.board, &r.period));
    let mut what = Vec::new();
    if r.failed > 0 {
        what.push(tr!(l, "console-rewards-failed", count = l.number(r.failed as i64)));
    }
    if r.retrying > 0 {
        what.push(tr!(l, "console-rewards-retrying", count = l.number(r.retrying as i64)));
    }
    let link = tr!(l, "console-rewards-of", board = r.board.to_string(), period = r.period.to_string());
    view! {
        <li data-attention="rewards" data-period=format!("{} {}", r.board, r.period)>
            <span class="kind">{tr!(l, "console-kind-rewards")}</span>
            <a href=href rel="external">{link}</a>
            <span class="meta">{format!(" — {}", what.join(&tr!(l, "console-list-separator")))}</span>
        </li>
    }
}

/// A live period whose projection is behind or ahead of the ledger, linked to its rebuild.
fn lag_item(l: Locale, lag: ProjectionLag) -> impl IntoView + use<> {
    let href = format!("{}#lifecycle", period_page(&lag.board, &lag.period));
    let (projected, ledger) = (lag.projected.to_string(), lag.ledger.to_string());
    let how = if lag.projected < lag.ledger {
        tr!(l, "console-lag-behind", projected = projected, ledger = ledger)
    } else {
        tr!(l, "console-lag-ahead", projected = projected, ledger = ledger)
    };
    let link = tr!(l, "console-lag-rebuild", board = lag.board.to_string(), period = lag.period.to_string());
    view! {
        <li data-attention="lag" data-period=format!("{} {}", lag.board, lag.period)>
            <span class="kind">{tr!(l, "console-kind-projection")}</span>
            <a href=href rel="external">{link}</a>
            <span class="meta">{format!(" — {how}")}</span>
        </li>
    }
}

/// An ingest key with little of its burst left, linked to the keys page.
fn key_item(l: Locale, k: KeyNearLimit) -> impl IntoView + use<> {
    let left = tr!(
        l,
        "console-key-left",
        left = k.burst_left.to_string(),
        burst = k.burst.to_string(),
        rate = k.rate_per_second.to_string(),
    );
    view! {
        <li data-attention="key" data-key=k.id>
            <span class="kind">{tr!(l, "console-kind-rate-limit")}</span>
            <a href="/admin/keys">{tr!(l, "console-key", prefix = k.prefix)}</a>
            <span class="meta">{format!(" — {left}")}</span>
        </li>
    }
}

/// The boards, each with a link to its current period's console, that period's state and its
/// entries per hour over the last day.
#[component]
fn ConsoleBoards() -> impl IntoView {
    let l = crate::i18n::locale();
    let boards = Resource::new(|| (), |_| read_activity());
    view! {
        <h2>{tr!(l, "console-boards")}</h2>
        <Suspense fallback=move || view! { <p>{tr!(l, "console-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    boards.await.map(|boards| {
                        if boards.is_empty() {
                            return view! { <p class="empty">{tr!(l, "console-no-boards")}</p> }.into_any();
                        }
                        view! {
                            <ul class="boards activity">
                                {boards.into_iter().map(|b| view! { <BoardLine b/> }).collect_view()}
                            </ul>
                        }.into_any()
                    })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// The hot boards, each a link to its console page (its hit filter). Absent when there are none.
#[component]
fn ConsoleHotBoards() -> impl IntoView {
    let l = crate::i18n::locale();
    let boards = Resource::new(|| (), |_| read_hot_boards());
    view! {
        <Suspense fallback=|| ()>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    boards.await.map(|boards| (!boards.is_empty()).then(|| view! {
                        <h2>{tr!(l, "console-hot-boards")}</h2>
                        <ul class="boards" data-testid="console-hot-boards">
                            {boards.into_iter().map(|b| view! {
                                <li data-board=b.slug.to_string()>
                                    <a href=format!("/admin/hot/{}", b.slug)>{b.title}</a>
                                    <span class="meta">{format!(" {} · {}", b.slug, crate::pages::hot::window_said(l, &b.window_words))}</span>
                                </li>
                            }).collect_view()}
                        </ul>
                    }))
                })}
            </ErrorBoundary>
        </Suspense>
    }
}

#[component]
fn BoardLine(b: BoardActivity) -> impl IntoView {
    let l = crate::i18n::locale();
    let BoardActivity { board, state, since, per_hour } = b;
    let hour = |i: usize| {
        let start = since + jiff::SignedDuration::from_hours(i as i64);
        start.strftime("%H:00").to_string()
    };
    let steps: Vec<String> = (0..per_hour.len()).map(hour).collect();
    let total: u64 = per_hour.iter().sum();
    let label = match per_hour.iter().enumerate().max_by_key(|(i, v)| (**v, std::cmp::Reverse(*i))) {
        Some((peak, &most)) if most > 0 => tr!(
            l,
            "console-activity",
            total = l.number(total as i64),
            most = l.number(most as i64),
            peak = steps[peak].clone(),
            now = l.number(*per_hour.last().unwrap_or(&0) as i64),
        ),
        _ => tr!(l, "console-activity-none"),
    };
    let caption = tr!(
        l,
        "console-activity-caption",
        board = board.title.clone(),
        from = steps.first().cloned().unwrap_or_default(),
    );
    view! {
        <li data-board=board.slug.to_string()>
            <div class="board-line">
                <a href=format!("/admin/b/{}/{}", board.slug, board.current_period)>{board.title.clone()}</a>
                " "
                <span class=format!("state state-{state}") data-testid="board-state">{l.state(state)}</span>
                <span class="meta">
                    {format!(" {} · {} · {} · {} · {}", board.slug, board.cadence, board.operator, board.tie_policy, board.current_period)}
                </span>
            </div>
            <div class="board-activity">
                <Sparkline values=per_hour label caption steps/>
                <span class="meta" aria-hidden="true">{tr!(l, "console-activity-total", total = l.number(total as i64))}</span>
            </div>
        </li>
    }
    .into_any()
}

/// The board form. Every field is checked on the server by the same parser as the REST API; the
/// refusal is shown next to the field it names.
#[component]
fn NewBoardForm() -> impl IntoView {
    let l = crate::i18n::locale();
    let create = ServerAction::<CreateBoard>::new();
    let error = move || create.value().get().and_then(Result::err);
    view! {
        <h2>{tr!(l, "console-new-board")}</h2>
        <ActionForm action=create attr:class="stacked board-form" attr:data-testid="new-board">
            <label>{tr!(l, "console-field-slug")} <input name="slug" required placeholder="weekly-sprint" autocomplete="off"/></label>
            <FieldError error field="slug"/>
            <label>{tr!(l, "console-field-title")} <input name="title" required/></label>
            <FieldError error field="title"/>
            <label>{tr!(l, "console-field-cadence")}
                <select name="cadence">
                    <option value="weekly">{tr!(l, "console-cadence-weekly")}</option>
                    <option value="daily">{tr!(l, "console-cadence-daily")}</option>
                    <option value="monthly">{tr!(l, "console-cadence-monthly")}</option>
                </select>
            </label>
            <FieldError error field="cadence"/>
            <label>{tr!(l, "console-field-time-zone")} <input name="time_zone" value="UTC" required placeholder="Asia/Shanghai"/></label>
            <FieldError error field="time_zone"/>
            <label>{tr!(l, "console-field-operator")}
                <select name="operator">
                    <option value="incr">{tr!(l, "console-operator-incr")}</option>
                    <option value="set">{tr!(l, "console-operator-set")}</option>
                    <option value="best">{tr!(l, "console-operator-best")}</option>
                </select>
            </label>
            <FieldError error field="operator"/>
            <label>{tr!(l, "console-field-ties")}
                <select name="tie_policy">
                    <option value="shared">{tr!(l, "console-ties-shared")}</option>
                    <option value="first_reached">{tr!(l, "console-ties-first-reached")}</option>
                </select>
            </label>
            <FieldError error field="tie_policy"/>
            <label>{tr!(l, "console-field-order")}
                <select name="sort">
                    <option value="desc">{tr!(l, "console-order-desc")}</option>
                    <option value="asc">{tr!(l, "console-order-asc")}</option>
                </select>
            </label>
            <FieldError error field="sort"/>
            <label>{tr!(l, "console-field-unit")}
                <select name="unit">
                    <option value="points">{tr!(l, "console-unit-points")}</option>
                    <option value="ms">{tr!(l, "console-unit-ms")}</option>
                </select>
            </label>
            <FieldError error field="unit"/>
            <label>{tr!(l, "console-field-max-points")} <input name="max_points" inputmode="numeric" required value="1000000"/></label>
            <label>{tr!(l, "console-field-min-points")} <input name="min_points" inputmode="numeric" placeholder="0"/></label>
            <label>{tr!(l, "console-field-tie-base")} <input name="tie_base" inputmode="numeric" placeholder=tr!(l, "console-tie-base-placeholder")/></label>
            <p class="hint">
                {tr!(l, "console-scores-hint")}
            </p>
            <FieldError error field="max_points"/>
            <FieldError error field="min_points"/>
            <FieldError error field="tie_base"/>
            <label>{tr!(l, "console-field-freeze-grace")} <input name="freeze_grace_seconds" inputmode="numeric" placeholder="300"/></label>
            <FieldError error field="freeze_grace_seconds"/>
            <label>{tr!(l, "console-field-keep-top")} <input name="keep_top" inputmode="numeric" placeholder=tr!(l, "console-keep-top-placeholder")/></label>
            <FieldError error field="keep_top"/>
            <label>{tr!(l, "console-field-prizes")}
                <textarea name="prizes" rows="3" placeholder=tr!(l, "console-prizes-placeholder")></textarea>
            </label>
            <FieldError error field="prizes"/>
            <label>{tr!(l, "console-field-segments")} <input name="segments" autocomplete="off" placeholder="province, class"/></label>
            <p class="hint">{tr!(l, "console-segments-hint")}</p>
            <FieldError error field="segments"/>
            <label>{tr!(l, "console-field-segment-prizes")}
                <textarea name="segment_prizes" rows="3" placeholder="province 1-3: Medal"></textarea>
            </label>
            <FieldError error field="segment_prizes"/>
            <button type="submit">{tr!(l, "console-create-board")}</button>
        </ActionForm>
        <ActionOutcome outcome=move || create.value().get().map(|r| r.map(|()| tr!(l, "console-board-created")))/>
    }
}

/// The form that creates a season: a board made of another board's periods (docs/SEASONS.md).
/// The rule's parameter is typed in the field of its kind; the server checks every field.
#[component]
fn NewSeasonForm() -> impl IntoView {
    let l = crate::i18n::locale();
    let create = ServerAction::<CreateSeason>::new();
    let error = move || create.value().get().and_then(Result::err);
    view! {
        <h2>{tr!(l, "console-new-season")}</h2>
        <ActionForm action=create attr:class="stacked" attr:data-testid="new-season">
            <label>{tr!(l, "console-field-slug")} <input name="slug" required placeholder="q1-2027" autocomplete="off"/></label>
            <FieldError error field="slug"/>
            <label>{tr!(l, "console-field-title")} <input name="title" required/></label>
            <FieldError error field="title"/>
            <label>{tr!(l, "console-field-season-source")} <input name="source" required placeholder="weekly" autocomplete="off"/></label>
            <FieldError error field="source"/>
            <label>{tr!(l, "console-field-season-from")} <input name="from" type="date"/></label>
            <label>{tr!(l, "console-field-season-to")} <input name="to" type="date"/></label>
            <FieldError error field="from"/>
            <FieldError error field="to"/>
            <label>{tr!(l, "console-field-season-periods")} <input name="periods" autocomplete="off" placeholder="2027-W01, 2027-W02"/></label>
            <p class="hint">{tr!(l, "console-season-periods-hint")}</p>
            <FieldError error field="periods"/>
            <label>{tr!(l, "console-field-season-rule")}
                <select name="rule">
                    <option value="sum">{tr!(l, "console-season-rule-sum")}</option>
                    <option value="best">{tr!(l, "console-season-rule-best")}</option>
                    <option value="weighted">{tr!(l, "console-season-rule-weighted")}</option>
                    <option value="placement">{tr!(l, "console-season-rule-placement")}</option>
                </select>
            </label>
            <label>{tr!(l, "console-field-season-k")} <input name="k" inputmode="numeric" placeholder="10"/></label>
            <FieldError error field="k"/>
            <label>{tr!(l, "console-field-season-weights")} <input name="weights" autocomplete="off" placeholder="1, 1, 2"/></label>
            <FieldError error field="weights"/>
            <label>{tr!(l, "console-field-season-points")} <input name="points" autocomplete="off" placeholder="25, 18, 15"/></label>
            <FieldError error field="points"/>
            <FieldError error field="rule"/>
            <label>{tr!(l, "console-field-ties")}
                <select name="tie_policy">
                    <option value="shared">{tr!(l, "console-ties-shared")}</option>
                    <option value="first_reached">{tr!(l, "console-ties-first-reached")}</option>
                </select>
            </label>
            <FieldError error field="tie_policy"/>
            <label>{tr!(l, "console-field-prizes")}
                <textarea name="prizes" rows="3" placeholder=tr!(l, "console-prizes-placeholder")></textarea>
            </label>
            <FieldError error field="prizes"/>
            <fieldset>
                <legend>{tr!(l, "console-season-carry-over")}</legend>
                <p class="hint">{tr!(l, "console-season-carry-over-hint")}</p>
                <label>{tr!(l, "console-field-carry-from")} <input name="carry_from" autocomplete="off" placeholder="q4-2026"/></label>
                <label>{tr!(l, "console-field-carry-share")} <input name="carry_share" inputmode="numeric" placeholder="50"/></label>
                <label>{tr!(l, "console-field-carry-floor")} <input name="carry_floor" inputmode="numeric" placeholder="0"/></label>
            </fieldset>
            <FieldError error field="carry_over"/>
            <button type="submit">{tr!(l, "console-create-season")}</button>
        </ActionForm>
        <ActionOutcome outcome=move || create.value().get().map(|r| r.map(|()| tr!(l, "console-season-created")))/>
    }
}

/// The form that creates a hot board: a ranking over a sliding window of time buckets (trending
/// searches). Its filter is set afterwards, on the board's console page it opens.
#[component]
fn NewHotBoardForm() -> impl IntoView {
    let l = crate::i18n::locale();
    let create = ServerAction::<CreateHotBoard>::new();
    let error = Signal::derive(move || create.value().get().and_then(Result::err));
    view! {
        <h2>{tr!(l, "console-new-hot-board")}</h2>
        <ActionForm action=create attr:class="stacked" attr:data-testid="new-hot-board">
            <label>{tr!(l, "console-field-slug")} <input name="slug" required pattern="[a-z0-9][a-z0-9-]*" placeholder="trending"/></label>
            <FieldError error field="hot_slug"/>
            <label>{tr!(l, "console-field-title")} <input name="title" required maxlength="200" placeholder=tr!(l, "console-hot-title-placeholder")/></label>
            <FieldError error field="hot_title"/>
            <label>{tr!(l, "console-field-bucket")}
                <select name="bucket_seconds">
                    <option value="60">{tr!(l, "console-bucket-minute")}</option>
                    <option value="3600" selected>{tr!(l, "console-bucket-hour")}</option>
                    <option value="86400">{tr!(l, "console-bucket-day")}</option>
                </select>
            </label>
            <label>{tr!(l, "console-field-window-buckets")} <input name="window_buckets" inputmode="numeric" value="24"/></label>
            <FieldError error field="window_buckets"/>
            <label>{tr!(l, "console-field-hits")}
                <select name="write_mode">
                    <option value="count">{tr!(l, "console-hits-count")}</option>
                    <option value="best">{tr!(l, "console-hits-best")}</option>
                </select>
            </label>
            <label>{tr!(l, "console-field-actor-cap")} <input name="actor_cap" inputmode="numeric"/></label>
            <FieldError error field="actor_cap"/>
            <label>{tr!(l, "console-field-action-weights")}
                <textarea name="action_weights" rows="3" placeholder="search: 1\nclick: 3"></textarea>
            </label>
            <FieldError error field="action_weights"/>
            <p class="hint">{tr!(l, "console-hot-hint")}</p>
            <button type="submit">{tr!(l, "console-create-hot-board")}</button>
        </ActionForm>
        <ActionOutcome outcome=move || create.value().get().map(|r| r.map(|()| tr!(l, "console-hot-board-created")))/>
    }
}
