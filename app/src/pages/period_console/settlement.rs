//! The period console's settlement: its standings, digest, revisions and every reward's deliveries.

use super::*;
use domain::settlement::Standing;
use domain::view::RewardAttempt;

/// The settlement's digest and numbers, its revisions (once there is more than one), its
/// standings and every reward's deliveries.
#[component]
pub(super) fn SettlementView(
    s: Settlement,
    revisions: Vec<SettlementSummary>,
    rewards: Vec<RewardView>,
    delivers_rewards: bool,
    names: Names,
    unit: domain::Unit,
) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <h2>{tr!(l, "period-settlement")}</h2>
        <dl class="settlement">
            <dt>{tr!(l, "period-digest-sha")}</dt><dd class="id" data-testid="digest">{s.digest.clone()}</dd>
            <dt>{tr!(l, "period-revision")}</dt><dd>{s.revision}</dd>
            <dt>{tr!(l, "period-members")}</dt><dd>{s.members}</dd>
            <dt>{tr!(l, "period-watermark")}</dt><dd>{s.watermark}</dd>
            <dt>{tr!(l, "period-settled")}</dt>
            <dd>{by(l, s.settled_at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(), &s.actor)}</dd>
        </dl>
        <Revisions revisions/>
        <Standings standings=s.standings members=s.members names=names.clone() unit/>
        <h3 id="rewards">{tr!(l, "period-rewards")}</h3>
        <Rewards rewards delivers_rewards names/>
    }
}

/// Display names of the members shown, by member id.
type Names = std::collections::BTreeMap<String, String>;

/// "Ada Lovelace (u1001)" where the member has a display name, as Leaders names them.
fn who(l: Locale, names: &Names, member: &domain::MemberId) -> String {
    match names.get(member.as_str()) {
        Some(name) => tr!(l, "period-member-named", name = name.clone(), member = member.to_string()),
        None => member.to_string(),
    }
}

/// When and by whom; instants in figures, as every language writes them.
fn by(l: Locale, at: String, actor: &str) -> String {
    tr!(l, "period-by", at = at, actor = actor.to_owned())
}

/// Every revision of the settlement with its reason and digests (the chain they form), once a
/// correction has written a second one.
#[component]
fn Revisions(revisions: Vec<SettlementSummary>) -> impl IntoView {
    let l = crate::i18n::locale();
    (revisions.len() > 1).then(|| {
        view! {
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
                            <td>{by(l, r.settled_at.strftime("%Y-%m-%d %H:%M").to_string(), &r.actor)}</td>
                            <td>{r.reason.clone().unwrap_or_else(|| tr!(l, "period-first-settlement"))}</td>
                            <td class="id">{short(&r.digest)}</td>
                            <td class="id">{r.previous_digest.as_deref().map(short).unwrap_or_default()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        }
    })
}

/// The settled standings shown (of `members`), with their prizes.
#[component]
fn Standings(standings: Vec<Standing>, members: u64, names: Names, unit: domain::Unit) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <table class="entries standings">
            <caption>
                {tr!(
                    l,
                    "period-standings-caption",
                    shown = standings.len().to_string(),
                    members = members.to_string(),
                )}
            </caption>
            <thead><tr>
                <th scope="col">{tr!(l, "period-col-rank")}</th>
                <th scope="col">{tr!(l, "period-col-member")}</th>
                <th scope="col">{tr!(l, "period-col-points")}</th>
                <th scope="col">{tr!(l, "period-col-prize")}</th>
            </tr></thead>
            <tbody>
                {standings.iter().map(|st| view! {
                    <tr>
                        <td>{st.rank}</td>
                        <td>{who(l, &names, &st.member)}</td>
                        <td>{l.points(st.points, unit)}</td>
                        <td>{st.prize.clone().unwrap_or_default()}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// Every reward of every revision (grants, and revokes that take one back) with its delivery
/// status and each attempt. Without a webhook the page says so: else "pending, 0 attempts" would
/// read as a stuck delivery.
#[component]
fn Rewards(rewards: Vec<RewardView>, delivers_rewards: bool, names: Names) -> impl IntoView {
    let l = crate::i18n::locale();
    if rewards.is_empty() {
        return view! { <p class="empty">{tr!(l, "period-no-prizes")}</p> }.into_any();
    }
    view! {
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
                        <td>{who(l, &names, &r.member)}</td>
                        <td>{r.ranking.clone().unwrap_or_else(|| tr!(l, "period-ranking-board"))}</td>
                        <td>{r.rank}</td><td>{r.prize.clone()}</td>
                        <td>{if r.status == "pending" && r.attempts == 0 && !delivers_rewards {
                            tr!(l, "period-pending-no-webhook")
                        } else {
                            reward_status(l, &r.status)
                        }}</td>
                        <td><Attempts attempts=r.attempts history=r.history/></td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

/// A reward's delivery attempts, behind their count: when, and the receiver's answer or why
/// there was none.
#[component]
fn Attempts(attempts: u32, history: Vec<RewardAttempt>) -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <details>
            <summary>{tr!(l, "period-attempts", count = attempts.to_string())}</summary>
            <ul class="attempts">
                {history.iter().map(|a| view! {
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
    }
}

/// A reward's status in words (`pending`, `delivered`, `failed`; another as it is).
fn reward_status(l: Locale, status: &str) -> String {
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
