use crate::api::admin::{Logout, read_signed_in};
use crate::api::attention::{read_activity, read_attention};
use crate::api::console::CreateBoard;
use crate::api::hot_console::CreateHotBoard;
use crate::api::read_hot_boards;
use crate::components::charts::grouped;
use crate::components::charts::sparkline::Sparkline;
use crate::components::console::{ActionOutcome, FieldError};
use crate::components::error_view::ErrorView;
use domain::view::{Attention, BoardActivity};
use leptos::prelude::*;
use leptos_meta::Title;

/// `/admin`: the console's front page — who is signed in, what needs attention first (each item a
/// link to the page that fixes it), the boards with their activity over the last day and a link
/// to each current period's console, the hot boards (each a link to its filter), and the forms that
/// create a board and a hot board.
#[component]
pub fn ConsolePage() -> impl IntoView {
    let who = Resource::new(|| (), |_| read_signed_in());
    let logout = ServerAction::<Logout>::new();
    view! {
        <Title text="Console"/>
        <h1>"Console"</h1>
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    who.await.map(|who| match who {
                        Some(actor) => view! {
                            <div class="console-bar">
                                <p data-testid="signed-in">"Signed in as " <strong>{actor}</strong></p>
                                <nav class="console-nav" aria-label="Console">
                                    <a href="/admin/audit">"Audit trail"</a>
                                    <a href="/admin/keys" data-testid="keys-link">"Ingest keys"</a>
                                </nav>
                                <ActionForm action=logout>
                                    <button type="submit" class="secondary">"Sign out"</button>
                                </ActionForm>
                            </div>
                            <NeedsAttention/>
                            <ConsoleBoards/>
                            <ConsoleHotBoards/>
                            <NewBoardForm/>
                            <NewHotBoardForm/>
                        }.into_any(),
                        None => view! {
                            <p data-testid="signed-out">
                                "You are not signed in. " <a href="/admin/login">"Sign in"</a>
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
    let attention = Resource::new(|| (), |_| read_attention());
    view! {
        <section class="attention" aria-labelledby="attention-title" data-testid="attention">
            <h2 id="attention-title">"Needs attention"</h2>
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                    {move || Suspend::new(async move { attention.await.map(|a| view! { <AttentionList a/> }) })}
                </ErrorBoundary>
            </Suspense>
        </section>
    }
}

#[component]
fn AttentionList(a: Attention) -> impl IntoView {
    if a.is_clear() {
        return view! { <p class="empty" data-testid="attention-clear">"Nothing needs attention."</p> }
            .into_any();
    }
    let period_page =
        |board: &domain::BoardSlug, period: &domain::PeriodKey| format!("/admin/b/{board}/{period}");
    let when = |t: jiff::Timestamp| t.strftime("%Y-%m-%d %H:%M UTC").to_string();
    let due = a
        .due
        .into_iter()
        .map(|d| {
            let href = period_page(&d.board, &d.period);
            let (action, why) = match d.state.as_str() {
                "frozen" => {
                    ("Settle", format!("frozen, to settle since its end plus grace ({})", when(d.due_at)))
                }
                _ => (
                    "Freeze",
                    format!(
                        "still open past its end plus grace ({}): the scheduler has not frozen it",
                        when(d.due_at)
                    ),
                ),
            };
            view! {
                <li data-attention="due" data-period=format!("{} {}", d.board, d.period)>
                    <span class="kind">"Due"</span>
                    <a href=href>{format!("{action} {} {}", d.board, d.period)}</a>
                    <span class="meta">{format!(" — {why}")}</span>
                </li>
            }
        })
        .collect_view();
    let late = a.late.into_iter().map(|l| {
        let href = format!("{}#late", period_page(&l.board, &l.period));
        let writes = if l.count == 1 { "late write".to_owned() } else { "late writes".to_owned() };
        view! {
            <li data-attention="late" data-period=format!("{} {}", l.board, l.period)>
                <span class="kind">"Late"</span>
                <a href=href rel="external">{format!("Review {} {writes} of {} {}", grouped(l.count as i64), l.board, l.period)}</a>
            </li>
        }
    }).collect_view();
    let rewards = a
        .rewards
        .into_iter()
        .map(|r| {
            let href = format!("{}#rewards", period_page(&r.board, &r.period));
            let mut what = Vec::new();
            if r.failed > 0 {
                what.push(format!("{} failed for good", grouped(r.failed as i64)));
            }
            if r.retrying > 0 {
                what.push(format!("{} retrying after a failed attempt", grouped(r.retrying as i64)));
            }
            view! {
                <li data-attention="rewards" data-period=format!("{} {}", r.board, r.period)>
                    <span class="kind">"Rewards"</span>
                    <a href=href rel="external">{format!("Rewards of {} {}", r.board, r.period)}</a>
                    <span class="meta">{format!(" — {}", what.join(", "))}</span>
                </li>
            }
        })
        .collect_view();
    let lagging = a.lagging.into_iter().map(|l| {
        let href = format!("{}#lifecycle", period_page(&l.board, &l.period));
        let how = if l.projected < l.ledger { "behind" } else { "ahead of" };
        view! {
            <li data-attention="lag" data-period=format!("{} {}", l.board, l.period)>
                <span class="kind">"Projection"</span>
                <a href=href rel="external">{format!("Rebuild {} {}", l.board, l.period)}</a>
                <span class="meta">{format!(" — Redis is {how} the ledger (version sums {} and {})", l.projected, l.ledger)}</span>
            </li>
        }
    }).collect_view();
    let keys = a.keys.into_iter().map(|k| view! {
        <li data-attention="key" data-key=k.id>
            <span class="kind">"Rate limit"</span>
            <a href="/admin/keys">{format!("Key {}…", k.prefix)}</a>
            <span class="meta">{format!(" — {} of {} requests left at once ({}/s)", k.burst_left, k.burst, k.rate_per_second)}</span>
        </li>
    }).collect_view();
    let redis = a.redis_unreadable.map(|why| view! {
        <li data-attention="redis">
            <span class="kind">"Redis"</span>
            {format!("Redis could not be read, so projection lag and rate limits were not checked: {why}")}
        </li>
    });
    let full = a.redis_full.map(|why| view! {
        <li data-attention="redis-full">
            <span class="kind">"Redis"</span>
            {format!("Redis is full ({why}): writes are recorded in the ledger, and rankings catch up once there is room — raise maxmemory or archive old periods")}
        </li>
    });
    view! { <ul class="attention-list">{due}{late}{rewards}{lagging}{keys}{redis}{full}</ul> }.into_any()
}

/// The boards, each with a link to its current period's console, that period's state and its
/// entries per hour over the last day.
#[component]
fn ConsoleBoards() -> impl IntoView {
    let boards = Resource::new(|| (), |_| read_activity());
    view! {
        <h2>"Boards"</h2>
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    boards.await.map(|boards| {
                        if boards.is_empty() {
                            return view! { <p class="empty">"No boards yet; create one below."</p> }.into_any();
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
    let boards = Resource::new(|| (), |_| read_hot_boards());
    view! {
        <Suspense fallback=|| ()>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    boards.await.map(|boards| (!boards.is_empty()).then(|| view! {
                        <h2>"Hot boards"</h2>
                        <ul class="boards" data-testid="console-hot-boards">
                            {boards.into_iter().map(|b| view! {
                                <li data-board=b.slug.to_string()>
                                    <a href=format!("/admin/hot/{}", b.slug)>{b.title}</a>
                                    <span class="meta">{format!(" {} · {}", b.slug, b.window)}</span>
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
    let BoardActivity { board, state, since, per_hour } = b;
    let hour = |i: usize| {
        let start = since + jiff::SignedDuration::from_hours(i as i64);
        start.strftime("%H:00").to_string()
    };
    let steps: Vec<String> = (0..per_hour.len()).map(hour).collect();
    let total: u64 = per_hour.iter().sum();
    let label = match per_hour.iter().enumerate().max_by_key(|(i, v)| (**v, std::cmp::Reverse(*i))) {
        Some((peak, &most)) if most > 0 => format!(
            "Entries per hour over the last 24 hours (UTC): {} in all, at most {} in the hour from {}, {} so far this hour",
            grouped(total as i64),
            grouped(most as i64),
            steps[peak],
            grouped(*per_hour.last().unwrap_or(&0) as i64),
        ),
        _ => "Entries per hour over the last 24 hours (UTC): none".to_owned(),
    };
    let caption = format!(
        "{}: entries per hour, UTC, from {} (the last hour still running)",
        board.title,
        steps.first().cloned().unwrap_or_default()
    );
    view! {
        <li data-board=board.slug.to_string()>
            <div class="board-line">
                <a href=format!("/admin/b/{}/{}", board.slug, board.current_period)>{board.title.clone()}</a>
                " "
                <span class=format!("state state-{state}") data-testid="board-state">{state.as_str()}</span>
                <span class="meta">
                    {format!(" {} · {} · {} · {} · {}", board.slug, board.cadence, board.operator, board.tie_policy, board.current_period)}
                </span>
            </div>
            <div class="board-activity">
                <Sparkline values=per_hour label caption steps/>
                <span class="meta" aria-hidden="true">{format!("{} in 24 h", grouped(total as i64))}</span>
            </div>
        </li>
    }
    .into_any()
}

/// The board form. Every field is checked on the server by the same parser as the REST API; the
/// refusal is shown next to the field it names.
#[component]
fn NewBoardForm() -> impl IntoView {
    let create = ServerAction::<CreateBoard>::new();
    let error = move || create.value().get().and_then(Result::err);
    view! {
        <h2>"New board"</h2>
        <ActionForm action=create attr:class="stacked board-form" attr:data-testid="new-board">
            <label>"Slug" <input name="slug" required placeholder="weekly-sprint" autocomplete="off"/></label>
            <FieldError error field="slug"/>
            <label>"Title" <input name="title" required/></label>
            <FieldError error field="title"/>
            <label>"Cadence"
                <select name="cadence">
                    <option value="weekly">"weekly (ISO week)"</option>
                    <option value="daily">"daily"</option>
                    <option value="monthly">"monthly"</option>
                </select>
            </label>
            <FieldError error field="cadence"/>
            <label>"Time zone" <input name="time_zone" value="UTC" required placeholder="Asia/Shanghai"/></label>
            <FieldError error field="time_zone"/>
            <label>"Operator"
                <select name="operator">
                    <option value="incr">"incr — points add up"</option>
                    <option value="set">"set — the host sends totals"</option>
                    <option value="best">"best — the best submission counts"</option>
                </select>
            </label>
            <FieldError error field="operator"/>
            <label>"Ties"
                <select name="tie_policy">
                    <option value="shared">"shared — equal points share a rank (1, 2, 2, 4)"</option>
                    <option value="first_reached">"first_reached — who got there first ranks higher"</option>
                </select>
            </label>
            <FieldError error field="tie_policy"/>
            <label>"Order"
                <select name="sort">
                    <option value="desc">"desc — more points rank first"</option>
                    <option value="asc">"asc — lower is better (times, strokes)"</option>
                </select>
            </label>
            <FieldError error field="sort"/>
            <label>"Unit"
                <select name="unit">
                    <option value="points">"points"</option>
                    <option value="ms">"ms — shown as times (1:02.345)"</option>
                </select>
            </label>
            <FieldError error field="unit"/>
            <label>"Highest total" <input name="max_points" inputmode="numeric" required value="1000000"/></label>
            <label>"Lowest total" <input name="min_points" inputmode="numeric" placeholder="0"/></label>
            <label>"Tie base" <input name="tie_base" inputmode="numeric" placeholder="1000000 under first_reached"/></label>
            <p class="hint">
                "Scores must stay exact in Redis: under first_reached, the highest total × the tie base must stay below 2^53."
            </p>
            <FieldError error field="max_points"/>
            <FieldError error field="min_points"/>
            <FieldError error field="tie_base"/>
            <label>"Freeze grace (seconds)" <input name="freeze_grace_seconds" inputmode="numeric" placeholder="300"/></label>
            <FieldError error field="freeze_grace_seconds"/>
            <label>"Keep only the top (members in the live ranking; blank: all)" <input name="keep_top" inputmode="numeric" placeholder="all"/></label>
            <FieldError error field="keep_top"/>
            <label>"Prizes, one range per line"
                <textarea name="prizes" rows="3" placeholder="1: Gold\n2-3: Silver"></textarea>
            </label>
            <FieldError error field="prizes"/>
            <button type="submit">"Create board"</button>
        </ActionForm>
        <ActionOutcome outcome=move || create.value().get().map(|r| r.map(|()| "Board created.".to_owned()))/>
    }
}

/// The form that creates a hot board: a ranking over a sliding window of time buckets (trending
/// searches). Its filter is set afterwards, on the board's console page it opens.
#[component]
fn NewHotBoardForm() -> impl IntoView {
    let create = ServerAction::<CreateHotBoard>::new();
    let error = Signal::derive(move || create.value().get().and_then(Result::err));
    view! {
        <h2>"New hot board"</h2>
        <ActionForm action=create attr:class="stacked" attr:data-testid="new-hot-board">
            <label>"Slug" <input name="slug" required pattern="[a-z0-9][a-z0-9-]*" placeholder="trending"/></label>
            <FieldError error field="hot_slug"/>
            <label>"Title" <input name="title" required maxlength="200" placeholder="Trending searches"/></label>
            <FieldError error field="hot_title"/>
            <label>"Bucket"
                <select name="bucket_seconds">
                    <option value="60">"a minute"</option>
                    <option value="3600" selected>"an hour"</option>
                    <option value="86400">"a day"</option>
                </select>
            </label>
            <label>"Buckets in the window (1–288)" <input name="window_buckets" inputmode="numeric" value="24"/></label>
            <FieldError error field="window_buckets"/>
            <label>"Hits"
                <select name="write_mode">
                    <option value="count">"count — hits add up (searches, clicks)"</option>
                    <option value="best">"best — a score that may only rise within a bucket"</option>
                </select>
            </label>
            <label>"Most hits one actor counts per interval (blank: no cap)" <input name="actor_cap" inputmode="numeric"/></label>
            <FieldError error field="actor_cap"/>
            <label>"Action weights, one per line (blank: none)"
                <textarea name="action_weights" rows="3" placeholder="search: 1\nclick: 3"></textarea>
            </label>
            <FieldError error field="action_weights"/>
            <p class="hint">"Bucket keys live 1.5 × the window. Hits and the public list work as for boards made over the API."</p>
            <button type="submit">"Create hot board"</button>
        </ActionForm>
        <ActionOutcome outcome=move || create.value().get().map(|r| r.map(|()| "Hot board created.".to_owned()))/>
    }
}
