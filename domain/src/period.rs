//! Periods: one window of a board, named by a key computed on the server from an instant and the
//! board's IANA time zone — never by a client (docs/DESIGN.md, "Period keys": "which week" is a
//! rule, not an input).
//!
//! `weekly` = ISO week `2026-W34` (Monday to Monday; ISO years can have 53 weeks, 2026 does),
//! `daily` = `2026-08-20`, `monthly` = `2026-08`. Periods start at local midnight, so a period that
//! contains a DST change is an hour shorter or longer than usual.

use crate::kinds::Cadence;
use jiff::civil::{Date, ISOWeekDate, Weekday};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a period key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeriodError {
    #[error(
        "period {0:?} is not a week (2026-W34), a day (2026-08-20), a month (2026-08) or a season \
         (2026-W40..2026-W51)"
    )]
    Malformed(String),
    #[error("period {0:?} does not exist in the calendar")]
    NoSuchPeriod(String),
    #[error("period {key:?} is not a {cadence} period")]
    WrongCadence { key: String, cadence: Cadence },
    #[error("period {0:?} is outside the supported years 1970-9998")]
    OutOfRange(String),
    #[error("a season's period is named by its definition, not by an instant")]
    NotCalendar,
    #[error("a season has one period, {season}; {key:?} is not it")]
    NotTheSeason { key: String, season: String },
}

/// The calendar slot a period covers. Private: every value is a real, supported period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Calendar {
    Week { year: i16, week: i8 },
    Day(Date),
    Month { year: i16, month: i8 },
}

/// A period: one calendar slot, or a season's run of its source's slots (first and last, in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Slot {
    One(Calendar),
    Season(Calendar, Calendar),
}

/// A period key such as `2026-W34`, or `2026-W40..2026-W51` for a season. Its cadence is implied
/// by its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PeriodKey(Slot);

/// Where a period starts (inclusive) and ends (exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodSpan {
    pub start: Timestamp,
    pub end: Timestamp,
}

const MIN_YEAR: i16 = 1970;
const MAX_YEAR: i16 = 9998;

impl Calendar {
    fn of_date(cadence: Cadence, date: Date) -> Option<Self> {
        Some(match cadence {
            Cadence::Weekly => {
                let iso = date.iso_week_date();
                Calendar::Week { year: iso.year(), week: iso.week() }
            }
            Cadence::Daily => Calendar::Day(date),
            Cadence::Monthly => Calendar::Month { year: date.year(), month: date.month() },
            Cadence::Season => return None,
        })
    }

    fn year(self) -> i16 {
        match self {
            Calendar::Week { year, .. } | Calendar::Month { year, .. } => year,
            Calendar::Day(date) => date.year(),
        }
    }

    fn parse(s: &str) -> Result<Self, PeriodError> {
        let malformed = || PeriodError::Malformed(s.to_owned());
        let no_such = || PeriodError::NoSuchPeriod(s.to_owned());
        let digits = |part: &str, len: usize| -> Result<i16, PeriodError> {
            if part.len() == len && part.bytes().all(|b| b.is_ascii_digit()) {
                part.parse().map_err(|_| malformed())
            } else {
                Err(malformed())
            }
        };
        let parts: Vec<&str> = s.split('-').collect();
        let year = digits(parts[0], 4)?;
        if !(MIN_YEAR..=MAX_YEAR).contains(&year) {
            return Err(PeriodError::OutOfRange(s.to_owned()));
        }
        Ok(match parts.as_slice() {
            [_, week] if week.starts_with('W') => {
                let week = digits(&week[1..], 2)? as i8;
                ISOWeekDate::new(year, week, Weekday::Monday).map_err(|_| no_such())?;
                Calendar::Week { year, week }
            }
            [_, month] => {
                let month = digits(month, 2)? as i8;
                Date::new(year, month, 1).map_err(|_| no_such())?;
                Calendar::Month { year, month }
            }
            [_, month, day] => {
                let (month, day) = (digits(month, 2)? as i8, digits(day, 2)? as i8);
                Calendar::Day(Date::new(year, month, day).map_err(|_| no_such())?)
            }
            _ => return Err(malformed()),
        })
    }

    fn cadence(self) -> Cadence {
        match self {
            Calendar::Week { .. } => Cadence::Weekly,
            Calendar::Day(_) => Cadence::Daily,
            Calendar::Month { .. } => Cadence::Monthly,
        }
    }

