//! The words of summaries: quoting names, counting, joining, and the length rules results follow.

/// The most characters a summary takes (spec: Successful results).
pub const SUMMARY_MAX: usize = 400;
/// The most characters of words an agent relays whole, such as a welcome.
pub const RELAY_MAX: usize = 1000;

/// A name in typographic quotes, as every summary writes one.
pub fn quote(name: &str) -> String {
    format!("\u{201c}{name}\u{201d}")
}

/// `1 playbook`, `2 playbooks`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The text with its first letter in capitals, for a sentence that starts with a name.
pub fn capitalized(text: String) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

/// One key as a JSON pointer writes it: `~` as `~0`, `/` as `~1`.
pub fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The start of `text`, at most `max` bytes, ending on a character's edge: bounds of what is kept
/// or sent are in bytes, and a character may take up to four.
pub fn start_within(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Cuts `text` to at most `max` characters, ending with an ellipsis when it cut.
pub fn cap(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('\u{2026}');
    out
}

/// Appends `extra` (with a space) only where the whole still fits in a summary.
pub fn append_if_room(mut summary: String, extra: &str) -> String {
    if summary.chars().count() + 1 + extra.chars().count() <= SUMMARY_MAX {
        summary.push(' ');
        summary.push_str(extra);
    }
    summary
}

/// A time as runs and events write it: RFC 3339 in UTC with milliseconds, as
/// `to_rfc3339_opts(Millis, true)` writes it. Every request stamps its time, and chrono writes
/// through `fmt`, which was 2.4% of a `tools/list` (docs/performance.md): a year of four digits is written
/// here digit by digit, any other by chrono.
pub fn stamp(at: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::{Datelike, Timelike};
    let year = at.year();
    if !(0..=9999).contains(&year) {
        return at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    }
    // A leap second, whose nanoseconds run past a second, is written as second 60, as chrono does.
    let (second, milli) = match at.nanosecond().checked_sub(1_000_000_000) {
        Some(past) => (at.second() + 1, past / 1_000_000),
        None => (at.second(), at.nanosecond() / 1_000_000),
    };
    let parts = [
        (year as u32, 4, '-'),
        (at.month(), 2, '-'),
        (at.day(), 2, 'T'),
        (at.hour(), 2, ':'),
        (at.minute(), 2, ':'),
        (second, 2, '.'),
        (milli, 3, 'Z'),
    ];
    let mut out = String::with_capacity(24);
    for (value, digits, after) in parts {
        for place in (0..digits).rev() {
            out.push(char::from(b'0' + (value / 10u32.pow(place) % 10) as u8));
        }
        out.push(after);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_what_chrono_writes() {
        use chrono::{DateTime, Utc};
        let millis = [
            0,
            1,
            999,
            1_764_000_000_123,
            1_796_000_000_000,
            951_782_400_000,     // 2000-02-29
            -62_135_596_800_000, // 0001-01-01
            -62_167_219_200_000, // 0000-01-01
            253_402_300_799_999, // 9999-12-31T23:59:59.999
            253_402_300_800_000, // 10000-01-01, written by chrono
            -62_167_219_200_001, // the last millisecond of year -1
        ];
        for ms in millis {
            let at = DateTime::<Utc>::from_timestamp_millis(ms).unwrap();
            assert_eq!(stamp(at), at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true), "{ms}");
        }
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .and_then(|d| d.and_hms_milli_opt(23, 59, 59, 1_500))
            .unwrap()
            .and_utc();
        assert_eq!(stamp(leap), leap.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    }

    #[test]
    fn joins_counts_and_caps() {
        assert_eq!(join_and(&["a".into(), "b".into(), "c".into()]), "a, b and c");
        assert_eq!(count(1, "playbook"), "1 playbook");
        assert_eq!(count(0, "playbook"), "0 playbooks");
        let long = "x".repeat(500);
        assert_eq!(cap(&long, SUMMARY_MAX).chars().count(), SUMMARY_MAX);
        assert_eq!(cap("short", SUMMARY_MAX), "short");
        assert_eq!(append_if_room("a".into(), "b"), "a b");
        assert_eq!(append_if_room("a".repeat(399), "bb"), "a".repeat(399));
    }
}
