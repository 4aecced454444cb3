//! Signed contestant links: the host platform (or `laurel contestant-link --member u1001`) gives a
//! contestant a link that names them, expires, and carries an HMAC-SHA256 over both with a secret
//! only the server and the host know. Opening it tells the UI who "me" is — a display preference:
//! it opens nothing that changes anything, and every read it highlights is public anyway.
//!
//! The secret is `--link-secret` (at least 32 bytes); a link lives 1 second to 31 days. Checking
//! compares the signature in constant time, and the signature before the expiry: a forged link is
//! "not valid" even when it is also out of date. Opening one (`/me?member=&expires=&sig=`,
//! `app/src/pages/me.rs`) sets the `laurel_me` cookie with the link's parts (HttpOnly,
//! SameSite=Lax, expiring with the link), checked again on every read of "me"; boards then
//! highlight that member and link "My page". The server's route registry test sends that cookie
//! to every mutating route and expects 401.

use super::Access;
use crate::hex;
use crate::{Engine, EngineError};
use domain::MemberId;
use hmac::{Hmac, KeyInit, Mac};
use jiff::{SignedDuration, Timestamp};
use sha2::Sha256;

/// The shortest secret accepted (bytes).
pub const MIN_SECRET_BYTES: usize = 32;
/// The longest a link may stay valid.
pub const MAX_VALIDITY: SignedDuration = SignedDuration::from_hours(24 * 31);

/// The key links are signed with (`--link-secret`).
#[derive(Clone)]
pub struct LinkSecret(Vec<u8>);

impl LinkSecret {
    pub fn new(secret: &str) -> Result<Self, String> {
        if secret.len() < MIN_SECRET_BYTES {
            return Err(format!("the link secret must be at least {MIN_SECRET_BYTES} bytes"));
        }
        Ok(Self(secret.as_bytes().to_vec()))
    }

    fn mac(&self, member: &str, expires: i64) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes keys of any length");
        // Versioned and separated, so no other message of ours can be mistaken for a link.
        mac.update(format!("laurel-me-v1\n{member}\n{expires}").as_bytes());
        mac
    }
}

impl std::fmt::Debug for LinkSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LinkSecret(…)")
    }
}

/// A contestant link's parts: who, until when (unix seconds), and the signature (hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedMember {
    pub member: MemberId,
    pub expires: i64,
    pub sig: String,
}

impl SignedMember {
    /// `/me?member=…&expires=…&sig=…`: member ids need no escaping.
    pub fn query(&self) -> String {
        format!("member={}&expires={}&sig={}", self.member, self.expires, self.sig)
    }

    /// One cookie value holding all three (`<expires>.<sig>.<member>`; ids may contain dots, so
    /// the member comes last).
    pub fn cookie_value(&self) -> String {
        format!("{}.{}.{}", self.expires, self.sig, self.member)
    }

    pub fn from_cookie_value(value: &str) -> Option<(String, i64, String)> {
        let mut parts = value.splitn(3, '.');
        let expires = parts.next()?.parse().ok()?;
        let sig = parts.next()?.to_owned();
        Some((parts.next()?.to_owned(), expires, sig))
    }
}

/// Why a link was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("contestant links are not set up on this server")]
    NotConfigured,
    #[error("this link has expired; ask for a new one")]
    Expired,
    #[error("this link is not valid")]
    Forged,
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || s.len() > 128 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

impl LinkSecret {
    /// A link for `member`, valid for `valid_for` from `now`.
    pub fn sign(
        &self,
        member: &MemberId,
        valid_for: SignedDuration,
        now: Timestamp,
    ) -> Result<SignedMember, String> {
        if valid_for <= SignedDuration::ZERO || valid_for > MAX_VALIDITY {
            return Err("a link is valid for 1 second to 31 days".into());
        }
        let expires = now.as_second() + valid_for.as_secs();
        let sig = hex(&self.mac(member.as_str(), expires).finalize().into_bytes());
        Ok(SignedMember { member: member.clone(), expires, sig })
    }

