//! `/verify`: checks a receipt — or a whole period export — pasted, dropped or chosen as a file, in
//! the browser with the same verifier as `laurel verify` (`domain::receipt`, compiled to wasm):
//! nothing is sent to the server. It shows the member's rank, points and prize, the revision and
//! the chain of links to the latest revision, or exactly what does not hold (docs/RECEIPTS.md).

use crate::i18n::{Locale, tr};
use domain::receipt::{Finding, ProofError, Receipt, Report, Side, Source, verify_json};
use leptos::prelude::*;
use leptos_meta::Title;

/// The receipt's standing in words, when it has one.
fn standing(l: Locale, r: &Receipt) -> String {
    match (&r.inclusion, &r.absence) {
        (Some(p), _) => tr!(
            l,
            "verify-standing",
            member = p.leaf.member.clone(),
            rank = p.leaf.rank.to_string(),
            points = p.leaf.points.to_string(),
            prize =
                p.leaf.prize.as_ref().map(|p| tr!(l, "verify-prize", prize = p.as_str())).unwrap_or_default(),
            board = r.board.clone(),
            period = r.period.clone(),
            revision = r.revision.to_string(),
        ),
        _ => tr!(
            l,
            "verify-no-standing",
            member = r.member.clone(),
            board = r.board.clone(),
            period = r.period.clone(),
            revision = r.revision.to_string(),
        ),
    }
}

fn side(l: Locale, side: Side) -> String {
    match side {
        Side::Leaf => tr!(l, "finding-side-leaf"),
        Side::Before => tr!(l, "finding-side-before"),
        Side::After => tr!(l, "finding-side-after"),
    }
}

fn proof_error(l: Locale, e: &ProofError) -> String {
    match e {
        ProofError::IndexOutOfRange { index, leaves } => {
            tr!(l, "finding-proof-index", index = index.to_string(), leaves = leaves.to_string())
        }
        ProofError::TooShort => tr!(l, "finding-proof-short"),
        ProofError::NotHex { step } => tr!(l, "finding-proof-not-hex", step = step.as_str()),
        ProofError::TooLong => tr!(l, "finding-proof-long"),
    }
}

/// What a file may leave out, or the word for nothing.
fn or_none(l: Locale, value: &Option<String>) -> String {
    value.clone().unwrap_or_else(|| tr!(l, "finding-none"))
}

/// One fact the verifier checked, in the reader's words (`laurel verify` prints its English): a
/// fact that holds, a file it cannot read, or what fails in the proofs or in the revisions.
fn said(l: Locale, f: &Finding) -> String {
    match f {
        Finding::LeafIsMembers { .. }
        | Finding::Included { .. }
        | Finding::Absent { .. }
        | Finding::ChainStartsAtReceipt { .. }
        | Finding::ChainHolds { .. }
        | Finding::DigestHolds { .. }
        | Finding::SegmentsHold { .. }
        | Finding::PreviousHolds { .. }
        | Finding::RootHolds { .. }
        | Finding::LinkHolds { .. } => held(l, f),
        Finding::UnknownVersion { .. }
        | Finding::NotJson { .. }
        | Finding::NotReceipt { .. }
        | Finding::NotExport { .. }
        | Finding::UnknownFormat { .. } => unreadable(l, f),
        Finding::LeafOfAnother { .. }
        | Finding::RootDiffers { .. }
        | Finding::ProofBroken { .. }
        | Finding::NoProof
        | Finding::NeighbourMisplaced { .. }
        | Finding::NotAdjacent => proof_fails(l, f),
        Finding::NoChain
        | Finding::ChainStartDiffers { .. }
        | Finding::LinkDiffers { .. }
        | Finding::ChainBroken { .. }
        | Finding::RevisionOutOfPlace { .. }
        | Finding::SegmentDiffers { .. }
        | Finding::DigestDiffers { .. }
        | Finding::PreviousDiffers { .. }
        | Finding::StandingsRootDiffers { .. } => chain_fails(l, f),
    }
}

