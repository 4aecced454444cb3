//! Laurel's Leptos UI, rendered on the server (`ssr`) and hydrated in the browser (`hydrate`).
//!
//! - [`api`]: every server function — the UI's whole wire surface, thin calls into the engine.
//! - [`pages`]: one page per file, one route each (see [`App`]).
//! - [`components`]: pieces shared by pages (the ranking table, the error view).
//! - [`error`]: [`error::AppError`], what a server function can fail with, and its HTTP status.
//!
//! **Two browser bundles, two ways to hydrate.** The feature `console` holds the console's
//! pages, components and server functions (`pages::{console, period_console, member_console,
//! audit, keys, login}`, `components::{console, correction}`, `api::{admin, console, corrections,
//! keys}`, the routes in `ConsoleRoutes`, and `App` and `shell` themselves); `ssr` turns it on, so
//! the server has everything. `frontend` is built twice: without it, `laurel` (the contestants'
//! bundle), and with it, `laurel-console`. `shell` decides per page ([`SiteFiles::is_console`]:
//! `/admin` and below):
//!
//! - **Contestant pages are server components with islands** (`<HydrationScripts islands>`).
//!   Every `#[component]` renders to HTML on the server and ships no code; only the `#[island]`
//!   components hydrate, each from its props serialized into the page (`<leptos-island
//!   data-props>`): `pages::board::Rows` (the ranking's rows, "Show more" through `read_after`, the
//!   live table's stream, the pinned pager), `pages::hot::HotListIsland` (a hot board's list,
//!   re-read through `read_hot_list` every interval), `components::countdown::CountdownIsland`,
//!   `components::then_slider::ThenSlider` and `pages::verify::ReceiptChecker`. The contestants'
//!   bundle is those islands and `hydrate`, which only starts the reactive system — no router, no
//!   page, no other server function. Links and forms there (find me, the period switcher, "Pin this view", the
//!   me-links) are plain navigations and form posts, as without JavaScript.
//! - **Rules for an island**: its props are `Serialize + Deserialize` (they travel as JSON), it
//!   reads no context and no router hook (in the browser it runs outside the page's tree), and it
//!   stays small — everything it renders is compiled into the contestants' bundle.
//! - **Console pages hydrate whole**, from the console's bundle (`hydrate_body` of `App`, with the
//!   client router); an island met there (a contestant page reached by the router) is an ordinary
//!   component.
//!
//! A console module used from a contestant page does not compile in the contestants' bundle, so
//! the split holds by construction; `end2end/tests/first-visit.spec.ts` checks that the
//! contestants' bundle names no `/api/admin_…` function, none of the pages' reads (only
//! `read_after` and `read_hot_list`) and no router, and that `html[data-hydrated]` is set once the
//! islands are hydrated. The contestants' bundle carries no time-zone database and renders no
//! time: the freeze banner's words are made on the server (`domain::local`).

pub mod api;
pub mod components;
pub mod error;
pub mod i18n;
pub mod pages;

#[cfg(feature = "console")]
use i18n::tr;
#[cfg(feature = "console")]
use leptos::prelude::*;
#[cfg(feature = "console")]
use leptos_meta::{MetaTags, Title, provide_meta_context};
#[cfg(feature = "console")]
use leptos_router::components::{Route, Router, Routes};
#[cfg(feature = "console")]
use leptos_router::{SsrMode, path};

/// The bundle files the page asks for, found by the server in what it embeds (their names carry
/// their content's hash, so browsers keep them for good). Console pages load the console's bundle;
/// every other page the contestants', which has no console in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteFiles {
    /// The contestants' bundle: `/pkg/<contestant>.js` and `.wasm`.
    pub contestant: String,
    /// The console's bundle (every page, the console's too).
    pub console: String,
    /// The stylesheet's path.
    pub stylesheet: String,
}

impl Default for SiteFiles {
    /// The names of an unhashed build (a server built without `scripts/build`).
    fn default() -> Self {
        Self {
            contestant: "laurel".into(),
            console: "laurel-console".into(),
            stylesheet: "/pkg/laurel.css".into(),
        }
    }
}

impl SiteFiles {
    /// Where the console lives: its pages hydrate with the console's bundle.
    pub const CONSOLE_PATH: &str = "/admin";

    /// Whether the page at `path` is the console's.
    pub fn is_console(path: &str) -> bool {
        path.strip_prefix(Self::CONSOLE_PATH).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }

    /// The bundle of the page at `path`.
    pub fn bundle_for(&self, path: &str) -> &str {
        if Self::is_console(path) { &self.console } else { &self.contestant }
    }
}

