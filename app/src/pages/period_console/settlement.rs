//! The period console's settlement: its standings, digest, revisions and every reward's deliveries.

use super::*;

#[component]
pub(super) fn SettlementView(
    s: Settlement,
    revisions: Vec<SettlementSummary>,
    rewards: Vec<RewardView>,
    delivers_rewards: bool,
    names: std::collections::BTreeMap<String, String>,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    // "Ada Lovelace (u1001)" where the member has a display name, as Leaders names them.
    let who = move |member: &domain::MemberId| match names.get(member.as_str()) {
        Some(name) => tr!(l, "period-member-named", name = name.clone(), member = member.to_string()),
        None => member.to_string(),
    };
    // Instants in figures, as every language writes them.
    let by = move |at: String, actor: &str| tr!(l, "period-by", at = at, actor = actor.to_owned());
    view! {
        <h2>{tr!(l, "period-settlement")}</h2>
        <dl class="settlement">
            <dt>{tr!(l, "period-digest-sha")}</dt><dd class="id" data-testid="digest">{s.digest.clone()}</dd>
            <dt>{tr!(l, "period-revision")}</dt><dd>{s.revision}</dd>
            <dt>{tr!(l, "period-members")}</dt><dd>{s.members}</dd>
            <dt>{tr!(l, "period-watermark")}</dt><dd>{s.watermark}</dd>
            <dt>{tr!(l, "period-settled")}</dt>
            <dd>{by(s.settled_at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(), &s.actor)}</dd>
        </dl>
        {(revisions.len() > 1).then(|| view! {
            <table class="entries revisions" data-testid="revisions">
                <caption>{tr!(l, "period-revisions-caption")}</caption>
                <thead><tr>
                    <th scope="col">{tr!(l, "period-revision")}</th>
                    <th scope="col">{tr!(l, "period-col-written")}</th>
                    <th scope="col">{tr!(l, "period-reason")}</th>
                    <th scope="col">{tr!(l, "period-col-digest")}</th>
                    <th scope="col">{tr!(l, "period-col-previous-digest")}</th>
                </tr></thead>
                <tbody>
                    {revisions.iter().map(|r| view! {
                        <tr data-revision=r.revision>
                            <td>{r.revision}</td>
                            <td>{by(r.settled_at.strftime("%Y-%m-%d %H:%M").to_string(), &r.actor)}</td>
                            <td>{r.reason.clone().unwrap_or_else(|| tr!(l, "period-first-settlement"))}</td>
                            <td class="id">{short(&r.digest)}</td>
                            <td class="id">{r.previous_digest.as_deref().map(short).unwrap_or_default()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        })}
        <table class="entries standings">
            <caption>
                {tr!(
                    l,
                    "period-standings-caption",
                    shown = s.standings.len().to_string(),
                    members = s.members.to_string(),
                )}
            </caption>
            <thead><tr>
                <th scope="col">{tr!(l, "period-col-rank")}</th>
                <th scope="col">{tr!(l, "period-col-member")}</th>
                <th scope="col">{tr!(l, "period-col-points")}</th>
                <th scope="col">{tr!(l, "period-col-prize")}</th>
            </tr></thead>
            <tbody>
                {s.standings.iter().map(|st| view! {
                    <tr>
                        <td>{st.rank}</td>
                        <td>{who(&st.member)}</td>
                        <td>{l.points(st.points, unit)}</td>
                        <td>{st.prize.clone().unwrap_or_default()}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
        <h3 id="rewards">{tr!(l, "period-rewards")}</h3>
        {if rewards.is_empty() {
            view! { <p class="empty">{tr!(l, "period-no-prizes")}</p> }.into_any()
        } else {
            view! {
                // Else "pending, 0 attempts" would read as a stuck delivery.
                {(!delivers_rewards).then(|| view! {
                    <p class="notice" data-testid="no-webhook">{tr!(l, "period-no-webhook")}</p>
                })}
                <table class="entries rewards">
                    <caption>{tr!(l, "period-rewards-caption")}</caption>
                    <thead><tr>
                        <th scope="col">{tr!(l, "period-revision")}</th>
                        <th scope="col">{tr!(l, "period-col-delivery")}</th>
                        <th scope="col">{tr!(l, "period-col-member")}</th>
                        <th scope="col">{tr!(l, "period-col-ranking")}</th>
                        <th scope="col">{tr!(l, "period-col-rank")}</th>
                        <th scope="col">{tr!(l, "period-col-prize")}</th>
                        <th scope="col">{tr!(l, "period-col-status")}</th>
                        <th scope="col">{tr!(l, "period-col-attempts")}</th>
                    </tr></thead>
                    <tbody>
                        {rewards.into_iter().map(|r| view! {
                            <tr data-reward=r.id data-kind=r.kind.as_str()>
                                <td>{r.revision}</td>
                                <td>{match r.kind {
                                    domain::view::RewardKind::Grant => tr!(l, "period-delivery-grant"),
                                    domain::view::RewardKind::Revoke => tr!(l, "period-delivery-revoke"),
                                }}</td>
                                <td>{who(&r.member)}</td>
                                <td>{r.ranking.clone().unwrap_or_else(|| tr!(l, "period-ranking-board"))}</td>
                                <td>{r.rank}</td><td>{r.prize.clone()}</td>
                                <td>{if r.status == "pending" && r.attempts == 0 && !delivers_rewards {
                                    tr!(l, "period-pending-no-webhook")
                                } else {
                                    reward_status(l, &r.status)
                                }}</td>
                                <td>
                                    <details>
                                        <summary>
                                            {tr!(
                                                l,
                                                "period-attempts",
                                                count = r.attempts.to_string(),
                                            )}
                                        </summary>
                                        <ul class="attempts">
                                            {r.history.iter().map(|a| view! {
                                                <li>{format!("{} — {}", a.attempted_at.strftime("%Y-%m-%d %H:%M:%S"),
                                                    match (a.http_status, &a.error) {
                                                        (Some(code), None) => format!("HTTP {code}"),
                                                        (Some(code), Some(e)) => format!("HTTP {code}: {e}"),
                                                        (None, Some(e)) => e.clone(),
                                                        (None, None) => tr!(l, "period-no-answer"),
                                                    })}</li>
                                            }).collect_view()}
                                        </ul>
                                    </details>
                                </td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }.into_any()
        }}
    }
}

/// A reward's status in words (`pending`, `delivered`, `failed`; another as it is).
fn reward_status(l: crate::i18n::Locale, status: &str) -> String {
    match status {
        "pending" => tr!(l, "period-reward-pending"),
        "delivered" => tr!(l, "period-reward-delivered"),
        "failed" => tr!(l, "period-reward-failed"),
        other => other.to_owned(),
    }
}

/// The first 12 hex digits of a digest (the full one is in the settlement above and the API).
fn short(digest: &str) -> String {
    format!("{}…", digest.get(..12).unwrap_or(digest))
}
