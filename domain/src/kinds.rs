//! The words fixed when a board is created: its `Cadence`, `Operator`, `TiePolicy`, `Sort` and
//! `Unit`, with their parsing and display. A leaf module (it imports nothing from the crate), so that `board`,
//! `period`, `score`, `ranking` and `write` can all use these words without importing each other.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! word_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $word)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The word used in the API, the ledger and the UI.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $word),+ }
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($word => Ok($name::$variant),)+
                    _ => Err(format!(
                        "unknown {} {s:?}; expected one of: {}",
                        stringify!($name).to_lowercase(),
                        [$($word),+].join(", ")
                    )),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use word_enum;

word_enum!(
    /// How long one period of a board lasts.
    Cadence {
        /// An ISO week (`2026-W34`), Monday 00:00 to Monday 00:00 in the board's time zone.
        Weekly => "weekly",
        /// A calendar day (`2026-08-20`) in the board's time zone.
        Daily => "daily",
        /// A calendar month (`2026-08`) in the board's time zone.
        Monthly => "monthly",
        /// A season: one period made of another board's periods (`crate::season`), named by
        /// its first and last (`2026-W40..2026-W51`).
        Season => "season",
    }
);

word_enum!(
    /// How a write changes a member's score. Each operator has its own endpoint, so a caller can
    /// never send a state where an event was meant (docs/DESIGN.md, "Events, totals and
    /// submissions").
    Operator {
        /// Point events with deltas, deduplicated by event id.
        Incr => "incr",
        /// Absolute totals with a version; a stale or repeated version changes nothing.
        Set => "set",
        /// Submissions where only a higher score counts.
        Best => "best",
    }
);

word_enum!(
    /// How equal points are ranked.
    TiePolicy {
        /// Equal points share a rank: competition ranking 1, 2, 2, 4.
        Shared => "shared",
        /// Whoever reached the score first ranks higher: ranks are unique.
        FirstReached => "first_reached",
    }
);

word_enum!(
    /// Which end of the points ranks first. Fixed at creation: it decides what every stored score
    /// means (the codec negates the points of ascending boards, `crate::score`).
    Sort {
        /// More points rank higher (the default).
        Desc => "desc",
        /// Fewer points rank higher: times, strokes, penalties.
        Asc => "asc",
    }
);

impl Sort {
    /// Whether `a` ranks ahead of `b` by points alone.
    pub fn better(self, a: i64, b: i64) -> bool {
        match self {
            Sort::Desc => a > b,
            Sort::Asc => a < b,
        }
    }

    /// The nearest value strictly better than `points` (`None` past the end of `i64`).
    pub fn next_better(self, points: i64) -> Option<i64> {
        match self {
            Sort::Desc => points.checked_add(1),
            Sort::Asc => points.checked_sub(1),
        }
    }

    /// The order of two point values, better first (`Less` when `a` ranks ahead of `b`).
    pub fn cmp(self, a: i64, b: i64) -> std::cmp::Ordering {
        match self {
            Sort::Desc => b.cmp(&a),
            Sort::Asc => a.cmp(&b),
        }
    }
}

word_enum!(
    /// What a board's points stand for, for display only: ranks and stored values never depend
    /// on it (`crate::format::points`).
    Unit {
        /// Plain numbers (the default).
        Points => "points",
        /// Milliseconds, shown as durations (`1:02.345`).
        Ms => "ms",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for c in Cadence::ALL {
            assert_eq!(c.as_str().parse::<Cadence>().unwrap(), *c);
        }
        for o in Operator::ALL {
            assert_eq!(o.as_str().parse::<Operator>().unwrap(), *o);
        }
        for t in TiePolicy::ALL {
            assert_eq!(t.as_str().parse::<TiePolicy>().unwrap(), *t);
        }
        for s in Sort::ALL {
            assert_eq!(s.as_str().parse::<Sort>().unwrap(), *s);
        }
        for u in Unit::ALL {
            assert_eq!(u.as_str().parse::<Unit>().unwrap(), *u);
        }
        assert!("up".parse::<Sort>().unwrap_err().contains("desc, asc"));
        assert!("hourly".parse::<Cadence>().unwrap_err().contains("weekly, daily, monthly"));
    }
}
