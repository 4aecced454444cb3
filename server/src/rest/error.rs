//! The API's one error shape, and how engine errors and body rejections map to it.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use engine::EngineError;
use serde::de::DeserializeOwned;
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub error: &'static str,
    pub detail: String,
}

impl ApiError {
    pub fn new(status: StatusCode, error: &'static str, detail: impl Into<String>) -> Self {
        Self { status, error, detail: detail.into() }
    }

    pub fn invalid(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", detail)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({ "error": self.error, "detail": self.detail }))).into_response()
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        let detail = e.to_string();
        match e {
            EngineError::NotFound { .. } => Self::new(StatusCode::NOT_FOUND, "not_found", detail),
            EngineError::Invalid(_) => Self::invalid(detail),
            EngineError::WrongOperator { .. } => Self::new(StatusCode::CONFLICT, "wrong_operator", detail),
            EngineError::BoardExists(_) => Self::new(StatusCode::CONFLICT, "board_exists", detail),
            EngineError::Ledger(_) | EngineError::Redis(_) => {
                tracing::error!(error = %detail, "request failed on a store");
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    "a store is unavailable; retry later",
                )
            }
        }
    }
}

/// `axum::Json` with the API's error shape: malformed JSON is 400 `malformed_json`, a body of the
/// wrong shape 422 `invalid_body`, another content type 415.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(ApiJson(v)),
            Err(rejection) => Err(match rejection {
                JsonRejection::JsonSyntaxError(e) => {
                    ApiError::new(StatusCode::BAD_REQUEST, "malformed_json", e.body_text())
                }
                JsonRejection::JsonDataError(e) => {
                    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", e.body_text())
                }
                JsonRejection::MissingJsonContentType(e) => {
                    ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", e.body_text())
                }
                other => ApiError::new(StatusCode::BAD_REQUEST, "bad_request", other.body_text()),
            }),
        }
    }
}
