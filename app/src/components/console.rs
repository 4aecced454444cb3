//! Pieces of the console's forms: what an action answered, a field's refusal, and a button whose
//! consequence is stated before it runs.

use crate::api::console::{JobProgress, PhaseProgress};
use crate::error::AppError;
use crate::i18n::tr;
use leptos::prelude::*;

/// What the last run of a form's action answered: its message (a status) or its refusal (an
/// alert). Refusals of a named field are left to that field's [`FieldError`].
#[component]
pub fn ActionOutcome(#[prop(into)] outcome: Signal<Option<Result<String, AppError>>>) -> impl IntoView {
    move || match outcome.get() {
        Some(Ok(message)) => {
            Some(view! { <p class="notice" role="status" data-testid="outcome">{message}</p> }.into_any())
        }
        Some(Err(AppError::Field { .. })) | None => None,
        Some(Err(e)) => Some(
            view! { <p class="notice error" role="alert" data-testid="refusal">{e.to_string()}</p> }
                .into_any(),
        ),
    }
}

/// Under a form field: the server's refusal of that field, if the last answer was one.
#[component]
pub fn FieldError(#[prop(into)] error: Signal<Option<AppError>>, field: &'static str) -> impl IntoView {
    move || {
        error.get().and_then(|e| e.for_field(field)).map(|message| {
            view! { <p class="field-error error" role="alert" data-field=field>{message}</p> }
        })
    }
}

/// A console action behind a disclosure: the summary names the step, the open panel states its
/// consequence and holds the form that confirms it (plain HTML, so it works without JavaScript).
/// The disclosure's `data-step` is the step's English label, whatever the reader's language (the
/// end-to-end tests find a step by it); `summary` is what the reader sees.
/// While the action runs, the button is disabled and a progress bar shows it is working — with
/// numbers when `progress` has them (a settlement, a rebuild; see [`JobProgressView`]).
#[component]
pub fn Confirm(
    /// The disclosure's label in English ("Freeze…"): its `data-step`, and its summary when
    /// `summary` is not given.
    label: &'static str,
    /// The disclosure's label in the reader's language.
    #[prop(optional, into)]
    summary: Option<String>,
    /// What will happen, in a sentence.
    consequence: String,
    #[prop(into)] pending: Signal<bool>,
    /// The running job of this step, as last polled (none: a bar without numbers).
    #[prop(optional, into)]
    progress: Option<Signal<Option<JobProgress>>>,
    children: Children,
) -> impl IntoView {
    let l = crate::i18n::locale();
    let running = move || progress.and_then(|p| p.get()).filter(|job| job.running);
    let summary = summary.unwrap_or_else(|| label.to_owned());
    view! {
        <details class="confirm" data-step=label>
            <summary class="button secondary">{summary}</summary>
            <div class="confirm-body">
                <p>{consequence}</p>
                {children()}
                <Show when=move || pending.get()>
                    {move || match running() {
                        Some(job) => view! { <JobProgressView job/> }.into_any(),
                        None => view! {
                            <p class="working" role="status">
                                <progress aria-label=tr!(l, "console-working-label")></progress>
                                " " {tr!(l, "console-working")}
                            </p>
                        }
                        .into_any(),
                    }}
                </Show>
            </div>
        </details>
    }
}