/// A fact that holds: the leaf is the member's, the standing or absence is proven, the chain
/// and the digests agree.
fn held(l: Locale, f: &Finding) -> String {
    let n = |v: &i64| v.to_string();
    match f {
        Finding::LeafIsMembers { member, ranking } => {
            tr!(l, "finding-leaf-is-members", member = member.as_str(), ranking = ranking.as_str())
        }
        Finding::Included { member, rank, points, prize, board, period, revision, root } => tr!(
            l,
            "finding-included",
            member = member.as_str(),
            rank = rank.to_string(),
            points = points.to_string(),
            prize = prize
                .as_ref()
                .map(|p| tr!(l, "finding-included-prize", prize = p.as_str()))
                .unwrap_or_default(),
            board = board.as_str(),
            period = period.as_str(),
            revision = n(revision),
            root = root.as_str(),
        ),
        Finding::Absent { member, ranking, board, period, revision, root } => tr!(
            l,
            "finding-absent",
            member = member.as_str(),
            ranking = ranking.as_str(),
            board = board.as_str(),
            period = period.as_str(),
            revision = n(revision),
            root = root.as_str(),
        ),
        Finding::ChainStartsAtReceipt { revision } => tr!(l, "finding-chain-starts", revision = n(revision)),
        Finding::ChainHolds { from, to, link } => {
            tr!(l, "finding-chain-holds", from = n(from), to = n(to), link = link.as_str())
        }
        Finding::DigestHolds { revision } => tr!(l, "finding-digest-holds", revision = n(revision)),
        Finding::SegmentsHold { revision, rankings } => {
            tr!(l, "finding-segments-hold", revision = n(revision), rankings = rankings.to_string())
        }
        Finding::PreviousHolds { revision } => tr!(l, "finding-previous-holds", revision = n(revision)),
        Finding::RootHolds { revision, root } => {
            tr!(l, "finding-root-holds", revision = n(revision), root = root.as_str())
        }
        Finding::LinkHolds { revision, link } => {
            tr!(l, "finding-link-holds", revision = n(revision), link = link.as_str())
        }
        // `said` sends only this kind here; any other is still said, in the verifier's English.
        other => other.to_string(),
    }
}

/// Why the file is not one the verifier can read: not JSON, not a receipt or an export, or of a
/// format or version it does not know.
fn unreadable(l: Locale, f: &Finding) -> String {
    match f {
        Finding::UnknownVersion { format, version } => {
            tr!(l, "finding-unknown-version", format = format.as_str(), version = version.to_string())
        }
        Finding::NotJson { error } => tr!(l, "finding-not-json", error = error.as_str()),
        Finding::NotReceipt { error } => tr!(l, "finding-not-receipt", error = error.as_str()),
        Finding::NotExport { error } => tr!(l, "finding-not-export", error = error.as_str()),
        Finding::UnknownFormat { format } => tr!(l, "finding-unknown-format", format = or_none(l, format)),
        // `said` sends only this kind here; any other is still said, in the verifier's English.
        other => other.to_string(),
    }
}

/// What does not hold in a receipt's proofs: the leaf, its root, the proof itself, or the
/// neighbours that prove an absence.
fn proof_fails(l: Locale, f: &Finding) -> String {
    match f {
        Finding::LeafOfAnother { leaf_member, leaf_ranking, member, ranking } => tr!(
            l,
            "finding-leaf-of-another",
            leaf_member = leaf_member.as_str(),
            leaf_ranking = leaf_ranking.as_str(),
            member = member.as_str(),
            ranking = ranking.as_str(),
        ),
        Finding::RootDiffers { side: s, root, stated } => {
            tr!(l, "finding-root-differs", side = side(l, *s), root = root.as_str(), stated = stated.as_str())
        }
        Finding::ProofBroken { side: s, error } => {
            tr!(l, "finding-proof-broken", side = side(l, *s), error = proof_error(l, error))
        }
        Finding::NoProof => tr!(l, "finding-no-proof"),
        Finding::NeighbourMisplaced { side: s, leaf_ranking, leaf_member, ranking, member } => tr!(
            l,
            "finding-neighbour-misplaced",
            side = side(l, *s),
            place = s.place(),
            leaf_ranking = leaf_ranking.as_str(),
            leaf_member = leaf_member.as_str(),
            ranking = ranking.as_str(),
            member = member.as_str(),
        ),
        Finding::NotAdjacent => tr!(l, "finding-not-adjacent"),
        // `said` sends only this kind here; any other is still said, in the verifier's English.
        other => other.to_string(),
    }
}

