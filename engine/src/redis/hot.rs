//! Hot boards in Redis: the typed wrappers of the `hot_*.lua` scripts (each alone knows its
//! script's argument order) and the snapshot read. Keys come from [`super::keys::HotKeys`].

use super::{Projection, RedisConn};
use ::redis::{RedisResult, Script};
use domain::BoardSlug;
use domain::hot::{HitResult, HotMember, HotRules, WindowMerge, WriteMode};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

static HIT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/hot_hit.lua")));
static PUBLISH: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/hot_publish.lua")));
static TEND: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/hot_tend.lua")));

/// Bucket entries one call of a merge reads: under a millisecond of Redis time.
pub const MERGE_SLICE: usize = 1_000;
/// Buckets a merge reads at once: Redis answers one slice while Laurel folds in another.
const MERGE_READS: usize = 4;
/// How long after its end a bucket is kept between merges. Hits are counted by the primary's
/// clock, so none lands in a closed bucket; the margin covers a replica that has not yet
/// received the last hits of a bucket that just closed.
const KEEP_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// One bucket's entries, each member once. A bucket that no longer changes is read by rank
/// (`ZRANGE i j WITHSCORES`, slice after slice: the ranks stay put). The live one is read with
/// `ZSCAN … COUNT`, which returns every member present for the whole scan while hits go on;
/// a member may come twice while the bucket grows, and then the higher score is the later one
/// (scores only rise in either write mode).
async fn read_bucket(mut conn: RedisConn, key: String, live: bool) -> RedisResult<Vec<(String, f64)>> {
    if !live {
        let mut entries = Vec::new();
        loop {
            let slice: Vec<(String, f64)> = ::redis::cmd("ZRANGE")
                .arg(&key)
                .arg(entries.len())
                .arg(entries.len() + MERGE_SLICE - 1)
                .arg("WITHSCORES")
                .query_async(&mut conn)
                .await?;
            let full = slice.len() == MERGE_SLICE;
            entries.extend(slice);
            if !full {
                return Ok(entries);
            }
        }
    }
    let mut bucket: HashMap<String, f64> = HashMap::new();
    let mut cursor = 0u64;
    loop {
        let (next, slice): (u64, Vec<(String, f64)>) = ::redis::cmd("ZSCAN")
            .arg(&key)
            .arg(cursor)
            .arg("COUNT")
            .arg(MERGE_SLICE)
            .query_async(&mut conn)
            .await?;
        for (member, score) in slice {
            let slot = bucket.entry(member).or_insert(score);
            *slot = slot.max(score);
        }
        if next == 0 {
            return Ok(bucket.into_iter().collect());
        }
        cursor = next;
    }
}

/// The server's clock as TIME answers it, run as a script with the board's namespace as its key
/// so a Cluster routes it to the node that holds the board's buckets.
static CLOCK: LazyLock<Script> = LazyLock::new(|| Script::new("return redis.call('TIME')"));

/// A merged window ([`Projection::hot_merge`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The instant merged, unix ms.
    pub now_ms: i64,
    /// Best first.
    pub top: Vec<(String, f64)>,
    /// The window's total heat: every merged member's score summed.
    pub heat: f64,
    /// Bucket entries merged, read now or kept from an earlier merge (a member in three buckets
    /// counts three times).
    pub entries_read: usize,
    /// Of those, the entries read from Redis by this merge.
    pub entries_fetched: usize,
}

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

/// What the hits of one `hot_hit.lua` call share: the board and the arguments its rules give.
/// Hits under different rules (a board edited meanwhile) or clocks go in different calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct HitRound {
    board: BoardSlug,
    clock: String,
    bucket_ms: u64,
    ttl_seconds: u64,
    mode: &'static str,
    interval_ms: u64,
    cap: u64,
    bound: u64,
}

/// A hit waiting for its round: score, member, actor ('' for none).
pub(super) type QueuedHit = (f64, String, String);