    /// Checks a link's parts: the signature first (a forged link is "not valid" even when it is
    /// also out of date), then the expiry.
    pub fn verify(
        &self,
        member: &str,
        expires: i64,
        sig: &str,
        now: Timestamp,
    ) -> Result<SignedMember, LinkError> {
        let bytes = unhex(sig).ok_or(LinkError::Forged)?;
        // `verify_slice` compares in constant time.
        self.mac(member, expires).verify_slice(&bytes).map_err(|_| LinkError::Forged)?;
        let member = MemberId::parse(member).map_err(|_| LinkError::Forged)?;
        if expires <= now.as_second() {
            return Err(LinkError::Expired);
        }
        Ok(SignedMember { member, expires, sig: sig.to_owned() })
    }
}

impl Engine {
    /// Installs the key contestant links are signed and checked with.
    pub fn with_link_secret(mut self, secret: LinkSecret) -> Self {
        self.services_mut().access.set_link_secret(secret);
        self
    }
}

impl Access {
    /// A link for `member`, valid for `valid_for` from `now`.
    pub fn contestant_link(
        &self,
        member: &MemberId,
        valid_for: SignedDuration,
        now: Timestamp,
    ) -> Result<SignedMember, EngineError> {
        let secret = self
            .link_secret
            .as_ref()
            .ok_or_else(|| EngineError::Invalid(LinkError::NotConfigured.to_string()))?;
        secret.sign(member, valid_for, now).map_err(EngineError::Invalid)
    }

    /// Checks a contestant link's (or "me" cookie's) parts.
    pub fn verify_contestant(
        &self,
        member: &str,
        expires: i64,
        sig: &str,
        now: Timestamp,
    ) -> Result<SignedMember, LinkError> {
        self.link_secret.as_ref().ok_or(LinkError::NotConfigured)?.verify(member, expires, sig, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret() -> LinkSecret {
        LinkSecret::new("an example secret of at least thirty-two bytes").unwrap()
    }

    #[test]
    fn a_signed_link_verifies_until_it_expires() {
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let u = MemberId::parse("u1001").unwrap();
        let link = secret().sign(&u, SignedDuration::from_hours(1), now).unwrap();
        assert_eq!(link.expires, 1_800_003_600);
        assert_eq!(secret().verify("u1001", link.expires, &link.sig, now), Ok(link.clone()));
        let later = Timestamp::from_second(link.expires).unwrap();
        assert_eq!(secret().verify("u1001", link.expires, &link.sig, later), Err(LinkError::Expired));
        assert_eq!(link.query(), format!("member=u1001&expires=1800003600&sig={}", link.sig));
        let (member, expires, sig) = SignedMember::from_cookie_value(&link.cookie_value()).unwrap();
        assert_eq!((member.as_str(), expires, sig.as_str()), ("u1001", link.expires, link.sig.as_str()));
    }

    #[test]
    fn forged_or_tampered_links_are_refused() {
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let link =
            secret().sign(&MemberId::parse("u1001").unwrap(), SignedDuration::from_hours(1), now).unwrap();
        // Another member, a pushed-back expiry, another key, a made-up or malformed signature.
        assert_eq!(secret().verify("u1002", link.expires, &link.sig, now), Err(LinkError::Forged));
        assert_eq!(secret().verify("u1001", link.expires + 86_400, &link.sig, now), Err(LinkError::Forged));
        let other = LinkSecret::new("another secret, also thirty-two bytes or more").unwrap();
        assert_eq!(other.verify("u1001", link.expires, &link.sig, now), Err(LinkError::Forged));
        assert_eq!(secret().verify("u1001", link.expires, &"0".repeat(64), now), Err(LinkError::Forged));
        assert_eq!(secret().verify("u1001", link.expires, "zz", now), Err(LinkError::Forged));
        // Forged and out of date: "not valid", not "expired".
        let late = Timestamp::from_second(link.expires + 1).unwrap();
        assert_eq!(secret().verify("u1002", link.expires, &link.sig, late), Err(LinkError::Forged));
        assert!(LinkSecret::new("short").is_err());
        assert!(
            secret().sign(&MemberId::parse("u1").unwrap(), SignedDuration::from_hours(24 * 32), now).is_err()
        );
    }
}
