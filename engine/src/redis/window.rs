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
use domain::{BoardSlug, MemberId, PeriodKey};
use std::sync::LazyLock;

static WINDOW: LazyLock<ReadScript> = LazyLock::new(|| ReadScript::new(include_str!("scripts/window.lua")));
static RANKS: LazyLock<ReadScript> = LazyLock::new(|| ReadScript::new(include_str!("scripts/ranks.lua")));

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
    /// publicly frozen (`engine::public`).
    Live,
    /// The live ranking whatever the public sees (admins).
    Unfrozen,
    Snapshot(&'a str),
    /// One segment value's ranking (`segments.rs`). `public`: read for the public (then never
    /// while the period is publicly frozen: the engine refuses first).
    Segment {
        segment: &'a domain::segment::Segment,
        public: bool,
    },
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
}

impl Projection {
    /// Reads a window of `limit` entries (or a member's neighbourhood) atomically, with the
    /// score of the entry after it. None when `Window::Around` names an absent member. Only the
    /// public rankings (`Source::Live`, a public segment read) are ever read `from` a replica.
    #[allow(clippy::too_many_arguments)]
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
            let key = match source {
                Source::Live => self.keys.rank(board, period),
                Source::Unfrozen => self.live_ranking(board, period).await?,
                Source::Snapshot(id) => self.keys.snapshot(board, period, id).0,
                Source::Segment { segment, .. } => self.keys.segment(board, period, segment).rank,
            };
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
            let reply: Vec<Value> = self.read_script(&WINDOW, from, &key, &args).await?;
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
            let mut rows = Vec::new();
            while let (Some(m), Some(s)) = (it.next(), it.next()) {
                let member: String = ::redis::from_redis_value(m)?;
                let score: String = ::redis::from_redis_value(s)?;
                rows.push((parse_member(member)?, parse_score(&score)?));
            }
            let next = (rows.len() > wanted).then(|| rows.pop().map(|(_, s)| s)).flatten();
            Ok(Some(RawPage { total, offset: offset as u64, ahead, rows, next }))
        })
        .await
    }

    /// Raw scores and ranks of `members` (None for absent ones), read atomically.
    pub async fn ranks(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        from: ReadFrom,
        tie_base: i64,
        policy: domain::TiePolicy,
        members: &[MemberId],
    ) -> RedisResult<Vec<Option<(i64, u64)>>> {
        self.guarded(async {
            let keys = self.keys.period(board, period);
            let mut args = vec![tie_base.to_string(), policy.as_str().to_owned()];
            args.extend(members.iter().map(|m| m.as_str().to_owned()));
            let reply: Vec<Value> = self.read_script(&RANKS, from, &keys.rank, &args).await?;
            let mut out = Vec::with_capacity(members.len());
            let mut it = reply.into_iter();
            while let (Some(score), Some(rank)) = (it.next(), it.next()) {
                let score: Option<String> = ::redis::from_redis_value(score)?;
                let rank: u64 = ::redis::from_redis_value(rank)?;
                out.push(match score {
                    Some(s) => Some((parse_score(&s)?, rank)),
                    None => None,
                });
            }
            Ok(out)
        })
        .await
    }

    /// Members whose score is at least `min_score`.
    pub async fn count_at_least(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        from: ReadFrom,
        min_score: i64,
    ) -> RedisResult<u64> {
        self.guarded(async {
            let keys = self.keys.period(board, period);
            self.read_cmd(from, ::redis::cmd("ZCOUNT").arg(keys.rank).arg(min_score).arg("+inf")).await
        })
        .await
    }
}
