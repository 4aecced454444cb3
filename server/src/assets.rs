//! The site (wasm, js, css, public files) embedded in the binary at release build time, so the
//! binary alone serves the full UI from any directory.
//!
//! `scripts/build` names the bundle files by their content (`pkg/laurel.<hash>.wasm`, …) and puts
//! a brotli (`.br`) and a gzip (`.gz`) copy beside each: a hashed file never changes, so browsers
//! keep it for a year without asking again, and the copy a browser accepts is sent as it is,
//! compressed once at build time rather than on every request.
//!
//! The bundle names are found at start ([`site_files`]). Each file is answered in the encoding the
//! browser accepts (`Vary: accept-encoding`); content-hashed `pkg/` files are `Cache-Control:
//! public, max-age=31536000, immutable`, anything else `no-cache` with an ETag.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "../target/site"]
struct Site;

/// What a file whose name carries its content hash is answered with.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The compressed copies `scripts/build` makes, best first: (`Content-Encoding`, file suffix).
const ENCODINGS: [(&str, &str); 2] = [("br", ".br"), ("gzip", ".gz")];

/// The names of the bundle files this binary carries, found once at start
/// ([`app::SiteFiles`]: the contestants' bundle, the console's, the stylesheet); None when it
/// carries no bundle (a server built without scripts/build).
pub fn site_files() -> Option<app::SiteFiles> {
    let mut files = app::SiteFiles::default();
    for path in Site::iter() {
        let Some(name) = path.strip_prefix("pkg/") else { continue };
        let Some((stem, hash, ext)) = hashed(name) else { continue };
        let hashed_stem = format!("{stem}.{hash}");
        match (stem, ext) {
            ("laurel", "wasm") => files.contestant = hashed_stem,
            ("laurel-console", "wasm") => files.console = hashed_stem,
            ("laurel", "css") => files.stylesheet = format!("/pkg/{name}"),
            _ => {}
        }
    }
    (files.contestant != app::SiteFiles::default().contestant).then_some(files)
}

/// `<stem>.<hash>.<ext>` (the hash: 16 hex digits) split in three; None for any other name.
fn hashed(name: &str) -> Option<(&str, &str, &str)> {
    let (rest, ext) = name.rsplit_once('.')?;
    let (stem, hash) = rest.rsplit_once('.')?;
    (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some((stem, hash, ext))
}

/// The encodings of [`ENCODINGS`] this request accepts, best first.
fn accepted(headers: &HeaderMap) -> impl Iterator<Item = (&'static str, &'static str)> {
    let accept = headers.get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("");
    // `br;q=0` refuses br; any other weight accepts it (the order of preference is ours).
    let takes = |coding: &str| {
        accept.split(',').any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let refused =
                |p: &str| p.strip_prefix("q=").and_then(|q| q.trim().parse::<f32>().ok()) == Some(0.0);
            parts.next().is_some_and(|c| c.eq_ignore_ascii_case(coding)) && !parts.any(refused)
        })
    };
    ENCODINGS.into_iter().filter(move |(coding, _)| takes(coding))
}

/// Whether an embedded file is at this path.
pub fn exists(path: &str) -> bool {
    Site::get(path.trim_start_matches('/')).is_some()
}

/// Serves an embedded file, or None when there is none at this path.
pub fn serve(req: &Request<Body>) -> Option<Response> {
    let path = req.uri().path().trim_start_matches('/');
    let original = Site::get(path)?;
    let mime = original.metadata.mimetype().to_owned();
    let has_copies = ENCODINGS.iter().any(|(_, suffix)| Site::get(&format!("{path}{suffix}")).is_some());
    let chosen = accepted(req.headers())
        .find_map(|(coding, suffix)| Site::get(&format!("{path}{suffix}")).map(|file| (coding, file)));
    let (coding, file) = match chosen {
        Some((coding, file)) => (Some(coding), file),
        None => (None, original),
    };
    let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()[..16]));
    let unchanged = req.headers().get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes());
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        // The embedded bytes as they are (a release build borrows them; no copy per request).
        Body::from(file.data).into_response()
    };
    let headers = response.headers_mut();
    if let Ok(mime) = HeaderValue::from_str(&mime) {
        headers.insert(header::CONTENT_TYPE, mime);
    }
    if let Some(coding) = coding {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
    }
    if has_copies {
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let cache = if path.starts_with("pkg/") && hashed(name).is_some() { IMMUTABLE } else { "no-cache" };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    Some(response)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(accept: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(accept).unwrap());
        h
    }

    #[test]
    fn encodings_are_taken_in_our_order_unless_refused() {
        let names = |a: &str| accepted(&headers(a)).map(|(c, _)| c).collect::<Vec<_>>();
        assert_eq!(names("gzip, deflate, br, zstd"), ["br", "gzip"]);
        assert_eq!(names("gzip"), ["gzip"]);
        assert_eq!(names("br;q=0, gzip;q=0.5"), ["gzip"]);
        assert_eq!(names("br;q=0.0, GZIP"), ["gzip"]);
        assert_eq!(names("br;q=0.1"), ["br"]);
        assert_eq!(names("identity"), Vec::<&str>::new());
        assert_eq!(names(""), Vec::<&str>::new());
    }

    #[test]
    fn only_content_hashed_names_are_hashed() {
        assert_eq!(hashed("laurel.0123456789abcdef.wasm"), Some(("laurel", "0123456789abcdef", "wasm")));
        assert_eq!(
            hashed("laurel-console.0123456789abcdef.js"),
            Some(("laurel-console", "0123456789abcdef", "js"))
        );
        assert_eq!(hashed("laurel.wasm"), None);
        assert_eq!(hashed("laurel.0123456789abcdeg.wasm"), None);
        assert_eq!(hashed("favicon.svg"), None);
    }
}
