//! Ranking reads: a window of a ranking (offset, keyset cursor or around a member), ranks of
//! listed members and counts, each read atomically by one script or command.
//!
//! Ties in Redis order by member id, descending (byte order); `window.lua` compares bytes itself
//! because Lua's string `>` follows the server's locale. A keyset cursor whose member moved or
//! never existed is placed in its tie by bisection, O(log T · log N), never a pass over the tie:
//! cursors are plain and anyone can write one.

use super::conn::ReadScript;
use super::{Projection, ReadFrom, parse_member, parse_score};
use ::redis::{RedisResult, Value};
use domain::segment::Segment;
use domain::{BoardSlug, MemberId, PeriodKey};
use std::sync::LazyLock;

// Each read answers a bounded ranking's floor (`floor.lua`, prepended) with what it read.
static WINDOW: LazyLock<ReadScript> = LazyLock::new(|| {
    ReadScript::new(concat!(include_str!("scripts/floor.lua"), include_str!("scripts/window.lua")))
});
static RANKS: LazyLock<ReadScript> = LazyLock::new(|| {
    ReadScript::new(concat!(include_str!("scripts/floor.lua"), include_str!("scripts/ranks.lua")))
});
static COUNT: LazyLock<ReadScript> = LazyLock::new(|| {
    ReadScript::new(concat!(include_str!("scripts/floor.lua"), include_str!("scripts/count.lua")))
});

/// Which window of a ranking to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window<'a> {
    /// From a 0-based position.
    Offset(u64),
    /// A member and `radius` entries on each side.
    Around { member: &'a MemberId, radius: u64 },
    /// Strictly after a keyset cursor (score desc, member desc).
    After { score: i64, member: &'a MemberId },
}

/// Which ranking a window is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
    /// The ranking the public reads: the live one, or the public view while the period is
    /// publicly frozen (`engine::lifecycle::public`).
    Live,
    /// The live ranking whatever the public sees (admins).
    Unfrozen,
    /// A pinned copy (`snapshots.rs`) of the period's ranking, or of a segment's (Some).
    Snapshot { id: &'a str, segment: Option<&'a Segment> },
    /// One segment value's ranking (`segments.rs`). `public`: read for the public (then never
    /// while the period is publicly frozen: the engine refuses first).
    Segment { segment: &'a Segment, public: bool },
}

/// One window as stored in Redis: raw scores, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPage {
    pub total: u64,
    /// Position (0-based) of the first row.
    pub offset: u64,
    /// Members with strictly more points than the first row.
    pub ahead: u64,
    pub rows: Vec<(MemberId, i64)>,
    /// The score of the entry right after the page, if any (tells ties and "more").
    pub next: Option<i64>,
    /// Whether the page is exactly as the whole ranking has it: true unless a bounded ranking
    /// was trimmed (`bounded.lua`) and a row, or the entry after the rows (ties, "more"), does
    /// not rank before its floor, or the rows reach the end of what Redis holds.
    pub exact: bool,
}

/// A bounded ranking's floor, answered by each read beside its rows (`floor.lua`): the best
/// entry (score, member) a trim removed. Every member Redis no longer holds ranks after it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Floor(pub Option<(i64, String)>);

impl Floor {
    /// Whether Redis ranks this entry exactly: it ranks before the floor, or nothing was trimmed.
    pub fn exact(&self, score: i64, member: &str) -> bool {
        // Scores descending, then member ids descending in byte order (`str`'s order).
        self.0.as_ref().is_none_or(|(s, m)| (score, member) > (*s, m.as_str()))
    }

    /// Whether every member with at least `score` is held: no trimmed member has it.
    pub fn counts_from(&self, score: i64) -> bool {
        self.0.as_ref().is_none_or(|(s, _)| score > *s)
    }

    fn parse(score: Option<Value>, member: Option<Value>) -> RedisResult<Self> {
        let score: Option<String> = ::redis::from_redis_value(score.unwrap_or(Value::Nil))?;
        let member: Option<String> = ::redis::from_redis_value(member.unwrap_or(Value::Nil))?;
        Ok(Floor(match score.as_deref() {
            None => None,
            // Trimmed before floors were kept: nothing is known to be exact until a refill.
            Some("+inf") => Some((i64::MAX, String::new())),
            Some(s) => Some((parse_score(s)?, member.unwrap_or_default())),
        }))
    }
}

