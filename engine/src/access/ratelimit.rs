//! Rate limits: the generic cell rate algorithm (GCRA), one cell per ingest key and one per
//! anonymous client network ([`Cell`]). The cell every instance shares is in Redis
//! (`redis/scripts/rate.lua`, the same algorithm on the Redis clock); this process's cells, here,
//! decide while Redis cannot be reached.
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
//! **The limit holds across the fleet.** Each cell — its theoretical arrival time, in µs on the
//! Redis server's clock — is one string in Redis, `<prefix>:rl:{k<id>}` for a key and
//! `<prefix>:rl:{a<network>}` for an anonymous client network, each under a hash tag of its own
//! (cells spread over a Cluster; one cell's checks all go to one node). It is changed only by
//! `rate.lua` (the whole decision in one script, so concurrent instances cannot both take the
//! last request of a burst) and expires once the allowance is whole again. That costs a request
//! one `EVALSHA` on the shared connection per round: a cell's requests that arrive while its
//! check is in flight are counted together in the next call, which admits the first n the
//! allowance holds, in arrival order, exactly as n calls in a row would (`redis/grouped.rs`;
//! docs/BENCHMARKS.md, ingest). The anonymous allowance (`--public-rate-per-second`, 50 by
//! default, and `--public-burst`, 500; 0 turns it off) is spent by `server/src/anonymous.rs`.
//!
//! While Redis cannot be reached the check is skipped like the write path's other Redis calls
//! (`Projection::guarded`: a second's pause after a failure) and the count falls back to each
//! process: with N instances behind a balancer,
//! a key may then make up to N times its limit across the fleet (it fails open, never closed: a
//! Redis outage must not stop ingestion). The map holds one entry per cell that called; client
//! cells are made by anyone, so past `PRUNE_ABOVE` cells the ones whose allowance is whole again
//! (they hold nothing a fresh cell would not) are dropped.

use domain::apikey::KeyLimits;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Whose allowance a request counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Cell {
    /// An ingest key, by id.
    Key(i64),
    /// A client without credentials, by network: an IPv4 address, or an IPv6 /64 (one
    /// subscriber's usual allocation, so that walking a prefix's addresses gains nothing).
    Client(ClientNet),
}

/// A client's network, as [`Cell::Client`] counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientNet(IpAddr);

impl ClientNet {
    pub fn of(address: IpAddr) -> Self {
        match address {
            IpAddr::V4(v4) => Self(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(IpAddr::V4(v4)),
                None => {
                    let high = u128::from(v6) & !((1u128 << 64) - 1);
                    Self(IpAddr::V6(high.into()))
                }
            },
        }
    }
}

impl std::fmt::Display for ClientNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// How many local cells may be kept before the idle ones are dropped.
const PRUNE_ABOVE: usize = 100_000;

/// The per-key cells of this process.
#[derive(Debug)]
pub struct RateLimiter {
    /// When this limiter was made: instants are kept as offsets from it.
    origin: Instant,
    /// Per cell: the theoretical arrival time of the next request (GCRA's TAT), as an offset
    /// from `origin`. Held for a few instructions per request.
    cells: Mutex<HashMap<Cell, Duration>>,
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
    /// Admits one request of `cell` at `now`, or answers how long until one would be admitted.
    pub fn check(&self, cell: &Cell, limits: KeyLimits, now: Instant) -> Result<(), Duration> {
        let now = now.saturating_duration_since(self.origin);
        let (interval, tolerance) = share_and_tolerance(limits);
        let mut cells = self.cells.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let tat = cells.get(cell).copied().unwrap_or(now).max(now);
        let next = tat + interval;
        // Admitted while the next arrival time stays within `burst` intervals of now.
        match next.saturating_sub(tolerance).checked_sub(now) {
            Some(wait) if !wait.is_zero() => Err(wait),
            _ => {
                if cells.len() >= PRUNE_ABOVE && !cells.contains_key(cell) {
                    cells.retain(|_, tat| *tat > now);
                }
                cells.insert(cell.clone(), next);
                Ok(())
            }
        }
    }

