//! The period console's late writes to review, each accepted or rejected through a preview.

use super::*;

#[component]
pub(super) fn LateWrites(
    late: Vec<LateEntry>,
    slug: String,
    period: String,
    preview: ServerAction<PreviewCorrection>,
) -> impl IntoView {
    let loc = crate::i18n::locale();
    if late.is_empty() {
        return view! { <p class="empty">{tr!(loc, "period-no-late")}</p> }.into_any();
    }
    view! {
        <table class="entries late">
            <caption>{tr!(loc, "period-late-caption")}</caption>
            <thead><tr>
                <th scope="col">{tr!(loc, "period-col-id")}</th>
                <th scope="col">{tr!(loc, "period-col-member")}</th>
                <th scope="col">{tr!(loc, "period-col-write")}</th>
                <th scope="col">{tr!(loc, "period-col-received")}</th>
                <th scope="col">{tr!(loc, "period-col-status")}</th>
                <th scope="col">{tr!(loc, "period-col-decision")}</th>
            </tr></thead>
            <tbody>
                <For each=move || late.clone() key=|l| (l.id, l.status.clone()) let:l>{{
                    let write = match (l.delta, l.value) {
                        (Some(d), _) => format!("{} {} {d:+}", l.kind, l.external_id.clone().unwrap_or_default()),
                        (_, Some(v)) => format!("{} {} = {v}", l.kind, l.external_id.clone().unwrap_or_default()),
                        _ => l.kind.clone(),
                    };
                    let pending = l.status == "pending";
                    let status = late_status(loc, &l.status);
                    let (slug, period) = (slug.clone(), period.clone());
                    view! {
                        <tr data-late=l.id>
                            <td>{l.id}</td>
                            <td>{l.member.to_string()}</td>
                            <td>{write}</td>
                            <td>{l.received_at.strftime("%Y-%m-%d %H:%M:%S").to_string()}</td>
                            <td>{status} {l.decision_reason.clone().map(|r| format!(": {r}"))}</td>
                            <td>{pending.then(|| view! {
                                // Previewed like any change; the preview above says what it does.
                                <ActionForm action=preview attr:class="inline">
                                    <input type="hidden" name="board" value=slug/>
                                    <input type="hidden" name="period" value=period/>
                                    <input type="hidden" name="target" value=l.id/>
                                    <input type="hidden" name="delta" value=""/>
                                    <label class="visually-hidden" for=format!("late-reason-{}", l.id)>
                                        {tr!(loc, "period-reason")}
                                    </label>
                                    <input
                                        id=format!("late-reason-{}", l.id)
                                        name="reason"
                                        required
                                        placeholder=tr!(loc, "period-reason-placeholder")
                                    />
                                    <button type="submit" name="change" value="accept_late">{tr!(loc, "period-accept")}</button>
                                    <button type="submit" name="change" value="reject_late" class="secondary">
                                        {tr!(loc, "period-reject")}
                                    </button>
                                </ActionForm>
                            })}</td>
                        </tr>
                    }
                }}</For>
            </tbody>
        </table>
    }
    .into_any()
}

/// A late write's status in words (`pending`, `accepted`, `rejected`; another as it is).
fn late_status(l: crate::i18n::Locale, status: &str) -> String {
    match status {
        "pending" => tr!(l, "period-late-pending"),
        "accepted" => tr!(l, "period-late-accepted"),
        "rejected" => tr!(l, "period-late-rejected"),
        other => other.to_owned(),
    }
}
