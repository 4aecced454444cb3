//! Laurel's Leptos UI, rendered on the server (`ssr`) and hydrated in the browser (`hydrate`).
//!
//! - [`api`]: every server function — the UI's whole wire surface, thin calls into the engine.
//! - [`pages`]: one page per file, one route each (see [`App`]).
//! - [`components`]: pieces shared by pages (the ranking table, the error view).
//! - [`error`]: [`error::AppError`], what a server function can fail with, and its HTTP status.

pub mod api;
pub mod components;
pub mod error;
pub mod pages;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{SsrMode, path};

/// The HTML document around the app (server side only renders it).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The routes. Data pages render in `SsrMode::Async`: the server waits for their data and sends
/// complete HTML, so they work without JavaScript and the first paint already has the rows.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Stylesheet id="leptos" href="/pkg/laurel.css"/>
        <Title formatter=|text| format!("{text} · Laurel")/>
        <Router>
            <header class="site">
                <a class="brand" href="/">"Laurel"</a>
            </header>
            <main>
                <Routes fallback=pages::not_found::NotFound>
                    <Route path=path!("/") view=pages::home::HomePage ssr=SsrMode::Async/>
                    <Route path=path!("/b/:board") view=pages::board::BoardPage ssr=SsrMode::Async/>
                    <Route path=path!("/b/:board/:period") view=pages::board::BoardPage ssr=SsrMode::Async/>
                    <Route path=path!("/hot/:board") view=pages::hot::HotPage ssr=SsrMode::Async/>
                    <Route path=path!("/admin") view=pages::console::ConsolePage ssr=SsrMode::Async/>
                    <Route path=path!("/admin/login") view=pages::login::LoginPage/>
                    <Route path=path!("/admin/audit") view=pages::audit::AuditPageView ssr=SsrMode::Async/>
                    <Route
                        path=path!("/admin/b/:board/:period")
                        view=pages::period_console::PeriodConsolePage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/admin/b/:board/:period/member")
                        view=pages::member_console::MemberConsolePage
                        ssr=SsrMode::Async
                    />
                    <Route
                        path=path!("/admin/b/:board/:period/m/:member")
                        view=pages::member_console::MemberConsolePage
                        ssr=SsrMode::Async
                    />
                    <Route path=path!("/admin/keys") view=pages::keys::KeysConsolePage ssr=SsrMode::Async/>
                    <Route path=path!("/me") view=pages::me::MePage ssr=SsrMode::Async/>
                    <Route
                        path=path!("/b/:board/:period/m/:member")
                        view=pages::member::MemberPage
                        ssr=SsrMode::Async
                    />
                </Routes>
            </main>
        </Router>
    }
}
