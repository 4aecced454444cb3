//! The browser entry point: hydrates the server-rendered page. Built for wasm32 only by
//! `scripts/build`, with `app/hydrate` (never together with `ssr`), twice: without the console
//! (the contestants' bundle) and with it (`--features console`).

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
    // Tests and the first-visit benchmark wait for this mark: the page is interactive now.
    if let Some(root) = leptos::prelude::document().document_element() {
        let _ = root.set_attribute("data-hydrated", "");
    }
}
