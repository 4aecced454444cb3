//! `/verify`: checks a receipt — or a whole period export — pasted, dropped or chosen as a file, in
//! the browser with the same verifier as `laurel verify` (`domain::receipt`, compiled to wasm):
//! nothing is sent to the server. It shows the member's rank, points and prize, the revision and
//! the chain of links to the latest revision, or exactly what does not hold (docs/RECEIPTS.md).

use crate::i18n::{Locale, tr};
use domain::receipt::{Receipt, Report, verify_json};
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
                <ul data-testid="fails">{report.fails.iter().map(|f| view! { <li>{f.clone()}</li> }).collect_view()}</ul>
            })}
            <details>
                <summary>{tr!(l, "verify-holds")}</summary>
                <ul data-testid="holds">{report.holds.iter().map(|h| view! { <li>{h.clone()}</li> }).collect_view()}</ul>
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