/// The HTML document around the app (server side only renders it).
///
/// Contestant pages are server components with islands: only the `#[island]` components (the
/// ranking's rows, "Show more", the live table, the countdown) hydrate, from the contestants'
/// bundle, and everything else is HTML. Console pages hydrate whole, from the console's bundle,
/// with the client router.
#[cfg(feature = "console")]
pub fn shell(mut options: LeptosOptions) -> impl IntoView {
    let files = use_context::<SiteFiles>().unwrap_or_default();
    #[cfg(feature = "ssr")]
    let path =
        use_context::<http::request::Parts>().map(|parts| parts.uri.path().to_owned()).unwrap_or_default();
    #[cfg(not(feature = "ssr"))]
    let path = String::new();
    options.output_name = files.bundle_for(&path).into();
    let islands = !SiteFiles::is_console(&path);
    #[cfg(feature = "ssr")]
    let locale = i18n::remember();
    #[cfg(not(feature = "ssr"))]
    let locale = i18n::locale();
    view! {
        <!DOCTYPE html>
        <html lang=locale.tag()>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <link rel="stylesheet" href=files.stylesheet/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options islands/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The routes (the server's, and the console's bundle's: the contestants' bundle has no router,
/// only islands). Data pages render in `SsrMode::Async`: the server waits for their data and sends
/// complete HTML, so they work without JavaScript and the first paint already has the rows.
#[cfg(feature = "console")]
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let locale = i18n::locale();
    view! {
        <Title formatter=|text| format!("{text} · Laurel")/>
        <Router>
            // The first stop of the keyboard. `rel="external"`: the browser jumps to the anchor
            // itself; the router leaves the link alone.
            <a class="skip-link" href="#main" rel="external">{tr!(locale, "site-skip")}</a>
            <header class="site">
                <a class="brand" href="/">"Laurel"</a>
                <LanguageSwitch locale/>
            </header>
            <main id="main" tabindex="-1">
                <Routes fallback=pages::not_found::NotFound>
                    <Route path=path!("/") view=pages::home::HomePage ssr=SsrMode::Async/>
                    <Route path=path!("/b/:board") view=pages::board::BoardPage ssr=SsrMode::Async/>
                    <Route path=path!("/b/:board/:period") view=pages::board::BoardPage ssr=SsrMode::Async/>
                    <Route path=path!("/hot/:board") view=pages::hot::HotPage ssr=SsrMode::Async/>
                    <Route path=path!("/me") view=pages::me::MePage ssr=SsrMode::Async/>
                    <Route path=path!("/verify") view=pages::verify::VerifyPage/>
                    <Route
                        path=path!("/b/:board/:period/m/:member")
                        view=pages::member::MemberPage
                        ssr=SsrMode::Async
                    />
                    <ConsoleRoutes/>
                </Routes>
            </main>
        </Router>
    }
}

/// The console's routes (under [`SiteFiles::CONSOLE_PATH`]), with its pages.
#[cfg(feature = "console")]
#[component(transparent)]
fn ConsoleRoutes() -> impl leptos_router::MatchNestedRoutes + Clone {
    view! {
        <Route path=path!("/admin") view=pages::console::ConsolePage ssr=SsrMode::Async/>
        <Route path=path!("/admin/login") view=pages::login::LoginPage/>
        <Route path=path!("/admin/audit") view=pages::audit::AuditPageView ssr=SsrMode::Async/>
        <Route path=path!("/admin/b/:board/:period") view=pages::period_console::PeriodConsolePage ssr=SsrMode::Async/>
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
        <Route path=path!("/admin/hot/:board") view=pages::hot_console::HotConsolePage ssr=SsrMode::Async/>
    }
    .into_inner()
}

/// The other languages, as links to this page in each (`?lang=`, which the server then
/// remembers). `rel="external"`: a whole new page, since every word on it changes.
#[cfg(feature = "console")]
#[component]
fn LanguageSwitch(locale: i18n::Locale) -> impl IntoView {
    let location = leptos_router::hooks::use_location();
    let others = i18n::Locale::ALL.into_iter().filter(move |l| *l != locale);
    view! {
        <nav class="languages" aria-label=tr!(locale, "site-languages")>
            {others.map(|other| {
                let href = move || {
                    let mut query = location.query.get();
                    query.replace("lang", other.tag().to_owned());
                    format!("{}{}", location.pathname.get(), query.to_query_string())
                };
                view! {
                    <a href=href rel="external" hreflang=other.tag() lang=other.tag() data-testid="language">
                        {other.own_name()}
                    </a>
                }
            }).collect_view()}
        </nav>
    }
}
