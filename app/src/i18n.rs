//! Every word a page shows, in the reader's language: English or Simplified Chinese.
//!
//! **The catalogues** are Fluent files, one folder per language, compiled in (`fluent-templates`):
//! `app/locales/public/<tag>/*.ftl` holds the contestants' pages and is in both bundles;
//! `app/locales/console/<tag>/*.ftl` holds the console's and is only where the feature `console`
//! is (the server and the console's bundle), as the console's code is. A page says
//! `tr!(locale, "points-labelled", points = n)`; [`tests`] fails when a key a page names is missing
//! from a catalogue, or one language has a key the other lacks.
//!
//! **The reader's language** ([`locale`]) is chosen per request, on the server: `?lang=` first
//! (the switch in the site's header is such a link; the page then remembers it in the `lang`
//! cookie, [`remember`]), then that cookie, then the browser's `Accept-Language` (the first
//! language it lists that the catalogues have), else English. In the browser the page's
//! `<html lang>`, set by the server, is the answer, so an island or a console page rendered after
//! a client-side navigation speaks as the server did. Server functions that answer in words
//! ask the same request.
//!
//! **Numbers and instants** follow the locale too: [`Say`] gives the catalogue's words and
//! `domain`'s formatters (`12 345` / `12,345`; "Mon 2026-12-07 01:00" / "2026年12月7日 周一 01:00").

pub use domain::local::Clock;
pub use domain::locale::Locale;
use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, Loader};
use std::borrow::Cow;
use std::collections::HashMap;

fluent_templates::static_loader! {
    static PUBLIC = {
        locales: "./locales/public",
        fallback_language: "en",
        // No Unicode isolation marks around arguments: they would land inside ids and numbers.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

#[cfg(feature = "console")]
fluent_templates::static_loader! {
    static CONSOLE = {
        locales: "./locales/console",
        fallback_language: "en",
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// The name of the cookie that remembers a reader's choice of language.
pub const COOKIE: &str = "lang";

/// A locale's Fluent language, made at compile time (a page looks up hundreds of words).
fn language(locale: Locale) -> &'static LanguageIdentifier {
    static EN: LanguageIdentifier = fluent_templates::langid!("en");
    static ZH_CN: LanguageIdentifier = fluent_templates::langid!("zh-CN");
    match locale {
        Locale::En => &EN,
        Locale::ZhCn => &ZH_CN,
    }
}

/// The catalogue's text for `key` in `locale`, with `args` filled in. A key no catalogue has
/// (a slip the unit tests catch) reads as itself rather than as nothing.
pub fn lookup(
    locale: Locale,
    key: &str,
    args: Option<&HashMap<Cow<'static, str>, FluentValue<'_>>>,
) -> String {
    let lang = language(locale);
    #[cfg(feature = "console")]
    if let Some(text) = CONSOLE.try_lookup_complete(lang, key, args) {
        return text;
    }
    PUBLIC.try_lookup_complete(lang, key, args).unwrap_or_else(|| key.to_owned())
}

/// `tr!(locale, "key")`, or `tr!(locale, "key", name = value, …)`: the catalogue's text for
/// `key` in `locale`. Values are anything `FluentValue` takes: text (`String`, `&str`), or a
/// number, which plural rules can select on (`{ $count -> [one] … *[other] … }`). Numbers a reader
/// sees should come formatted (`Say::number`) unless only a plural rule reads them.
macro_rules! tr {
    ($locale:expr, $key:literal) => {
        $crate::i18n::lookup($locale, $key, None)
    };
    ($locale:expr, $key:literal, $($name:ident = $value:expr),+ $(,)?) => {{
        let mut args = ::std::collections::HashMap::new();
        $(args.insert(
            ::std::borrow::Cow::Borrowed(stringify!($name)),
            $crate::i18n::arg($value),
        );)+
        $crate::i18n::lookup($locale, $key, Some(&args))
    }};
}
pub(crate) use tr;

/// A value for a catalogue's `{ $name }`.
pub fn arg<'a>(value: impl Into<FluentValue<'a>>) -> FluentValue<'a> {
    value.into()
}

/// A locale's words, numbers and instants.
pub trait Say: Copy {
    /// A count or an id-free number, grouped as the locale writes it ("12 345", "12,345").
    fn number(self, n: i64) -> String;
    /// Points in a board's unit ("12 345", or a time "1:02.345").
    fn points(self, value: i64, unit: domain::Unit) -> String;
    /// Points with their word where a sentence needs one ("1 234 points", "1,234 分"), or a
    /// time alone.
    fn labelled(self, value: i64, unit: domain::Unit) -> String;
    /// `at` in the zone named `zone`, as much as `clock` shows.
    fn time(self, at: jiff::Timestamp, zone: &str, clock: Clock) -> String;
    /// A period's state in words ("frozen", "已冻结"); its `as_str` stays the pages' data.
    fn state(self, state: domain::lifecycle::State) -> String;
}

impl Say for Locale {
    fn number(self, n: i64) -> String {
        domain::format::grouped(n, self)
    }

    fn points(self, value: i64, unit: domain::Unit) -> String {
        domain::format::points(value, unit, self)
    }

    fn labelled(self, value: i64, unit: domain::Unit) -> String {
        match unit {
            domain::Unit::Points => tr!(self, "points-labelled", points = self.number(value)),
            domain::Unit::Ms => self.points(value, unit),
        }
    }

    fn time(self, at: jiff::Timestamp, zone: &str, clock: Clock) -> String {
        domain::local::in_named_zone(at, zone, clock, self)
    }

    fn state(self, state: domain::lifecycle::State) -> String {
        use domain::lifecycle::State;
        match state {
            State::Open => tr!(self, "state-open"),
            State::Frozen => tr!(self, "state-frozen"),
            State::Settled => tr!(self, "state-settled"),
            State::Archived => tr!(self, "state-archived"),
        }
    }
}

/// The reader's language (see the module docs).
pub fn locale() -> Locale {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::use_context;
        if let Some(locale) = use_context::<Locale>() {
            return locale;
        }
        use_context::<http::request::Parts>().map(|parts| of_request(&parts).0).unwrap_or_default()
    }
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    {
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .and_then(|html| html.get_attribute("lang"))
            .and_then(|tag| Locale::from_tag(&tag))
            .unwrap_or_default()
    }
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    Locale::default()
}

