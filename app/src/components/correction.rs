//! Every change the console makes to a period's standings — revoke an entry, revoke every entry
//! of a member, correct points, hide or show a member, move a member to another segment value,
//! accept or reject a late write — is
//! previewed first: every rank move and prize change as a table ([`PreviewResult`]), and only
//! "Apply" makes it, exactly as previewed. The forms that ask for a preview are where the change
//! belongs (an entry's row, a late write's row, the member's page, the period's "Correct…"
//! panel); on a settled or archived period applying writes the next settlement revision and its
//! reward deltas. The preview needs JavaScript (its table is the action's answer); the rest of the
//! console works without, and the HTTP API keeps each change's own route.

use crate::api::corrections::{ApplyCorrection, CancelCorrection, CorrectionPreview, PreviewCorrection};
use crate::components::console::{ActionOutcome, FieldError};
use crate::error::AppError;
use crate::i18n::{Say, tr};
use domain::lifecycle::State;
use domain::preview::Move;
use leptos::prelude::*;

#[component]
pub fn CorrectPanel(
    slug: String,
    period: String,
    state: State,
    /// The board's segment dimensions: with any, a member may be moved between their values.
    segments: Vec<String>,
    preview: ServerAction<PreviewCorrection>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let segmented = !segments.is_empty();
    let dimensions = segments.join(", ");
    let consequence = match state {
        State::Settled | State::Archived => tr!(l, "correct-consequence-settled"),
        _ => tr!(l, "correct-consequence"),
    };
    let error = Signal::derive(move || preview.value().get().and_then(Result::err));
    // The fields follow the chosen change: what its target is called, and Points only for a
    // correction (the other changes take none).
    let (change, set_change) = signal("revoke".to_owned());
    let target_label = move || match change.get().as_str() {
        "revoke" => tr!(l, "correct-target-event"),
        _ => tr!(l, "correct-target-member"),
    };
    view! {
        <details class="confirm" data-step="Correct…">
            <summary class="button secondary">{tr!(l, "correct-open")}</summary>
            <div class="confirm-body">
                <p>{consequence}</p>
                <ActionForm action=preview attr:class="stacked" attr:data-testid="correct-form">
                    <input type="hidden" name="board" value=slug/>
                    <input type="hidden" name="period" value=period/>
                    <label>{tr!(l, "correct-change")}
                        <select name="change" on:change=move |ev| set_change.set(event_target_value(&ev))>
                            <option value="revoke">{tr!(l, "correct-change-revoke")}</option>
                            <option value="revoke_member">{tr!(l, "correct-change-revoke-member")}</option>
                            <option value="correct">{tr!(l, "correct-change-correct")}</option>
                            <option value="hide">{tr!(l, "correct-change-hide")}</option>
                            <option value="unhide">{tr!(l, "correct-change-unhide")}</option>
                            {segmented.then(|| view! { <option value="move">{tr!(l, "correct-change-move")}</option> })}
                        </select>
                    </label>
                    <label>{target_label} <input name="target" required autocomplete="off"/></label>
                    <FieldError error field="target"/>
                    <label hidden=move || change.get() != "correct">
                        {tr!(l, "correct-delta")} <input name="delta" inputmode="numeric"/>
                    </label>
                    <FieldError error field="delta"/>
                    {segmented.then(|| view! {
                        <label hidden=move || change.get() != "move">
                            {tr!(l, "correct-segment", dimensions = dimensions.clone())} " "
                            <input name="segment" placeholder="province:zj" autocomplete="off"/>
                        </label>
                        <FieldError error field="segment"/>
                    })}
                    <label>{tr!(l, "correct-reason")} <input name="reason" required/></label>
                    <FieldError error field="reason"/>
                    <button type="submit" prop:disabled=move || preview.pending().get()>{tr!(l, "correct-preview")}</button>
                </ActionForm>
            </div>
        </details>
    }
}