/// A long job's numbers. While it runs: its current phase in a bar with the count as text
/// ("Settling — reading totals: 40,000 / 120,000 members (33 %)"), or a bar without a value for
/// a phase that cannot be counted. Once done: each counted phase's final numbers (a status, read
/// out once; the bar while running is not a live region, which would speak twice a second).
#[component]
pub fn JobProgressView(job: JobProgress) -> impl IntoView {
    let l = crate::i18n::locale();
    let (running, done) = match job.kind.as_str() {
        "settle" => (tr!(l, "console-job-settling"), tr!(l, "console-job-settled")),
        "rebuild" => (tr!(l, "console-job-rebuilding"), tr!(l, "console-job-rebuilt")),
        "export" => (tr!(l, "console-job-exporting"), tr!(l, "console-job-exported")),
        "import" => (tr!(l, "console-job-importing"), tr!(l, "console-job-imported")),
        _ => (tr!(l, "console-job-working"), tr!(l, "console-job-done")),
    };
    if !job.running {
        let counted: Vec<String> = job.phases.iter().filter(|p| p.total.is_some()).map(phase_text).collect();
        return view! {
            <div class="job-progress done" role="status" data-testid="job-progress">
                <p>{tr!(l, "console-job-finished", job = done)}</p>
                <ul>{counted.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
            </div>
        }
        .into_any();
    }
    let Some(now) = job.phases.last() else {
        let text = tr!(l, "console-job-running", job = running.clone());
        return view! { <p class="working"><progress aria-label=running></progress> " " {text}</p> }
            .into_any();
    };
    let label = tr!(l, "console-job-phase", job = running.clone(), phase = now.phase.clone());
    let text = tr!(l, "console-job-phase", job = running, phase = phase_text(now));
    match now.total {
        Some(total) => view! {
            <p class="working job-progress" data-testid="job-progress">
                <progress value=now.processed max=total.max(1) aria-label=label></progress>
                " " {text}
            </p>
        }
        .into_any(),
        None => view! {
            <p class="working job-progress" data-testid="job-progress">
                <progress aria-label=label></progress> " " {text}
            </p>
        }
        .into_any(),
    }
}

/// `reading totals: 40,000 / 120,000 members (33 %)`, or `checking the projection…` uncounted, in
/// the reader's language (the phase and its unit come in it from `read_progress`).
fn phase_text(p: &PhaseProgress) -> String {
    let l = crate::i18n::locale();
    match p.total {
        Some(total) => {
            let percent = (p.processed * 100).checked_div(total).unwrap_or(100);
            tr!(
                l,
                "console-phase-counted",
                phase = p.phase.clone(),
                processed = grouped(p.processed),
                total = grouped(total),
                unit = p.unit.clone(),
                percent = percent.to_string(),
            )
        }
        None => tr!(l, "console-phase-uncounted", phase = p.phase.clone()),
    }
}

/// A count with thousands separated by commas: `120,000` (in both languages: the end-to-end tests
/// read these counts as `en-US` writes them).
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{PhaseProgress, grouped, phase_text};
    use crate::i18n::Say;
    use crate::i18n::{Locale, tr};
    use domain::lifecycle::State;

    #[test]
    fn a_phase_reads_as_numbers_and_a_percentage() {
        assert_eq!(
            [grouped(0), grouped(999), grouped(1000), grouped(120_000)],
            ["0", "999", "1,000", "120,000"]
        );
        let phase = |processed, total| PhaseProgress {
            phase: "reading totals".into(),
            unit: "members".into(),
            processed,
            total,
        };
        assert_eq!(
            phase_text(&phase(40_000, Some(120_000))),
            "reading totals: 40,000 / 120,000 members (33 %)"
        );
        assert_eq!(phase_text(&phase(0, Some(0))), "reading totals: 0 / 0 members (100 %)");
        assert_eq!(phase_text(&phase(0, None)), "reading totals…");
    }

    #[test]
    fn the_consoles_words_keep_their_spaces_and_plurals() {
        let en = Locale::En;
        assert_eq!(en.state(State::Frozen), "frozen");
        assert_eq!(Locale::ZhCn.state(State::Frozen), "已冻结");
        let review = |l, count: u64| {
            tr!(l, "console-late-review", count = count, shown = count.to_string(), board = "b", period = "p")
        };
        assert_eq!(review(en, 1), "Review 1 late write of b p");
        assert_eq!(review(en, 3), "Review 3 late writes of b p");
        assert_eq!(review(Locale::ZhCn, 3), "审核 b p 的 3 条迟到写入");
        let waits = |count: usize| tr!(en, "period-settle-waits", count = count, shown = count.to_string());
        assert_eq!(waits(1), "Settling waits for 1 pending late write:");
        assert_eq!(waits(2), "Settling waits for 2 pending late writes:");
        assert_eq!(tr!(en, "console-prizes-placeholder"), "1: Gold\n2-3: Silver");
        assert_eq!(tr!(en, "console-list-separator"), ", ");
        assert_eq!(
            tr!(en, "period-meta", slug = "s", operator = "incr", ties = "shared", order = "o", zone = "UTC"),
            "· s · incr · ties shared · o · UTC"
        );
        assert_eq!(
            tr!(
                Locale::ZhCn,
                "console-phase-counted",
                phase = "读取总分",
                processed = "40,000",
                total = "120,000",
                unit = "名成员",
                percent = "33",
            ),
            "读取总分：40,000 / 120,000 名成员（33%）"
        );
    }
}