/// What does not hold in the revisions: their chain of links, their order, or a revision's
/// digest, segments or standings.
fn chain_fails(l: Locale, f: &Finding) -> String {
    let n = |v: &i64| v.to_string();
    match f {
        Finding::NoChain => tr!(l, "finding-no-chain"),
        Finding::ChainStartDiffers { first_revision, first_root, first_digest, revision, root, digest } => {
            tr!(
                l,
                "finding-chain-start-differs",
                first_revision = n(first_revision),
                first_root = first_root.as_str(),
                first_digest = first_digest.as_str(),
                revision = n(revision),
                root = root.as_str(),
                digest = digest.as_str(),
            )
        }
        Finding::LinkDiffers { revision, own, stated, source } => tr!(
            l,
            "finding-link-differs",
            revision = n(revision),
            own = own.as_str(),
            source = match source {
                Source::Chain => tr!(l, "finding-source-chain"),
                Source::Export => tr!(l, "finding-source-export"),
            },
            stated = stated.as_str(),
        ),
        Finding::ChainBroken { next, revision, named, link } => tr!(
            l,
            "finding-chain-broken",
            next = n(next),
            revision = n(revision),
            named = or_none(l, named),
            link = link.as_str(),
        ),
        Finding::RevisionOutOfPlace { revision, position } => {
            tr!(l, "finding-out-of-place", revision = n(revision), position = position.to_string())
        }
        Finding::SegmentDiffers { revision, segment, own, stated } => tr!(
            l,
            "finding-segment-differs",
            revision = n(revision),
            segment = segment.as_str(),
            own = own.as_str(),
            stated = stated.as_str()
        ),
        Finding::DigestDiffers { revision, own, stated } => {
            tr!(
                l,
                "finding-digest-differs",
                revision = n(revision),
                own = own.as_str(),
                stated = stated.as_str()
            )
        }
        Finding::PreviousDiffers { revision, named, expected } => tr!(
            l,
            "finding-previous-differs",
            revision = n(revision),
            named = or_none(l, named),
            expected = or_none(l, expected),
        ),
        Finding::StandingsRootDiffers { revision, own, stated } => tr!(
            l,
            "finding-standings-root-differs",
            revision = n(revision),
            own = own.as_str(),
            stated = stated.as_str(),
        ),
        // `said` sends only this kind here; any other is still said, in the verifier's English.
        other => other.to_string(),
    }
}

#[component]
fn Verdict(report: Report, receipt: Option<Receipt>) -> impl IntoView {
    let l = crate::i18n::locale();
    let ok = report.ok();
    let kind = report.kind.clone();
    view! {
        <section class=if ok { "notice" } else { "notice error" } role="status" data-testid="verdict" data-ok=ok.to_string()>
            <h2>{if ok { tr!(l, "verify-ok", kind = kind) } else { tr!(l, "verify-failed", kind = kind) }}</h2>
            {receipt.filter(|_| ok).map(|r| view! {
                <p data-testid="standing">{standing(l, &r)}</p>
                <ol class="chain" data-testid="chain">
                    {r.chain.iter().map(|c| view! {
                        <li data-revision=c.revision>{tr!(l, "verify-link", revision = c.revision.to_string())} " " <span class="id">{c.link.clone()}</span></li>
                    }).collect_view()}
                </ol>
            })}
            {(!report.fails.is_empty()).then(|| view! {
                <ul data-testid="fails">{report.fails.iter().map(|f| view! { <li>{said(l, f)}</li> }).collect_view()}</ul>
            })}
            <details>
                <summary>{tr!(l, "verify-holds")}</summary>
                <ul data-testid="holds">{report.holds.iter().map(|h| view! { <li>{said(l, h)}</li> }).collect_view()}</ul>
            </details>
        </section>
    }
}

