use chrono::{DateTime, Duration, NaiveDateTime, Offset, TimeZone, Utc};

use super::*;
use crate::core::workflow::trigger::parse_cron;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn wall(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M").unwrap()
}

fn zone(name: &str) -> Zone {
    Zone::named(name).unwrap_or_else(|| panic!("{name} is a zone"))
}

/// The offset in hours a zone has at an instant.
fn hours_at(zone: &Zone, at: &str) -> f64 {
    f64::from(zone.offset_from_utc_datetime(&t(at).naive_utc()).fix().local_minus_utc()) / 3_600.0
}

/// What a wall time names, as offsets in hours: none, one, or the earlier and the later.
fn named(zone: &Zone, local: &str) -> Vec<f64> {
    let hours = |o: ZoneOffset| f64::from(o.fix().local_minus_utc()) / 3_600.0;
    match zone.offset_from_local_datetime(&wall(local)) {
        LocalResult::None => vec![],
        LocalResult::Single(o) => vec![hours(o)],
        LocalResult::Ambiguous(a, b) => vec![hours(a), hours(b)],
    }
}

#[test]
fn offsets_follow_the_clock_changes() {
    let paris = zone("Europe/Paris");
    assert_eq!(hours_at(&paris, "2025-03-30T00:59:59Z"), 1.0);
    assert_eq!(hours_at(&paris, "2025-03-30T01:00:00Z"), 2.0);
    assert_eq!(hours_at(&paris, "2025-10-26T00:59:59Z"), 2.0);
    assert_eq!(hours_at(&paris, "2025-10-26T01:00:00Z"), 1.0);
    let new_york = zone("America/New_York");
    assert_eq!(hours_at(&new_york, "2025-03-09T06:59:59Z"), -5.0);
    assert_eq!(hours_at(&new_york, "2025-03-09T07:00:00Z"), -4.0);
    assert_eq!(hours_at(&new_york, "2025-11-02T05:59:59Z"), -4.0);
    assert_eq!(hours_at(&new_york, "2025-11-02T06:00:00Z"), -5.0);
    assert_eq!(hours_at(&zone("Asia/Kolkata"), "2025-06-01T00:00:00Z"), 5.5);
}

#[test]
fn a_wall_time_names_no_instant_in_a_gap_and_two_in_an_overlap() {
    let paris = zone("Europe/Paris");
    assert_eq!(named(&paris, "2025-03-30 02:30"), Vec::<f64>::new(), "the clock skips 02:00 to 03:00");
    assert_eq!(named(&paris, "2025-03-30 03:00"), [2.0]);
    assert_eq!(named(&paris, "2025-03-30 01:59"), [1.0]);
    assert_eq!(named(&paris, "2025-10-26 02:30"), [2.0, 1.0], "02:00 to 03:00 happens twice, summer time first");
    assert_eq!(named(&paris, "2025-10-26 03:00"), [1.0]);
    assert_eq!(named(&paris, "2025-06-01 12:00"), [2.0]);
    let new_york = zone("America/New_York");
    assert_eq!(named(&new_york, "2025-03-09 02:30"), Vec::<f64>::new());
    assert_eq!(named(&new_york, "2025-11-02 01:30"), [-4.0, -5.0]);
    assert_eq!(named(&new_york, "2025-01-15 09:00"), [-5.0]);
}

#[test]
fn only_zones_the_data_knows_are_taken_and_utc_needs_none() {
    assert!(Zone::named("Mars/Olympus").is_none());
    assert!(Zone::named("").is_none());
    assert!(Zone::named("+01:00").is_none(), "an offset is not a zone");
    assert_eq!(zone("europe/paris").name(), "europe/paris", "a name is matched regardless of case, and kept as given");
    assert_eq!(hours_at(&zone("europe/paris"), "2025-06-01T00:00:00Z"), 2.0);
    assert_eq!(hours_at(&zone("UTC"), "2025-06-01T00:00:00Z"), 0.0);
    assert_eq!(named(&zone("UTC"), "2025-03-30 02:30"), [0.0]);
    // Without any zone data, UTC alone is known.
    let nothing: Offsets = |_, _| None;
    assert!(Zone::from_data("Europe/Paris", nothing).is_none());
    assert!(Zone::from_data("Mars/Olympus", |_, _| None).is_none());
}

