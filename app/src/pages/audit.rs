use crate::api::console::{AuditPage, read_audit};
use crate::components::error_view::ErrorView;
use crate::error::AppError;
use crate::i18n::{Clock, Locale, Say, tr};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// The viewer's filters: the query string's names (their labels: [`filter_label`]).
const FILTERS: [&str; 7] = ["board", "period", "member", "actor", "action", "since", "until"];

/// A filter's label, or None for a name that is not a filter.
fn filter_label(l: Locale, name: &str) -> Option<String> {
    Some(match name {
        "board" => tr!(l, "audit-filter-board"),
        "period" => tr!(l, "audit-filter-period"),
        "member" => tr!(l, "audit-filter-member"),
        "actor" => tr!(l, "audit-filter-actor"),
        "action" => tr!(l, "audit-filter-action"),
        "since" => tr!(l, "audit-filter-since"),
        "until" => tr!(l, "audit-filter-until"),
        _ => return None,
    })
}

/// The actions the ledger records, offered as suggestions for the Action filter (any text may
/// still be typed).
const ACTIONS: [&str; 25] = [
    "apikey_create",
    "apikey_revoke",
    "archive",
    "board_edit",
    "correct",
    "freeze",
    "hide",
    "hot_filter",
    "import",
    "import_totals",
    "late_accepted",
    "late_rejected",
    "preview_applied",
    "projection_repaired",
    "public_freeze",
    "rebuild",
    "reopen",
    "resettle",
    "reveal",
    "revoke",
    "reward_compensated",
    "row_quarantine",
    "settle",
    "unhide",
    "write_rejected",
];