/// The page's last preview with its "Apply", until it is applied; a refused preview's reason (a
/// refused field stands under its field instead); the apply's outcome. One per page, whichever
/// form asked: `applied` lives with the page, which re-renders after an apply.
#[component]
pub fn PreviewResult(
    preview: ServerAction<PreviewCorrection>,
    apply: ServerAction<ApplyCorrection>,
    /// The preview last sent to "Apply".
    applied: RwSignal<Option<String>>,
) -> impl IntoView {
    let refusal = move || match preview.value().get() {
        Some(Err(e)) if !matches!(e, AppError::Field { .. }) => Some(
            view! { <p class="notice error" role="alert" data-testid="preview-refusal">{e.to_string()}</p> },
        ),
        _ => None,
    };
    // A new preview replaces the shown one; once applied it goes (a refused apply keeps it, with
    // the refusal).
    Effect::new(move |_| {
        if let Some(input) = apply.input().get() {
            applied.set(Some(input.preview_id));
        }
    });
    // "Cancel" takes the preview away too, and its outcome replaces an older apply's.
    let cancel = ServerAction::<CancelCorrection>::new();
    Effect::new(move |_| {
        if let Some(input) = cancel.input().get() {
            applied.set(Some(input.preview_id));
            apply.value().set(None);
        }
    });
    Effect::new(move |_| {
        if apply.input().with(Option::is_some) {
            cancel.value().set(None);
        }
    });
    let shown = move || {
        let refused = apply.value().get().is_some_and(|r| r.is_err());
        preview
            .value()
            .get()
            .and_then(Result::ok)
            .filter(|p| refused || applied.get().as_deref() != Some(p.preview_id.as_str()))
    };
    view! {
        {refusal}
        {move || shown().map(|p| view! { <PreviewTable p apply cancel/> })}
        <ActionOutcome outcome=move || apply.value().get().or_else(|| cancel.value().get())/>
    }
}

#[component]
fn PreviewTable(
    p: CorrectionPreview,
    apply: ServerAction<ApplyCorrection>,
    cancel: ServerAction<CancelCorrection>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let rank = |r: Option<u64>| r.map_or("—".to_owned(), |r| r.to_string());
    let unit = p.unit;
    let points = move |p: Option<i64>| p.map_or("—".to_owned(), |p| l.points(p, unit));
    let row = move |m: &Move| {
        view! {
            <tr>
                <td>{m.member.to_string()}</td>
                <td>{points(m.points_before)} " → " {points(m.points_after)}</td>
                <td>{rank(m.rank_before)} " → " {rank(m.rank_after)}</td>
            </tr>
        }
    };
    let pending = apply.pending();
    let cancel_ids = (p.board.clone(), p.period.clone(), p.preview_id.clone());
    view! {
        <section class="preview" data-testid="preview" aria-label=tr!(l, "correct-preview")>
            <h3>{tr!(l, "correct-preview-heading", change = p.change.clone())}</h3>
            {if p.moves.is_empty() {
                view! { <p class="empty">{tr!(l, "correct-no-moves")}</p> }.into_any()
            } else {
                let shifted = i64::try_from(p.shifted).unwrap_or(i64::MAX);
                view! {
                    <table class="entries moves">
                        <caption>{tr!(l, "correct-moves", shifted = l.number(shifted))}</caption>
                        <thead><tr>
                            <th scope="col">{tr!(l, "correct-col-member")}</th><th scope="col">{tr!(l, "correct-col-points")}</th><th scope="col">{tr!(l, "correct-col-rank")}</th>
                        </tr></thead>
                        <tbody>{p.moves.iter().map(row).collect_view()}</tbody>
                    </table>
                }.into_any()
            }}
            {if p.prizes.is_empty() {
                view! { <p class="empty">{tr!(l, "correct-no-prizes")}</p> }.into_any()
            } else {
                prize_table(l, tr!(l, "correct-prizes"), None, &p.prizes).into_any()
            }}
            {p.segments.iter().filter(|c| !c.prizes.is_empty()).map(|c| {
                let caption = tr!(l, "correct-segment-prizes", ranking = c.ranking.clone());
                prize_table(l, caption, Some(c.ranking.clone()), &c.prizes)
            }).collect_view()}
            {p.seasons.iter().map(|c| season_effect(l, c, row)).collect_view()}
            {p.digest_after.clone().map(|d| view! { <p class="meta">{tr!(l, "correct-new-digest")} " " <span class="id">{d}</span></p> })}
            {p.digest_pending.then(|| view! {
                <p class="meta">{tr!(l, "correct-digest-pending")}</p>
            })}
            <ActionForm action=apply>
                <input type="hidden" name="board" value=p.board.clone()/>
                <input type="hidden" name="period" value=p.period.clone()/>
                <input type="hidden" name="preview_id" value=p.preview_id.clone()/>
                <button type="submit" prop:disabled=move || pending.get() data-confirm="apply">{tr!(l, "correct-apply")}</button>
                <span class="meta">{tr!(l, "correct-valid-until", time = p.expires_at.strftime("%H:%M:%S").to_string())}</span>
            </ActionForm>
            <ActionForm action=cancel>
                <input type="hidden" name="board" value=cancel_ids.0/>
                <input type="hidden" name="period" value=cancel_ids.1/>
                <input type="hidden" name="preview_id" value=cancel_ids.2/>
                <button type="submit" class="secondary" prop:disabled=move || pending.get() data-confirm="cancel">{tr!(l, "correct-cancel")}</button>
            </ActionForm>
        </section>
    }
}

