//! What the board page shows below the ranking: the period's distribution of points, its
//! leaders' race, its prizes (with their winners once settled) and the board's past periods.

use super::*;

/// What the board page shows below the ranking (None: could not be read).
pub(super) struct Shape {
    pub(super) distribution: Option<Distribution>,
    pub(super) leaders: Option<LeadersChart>,
    pub(super) results: Option<Vec<PeriodResult>>,
}

/// What the page shows below the ranking: the period's shape on its live page, nothing on a
/// moment's page (the charts are live, the moment is not), and on a segment's view where the
/// whole board's charts, prizes, revisions and past periods are, which would read as the
/// segment's here.
#[component]
pub(super) fn BelowRanking(
    shape: Shape,
    board: String,
    unit: domain::Unit,
    /// `/b/{board}/{period}`: the whole board's page, from a segment's view.
    base: String,
    in_segment: bool,
    /// `?at=`: the page shows the ranking at a moment.
    at_moment: bool,
) -> impl IntoView {
    let l = crate::i18n::locale();
    match (in_segment, at_moment) {
        (true, _) => Some(
            view! {
                <p class="hint" data-testid="segment-board-only">
                    {tr!(l, "segment-board-only")}
                    <a href=base>{tr!(l, "segment-board-only-link")}</a>
                </p>
            }
            .into_any(),
        ),
        (false, false) => Some(view! { <PeriodShape shape board unit/> }.into_any()),
        (false, true) => None,
    }
}

/// The period's distribution of points, its leaders' points through it, its prizes (and winners
/// once settled) and the board's past periods.
#[component]
fn PeriodShape(shape: Shape, board: String, unit: domain::Unit) -> impl IntoView {
    let l = crate::i18n::locale();
    let unread = || view! { <p class="error" role="alert">{tr!(l, "board-unread")}</p> };
    let (distribution, prizes) = match shape.distribution {
        Some(d) => {
            let period = d.period.to_string();
            let settled = matches!(d.state.as_str(), "settled" | "archived");
            let prizes = view! {
                <h3>{tr!(l, "board-prizes")}</h3>
                <Prizes prizes=d.prizes winners=d.winners settled board=board.clone() period=period.clone() unit/>
            };
            (view! { <Histogram bins=d.bins me=d.me period unit/> }.into_any(), Some(prizes))
        }
        None => (unread().into_any(), None),
    };
    let leaders = match shape.leaders {
        Some(chart) => view! { <LeadersRace chart board=board.clone() unit/> }.into_any(),
        None => unread().into_any(),
    };
    let results = match shape.results {
        Some(results) => view! { <PastPeriods results board unit/> }.into_any(),
        None => unread().into_any(),
    };
    view! {
        <section class="period-shape" aria-labelledby="shape-heading">
            <h2 id="shape-heading">{tr!(l, "board-shape-heading")}</h2>
            {distribution}
            <h3>{tr!(l, "chart-leaders-heading")}</h3>
            {leaders}
            {prizes}
        </section>
        <section class="past-periods" aria-labelledby="past-heading">
            <h2 id="past-heading">{tr!(l, "board-past-heading")}</h2>
            {results}
        </section>
    }
}

/// A member as a link to their page in a period.
fn member_link(board: &str, period: &str, member: &domain::MemberId, name: &str) -> impl IntoView + use<> {
    view! { <a href=format!("/b/{board}/{period}/m/{member}")>{name.to_owned()}</a> }
}

/// The prize table: each line's ranks and prize and, once settled, the members who won it.
#[component]
fn Prizes(
    prizes: Vec<Prize>,
    winners: Vec<PrizeWinner>,
    settled: bool,
    board: String,
    period: String,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    if prizes.is_empty() {
        return view! { <p class="empty">{tr!(l, "board-no-prizes")}</p> }.into_any();
    }
    let rows = prizes
        .into_iter()
        .map(|p| {
            let ranks = if p.from_rank == p.to_rank {
                format!("{}", p.from_rank)
            } else {
                format!("{}–{}", p.from_rank, p.to_rank)
            };
            let won: Vec<&Entry> = winners
                .iter()
                .map(|w| &w.standing)
                .filter(|s| (p.from_rank..=p.to_rank).contains(&s.rank))
                .collect();
            let who = settled.then(|| {
                if won.is_empty() {
                    view! { <span class="empty">{tr!(l, "board-nobody")}</span> }.into_any()
                } else {
                    won.into_iter()
                        .map(|s| {
                            view! {
                                <span class="winner">
                                    {member_link(&board, &period, &s.member, s.name())}
                                    {tr!(l, "board-won-rank", rank = s.rank.to_string(), points = l.labelled(s.points, unit))}
                                </span>
                            }
                        })
                        .collect_view()
                        .into_any()
                }
            });
            view! {
                <tr>
                    <td>{ranks}</td>
                    <td>{p.prize}</td>
                    {settled.then(|| view! { <td>{who}</td> })}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="entries prizes" data-testid="prizes">
            <caption class="visually-hidden">{tr!(l, "board-prizes-caption")}</caption>
            <thead>
                <tr>
                    <th scope="col">{tr!(l, "board-ranks")}</th>
                    <th scope="col">{tr!(l, "board-prize")}</th>
                    {settled.then(|| view! { <th scope="col">{tr!(l, "board-won-by")}</th> })}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

/// The board's last periods with their states and winners (settled) or leaders (open, frozen).
#[component]
fn PastPeriods(results: Vec<PeriodResult>, board: String, unit: domain::Unit) -> impl IntoView {
    let l = crate::i18n::locale();
    let rows = results
        .into_iter()
        .map(|r| {
            let period = r.period.to_string();
            let settled = matches!(r.state.as_str(), "settled" | "archived");
            let who = if r.leaders.is_empty() {
                view! { <span class="empty">{tr!(l, "board-no-points")}</span> }.into_any()
            } else {
                let names = r
                    .leaders
                    .iter()
                    .map(|e: &Entry| {
                        view! {
                            {member_link(&board, &period, &e.member, e.name())}
                            {tr!(l, "board-leader-points", points = l.labelled(e.points, unit))}
                        }
                    })
                    .collect_view();
                let lead = if settled { tr!(l, "board-winner-is") } else { tr!(l, "board-leading") };
                view! { {lead} {names} }.into_any()
            };
            view! {
                <tr data-period=period.clone()>
                    <td><a href=format!("/b/{board}/{period}")>{period.clone()}</a></td>
                    <td><span class=format!("state state-{}", r.state)>{state_word(l, r.state.as_str())}</span></td>
                    <td>{who}</td>
                    <td class="num">{l.number(r.members as i64)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="entries past" data-testid="past-periods">
            <caption class="visually-hidden">{tr!(l, "board-past-caption")}</caption>
            <thead>
                <tr>
                    <th scope="col">{tr!(l, "board-period")}</th>
                    <th scope="col">{tr!(l, "board-state")}</th>
                    <th scope="col">{tr!(l, "board-winner")}</th>
                    <th scope="col">{tr!(l, "board-member-count")}</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
