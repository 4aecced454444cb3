//! `/verify`: checks a receipt — or a whole period export — pasted, dropped or chosen as a file, in
//! the browser with the same verifier as `laurel verify` (`domain::receipt`, compiled to wasm):
//! nothing is sent to the server. It shows the member's rank, points and prize, the revision and
//! the chain of links to the latest revision, or exactly what does not hold (docs/RECEIPTS.md).

use domain::receipt::{Receipt, Report, verify_json};
use leptos::prelude::*;
use leptos_meta::Title;

/// The receipt's standing in words, when it has one.
fn standing(r: &Receipt) -> String {
    match (&r.inclusion, &r.absence) {
        (Some(p), _) => format!(
            "{}: rank {} with {} points{} in {} {}, revision {}.",
            p.leaf.member,
            p.leaf.rank,
            p.leaf.points,
            p.leaf.prize.as_ref().map(|p| format!(", prize {p}")).unwrap_or_default(),
            r.board,
            r.period,
            r.revision
        ),
        _ => format!("{}: no standing in {} {}, revision {}.", r.member, r.board, r.period, r.revision),
    }
}

#[component]
fn Verdict(report: Report, receipt: Option<Receipt>) -> impl IntoView {
    let ok = report.ok();
    view! {
        <section class=if ok { "notice" } else { "notice error" } role="status" data-testid="verdict" data-ok=ok.to_string()>
            <h2>{if ok { format!("The {} verifies", report.kind) } else { format!("The {} does not verify", report.kind) }}</h2>
            {receipt.filter(|_| ok).map(|r| view! {
                <p data-testid="standing">{standing(&r)}</p>
                <ol class="chain" data-testid="chain">
                    {r.chain.iter().map(|c| view! {
                        <li data-revision=c.revision>{format!("Revision {}: link ", c.revision)}<span class="id">{c.link.clone()}</span></li>
                    }).collect_view()}
                </ol>
            })}
            {(!report.fails.is_empty()).then(|| view! {
                <ul data-testid="fails">{report.fails.iter().map(|f| view! { <li>{f.clone()}</li> }).collect_view()}</ul>
            })}
            <details>
                <summary>"What holds"</summary>
                <ul data-testid="holds">{report.holds.iter().map(|h| view! { <li>{h.clone()}</li> }).collect_view()}</ul>
            </details>
        </section>
    }
}

/// `/verify`: the explanation, server-rendered, and the checker, the page's one island.
#[component]
pub fn VerifyPage() -> impl IntoView {
    view! {
        <Title text="Verify a receipt"/>
        <h1>"Verify a receipt"</h1>
        <p>"Paste, drop or choose a receipt (the file “Download my receipt” gives on a member's page) or a period export. "
            "It is checked here, in your browser — nothing is sent to the server: the member's leaf against "
            "the revision's root, and the chain of links from that revision to the latest one."</p>
        <noscript><p class="notice">"Checking needs JavaScript; without it, use "<code>"laurel verify FILE"</code>" or docs/verify_receipt.py."</p></noscript>
        <ReceiptChecker/>
    }
}

/// A text area, a file picker and a drop zone around both; each change is verified at once, in
/// the browser. An island: contestant pages are server components, so only this part ships code
/// (the verifier, `domain::receipt`).
#[island]
pub fn ReceiptChecker() -> impl IntoView {
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
            <label for="receipt">"Receipt (JSON): paste it, drop the file here, or choose it"</label>
            <textarea
                id="receipt"
                data-testid="receipt-input"
                rows="14"
                spellcheck="false"
                prop:value=text
                on:input=move |ev| set_text.set(event_target_value(&ev))
            ></textarea>
            <label for="receipt-file">"Receipt file"</label>
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
            None => set_unread.set(Some(format!("{} could not be read as text.", file.name()))),
        }
    });
}
