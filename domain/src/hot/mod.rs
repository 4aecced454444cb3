//! Hot boards (docs/DESIGN.md, "Hot boards"): rankings over a sliding window of time buckets,
//! kept in Redis alone — short-lived, unaudited, high-rate. Hits go into the current bucket; a
//! read merges the window's buckets with per-bucket weights; a periodic snapshot adds rank
//! changes and "new" flags so every viewer in an interval sees the same list.
//!
//! This module holds the pure rules: which definitions are accepted ([`HotRules::new`]), what a
//! hit is worth ([`HotRules::hit_score`]), which members count ([`HotMember`]), the window in
//! words ([`HotRules::describe`], in English; in parts for the pages' catalogues,
//! [`HotRules::window_words`]) and how a snapshot compares with the previous one
//! ([`rank_changes`]: a list that did not move keeps the marks of its last move). A definition
//! keeps its buckets' TTL at least 1.5 × the window (a bucket still inside the window must not
//! expire), weights per bucket, and `best` hits with the `max` aggregate, within the bounds
//! below; the published list is a [`HotList`].

use crate::kinds::word_enum;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

mod merge;
mod words;

pub use merge::{WindowMerge, heat_shares, rank_changes};
use words::span_of;
pub use words::{SpanUnit, Weighting, WindowWords};

/// Most buckets one window merges (a merge reads every one of them).
pub const MAX_WINDOW_BUCKETS: u32 = 288;
/// Longest bucket: one day.
pub const MAX_BUCKET_SECONDS: u64 = 86_400;
/// Longest key TTL: a year.
pub const MAX_TTL_SECONDS: u64 = 366 * 86_400;
/// Longest snapshot interval: an hour.
pub const MAX_SNAPSHOT_SECONDS: u64 = 3_600;
/// Largest size bound of a bucket (docs/DESIGN.md, "Big keys and bounded boards": keep a bucket
/// well below a big key).
pub const MAX_MEMBERS: u64 = 1_000_000;
/// Largest weight of a bucket or an action, and largest value a single hit may carry.
pub const MAX_WEIGHT: f64 = 1_000.0;
pub const MAX_HIT_VALUE: f64 = 1e9;
/// Entries a snapshot keeps (and the largest `limit` of a top read).
pub const SNAPSHOT_ENTRIES: usize = 100;
const MAX_ACTIONS: usize = 32;
/// Most members one board's hit filter may block.
pub const MAX_BLOCKED: usize = 1_000;
/// Longest minimum actor age a hit filter may ask for: ten years.
pub const MAX_ACTOR_AGE_SECONDS: u64 = 3_660 * 86_400;

word_enum!(
    /// How a hit changes a member's score in the current bucket.
    WriteMode {
        /// `ZINCRBY`: hits add up (searches, clicks).
        Count => "count",
        /// `ZADD GT CH`: a recomputed score that may only rise within a bucket.
        Best => "best",
    }
);

word_enum!(
    /// How the window's buckets are merged ([`WindowMerge`]).
    Aggregate {
        /// Weighted sum over the buckets: counts.
        Sum => "sum",
        /// Highest weighted bucket score: `best` scores (a sum would count one score once per
        /// bucket it was written in; docs/DESIGN.md, "The window merge").
        Max => "max",
    }
);

/// A hot board: its slug (shared with periodic boards: one slug, one board), title and rules.
#[derive(Debug, Clone, PartialEq)]
pub struct HotBoard {
    pub slug: crate::BoardSlug,
    pub title: String,
    pub rules: HotRules,
}

/// What an admin asks for when creating a hot board; checked by [`HotRules::new`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HotSpec {
    pub bucket_seconds: u64,
    pub window_buckets: u64,
    pub ttl_seconds: u64,
    pub write_mode: Option<WriteMode>,
    pub aggregate: Option<Aggregate>,
    /// Oldest bucket first; default all 1.
    pub weights: Option<Vec<f64>>,
    pub snapshot_seconds: Option<u64>,
    pub max_members: Option<u64>,
    pub actor_cap: Option<u64>,
    pub action_weights: Option<BTreeMap<String, f64>>,
    pub filter: Option<HotFilter>,
}