impl Projection {
    /// Reads a window of `limit` entries (or a member's neighbourhood) atomically, with the
    /// score of the entry after it. None when `Window::Around` names an absent member. Only the
    /// public rankings (`Source::Live`, a public segment read) are ever read `from` a replica.
    #[allow(
        clippy::too_many_arguments,
        reason = "one argument per input of `window.lua` and its keys; a struct would be built and \
                  taken apart in the one call of `reads/window.rs`"
    )]
    pub async fn window(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        source: Source<'_>,
        from: ReadFrom,
        window: Window<'_>,
        limit: u64,
        tie_base: i64,
    ) -> RedisResult<Option<RawPage>> {
        self.guarded(async {
            // A period's rankings come with their :meta, for a bounded board's floor.
            let meta = || self.keys.period(board, period).meta;
            let keys = match source {
                Source::Live => vec![self.keys.rank(board, period), meta()],
                Source::Unfrozen => vec![self.live_ranking(board, period).await?, meta()],
                Source::Snapshot { id, segment } => vec![self.keys.snapshot(board, period, segment, id).0],
                Source::Segment { segment, .. } => vec![self.keys.segment(board, period, segment).rank],
            };
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let (limit_arg, base) = (limit.to_string(), tie_base.to_string());
            let args = match window {
                Window::Offset(offset) => {
                    ["offset", &limit_arg, &base, &offset.to_string()].map(String::from).to_vec()
                }
                Window::Around { member, radius } => {
                    ["around", &limit_arg, &base, member.as_str(), &radius.to_string()]
                        .map(String::from)
                        .to_vec()
                }
                Window::After { score, member } => {
                    ["after", &limit_arg, &base, &score.to_string(), member.as_str()]
                        .map(String::from)
                        .to_vec()
                }
            };
            let from = match source {
                Source::Live | Source::Segment { public: true, .. } => from,
                _ => ReadFrom::Primary,
            };
            let reply: Vec<Value> = self.read_script(&WINDOW, from, &keys, &args).await?;
            let mut it = reply.into_iter();
            let mut int =
                || -> RedisResult<i64> { Ok(::redis::from_redis_value(it.next().unwrap_or(Value::Int(0)))?) };
            let total = int()? as u64;
            let offset = int()?;
            if offset < 0 {
                return Ok(None);
            }
            let ahead = int()? as u64;
            let wanted = int()? as usize;
            let floor = Floor::parse(it.next(), it.next())?;
            let mut rows = Vec::new();
            while let (Some(m), Some(s)) = (it.next(), it.next()) {
                let member: String = ::redis::from_redis_value(m)?;
                let score: String = ::redis::from_redis_value(s)?;
                rows.push((parse_member(member)?, parse_score(&score)?));
            }
            let exact = match &floor.0 {
                None => true,
                Some(_) => rows.len() > wanted && rows.iter().all(|(m, s)| floor.exact(*s, m.as_str())),
            };
            let next = (rows.len() > wanted).then(|| rows.pop().map(|(_, s)| s)).flatten();
            Ok(Some(RawPage { total, offset: offset as u64, ahead, rows, next, exact }))
        })
        .await
    }

    /// Raw scores and ranks of `members` (None for absent ones), read atomically with the
    /// ranking's floor: in the period's public ranking, or in a segment's (Some; no floor).
    #[allow(
        clippy::too_many_arguments,
        reason = "one argument per input of `ranks.lua` and its keys; a struct would be built and \
                  taken apart in the one call of `reads/counts.rs`"
    )]
    pub async fn ranks(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: Option<&Segment>,
        from: ReadFrom,
        tie_base: i64,
        policy: domain::TiePolicy,
        members: &[MemberId],
    ) -> RedisResult<(Vec<Option<(i64, u64)>>, Floor)> {
        self.guarded(async {
            let keys = self.ranking_keys(board, period, segment);
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let mut args = vec![tie_base.to_string(), policy.as_str().to_owned()];
            args.extend(members.iter().map(|m| m.as_str().to_owned()));
            let reply: Vec<Value> = self.read_script(&RANKS, from, &keys, &args).await?;
            let mut out = Vec::with_capacity(members.len());
            let mut it = reply.into_iter();
            let floor = Floor::parse(it.next(), it.next())?;
            while let (Some(score), Some(rank)) = (it.next(), it.next()) {
                let score: Option<String> = ::redis::from_redis_value(score)?;
                let rank: u64 = ::redis::from_redis_value(rank)?;
                out.push(match score {
                    Some(s) => Some((parse_score(&s)?, rank)),
                    None => None,
                });
            }
            Ok((out, floor))
        })
        .await
    }

    /// Members whose score is at least `min_score`, read atomically with the ranking's floor: in
    /// the period's public ranking, or in a segment's (Some; no floor).
    pub async fn count_at_least(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        segment: Option<&Segment>,
        from: ReadFrom,
        min_score: i64,
    ) -> RedisResult<(u64, Floor)> {
        self.guarded(async {
            let keys = self.ranking_keys(board, period, segment);
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let args = [min_score.to_string()];
            let reply: Vec<Value> = self.read_script(&COUNT, from, &keys, &args).await?;
            let mut it = reply.into_iter();
            let count: u64 = ::redis::from_redis_value(it.next().unwrap_or(Value::Int(0)))?;
            Ok((count, Floor::parse(it.next(), it.next())?))
        })
        .await
    }

    /// The keys `ranks.lua` and `count.lua` read: the period's public ranking with its `:meta`
    /// (a bounded board's floor), or a segment's ranking alone (segments are never bounded).
    fn ranking_keys(&self, board: &BoardSlug, period: &PeriodKey, segment: Option<&Segment>) -> Vec<String> {
        match segment {
            None => {
                let keys = self.keys.period(board, period);
                vec![keys.rank, keys.meta]
            }
            Some(segment) => vec![self.keys.segment(board, period, segment).rank],
        }
    }
}