/// `/verify`: the explanation, server-rendered, and the checker, the page's one island.
#[component]
pub fn VerifyPage() -> impl IntoView {
    let l = crate::i18n::locale();
    view! {
        <Title text=tr!(l, "verify-title")/>
        <h1>{tr!(l, "verify-title")}</h1>
        <p>{tr!(l, "verify-intro")}</p>
        <noscript><p class="notice">{tr!(l, "verify-noscript")} " " <code>"laurel verify FILE"</code> " " {tr!(l, "verify-noscript-after")}</p></noscript>
        <ReceiptChecker/>
    }
}

/// A text area, a file picker and a drop zone around both; each change is verified at once, in
/// the browser. An island: contestant pages are server components, so only this part ships code
/// (the verifier, `domain::receipt`).
#[island]
pub fn ReceiptChecker() -> impl IntoView {
    let l = crate::i18n::locale();
    let (text, set_text) = signal(String::new());
    // Why a chosen or dropped file gave no text, in words.
    let (unread, set_unread) = signal(None::<String>);
    // Only the browser reads files (`read_first`); the server renders the view without them.
    #[cfg(not(feature = "hydrate"))]
    let _ = set_unread;
    let checked = move || {
        let text = text.get();
        (!text.trim().is_empty()).then(|| {
            let receipt = serde_json::from_str::<Receipt>(&text).ok();
            view! { <Verdict report=verify_json(&text) receipt/> }
        })
    };
    view! {
        <div
            class="dropzone"
            data-testid="receipt-drop"
            // Without this the browser opens a dropped file in place of the page.
            on:dragover=move |ev: leptos::ev::DragEvent| ev.prevent_default()
            on:drop=move |ev: leptos::ev::DragEvent| {
                ev.prevent_default();
                #[cfg(feature = "hydrate")]
                read_first(ev.data_transfer().and_then(|d| d.files()), set_text, set_unread);
            }
        >
            <label for="receipt">{tr!(l, "verify-label")}</label>
            <textarea
                id="receipt"
                data-testid="receipt-input"
                rows="14"
                spellcheck="false"
                prop:value=text
                on:input=move |ev| set_text.set(event_target_value(&ev))
            ></textarea>
            <label for="receipt-file">{tr!(l, "verify-file")}</label>
            <input
                id="receipt-file"
                type="file"
                accept=".json,application/json"
                data-testid="receipt-file"
                on:change=move |_ev| {
                    #[cfg(feature = "hydrate")]
                    read_first(event_target::<web_sys::HtmlInputElement>(&_ev).files(), set_text, set_unread);
                }
            />
        </div>
        {move || unread.get().map(|why| view! { <p class="notice error" role="alert">{why}</p> })}
        {checked}
    }
}

