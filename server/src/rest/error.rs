//! The API's one error shape, and how engine errors and path and query rejections map to it
//! (a body's: `body.rs`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::ErrorCode;
use engine::EngineError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Every 4xx and 5xx answer of the API.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// A machine-readable code, such as `not_found`, `wrong_operator` or `invalid_transition`
    /// (docs/API.md lists them all).
    #[schema(value_type = String, example = "not_found")]
    pub error: ErrorCode,
    /// A human sentence with the reason.
    pub detail: String,
}

#[derive(Debug)]
pub struct ApiError {
    /// The reason, which also says the status.
    pub code: ErrorCode,
    pub detail: String,
    /// Sent as `Retry-After` (whole seconds), with 429 and a full server's 503.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self { code, detail: detail.into(), retry_after: None }
    }

    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.code.status()).expect("every code's status is a valid HTTP status")
    }

    /// 429 `rate_limited` with `Retry-After`: the key is over its limit; nothing was done.
    pub fn rate_limited(limited: engine::access::keys::RateLimited) -> Self {
        let seconds = limited.retry_after_seconds;
        let unit = if seconds == 1 { "second" } else { "seconds" };
        Self {
            retry_after: Some(seconds),
            ..Self::new(
                ErrorCode::RateLimited,
                format!("this key is over its rate limit; nothing was done; retry in {seconds} {unit}"),
            )
        }
    }

    /// The same error with a `Retry-After` of `seconds`.
    pub fn retry_after(self, seconds: u64) -> Self {
        Self { retry_after: Some(seconds), ..self }
    }

    pub fn invalid(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::Invalid, detail)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response =
            (self.status(), axum::Json(ErrorBody { error: self.code, detail: self.detail })).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        let detail = e.to_string();
        match e {
            EngineError::NotFound { .. } => Self::new(ErrorCode::NotFound, detail),
            EngineError::Invalid(_) => Self::invalid(detail),
            EngineError::Gone(_) => Self::new(ErrorCode::SnapshotExpired, detail),
            EngineError::WrongOperator { .. } => Self::new(ErrorCode::WrongOperator, detail),
            EngineError::BatchTooLarge { .. } => Self::new(ErrorCode::BatchTooLarge, detail),
            EngineError::BoardExists(_) => Self::new(ErrorCode::BoardExists, detail),
            EngineError::Refused { code, .. } => Self::new(code, detail),
            EngineError::Ledger(_) | EngineError::Redis(_) => {
                tracing::error!(error = %detail, "request failed on a store");
                Self::new(ErrorCode::Unavailable, "a store is unavailable; retry later")
            }
        }
    }
}

/// `axum::extract::Query` with the API's error shape: 400 `invalid_query` and the reason.
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> axum::extract::FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(v)| ApiQuery(v))
            .map_err(|e| ApiError::new(ErrorCode::InvalidQuery, e.body_text()))
    }
}

/// `axum::extract::Path` with the API's error shape: 400 `invalid_path` and the reason (a
/// segment that is not valid UTF-8, an id that is not a number or overflows).
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> axum::extract::FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(v)| ApiPath(v))
            .map_err(|e| ApiError::new(ErrorCode::InvalidPath, e.body_text()))
    }
}

/// Any path under `/api/v1/` that no route serves: 404 `not_found`, in the API's shape (the
/// router's fallback asks for it; every other unknown path is the app's HTML 404 page).
pub fn no_route(path: &str) -> ApiError {
    ApiError::new(ErrorCode::NotFound, format!("no API route at {path}"))
}

/// A route called with a method it does not serve: 405 `method_not_allowed`.
pub async fn wrong_method(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(ErrorCode::MethodNotAllowed, format!("{} does not answer {method}", uri.path()))
}