/// Zones with unusual changes: half an hour (Lord Howe), backwards summer time (Dublin), two
/// hours (Troll), twice a year around Ramadan (Casablanca), no changes (Kolkata), south of the
/// equator (Santiago, Chatham).
const ZONES: &[&str] = &[
    "Europe/Paris",
    "America/New_York",
    "Australia/Lord_Howe",
    "Europe/Dublin",
    "Antarctica/Troll",
    "Africa/Casablanca",
    "Asia/Kolkata",
    "America/Santiago",
    "Pacific/Chatham",
    "America/St_Johns",
];

#[test]
fn every_wall_time_names_what_chrono_tz_says() {
    for name in ZONES {
        let ours = zone(name);
        let theirs: chrono_tz::Tz = name.parse().unwrap();
        let mut local = wall("2025-01-01 00:00");
        while local < wall("2027-01-01 00:00") {
            let expected = theirs.offset_from_local_datetime(&local).map(|o| o.fix());
            assert_eq!(ours.offset_from_local_datetime(&local).map(|o| o.fix()), expected, "{name} at {local}");
            local += Duration::minutes(15);
        }
    }
}

#[test]
fn schedules_fall_as_they_do_over_chrono_tz() {
    let patterns =
        ["30 2 * * *", "*/30 2 * * *", "0 9 * * MON-FRI", "* * * * *", "0 0 1 * *", "15 1,2,3 * * SUN", "0 */2 * * *"];
    for name in ZONES {
        let ours = zone(name);
        let theirs: chrono_tz::Tz = name.parse().unwrap();
        for pattern in patterns {
            let cron = parse_cron(pattern).unwrap();
            let mut after = t("2025-01-01T00:00:00Z");
            while after < t("2026-01-01T00:00:00Z") {
                let expected =
                    cron.find_next_occurrence(&after.with_timezone(&theirs), false).map(|d| d.with_timezone(&Utc));
                let got = cron.find_next_occurrence(&after.with_timezone(&ours), false).map(|d| d.with_timezone(&Utc));
                assert_eq!(got.ok(), expected.ok(), "{pattern} in {name} after {after}");
                after += Duration::minutes(241);
            }
        }
    }
}

#[test]
fn intl_offsets_are_read() {
    assert_eq!(gmt_offset("GMT"), Some(0));
    assert_eq!(gmt_offset("GMT+00:00"), Some(0));
    assert_eq!(gmt_offset("GMT+05:30"), Some(19_800));
    assert_eq!(gmt_offset("GMT-03:30"), Some(-12_600));
    assert_eq!(gmt_offset("GMT\u{2212}08:00"), Some(-28_800));
    assert_eq!(gmt_offset("GMT+00:09:21"), Some(561));
    for bad in ["", "UTC", "GMT+5", "GMT+05", "GMT05:00", "GMT+05:30:00:00", "GMT+0a:00", "CET"] {
        assert_eq!(gmt_offset(bad), None, "{bad}");
    }
}

#[test]
fn a_skipped_hour_asks_the_platform_by_the_minute() {
    use std::cell::Cell;
    thread_local!(static ASKED: Cell<u32> = const { Cell::new(0) });
    fn counted(name: &str, utc: i64) -> Option<i32> {
        ASKED.with(|n| n.set(n.get() + 1));
        iana(name, utc)
    }
    let paris = Zone::from_data("Europe/Paris", counted).unwrap();
    let asked = |pattern: &str, after: &str| {
        ASKED.with(|n| n.set(0));
        parse_cron(pattern).unwrap().find_next_occurrence(&t(after).with_timezone(&paris), false).unwrap();
        ASKED.with(Cell::get)
    };
    assert!(asked("0 9 * * MON-FRI", "2025-06-06T08:00:00Z") < 10);
    // croner walks the skipped hour a second at a time: asked by the second, over 7,000 questions.
    assert!(asked("30 2 * * *", "2025-03-29T12:00:00Z") < 200);
}
