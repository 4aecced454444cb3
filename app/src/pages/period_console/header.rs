//! The top of the period console: the period's name, state and board rules, what its state means
//! now (the public freeze, the countdown to the freeze, a settlement that waits), and the board's
//! other periods.

use super::*;

/// The page's title, the way back, the period's name, its state with the board's rules, and the
/// links to its public page and its audit trail.
#[component]
pub(super) fn PeriodHeader(board: BoardSummary, period: String, state: State) -> impl IntoView {
    let l = crate::i18n::locale();
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
    }
}

/// What the period's state means now, above its steps: the public freeze and what the next reveal
/// would show, the countdown to the freeze, a period that never existed or has not begun (which
/// offers no step), and a settlement that waits for the late writes to be reviewed.
#[component]
pub(super) fn PeriodNotices(
    board: BoardSummary,
    period: PeriodKey,
    state: State,
    /// The board's first period: the oldest it has rows for.
    first: PeriodKey,
    /// Between the board's first period and its current one.
    exists: bool,
    freezes_at: jiff::Timestamp,
    public_frozen_at: Option<jiff::Timestamp>,
    next_reveal: Option<String>,
    /// Late writes still to decide: settling waits for them.
    blocking_late: usize,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let outside = (!exists).then(|| {
        let said = if period < first {
            tr!(
                l,
                "period-before-first",
                board = board.title.clone(),
                first = first.to_string(),
                period = period.to_string(),
            )
        } else {
            tr!(
                l,
                "period-not-begun",
                period = period.to_string(),
                current = board.current_period.to_string()
            )
        };
        view! { <p class="notice" role="status" data-testid="outside">{said}</p> }
    });
    view! {
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
        {next_reveal.map(|next| view! { <p data-testid="next-reveal">{next}</p> })}
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
    }
}

/// The board's latest periods (eight), each a link to its console, the one shown marked.
#[component]
pub(super) fn PeriodNav(periods: Vec<PeriodInfo>, slug: String, period: String) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
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
    }
}
