//! Rate limits counted in Redis (`rate.lua`): one GCRA cell per ingest key and per anonymous
//! client network, shared by every instance.

use super::Projection;
use crate::access::ratelimit::Cell;
use ::redis::{ErrorKind, RedisResult, Script};
use std::sync::LazyLock;
use std::time::Duration;

static RATE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/rate.lua")));

impl Projection {
    /// Counts one request of `cell` (an ingest key, an anonymous client) against its shared
    /// allowance (`rate.lua`): None when admitted, else how long until one would be. `share` is
    /// one request's part of a second, `tolerance` how far ahead a burst may run. Skipped while
    /// paused, like the write path's other calls: the caller then falls back to its local limit.
    ///
    /// The cell's requests waiting meanwhile are counted in the same call (`grouped.rs`): the
    /// first ones the allowance holds are admitted, in arrival order, as in calls one by one.
    pub async fn rate_check(
        &self,
        cell: Cell,
        share: Duration,
        tolerance: Duration,
    ) -> RedisResult<Option<Duration>> {
        let this = self.clone();
        let round = move |(cell, share, tolerance): &(Cell, Duration, Duration), calls: Vec<()>| {
            let (this, cell, share, tolerance) = (this.clone(), cell.clone(), *share, *tolerance);
            async move {
                let n = calls.len();
                match this.rate_round(&cell, share, tolerance, n).await {
                    Ok((admitted, wait)) => {
                        (0..n).map(|i| Ok((i >= admitted).then(|| Duration::from_micros(wait)))).collect()
                    }
                    Err(e) => vec![Err(e); n],
                }
            }
        };
        self.rate_checks.call((cell, share, tolerance), (), round).await.unwrap_or_else(|| {
            Err(::redis::RedisError::from((ErrorKind::Io, "the grouped rate check stopped")))
        })
    }

    /// Counts `n` requests that arrived together (`rate.lua`): how many of them, first to last,
    /// are admitted, and the µs until the next would be.
    async fn rate_round(
        &self,
        cell: &Cell,
        share: Duration,
        tolerance: Duration,
        n: usize,
    ) -> RedisResult<(usize, u64)> {
        let key = self.keys.rate(cell);
        let (admitted, wait): (u64, u64) = self
            .guarded(async {
                let mut conn = self.conn().await?;
                RATE.key(&key)
                    .arg(share.as_micros() as u64)
                    .arg(tolerance.as_micros() as u64)
                    .arg(n)
                    .invoke_async(&mut conn)
                    .await
            })
            .await?;
        Ok((usize::try_from(admitted).unwrap_or(n).min(n), wait))
    }

    /// How far ingest key `key_id`'s shared allowance runs ahead of now: the expiry `rate.lua`
    /// gives its cell (zero when there is no cell: the whole burst is left).
    pub async fn rate_ahead(&self, key_id: i64) -> RedisResult<Duration> {
        let mut conn = self.conn().await?;
        let ttl_ms: i64 =
            ::redis::cmd("PTTL").arg(self.keys.rate(&Cell::Key(key_id))).query_async(&mut conn).await?;
        Ok(Duration::from_millis(u64::try_from(ttl_ms).unwrap_or(0)))
    }
}
