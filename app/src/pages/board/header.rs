//! The top of the board page, above whatever view the query string asks for: the board's name
//! and the period's state, the period switcher, "me" and the tools (find me, pin this view).

use super::segment_input;
use crate::api::PinView;
use crate::api::contestant::MyLive;
use crate::components::countdown::CountdownIsland;
use crate::components::live::state_word;
use crate::components::segments::segment_query;
use crate::i18n::{Clock, Say, tr};
use domain::PeriodKey;
use domain::segment::Segment;
use domain::view::PeriodInfo;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;

/// The page's title, the board's name and the period's state with its end (a countdown while
/// open): the same on every view of the period.
#[component]
pub(super) fn BoardHeader(
    title: String,
    period: PeriodKey,
    /// The state word of the read that gave the rows.
    state: String,
    ends_at: jiff::Timestamp,
    /// The board's time zone, the end's.
    zone: String,
) -> impl IntoView {
    let l = crate::i18n::locale();
    // The period's end in the board's zone, in the reader's language.
    let ends_local = l.time(ends_at, &zone, Clock::Minute);
    view! {
        <Title text=format!("{title} · {period}")/>
        <h1>{title}</h1>
        <p class="meta">
            <span class=format!("state state-{state}")>{state_word(l, &state)}</span>
            {tr!(l, "board-period-label", period = period.to_string())}
            {if state == "open" {
                view! {
                    <CountdownIsland ends_at/>
                    {tr!(l, "board-ends-at", ends = ends_local, zone = zone.clone())}
                }.into_any()
            } else if ends_at > jiff::Timestamp::now() {
                // Frozen (or settled) before its end: the end is still to come.
                let words = tr!(
                    l,
                    "board-ended-early",
                    state = state.clone(),
                    word = state_word(l, &state),
                    ends = ends_local,
                    zone = zone.clone(),
                );
                view! { {words} }.into_any()
            } else {
                view! { {tr!(l, "board-ended", ends = ends_local, zone = zone.clone())} }.into_any()
            }}
        </p>
    }
}

/// The way to the board's other periods: "←" (never past the board's first period), the list
/// to pick from (a plain GET form), "→" up to the current period, and the current one.
#[component]
pub(super) fn PeriodSwitcher(
    slug: String,
    period: PeriodKey,
    current: PeriodKey,
    /// The board's first period: the oldest it has rows for.
    first: PeriodKey,
    /// None: the list could not be read, which is said rather than shown empty.
    periods: Option<Vec<PeriodInfo>>,
    /// The segment shown, which every link and form keeps.
    segment: Option<Segment>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let (prev, next) = (period.previous(), period.next());
    // `?segment=…` for a link with no other query.
    let seg_only = segment.as_ref().map(|s| format!("?segment={s}")).unwrap_or_default();
    let seg_input = segment_input(segment.as_ref());
    view! {
        <nav class="periods" aria-label=tr!(l, "board-periods")>
            {(period > first).then(|| view! { <a href=format!("/b/{slug}/{prev}{seg_only}") rel="prev">{format!("← {prev}")}</a> })}
            <Form action=format!("/b/{slug}") method="get">
                {seg_input}
                {match periods {
                    Some(periods) => view! {
                        <label for="period-pick" class="visually-hidden">{tr!(l, "board-period-pick")}</label>
                        <select id="period-pick" name="period">
                            {periods.iter().map(|p| {
                                let selected = p.period == period;
                                let text = tr!(
                                    l,
                                    "board-period-option",
                                    period = p.period.to_string(),
                                    state = state_word(l, p.state.as_str()),
                                );
                                view! { <option value=p.period.to_string() selected=selected>{text}</option> }
                            }).collect_view()}
                        </select>
                        <button type="submit" class="secondary">{tr!(l, "board-go")}</button>
                    }.into_any(),
                    None => view! {
                        <span class="error" role="alert">{tr!(l, "board-periods-unread")}</span>
                    }.into_any(),
                }}
            </Form>
            {(period < current).then(|| view! { <a href=format!("/b/{slug}/{next}{seg_only}") rel="next">{format!("{next} →")}</a> })}
            {(period != current).then(|| view! { <a href=format!("/b/{slug}{seg_only}")>{tr!(l, "board-current-period")}</a> })}
        </nav>
    }
}

/// "You are …" for a signed link's contestant: their page, the ranking around them and, during
/// a public freeze, their own live points, which the frozen table does not show. Nothing without
/// a signed link.
#[component]
pub(super) fn MeLine(
    me: Option<String>,
    my_live: Option<MyLive>,
    /// `/b/{board}/{period}`.
    base: String,
    segment: Option<Segment>,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    // `&segment=…`: "around me" stays in the segment shown.
    let seg_q = segment_query(segment.as_ref());
    me.map(|me| view! {
        <p class="me" data-testid="me">
            {tr!(l, "board-you-are")} <strong>{me.clone()}</strong> {tr!(l, "board-you-are-end")}
            <a href=format!("{base}/m/{me}")>{tr!(l, "board-my-page")}</a> " · "
            <a href=format!("?find={me}{seg_q}")>{tr!(l, "board-around-me")}</a>
            {my_live.map(|live| {
                let points = live.points.map_or_else(|| tr!(l, "board-my-live-none"), |p| l.points(p, unit));
                let pending = match live.pending {
                    0 => String::new(),
                    n => tr!(l, "board-my-pending", count = n, shown = l.number(n as i64)),
                };
                view! {
                    <span data-testid="my-live">
                        {format!("{}{pending}", tr!(l, "board-my-live", points = points))}
                    </span>
                }
            })}
        </p>
    })
}

/// "Find me" (a plain GET form: a member id or the start of a name) and "Pin this view", which
/// shares a copy of the standings that stays put for a while.
#[component]
pub(super) fn BoardTools(slug: String, period: PeriodKey, segment: Option<Segment>) -> impl IntoView {
    let l = crate::i18n::locale();
    let pin = ServerAction::<PinView>::new();
    // A segment's view has no pinned copy and no moment (the engine's are the board's only).
    let pin = segment.is_none().then(move || {
        view! {
            <ActionForm action=pin>
                <input type="hidden" name="board" value=slug/>
                <input type="hidden" name="period" value=period.to_string()/>
                <button type="submit" class="secondary">{tr!(l, "board-pin")}</button>
            </ActionForm>
        }
    });
    let find_segment = segment_input(segment.as_ref());
    view! {
        <div class="tools">
            <Form action="" method="get">
                <label for="find">{tr!(l, "board-find-me")}</label>
                <input id="find" name="find" placeholder=tr!(l, "board-find-placeholder") autocomplete="off" required/>
                {find_segment}
                <button type="submit">{tr!(l, "board-find")}</button>
            </Form>
            {pin}
        </div>
    }
}
