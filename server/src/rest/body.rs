//! A request's JSON body, as every handler that takes one receives it: read whole by the
//! extractor, parsed by the handler once it has checked its caller and what the path names, so
//! an anonymous caller or one refused a board learns nothing about the body. Every refusal is in
//! the API's error shape: malformed JSON is 400 `malformed_json`, JSON of the wrong shape 422
//! `invalid_body`, a body over the server's limit 413 `body_too_large`.

use super::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use domain::ErrorCode;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The body, read but not yet parsed (`parse`, `parse_or_default`).
pub struct JsonBody(Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        // axum answers these in text; the API answers them in its shape.
        Bytes::from_request(request, state).await.map(JsonBody).map_err(|e| {
            let code = if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ErrorCode::BodyTooLarge
            } else {
                ErrorCode::MalformedJson
            };
            ApiError::new(code, e.body_text())
        })
    }
}

impl JsonBody {
    /// The body as a `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        json_body(&self.0)
    }

    /// An optional body: none at all (or only blanks) or `null` is `T::default()`.
    pub fn parse_or_default<T: DeserializeOwned + Default>(&self) -> Result<T, ApiError> {
        if self.0.iter().all(u8::is_ascii_whitespace) {
            return Ok(T::default());
        }
        // An optional body is an object or nothing; serde would read an array as a struct's
        // fields in order, so `[null, null]` is refused here.
        if self.0.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
            return Err(ApiError::new(
                ErrorCode::InvalidBody,
                "the body must be a JSON object, not an array",
            ));
        }
        Ok(self.parse::<Option<T>>()?.unwrap_or_default())
    }
}

/// Malformed JSON is 400 `malformed_json`; JSON of the wrong shape is 422 `invalid_body`.
fn json_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let invalid = |e: serde_json::Error| match e.classify() {
        serde_json::error::Category::Data => ApiError::new(ErrorCode::InvalidBody, e.to_string()),
        _ => ApiError::new(ErrorCode::MalformedJson, e.to_string()),
    };
    let mut value: serde_json::Value = serde_json::from_slice(bytes).map_err(invalid)?;
    whole_numbers(&mut value);
    T::deserialize(value).map_err(invalid)
}

/// JSON Schema (and so the OpenAPI document) reads `2.0` as the integer 2: every whole number
/// written with a fraction becomes the integer it is, so an `i64` field takes it. Only exactly
/// representable ones (|n| <= 2^53); anything else stays as sent and is refused as before.
fn whole_numbers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() <= 9_007_199_254_740_992.0
            {
                *value = serde_json::Value::from(f as i64);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Reason)]
pub struct ReasonIn {
    /// Recorded in the audit trail; required to reject a late write, to revoke, to hide and to
    /// unhide.
    pub reason: Option<String>,
}

/// The body of the routes that need a reason (reject a late write, revoke, hide, unhide): the
/// same `ReasonIn`, described with the reason required.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RequiredReason)]
#[allow(dead_code, reason = "schema-only: these routes read ReasonIn and check the reason")]
pub struct RequiredReasonIn {
    /// Recorded in the audit trail: some non-blank text, at most 1000 characters.
    #[schema(pattern = r"\S", max_length = 1000)]
    pub reason: String,
}