/// A hot board's accepted definition: every value is in range and the set is coherent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HotRules {
    pub bucket_seconds: u64,
    pub window_buckets: u32,
    /// TTL of each bucket key, set once at its first write (`EXPIRE NX`) and never pushed back.
    pub ttl_seconds: u64,
    pub write_mode: WriteMode,
    pub aggregate: Aggregate,
    /// One per bucket of the window, oldest first: newer buckets may count more (decay).
    pub weights: Vec<f64>,
    /// How often the public list is recomputed. Also the anti-abuse window: per interval, an
    /// actor counts once per member and at most `actor_cap` times in all (the dedup window is
    /// the refresh interval; docs/DESIGN.md, "Dedup, caps and weights").
    pub snapshot_seconds: u64,
    /// Size bound of a bucket: beyond it the lowest members are trimmed.
    pub max_members: u64,
    pub actor_cap: Option<u64>,
    /// Weight per action (`search` 1, `click` 3, `order` 10): cheap actions earn little.
    pub action_weights: BTreeMap<String, f64>,
    /// Which hits count at all; the only rule an admin may change after creation.
    #[serde(default)]
    pub filter: HotFilter,
}

/// A hot board's hit filter (docs/DESIGN.md, "Dedup, caps and weights"): the articles' trending
/// searches count only searches that found something, never blocked terms, and not from accounts
/// made a moment ago — most fake volume fails one of the three. A hit that fails is `filtered`
/// (with the reason) before Redis is touched. The default filters nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default, deny_unknown_fields)]
pub struct HotFilter {
    /// Count a hit only when it says it found something (`results` above 0).
    pub count_only_with_results: bool,
    /// Members (terms) that never count, compared without regard to case.
    pub blocked_members: Vec<String>,
    /// Count a hit only when its actor's account (`actor_created_at`) is at least this old.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 316_224_000))]
    pub min_actor_age_seconds: Option<u64>,
}

/// What a hit tells the filter besides its member.
#[derive(Debug, Clone, Copy, Default)]
pub struct HitFacts {
    /// How many results the search found, as the host reports it.
    pub results: Option<u64>,
    /// When the actor's account was made, as the host reports it.
    pub actor_created_at: Option<jiff::Timestamp>,
}

