//! The browser entry point. Built for wasm32 only by `scripts/build`, with `app/hydrate` (never
//! together with `ssr`), twice. Without the console, the contestants' bundle: their pages are
//! server components, and `hydrate` only starts the reactive system for the islands (the
//! `#[island]` components of `app`, which the page's script hydrates one by one after it). With
//! it (`--features console`), the console's bundle: the whole page hydrates, with the router.
//!
//! `scripts/build` runs `wasm-bindgen --target web --remove-name-section` (the CLI's version is
//! the one pinned in Cargo.lock) on each and names the pair by the hash of both. `wasm-opt -Oz`
//! (binaryen 132) was measured and is not used: it makes the contestants' module 13 % smaller but
//! its brotli copy 5 % larger (379 KB against 362 KB), and `opt-level = "s"` gave 384 KB; brotli
//! is what crosses the wire (docs/BENCHMARKS.md, first visit). Never run Debian's `wasm-opt`
//! (binaryen 108): it produces a module that does not hydrate.

// The islands' hydration functions are exported from `app`: link it even where nothing else of
// it is called.
extern crate app;

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    #[cfg(feature = "console")]
    {
        leptos::mount::hydrate_body(app::App);
        mark_hydrated();
    }
    #[cfg(not(feature = "console"))]
    {
        leptos::mount::hydrate_islands();
        // The page's script hydrates the islands as soon as this returns, in one run of
        // microtasks: a task set now runs after them.
        leptos::prelude::set_timeout(mark_hydrated, std::time::Duration::ZERO);
    }
}

/// Tests and the first-visit benchmark wait for this mark: the page is interactive now.
fn mark_hydrated() {
    if let Some(root) = leptos::prelude::document().document_element() {
        let _ = root.set_attribute("data-hydrated", "");
    }
}
