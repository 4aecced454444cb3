//! The member page, `/b/{board}/{period}/m/{member}`: the member's rank and the ledger entries
//! behind their score (`read_member`, "why this score"), their rank in each segment they hold
//! (`read_member_segments`, each a link to the board page in that segment), their history
//! through the period and their last periods (`read_member_history`), and how a later settlement revision moved their
//! rank, with the member's receipt to download once settled. Public reads: during a public freeze they answer the freeze's view, and a hidden member
//! is not found.

use crate::api::history::{Segments, read_member_history, read_member_season, read_member_segments};
use crate::api::{read_member, read_revisions};
use crate::components::charts::history::RankHistory;
use crate::components::charts::points::PointsChart;
use crate::components::error_view::ErrorView;
use crate::components::freeze_banner::{FreezeBanner, freeze_words};
use crate::components::ranking_table::avatar;
use crate::components::revisions::RankChanges;
use crate::components::segments::MemberSegments;
use crate::i18n::{Clock, Say, tr};
use domain::TiePolicy;
use domain::view::{LedgerEntry, MemberHistory, MemberView, RankTarget, ReadSource, RevisionNote};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/b/{board}/{period}/m/{member}`: a member's name (beside their https avatar, if their
/// profile has one), rank and points, the points to the next ranks, a chart of their points
/// through the period, the ledger entries behind them ("why this score"), newest first, and
/// their rank in the board's last periods.
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
    let segments = Resource::new(source, |(b, p, m, _)| read_member_segments(b, p, m));
    let season = Resource::new(source, |(b, p, m, _)| read_member_season(b, p, m));
    let l = crate::i18n::locale();
    view! {
        <Suspense fallback=move || view! { <p>{tr!(l, "member-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    // A failure to read the revisions never hides the member.
                    let revisions = revisions.await.unwrap_or_default();
                    // Nor does a failure to read the history: the page says so where the charts were.
                    let history = history.await.ok();
                    // Nor a failure to read the segment ranks: they are left out.
                    let segments = segments.await.ok();
                    // A season's "why": what each period gave (None on other boards).
                    let season = season.await.ok().flatten();
                    view_data.await.map(|v| view! { <Member v revisions history segments season/> })
                })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// A ledger entry's change in words, in the reader's language.
pub(crate) fn change(e: &LedgerEntry) -> String {
    let l = crate::i18n::locale();
    let because =
        e.reason.as_deref().map(|r| tr!(l, "member-change-because", reason = r)).unwrap_or_default();
    let text = match (e.kind.as_str(), e.delta, e.value) {
        ("point", Some(d), _) => format!("{d:+}"),
        ("total", _, Some(v)) => tr!(
            l,
            "member-change-total",
            value = v.to_string(),
            version = e.set_version.unwrap_or_default().to_string(),
        ),
        ("submission", _, Some(v)) => tr!(l, "member-change-submitted", value = v.to_string()),
        ("correction", Some(d), _) => {
            tr!(l, "member-change-correction", delta = format!("{d:+}"), because = because)
        }
        ("revocation", d, _) => {
            let what = e.revokes.clone().unwrap_or_else(|| tr!(l, "member-change-an-entry"));
            let by = d.map(|d| tr!(l, "member-change-by", delta = format!("{d:+}"))).unwrap_or_default();
            tr!(l, "member-change-revokes", what = what, by = by, because = because)
        }
        (kind, _, _) => kind.to_owned(),
    };
    if e.revoked { tr!(l, "member-change-revoked", change = text) } else { text }
}

/// Stand-ins a catalogue's sentence gets for the words it shows in bold (private-use
/// characters, in no catalogue's text): the sentence is then cut at them ([`emphasised`]), so
/// each language puts the bold words where its sentence needs them.
const FIRST: &str = "\u{E000}";
const SECOND: &str = "\u{E001}";

/// `sentence` as text, with each stand-in ([`FIRST`], [`SECOND`]) replaced by `bold` of it.
fn emphasised(sentence: &str, bold: impl Fn(&str) -> AnyView) -> Vec<AnyView> {
    let mut out = Vec::new();
    let mut rest = sentence;
    while let Some((at, mark)) =
        [FIRST, SECOND].into_iter().filter_map(|m| rest.find(m).map(|at| (at, m))).min()
    {
        if at > 0 {
            out.push(rest[..at].to_owned().into_any());
        }
        out.push(bold(mark));
        rest = &rest[at + mark.len()..];
    }
    if !rest.is_empty() {
        out.push(rest.to_owned().into_any());
    }
    out
}

#[component]
fn Member(
    v: MemberView,
    revisions: Vec<RevisionNote>,
    history: Option<MemberHistory>,
    segments: Option<Segments<Vec<domain::view::MemberSegment>>>,
    season: Option<domain::season::MemberSeason>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let MemberView { board, period, member, standing, standing_source, entries, older, frozen_at } = v;
    let back = format!("/b/{}/{period}?find={member}", board.slug);
    let name = standing.as_ref().map_or(member.to_string(), |s| s.name().to_owned());
    // From the same ranking entry as the name: https only (see `avatar`).
    let face = standing.as_ref().and_then(|s| avatar(s.avatar_url.as_deref(), 48));
    let slug = board.slug.to_string();
    let segments = segments.map(|segments| {
        let base = format!("/b/{slug}/{period}");
        view! { <MemberSegments segments base unit=board.unit/> }
    });
    let (targets, chart, periods) = match history {
        Some(h) => {
            let targets = view! { <Targets next=h.next_rank prize=h.prize policy=h.tie_policy sort=board.sort unit=board.unit/> };
            let chart = view! { <PointsChart steps=h.steps who=name.clone() period=period.to_string() truncated=h.truncated span=(h.from, h.until) zone=board.time_zone.clone() unit=board.unit/> };
            let periods = view! { <RankHistory periods=h.periods board=slug member=member.to_string() current=period unit=board.unit/> };
            (Some(targets), chart.into_any(), periods.into_any())
        }
        None => {
            let unread = || view! { <p class="error" role="alert">{tr!(l, "member-history-unread")}</p> };
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
                <a class="button" href=href download=file>{tr!(l, "member-receipt-download")}</a>
                {tr!(l, "member-receipt-proof", revision = revision.to_string())}
                <a href="/verify">{tr!(l, "member-receipt-verify")}</a>
                {tr!(l, "member-receipt-after")}
            </p>
        }
    });
    view! {
        <Title text=format!("{name} · {}", board.title)/>
        <p><a href=back>{format!("← {} {period}", board.title)}</a></p>
        <h1>{face}{name.clone()}</h1>
        <p class="meta">{tr!(l, "member-id", member = member.to_string())}</p>
        {frozen_at.map(|at| view! {
            <FreezeBanner words=freeze_words(at, &board.time_zone, &tr!(l, "member-frozen"))/>
        })}
        {(standing_source == Some(ReadSource::Ledger)).then(|| view! {
            <p class="notice degraded" role="status" data-testid="from-ledger">
                {tr!(l, "member-from-ledger")}
            </p>
        })}
        {match standing {
            Some(s) => {
                let tied = if s.tied { tr!(l, "member-standing-tied") } else { String::new() };
                let (rank, period) = (s.rank, period.to_string());
                let sentence = match board.unit {
                    domain::Unit::Points => {
                        tr!(l, "member-standing-points", rank = FIRST, tied = tied, points = SECOND, period = period)
                    }
                    domain::Unit::Ms => {
                        tr!(l, "member-standing-time", rank = FIRST, tied = tied, points = SECOND, period = period)
                    }
                };
                let points = l.points(s.points, board.unit);
                let bold = move |mark: &str| {
                    if mark == FIRST {
                        view! { <strong data-testid="rank">{rank}</strong> }.into_any()
                    } else {
                        view! { <strong data-testid="points">{points.clone()}</strong> }.into_any()
                    }
                };
                view! { <p class="standing">{emphasised(&sentence, bold)}</p> }.into_any()
            }
            None => view! { <p class="notice">{tr!(l, "member-no-points", period = period.to_string())}</p> }.into_any(),
        }}
        {targets}
        {segments}
        <h2>{tr!(l, "member-chart-heading")}</h2>
        {chart}
        {receipt}
        <RankChanges notes=revisions zone=board.time_zone.clone()/>
        {season.map(|season| view! { <SeasonWhy season unit=board.unit/> })}
        <h2>{tr!(l, "member-why")}</h2>
        {if entries.is_empty() {
            view! { <p class="empty">{tr!(l, "member-no-entries")}</p> }.into_any()
        } else {
            view! {
                <table class="entries">
                    <caption>{tr!(l, "member-entries-caption")}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{tr!(l, "member-when", zone = board.time_zone.clone())}</th>
                            <th scope="col">{tr!(l, "member-change")}</th>
                            <th scope="col">{tr!(l, "member-entry-id")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {entries.iter().map(|e| view! {
                            <tr data-entry=e.id class:revoked=e.revoked>
                                <td>{l.time(e.occurred_at, &board.time_zone, Clock::Second)}</td>
                                <td>{change(e)}</td>
                                <td class="id">{e.external_id.clone().unwrap_or_default()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
        {older.map(|id| view! { <p><a class="button" href=format!("?before={id}")>{tr!(l, "member-older")}</a></p> })}
        <h2>{tr!(l, "member-last-periods")}</h2>
        {periods}
    }
}

/// "Why this season total": each period of the season with the member's points and rank there
/// (a link to their page in that period) and what it gave; dropped periods say so.
#[component]
fn SeasonWhy(season: domain::season::MemberSeason, unit: domain::Unit) -> impl IntoView {
    let l = crate::i18n::locale();
    let source = season.source.to_string();
    let member = season.member.to_string();
    let rule = match season.rule.as_str() {
        "best" => tr!(l, "season-rule-best"),
        "weighted" => tr!(l, "season-rule-weighted"),
        "placement" => tr!(l, "season-rule-placement"),
        _ => tr!(l, "season-rule-sum"),
    };
    view! {
        <h2>{tr!(l, "member-season-why")}</h2>
        <table class="entries" data-testid="season-why">
            <caption>{tr!(l, "member-season-caption", rule = rule, points = l.points(season.points, domain::Unit::Points))}</caption>
            <thead>
                <tr>
                    <th scope="col">{tr!(l, "member-season-period")}</th>
                    <th scope="col">{tr!(l, "member-season-there")}</th>
                    <th scope="col">{tr!(l, "member-season-gave")}</th>
                </tr>
            </thead>
            <tbody>
                {season.carried.map(|carried| view! {
                    <tr class="carried">
                        <td>{tr!(l, "member-season-carried")}</td>
                        <td>"—"</td>
                        <td>{l.points(carried, domain::Unit::Points)}</td>
                    </tr>
                })}
                {season.periods.into_iter().map(|line| {
                    let href = format!("/b/{source}/{}/m/{member}", line.period);
                    let there = match (line.points, line.rank) {
                        (Some(points), Some(rank)) => tr!(l, "member-season-rank", rank = rank.to_string(), points = l.points(points, unit)),
                        _ => tr!(l, "member-season-absent"),
                    };
                    let gave = if line.counted {
                        l.points(line.gave, domain::Unit::Points)
                    } else if line.points.is_some() {
                        tr!(l, "member-season-dropped")
                    } else {
                        "—".to_owned()
                    };
                    view! {
                        <tr class:dropped=!line.counted>
                            <td><a href=href>{line.period.to_string()}</a></td>
                            <td>{there}</td>
                            <td>{gave}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
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
    use domain::Sort::{Asc, Desc};
    use domain::Unit::{Ms, Points};
    let l = crate::i18n::locale();
    // "N points to rank R (prize)", or to the prizes; the points in bold.
    let line = move |t: &RankTarget, to_prize: bool| {
        let (rank, prize) = (t.rank.to_string(), t.prize.as_ref());
        let prize = prize.map(|p| tr!(l, "member-target-prize-name", prize = p.as_str())).unwrap_or_default();
        let sentence = match (to_prize, sort, unit) {
            (false, Desc, Points) => {
                tr!(l, "member-target-points", points = FIRST, rank = rank, prize = prize)
            }
            (false, Desc, Ms) => tr!(l, "member-target-time", points = FIRST, rank = rank, prize = prize),
            (false, Asc, Points) => tr!(l, "member-target-fewer", points = FIRST, rank = rank, prize = prize),
            (false, Asc, Ms) => tr!(l, "member-target-faster", points = FIRST, rank = rank, prize = prize),
            (true, Desc, Points) => {
                tr!(l, "member-target-prize-points", points = FIRST, rank = rank, prize = prize)
            }
            (true, Desc, Ms) => {
                tr!(l, "member-target-prize-time", points = FIRST, rank = rank, prize = prize)
            }
            (true, Asc, Points) => {
                tr!(l, "member-target-prize-fewer", points = FIRST, rank = rank, prize = prize)
            }
            (true, Asc, Ms) => {
                tr!(l, "member-target-prize-faster", points = FIRST, rank = rank, prize = prize)
            }
        };
        let points = l.points(t.points, unit);
        emphasised(&sentence, move |_| view! { <strong>{points.clone()}</strong> }.into_any())
    };
    let hint = match policy {
        TiePolicy::Shared => tr!(l, "member-hint-shared"),
        TiePolicy::FirstReached => tr!(l, "member-hint-first-reached"),
    };
    // The prize line says nothing new when the next rank is already the prized one.
    let prize = prize.filter(|p| next.as_ref().is_none_or(|n| n.rank != p.rank || n.points != p.points));
    (next.is_some() || prize.is_some()).then(|| {
        view! {
            <ul class="targets" data-testid="targets">
                {next.map(|t| view! { <li data-testid="to-next-rank">{line(&t, false)}</li> })}
                {prize.map(|t| view! { <li data-testid="to-prize">{line(&t, true)}</li> })}
                <li class="hint">{hint}</li>
            </ul>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;

    #[test]
    fn the_standing_keeps_its_english_words_and_spaces() {
        let l = Locale::En;
        let standing = |unit| match unit {
            domain::Unit::Points => {
                tr!(
                    l,
                    "member-standing-points",
                    rank = "1",
                    tied = tr!(l, "member-standing-tied"),
                    points = "12",
                    period = "2026-W49"
                )
            }
            domain::Unit::Ms => tr!(
                l,
                "member-standing-time",
                rank = "1",
                tied = "",
                points = "1:02.345",
                period = "2026-W49"
            ),
        };
        assert_eq!(standing(domain::Unit::Points), "Rank 1 (tied) with 12 points in 2026-W49");
        assert_eq!(standing(domain::Unit::Ms), "Rank 1 with a time of 1:02.345 in 2026-W49");
        let proof = format!(
            "{}{}{}",
            tr!(l, "member-receipt-proof", revision = "2"),
            tr!(l, "member-receipt-verify"),
            tr!(l, "member-receipt-after")
        );
        assert_eq!(proof, " (JSON): proof of this standing in revision 2, which you can verify without us.");
        let to = tr!(
            l,
            "member-target-points",
            points = "5",
            rank = "3",
            prize = tr!(l, "member-target-prize-name", prize = "Gold")
        );
        assert_eq!(to, "5 points to rank 3 (Gold)");
    }

    #[test]
    fn the_standing_reads_in_chinese_with_its_numbers_in_bold() {
        let l = Locale::ZhCn;
        let sentence = tr!(
            l,
            "member-standing-points",
            rank = FIRST,
            tied = tr!(l, "member-standing-tied"),
            points = SECOND,
            period = "2026-W49"
        );
        assert_eq!(sentence, "2026-W49 第 \u{E000} 名（并列），积分 \u{E001}");
        let html = emphasised(&sentence, |mark| {
            let word = if mark == FIRST { "3" } else { "120" };
            view! { <strong>{word}</strong> }.into_any()
        })
        .to_html();
        let text = html.replace("<!>", "");
        assert_eq!(text, "2026-W49 第 <strong>3</strong> 名（并列），积分 <strong>120</strong>");
    }
}
