//! The board as it was (`?at=`): a page of the ranking at an instant, never past a public freeze.

use super::THEN_PAGE;
use crate::components::ranking_table::RankingTable;
use crate::i18n::{Clock, Say, tr};
use domain::asof::AsOfPage;
use domain::board::Prize;
use leptos::prelude::*;

/// The ranking as the ledger had it at an instant (`?at=`): what it says, a page of it, and the
/// way back to the live board. Server-rendered only: nothing in it moves.
#[component]
pub(super) fn BoardThen(
    then: AsOfPage,
    zone: String,
    base: String,
    caption: String,
    highlight: Option<String>,
    prizes: Vec<Prize>,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let AsOfPage { at, frozen_at, total, offset, entries, has_more, .. } = then;
    let when = l.time(at, &zone, Clock::Minute);
    let page = |offset: u64| format!("{base}?at={}&offset={offset}", at.as_second());
    let shown = entries.len() as u64;
    view! {
        <p class="notice" role="status" data-testid="then-notice">
            {tr!(l, "board-then-notice", when = when.clone(), zone = zone, total = l.number(total as i64))}
            {frozen_at.map(|_| tr!(l, "board-then-frozen"))}
            <a href=base.clone() data-testid="then-back">{tr!(l, "board-then-back")}</a>
        </p>
        <RankingTable
            entries=entries
            caption=tr!(l, "board-then-caption", caption = caption, when = when)
            base=base.clone()
            highlight=highlight.unwrap_or_default()
            prizes
            unit
        />
        <nav class="pager" aria-label=tr!(l, "board-then-pages")>
            {(offset > 0).then(|| view! {
                <a href=page(offset.saturating_sub(THEN_PAGE)) rel="prev">{tr!(l, "board-then-higher")}</a>
            })}
            {has_more.then(|| view! {
                <a href=page(offset + shown) rel="next">{tr!(l, "board-then-lower")}</a>
            })}
        </nav>
    }
}