    /// The first calendar day of the slot.
    fn first_day(self) -> Date {
        match self {
            Calendar::Week { year, week } => ISOWeekDate::new(year, week, Weekday::Monday)
                .expect("a PeriodKey is always a real ISO week")
                .date(),
            Calendar::Day(date) => date,
            Calendar::Month { year, month } => {
                Date::new(year, month, 1).expect("a PeriodKey is always a real month")
            }
        }
    }

    /// The first day of the following slot.
    fn next_first_day(self) -> Date {
        let step = match self {
            Calendar::Week { .. } => 1.week(),
            Calendar::Day(_) => 1.day(),
            Calendar::Month { .. } => 1.month(),
        };
        self.first_day().checked_add(step).expect("supported years leave room for the next period")
    }
}

impl fmt::Display for Calendar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Calendar::Week { year, week } => write!(f, "{year:04}-W{week:02}"),
            Calendar::Day(d) => write!(f, "{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
            Calendar::Month { year, month } => write!(f, "{year:04}-{month:02}"),
        }
    }
}

impl PeriodKey {
    /// The period of `cadence` that contains `at`, in the board's time zone. Refused when that
    /// period is outside the supported years: an instant from a client (a write's `occurred_at`)
    /// can be any date, and a key that could not be parsed back must never reach the ledger. A
    /// season's one period is named by its definition, not by an instant (`Board::period_of`).
    pub fn containing(cadence: Cadence, at: Timestamp, zone: &TimeZone) -> Result<Self, PeriodError> {
        let slot =
            Calendar::of_date(cadence, at.to_zoned(zone.clone()).date()).ok_or(PeriodError::NotCalendar)?;
        if (MIN_YEAR..=MAX_YEAR).contains(&slot.year()) {
            Ok(PeriodKey(Slot::One(slot)))
        } else {
            Err(PeriodError::OutOfRange(slot.to_string()))
        }
    }

    /// A season's period: the run of its source's periods from `first` to `last` (both of one
    /// calendar cadence, `first` not after `last`).
    pub fn season(first: PeriodKey, last: PeriodKey) -> Result<Self, PeriodError> {
        match (first.0, last.0) {
            (Slot::One(a), Slot::One(b)) if a.cadence() == b.cadence() && a <= b => {
                Ok(PeriodKey(Slot::Season(a, b)))
            }
            _ => Err(PeriodError::Malformed(format!("{first}..{last}"))),
        }
    }

    /// Parses a key of any cadence; use [`PeriodKey::parse_for`] where the board is known.
    pub fn parse(s: &str) -> Result<Self, PeriodError> {
        match s.split_once("..") {
            None => Ok(PeriodKey(Slot::One(Calendar::parse(s)?))),
            Some((first, last)) => {
                let (first, last) = (Calendar::parse(first)?, Calendar::parse(last)?);
                Self::season(PeriodKey(Slot::One(first)), PeriodKey(Slot::One(last)))
                    .map_err(|_| PeriodError::Malformed(s.to_owned()))
            }
        }
    }

    /// Parses a key and checks that it belongs to a board of `cadence`.
    pub fn parse_for(cadence: Cadence, s: &str) -> Result<Self, PeriodError> {
        let key = Self::parse(s)?;
        if key.cadence() != cadence {
            return Err(PeriodError::WrongCadence { key: s.to_owned(), cadence });
        }
        Ok(key)
    }

    pub fn cadence(self) -> Cadence {
        match self.0 {
            Slot::One(slot) => slot.cadence(),
            Slot::Season(..) => Cadence::Season,
        }
    }

    /// A season's first and last source periods (None for a calendar period).
    pub fn season_bounds(self) -> Option<(PeriodKey, PeriodKey)> {
        match self.0 {
            Slot::One(_) => None,
            Slot::Season(a, b) => Some((PeriodKey(Slot::One(a)), PeriodKey(Slot::One(b)))),
        }
    }

    /// The first calendar day of the period.
    pub fn first_day(self) -> Date {
        match self.0 {
            Slot::One(slot) | Slot::Season(slot, _) => slot.first_day(),
        }
    }