impl Projection {
    /// Counts a hit (`hot_hit.lua`). The board's hits that wait meanwhile are counted in the
    /// same call (`grouped.rs`), one after the other in arrival order, each exactly as a call
    /// of its own would: a cohort of requests costs one script run instead of one each.
    pub async fn hot_hit(
        &self,
        board: &BoardSlug,
        rules: &HotRules,
        hit: HitArgs<'_>,
    ) -> RedisResult<HitAnswer> {
        let round_of = HitRound {
            board: board.clone(),
            clock: clock(hit.at_ms),
            bucket_ms: bucket_ms(rules),
            ttl_seconds: rules.ttl_seconds,
            mode: match rules.write_mode {
                WriteMode::Count => "count",
                WriteMode::Best => "best",
            },
            interval_ms: rules.snapshot_seconds * 1000,
            cap: rules.actor_cap.unwrap_or(0),
            bound: rules.max_members,
        };
        let queued = (hit.score, hit.member.as_str().to_owned(), hit.actor.unwrap_or_default().to_owned());
        let this = self.clone();
        let round = move |round: &HitRound, hits: Vec<QueuedHit>| {
            let (this, round) = (this.clone(), round.clone());
            async move {
                match this.count_hits(&round, &hits).await {
                    Ok(answers) => answers.into_iter().map(Ok).collect(),
                    Err(error) => vec![Err(error); hits.len()],
                }
            }
        };
        self.hits.call(round_of, queued, round).await.unwrap_or_else(|| {
            Err(::redis::RedisError::from((::redis::ErrorKind::Io, "the board's grouped hits stopped")))
        })
    }

    /// One `hot_hit.lua` call for a round's hits: one answer for each, in order.
    async fn count_hits(&self, round: &HitRound, hits: &[QueuedHit]) -> RedisResult<Vec<HitAnswer>> {
        let keys = self.keys.hot(&round.board);
        let mut conn = self.conn().await?;
        let mut call = HIT.key(&keys.namespace);
        call.arg(&round.clock)
            .arg(round.bucket_ms)
            .arg(round.ttl_seconds)
            .arg(round.mode)
            .arg(round.interval_ms)
            .arg(round.cap)
            .arg(round.bound);
        for (score, member, actor) in hits {
            call.arg(score).arg(member).arg(actor);
        }
        let answers: Vec<(String, i64, String)> = call.invoke_async(&mut conn).await?;
        if answers.len() != hits.len() {
            return Err(super::invalid(format!("{} answers to {} hits", answers.len(), hits.len())));
        }
        answers
            .into_iter()
            .map(|(result, bucket, score)| {
                let result = match result.as_str() {
                    "counted" => HitResult::Counted,
                    "deduplicated" => HitResult::Deduplicated,
                    "capped" => HitResult::Capped,
                    "not_raised" => HitResult::NotRaised,
                    other => return Err(super::invalid(format!("hit result {other:?}"))),
                };
                Ok(HitAnswer { result, bucket, score: score.parse().ok() })
            })
            .collect()
    }

