//! Pinned snapshots in Redis: a copy of a period's ranking under `:snap:<id>`, its member count
//! under `:snap:<id>:info` (whose expiry is the snapshot's), and an index of every copy by the
//! instant it may be removed (`<prefix>:snapshots`), which [`Projection::sweep_snapshots`] walks.
//! A copy of a segment value's ranking has the same keys under the segment's hash tag
//! ([`KeySpace::snapshot`](super::keys::KeySpace::snapshot)): every call here touches one
//! copy's keys, so one slot; the index names copies of every slot and is walked one command a key.
//!
//! Nothing here costs Redis more than a slice at a time: a copy is written in `ZADD`s of
//! [`SLICE`] members (never `COPY`, which duplicates a ranking of a million members in one
//! command), and an expired copy is removed by `UNLINK` (freed off the main thread) rather than
//! left to its TTL, which frees it on the main thread unless `lazyfree-lazy-expire` is on. The
//! TTL stays as a safety net, an hour later, for a copy the sweep never reached.

use super::{Projection, RedisConn};
use ::redis::RedisResult;
use domain::segment::Segment;
use domain::{BoardSlug, MemberId, PeriodKey};
use std::time::Duration;

/// Members per `ZADD` of a copy: a few hundred microseconds of Redis's time each.
const SLICE: usize = 1000;
/// `ZADD`s sent before waiting for their answers.
const SLICES_IN_FLIGHT: usize = 4;
/// How much longer than the snapshot its copy's key lives, should the sweep never come.
const SAFETY_NET: Duration = Duration::from_secs(3600);
/// Copies the sweep removes per call.
const SWEEP_BATCH: isize = 100;

impl Projection {
    /// Claims the making of snapshot `id` of the period's ranking or a segment's for `hold`: true
    /// for exactly one caller, whichever instance it runs on, until the claim lapses (a maker that
    /// died leaves it to the next).
    pub async fn claim_snapshot(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: Option<&Segment>,
        id: &str,
        hold: Duration,
    ) -> RedisResult<bool> {
        let (_, info) = self.keys.snapshot(board, period, segment, id);
        let mut conn = self.conn().await?;
        let claimed: Option<String> = ::redis::cmd("SET")
            .arg(format!("{info}:claim"))
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(hold.as_millis() as u64)
            .query_async(&mut conn)
            .await?;
        Ok(claimed.is_some())
    }

    /// Writes the copy of snapshot `id` (rows: member and encoded score, in any order) slice by
    /// slice, then its info key, which makes it readable, living `ttl`. Whatever a maker that
    /// died left under the same id is removed first. Of a segment's ranking (Some) or the
    /// period's (None).
    pub async fn write_snapshot(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: Option<&Segment>,
        id: &str,
        rows: &[(MemberId, i64)],
        ttl: Duration,
    ) -> RedisResult<()> {
        let (copy, info) = self.keys.snapshot(board, period, segment, id);
        let mut conn = self.conn().await?;
        ::redis::cmd("UNLINK").arg(&copy).exec_async(&mut conn).await?;
        // Indexed before the first slice: a copy is never left where the sweep cannot find it.
        // An empty ranking has no copy, so nothing to index.
        if !rows.is_empty() {
            let remove_at = now_ms(&mut conn).await? + ttl.as_millis() as i64;
            ::redis::cmd("ZADD")
                .arg(self.keys.snapshots())
                .arg(remove_at)
                .arg(&copy)
                .exec_async(&mut conn)
                .await?;
        }
        let mut in_flight = tokio::task::JoinSet::new();
        for slice in rows.chunks(SLICE) {
            let members: Vec<(i64, &str)> = slice.iter().map(|(m, s)| (*s, m.as_str())).collect();
            let mut zadd = ::redis::cmd("ZADD");
            zadd.arg(&copy).arg(members);
            while in_flight.len() >= SLICES_IN_FLIGHT {
                in_flight.join_next().await.expect("a slice in flight").expect("slice task")?;
            }
            let mut conn = conn.clone();
            in_flight.spawn(async move { zadd.exec_async(&mut conn).await });
        }
        while let Some(done) = in_flight.join_next().await {
            done.expect("slice task")?;
        }
        let mut pipe = ::redis::pipe();
        if !rows.is_empty() {
            pipe.cmd("PEXPIRE").arg(&copy).arg((ttl + SAFETY_NET).as_millis() as u64).ignore();
        }
        // An empty ranking has no copy; the info key alone says the snapshot exists.
        pipe.cmd("SET").arg(&info).arg(rows.len()).arg("PX").arg(ttl.as_millis() as u64).ignore();
        pipe.exec_async(&mut conn).await
    }

    /// The member count of a live snapshot of a segment's ranking (Some) or the period's (None),
    /// or None when it expired (or never existed).
    pub async fn snapshot_total(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: Option<&Segment>,
        id: &str,
    ) -> RedisResult<Option<u64>> {
        let (_, info) = self.keys.snapshot(board, period, segment, id);
        let mut conn = self.conn().await?;
        ::redis::cmd("GET").arg(info).query_async(&mut conn).await
    }

    /// Removes the copies whose snapshot has expired (UNLINK), at most `SWEEP_BATCH` a call;
    /// answers how many it removed.
    pub async fn sweep_snapshots(&self) -> RedisResult<usize> {
        let index = self.keys.snapshots();
        let mut conn = self.conn().await?;
        let now = now_ms(&mut conn).await?;
        let due: Vec<String> = ::redis::cmd("ZRANGE")
            .arg(&index)
            .arg("-inf")
            .arg(now)
            .arg("BYSCORE")
            .arg("LIMIT")
            .arg(0)
            .arg(SWEEP_BATCH)
            .query_async(&mut conn)
            .await?;
        for copy in &due {
            // Each copy is in its ranking's slot (its period's or its segment's), the index in its
            // own: one command each.
            ::redis::cmd("UNLINK").arg(copy).exec_async(&mut conn).await?;
            ::redis::cmd("ZREM").arg(&index).arg(copy).exec_async(&mut conn).await?;
        }
        Ok(due.len())
    }
}

/// Redis's clock in milliseconds: every instance indexes copies on the same clock.
async fn now_ms(conn: &mut RedisConn) -> RedisResult<i64> {
    let (secs, micros): (i64, i64) = ::redis::cmd("TIME").query_async(conn).await?;
    Ok(secs * 1000 + micros / 1000)
}
