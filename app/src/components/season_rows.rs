//! A season's board page, below its ranking: what each period gave the members shown ("why this
//! season total" row by row: the periods, the points each gave, which the rule dropped, and what
//! a member carried over), for the first [`domain::season::SEASON_ROWS`] rows. A server
//! component like the rest of the page, so it is rendered with it (and shared with every
//! anonymous visitor by the page cache): one read of the ranks of those members per period and
//! one in the season (`read_season_rows`). The member page explains one member in full.

use crate::api::history::read_season_rows;
use crate::i18n::{Say, tr};
use domain::season::MemberSeason;
use leptos::prelude::*;

/// The breakdown of `members`' season totals (the rows shown, best first).
#[component]
pub fn SeasonRows(board: String, period: String, members: Vec<String>) -> impl IntoView {
    let l = crate::i18n::locale();
    let rows = Resource::new(
        move || (board.clone(), period.clone(), members.clone()),
        |(b, p, m)| async move {
            if m.is_empty() {
                return Ok(None);
            }
            read_season_rows(b, p, m).await
        },
    );
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match rows.await {
                    Ok(Some(rows)) if !rows.is_empty() => Some(view! { <SeasonTable rows/> }.into_any()),
                    Ok(_) => None,
                    Err(_) => Some(view! { <p class="hint">{tr!(l, "season-rows-unread")}</p> }.into_any()),
                }
            })}
        </Suspense>
    }
}

#[component]
fn SeasonTable(rows: Vec<MemberSeason>) -> impl IntoView {
    let l = crate::i18n::locale();
    let periods: Vec<String> = rows[0].periods.iter().map(|p| p.period.to_string()).collect();
    let carried = rows.iter().any(|r| r.carried.is_some());
    view! {
        <section id="season-rows" data-testid="season-rows">
            <h2>{tr!(l, "season-rows-heading")}</h2>
            // Focusable, so that a keyboard can scroll the periods sideways.
            <div class="scroll" tabindex="0" role="region" aria-label=tr!(l, "season-rows-heading")>
                <table class="entries season-rows">
                    <caption>{tr!(l, "season-rows-caption", count = l.number(domain::season::SEASON_ROWS as i64))}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{tr!(l, "season-rows-member")}</th>
                            {carried.then(|| view! { <th scope="col">{tr!(l, "season-rows-carried")}</th> })}
                            {periods.into_iter().map(|p| view! { <th scope="col">{p}</th> }).collect_view()}
                            <th scope="col">{tr!(l, "season-rows-total")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {rows.into_iter().map(|row| view! {
                            <tr data-member=row.member.to_string()>
                                <th scope="row">{row.member.to_string()}</th>
                                {carried.then(|| view! { <td>{row.carried.map_or_else(|| "—".to_owned(), |c| l.points(c, domain::Unit::Points))}</td> })}
                                {row.periods.into_iter().map(|line| {
                                    // A dropped period shows the points it had, struck through.
                                    let (text, title) = match (line.counted, line.points) {
                                        (true, _) => (l.points(line.gave, domain::Unit::Points), None),
                                        (false, Some(points)) => (l.number(points), Some(tr!(l, "member-season-dropped"))),
                                        (false, None) => ("—".to_owned(), None),
                                    };
                                    let dropped = title.is_some();
                                    view! { <td class:dropped=dropped title=title>{text}</td> }
                                }).collect_view()}
                                <td>{l.points(row.points, domain::Unit::Points)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