/// The locale a request asks for, and whether it asked with `?lang=` (which the response then
/// remembers in the cookie).
#[cfg(feature = "ssr")]
pub fn of_request(parts: &http::request::Parts) -> (Locale, bool) {
    let query = parts.uri.query().unwrap_or_default().as_bytes();
    let asked = form_urlencoded::parse(query)
        .find_map(|(name, value)| (name == "lang").then(|| Locale::from_tag(&value)).flatten());
    if let Some(locale) = asked {
        return (locale, true);
    }
    let cookie = parts
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('=').and_then(Locale::from_tag));
    if let Some(locale) = cookie {
        return (locale, false);
    }
    // Browsers list their languages most wanted first.
    let accepted =
        parts.headers.get(http::header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let chosen = fluent_langneg::accepted_languages::parse(accepted)
        .iter()
        .find_map(|lang| Locale::from_tag(lang.language.as_str()));
    (chosen.unwrap_or_default(), false)
}

/// Resolves the page's locale once, provides it to the page's tree, and when the request chose
/// one with `?lang=`, remembers it in the cookie for a year.
#[cfg(feature = "ssr")]
pub fn remember() -> Locale {
    use leptos::prelude::{provide_context, use_context};
    let Some(parts) = use_context::<http::request::Parts>() else { return Locale::default() };
    let (locale, asked) = of_request(&parts);
    provide_context(locale);
    if asked && let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        let cookie = format!("{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax", locale.tag());
        if let Ok(value) = http::HeaderValue::from_str(&cookie) {
            response.append_header(http::header::SET_COOKIE, value);
        }
    }
    locale
}

#[cfg(test)]
mod tests;
