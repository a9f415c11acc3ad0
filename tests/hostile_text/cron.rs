//! Cron schedules: a trigger's cron and time zone, read and brought due.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use playbook_runtime::core::workflow::trigger::{next_due, parse_cron, parse_every, Trigger};
use playbook_runtime::core::zone::Zone;

use crate::{bounded, cases};

// ---- Cron schedules ----

/// One field: numbers of `span` mostly, names and cron's special letters sometimes, as lists of
/// ranges with steps.
fn cron_field(span: std::ops::Range<u32>) -> impl Strategy<Value = String> {
    let (low, high) = (span.start, span.end);
    let range = (low..high, low..high, prop::option::weighted(0.3, 1..high - low)).prop_map(|(a, b, step)| {
        let (a, b) = (a.min(b), a.max(b));
        let step = step.map(|n| format!("/{n}")).unwrap_or_default();
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}{step}")
        }
    });
    let atom = prop_oneof![
        8 => range,
        2 => prop::option::weighted(0.3, 1..high - low).prop_map(|s| s.map_or("*".into(), |n| format!("*/{n}"))),
        1 => select(vec!["?", "L", "W", "5L", "15W", "LW", "MON", "fri", "JAN", "dec", "SUN#2", "MON-FRI", "7", "60", "-1", "99999999999", "3/5"])
            .prop_map(str::to_string),
    ];
    vec(atom, 1..4).prop_map(|list| list.join(","))
}

pub(crate) fn cron_text() -> impl Strategy<Value = String> {
    let five = (cron_field(0..60), cron_field(0..24), cron_field(1..32), cron_field(1..13), cron_field(0..8));
    prop_oneof![
        6 => five.prop_map(|(a, b, c, d, e)| format!("{a} {b} {c} {d} {e}")),
        2 => vec(cron_field(0..70), 0..8).prop_map(|f| f.join(" ")),
        1 => select(vec![
            "@daily", "@yearly", "@annually", "@monthly", "@weekly", "@hourly", "@reboot", "@nope", "0 0 30 2 *",
            "0 0 31 4 *", "0 0 29 2 1", "59 23 31 12 SUN#5",
        ]).prop_map(str::to_string),
        1 => "[0-9*/,\\- LW#?A-Z@]{0,40}",
    ]
}

pub(crate) fn zone_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(vec![
            "UTC", "Europe/Paris", "America/St_Johns", "Pacific/Chatham", "Australia/Lord_Howe", "Asia/Kathmandu",
            "Etc/GMT+12", "Etc/GMT-14", "America/Sao_Paulo", "europe/paris", "PST", "+01:00", "", "Nope/Nowhere",
        ]).prop_map(str::to_string),
        1 => "[A-Za-z_/+-]{0,30}",
    ]
}

proptest! {
    #![proptest_config(cases(128))]

    /// A trigger's cron and time zone as a workflow's check reads them, then its next time found
    /// from an instant anywhere between 1970 and the year 9999.
    #[test]
    fn schedules_read_and_come_due_within_bounds(cron in cron_text(), zone in zone_name(), after in 0i64..253_402_300_799) {
        let after = chrono::DateTime::from_timestamp(after, 0).unwrap_or_default();
        bounded(|| {
            let _ = parse_cron(&cron);
            let _ = parse_every(&cron);
            let _ = Zone::named(&zone);
            next_due(&Trigger::Schedule { cron: cron.clone(), time_zone: zone.clone() }, after)
        })?;
    }
}
