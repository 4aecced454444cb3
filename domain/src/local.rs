//! Instants as a board's readers read them: in the board's time zone. The one place a page turns
//! an instant into words — on the server and in the console's browser bundle alike, which carries
//! the zone database for it (`app`'s feature `console`): without one, `jiff` finds no zone and a
//! page rendered after a client-side navigation would show UTC under the zone's name. A zone the
//! build cannot resolve is said as UTC, and says so ([`in_named_zone`]). The contestants' bundle
//! has no zone database and renders no time: the freeze banner's words are made on the server.

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// "Mon 2026-12-07 01:00": period ends, freezes, countdown targets.
pub const MINUTE: &str = "%a %Y-%m-%d %H:%M";
/// "2026-12-07 01:00:05": entries, late writes, audit rows.
pub const SECOND: &str = "%Y-%m-%d %H:%M:%S";
/// "12-07 01:00": chart axes and tips.
pub const SHORT: &str = "%m-%d %H:%M";

/// `at` in `zone`, formatted with `format` (one of the constants above).
pub fn in_zone(at: Timestamp, zone: &TimeZone, format: &str) -> String {
    at.to_zoned(zone.clone()).strftime(format).to_string()
}

/// `at` in the zone named `zone` (a board's `time_zone`). A zone this build cannot resolve is
/// never passed off as it: the time is then said in UTC, and says so.
pub fn in_named_zone(at: Timestamp, zone: &str, format: &str) -> String {
    match TimeZone::get(zone) {
        Ok(tz) => in_zone(at, &tz, format),
        Err(_) => format!("{} UTC", in_zone(at, &TimeZone::UTC, format)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_is_said_in_the_boards_zone_and_an_unknown_zone_says_utc() {
        let at: Timestamp = "2026-12-06T17:00:00Z".parse().unwrap();
        assert_eq!(in_named_zone(at, "Asia/Shanghai", MINUTE), "Mon 2026-12-07 01:00");
        assert_eq!(in_named_zone(at, "UTC", MINUTE), "Sun 2026-12-06 17:00");
        assert_eq!(in_named_zone(at, "Nowhere/Atlantis", MINUTE), "Sun 2026-12-06 17:00 UTC");
        assert_eq!(in_named_zone(at, "Europe/Paris", SECOND), "2026-12-06 18:00:00");
    }
}
