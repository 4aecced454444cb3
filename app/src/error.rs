//! What the UI's server functions fail with. Internal details are logged on the server and never
//! sent to the browser.
//!
//! The messages the app words itself are in the reader's language (`crate::i18n`): those carried
//! in a variant are made where the error is (on the server, for the request's reader); those of
//! `Unavailable` and `Transport` when the error is shown. What the engine says (its `Display`,
//! the API's own details) stays as it is.

use crate::i18n::{locale, tr};
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    /// The board, period or member does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The request was refused; the message says why.
    #[error("{0}")]
    Invalid(String),
    /// A form field is wrong: the console shows the message next to the field.
    #[error("{field}: {message}")]
    Field { field: String, message: String },
    /// Not signed in, a wrong password, too many attempts, or a request from another site.
    #[error("{0}")]
    Denied(String),
    /// A store is unreachable or failed; details are in the server log.
    #[error("{}", unavailable())]
    Unavailable,
    /// The call did not reach the server or its answer could not be read.
    #[error("{}", transport(.0))]
    Transport(String),
}

/// What `Unavailable` says, in the reader's language.
fn unavailable() -> String {
    tr!(locale(), "error-unavailable")
}

/// What `Transport` says around its detail, in the reader's language.
fn transport(detail: &str) -> String {
    tr!(locale(), "error-transport", detail = detail)
}

impl AppError {
    /// The HTTP status a page showing this error is served with.
    pub fn status(&self) -> u16 {
        match self {
            AppError::NotFound(_) => 404,
            AppError::Invalid(_) | AppError::Field { .. } => 400,
            AppError::Denied(_) => 403,
            AppError::Unavailable => 503,
            AppError::Transport(_) => 500,
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        AppError::Transport(value.to_string())
    }
}

impl From<domain::board::DraftError> for AppError {
    fn from(e: domain::board::DraftError) -> Self {
        AppError::Field { field: e.field, message: e.message }
    }
}

impl AppError {
    /// The message for form field `field`, when this error is about it.
    pub fn for_field(&self, field: &str) -> Option<String> {
        match self {
            AppError::Field { field: f, message } if f == field => Some(message.clone()),
            _ => None,
        }
    }
}

#[cfg(feature = "ssr")]
impl From<engine::EngineError> for AppError {
    fn from(e: engine::EngineError) -> Self {
        use engine::EngineError as E;
        match e {
            E::NotFound { what } => AppError::NotFound(tr!(locale(), "error-no-such", what = what)),
            E::Gone(reason) => AppError::NotFound(reason),
            E::Invalid(_)
            | E::WrongOperator { .. }
            | E::BatchTooLarge { .. }
            | E::BoardExists(_)
            | E::Refused { .. } => AppError::Invalid(e.to_string()),
            E::Ledger(_) | E::Redis(_) => {
                tracing::error!(error = %e, "server function failed");
                AppError::Unavailable
            }
        }
    }
}
