//! Keeping the projection level with the ledger: version sums, levelling with the version
//! guard, rebuilds in pipelined batches swapped in at once, expiry and removal of a period.

use super::{BATCH, Floor, ProjectedTotal, Projection, RedisConn, flag, keys};
use ::redis::{RedisResult, Script};
use domain::{BoardSlug, MemberId, PeriodKey};
use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::Duration;

static LEVEL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        include_str!("scripts/floor.lua"),
        include_str!("scripts/bounded.lua"),
        include_str!("scripts/level.lua")
    ))
});
static SWAP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(include_str!("scripts/floor.lua"), include_str!("scripts/swap.lua")))
});
/// Rebuild batches sent before waiting for the oldest answer.
const REBUILD_IN_FLIGHT: usize = 8;

/// A rebuild in progress (see [`Projection::start_rebuild`]). Several batches are in flight on
/// the multiplexed connection: Redis applies them while the next ones are read and encoded.
pub struct Rebuild {
    keys: keys::PeriodKeys,
    conn: RedisConn,
    in_flight: tokio::task::JoinSet<RedisResult<()>>,
    vsum: i64,
    /// A bounded ranking's floor once swapped in (`bounded.lua`); none: everyone is pushed.
    floor: Floor,
}

impl Rebuild {
    /// Sends `totals` into the rebuild keys, in batches. Hidden members get their version, not
    /// a place in the ranking.
    pub async fn push(&mut self, totals: &[ProjectedTotal]) -> RedisResult<()> {
        for chunk in totals.chunks(BATCH) {
            let scores: Vec<(i64, String)> =
                chunk.iter().filter(|t| !t.hidden).map(|t| (t.score, t.member.to_string())).collect();
            let versions: Vec<(String, i64)> =
                chunk.iter().map(|t| (t.member.to_string(), t.version)).collect();
            self.vsum += chunk.iter().map(|t| t.version).sum::<i64>();
            let mut pipe = ::redis::pipe();
            if !scores.is_empty() {
                pipe.zadd_multiple(&self.keys.rebuild_rank, &scores);
            }
            pipe.hset_multiple(&self.keys.rebuild_ver, &versions);
            while self.in_flight.len() >= REBUILD_IN_FLIGHT {
                self.in_flight.join_next().await.expect("a batch in flight").expect("batch task")?;
            }
            let mut conn = self.conn.clone();
            self.in_flight.spawn(async move { pipe.exec_async(&mut conn).await });
        }
        Ok(())
    }

    /// For a bounded ranking: the best entry of the members left out (see `bounded.lua`).
    pub fn leave_out_from(&mut self, floor: Floor) {
        self.floor = floor;
    }

    /// Waits for every batch, then swaps the rebuilt ranking in atomically (`swap.lua`), with
    /// its floor.
    pub async fn finish(mut self) -> RedisResult<()> {
        while let Some(done) = self.in_flight.join_next().await {
            done.expect("batch task")?;
        }
        let keys = &self.keys;
        SWAP.key(&keys.rank)
            .key(&keys.ver)
            .key(&keys.meta)
            .key(&keys.rebuild_rank)
            .key(&keys.rebuild_ver)
            .key(&keys.public)
            .key(&keys.live)
            .arg(self.vsum)
            .arg(self.floor.0.as_ref().map(|(s, _)| s.to_string()).unwrap_or_default())
            .arg(self.floor.0.as_ref().map(|(_, m)| m.as_str()).unwrap_or_default())
            .invoke_async::<i64>(&mut self.conn)
            .await?;
        Ok(())
    }
}