    /// The window merged as of `at_ms` (None: the Redis server's clock): that instant in ms and
    /// up to `limit` (member, score), best first, with how many bucket entries it covers. A
    /// bucket is read in slices of [`MERGE_SLICE`] entries on the bulk connection, up to
    /// `MERGE_READS` buckets at a time, and merged here, so no command holds Redis for longer
    /// than one slice (docs/DESIGN.md, "The window merge"). A bucket closed for `KEEP_AFTER`
    /// no longer changes: it is read once and kept in this process for the next merges, which
    /// check only its size (one pipelined `ZCARD` per kept bucket: a bucket that changed or
    /// expired is read again or dropped).
    pub async fn hot_merge(
        &self,
        board: &BoardSlug,
        rules: &HotRules,
        limit: usize,
        at_ms: Option<i64>,
    ) -> RedisResult<Merged> {
        let keys = self.keys.hot(board);
        let conn = self.bulk_conn().await?;
        let now = match at_ms {
            Some(ms) => ms,
            None => {
                // The primary's clock, the one hits are counted by (the bulk connection may be a
                // replica's).
                let mut primary = self.conn().await?;
                let (secs, micros): (i64, i64) =
                    CLOCK.key(&keys.namespace).invoke_async(&mut primary).await?;
                secs * 1000 + micros / 1000
            }
        };
        let width = bucket_ms(rules) as i64;
        let newest = now.div_euclid(width);
        let oldest = newest - rules.weights.len() as i64 + 1;
        let window: Vec<i64> = (oldest..=newest).collect();

        // One merge of a board at a time in this process; the kept buckets go with the rules.
        let kept = {
            let mut merges = self.hot_merges.lock().expect("hot merges");
            Arc::clone(merges.entry(board.clone()).or_default())
        };
        let mut kept = kept.lock().await;
        if kept.0.as_ref() != Some(rules) {
            *kept = (Some(rules.clone()), WindowMerge::default());
        }
        let mut merge = std::mem::take(&mut kept.1);
        merge.forget_before(oldest);

        // A kept bucket whose size changed (or that is gone) is read again.
        let kept_buckets: Vec<i64> = window.iter().copied().filter(|b| merge.kept(*b).is_some()).collect();
        if !kept_buckets.is_empty() {
            let mut pipe = ::redis::pipe();
            for b in &kept_buckets {
                pipe.zcard(keys.bucket(*b));
            }
            let sizes: Vec<usize> = pipe.query_async(&mut conn.clone()).await?;
            for (b, size) in kept_buckets.iter().zip(sizes) {
                if merge.kept(*b) != Some(size) {
                    merge.forget(*b);
                }
            }
        }

        let to_read: Vec<i64> = window.iter().copied().filter(|b| merge.kept(*b).is_none()).collect();
        let mut fresh = Vec::new();
        let mut fetched = 0;
        let mut reads = tokio::task::JoinSet::new();
        let mut next = 0;
        while next < to_read.len() || !reads.is_empty() {
            while next < to_read.len() && reads.len() < MERGE_READS {
                let (bucket, conn) = (to_read[next], conn.clone());
                let key = keys.bucket(bucket);
                // Only the newest bucket still takes hits: the older ones no longer change.
                let live = bucket == newest;
                reads.spawn(async move { (bucket, read_bucket(conn, key, live).await) });
                next += 1;
            }
            let (bucket, entries) = reads
                .join_next()
                .await
                .expect("a read is running")
                .map_err(|e| super::invalid(format!("a bucket read stopped: {e}")))?;
            let entries = entries?;
            fetched += entries.len();
            // Interning a bucket of 100k entries takes milliseconds without an await: on a
            // blocking thread, so the runtime's workers keep answering requests meanwhile.
            let closed_long_enough = (bucket + 1) * width + KEEP_AFTER.as_millis() as i64 <= now;
            let (back, interned) = tokio::task::spawn_blocking(move || {
                let interned = merge.intern(entries);
                (merge, interned)
            })
            .await
            .map_err(|e| super::invalid(format!("a bucket fold stopped: {e}")))?;
            merge = back;
            if closed_long_enough {
                merge.keep(bucket, interned);
            } else {
                fresh.push((bucket, interned));
            }
        }
        let covered = window.iter().filter_map(|b| merge.kept(*b)).sum::<usize>()
            + fresh.iter().map(|(_, entries)| entries.len()).sum::<usize>();
        let rules_for_top = rules.clone();
        let (merge, (top, heat)) = tokio::task::spawn_blocking(move || {
            let top = merge.top_and_heat(&rules_for_top, newest, &fresh, limit);
            (merge, top)
        })
        .await
        .map_err(|e| super::invalid(format!("the window's top stopped: {e}")))?;
        kept.1 = merge;
        Ok(Merged { now_ms: now, top, heat, entries_read: covered, entries_fetched: fetched })
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
