use crate::api::console::read_member;
use crate::api::corrections::{ApplyCorrection, PreviewCorrection};
use crate::components::console::{Confirm, FieldError};
use crate::components::correction::PreviewResult;
use crate::components::error_view::ErrorView;
use crate::pages::member::change;
use domain::view::{MemberAdminView, MemberView};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

/// `/admin/b/{board}/{period}/m/{member}` (or `…/member?id=`, the find form): a member's standing
/// and every ledger entry behind it, with a revoke form on each applied event and a correction
/// form, and hide / unhide. Each needs a reason and is previewed first (`components/correction.rs`:
/// the rank moves and prize changes, then "Apply"); each flows through the ledger and the same
/// projection as any write, and is audited.
#[component]
pub fn MemberConsolePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let preview = ServerAction::<PreviewCorrection>::new();
    let apply = ServerAction::<ApplyCorrection>::new();
    let applied = RwSignal::new(None::<String>);
    let source = move || {
        let p = params.read();
        let q = query.read();
        let member = p.get("member").or_else(|| q.get("id")).unwrap_or_default();
        let before = q.get("before").and_then(|b| b.parse::<i64>().ok());
        (
            p.get("board").unwrap_or_default(),
            p.get("period").unwrap_or_default(),
            member,
            before,
            apply.version().get(),
        )
    };
    let data = Resource::new(source, |(b, p, m, before, _)| read_member(b, p, m, before));
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { data.await.map(|v| view! { <Drill v preview apply applied/> }) })}
            </ErrorBoundary>
        </Suspense>
    }
}

