//! What contestants see of corrections after settlement: each later revision of a period's
//! settlement — when, what changed, why, its digest — and on a member's page how the member's
//! rank moved in it. Nothing is shown for a period settled once (or not yet).

use crate::i18n::{Clock, Locale, Say, tr};
use domain::preview::{ChangeCount, ChangeKind};
use domain::view::RevisionNote;
use leptos::prelude::*;

/// A revision's changes in words, each kind once: "2 entries revoked, 1 correction".
pub fn changes_said(l: Locale, changes: &[ChangeCount]) -> String {
    let said: Vec<String> = changes
        .iter()
        .map(|c| {
            let count = c.count;
            match c.kind {
                ChangeKind::Revoke => tr!(l, "change-revoke", count = count),
                ChangeKind::RevokeMember => tr!(l, "change-revoke-member", count = count),
                ChangeKind::Correct => tr!(l, "change-correct", count = count),
                ChangeKind::AcceptLate => tr!(l, "change-accept-late", count = count),
                ChangeKind::RejectLate => tr!(l, "change-reject-late", count = count),
                ChangeKind::Hide => tr!(l, "change-hide", count = count),
                ChangeKind::Unhide => tr!(l, "change-unhide", count = count),
                ChangeKind::Move => tr!(l, "change-move", count = count),
            }
        })
        .collect();
    said.join(&tr!(l, "change-separator"))
}

fn day(note: &RevisionNote, zone: &str) -> String {
    crate::i18n::locale().time(note.settled_at, zone, Clock::Day)
}

/// "Revision 2 (2026-12-08): 1 entry revoked — reason", one line per revision after the first.
fn said(l: Locale, note: &RevisionNote, zone: &str) -> String {
    let what = note.changes.as_deref().map_or_else(|| tr!(l, "revision-recomputed"), |c| changes_said(l, c));
    let why = note.reason.as_deref().map(|r| tr!(l, "revision-line-why", reason = r)).unwrap_or_default();
    tr!(
        l,
        "revision-line",
        revision = note.revision.to_string(),
        day = day(note, zone),
        what = what,
        why = why
    )
}

/// The period's revisions after the first settlement, with their digests.
#[component]
pub fn RevisionNotes(notes: Vec<RevisionNote>, zone: String) -> impl IntoView {
    let l = crate::i18n::locale();
    (notes.len() > 1).then(|| {
        let first = notes[0].digest.clone();
        view! {
            <section class="revisions" aria-label=tr!(l, "revision-heading") data-testid="revisions">
                <h2>{tr!(l, "revision-heading")}</h2>
                <ul>
                    {notes[1..].iter().map(|n| view! {
                        <li data-revision=n.revision>{said(l, n, &zone)} " " {tr!(l, "revision-digest")} " " <span class="id">{n.digest.clone()}</span></li>
                    }).collect_view()}
                </ul>
                <p class="hint">{tr!(l, "revision-first-digest")} " " <span class="id">{first}</span>
                    {tr!(l, "revision-first-digest-after")}</p>
            </section>
        }
    })
}

/// What a revision did to the member's standing, in words, or None when it left rank and prize
/// as they were: "Rank changed from 2 to 1 and prize changed from Silver to Gold in revision 2
/// (2026-12-08 UTC): reason." A prize taken back is said even when the rank stayed.
fn standing_moved(before: &RevisionNote, after: &RevisionNote, zone: &str) -> Option<String> {
    let l = crate::i18n::locale();
    let rank = |n: &RevisionNote| n.standing.as_ref().map(|s| s.rank);
    let prize = |n: &RevisionNote| n.standing.as_ref().and_then(|s| s.prize.clone());
    let ranks = (rank(before) != rank(after)).then(|| {
        let words = |r: Option<u64>| {
            r.map_or_else(|| tr!(l, "revision-unranked"), |r| tr!(l, "revision-rank", rank = r.to_string()))
        };
        tr!(l, "revision-rank-moved", from = words(rank(before)), to = words(rank(after)))
    });
    let prizes = match (prize(before), prize(after)) {
        (Some(was), Some(now)) if was != now => Some(tr!(l, "revision-prize-changed", was = was, now = now)),
        (Some(was), None) => Some(tr!(l, "revision-prize-taken", was = was)),
        (None, Some(now)) => Some(tr!(l, "revision-prize-awarded", now = now)),
        _ => None,
    };
    let what = match (ranks, prizes) {
        (None, None) => return None,
        (Some(r), Some(p)) => tr!(l, "revision-rank-and-prize", rank = r, prize = p),
        (Some(one), None) | (None, Some(one)) => one,
    };
    let why = after.reason.as_deref().map(|r| tr!(l, "revision-moved-why", reason = r)).unwrap_or_default();
    let said = tr!(
        l,
        "revision-moved",
        what = what,
        revision = after.revision.to_string(),
        day = day(after, zone),
        why = why
    );
    // A sentence starts with a capital (where its language has them).
    let mut said = said.chars();
    let first = said.next().map(|c| c.to_ascii_uppercase()).into_iter().collect::<String>();
    Some(format!("{first}{}", said.as_str()))
}