/// What a preview does to one season made of the period: its moves, its prize changes, and
/// whether applying re-settles it.
fn season_effect<V: IntoView + 'static, F: Fn(&Move) -> V>(
    l: crate::i18n::Locale,
    c: &domain::preview::SeasonChange,
    row: F,
) -> impl IntoView + use<V, F> {
    let board = c.board.to_string();
    let shifted = i64::try_from(c.shifted).unwrap_or(i64::MAX);
    let caption = tr!(l, "correct-season-moves", season = board.clone(), shifted = l.number(shifted));
    let note = match c.resettles {
        true => tr!(l, "correct-season-resettles"),
        false => tr!(l, "correct-season-follows"),
    };
    view! {
        <div class="season-effect" data-season=board.clone()>
            {if c.moves.is_empty() {
                view! { <p class="empty">{tr!(l, "correct-season-no-moves", season = board.clone())}</p> }.into_any()
            } else {
                view! {
                    <table class="entries moves">
                        <caption>{caption}</caption>
                        <thead><tr>
                            <th scope="col">{tr!(l, "correct-col-member")}</th><th scope="col">{tr!(l, "correct-col-points")}</th><th scope="col">{tr!(l, "correct-col-rank")}</th>
                        </tr></thead>
                        <tbody>{c.moves.iter().map(row).collect_view()}</tbody>
                    </table>
                }.into_any()
            }}
            {(!c.prizes.is_empty()).then(|| {
                let caption = tr!(l, "correct-season-prizes", season = board.clone());
                prize_table(l, caption, Some(board.clone()), &c.prizes)
            })}
            <p class="meta">{note}</p>
        </div>
    }
}

/// The prizes a preview moves in one ranking: the board's (`ranking` None) or a segment's.
fn prize_table(
    l: crate::i18n::Locale,
    caption: String,
    ranking: Option<String>,
    prizes: &[domain::preview::PrizeChange],
) -> impl IntoView + use<> {
    view! {
        <table class="entries prizes" data-ranking=ranking>
            <caption>{caption}</caption>
            <thead><tr>
                <th scope="col">{tr!(l, "correct-col-member")}</th><th scope="col">{tr!(l, "correct-col-before")}</th><th scope="col">{tr!(l, "correct-col-after")}</th>
            </tr></thead>
            <tbody>
                {prizes.iter().map(|c| view! {
                    <tr>
                        <td>{c.member.to_string()}</td>
                        <td>{c.before.clone().unwrap_or_else(|| "—".into())}</td>
                        <td>{c.after.clone().unwrap_or_else(|| "—".into())}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use crate::i18n::{Locale, tr};

    #[test]
    fn the_previews_deadline_keeps_its_leading_space_in_english() {
        assert_eq!(tr!(Locale::En, "correct-valid-until", time = "12:00:00"), " (valid until 12:00:00 UTC)");
        assert_eq!(tr!(Locale::ZhCn, "correct-valid-until", time = "12:00:00"), "（UTC 12:00:00 前有效）");
        assert_eq!(tr!(Locale::ZhCn, "correct-moves", shifted = "3"), "变动（另有 3 名成员仅名次顺移）");
    }
}
