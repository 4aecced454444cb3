//! Identifiers, parsed at the edge: a value of these types that exists is valid.
//!
//! Members are stable ids chosen by the host platform (`u1001`), never nicknames: a nickname can
//! change, and a changed member would be a different entry on the board (docs/DESIGN.md,
//! "Members are ids").

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a string was refused as an identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} {problem}")]
pub struct IdError {
    pub kind: &'static str,
    pub problem: IdProblem,
}

/// What is wrong with a refused identifier, typed so that each reader words it (the API in
/// English through `Display`, the pages from their catalogue).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdProblem {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most {max} bytes, got {got}")]
    TooLong { max: usize, got: usize },
    #[error("may only contain {allowed}, found {found:?}")]
    Forbidden { allowed: &'static str, found: char },
}

fn check(
    kind: &'static str,
    s: &str,
    max: usize,
    allowed: &'static str,
    ok: fn(u8) -> bool,
) -> Result<(), IdError> {
    let fail = |problem| Err(IdError { kind, problem });
    if s.is_empty() {
        return fail(IdProblem::Empty);
    }
    if s.len() > max {
        return fail(IdProblem::TooLong { max, got: s.len() });
    }
    if let Some(found) = s.chars().find(|c| !c.is_ascii() || !ok(*c as u8)) {
        return fail(IdProblem::Forbidden { allowed, found });
    }
    Ok(())
}

macro_rules! identifier {
    ($(#[$doc:meta])* $name:ident, $kind:literal, $max:literal, $allowed:literal, $ok:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// The longest accepted value, in bytes.
            pub const MAX_LEN: usize = $max;

            pub fn parse(s: impl Into<String>) -> Result<Self, IdError> {
                let s = s.into();
                check($kind, &s, $max, $allowed, $ok)?;
                Ok(Self(s))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                Self::parse(s)
            }
        }

        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, IdError> {
                Self::parse(s)
            }
        }
    };
}

identifier!(
    /// A board's slug: lowercase letters, digits and `-`. It sits inside the Redis hash tag
    /// `{board:period}`, so braces and `:` are excluded by construction.
    BoardSlug, "board slug", 64, "[a-z0-9-]",
    |b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
);

identifier!(
    /// A member: the host platform's stable user id.
    MemberId, "member id", 64, "[A-Za-z0-9_.:@-]",
    |b| b.is_ascii_alphanumeric() || b"_.:@-".contains(&b)
);

identifier!(
    /// A point event's or a submission's id, unique per board: the key of exactly-once writes.
    EventId, "event id", 128, "visible ASCII characters",
    |b| b.is_ascii_graphic()
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_ids_accept_the_documented_alphabet() {
        assert!(MemberId::parse("u1001").is_ok());
        assert!(MemberId::parse("team:a.b@c_d-e").is_ok());
        assert!(MemberId::parse("x".repeat(64)).is_ok());
    }

    #[test]
    fn member_ids_refuse_empty_long_and_foreign_characters() {
        assert_eq!(MemberId::parse("").unwrap_err().problem, IdProblem::Empty);
        assert!(MemberId::parse("x".repeat(65)).is_err());
        assert!(MemberId::parse("u 1").is_err());
        assert!(MemberId::parse("ü").is_err());
        assert!(MemberId::parse("<script>").is_err());
    }

    #[test]
    fn board_slugs_cannot_break_the_hash_tag() {
        assert!(BoardSlug::parse("weekly-study").is_ok());
        for bad in ["a{b", "a}b", "a:b", "Upper", ""] {
            assert!(BoardSlug::parse(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn event_ids_allow_128_visible_bytes() {
        assert!(EventId::parse("e".repeat(128)).is_ok());
        assert!(EventId::parse("e".repeat(129)).is_err());
        assert!(EventId::parse("order#42/retry=1").is_ok());
        assert!(EventId::parse("has space").is_err());
    }

    #[test]
    fn serde_refuses_invalid_ids() {
        assert!(serde_json::from_str::<MemberId>("\"u1\"").is_ok());
        assert!(serde_json::from_str::<MemberId>("\"\"").is_err());
    }
}
