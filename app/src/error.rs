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
            E::NotFound { what } => AppError::NotFound(missing(locale(), &what)),
            E::Gone(reason) => AppError::NotFound(reason),
            E::Invalid(_) => AppError::Invalid(refused(locale(), domain::ErrorCode::Invalid, &e.to_string())),
            E::WrongOperator { .. } => {
                AppError::Invalid(refused(locale(), domain::ErrorCode::WrongOperator, &e.to_string()))
            }
            E::BatchTooLarge { .. } => {
                AppError::Invalid(refused(locale(), domain::ErrorCode::BatchTooLarge, &e.to_string()))
            }
            E::BoardExists(_) => {
                AppError::Invalid(refused(locale(), domain::ErrorCode::BoardExists, &e.to_string()))
            }
            E::Refused { code, detail } => AppError::Invalid(refused(locale(), code, &detail)),
            E::Ledger(_) | E::Redis(_) => {
                tracing::error!(error = %e, "server function failed");
                AppError::Unavailable
            }
        }
    }
}

/// A refusal in the reader's words: the code's sentence where the catalogue has one, with the
/// engine's own detail (English, as the API says it) beside it.
#[cfg(feature = "ssr")]
fn refused(l: crate::i18n::Locale, code: domain::ErrorCode, detail: &str) -> String {
    tr!(l, "error-refused", code = code.as_str(), detail = detail)
}

/// What was not found, in the reader's words.
#[cfg(feature = "ssr")]
fn missing(l: crate::i18n::Locale, what: &engine::Missing) -> String {
    use engine::Missing as M;
    match what {
        M::Board(slug) | M::HotBoard(slug) => tr!(l, "error-no-such-board", board = slug.as_str()),
        M::Period { key, .. } => tr!(l, "error-no-such-period", period = key.as_str()),
        M::Member(member) => tr!(l, "error-no-such-member", member = member.as_str()),
        M::Other(what) => tr!(l, "error-no-such", what = what.as_str()),
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use engine::Missing;

    #[test]
    fn what_was_not_found_is_said_in_each_language() {
        let member = Missing::Member(domain::MemberId::parse("ada").unwrap());
        let period = Missing::Period { key: "2026-W99".into(), why: Some("no such week".into()) };
        assert_eq!(missing(Locale::En, &member), "there is no member ada");
        assert_eq!(missing(Locale::ZhCn, &member), "找不到成员 ada");
        assert_eq!(missing(Locale::ZhCn, &period), "找不到周期 2026-W99");
        // The API keeps its English words, with why the key names no period.
        assert_eq!(period.to_string(), "period 2026-W99 (no such week)");
    }

    #[test]
    fn a_refusal_keeps_the_engines_detail_and_says_its_code_in_chinese() {
        let detail = "2 late writes wait for a decision";
        assert_eq!(refused(Locale::En, domain::ErrorCode::LatePending, detail), detail);
        assert_eq!(
            refused(Locale::ZhCn, domain::ErrorCode::LatePending, detail),
            format!("还有迟到写入等待处理，处理完才能结算（{detail}）")
        );
        // A code without a sentence of its own still reads as a refusal.
        assert!(refused(Locale::ZhCn, domain::ErrorCode::NotMovable, detail).starts_with("请求被拒绝"));
    }
}
