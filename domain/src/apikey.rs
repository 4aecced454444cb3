//! Ingest keys as admins see them: their per-key rate limits (bounds and defaults) and the
//! listing row. The secret itself is never part of these: it is shown once, when it is made.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// Requests per second a key may make on average when none is asked for.
pub const DEFAULT_RATE_PER_SECOND: u32 = 50;
/// The most a rate may be: beyond what one process ingests (docs/BENCHMARKS.md), so a key at the
/// ceiling is never the bottleneck.
pub const MAX_RATE_PER_SECOND: u32 = 10_000;
/// The most requests a key may make at once (after a quiet spell).
pub const MAX_BURST: u32 = 20_000;

/// How fast a key may call: `rate_per_second` on average, `burst` at once. Counted for the whole
/// fleet in Redis, and by each process while Redis cannot be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KeyLimits {
    pub rate_per_second: u32,
    pub burst: u32,
}

impl Default for KeyLimits {
    fn default() -> Self {
        Self { rate_per_second: DEFAULT_RATE_PER_SECOND, burst: 2 * DEFAULT_RATE_PER_SECOND }
    }
}

impl KeyLimits {
    /// Limits from what an admin asked for. The rate defaults to 50/s; the burst to twice the rate
    /// (at most [`MAX_BURST`]). Out of bounds → the reason.
    pub fn parse(rate_per_second: Option<i64>, burst: Option<i64>) -> Result<Self, String> {
        let rate = rate_per_second.unwrap_or(i64::from(DEFAULT_RATE_PER_SECOND));
        if !(1..=i64::from(MAX_RATE_PER_SECOND)).contains(&rate) {
            return Err(format!("rate_per_second must be 1-{MAX_RATE_PER_SECOND}, got {rate}"));
        }
        let burst = burst.unwrap_or((2 * rate).min(i64::from(MAX_BURST)));
        if !(1..=i64::from(MAX_BURST)).contains(&burst) {
            return Err(format!("burst must be 1-{MAX_BURST}, got {burst}"));
        }
        // Both are within u32 now.
        Ok(Self { rate_per_second: rate as u32, burst: burst as u32 })
    }

    /// Whether these limits are within the bounds (for limits that arrive already typed).
    pub fn check(self) -> Result<Self, String> {
        Self::parse(Some(i64::from(self.rate_per_second)), Some(i64::from(self.burst)))
    }
}

/// An ingest key as listed: never its secret or its digest, only the first characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiKeyView {
    pub id: i64,
    /// The key's first characters (`laurel_ik_` and six more), to recognise it by.
    #[cfg_attr(feature = "openapi", schema(example = "laurel_ik_3f9a1c"))]
    pub prefix: String,
    /// The boards it may write to.
    pub boards: Vec<String>,
    pub rate_per_second: u32,
    pub burst: u32,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// Who made it, as the audit trail names them (`admin:ann`, `token#3`, `cli`); null for keys
    /// made before creators were recorded.
    pub created_by: Option<String>,
    /// Null while the key is live.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub revoked_at: Option<Timestamp>,
    pub revoked_by: Option<String>,
}

impl ApiKeyView {
    pub fn is_live(&self) -> bool {
        self.revoked_at.is_none()
    }

    pub fn limits(&self) -> KeyLimits {
        KeyLimits { rate_per_second: self.rate_per_second, burst: self.burst }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_default_bound_and_follow_the_rate() {
        assert_eq!(KeyLimits::parse(None, None), Ok(KeyLimits { rate_per_second: 50, burst: 100 }));
        assert_eq!(KeyLimits::default(), KeyLimits::parse(None, None).unwrap());
        assert_eq!(KeyLimits::parse(Some(1), None), Ok(KeyLimits { rate_per_second: 1, burst: 2 }));
        assert_eq!(KeyLimits::parse(Some(1), Some(1)), Ok(KeyLimits { rate_per_second: 1, burst: 1 }));
        assert_eq!(
            KeyLimits::parse(Some(10_000), None),
            Ok(KeyLimits { rate_per_second: 10_000, burst: 20_000 })
        );
        for (rate, burst, word) in [
            (Some(0), None, "rate_per_second"),
            (Some(-5), None, "rate_per_second"),
            (Some(10_001), None, "rate_per_second"),
            (Some(i64::MAX), None, "rate_per_second"),
            (None, Some(0), "burst"),
            (None, Some(20_001), "burst"),
        ] {
            let refused = KeyLimits::parse(rate, burst).unwrap_err();
            assert!(refused.starts_with(word), "{rate:?} {burst:?}: {refused}");
        }
        assert!(KeyLimits { rate_per_second: 0, burst: 1 }.check().is_err());
    }
}
