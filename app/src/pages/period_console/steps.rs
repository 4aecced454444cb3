//! The period console's lifecycle steps: the ones a period can take now, each a form behind a
//! confirmation that states its consequence, and the answer of the last one.

use super::*;

/// A lifecycle step: its name (the server function's `step`), its label in English (the
/// disclosure's `data-step`) and in the reader's language, its consequence and its button.
pub(super) type Step = (&'static str, &'static str, String, String, String);

/// The steps a period in `state` offers: settling (which awards the board's `prize_ranges`) only
/// once no late write is pending, and in contest mode the public freeze and the reveals beside
/// the lifecycle.
pub(super) fn lifecycle_steps(
    l: Locale,
    state: State,
    blocking_late: usize,
    prize_ranges: usize,
    public_frozen_at: Option<jiff::Timestamp>,
    next_reveal: Option<&str>,
) -> Vec<Step> {
    let rebuild: Step = (
        "rebuild",
        "Rebuild…",
        tr!(l, "period-rebuild"),
        tr!(l, "period-rebuild-consequence"),
        tr!(l, "period-rebuild-button"),
    );
    let reopen: Step = (
        "reopen",
        "Reopen…",
        tr!(l, "period-reopen"),
        tr!(l, "period-reopen-consequence"),
        tr!(l, "period-reopen-button"),
    );
    let mut steps: Vec<Step> = match state.as_str() {
        "open" => vec![
            (
                "freeze",
                "Freeze…",
                tr!(l, "period-freeze"),
                tr!(l, "period-freeze-consequence"),
                tr!(l, "period-freeze-button"),
            ),
            rebuild,
        ],
        // Settling waits until no late write is pending: offered only then.
        "frozen" if blocking_late > 0 => vec![reopen, rebuild],
        "frozen" => vec![
            (
                "settle",
                "Settle…",
                tr!(l, "period-settle"),
                tr!(l, "period-settle-consequence", ranges = prize_ranges.to_string()),
                tr!(l, "period-settle-button"),
            ),
            reopen,
            rebuild,
        ],
        "settled" => vec![(
            "archive",
            "Archive…",
            tr!(l, "period-archive"),
            tr!(l, "period-archive-consequence"),
            tr!(l, "period-archive-button"),
        )],
        _ => vec![],
    };
    // Contest mode: the public freeze is beside the lifecycle, not a step of it.
    match (public_frozen_at, state.as_str()) {
        (None, "open" | "frozen") => steps.push((
            "public-freeze",
            "Freeze publicly…",
            tr!(l, "period-public-freeze"),
            tr!(l, "period-public-freeze-consequence"),
            tr!(l, "period-public-freeze-button"),
        )),
        (Some(_), "archived") | (None, _) => {}
        (Some(_), _) => steps.extend([
            (
                "reveal-next",
                "Reveal next…",
                tr!(l, "period-reveal-next"),
                tr!(l, "period-reveal-next-consequence", next = next_reveal.unwrap_or_default().to_owned()),
                tr!(l, "period-reveal-next-button"),
            ),
            (
                "reveal-all",
                "Reveal all…",
                tr!(l, "period-reveal-all"),
                tr!(l, "period-reveal-all-consequence"),
                tr!(l, "period-reveal-all-button"),
            ),
        ]),
    }
    steps
}

/// The steps, each a form behind its confirmation (settle and rebuild with their numbers while
/// they run), then why the last one was refused and its outcome. Keyed by step: after a
/// transition the page re-renders in place, and an open confirmation must not be carried over to
/// the step that replaces it.
#[component]
pub(super) fn LifecycleSteps(
    steps: Vec<Step>,
    slug: String,
    period: String,
    transition: ServerAction<Transition>,
    job: RwSignal<Option<JobProgress>>,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let pending = transition.pending();
    let step = move |(name, label, summary, consequence, button): Step| {
        let (slug, period) = (slug.clone(), period.clone());
        // Settle and rebuild show their numbers; the job polled must be this step's.
        let progress = Signal::derive(move || job.get().filter(|j| j.kind == name));
        view! {
            <Confirm label summary consequence pending progress>
                <ActionForm action=transition>
                    <input type="hidden" name="board" value=slug/>
                    <input type="hidden" name="period" value=period/>
                    <input type="hidden" name="step" value=name/>
                    <label>
                        {tr!(l, "period-reason")}
                        <input
                            name="reason"
                            placeholder=if name == "reopen" {
                                tr!(l, "period-reason-required")
                            } else {
                                tr!(l, "period-reason-optional")
                            }
                        />
                    </label>
                    <button type="submit" prop:disabled=move || pending.get() data-confirm=name>{button}</button>
                </ActionForm>
            </Confirm>
        }
    };
    let transition_error = move || transition.value().get().and_then(Result::err);
    view! {
        <section class="steps" id="lifecycle" aria-label=tr!(l, "period-lifecycle")>
            <For each=move || steps.clone() key=|s| s.0 children=step/>
        </section>
        <FieldError error=transition_error field="reason"/>
        <ActionOutcome outcome=move || transition.value().get()/>
    }
}