    fn next_first_day(self) -> Date {
        match self.0 {
            Slot::One(slot) | Slot::Season(_, slot) => slot.next_first_day(),
        }
    }

    /// The period that follows this one (a season's one period is its own neighbour).
    pub fn next(self) -> Self {
        match self.0 {
            Slot::One(slot) => Self::of_date(slot.cadence(), self.next_first_day()),
            Slot::Season(..) => self,
        }
    }

    /// The period that precedes this one (a season's one period is its own neighbour).
    pub fn previous(self) -> Self {
        match self.0 {
            Slot::One(slot) => {
                let day_before = self.first_day().yesterday().expect("supported years leave room");
                Self::of_date(slot.cadence(), day_before)
            }
            Slot::Season(..) => self,
        }
    }

    fn of_date(cadence: Cadence, date: Date) -> Self {
        PeriodKey(Slot::One(Calendar::of_date(cadence, date).expect("a calendar cadence")))
    }

    /// Start and end instants: local midnight of the first day and of the next period's first
    /// day, in `zone` (a season: from its first source period's start to its last one's end).
    pub fn span(self, zone: &TimeZone) -> PeriodSpan {
        let midnight = |d: Date| {
            d.to_zoned(zone.clone()).expect("midnight of a supported date is representable").timestamp()
        };
        PeriodSpan { start: midnight(self.first_day()), end: midnight(self.next_first_day()) }
    }
}

impl fmt::Display for PeriodKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Slot::One(slot) => slot.fmt(f),
            Slot::Season(first, last) => write!(f, "{first}..{last}"),
        }
    }
}

impl TryFrom<String> for PeriodKey {
    type Error = PeriodError;
    fn try_from(s: String) -> Result<Self, PeriodError> {
        Self::parse(&s)
    }
}

impl From<PeriodKey> for String {
    fn from(k: PeriodKey) -> String {
        k.to_string()
    }
}

