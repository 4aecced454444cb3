//! What every answer carries for the browser's protection, and the page's script policy.
//!
//! - `Content-Security-Policy`: only this origin's scripts, styles and connections; an inline
//!   script only with the nonce Leptos gives each rendered page (its hydration loader and
//!   resource data), and WebAssembly compiled from this origin's bundle. Images from this origin,
//!   `data:` URLs and any https server (`img-src 'self' data: https:`): members' avatars are on
//!   the host platform's servers (profiles' `avatar_url`); plain http images stay refused (mixed
//!   content), and pages show https avatars only. No page may be framed (`frame-ancestors
//!   'none'`): the console can never be clickjacked.
//! - `X-Frame-Options: DENY` for browsers that predate `frame-ancestors`,
//!   `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin`.
//! - `Strict-Transport-Security` when the public URL (`--public-url`) is https.
//!
//! A page sets its own policy, with its nonce, while it renders ([`page_headers`]); every other
//! answer gets the policy without a nonce, which allows no inline script at all. A page is
//! `Cache-Control: no-cache` with no ETag: its nonce makes every answer different.

use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// The policy, with the page's nonce when there is one.
pub fn policy(nonce: Option<&str>) -> String {
    let scripts = match nonce {
        Some(nonce) => format!("'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"),
        None => "'self' 'wasm-unsafe-eval'".to_owned(),
    };
    format!(
        "default-src 'self'; script-src {scripts}; style-src 'self'; img-src 'self' data: https:; \
         connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'"
    )
}

/// Called while a page renders (the app's context): its policy names the nonce Leptos put on the
/// page's inline scripts. Server functions have no nonce and keep the default policy.
///
/// A page is also `Cache-Control: no-cache`: a browser asks again on every visit; and `Vary:
/// accept-language, cookie`, as its language comes from them. It carries no
/// ETag — with a new nonce in every answer, no two answers are the same bytes, so a tag could
/// never match; the bundle files it names are what browsers keep (`assets`).
pub fn page_headers() {
    let Some(nonce) = leptos::nonce::use_nonce() else { return };
    let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() else { return };
    if let Ok(value) = HeaderValue::from_str(&policy(Some(&nonce))) {
        response.insert_header(header::CONTENT_SECURITY_POLICY, value);
    }
    response.insert_header(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Its words follow the reader's language (`app::i18n`): `Accept-Language` or the `lang` cookie.
    response.insert_header(header::VARY, HeaderValue::from_static("accept-language, cookie"));
}

/// The header layers, outermost last: each sets its header unless the answer has it already.
pub struct Headers {
    pub csp: SetResponseHeaderLayer<HeaderValue>,
    pub frame: SetResponseHeaderLayer<HeaderValue>,
    pub nosniff: SetResponseHeaderLayer<HeaderValue>,
    pub referrer: SetResponseHeaderLayer<HeaderValue>,
    /// Sets nothing unless the public URL is https.
    pub hsts: SetResponseHeaderLayer<Option<HeaderValue>>,
}

impl Headers {
    pub fn new(https: bool) -> Self {
        let set = |name: HeaderName, value: &str| {
            SetResponseHeaderLayer::if_not_present(
                name,
                HeaderValue::from_str(value).expect("a static header"),
            )
        };
        Self {
            csp: set(header::CONTENT_SECURITY_POLICY, &policy(None)),
            frame: set(header::X_FRAME_OPTIONS, "DENY"),
            nosniff: set(header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            referrer: set(header::REFERRER_POLICY, "same-origin"),
            hsts: SetResponseHeaderLayer::if_not_present(
                header::STRICT_TRANSPORT_SECURITY,
                https.then(|| HeaderValue::from_static("max-age=31536000")),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::policy;

    /// The sources of `directive` in `csp`, in order.
    fn sources<'a>(csp: &'a str, directive: &str) -> Vec<&'a str> {
        let found = csp.split(';').map(str::trim).find(|d| d.split(' ').next() == Some(directive));
        found.expect(directive).split(' ').skip(1).collect()
    }

    #[test]
    fn images_come_from_this_origin_data_urls_and_https_servers_only() {
        for csp in [policy(None), policy(Some("abc"))] {
            // Avatars live on the host platform's https servers; an http image is never allowed.
            assert_eq!(sources(&csp, "img-src"), ["'self'", "data:", "https:"], "{csp}");
            // Nothing else is opened to other origins with it.
            for directive in ["default-src", "style-src", "connect-src"] {
                assert_eq!(sources(&csp, directive), ["'self'"], "{directive}: {csp}");
            }
        }
    }
}
