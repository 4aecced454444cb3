//! Points as a board shows them: the one formatter behind every place the UI prints a member's
//! points, so a time reads the same in the ranking, the member page, the console and the charts'
//! text. Display only — stored points, ranks and the API's numbers never change with the unit.
//!
//! - `points`: plain numbers in groups of three digits, as the reader's locale writes them
//!   (`12 345` in English, `12,345` in Chinese; `−40`).
//! - `ms`: a duration, `m:ss.mmm` (`1:02.345`), with hours once there are any (`1:00:00.000`)
//!   and seconds alone under a minute (`0.250`, `59.999`).

use crate::kinds::Unit;
use crate::locale::Locale;

/// `value` in the board's `unit` (see the module docs). Where a sentence needs the word
/// ("1 234 points"), the UI's catalogue adds it.
pub fn points(value: i64, unit: Unit, locale: Locale) -> String {
    match unit {
        Unit::Points => grouped(value, locale),
        Unit::Ms => duration(value),
    }
}

/// A number in groups of three digits (`Locale::group_separator`), a real minus sign for
/// negatives.
pub fn grouped(n: i64, locale: Locale) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('−');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(locale.group_separator());
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
        let ms = |v| points(v, Unit::Ms, Locale::En);
        assert_eq!(ms(62_345), "1:02.345");
        assert_eq!(ms(250), "0.250");
        assert_eq!(ms(59_999), "59.999");
        assert_eq!(ms(3_600_000), "1:00:00.000");
        assert_eq!(ms(-1_500), "−1.500");
        assert_eq!(ms(0), "0.000");
        assert!(ms(i64::MIN).starts_with('−'));
        assert_eq!(points(62_345, Unit::Ms, Locale::ZhCn), "1:02.345");
    }

    #[test]
    fn points_read_as_grouped_numbers() {
        assert_eq!(points(12_345, Unit::Points, Locale::En), "12\u{202f}345");
        assert_eq!(points(-40, Unit::Points, Locale::En), "−40");
        assert_eq!(points(999, Unit::Points, Locale::En), "999");
        assert_eq!(grouped(1_234_567, Locale::ZhCn), "1,234,567");
        assert_eq!(grouped(-1_000, Locale::ZhCn), "−1,000");
    }
}
