//! The top-N answer cache: the bytes of `GET …/top` answers, kept under the request target they
//! were asked with, so a repeat within the page's second is answered before routing
//! (`http::CachedTop`). The engine shares the page itself (`Reads::top_shared`); this is the HTTP
//! layer's copy of what it made of it. Most top-N reads are such repeats; answering them without
//! a route to match, nothing to extract and no board or period to resolve removes about a third
//! of a cached read's cost (docs/BENCHMARKS.md, reads).

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// The most answers kept at once.
const KEPT_ANSWERS: usize = 1024;

/// Top-N answer bodies by request target.
#[derive(Default)]
pub struct TopBytes {
    kept: Mutex<HashMap<Box<str>, Kept>>,
}

/// An answer and how long it may be given again: until the page's time is up
/// (`engine::reads::SharedTop::until`) and while the engine's read epoch is the one it was made in.
struct Kept {
    until: Instant,
    epoch: u64,
    body: Bytes,
}

impl TopBytes {
    /// Answers `body`, the JSON made of a page that holds until `until`, and keeps it under
    /// `asked` (the request target) when there is one.
    pub fn answer(&self, asked: Option<&str>, body: Bytes, until: Instant, epoch: u64) -> Response {
        if let Some(asked) = asked {
            self.keep(asked, Kept { until, epoch, body: body.clone() });
        }
        json_response(body)
    }

    /// The answer kept under `asked`, if it still holds.
    pub fn get(&self, asked: &str, epoch: u64) -> Option<Bytes> {
        let kept = self.kept.lock().expect("top answers");
        let answer = kept.get(asked)?;
        (answer.epoch == epoch && Instant::now() < answer.until).then(|| answer.body.clone())
    }

    fn keep(&self, asked: &str, answer: Kept) {
        let mut kept = self.kept.lock().expect("top answers");
        if kept.len() >= KEPT_ANSWERS {
            let now = Instant::now();
            kept.retain(|_, a| a.until > now);
        }
        // Whatever else readers ask with, the answers of the readers before them stay.
        if kept.len() < KEPT_ANSWERS || kept.contains_key(asked) {
            kept.insert(asked.into(), answer);
        }
    }

    #[cfg(test)]
    pub(crate) fn keep_for_test(&self, asked: &str, body: Bytes, epoch: u64) {
        let until = Instant::now() + std::time::Duration::from_secs(1);
        self.keep(asked, Kept { until, epoch, body });
    }
}

/// A JSON body made ahead, answered as `Json` answers one.
pub fn json_response(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], Body::from(body)).into_response()
}