/// Puts the text of the first of `files` (a drop's or the picker's) in the text area, where it is
/// verified like a pasted receipt; says so when the file cannot be read.
#[cfg(feature = "hydrate")]
fn read_first(
    files: Option<web_sys::FileList>,
    set_text: WriteSignal<String>,
    set_unread: WriteSignal<Option<String>>,
) {
    let Some(file) = files.and_then(|f| f.get(0)) else { return };
    leptos::task::spawn_local(async move {
        let read = wasm_bindgen_futures::JsFuture::from(file.text()).await;
        match read.ok().and_then(|t| t.as_string()) {
            Some(text) => {
                set_unread.set(None);
                set_text.set(text);
            }
            None => set_unread.set(Some(tr!(crate::i18n::locale(), "verify-unreadable", file = file.name()))),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::receipt::verify_json;

    /// The page's English is the verifier's: `laurel verify` and `/verify` say the same facts.
    #[test]
    fn the_page_says_each_finding_as_the_command_line_does() {
        let s = |v: &str| v.to_owned();
        let side_cases = [Side::Leaf, Side::Before, Side::After];
        let mut findings = vec![
            Finding::LeafIsMembers { member: s("u1"), ranking: s("board") },
            Finding::Absent {
                member: s("u9"),
                ranking: s("board"),
                board: s("b"),
                period: s("2026-W01"),
                revision: 2,
                root: s("ab"),
            },
            Finding::ChainStartsAtReceipt { revision: 1 },
            Finding::ChainHolds { from: 1, to: 3, link: s("cd") },
            Finding::DigestHolds { revision: 1 },
            Finding::SegmentsHold { revision: 1, rankings: 530 },
            Finding::PreviousHolds { revision: 2 },
            Finding::RootHolds { revision: 1, root: s("ef") },
            Finding::LinkHolds { revision: 1, link: s("01") },
            Finding::UnknownVersion { format: s("laurel-receipt"), version: 9 },
            Finding::LeafOfAnother {
                leaf_member: s("u2"),
                leaf_ranking: s("board"),
                member: s("u1"),
                ranking: s("board"),
            },
            Finding::NoProof,
            Finding::NotAdjacent,
            Finding::NoChain,
            Finding::LinkDiffers { revision: 2, own: s("aa"), stated: s("bb"), source: Source::Chain },
            Finding::LinkDiffers { revision: 2, own: s("aa"), stated: s("bb"), source: Source::Export },
            Finding::ChainBroken { next: 3, revision: 2, named: Some(s("x")), link: s("y") },
            Finding::RevisionOutOfPlace { revision: 3, position: 2 },
            Finding::DigestDiffers { revision: 1, own: s("a"), stated: s("b") },
            Finding::SegmentDiffers { revision: 1, segment: s("province:zj"), own: s("a"), stated: s("b") },
            Finding::StandingsRootDiffers { revision: 1, own: s("a"), stated: s("b") },
            Finding::NotJson { error: s("EOF") },
            Finding::NotReceipt { error: s("missing field") },
            Finding::NotExport { error: s("missing field") },
        ];
        for side in side_cases {
            findings.push(Finding::RootDiffers { side, root: s("r1"), stated: s("r2") });
            findings.push(Finding::ProofBroken { side, error: ProofError::TooShort });
        }
        findings.push(Finding::ProofBroken {
            side: Side::Leaf,
            error: ProofError::IndexOutOfRange { index: 7, leaves: 3 },
        });
        findings.push(Finding::ProofBroken { side: Side::Leaf, error: ProofError::TooLong });
        findings.push(Finding::Included {
            member: s("u5"),
            rank: 3,
            points: 650,
            prize: None,
            board: s("weekly-xp"),
            period: s("2026-W34"),
            revision: 1,
            root: s("ab"),
        });
        for f in &findings {
            assert_eq!(said(Locale::En, f), f.to_string(), "{f:?}");
            assert!(!said(Locale::ZhCn, f).is_empty(), "{f:?}");
        }
        findings.push(Finding::Included {
            member: s("u1"),
            rank: 1,
            points: 900,
            prize: Some(s("Gold")),
            board: s("weekly-xp"),
            period: s("2026-W34"),
            revision: 2,
            root: s("ab"),
        });
        for (side, named) in [(Side::Before, None), (Side::After, Some(s("x")))] {
            findings.push(Finding::NeighbourMisplaced {
                side,
                leaf_ranking: s("board"),
                leaf_member: s("u3"),
                ranking: s("board"),
                member: s("u2"),
            });
            findings.push(Finding::PreviousDiffers {
                revision: 2,
                named: named.clone(),
                expected: Some(s("d")),
            });
            findings.push(Finding::UnknownFormat { format: named });
        }
        findings
            .push(Finding::ProofBroken { side: Side::Before, error: ProofError::NotHex { step: s("zz") } });
        findings.push(Finding::ChainStartDiffers {
            first_revision: 2,
            first_root: s("a"),
            first_digest: s("b"),
            revision: 1,
            root: s("c"),
            digest: s("d"),
        });
        findings.push(Finding::ChainBroken { next: 3, revision: 2, named: None, link: s("y") });
        for f in &findings {
            assert_eq!(said(Locale::En, f), f.to_string(), "{f:?}");
        }
        let tampered = verify_json("{");
        assert_eq!(tampered.fails.len(), 1);
        assert!(said(Locale::ZhCn, &tampered.fails[0]).starts_with("不是 JSON："));
    }
}
