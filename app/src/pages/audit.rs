use crate::api::console::{AuditPage, read_audit};
use crate::components::error_view::ErrorView;
use crate::error::AppError;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// The viewer's filters: the query string's names, and their labels.
const FILTERS: [(&str, &str); 7] = [
    ("board", "Board"),
    ("period", "Period"),
    ("member", "Member"),
    ("actor", "Actor"),
    ("action", "Action"),
    ("since", "Since"),
    ("until", "Until"),
];

/// `/admin/audit`: the audit trail, newest first — a GET form of filters (so a filtered view is a
/// link) and an id cursor ("older") that neither skips nor repeats rows while new ones arrive.
#[component]
pub fn AuditPageView() -> impl IntoView {
    let query = use_query_map();
    let source = move || {
        let q = query.read();
        let f = FILTERS.map(|(name, _)| q.get(name).unwrap_or_default());
        (f, q.get("before").and_then(|b| b.parse::<i64>().ok()))
    };
    let page = Resource::new(source, |([board, period, member, actor, action, since, until], before)| {
        read_audit(board, period, member, actor, action, since, until, before)
    });
    let value = move |name: &str| query.read().get(name).unwrap_or_default();
    view! {
        <Title text="Audit trail · Console"/>
        <p><a href="/admin">"← Console"</a></p>
        <h1>"Audit trail"</h1>
        <form method="get" class="filters" aria-label="Filters">
            {FILTERS.map(|(name, label)| view! {
                <label>{label}
                    <input name=name value=move || value(name)
                        placeholder=match name { "since" | "until" => "2026-11-30", "action" => "revoke", _ => "" }/>
                </label>
            }).to_vec()}
            <button type="submit">"Filter"</button>
            <a href="/admin/audit">"Clear"</a>
        </form>
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(p) => Ok(view! { <Rows p/> }.into_any()),
                        // A filter that cannot be read is said beside the form, which stays.
                        Err(AppError::Field { field, message }) => {
                            let label = FILTERS.iter().find(|(name, _)| *name == field).map_or(field.as_str(), |(_, l)| l);
                            Ok(view! {
                                <p class="error" role="alert" data-field=field.clone()>{format!("{label}: {message}.")}</p>
                            }.into_any())
                        }
                        Err(e) => Err(e),
                    }
                })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// The same filters with the cursor moved to `before`.
fn older_link(before: i64) -> impl Fn() -> String {
    let query = use_query_map();
    move || {
        let q = query.read();
        let mut pairs: Vec<String> = FILTERS
            .iter()
            .filter_map(|(name, _)| {
                q.get(name).filter(|v| !v.is_empty()).map(|v| format!("{name}={}", urlencode(&v)))
            })
            .collect();
        pairs.push(format!("before={before}"));
        format!("?{}", pairs.join("&"))
    }
}

/// Percent-encodes a filter value for the query string.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[component]
fn Rows(p: AuditPage) -> impl IntoView {
    if p.rows.is_empty() {
        return view! { <p class="empty">"No audit rows match."</p> }.into_any();
    }
    let change = |v: Option<String>| v.unwrap_or_default();
    view! {
        <table class="entries audit">
            <caption>"Newest first"</caption>
            <thead><tr>
                <th scope="col">"When (UTC)"</th><th scope="col">"Actor"</th><th scope="col">"Action"</th>
                <th scope="col">"Where"</th><th scope="col">"Reason"</th><th scope="col">"Before → after"</th>
            </tr></thead>
            <tbody>
                {p.rows.iter().map(|r| view! {
                    <tr data-audit=r.id data-action=r.action.clone()>
                        <td>{r.at.strftime("%Y-%m-%d %H:%M:%S").to_string()}</td>
                        <td>{r.actor.clone()}</td>
                        <td>{r.action.clone()}</td>
                        <td>{[r.board.clone(), r.period.clone(), r.member.clone()].into_iter().flatten().collect::<Vec<_>>().join(" · ")}</td>
                        <td>{r.reason.clone().unwrap_or_default()}</td>
                        <td class="id">{format!("{} → {}", change(r.before.as_ref().map(ToString::to_string)), change(r.after.as_ref().map(ToString::to_string)))}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        {p.next.map(|id| view! { <p><a class="button" href=older_link(id)>"Older rows"</a></p> })}
    }
    .into_any()
}
