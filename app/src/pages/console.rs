use crate::api::admin::{Logout, read_signed_in};
use crate::api::console::{CreateBoard, read_boards};
use crate::components::console::{ActionOutcome, FieldError};
use crate::components::error_view::ErrorView;
use leptos::prelude::*;
use leptos_meta::Title;

/// `/admin`: the console's front page — who is signed in, the boards with a link to each current
/// period's console, and the form that creates a board.
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
                            <ConsoleBoards/>
                            <NewBoardForm/>
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

#[component]
fn ConsoleBoards() -> impl IntoView {
    let boards = Resource::new(|| (), |_| read_boards());
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
                            <ul class="boards">
                                {boards.into_iter().map(|b| view! {
                                    <li>
                                        <a href=format!("/admin/b/{}/{}", b.slug, b.current_period)>{b.title.clone()}</a>
                                        <span class="meta">
                                            {format!(" {} · {} · {} · {} · {}", b.slug, b.cadence, b.operator, b.tie_policy, b.current_period)}
                                        </span>
                                    </li>
                                }).collect_view()}
                            </ul>
                        }.into_any()
                    })
                })}
            </ErrorBoundary>
        </Suspense>
    }
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
            <label>"Prizes, one range per line"
                <textarea name="prizes" rows="3" placeholder="1: Gold\n2-3: Silver"></textarea>
            </label>
            <FieldError error field="prizes"/>
            <button type="submit">"Create board"</button>
        </ActionForm>
        <ActionOutcome outcome=move || create.value().get().map(|r| r.map(|()| "Board created.".to_owned()))/>
    }
}
