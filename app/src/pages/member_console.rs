use crate::api::console::read_member;
use crate::api::corrections::{ApplyCorrection, PreviewCorrection};
use crate::components::console::{Confirm, FieldError};
use crate::components::correction::PreviewResult;
use crate::components::error_view::ErrorView;
use crate::error::AppError;
use crate::i18n::{Clock, Say, tr};
use crate::pages::member::change;
use domain::view::{Entry, LedgerEntry, MemberAdminView, MemberView};
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
    let l = crate::i18n::locale();
    view! {
        <Suspense fallback=move || view! { <p>{tr!(l, "cmember-loading")}</p> }>
            <ErrorBoundary fallback=|errors| view! { <ErrorView errors/> }>
                {move || Suspend::new(async move { data.await.map(|v| view! { <Drill v preview apply applied/> }) })}
            </ErrorBoundary>
        </Suspense>
    }
}

/// A member of a period as the console drills into it: the standing, the preview of a change,
/// the ledger entries (each revocable), hide / unhide, the correction form and the audit trail.
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
    let l = crate::i18n::locale();
    let slug = board.slug.to_string();
    let base = format!("/admin/b/{slug}/{period}");
    let audit = format!("/admin/audit?board={slug}&member={member}");
    let (period, member) = (period.to_string(), member.to_string());
    view! {
        <Title text=tr!(l, "cmember-title", member = member.clone(), board = board.title.clone(), period = period.clone())/>
        <p><a href=base>{tr!(l, "cmember-back", board = board.title.clone(), period = period.clone())}</a></p>
        <h1>{member.clone()}</h1>
        <StandingLine standing hidden points unit=board.unit/>
        <PreviewResult preview apply applied/>
        <FieldError error field="target"/>
        <h2>{tr!(l, "cmember-entries")}</h2>
        <Entries entries slug=slug.clone() period=period.clone() preview pending/>
        {older.map(|id| view! { <p><a class="button" href=format!("?before={id}")>{tr!(l, "cmember-older")}</a></p> })}
        <h2>{tr!(l, "cmember-visibility")}</h2>
        <Visibility hidden slug=slug.clone() period=period.clone() member=member.clone() preview pending/>
        <FieldError error field="reason"/>
        <h2>{tr!(l, "cmember-correction")}</h2>
        <CorrectionForm slug period member preview pending error/>
        <p><a href=audit>{tr!(l, "cmember-audit")}</a></p>
    }
}

/// The member's standing (tied, unranked with points, or none), whether it is hidden, and the
/// display name it is shown as.
#[component]
fn StandingLine(
    standing: Option<Entry>,
    hidden: bool,
    points: Option<i64>,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <p class="standing" data-testid="standing">
            {match (&standing, points) {
                (Some(s), _) if s.tied => tr!(l, "cmember-standing-tied", rank = s.rank.to_string(), points = l.labelled(s.points, unit)),
                (Some(s), _) => tr!(l, "cmember-standing", rank = s.rank.to_string(), points = l.labelled(s.points, unit)),
                (None, Some(p)) => tr!(l, "cmember-unranked", points = l.labelled(p, unit)),
                (None, None) => tr!(l, "cmember-no-points"),
            }}
            {hidden.then(|| view! { " " <span class="state state-hidden" data-testid="hidden">{tr!(l, "cmember-hidden")}</span> })}
            {standing.as_ref().and_then(|s| s.display_name.clone()).map(|n| view! { " · " {tr!(l, "cmember-shown-as")} " " <q>{n}</q> })}
        </p>
    }
}

