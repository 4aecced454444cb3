//! Pieces of the console's forms: what an action answered, a field's refusal, and a button whose
//! consequence is stated before it runs.

use crate::api::console::{JobProgress, PhaseProgress};
use crate::error::AppError;
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
/// While the action runs, the button is disabled and a progress bar shows it is working — with
/// numbers when `progress` has them (a settlement, a rebuild; see [`JobProgressView`]).
#[component]
pub fn Confirm(
    /// The disclosure's label ("Freeze…").
    label: &'static str,
    /// What will happen, in a sentence.
    consequence: String,
    #[prop(into)] pending: Signal<bool>,
    /// The running job of this step, as last polled (none: a bar without numbers).
    #[prop(optional, into)]
    progress: Option<Signal<Option<JobProgress>>>,
    children: Children,
) -> impl IntoView {
    let running = move || progress.and_then(|p| p.get()).filter(|job| job.running);
    view! {
        <details class="confirm" data-step=label>
            <summary class="button secondary">{label}</summary>
            <div class="confirm-body">
                <p>{consequence}</p>
                {children()}
                <Show when=move || pending.get()>
                    {move || match running() {
                        Some(job) => view! { <JobProgressView job/> }.into_any(),
                        None => view! {
                            <p class="working" role="status"><progress aria-label="working"></progress> " Working…"</p>
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
    let (running, done) = match job.kind.as_str() {
        "settle" => ("Settling", "Settled"),
        "rebuild" => ("Rebuilding", "Rebuilt"),
        "export" => ("Exporting", "Exported"),
        "import" => ("Importing", "Imported"),
        _ => ("Working", "Done"),
    };
    if !job.running {
        let counted: Vec<String> = job.phases.iter().filter(|p| p.total.is_some()).map(phase_text).collect();
        return view! {
            <div class="job-progress done" role="status" data-testid="job-progress">
                <p>{format!("{done}:")}</p>
                <ul>{counted.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
            </div>
        }
        .into_any();
    }
    let Some(now) = job.phases.last() else {
        return view! { <p class="working"><progress aria-label=running></progress> {format!(" {running}…")}</p> }
            .into_any();
    };
    let label = format!("{running} — {}", now.phase);
    let text = format!("{running} — {}", phase_text(now));
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

/// `reading totals: 40,000 / 120,000 members (33 %)`, or `checking the projection…` uncounted.
fn phase_text(p: &PhaseProgress) -> String {
    match p.total {
        Some(total) => {
            let percent = (p.processed * 100).checked_div(total).unwrap_or(100);
            format!("{}: {} / {} {} ({percent} %)", p.phase, grouped(p.processed), grouped(total), p.unit)
        }
        None => format!("{}…", p.phase),
    }
}

/// A count with thousands separated by commas: `120,000`.
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
}