#[component]
fn Drill(
    v: MemberAdminView,
    preview: ServerAction<PreviewCorrection>,
    apply: ServerAction<ApplyCorrection>,
    applied: RwSignal<Option<String>>,
) -> impl IntoView {
    let MemberAdminView { view, hidden, points, .. } = v;
    let MemberView { board, period, member, standing, entries, older, .. } = view;
    let error = Signal::derive(move || preview.value().get().and_then(Result::err));
    let pending = preview.pending();
    let (visibility_step, label, consequence, button) = if hidden {
        (
            "unhide",
            "Unhide…",
            "The member shows again in every public view of this period, with all points recorded meanwhile.",
            "Preview unhide",
        )
    } else {
        (
            "hide",
            "Hide…",
            "The member leaves every public view of this period and its settlement; the ledger keeps the history.",
            "Preview hide",
        )
    };
    let slug = board.slug.to_string();
    let base = format!("/admin/b/{slug}/{period}");
    let audit = format!("/admin/audit?board={slug}&member={member}");
    let row_slug = slug.clone();
    let form_fields = (slug.clone(), period.to_string(), member.to_string());
    let row_period = period.to_string();
    view! {
        <Title text=format!("{member} · {} {period} · Console", board.title)/>
        <p><a href=base.clone()>{format!("← {} {period}", board.title)}</a></p>
        <h1>{member.to_string()}</h1>
        <p class="standing" data-testid="standing">
            {match (&standing, points) {
                (Some(s), _) => format!("Rank {}{} with {}", s.rank, if s.tied { " (tied)" } else { "" }, crate::i18n::Say::labelled(crate::i18n::locale(), s.points, board.unit)),
                (None, Some(p)) => format!("{}, not ranked", crate::i18n::Say::labelled(crate::i18n::locale(), p, board.unit)),
                (None, None) => "No points in this period".to_owned(),
            }}
            {hidden.then(|| view! { " " <span class="state state-hidden" data-testid="hidden">"hidden"</span> })}
            {standing.as_ref().and_then(|s| s.display_name.clone()).map(|n| view! { " · shown as " <q>{n}</q> })}
        </p>
        <PreviewResult preview apply applied/>
        <FieldError error field="target"/>
        <h2>"Ledger entries"</h2>
        <table class="entries">
            <caption>"Newest first; a revoked entry no longer counts"</caption>
            <thead><tr>
                <th scope="col">"When (UTC)"</th><th scope="col">"Change"</th><th scope="col">"Id"</th><th scope="col">"Revoke"</th>
            </tr></thead>
            <tbody>
                // Keyed by entry: a revocation adds a row on top, and an open revoke form must stay
                // with its entry.
                <For each=move || entries.clone() key=|e| (e.id, e.revoked) let:e>{{
                    let e = &e;
                    let (slug, period) = (row_slug.clone(), row_period.clone());
                    let revocable = !e.revoked && e.external_id.is_some() && matches!(e.kind.as_str(), "point" | "submission");
                    let id = e.external_id.clone().unwrap_or_default();
                    view! {
                        <tr data-entry=e.id class:revoked=e.revoked>
                            <td>
                                {e.occurred_at.strftime("%Y-%m-%d %H:%M:%S").to_string()}
                                // Disputes: the public board as the ledger had it when this entry was recorded.
                                " " <a class="then" href=format!("/b/{slug}/{period}?at={}", e.recorded_at) data-testid="board-then">"board then"</a>
                            </td>
                            <td>{change(e)}</td>
                            <td class="id">{e.external_id.clone().unwrap_or_default()}</td>
                            <td>{revocable.then(|| view! {
                                <details class="confirm">
                                    <summary class="button secondary">"Revoke…"</summary>
                                    <ActionForm action=preview attr:class="inline">
                                        <p>"The entry stops counting; the total and rank are recomputed from the ledger."</p>
                                        <input type="hidden" name="board" value=slug/>
                                        <input type="hidden" name="period" value=period/>
                                        <input type="hidden" name="change" value="revoke"/>
                                        <input type="hidden" name="target" value=id.clone()/>
                                        <input type="hidden" name="delta" value=""/>
                                        <label>"Reason" <input name="reason" required/></label>
                                        <button type="submit" data-revoke=id prop:disabled=move || pending.get()>"Preview revoke"</button>
                                    </ActionForm>
                                </details>
                            })}</td>
                        </tr>
                    }
                }}</For>
            </tbody>
        </table>
        {older.map(|id| view! { <p><a class="button" href=format!("?before={id}")>"Older entries"</a></p> })}
        <h2>"Visibility"</h2>
        // Keyed by the step, so the hide confirmation a re-render replaces is not left open as
        // the unhide one.
        <For each=move || [visibility_step] key=|step| *step let:step>{{
            let (board, period, member) = form_fields.clone();
            view! {
                <Confirm label consequence=consequence.to_owned() pending>
                    <ActionForm action=preview>
                        <input type="hidden" name="board" value=board/>
                        <input type="hidden" name="period" value=period/>
                        <input type="hidden" name="target" value=member/>
                        <input type="hidden" name="delta" value=""/>
                        <input type="hidden" name="change" value=step/>
                        <label>"Reason" <input name="reason" required/></label>
                        <button type="submit" data-confirm=step>{button}</button>
                    </ActionForm>
                </Confirm>
            }
        }}</For>
        <FieldError error field="reason"/>
        <h2>"Correction"</h2>
        <ActionForm action=preview attr:class="stacked" attr:data-testid="correction">
            <p class="hint">"Adds a signed number of points as an audited ledger entry by you."</p>
            <input type="hidden" name="board" value=slug.clone()/>
            <input type="hidden" name="period" value=period.to_string()/>
            <input type="hidden" name="change" value="correct"/>
            <input type="hidden" name="target" value=member.to_string()/>
            <label>"Points (+/−)" <input name="delta" inputmode="numeric" required/></label>
            <FieldError error field="delta"/>
            <label>"Reason" <input name="reason" required/></label>
            <button type="submit" prop:disabled=move || pending.get()>"Preview correction"</button>
        </ActionForm>
        <p><a href=audit>"This member in the audit trail"</a></p>
    }
}