impl std::str::FromStr for PeriodKey {
    type Err = PeriodError;
    fn from_str(s: &str) -> Result<Self, PeriodError> {
        Self::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(name: &str) -> TimeZone {
        TimeZone::get(name).unwrap()
    }

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn weekly(s: &str, z: &str) -> String {
        PeriodKey::containing(Cadence::Weekly, at(s), &zone(z)).unwrap().to_string()
    }

    #[test]
    fn year_2026_has_a_week_53() {
        assert!(PeriodKey::parse("2026-W53").is_ok());
        assert_eq!(PeriodKey::parse("2025-W53").unwrap_err(), PeriodError::NoSuchPeriod("2025-W53".into()));
        assert_eq!(weekly("2026-12-31T12:00:00Z", "UTC"), "2026-W53");
        assert_eq!(weekly("2027-01-03T12:00:00Z", "UTC"), "2026-W53");
        assert_eq!(weekly("2027-01-04T12:00:00Z", "UTC"), "2027-W01");
    }

    #[test]
    fn the_year_turn_depends_on_the_boards_zone() {
        // 2027-01-03 (a Sunday, still 2026-W53) 20:00 in New York is Monday 2027-01-04 09:00
        // in Shanghai: the same instant is in different weeks on boards of different zones.
        let instant = "2027-01-04T01:00:00Z";
        assert_eq!(weekly(instant, "America/New_York"), "2026-W53");
        assert_eq!(weekly(instant, "Asia/Shanghai"), "2027-W01");
        let daily =
            |z: &str| PeriodKey::containing(Cadence::Daily, at("2027-01-01T02:00:00Z"), &zone(z)).unwrap();
        assert_eq!(daily("Asia/Shanghai").to_string(), "2027-01-01");
        assert_eq!(daily("America/New_York").to_string(), "2026-12-31");
        let monthly =
            PeriodKey::containing(Cadence::Monthly, at("2026-12-31T17:00:00Z"), &zone("Asia/Shanghai"))
                .unwrap();
        assert_eq!(monthly.to_string(), "2027-01");
    }

    #[test]
    fn a_week_with_a_dst_change_is_an_hour_shorter() {
        // US DST began on Sunday 2026-03-08: that ISO week (W10) lasts 167 hours in New York.
        let span = PeriodKey::parse("2026-W10").unwrap().span(&zone("America/New_York"));
        assert_eq!(span.start, at("2026-03-02T05:00:00Z"));
        assert_eq!(span.end, at("2026-03-09T04:00:00Z"));
        assert_eq!(span.end.as_second() - span.start.as_second(), 167 * 3600);
    }

    #[test]
    fn spans_start_and_end_at_local_midnight() {
        let sh = zone("Asia/Shanghai");
        let w = PeriodKey::parse("2026-W34").unwrap().span(&sh);
        assert_eq!(w.start, at("2026-08-16T16:00:00Z"));
        assert_eq!(w.end, at("2026-08-23T16:00:00Z"));
        let m = PeriodKey::parse("2026-02").unwrap().span(&sh);
        assert_eq!(m.start, at("2026-01-31T16:00:00Z"));
        assert_eq!(m.end, at("2026-02-28T16:00:00Z"));
        let d = PeriodKey::parse("2026-08-20").unwrap().span(&zone("UTC"));
        assert_eq!((d.start, d.end), (at("2026-08-20T00:00:00Z"), at("2026-08-21T00:00:00Z")));
    }

    #[test]
    fn next_and_previous_cross_year_turns() {
        let w53 = PeriodKey::parse("2026-W53").unwrap();
        assert_eq!(w53.next().to_string(), "2027-W01");
        assert_eq!(w53.next().previous(), w53);
        assert_eq!(PeriodKey::parse("2026-12").unwrap().next().to_string(), "2027-01");
        assert_eq!(PeriodKey::parse("2027-01-01").unwrap().previous().to_string(), "2026-12-31");
    }

    #[test]
    fn malformed_and_foreign_keys_are_refused() {
        for bad in [
            "",
            "2026",
            "2026-W5",
            "2026-W00",
            "26-W01",
            "2026-13",
            "2026-02-30",
            "2026-08-20-1",
            "１２３４-01",
        ] {
            assert!(PeriodKey::parse(bad).is_err(), "{bad} accepted");
        }
        assert!(matches!(PeriodKey::parse("1969-01"), Err(PeriodError::OutOfRange(_))));
        assert!(matches!(
            PeriodKey::parse_for(Cadence::Daily, "2026-W34"),
            Err(PeriodError::WrongCadence { .. })
        ));
    }

    #[test]
    fn instants_outside_the_supported_years_have_no_period() {
        // Dates a fuzzer sent as `occurred_at`: each would have made a key that cannot be parsed
        // back, and a ledger row no job could read.
        for instant in
            ["0001-01-01T00:00:00Z", "0254-10-01T00:00:00Z", "1887-03-01T00:00:00Z", "1969-12-28T12:00:00Z"]
        {
            for cadence in [Cadence::Weekly, Cadence::Daily, Cadence::Monthly] {
                let refused = PeriodKey::containing(cadence, at(instant), &zone("UTC"));
                assert!(
                    matches!(refused, Err(PeriodError::OutOfRange(_))),
                    "{instant} {cadence}: {refused:?}"
                );
            }
        }
        // The first instant of 1970 is in 1969 west of UTC; 1969-12-31 is in ISO week 1970-W01.
        let epoch = at("1970-01-01T00:00:00Z");
        assert!(PeriodKey::containing(Cadence::Daily, epoch, &zone("America/New_York")).is_err());
        assert_eq!(
            PeriodKey::containing(Cadence::Weekly, epoch, &zone("UTC")).unwrap().to_string(),
            "1970-W01"
        );
        let new_years_eve = at("1969-12-31T12:00:00Z");
        assert_eq!(
            PeriodKey::containing(Cadence::Weekly, new_years_eve, &zone("UTC")).unwrap().to_string(),
            "1970-W01"
        );
        let last = at("9998-12-31T12:00:00Z");
        assert_eq!(
            PeriodKey::containing(Cadence::Monthly, last, &zone("UTC")).unwrap().to_string(),
            "9998-12"
        );
        assert!(PeriodKey::containing(Cadence::Daily, at("9999-01-01T12:00:00Z"), &zone("UTC")).is_err());
        assert!(PeriodKey::parse("0001-W01").is_err() && PeriodKey::parse("9999-W53").is_err());
    }

    #[test]
    fn keys_round_trip_through_text() {
        for s in ["2026-W01", "2026-W53", "2026-08-20", "2026-08"] {
            assert_eq!(PeriodKey::parse(s).unwrap().to_string(), s);
        }
    }
}