impl HotFilter {
    /// Accepts a filter as an admin sent it or says what is wrong: blocked members must be
    /// members a hit could name (each at most once), the age in range. Blocked members are kept
    /// lower-cased, the form they are compared in.
    pub fn checked(mut self) -> Result<Self, String> {
        if self.blocked_members.len() > MAX_BLOCKED {
            return Err(format!("at most {MAX_BLOCKED} blocked members"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for term in &mut self.blocked_members {
            let member = HotMember::parse(term).map_err(|e| format!("blocked member {term:?}: {e}"))?;
            *term = member.as_str().to_lowercase();
            if !seen.insert(term.clone()) {
                return Err(format!("blocked member {term:?} is listed twice"));
            }
        }
        if let Some(age) = self.min_actor_age_seconds {
            in_range("min_actor_age_seconds", age, 1, MAX_ACTOR_AGE_SECONDS)?;
        }
        Ok(self)
    }

    /// Ok to count, or why the hit is `filtered`.
    pub fn check(&self, member: &HotMember, facts: HitFacts, now: jiff::Timestamp) -> Result<(), String> {
        if self.count_only_with_results && facts.results.unwrap_or(0) == 0 {
            return Err("this board counts only hits with results".into());
        }
        if !self.blocked_members.is_empty() {
            let term = member.as_str().to_lowercase();
            if self.blocked_members.contains(&term) {
                return Err("this member is blocked on this board".into());
            }
        }
        if let Some(min) = self.min_actor_age_seconds {
            let old_enough = facts.actor_created_at.is_some_and(|created| {
                now.duration_since(created).as_secs() >= i64::try_from(min).unwrap_or(i64::MAX)
            });
            if !old_enough {
                return Err(format!("this board counts only actors whose account is at least {min} s old"));
            }
        }
        Ok(())
    }
}

fn positive_weight(what: &str, w: f64) -> Result<(), String> {
    if w.is_finite() && w > 0.0 && w <= MAX_WEIGHT {
        Ok(())
    } else {
        Err(format!("{what} must be a number above 0 and at most {MAX_WEIGHT}, got {w}"))
    }
}

fn in_range(what: &str, v: u64, min: u64, max: u64) -> Result<(), String> {
    if (min..=max).contains(&v) { Ok(()) } else { Err(format!("{what} must be {min}-{max}, got {v}")) }
}

impl HotRules {
    /// Accepts a definition or says what is wrong with it.
    pub fn new(spec: HotSpec) -> Result<Self, String> {
        in_range("bucket_seconds", spec.bucket_seconds, 1, MAX_BUCKET_SECONDS)?;
        in_range("window_buckets", spec.window_buckets, 1, u64::from(MAX_WINDOW_BUCKETS))?;
        let window_buckets = u32::try_from(spec.window_buckets).expect("checked above");
        let window = spec.bucket_seconds * spec.window_buckets;
        // A bucket still inside the window must not expire: TTL ≥ 1.5 × the window
        // (docs/DESIGN.md, "Bucket TTLs").
        let min_ttl = (3 * window).div_ceil(2);
        if spec.ttl_seconds < min_ttl {
            return Err(format!(
                "ttl_seconds must be at least 1.5 × the window ({window} s), i.e. {min_ttl}, got {}",
                spec.ttl_seconds
            ));
        }
        in_range("ttl_seconds", spec.ttl_seconds, min_ttl, MAX_TTL_SECONDS)?;
        let write_mode = spec.write_mode.unwrap_or(WriteMode::Count);
        let aggregate = spec.aggregate.unwrap_or(match write_mode {
            WriteMode::Count => Aggregate::Sum,
            WriteMode::Best => Aggregate::Max,
        });
        if write_mode == WriteMode::Best && aggregate == Aggregate::Sum {
            return Err("write_mode best needs aggregate max: a sum would count one score once per \
                        bucket it was written in"
                .into());
        }
        let weights = spec.weights.unwrap_or_else(|| vec![1.0; window_buckets as usize]);
        if weights.len() != window_buckets as usize {
            return Err(format!(
                "weights must give one weight per bucket of the window ({window_buckets}), got {}",
                weights.len()
            ));
        }
        for w in &weights {
            positive_weight("a bucket weight", *w)?;
        }
        let snapshot_seconds = spec.snapshot_seconds.unwrap_or(spec.bucket_seconds.min(300));
        in_range("snapshot_seconds", snapshot_seconds, 1, MAX_SNAPSHOT_SECONDS.min(spec.ttl_seconds))?;
        let max_members = spec.max_members.unwrap_or(100_000);
        in_range("max_members", max_members, 1, MAX_MEMBERS)?;
        if let Some(cap) = spec.actor_cap {
            in_range("actor_cap", cap, 1, 1_000_000)?;
        }
        let filter = spec.filter.unwrap_or_default().checked()?;
        let action_weights = spec.action_weights.unwrap_or_default();
        if action_weights.len() > MAX_ACTIONS {
            return Err(format!("at most {MAX_ACTIONS} action weights"));
        }
        for (action, w) in &action_weights {
            let ok = (1..=32).contains(&action.len())
                && action.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !ok {
                return Err(format!("action {action:?}: names are 1-32 bytes of [a-z0-9_]"));
            }
            positive_weight(&format!("the weight of action {action:?}"), *w)?;
        }
        Ok(Self {
            bucket_seconds: spec.bucket_seconds,
            window_buckets,
            ttl_seconds: spec.ttl_seconds,
            write_mode,
            aggregate,
            weights,
            snapshot_seconds,
            max_members,
            actor_cap: spec.actor_cap,
            action_weights,
            filter,
        })
    }

    /// The window's length in seconds.
    pub fn window_seconds(&self) -> u64 {
        self.bucket_seconds * u64::from(self.window_buckets)
    }

    /// What one hit adds (`count`) or proposes (`best`): its value (default 1) times its
    /// action's weight. An action the board does not know is refused (weights only work if
    /// nobody can invent a heavier action; docs/DESIGN.md, "Dedup, caps and weights").
    pub fn hit_score(&self, value: Option<f64>, action: Option<&str>) -> Result<f64, String> {
        let value = value.unwrap_or(1.0);
        if !(value.is_finite() && value > 0.0 && value <= MAX_HIT_VALUE) {
            return Err(format!("weight must be above 0 and at most {MAX_HIT_VALUE}, got {value}"));
        }
        let factor = match action {
            None => 1.0,
            Some(a) => *self.action_weights.get(a).ok_or_else(|| {
                let known: Vec<&str> = self.action_weights.keys().map(String::as_str).collect();
                if known.is_empty() {
                    format!("unknown action {a:?}: this board defines no actions")
                } else {
                    format!("unknown action {a:?}; expected one of: {}", known.join(", "))
                }
            })?,
        };
        Ok(value * factor)
    }

    /// The window in words, for people: "last 24 hours, newer counts more". The English of
    /// [`HotRules::window_words`], which the API answers (`HotWindow::description`); pages word
    /// the same parts from their catalogues, in the reader's language.
    pub fn describe(&self) -> String {
        self.window_words().english()
    }

    /// The window in parts a catalogue can word: its length in the largest whole unit, whether
    /// it keeps the best score, and how its buckets are weighted.
    pub fn window_words(&self) -> WindowWords {
        let (count, unit) = span_of(self.window_seconds());
        let best = matches!(
            (self.write_mode, self.aggregate),
            (WriteMode::Best, _) | (WriteMode::Count, Aggregate::Max)
        );
        let first = self.weights[0];
        let rising = self.weights.windows(2).all(|w| w[1] >= w[0]) && self.weights.last() > Some(&first);
        let weighting = if rising {
            Weighting::NewerMore
        } else if self.weights.iter().all(|w| *w == first) {
            Weighting::Even
        } else {
            Weighting::ByAge
        };
        WindowWords { count, unit, best, weighting }
    }
}

/// A member of a hot board: a stable id or a search term. Trimmed; 1–64 characters of letters,
/// digits (any script), inner spaces and `-_.:@#+&'/`. Blank, overlong or odd input is refused
/// at the edge (docs/DESIGN.md, "Dedup, caps and weights").
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HotMember(String);

impl HotMember {
    pub const MAX_CHARS: usize = 64;

    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("member is blank".into());
        }
        if s.chars().count() > Self::MAX_CHARS {
            return Err(format!("member must be at most {} characters", Self::MAX_CHARS));
        }
        if let Some(c) = s.chars().find(|c| !(c.is_alphanumeric() || *c == ' ' || "-_.:@#+&'/".contains(*c)))
        {
            return Err(format!("member may not contain {c:?}"));
        }
        Ok(Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for HotMember {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Self::parse(&s)
    }
}

impl From<HotMember> for String {
    fn from(m: HotMember) -> String {
        m.0
    }
}

impl fmt::Display for HotMember {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What happened to a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum HitResult {
    /// Added to the current bucket.
    Counted,
    /// The same actor already counted for this member in this interval.
    Deduplicated,
    /// The actor reached the board's cap for this interval.
    Capped,
    /// Refused before Redis: an invalid member, value or action (see `reason`).
    Rejected,
    /// Well-formed, but the board's filter does not count it (see `reason`).
    Filtered,
    /// `best` boards: the hit's score was not above the member's in the current bucket, so
    /// nothing changed (`ZADD GT CH` answered 0).
    NotRaised,
}

impl HitResult {
    pub fn as_str(self) -> &'static str {
        match self {
            HitResult::Counted => "counted",
            HitResult::Deduplicated => "deduplicated",
            HitResult::Capped => "capped",
            HitResult::Rejected => "rejected",
            HitResult::Filtered => "filtered",
            HitResult::NotRaised => "not_raised",
        }
    }
}

/// One line of a published hot list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HotEntry {
    /// 1-based position: score descending, then member descending (Redis order).
    pub rank: u32,
    pub member: String,
    pub score: f64,
    /// Places gained since the previous snapshot (negative: lost); 0 for a new entry. A
    /// snapshot in the same order as the previous one keeps its marks (this and `new`): they
    /// say how the list moved when it last moved ([`rank_changes`]).
    pub change: i64,
    /// Not in the previous snapshot (false for everyone in the first snapshot: nothing to
    /// compare with).
    pub new: bool,
    /// The entry's part of the window's total heat (every member's merged score, not only the
    /// listed ones): 0 to 1, and the list's shares sum to at most 1. Lists published before
    /// shares existed read as 0.
    #[serde(default)]
    pub share: f64,
}

/// A hot board's window, in numbers and in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HotWindow {
    pub seconds: u64,
    pub buckets: u32,
    pub bucket_seconds: u64,
    pub aggregate: Aggregate,
    /// "last 24 hours, newer counts more".
    pub description: String,
}

impl HotWindow {
    pub fn of(board: &HotBoard) -> Self {
        let r = &board.rules;
        Self {
            seconds: r.window_seconds(),
            buckets: r.window_buckets,
            bucket_seconds: r.bucket_seconds,
            aggregate: r.aggregate,
            description: r.describe(),
        }
    }
}

/// The public list of a hot board: the latest snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HotList {
    /// When the snapshot was taken (the Redis server's clock); None before the first one.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub updated_at: Option<jiff::Timestamp>,
    /// How often a new list is published.
    pub snapshot_seconds: u64,
    pub window: HotWindow,
    pub entries: Vec<HotEntry>,
}

/// A hot board in the list of boards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotBoardSummary {
    pub slug: crate::BoardSlug,
    pub title: String,
    /// The window in English words ([`HotRules::describe`]).
    pub window: String,
    /// The same words in parts, for a page to say in its reader's language.
    pub window_words: WindowWords,
}

impl HotBoardSummary {
    pub fn of(board: &HotBoard) -> Self {
        Self {
            slug: board.slug.clone(),
            title: board.title.clone(),
            window: board.rules.describe(),
            window_words: board.rules.window_words(),
        }
    }
}

#[cfg(test)]
mod tests;