/// On a member's page: each revision that moved the member's rank or prize.
#[component]
pub fn RankChanges(notes: Vec<RevisionNote>, zone: String) -> impl IntoView {
    let moved: Vec<String> =
        notes.windows(2).filter_map(|pair| standing_moved(&pair[0], &pair[1], &zone)).collect();
    (!moved.is_empty()).then(|| {
        view! {
            <section class="notice" role="status" data-testid="rank-changes">
                {moved.into_iter().map(|m| view! { <p>{m}</p> }).collect_view()}
            </section>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::settlement::Standing;

    fn note(revision: i64, standing: Option<(u64, Option<&str>)>) -> RevisionNote {
        RevisionNote {
            revision,
            settled_at: "2026-12-08T10:00:00Z".parse().unwrap(),
            digest: String::new(),
            changes: None,
            reason: (revision > 1).then(|| "cheating".into()),
            standing: standing.map(|(rank, prize)| Standing {
                rank,
                member: domain::MemberId::parse("u1").unwrap(),
                points: 10,
                prize: prize.map(str::to_owned),
            }),
        }
    }

    #[test]
    fn a_revision_says_how_rank_and_prize_moved() {
        let said = |a, b| standing_moved(&note(1, a), &note(2, b), "UTC");
        // The day as `day` writes it (" UTC" after it where the build cannot resolve the zone).
        let when = format!("in revision 2 ({}): cheating.", day(&note(2, None), "UTC"));
        assert_eq!(
            said(Some((2, Some("Silver"))), Some((1, Some("Gold")))).as_deref(),
            Some(format!("Rank changed from 2 to 1 and prize changed from Silver to Gold {when}").as_str())
        );
        assert_eq!(
            said(Some((3, Some("Bronze"))), Some((4, None))).as_deref(),
            Some(format!("Rank changed from 3 to 4 and prize Bronze taken back {when}").as_str())
        );
        assert_eq!(
            said(Some((1, Some("Gold"))), None).as_deref(),
            Some(format!("Rank changed from 1 to unranked and prize Gold taken back {when}").as_str())
        );
        assert_eq!(
            said(Some((2, None)), Some((2, Some("Silver")))).as_deref(),
            Some(format!("Prize Silver awarded {when}").as_str())
        );
        assert_eq!(
            said(Some((5, None)), Some((6, None))).as_deref(),
            Some(format!("Rank changed from 5 to 6 {when}").as_str())
        );
        assert_eq!(said(Some((2, Some("Silver"))), Some((2, Some("Silver")))), None);
        assert_eq!(said(None, None), None);
    }

    #[test]
    fn a_revision_reads_in_chinese_too() {
        use crate::i18n::Locale;
        let from = tr!(Locale::ZhCn, "revision-rank", rank = "2");
        let what = tr!(
            Locale::ZhCn,
            "revision-rank-moved",
            from = from,
            to = tr!(Locale::ZhCn, "revision-unranked")
        );
        let why = tr!(Locale::ZhCn, "revision-moved-why", reason = "cheating");
        assert_eq!(
            tr!(
                Locale::ZhCn,
                "revision-moved",
                what = what,
                revision = "2",
                day = "2026年12月8日",
                why = why
            ),
            "第 2 次修订（2026年12月8日）：名次从第 2 名变为未上榜，原因：cheating。"
        );
    }

    #[test]
    fn a_revision_says_its_changes_by_kind_in_each_language() {
        let count = |kind, count| ChangeCount { kind, count };
        let changes =
            [count(ChangeKind::Revoke, 2), count(ChangeKind::Correct, 1), count(ChangeKind::Hide, 1)];
        assert_eq!(changes_said(Locale::En, &changes), "2 entries revoked, 1 correction, 1 member hidden");
        assert_eq!(changes_said(Locale::En, &changes[..1]), "2 entries revoked");
        assert_eq!(
            changes_said(Locale::En, &[count(ChangeKind::RevokeMember, 1)]),
            "1 member's entries revoked"
        );
        assert_eq!(changes_said(Locale::ZhCn, &changes), "撤销 2 条记录、更正 1 处、隐藏 1 名成员");
    }
}