impl Projection {
    /// The sum of the versions projected for a period (0 when Redis holds nothing of it).
    pub async fn version_sum(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<i64> {
        self.vsum_of(&self.keys.period(board, period)).await
    }

    /// The `vsum` of one ranking's keys (a period's or a segment's).
    pub(super) async fn vsum_of(&self, keys: &keys::PeriodKeys) -> RedisResult<i64> {
        let mut conn = self.conn().await?;
        let sum: Option<i64> =
            ::redis::cmd("HGET").arg(&keys.meta).arg("vsum").query_async(&mut conn).await?;
        Ok(sum.unwrap_or(0))
    }

    /// [`Projection::version_sum`] and the period's public-view marker, in one round trip.
    pub async fn version_sum_and_marker(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> RedisResult<(i64, Option<String>)> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let (sum, marker): (Option<i64>, Option<String>) = ::redis::pipe()
            .cmd("HGET")
            .arg(&keys.meta)
            .arg("vsum")
            .cmd("GET")
            .arg(&keys.public)
            .query_async(&mut conn)
            .await?;
        Ok((sum.unwrap_or(0), marker))
    }

    /// Applies ledger totals with the version guard, in batches; safe while writes continue.
    /// Returns how many members were behind.
    pub async fn level(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
    ) -> RedisResult<u64> {
        self.level_kept(board, period, totals, 0).await
    }

    /// [`Projection::level`] on a board that keeps only its best `keep` members (0: all): each
    /// batch's call trims the ranking, and the trimmed members' versions, back to `keep`.
    pub async fn level_kept(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
        keep: u64,
    ) -> RedisResult<u64> {
        self.level_keys(&self.keys.period(board, period), totals, keep).await
    }

    /// Levels one ranking's keys (a period's or a segment's) with `totals`, in batches.
    pub(super) async fn level_keys(
        &self,
        keys: &keys::PeriodKeys,
        totals: &[ProjectedTotal],
        keep: u64,
    ) -> RedisResult<u64> {
        let mut conn = self.conn().await?;
        let mut written = 0;
        for chunk in totals.chunks(BATCH) {
            let mut call = LEVEL.key(&keys.rank);
            call.key(&keys.ver).key(&keys.meta).key(&keys.public).key(&keys.live).arg(keep);
            for t in chunk {
                call.arg(t.member.as_str()).arg(t.version).arg(t.score).arg(flag(t.hidden));
            }
            written += call.invoke_async::<u64>(&mut conn).await?;
        }
        Ok(written)
    }

    /// Whether a bounded period asked for the ledger's best K back (a kept member fell to the
    /// floor or was hidden: `bounded.lua`), clearing the request: a fall after this call asks
    /// again. A ranking trimmed before floors were kept (`trimmed` without `floor`) asks too.
    pub async fn take_refill(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<bool> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let (cleared, trimmed, floor): (i64, bool, bool) = ::redis::pipe()
            .cmd("HDEL")
            .arg(&keys.meta)
            .arg("refill")
            .cmd("HEXISTS")
            .arg(&keys.meta)
            .arg("trimmed")
            .cmd("HEXISTS")
            .arg(&keys.meta)
            .arg("floor")
            .query_async(&mut conn)
            .await?;
        Ok(cleared == 1 || (trimmed && !floor))
    }

    /// The members a bounded period let in without the version guard (`blind:` in :meta, see
    /// `bounded.lua`), clearing the marks: the reconciler compares their versions with the
    /// ledger's.
    pub async fn take_blind(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<Vec<MemberId>> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let meta: HashMap<String, String> =
            ::redis::cmd("HGETALL").arg(&keys.meta).query_async(&mut conn).await?;
        let marks: Vec<&String> = meta.keys().filter(|k| k.starts_with("blind:")).collect();
        if marks.is_empty() {
            return Ok(Vec::new());
        }
        ::redis::cmd("HDEL").arg(&keys.meta).arg(&marks).query_async::<()>(&mut conn).await?;
        marks.iter().map(|k| super::parse_member(k["blind:".len()..].to_owned())).collect()
    }

    /// Replaces a period's projection with `totals`: assembled in pipelined batches under
    /// rebuild keys, then swapped in atomically. `floor`: a bounded ranking's (the best entry
    /// the ledger has beyond `totals`), none when `totals` are everyone.
    pub async fn rebuild(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        totals: &[ProjectedTotal],
        floor: Floor,
    ) -> RedisResult<()> {
        let mut rebuild = self.start_rebuild(board, period).await?;
        rebuild.leave_out_from(floor);
        rebuild.push(totals).await?;
        rebuild.finish().await
    }

    /// Starts replacing a period's projection: totals are then [`Rebuild::push`]ed in any number
    /// of calls (a large period streams in from the ledger) and [`Rebuild::finish`] swaps them in.
    pub async fn start_rebuild(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<Rebuild> {
        self.start_rebuild_of(self.keys.period(board, period)).await
    }

    /// Starts replacing one ranking's keys (a period's or a segment's).
    pub(super) async fn start_rebuild_of(&self, keys: keys::PeriodKeys) -> RedisResult<Rebuild> {
        let mut conn = self.conn().await?;
        ::redis::pipe().unlink(&keys.rebuild_rank).unlink(&keys.rebuild_ver).exec_async(&mut conn).await?;
        Ok(Rebuild { keys, conn, in_flight: tokio::task::JoinSet::new(), vsum: 0, floor: Floor::default() })
    }

    /// How many members a period's live ranking holds, and the sum of the projected versions
    /// (hidden members' included).
    pub async fn version_summary(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<(u64, i64)> {
        let keys = self.keys.period(board, period);
        let ranking = self.live_ranking(board, period).await?;
        let mut conn = self.conn().await?;
        let (members, vsum): (u64, Option<i64>) = ::redis::pipe()
            .cmd("ZCARD")
            .arg(&ranking)
            .cmd("HGET")
            .arg(&keys.meta)
            .arg("vsum")
            .query_async(&mut conn)
            .await?;
        Ok((members, vsum.unwrap_or(0)))
    }

    /// Every (member, score) of a period's live ranking, read in chunks (settlement's cross-check).
    pub async fn scores(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<HashMap<String, i64>> {
        const CHUNK: isize = 20_000;
        let ranking = self.live_ranking(board, period).await?;
        let mut conn = self.conn().await?;
        let mut all = HashMap::new();
        let mut start = 0;
        loop {
            let chunk: Vec<(String, i64)> = ::redis::cmd("ZRANGE")
                .arg(&ranking)
                .arg(start)
                .arg(start + CHUNK - 1)
                .arg("WITHSCORES")
                .query_async(&mut conn)
                .await?;
            let len = chunk.len() as isize;
            all.extend(chunk);
            if len < CHUNK {
                return Ok(all);
            }
            start += CHUNK;
        }
    }

    /// Gives every key of a period an expiry of `ttl` (an archived period's safety net: its keys
    /// are unlinked after the grace, [`Projection::unlink_period`]).
    pub async fn expire(&self, board: &BoardSlug, period: &PeriodKey, ttl: Duration) -> RedisResult<()> {
        self.expire_keys(&self.keys.period(board, period), ttl).await
    }

    /// [`Projection::expire`] of one ranking's keys (a period's or a segment's).
    pub(super) async fn expire_keys(&self, keys: &keys::PeriodKeys, ttl: Duration) -> RedisResult<()> {
        let mut conn = self.conn().await?;
        let mut pipe = ::redis::pipe();
        for key in keys.all() {
            pipe.cmd("PEXPIRE").arg(key).arg(ttl.as_millis() as u64).ignore();
        }
        pipe.exec_async(&mut conn).await
    }

    /// Removes every key of a period with UNLINK: Redis frees a big ranking off its main thread
    /// (an expiry, or DEL, would free it on the main thread and stall every other command).
    pub async fn unlink_period(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<()> {
        self.unlink_keys(&self.keys.period(board, period)).await
    }

    /// [`Projection::unlink_period`] of one ranking's keys (a period's or a segment's).
    pub(super) async fn unlink_keys(&self, keys: &keys::PeriodKeys) -> RedisResult<()> {
        let mut conn = self.conn().await?;
        ::redis::cmd("UNLINK").arg(&keys.all()[..]).exec_async(&mut conn).await
    }
}
