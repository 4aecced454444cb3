//! The member page, `/b/{board}/{period}/m/{member}`: the member's rank and the ledger entries
//! behind their score (`read_member`, "why this score"), their history through the period and
//! their last periods (`read_member_history`), and how a later settlement revision moved their
//! rank, with the member's receipt to download once settled. Public reads: during a public freeze they answer the freeze's view, and a hidden member
//! is not found.

use crate::api::history::read_member_history;
use crate::api::{read_member, read_revisions};
use crate::components::charts::history::RankHistory;
use crate::components::charts::points::PointsChart;
use crate::components::error_view::ErrorView;
use crate::components::freeze_banner::{FreezeBanner, freeze_words};
use crate::components::revisions::RankChanges;
use domain::TiePolicy;
use domain::view::{LedgerEntry, MemberHistory, MemberView, RankTarget, ReadSource, RevisionNote};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/b/{board}/{period}/m/{member}`: a member's rank and points, the points to the next ranks,
/// a chart of their points through the period, the ledger entries behind them ("why this
/// score"), newest first, and their rank in the board's last periods.
#[component]
pub fn MemberPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let source = move || {
        let p = params.read();
        let get = |k: &str| p.get(k).unwrap_or_default();
        let before = query.read().get("before").and_then(|b| b.parse::<i64>().ok());
        (get("board"), get("period"), get("member"), before)
    };
    let view_data = Resource::new(source, |(b, p, m, before)| read_member(b, p, m, before));
    let revisions = Resource::new(source, |(b, p, m, _)| read_revisions(b, p, Some(m)));
    let history = Resource::new(source, |(b, p, m, _)| read_member_history(b, p, m));
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    // A failure to read the revisions never hides the member.
                    let revisions = revisions.await.unwrap_or_default();
                    // Nor does a failure to read the history: the page says so where the charts were.
                    let history = history.await.ok();
                    view_data.await.map(|v| view! { <Member v revisions history/> })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}

pub(crate) fn change(e: &LedgerEntry) -> String {
    let because = e.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default();
    let text = match (e.kind.as_str(), e.delta, e.value) {
        ("point", Some(d), _) => format!("{d:+}"),
        ("total", _, Some(v)) => format!("total set to {v} (version {})", e.set_version.unwrap_or_default()),
        ("submission", _, Some(v)) => format!("submitted {v}"),
        ("correction", Some(d), _) => format!("{d:+} correction{because}"),
        ("revocation", d, _) => {
            let what = e.revokes.as_deref().unwrap_or("an entry");
            let by = d.map(|d| format!(" ({d:+})")).unwrap_or_default();
            format!("revokes {what}{by}{because}")
        }
        (kind, _, _) => kind.to_owned(),
    };
    if e.revoked { format!("{text} — revoked") } else { text }
}

#[component]
fn Member(v: MemberView, revisions: Vec<RevisionNote>, history: Option<MemberHistory>) -> impl IntoView {
    let MemberView { board, period, member, standing, standing_source, entries, older, frozen_at } = v;
    let back = format!("/b/{}/{period}?find={member}", board.slug);
    let name = standing.as_ref().map_or(member.to_string(), |s| s.name().to_owned());
    let slug = board.slug.to_string();
    let (targets, chart, periods) = match history {
        Some(h) => {
            let targets = view! { <Targets next=h.next_rank prize=h.prize policy=h.tie_policy sort=board.sort unit=board.unit/> };
            let chart = view! { <PointsChart steps=h.steps who=name.clone() period=period.to_string() truncated=h.truncated span=(h.from, h.until) zone=board.time_zone.clone() unit=board.unit/> };
            let periods = view! { <RankHistory periods=h.periods board=slug member=member.to_string() current=period unit=board.unit/> };
            (Some(targets), chart.into_any(), periods.into_any())
        }
        None => {
            let unread = || view! { <p class="error" role="alert">"The history could not be read; try again in a moment."</p> };
            (None, unread().into_any(), unread().into_any())
        }
    };
    // Once settled: the member's receipt of the latest revision, checked anywhere (`/verify`).
    let receipt = revisions.last().map(|latest| {
        let (revision, slug) = (latest.revision, board.slug.to_string());
        let href = format!("/api/v1/boards/{slug}/periods/{period}/settlements/{revision}/receipts/{member}");
        let file = format!("receipt-{slug}-{period}-r{revision}-{member}.json");
        view! {
            <p class="receipt" data-testid="receipt">
                <a class="button" href=href download=file>"Download my receipt"</a>
                " (JSON): proof of this standing in revision " {revision} ", which you can "
                <a href="/verify">"verify"</a> " without us."
            </p>
        }
    });
    view! {
        <Title text=format!("{name} · {}", board.title)/>
        <p><a href=back>{format!("← {} {period}", board.title)}</a></p>
        <h1>{name.clone()}</h1>
        <p class="meta">{format!("member {member}")}</p>
        {frozen_at.map(|at| view! {
            <FreezeBanner words=freeze_words(at, &board.time_zone, ": this is the standing and the entries of that moment. Points scored since then are revealed at the end.")/>
        })}
        {(standing_source == Some(ReadSource::Ledger)).then(|| view! {
            <p class="notice degraded" role="status" data-testid="from-ledger">
                "Live ranking unavailable; the rank is from the ledger's totals."
            </p>
        })}
        {match standing {
            Some(s) => view! {
                <p class="standing">
                    "Rank " <strong data-testid="rank">{s.rank}</strong>
                    {s.tied.then_some(" (tied)")}
                    {match board.unit {
                        domain::Unit::Points => " with ",
                        domain::Unit::Ms => " with a time of ",
                    }}
                    <strong data-testid="points">{domain::format::points(s.points, board.unit, crate::i18n::locale())}</strong>
                    {match board.unit {
                        domain::Unit::Points => " points in ",
                        domain::Unit::Ms => " in ",
                    }}
                    {period.to_string()}
                </p>
            }.into_any(),
            None => view! { <p class="notice">{format!("No points in {period}.")}</p> }.into_any(),
        }}
        {targets}
        <h2>"Points through the period"</h2>
        {chart}
        {receipt}
        <RankChanges notes=revisions zone=board.time_zone.clone()/>
        <h2>"Why this score"</h2>
        {if entries.is_empty() {
            view! { <p class="empty">"No entries."</p> }.into_any()
        } else {
            view! {
                <table class="entries">
                    <caption>"Ledger entries, newest first"</caption>
                    <thead>
                        <tr><th scope="col">{format!("When ({})", board.time_zone)}</th><th scope="col">"Change"</th><th scope="col">"Id"</th></tr>
                    </thead>
                    <tbody>
                        {entries.iter().map(|e| view! {
                            <tr data-entry=e.id class:revoked=e.revoked>
                                <td>{domain::local::in_named_zone(e.occurred_at, &board.time_zone, domain::local::Clock::Second, crate::i18n::locale())}</td>
                                <td>{change(e)}</td>
                                <td class="id">{e.external_id.clone().unwrap_or_default()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
        {older.map(|id| view! { <p><a class="button" href=format!("?before={id}")>"Older entries"</a></p> })}
        <h2>"Last periods"</h2>
        {periods}
    }
}

/// "N points to rank R" while the period is open: to the member just above, and to the lowest
/// prized rank from outside the prizes. Under `shared` equal points share a rank, so N is the
/// gap; under `first_reached` the member there reached it first, so N is one more. On an
/// ascending board N is what to shed ("N points fewer", or "1.500 faster" for times).
#[component]
fn Targets(
    next: Option<RankTarget>,
    prize: Option<RankTarget>,
    policy: TiePolicy,
    sort: domain::Sort,
    unit: domain::Unit,
) -> impl IntoView {
    let to = match (sort, unit) {
        (domain::Sort::Desc, domain::Unit::Points) => " points to",
        (domain::Sort::Desc, domain::Unit::Ms) => " more to reach",
        (domain::Sort::Asc, domain::Unit::Points) => " points fewer for",
        (domain::Sort::Asc, domain::Unit::Ms) => " faster for",
    };
    let how = match policy {
        TiePolicy::Shared => "equal points share a rank",
        TiePolicy::FirstReached => "on equal points, who reached them first ranks higher",
    };
    let prize_text = |t: &RankTarget| t.prize.as_ref().map(|p| format!(" ({p})")).unwrap_or_default();
    // The prize line says nothing new when the next rank is already the prized one.
    let prize = prize.filter(|p| next.as_ref().is_none_or(|n| n.rank != p.rank || n.points != p.points));
    (next.is_some() || prize.is_some()).then(|| view! {
        <ul class="targets" data-testid="targets">
            {next.map(|t| view! {
                <li data-testid="to-next-rank">
                    <strong>{domain::format::points(t.points, unit, crate::i18n::locale())}</strong> {format!("{to} rank {}{}", t.rank, prize_text(&t))}
                </li>
            })}
            {prize.map(|t| view! {
                <li data-testid="to-prize">
                    <strong>{domain::format::points(t.points, unit, crate::i18n::locale())}</strong> {format!("{to} a prize: rank {}{}", t.rank, prize_text(&t))}
                </li>
            })}
            <li class="hint">{format!("Counting from the public ranking; {how}.")}</li>
        </ul>
    })
}
