//! The choices fixed when a board is created. Operator and tie policy never change afterwards:
//! changing them would change what every stored score means.

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
    }
);

/// The cadence word of hot boards (sliding windows, Redis only; see [`crate::hot`]). Not a
/// [`Cadence`]: a hot board has no periods, no ledger entries and no lifecycle.
pub const HOT_CADENCE: &str = "hot";

word_enum!(
    /// How a write changes a member's score. Each operator has its own endpoint, so a caller can
    /// never send a state where an event was meant (seed 001).
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
        assert!("hourly".parse::<Cadence>().unwrap_err().contains("weekly, daily, monthly"));
    }
}

/// A board's definition, as stored in the ledger and checked at creation.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    pub slug: crate::ids::BoardSlug,
    pub title: String,
    pub cadence: Cadence,
    /// The IANA zone periods are computed in; resolved by the engine, which owns the database.
    pub zone: jiff::tz::TimeZone,
    pub operator: Operator,
    /// Carries the tie policy and the score bounds; its existence proves they are exact.
    pub codec: crate::score::ScoreCodec,
    /// How long after a period's end writes are still accepted (clock skew, queues).
    pub freeze_grace_seconds: i64,
    /// Checked by [`check_prizes`]: no overlaps.
    pub prizes: Vec<Prize>,
}

impl Board {
    pub fn tie_policy(&self) -> TiePolicy {
        self.codec.policy()
    }

    /// The zone's IANA name (`Asia/Shanghai`).
    pub fn time_zone(&self) -> &str {
        self.zone.iana_name().unwrap_or("UTC")
    }

    /// The period that contains `at`.
    pub fn period_at(&self, at: jiff::Timestamp) -> crate::period::PeriodKey {
        crate::period::PeriodKey::containing(self.cadence, at, &self.zone)
    }
}

/// One line of a board's prize table: ranks `from_rank..=to_rank` win `prize`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prize {
    pub from_rank: u64,
    pub to_rank: u64,
    pub prize: String,
}

/// Checks a prize table: ranks start at 1, each range is ordered, and no two ranges overlap.
pub fn check_prizes(prizes: &[Prize]) -> Result<(), String> {
    let mut ranges: Vec<&Prize> = prizes.iter().collect();
    ranges.sort_by_key(|p| p.from_rank);
    for p in &ranges {
        if p.from_rank == 0 || p.to_rank < p.from_rank {
            return Err(format!("prize {:?}: ranks must satisfy 1 <= from_rank <= to_rank", p.prize));
        }
        if p.prize.trim().is_empty() || p.prize.len() > 200 {
            return Err("a prize must be 1-200 bytes of text".into());
        }
    }
    if let Some(w) = ranges.windows(2).find(|w| w[1].from_rank <= w[0].to_rank) {
        return Err(format!("prizes {:?} and {:?} overlap", w[0].prize, w[1].prize));
    }
    Ok(())
}

#[cfg(test)]
mod prize_tests {
    use super::*;

    fn p(from_rank: u64, to_rank: u64) -> Prize {
        Prize { from_rank, to_rank, prize: format!("{from_rank}-{to_rank}") }
    }

    #[test]
    fn prize_tables_refuse_overlaps_and_empty_ranges() {
        assert!(check_prizes(&[p(1, 1), p(2, 3), p(4, 10)]).is_ok());
        assert!(check_prizes(&[p(4, 10), p(1, 4)]).unwrap_err().contains("overlap"));
        assert!(check_prizes(&[p(0, 1)]).is_err());
        assert!(check_prizes(&[p(3, 2)]).is_err());
    }
}
