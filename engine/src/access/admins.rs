//! Admin accounts for the console: created from the command line (`laurel admin create`),
//! passwords hashed with argon2id, logins throttled per username and per client address, sessions
//! as random cookie values of which only a SHA-256 is stored. Every login makes a new session (the
//! old cookie's session, if any, is the caller's to end), so a session id planted before login is
//! worthless.
//!
//! Throttling: [`MAX_FAILURES`] (5) failed logins of one username, or [`MAX_FAILURES_PER_ADDRESS`]
//! (20) from one client address whatever the usernames (migration 0015), within
//! [`THROTTLE_WINDOW`] (15 minutes) refuse further logins there. A session lasts [`SESSION_TTL`]
//! (12 hours); logout ends it. The cookie itself is `app/src/api/session.rs`'s.

use super::Access;
use crate::EngineError;
use crate::hex;
use crate::ledger::FailuresOf;
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use domain::ErrorCode;
use jiff::{SignedDuration, Timestamp};
use sha2::{Digest, Sha256};
use std::net::IpAddr;

/// How long a console session lasts.
pub const SESSION_TTL: SignedDuration = SignedDuration::from_hours(12);
/// Failed logins of one username within [`THROTTLE_WINDOW`] before logins are refused.
pub const MAX_FAILURES: u64 = 5;
/// Failed logins from one client address within [`THROTTLE_WINDOW`], whatever the usernames,
/// before that address's logins are refused: one address cannot try a password against every
/// username. Higher than [`MAX_FAILURES`], since several admins may share an office's address.
pub const MAX_FAILURES_PER_ADDRESS: u64 = 20;
pub const THROTTLE_WINDOW: SignedDuration = SignedDuration::from_mins(15);
/// The shortest password accepted.
pub const MIN_PASSWORD_CHARS: usize = 12;

const SESSION_PREFIX: &str = "laurel_s_";

/// A new console session: the cookie value (shown once) and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub token: String,
    pub expires_at: Timestamp,
    /// The audit trail's name for the admin (`admin:<username>`).
    pub actor: String,
}

/// Why a login failed. Unknown usernames and wrong passwords read the same.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    #[error("wrong username or password")]
    Refused,
    #[error("too many failed logins; try again in {retry_after_seconds} s")]
    Throttled { retry_after_seconds: u64 },
    #[error(transparent)]
    Engine(#[from] EngineErrorText),
}

/// An engine failure during a login, kept as text so `LoginError` stays comparable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EngineErrorText(pub String);

impl From<EngineError> for LoginError {
    fn from(e: EngineError) -> Self {
        LoginError::Engine(EngineErrorText(e.to_string()))
    }
}

impl From<crate::ledger::LedgerError> for LoginError {
    fn from(e: crate::ledger::LedgerError) -> Self {
        EngineError::from(e).into()
    }
}

/// A username: 3–64 bytes of `[a-z0-9_.-]`.
pub fn check_username(username: &str) -> Result<(), String> {
    let ok = (3..=64).contains(&username.len())
        && username.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.-".contains(&b));
    if ok { Ok(()) } else { Err("a username is 3-64 bytes of [a-z0-9_.-]".into()) }
}

fn digest(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn random_bytes<const N: usize>() -> Result<[u8; N], EngineError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| EngineError::Invalid(format!("no randomness available: {e}")))?;
    Ok(bytes)
}

/// argon2id with the crate's defaults (19 MiB, 2 passes), run off the async threads.
async fn hash_password(password: String) -> Result<String, EngineError> {
    let salt = SaltString::encode_b64(&random_bytes::<16>()?)
        .map_err(|e| EngineError::Invalid(format!("salt: {e}")))?;
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| EngineError::Invalid(format!("password hash: {e}")))
    })
    .await
    .map_err(|e| EngineError::Invalid(format!("password hash: {e}")))?
}

async fn verify_password(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash)
            .is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
    .unwrap_or(false)
}

