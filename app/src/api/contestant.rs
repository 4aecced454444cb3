//! The contestant's server functions: opening a signed link ("me") and reading who "me" is. "Me"
//! only changes what the pages highlight; it grants nothing.

use crate::error::AppError;
use leptos::prelude::*;

/// Checks a signed link and remembers the contestant in the "me" cookie. Answers the member.
#[server(endpoint = "claim_link")]
pub async fn claim_link(member: String, expires: i64, sig: String) -> Result<String, AppError> {
    use super::session;
    use crate::i18n::tr;
    use engine::access::links::LinkError;
    let engine = super::engine()?;
    let now = jiff::Timestamp::now();
    let signed = engine.access().verify_contestant(&member, expires, &sig, now).map_err(|e| {
        // The engine's words for these (its `Display`), in the reader's language.
        let l = crate::i18n::locale();
        match e {
            LinkError::NotConfigured => AppError::Invalid(tr!(l, "error-link-not-configured")),
            LinkError::Expired => AppError::Denied(tr!(l, "error-link-expired")),
            LinkError::Forged => AppError::Denied(tr!(l, "error-link-forged")),
        }
    })?;
    let headers = super::request_headers().await?;
    let max_age = signed.expires - now.as_second();
    expect_context::<leptos_axum::ResponseOptions>()
        .append_header(http::header::SET_COOKIE, session::set_me(&headers, &signed.cookie_value(), max_age));
    Ok(signed.member.to_string())
}

/// The contestant "me" names, if a valid link was opened in this browser.
#[server(endpoint = "read_me")]
pub async fn read_me() -> Result<Option<String>, AppError> {
    use engine::access::links::SignedMember;
    let headers = super::request_headers().await?;
    let Some((member, expires, sig)) =
        super::session::cookie(&headers, super::session::ME_COOKIE).and_then(SignedMember::from_cookie_value)
    else {
        return Ok(None);
    };
    let engine = super::engine()?;
    Ok(engine
        .access()
        .verify_contestant(&member, expires, &sig, jiff::Timestamp::now())
        .ok()
        .map(|s| s.member.to_string()))
}

/// What "me" sees of their own standing while the period is publicly frozen: their live points
/// and how many of their entries are not public yet (nobody else's). None without "me", or when
/// the period is not publicly frozen.
#[server(endpoint = "read_my_live")]
pub async fn read_my_live(board: String, period: String) -> Result<Option<MyLive>, AppError> {
    let Some(member) = read_me().await? else { return Ok(None) };
    let engine = super::engine()?;
    let slug = super::board_slug(board)?;
    let board = engine.reads().board(&slug).await?;
    let key = engine.reads().period_of(&board, Some(&period))?;
    let member = super::member_id(member)?;
    Ok(engine
        .reads()
        .my_live_standing(&slug, key, &member)
        .await?
        .map(|(points, pending)| MyLive { points, pending }))
}

/// A member's own live standing during a public freeze (see [`read_my_live`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MyLive {
    /// None: no points yet.
    pub points: Option<i64>,
    /// Their entries recorded after the freeze.
    pub pending: u64,
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use crate::i18n::{Locale, tr};
    use engine::access::links::LinkError;

    #[test]
    fn a_refused_link_says_what_the_engine_says_in_english_and_chinese_too() {
        assert_eq!(tr!(Locale::En, "error-link-not-configured"), LinkError::NotConfigured.to_string());
        assert_eq!(tr!(Locale::En, "error-link-expired"), LinkError::Expired.to_string());
        assert_eq!(tr!(Locale::En, "error-link-forged"), LinkError::Forged.to_string());
        assert_eq!(tr!(Locale::ZhCn, "error-link-expired"), "该链接已过期，请索取新链接");
    }
}
