//! Points as a board shows them: the one formatter behind every place the UI prints a member's
//! points, so a time reads the same in the ranking, the member page, the console and the charts'
//! text. Display only — stored points, ranks and the API's numbers never change with the unit.
//!
//! - `points`: plain numbers with thin groups of three digits (`12 345`, `−40`).
//! - `ms`: a duration, `m:ss.mmm` (`1:02.345`), with hours once there are any (`1:00:00.000`)
//!   and seconds alone under a minute (`0.250`, `59.999`).

use crate::kinds::Unit;

/// `value` in the board's `unit` (see the module docs).
pub fn points(value: i64, unit: Unit) -> String {
    match unit {
        Unit::Points => grouped(value),
        Unit::Ms => duration(value),
    }
}

/// `value` with its word where a sentence needs one: "1 234 points", or a time alone
/// ("1:02.345").
pub fn labelled(value: i64, unit: Unit) -> String {
    match unit {
        Unit::Points => format!("{} points", grouped(value)),
        Unit::Ms => duration(value),
    }
}

/// A number with thin groups of three digits ("12 345"), a real minus sign for negatives.
pub fn grouped(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('−');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// Milliseconds as `h:mm:ss.mmm`, `m:ss.mmm` or `s.mmm`.
fn duration(ms: i64) -> String {
    let sign = if ms < 0 { "−" } else { "" };
    let ms = ms.unsigned_abs();
    let (millis, seconds) = (ms % 1000, ms / 1000);
    let (secs, minutes) = (seconds % 60, seconds / 60);
    let (mins, hours) = (minutes % 60, minutes / 60);
    if hours > 0 {
        format!("{sign}{hours}:{mins:02}:{secs:02}.{millis:03}")
    } else if minutes > 0 {
        format!("{sign}{mins}:{secs:02}.{millis:03}")
    } else {
        format!("{sign}{secs}.{millis:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_read_as_durations() {
        assert_eq!(points(62_345, Unit::Ms), "1:02.345");
        assert_eq!(points(250, Unit::Ms), "0.250");
        assert_eq!(points(59_999, Unit::Ms), "59.999");
        assert_eq!(points(3_600_000, Unit::Ms), "1:00:00.000");
        assert_eq!(points(-1_500, Unit::Ms), "−1.500");
        assert_eq!(points(0, Unit::Ms), "0.000");
        assert!(points(i64::MIN, Unit::Ms).starts_with('−'));
    }

    #[test]
    fn points_read_as_grouped_numbers() {
        assert_eq!(points(12_345, Unit::Points), "12\u{202f}345");
        assert_eq!(points(-40, Unit::Points), "−40");
        assert_eq!(points(999, Unit::Points), "999");
        assert_eq!(labelled(1_234, Unit::Points), "1\u{202f}234 points");
        assert_eq!(labelled(1_234, Unit::Ms), "1.234");
    }
}
