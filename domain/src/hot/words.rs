//! A hot board's window in words: its length in days, hours or minutes, and how its buckets
//! weigh.

use super::*;

/// The unit a window's length is said in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanUnit {
    Day,
    Hour,
    Minute,
    Second,
}

/// How a window's buckets are weighted, as a reader needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weighting {
    /// Every bucket counts the same: nothing is said.
    Even,
    /// No bucket counts less than an older one, and the newest more than the oldest.
    NewerMore,
    /// Any other weighting.
    ByAge,
}

/// A window as [`HotRules::describe`] says it, in parts: "last {count} {unit}s", "best score
/// in the last …", then ", newer counts more" or ", weighted by age". Pages word it from their
/// catalogues (`app/src/pages/hot.rs`); [`WindowWords::english`] is the API's English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowWords {
    /// The window's length: `count` of `unit`.
    pub count: u64,
    pub unit: SpanUnit,
    /// The best score in the window (`best` writes or a `max` merge), not the sum of its hits.
    pub best: bool,
    pub weighting: Weighting,
}

impl WindowWords {
    /// "last 24 hours, newer counts more", "best score in the last 30 seconds".
    pub fn english(&self) -> String {
        let unit = match self.unit {
            SpanUnit::Day => "day",
            SpanUnit::Hour => "hour",
            SpanUnit::Minute => "minute",
            SpanUnit::Second => "second",
        };
        let n = self.count;
        let span = if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") };
        let what = if self.best { format!("best score in the last {span}") } else { format!("last {span}") };
        match self.weighting {
            Weighting::Even => what,
            Weighting::NewerMore => format!("{what}, newer counts more"),
            Weighting::ByAge => format!("{what}, weighted by age"),
        }
    }
}

/// `86400` → 24 hours, `600` → 10 minutes, `604800` → 7 days: the largest unit that divides
/// the length into at least two (three for days).
pub(super) fn span_of(s: u64) -> (u64, SpanUnit) {
    if s.is_multiple_of(86_400) && s > 2 * 86_400 {
        (s / 86_400, SpanUnit::Day)
    } else if s.is_multiple_of(3_600) && s >= 2 * 3_600 {
        (s / 3_600, SpanUnit::Hour)
    } else if s.is_multiple_of(60) && s >= 2 * 60 {
        (s / 60, SpanUnit::Minute)
    } else {
        (s, SpanUnit::Second)
    }
}
