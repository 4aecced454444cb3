//! What contestants see of corrections after settlement: each later revision of a period's
//! settlement — when, what changed, why, its digest — and on a member's page how the member's
//! rank moved in it. Nothing is shown for a period settled once (or not yet).

use domain::view::RevisionNote;
use leptos::prelude::*;

fn day(note: &RevisionNote, zone: &str) -> String {
    domain::local::in_named_zone(note.settled_at, zone, "%Y-%m-%d")
}

/// "Revision 2 (2026-12-08): 1 entry revoked — reason", one line per revision after the first.
fn said(note: &RevisionNote, zone: &str) -> String {
    let what = note.changes.clone().unwrap_or_else(|| "recomputed".into());
    let why = note.reason.as_deref().map(|r| format!(" — {r}")).unwrap_or_default();
    format!("Revision {} ({}): {what}{why}.", note.revision, day(note, zone))
}

/// The period's revisions after the first settlement, with their digests.
#[component]
pub fn RevisionNotes(notes: Vec<RevisionNote>, zone: String) -> impl IntoView {
    (notes.len() > 1).then(|| {
        let first = notes[0].digest.clone();
        view! {
            <section class="revisions" aria-label="Corrections after settlement" data-testid="revisions">
                <h2>"Corrections after settlement"</h2>
                <ul>
                    {notes[1..].iter().map(|n| view! {
                        <li data-revision=n.revision>{said(n, &zone)} " Digest " <span class="id">{n.digest.clone()}</span></li>
                    }).collect_view()}
                </ul>
                <p class="hint">"The first settlement's digest was " <span class="id">{first}</span>
                    ". Every revision stays readable, and each names the digest of the one before."</p>
            </section>
        }
    })
}

/// On a member's page: each revision that moved the member's rank.
#[component]
pub fn RankChanges(notes: Vec<RevisionNote>, zone: String) -> impl IntoView {
    let rank = |n: &RevisionNote| n.standing.as_ref().map(|s| s.rank);
    let moved: Vec<String> = notes
        .windows(2)
        .filter(|pair| rank(&pair[0]) != rank(&pair[1]))
        .map(|pair| {
            let words = |r: Option<u64>| r.map_or("unranked".to_owned(), |r| r.to_string());
            format!(
                "Rank changed from {} to {} in revision {} ({}){}.",
                words(rank(&pair[0])),
                words(rank(&pair[1])),
                pair[1].revision,
                day(&pair[1], &zone),
                pair[1].reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
            )
        })
        .collect();
    (!moved.is_empty()).then(|| {
        view! {
            <section class="notice" role="status" data-testid="rank-changes">
                {moved.into_iter().map(|m| view! { <p>{m}</p> }).collect_view()}
            </section>
        }
    })
}
