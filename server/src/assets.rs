//! The site (wasm, js, css, public files) embedded in the binary at release build time, so the
//! binary alone serves the full UI from any directory.

use axum::body::Body;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "../target/site"]
struct Site;

/// Whether the browser bundle is present (a server built without scripts/build has none).
pub fn has_bundle() -> bool {
    Site::get("pkg/laurel.wasm").is_some() && Site::get("pkg/laurel.js").is_some()
}

/// Serves an embedded file, or None when there is none at this path.
pub fn serve(req: &Request<Body>) -> Option<Response> {
    let path = req.uri().path().trim_start_matches('/');
    let file = Site::get(path)?;
    let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()[..16]));
    let unchanged = req.headers().get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes());
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        Body::from(file.data.into_owned()).into_response()
    };
    let headers = response.headers_mut();
    if let Ok(mime) = HeaderValue::from_str(file.metadata.mimetype()) {
        headers.insert(header::CONTENT_TYPE, mime);
    }
    // File names are not content-hashed: let browsers keep them but revalidate by ETag.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    Some(response)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
