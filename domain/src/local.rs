//! Instants as a board's readers read them: in the board's time zone, in the reader's language.
//! The one place a page turns an instant into words — on the server and in the console's browser
//! bundle alike, which carries the zone database for it (`app`'s feature `console`): without one,
//! `jiff` finds no zone and a page rendered after a client-side navigation would show UTC under
//! the zone's name. A zone the build cannot resolve is said as UTC, and says so
//! ([`in_named_zone`]). The contestants' bundle has no zone database and renders no time: the
//! freeze banner's words are made on the server.

use crate::locale::Locale;
use jiff::Timestamp;
use jiff::civil::Weekday;
use jiff::tz::TimeZone;

/// How much of an instant a place shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// "Mon 2026-12-07 01:00" / "2026年12月7日 周一 01:00": period ends, freezes, countdowns.
    Minute,
    /// "2026-12-07 01:00:05" in both: entries, late writes, audit rows (a column of them lines
    /// up, and the seconds matter there).
    Second,
    /// "12-07 01:00" / "12月7日 01:00": chart axes and tips.
    Short,
    /// "2026-12-07" / "2026年12月7日": a settlement's or a revision's day.
    Day,
}

impl Clock {
    fn pattern(self, locale: Locale) -> &'static str {
        match (locale, self) {
            (Locale::En, Clock::Minute) => "%a %Y-%m-%d %H:%M",
            (Locale::En, Clock::Short) => "%m-%d %H:%M",
            (Locale::En, Clock::Day) => "%Y-%m-%d",
            (Locale::ZhCn, Clock::Minute) => "%Y年%-m月%-d日 {weekday} %H:%M",
            (Locale::ZhCn, Clock::Short) => "%-m月%-d日 %H:%M",
            (Locale::ZhCn, Clock::Day) => "%Y年%-m月%-d日",
            (_, Clock::Second) => "%Y-%m-%d %H:%M:%S",
        }
    }
}

/// The weekday as Chinese writes it: `jiff`'s `%a` is English only.
fn zhou(day: Weekday) -> &'static str {
    match day {
        Weekday::Monday => "周一",
        Weekday::Tuesday => "周二",
        Weekday::Wednesday => "周三",
        Weekday::Thursday => "周四",
        Weekday::Friday => "周五",
        Weekday::Saturday => "周六",
        Weekday::Sunday => "周日",
    }
}

/// `at` in `zone`, as much of it as `clock` shows, as `locale` writes it.
pub fn in_zone(at: Timestamp, zone: &TimeZone, clock: Clock, locale: Locale) -> String {
    let zoned = at.to_zoned(zone.clone());
    let text = zoned.strftime(clock.pattern(locale)).to_string();
    text.replace("{weekday}", zhou(zoned.weekday()))
}

/// `at` in the zone named `zone` (a board's `time_zone`). A zone this build cannot resolve is
/// never passed off as it: the time is then said in UTC, and says so.
pub fn in_named_zone(at: Timestamp, zone: &str, clock: Clock, locale: Locale) -> String {
    match TimeZone::get(zone) {
        Ok(tz) => in_zone(at, &tz, clock, locale),
        Err(_) => format!("{} UTC", in_zone(at, &TimeZone::UTC, clock, locale)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_is_said_in_the_boards_zone_and_an_unknown_zone_says_utc() {
        let at: Timestamp = "2026-12-06T17:00:00Z".parse().unwrap();
        let en = |zone, clock| in_named_zone(at, zone, clock, Locale::En);
        assert_eq!(en("Asia/Shanghai", Clock::Minute), "Mon 2026-12-07 01:00");
        assert_eq!(en("UTC", Clock::Minute), "Sun 2026-12-06 17:00");
        assert_eq!(en("Nowhere/Atlantis", Clock::Minute), "Sun 2026-12-06 17:00 UTC");
        assert_eq!(en("Europe/Paris", Clock::Second), "2026-12-06 18:00:00");
        assert_eq!(en("Asia/Shanghai", Clock::Short), "12-07 01:00");
        assert_eq!(en("Asia/Shanghai", Clock::Day), "2026-12-07");
    }

    #[test]
    fn chinese_readers_read_chinese_dates_and_weekdays() {
        let at: Timestamp = "2026-12-06T17:00:00Z".parse().unwrap();
        let zh = |clock| in_named_zone(at, "Asia/Shanghai", clock, Locale::ZhCn);
        assert_eq!(zh(Clock::Minute), "2026年12月7日 周一 01:00");
        assert_eq!(zh(Clock::Second), "2026-12-07 01:00:00");
        assert_eq!(zh(Clock::Short), "12月7日 01:00");
        assert_eq!(zh(Clock::Day), "2026年12月7日");
        assert_eq!(in_named_zone(at, "UTC", Clock::Minute, Locale::ZhCn), "2026年12月6日 周日 17:00");
    }
}
