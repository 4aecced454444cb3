//! Hot boards in Redis: the typed wrappers of the `hot_*.lua` scripts (each alone knows its
//! script's argument order) and the snapshot read. Keys come from [`super::keys::HotKeys`].

use super::Projection;
use ::redis::{RedisResult, Script};
use domain::BoardSlug;
use domain::hot::{HitResult, HotMember, HotRules, WriteMode};
use std::sync::LazyLock;

static HIT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/hot_hit.lua")));
static TOP: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/hot_top.lua")));
static PUBLISH: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/hot_publish.lua")));
static TEND: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/hot_tend.lua")));

/// A hit as the script takes it (already checked and valued by the engine).
#[derive(Debug, Clone)]
pub struct HitArgs<'a> {
    pub member: &'a HotMember,
    pub score: f64,
    /// Dedup and cap apply only to hits with an actor.
    pub actor: Option<&'a str>,
    /// The clock to use, unix ms; None: the Redis server's TIME.
    pub at_ms: Option<i64>,
}

/// What the hit script did.
#[derive(Debug, Clone, PartialEq)]
pub struct HitAnswer {
    pub result: HitResult,
    pub bucket: i64,
    /// The member's score in the bucket afterwards (None if not there, e.g. trimmed).
    pub score: Option<f64>,
}

/// What tending a board's buckets found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tended {
    pub current_bucket_members: u64,
    pub buckets_without_ttl: u64,
    pub unlinked: u64,
}

fn clock(at_ms: Option<i64>) -> String {
    at_ms.map(|ms| ms.to_string()).unwrap_or_default()
}

fn bucket_ms(rules: &HotRules) -> u64 {
    rules.bucket_seconds * 1000
}

impl Projection {
    /// Counts a hit (`hot_hit.lua`).
    pub async fn hot_hit(
        &self,
        board: &BoardSlug,
        rules: &HotRules,
        hit: HitArgs<'_>,
    ) -> RedisResult<HitAnswer> {
        let keys = self.keys.hot(board);
        let mut conn = self.conn().await?;
        let (result, bucket, score): (String, i64, String) = HIT
            .key(&keys.namespace)
            .arg(clock(hit.at_ms))
            .arg(bucket_ms(rules))
            .arg(rules.ttl_seconds)
            .arg(match rules.write_mode {
                WriteMode::Count => "count",
                WriteMode::Best => "best",
            })
            .arg(hit.score)
            .arg(hit.member.as_str())
            .arg(hit.actor.unwrap_or_default())
            .arg(rules.snapshot_seconds * 1000)
            .arg(rules.actor_cap.unwrap_or(0))
            .arg(rules.max_members)
            .invoke_async(&mut conn)
            .await?;
        let result = match result.as_str() {
            "counted" => HitResult::Counted,
            "deduplicated" => HitResult::Deduplicated,
            "capped" => HitResult::Capped,
            other => return Err(super::invalid(format!("hit result {other:?}"))),
        };
        Ok(HitAnswer { result, bucket, score: score.parse().ok() })
    }

    /// The window merged now (`hot_top.lua`): the server's clock in ms and up to `limit`
    /// (member, score), best first. Runs on the slow connection: merging millions of entries
    /// takes seconds (docs/BENCHMARKS.md, hot boards), longer than the short calls may wait.
    pub async fn hot_top(
        &self,
        board: &BoardSlug,
        rules: &HotRules,
        limit: usize,
        at_ms: Option<i64>,
    ) -> RedisResult<(i64, Vec<(String, f64)>)> {
        let keys = self.keys.hot(board);
        let mut conn = self.slow_conn().await?;
        let mut call = TOP.key(&keys.namespace);
        call.arg(clock(at_ms)).arg(bucket_ms(rules)).arg(rules.aggregate.as_str()).arg(limit);
        for w in &rules.weights {
            call.arg(*w);
        }
        let flat: Vec<String> = call.invoke_async(&mut conn).await?;
        let now: i64 = flat.first().and_then(|s| s.parse().ok()).unwrap_or_default();
        let entries =
            flat[1..].chunks_exact(2).map(|pair| (pair[0].clone(), pair[1].parse().unwrap_or(0.0))).collect();
        Ok((now, entries))
    }

    /// Publishes a snapshot document for interval `seq` unless an equal or newer one is there.
    pub async fn hot_publish(
        &self,
        board: &BoardSlug,
        seq: i64,
        json: &str,
        ttl_seconds: u64,
    ) -> RedisResult<bool> {
        let keys = self.keys.hot(board);
        let mut conn = self.conn().await?;
        let published: i64 =
            PUBLISH.key(&keys.snapshot).arg(seq).arg(json).arg(ttl_seconds).invoke_async(&mut conn).await?;
        Ok(published == 1)
    }

    /// The published snapshot document, if any.
    pub async fn hot_snapshot(&self, board: &BoardSlug) -> RedisResult<Option<String>> {
        let keys = self.keys.hot(board);
        let mut conn = self.conn().await?;
        ::redis::cmd("HGET").arg(&keys.snapshot).arg("list").query_async(&mut conn).await
    }

    /// Unlinks buckets behind the window and reports the current bucket's size and the window's
    /// buckets without a TTL (`hot_tend.lua`).
    pub async fn hot_tend(
        &self,
        board: &BoardSlug,
        rules: &HotRules,
        at_ms: Option<i64>,
    ) -> RedisResult<Tended> {
        let keys = self.keys.hot(board);
        let mut conn = self.conn().await?;
        let (members, without_ttl, unlinked): (u64, u64, u64) = TEND
            .key(&keys.namespace)
            .arg(clock(at_ms))
            .arg(bucket_ms(rules))
            .arg(rules.window_buckets)
            .invoke_async(&mut conn)
            .await?;
        Ok(Tended { current_bucket_members: members, buckets_without_ttl: without_ttl, unlinked })
    }
}
