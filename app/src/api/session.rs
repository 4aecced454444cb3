//! The cookies: the console session (an admin) and "me" (a contestant, from a signed link) — their
//! names, how they are read from a request and how they are set and cleared. The one place that
//! knows them; the REST API (`server/src/rest/auth.rs`) and the server functions both use it.
//! Server side only.
//!
//! Both are HttpOnly and `Secure` behind https; the session is SameSite=Strict, "me" SameSite=Lax
//! (the link is opened from the host platform, another site). `same_site` is the cross-site check
//! the server runs before any request that could change something (`http::refuse_cross_site`).
//! The keys page's one-time `laurel_new_key` cookie, which carries a new key across a plain form
//! post, lives with that page in `keys.rs`.

use http::HeaderMap;
use http::header::{COOKIE, HeaderValue};

/// The address a request came from: the connection's peer, or behind a trusted proxy the client
/// the proxy names (`laurel serve --trusted-proxies`). The server puts it in every request's
/// extensions; console logins are throttled by it (`engine::admins`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub std::net::IpAddr);

/// The cookie holding a console session (`engine::admins`).
pub const SESSION_COOKIE: &str = "laurel_session";

/// The value of cookie `name` in a request, if sent.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// The session token a request carries.
pub fn session_token(headers: &HeaderMap) -> Option<&str> {
    cookie(headers, SESSION_COOKIE)
}

/// The cookie naming the contestant who opened a signed link (`engine::links`).
pub const ME_COOKIE: &str = "laurel_me";

/// `Set-Cookie` for "me": the signed link's parts, so it is checked again on every read and ends
/// with the link. SameSite=Lax: the link is opened from the host platform, another site.
pub fn set_me(headers: &HeaderMap, value: &str, max_age_seconds: i64) -> HeaderValue {
    let secure = if https(headers) { "; Secure" } else { "" };
    let cookie =
        format!("{ME_COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_seconds}{secure}");
    HeaderValue::from_str(&cookie).expect("member ids and hex are cookie-safe")
}

/// Whether the request reached us over https (directly or through a proxy that says so): the
/// cookie is then marked `Secure`.
pub(crate) fn https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"))
}

/// `Set-Cookie` for a new session: HttpOnly (no script reads it), SameSite=Strict (no other site
/// sends it), Secure behind https, expiring with the session.
pub fn set_session(headers: &HeaderMap, token: &str, max_age_seconds: i64) -> HeaderValue {
    let secure = if https(headers) { "; Secure" } else { "" };
    let cookie = format!(
        "{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age_seconds}{secure}"
    );
    HeaderValue::from_str(&cookie).expect("session tokens are hex")
}

/// `Set-Cookie` that removes the session cookie.
pub fn clear_session() -> HeaderValue {
    HeaderValue::from_static("laurel_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// Refuses a state-changing request sent from another site (a cross-site form post): browsers
/// say where a request comes from with `Sec-Fetch-Site` and `Origin`. Requests without either
/// (host platforms, curl) are not browser form posts and pass. An `Origin` passes when it names
/// the `Host` the request was sent to, or the public origin (`--public-url`: behind a proxy that
/// rewrites `Host`, the origin the browser sees).
pub fn same_site(headers: &HeaderMap, public_origin: Option<&str>) -> Result<(), String> {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok())
        && !matches!(site, "same-origin" | "none")
    {
        return Err(format!("a {site} request may not change anything here"));
    }
    if let Some(origin) = headers.get(http::header::ORIGIN).and_then(|v| v.to_str().ok()) {
        let host = headers.get(http::header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
        let origin_host = origin.split_once("://").map_or(origin, |(_, rest)| rest);
        if origin == "null" || (origin_host != host && Some(origin) != public_origin) {
            return Err(format!("a request from {origin} may not change anything here"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let h = headers(&[("cookie", "a=1; laurel_session=laurel_s_ab12; b=2")]);
        assert_eq!(session_token(&h), Some("laurel_s_ab12"));
        assert_eq!(session_token(&headers(&[("cookie", "laurel_session=")])), None);
        assert_eq!(session_token(&HeaderMap::new()), None);
    }

    #[test]
    fn the_cookie_is_http_only_strict_and_secure_behind_https() {
        let plain = set_session(&HeaderMap::new(), "t", 60);
        assert_eq!(plain, "laurel_session=t; Path=/; HttpOnly; SameSite=Strict; Max-Age=60");
        let proxied = set_session(&headers(&[("x-forwarded-proto", "https")]), "t", 60);
        assert!(proxied.to_str().unwrap().ends_with("; Secure"));
    }

    #[test]
    fn cross_site_posts_are_refused_same_origin_ones_pass() {
        let host = ("host", "laurel.example");
        assert!(same_site(&headers(&[host, ("sec-fetch-site", "cross-site")]), None).is_err());
        assert!(same_site(&headers(&[host, ("sec-fetch-site", "same-site")]), None).is_err());
        assert!(same_site(&headers(&[host, ("origin", "https://evil.example")]), None).is_err());
        assert!(same_site(&headers(&[host, ("origin", "null")]), None).is_err());
        assert!(
            same_site(
                &headers(&[host, ("sec-fetch-site", "same-origin"), ("origin", "https://laurel.example")]),
                None
            )
            .is_ok()
        );
        assert!(same_site(&headers(&[host]), None).is_ok(), "no browser headers: not a browser form post");
        // Behind a proxy that rewrites Host: the public origin passes, nothing else does.
        let proxied = [("host", "10.0.0.7:3000"), ("origin", "https://laurel.example")];
        assert!(same_site(&headers(&proxied), None).is_err());
        assert!(same_site(&headers(&proxied), Some("https://laurel.example")).is_ok());
        let other = [("host", "10.0.0.7:3000"), ("origin", "https://evil.example")];
        assert!(same_site(&headers(&other), Some("https://laurel.example")).is_err());
    }
}
