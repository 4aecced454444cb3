//! Per-key rate limits of ingest keys: the generic cell rate algorithm (GCRA), one cell per key
//! id. The cell every instance shares is in Redis (`redis/scripts/rate.lua`, the same algorithm
//! on the Redis clock); this process's cells, here, decide while Redis cannot be reached.
//!
//! Why GCRA by hand rather than the `governor` crate: each key has limits of its own, while
//! governor's keyed limiter applies one quota to every key (so it would be a map of limiters
//! anyway); GCRA keeps one instant per key, is exact (no refill ticks), takes "now" as an argument
//! so the tests drive the clock, and says exactly when the next request would pass (the
//! `Retry-After`). It is a few lines, with no dependency.
//!
//! A key may make `burst` requests at once and then one every `1 / rate_per_second` seconds. A
//! refused request takes nothing from the key's allowance.
//!
//! While Redis is down the count falls back to each process: with N instances behind a balancer,
//! a key may then make up to N times its limit across the fleet (it fails open, never closed: a
//! Redis outage must not stop ingestion). The map holds one entry per key that called since the
//! process started; keys are made by admins, so it stays small.

use domain::apikey::KeyLimits;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The per-key cells of this process.
#[derive(Debug)]
pub struct RateLimiter {
    /// When this limiter was made: instants are kept as offsets from it.
    origin: Instant,
    /// Per key id: the theoretical arrival time of the next request (GCRA's TAT), as an offset
    /// from `origin`. Held for a few instructions per request.
    cells: Mutex<HashMap<i64, Duration>>,
}

impl Default for RateLimiter {
    fn default() -> Self {
        Self { origin: Instant::now(), cells: Mutex::default() }
    }
}

/// One request's share of a second under `limits`, and how far ahead of now a burst may run.
pub fn share_and_tolerance(limits: KeyLimits) -> (Duration, Duration) {
    let share = Duration::from_secs(1) / limits.rate_per_second.max(1);
    (share, share * limits.burst.max(1))
}

impl RateLimiter {
    /// Admits one request of key `id` at `now`, or answers how long until one would be admitted.
    pub fn check(&self, id: i64, limits: KeyLimits, now: Instant) -> Result<(), Duration> {
        let now = now.saturating_duration_since(self.origin);
        let (interval, tolerance) = share_and_tolerance(limits);
        let mut cells = self.cells.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let tat = cells.get(&id).copied().unwrap_or(now).max(now);
        let next = tat + interval;
        // Admitted while the next arrival time stays within `burst` intervals of now.
        match next.saturating_sub(tolerance).checked_sub(now) {
            Some(wait) if !wait.is_zero() => Err(wait),
            _ => {
                cells.insert(id, next);
                Ok(())
            }
        }
    }

    /// Forgets a key (it was revoked): its cell is no longer needed.
    pub fn forget(&self, id: i64) {
        self.cells.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&id);
    }
}

/// Whole seconds to wait before retrying, at least 1 (the `Retry-After` header).
pub fn retry_after_seconds(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(rate_per_second: u32, burst: u32) -> KeyLimits {
        KeyLimits { rate_per_second, burst }
    }

    #[test]
    fn a_burst_passes_then_one_request_per_interval() {
        let limiter = RateLimiter::default();
        let t0 = limiter.origin + Duration::from_secs(10);
        let l = limits(1, 2);
        assert_eq!(limiter.check(1, l, t0), Ok(()));
        assert_eq!(limiter.check(1, l, t0), Ok(()));
        assert_eq!(limiter.check(1, l, t0), Err(Duration::from_secs(1)));
        // A refused request costs nothing: the wait does not grow.
        assert_eq!(limiter.check(1, l, t0 + Duration::from_millis(400)), Err(Duration::from_millis(600)));
        assert_eq!(limiter.check(1, l, t0 + Duration::from_secs(1)), Ok(()));
        assert!(limiter.check(1, l, t0 + Duration::from_secs(1)).is_err());
        // Another key has its own cell.
        assert_eq!(limiter.check(2, l, t0), Ok(()));
        // After a quiet spell the whole burst is back, never more.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(limiter.check(1, l, later), Ok(()));
        assert_eq!(limiter.check(1, l, later), Ok(()));
        assert!(limiter.check(1, l, later).is_err());
        limiter.forget(1);
        assert_eq!(limiter.check(1, l, later), Ok(()));
    }

    #[test]
    fn the_average_rate_holds_over_time() {
        let limiter = RateLimiter::default();
        let l = limits(50, 100);
        let t0 = limiter.origin;
        // Two seconds of a request every millisecond: the burst, then 50 a second.
        let admitted =
            (0..2000).filter(|ms| limiter.check(7, l, t0 + Duration::from_millis(*ms)).is_ok()).count();
        assert!((199..=201).contains(&admitted), "{admitted}");
        let l = limits(10_000, 1);
        let admitted =
            (0..1000).filter(|us| limiter.check(8, l, t0 + Duration::from_micros(us * 50)).is_ok()).count();
        assert!((499..=501).contains(&admitted), "50 ms at 10 000/s with no burst: {admitted}");
    }

    #[test]
    fn retry_after_is_whole_seconds_rounded_up_and_at_least_one() {
        assert_eq!(retry_after_seconds(Duration::ZERO), 1);
        assert_eq!(retry_after_seconds(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_seconds(Duration::from_secs(1)), 1);
        assert_eq!(retry_after_seconds(Duration::from_millis(1001)), 2);
        assert_eq!(retry_after_seconds(Duration::from_secs(3)), 3);
    }
}