/// The ledger entries behind the standing, newest first, each with the public board as it stood
/// when it was recorded and, for an applied event, a revoke form (previewed first).
#[component]
fn Entries(
    entries: Vec<LedgerEntry>,
    slug: String,
    period: String,
    preview: ServerAction<PreviewCorrection>,
    pending: Memo<bool>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <table class="entries">
            <caption>{tr!(l, "cmember-entries-caption")}</caption>
            <thead><tr>
                <th scope="col">{tr!(l, "cmember-col-when")}</th><th scope="col">{tr!(l, "cmember-col-change")}</th><th scope="col">{tr!(l, "cmember-col-id")}</th><th scope="col">{tr!(l, "cmember-col-revoke")}</th>
            </tr></thead>
            <tbody>
                // Keyed by entry: a revocation adds a row on top, and an open revoke form must stay
                // with its entry.
                <For each=move || entries.clone() key=|e| (e.id, e.revoked) let:e>{{
                    let e = &e;
                    let (slug, period) = (slug.clone(), period.clone());
                    let revocable = !e.revoked && e.external_id.is_some() && matches!(e.kind.as_str(), "point" | "submission");
                    let id = e.external_id.clone().unwrap_or_default();
                    view! {
                        <tr data-entry=e.id class:revoked=e.revoked>
                            <td>
                                {l.time(e.occurred_at, "UTC", Clock::Second)}
                                // Disputes: the public board as the ledger had it when this entry was recorded.
                                " " <a class="then" href=format!("/b/{slug}/{period}?at={}", e.recorded_at) data-testid="board-then">{tr!(l, "cmember-board-then")}</a>
                            </td>
                            <td>{change(e)}</td>
                            <td class="id">{e.external_id.clone().unwrap_or_default()}</td>
                            <td>{revocable.then(|| view! {
                                <details class="confirm">
                                    <summary class="button secondary">{tr!(l, "cmember-revoke")}</summary>
                                    <ActionForm action=preview attr:class="inline">
                                        <p>{tr!(l, "cmember-revoke-consequence")}</p>
                                        <input type="hidden" name="board" value=slug/>
                                        <input type="hidden" name="period" value=period/>
                                        <input type="hidden" name="change" value="revoke"/>
                                        <input type="hidden" name="target" value=id.clone()/>
                                        <input type="hidden" name="delta" value=""/>
                                        <label>{tr!(l, "cmember-reason")} <input name="reason" required/></label>
                                        <button type="submit" data-revoke=id prop:disabled=move || pending.get()>{tr!(l, "cmember-revoke-preview")}</button>
                                    </ActionForm>
                                </details>
                            })}</td>
                        </tr>
                    }
                }}</For>
            </tbody>
        </table>
    }
}

/// Hide (or unhide) the member, behind a confirmation that states the consequence, previewed
/// first. Keyed by the step, so the hide confirmation a re-render replaces is not left open as
/// the unhide one.
#[component]
fn Visibility(
    hidden: bool,
    slug: String,
    period: String,
    member: String,
    preview: ServerAction<PreviewCorrection>,
    pending: Memo<bool>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    // `label` is the step's English name, the disclosure's `data-step`; `summary` the reader's.
    let (visibility_step, label, summary, consequence, button) = if hidden {
        (
            "unhide",
            "Unhide…",
            tr!(l, "cmember-unhide"),
            tr!(l, "cmember-unhide-consequence"),
            tr!(l, "cmember-unhide-preview"),
        )
    } else {
        (
            "hide",
            "Hide…",
            tr!(l, "cmember-hide"),
            tr!(l, "cmember-hide-consequence"),
            tr!(l, "cmember-hide-preview"),
        )
    };
    view! {
        <For each=move || [visibility_step] key=|step| *step let:step>{{
            let (board, period, member) = (slug.clone(), period.clone(), member.clone());
            let (summary, consequence, button) = (summary.clone(), consequence.clone(), button.clone());
            view! {
                <Confirm label summary consequence pending>
                    <ActionForm action=preview>
                        <input type="hidden" name="board" value=board/>
                        <input type="hidden" name="period" value=period/>
                        <input type="hidden" name="target" value=member/>
                        <input type="hidden" name="delta" value=""/>
                        <input type="hidden" name="change" value=step/>
                        <label>{tr!(l, "cmember-reason")} <input name="reason" required/></label>
                        <button type="submit" data-confirm=step>{button}</button>
                    </ActionForm>
                </Confirm>
            }
        }}</For>
    }
}

/// A correction of the member's points by a delta, with its reason, previewed first.
#[component]
fn CorrectionForm(
    slug: String,
    period: String,
    member: String,
    preview: ServerAction<PreviewCorrection>,
    pending: Memo<bool>,
    error: Signal<Option<AppError>>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <ActionForm action=preview attr:class="stacked" attr:data-testid="correction">
            <p class="hint">{tr!(l, "cmember-correction-hint")}</p>
            <input type="hidden" name="board" value=slug/>
            <input type="hidden" name="period" value=period/>
            <input type="hidden" name="change" value="correct"/>
            <input type="hidden" name="target" value=member/>
            <label>{tr!(l, "cmember-delta")} <input name="delta" inputmode="numeric" required/></label>
            <FieldError error field="delta"/>
            <label>{tr!(l, "cmember-reason")} <input name="reason" required/></label>
            <button type="submit" prop:disabled=move || pending.get()>{tr!(l, "cmember-correction-preview")}</button>
        </ActionForm>
    }
}