    /// Forgets a key (it was revoked): its cell is no longer needed.
    pub fn forget(&self, id: i64) {
        self.cells.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&Cell::Key(id));
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
        assert_eq!(limiter.check(&Cell::Key(1), l, t0), Ok(()));
        assert_eq!(limiter.check(&Cell::Key(1), l, t0), Ok(()));
        assert_eq!(limiter.check(&Cell::Key(1), l, t0), Err(Duration::from_secs(1)));
        // A refused request costs nothing: the wait does not grow.
        assert_eq!(
            limiter.check(&Cell::Key(1), l, t0 + Duration::from_millis(400)),
            Err(Duration::from_millis(600))
        );
        assert_eq!(limiter.check(&Cell::Key(1), l, t0 + Duration::from_secs(1)), Ok(()));
        assert!(limiter.check(&Cell::Key(1), l, t0 + Duration::from_secs(1)).is_err());
        // Another key has its own cell.
        assert_eq!(limiter.check(&Cell::Key(2), l, t0), Ok(()));
        // After a quiet spell the whole burst is back, never more.
        let later = t0 + Duration::from_secs(60);
        assert_eq!(limiter.check(&Cell::Key(1), l, later), Ok(()));
        assert_eq!(limiter.check(&Cell::Key(1), l, later), Ok(()));
        assert!(limiter.check(&Cell::Key(1), l, later).is_err());
        limiter.forget(1);
        assert_eq!(limiter.check(&Cell::Key(1), l, later), Ok(()));
    }

    #[test]
    fn the_average_rate_holds_over_time() {
        let limiter = RateLimiter::default();
        let l = limits(50, 100);
        let t0 = limiter.origin;
        // Two seconds of a request every millisecond: the burst, then 50 a second.
        let admitted = (0..2000)
            .filter(|ms| limiter.check(&Cell::Key(7), l, t0 + Duration::from_millis(*ms)).is_ok())
            .count();
        assert!((199..=201).contains(&admitted), "{admitted}");
        let l = limits(10_000, 1);
        let admitted = (0..1000)
            .filter(|us| limiter.check(&Cell::Key(8), l, t0 + Duration::from_micros(us * 50)).is_ok())
            .count();
        assert!((499..=501).contains(&admitted), "50 ms at 10 000/s with no burst: {admitted}");
    }

    #[test]
    fn a_client_network_is_an_ipv4_address_or_an_ipv6_slash_64() {
        let net = |s: &str| ClientNet::of(s.parse().unwrap()).to_string();
        assert_eq!(net("192.0.2.7"), "192.0.2.7");
        assert_eq!(net("::ffff:192.0.2.7"), "192.0.2.7");
        assert_eq!(net("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
        assert_eq!(net("2001:db8:1:2:ffff::1"), net("2001:db8:1:2::9"));
        assert_ne!(net("2001:db8:1:2::1"), net("2001:db8:1:3::1"));
    }

    #[test]
    fn idle_client_cells_are_dropped_when_there_are_too_many() {
        let limiter = RateLimiter::default();
        let l = limits(1, 1);
        let t0 = limiter.origin;
        let client = |i: u32| Cell::Client(ClientNet::of(std::net::Ipv4Addr::from(i).into()));
        for i in 0..PRUNE_ABOVE as u32 {
            assert_eq!(limiter.check(&client(i), l, t0), Ok(()));
        }
        // Two seconds on, every cell is whole again: the next new cell drops them all.
        assert_eq!(limiter.check(&client(u32::MAX), l, t0 + Duration::from_secs(2)), Ok(()));
        assert_eq!(limiter.cells.lock().unwrap().len(), 1);
        // A cell still ahead of now is kept, and still refuses.
        assert!(limiter.check(&client(u32::MAX), l, t0 + Duration::from_secs(2)).is_err());
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