impl Access {
    /// Creates an admin account (`admin_exists` when the username is taken).
    pub async fn create_admin(&self, username: &str, password: &str) -> Result<(), EngineError> {
        check_username(username).map_err(EngineError::Invalid)?;
        if password.chars().count() < MIN_PASSWORD_CHARS {
            return Err(EngineError::Invalid(format!(
                "a password has at least {MIN_PASSWORD_CHARS} characters"
            )));
        }
        let hash = hash_password(password.to_owned()).await?;
        if !self.core.ledger.create_admin(username, &hash, Timestamp::now()).await? {
            return Err(EngineError::Refused {
                code: ErrorCode::AdminExists,
                detail: format!("admin {username} already exists"),
            });
        }
        Ok(())
    }

    /// Checks a username and password, sent from `client` (the address the request came from,
    /// when known), and starts a new session. After [`MAX_FAILURES`] failed logins of a username,
    /// or [`MAX_FAILURES_PER_ADDRESS`] from the client's address, within [`THROTTLE_WINDOW`],
    /// every attempt is refused until the oldest of them leaves the window — a correct password
    /// included, so guessing gains nothing.
    pub async fn login(
        &self,
        username: &str,
        password: &str,
        client: Option<IpAddr>,
        now: Timestamp,
    ) -> Result<Session, LoginError> {
        let since = now.checked_sub(THROTTLE_WINDOW).unwrap_or(now);
        let address = client.map(|ip| ip.to_string());
        let mut throttles = vec![(FailuresOf::Username(username), MAX_FAILURES)];
        if let Some(address) = &address {
            throttles.push((FailuresOf::Address(address), MAX_FAILURES_PER_ADDRESS));
        }
        for (of, limit) in throttles {
            let (failures, oldest) = self.core.ledger.login_failures_since(of, since).await?;
            if failures >= limit {
                let lifts = oldest.unwrap_or(now).checked_add(THROTTLE_WINDOW).unwrap_or(now);
                let retry_after_seconds = (lifts.as_second() - now.as_second()).max(1) as u64;
                return Err(LoginError::Throttled { retry_after_seconds });
            }
        }
        let admin = self.core.ledger.admin_by_username(username).await?;
        // An unknown username costs the same hash as a known one.
        let hash = match &admin {
            Some(a) => a.password_hash.clone(),
            None => dummy_hash().await?,
        };
        let verified = verify_password(password.to_owned(), hash).await;
        let Some(admin) = admin.filter(|_| verified) else {
            self.core.ledger.record_login_failure(username, address.as_deref(), now, since).await?;
            return Err(LoginError::Refused);
        };
        let token = format!("{SESSION_PREFIX}{}", hex(&random_bytes::<32>()?));
        let expires_at = now.checked_add(SESSION_TTL).unwrap_or(Timestamp::MAX);
        self.core.ledger.start_session(&admin, &digest(&token), now, expires_at).await?;
        Ok(Session { token, expires_at, actor: format!("admin:{}", admin.username) })
    }

    /// The audit trail's name (`admin:<username>`) of a live session's admin.
    pub async fn session_actor(&self, token: &str, now: Timestamp) -> Result<Option<String>, EngineError> {
        if !token.starts_with(SESSION_PREFIX) {
            return Ok(None);
        }
        Ok(self.core.ledger.session_username(&digest(token), now).await?.map(|u| format!("admin:{u}")))
    }

    /// Ends a session (logout); ending an unknown one is not an error.
    pub async fn logout(&self, token: &str) -> Result<(), EngineError> {
        self.core.ledger.end_session(&digest(token)).await?;
        Ok(())
    }
}

/// An argon2id hash of a random password nobody knows, made once per process: verified against
/// when the username does not exist, so both answers take as long.
async fn dummy_hash() -> Result<String, EngineError> {
    static DUMMY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DUMMY.get_or_try_init(|| async { hash_password(hex(&random_bytes::<16>()?)).await }).await.cloned()
}