/// `/admin/audit`: the audit trail, newest first — a GET form of filters (so a filtered view is a
/// link) and an id cursor ("older") that neither skips nor repeats rows while new ones arrive.
#[component]
pub fn AuditPageView() -> impl IntoView {
    let query = use_query_map();
    let source = move || {
        let q = query.read();
        let f = FILTERS.map(|name| q.get(name).unwrap_or_default());
        (f, q.get("before").and_then(|b| b.parse::<i64>().ok()))
    };
    let page = Resource::new(source, |([board, period, member, actor, action, since, until], before)| {
        read_audit(board, period, member, actor, action, since, until, before)
    });
    let value = move |name: &str| query.read().get(name).unwrap_or_default();
    let l = crate::i18n::locale();
    view! {
        <Title text=tr!(l, "audit-title")/>
        <p><a href="/admin">{tr!(l, "audit-back")}</a></p>
        <h1>{tr!(l, "audit-heading")}</h1>
        <form method="get" class="filters" aria-label=tr!(l, "audit-filters")>
            // Days are picked as dates and actions offered from the list, so no example text
            // sits in a field looking like a value.
            {FILTERS.map(|name| view! {
                <label>{filter_label(l, name)}
                    <input name=name value=move || value(name)
                        type=match name { "since" | "until" => "date", _ => "text" }
                        list=(name == "action").then_some("audit-actions")/>
                </label>
            }).to_vec()}
            <datalist id="audit-actions">
                {ACTIONS.map(|a| view! { <option value=a></option> }).to_vec()}
            </datalist>
            <button type="submit">{tr!(l, "audit-filter")}</button>
            <a href="/admin/audit">{tr!(l, "audit-clear")}</a>
        </form>
        <Suspense fallback=move || view! { <p>{tr!(l, "audit-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(p) => Ok(view! { <Rows p/> }.into_any()),
                        // A filter that cannot be read is said beside the form, which stays.
                        Err(AppError::Field { field, message }) => {
                            let label = filter_label(l, &field).unwrap_or_else(|| field.clone());
                            Ok(view! {
                                <p class="error" role="alert" data-field=field.clone()>{tr!(l, "audit-field-error", label = label, message = message)}</p>
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
            .filter_map(|name| {
                q.get(name).filter(|v| !v.is_empty()).map(|v| format!("{name}={}", urlencode(&v)))
            })
            .collect();
        pairs.push(format!("before={before}"));
        format!("?{}", pairs.join("&"))
    }
}

/// Where a row happened, each part a link into the console: the board's current period, the
/// period, the member's page in it.
fn place(r: &domain::view::AuditEntry) -> impl IntoView + use<> {
    let board = r.board.clone();
    let period = r.period.clone();
    let member = r.member.clone();
    let board_link = board.clone().map(|b| {
        view! { <a href=format!("/admin/b/{b}/current")>{b.clone()}</a> }
    });
    let period_link = board.clone().zip(period.clone()).map(|(b, p)| {
        view! { " · " <a href=format!("/admin/b/{b}/{p}")>{p.clone()}</a> }
    });
    let member_link = member.map(|m| match board.zip(period) {
        Some((b, p)) => view! { " · " <a href=format!("/admin/b/{b}/{p}/m/{m}")>{m.clone()}</a> }.into_any(),
        None => view! { " · " {m} }.into_any(),
    });
    view! { {board_link} {period_link} {member_link} }
}

/// What a row changed, one line per field that differs: "points: 30 → 50". A side that is absent
/// (a creation, a removal) shows as "—"; values that are not objects are shown whole.
fn changes(before: Option<&serde_json::Value>, after: Option<&serde_json::Value>) -> Vec<String> {
    use serde_json::Value;
    let shown = |v: Option<&Value>| match v {
        None | Some(Value::Null) => "—".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    // An object's fields; an absent side has none; None: not an object.
    fn fields<'a>(
        v: Option<&'a Value>,
        none: &'a serde_json::Map<String, Value>,
    ) -> Option<&'a serde_json::Map<String, Value>> {
        match v {
            None | Some(Value::Null) => Some(none),
            Some(Value::Object(map)) => Some(map),
            Some(_) => None,
        }
    }
    let none = serde_json::Map::new();
    match (fields(before, &none), fields(after, &none)) {
        (Some(b), Some(a)) => {
            let keys: std::collections::BTreeSet<&String> = b.keys().chain(a.keys()).collect();
            keys.into_iter()
                .filter(|k| b.get(*k) != a.get(*k))
                .map(|k| format!("{k}: {} → {}", shown(b.get(k)), shown(a.get(k))))
                .collect()
        }
        _ if before == after => Vec::new(),
        _ => vec![format!("{} → {}", shown(before), shown(after))],
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
    let l = crate::i18n::locale();
    if p.rows.is_empty() {
        return view! { <p class="empty">{tr!(l, "audit-empty")}</p> }.into_any();
    }
    view! {
        <table class="entries audit">
            <caption>{tr!(l, "audit-caption")}</caption>
            <thead><tr>
                <th scope="col">{tr!(l, "audit-col-when")}</th><th scope="col">{tr!(l, "audit-col-actor")}</th><th scope="col">{tr!(l, "audit-col-action")}</th>
                <th scope="col">{tr!(l, "audit-col-where")}</th><th scope="col">{tr!(l, "audit-col-reason")}</th><th scope="col">{tr!(l, "audit-col-changes")}</th>
            </tr></thead>
            <tbody>
                {p.rows.iter().map(|r| view! {
                    <tr data-audit=r.id data-action=r.action.clone()>
                        <td>{l.time(r.at, "UTC", Clock::Second)}</td>
                        <td>{r.actor.clone()}</td>
                        <td>{r.action.clone()}</td>
                        <td>{place(r)}</td>
                        <td>{r.reason.clone().unwrap_or_default()}</td>
                        <td class="changes">
                            <ul>{changes(r.before.as_ref(), r.after.as_ref()).into_iter().map(|c| view! { <li>{c}</li> }).collect_view()}</ul>
                        </td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        {p.next.map(|id| view! { <p><a class="button" href=older_link(id)>{tr!(l, "audit-older")}</a></p> })}
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::{changes, filter_label};
    use crate::i18n::Locale;
    use serde_json::json;

    #[test]
    fn filters_are_labelled_in_the_readers_language() {
        assert_eq!(filter_label(Locale::En, "since").as_deref(), Some("Since"));
        assert_eq!(filter_label(Locale::ZhCn, "board").as_deref(), Some("榜单"));
        assert_eq!(filter_label(Locale::En, "before"), None);
    }

    #[test]
    fn a_row_shows_only_the_fields_that_changed() {
        let before = json!({"points": 30, "hidden": false, "title": "Weekly"});
        let after = json!({"points": 50, "hidden": false, "title": "Weekly", "note": "late"});
        assert_eq!(changes(Some(&before), Some(&after)), ["note: — → late", "points: 30 → 50"]);
        assert_eq!(changes(None, Some(&json!({"state": "frozen"}))), ["state: — → frozen"]);
        assert_eq!(changes(Some(&json!({"state": "open"})), None), ["state: open → —"]);
        assert_eq!(changes(Some(&json!("open")), Some(&json!("frozen"))), ["open → frozen"]);
        assert_eq!(changes(Some(&json!([1, 2])), Some(&json!({"a": 1}))), ["[1,2] → {\"a\":1}"]);
        assert!(changes(Some(&before), Some(&before)).is_empty());
        assert!(changes(None, None).is_empty());
    }
}
