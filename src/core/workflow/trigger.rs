//! Triggers: how a workflow starts on its own. A schedule (cron in a time zone), an interval,
//! set times, or a playbook event that matches a filter; and when each is next due.

use chrono::{DateTime, Duration, Utc};
use croner::parser::{CronParser, Seconds, Year};
use croner::Cron;
use serde_json::Value;

use super::filter::{path_problem, Filter, WHERE_MAX};
use super::plan::Fields;
pub use super::plan::{Declared, Trigger};
use crate::core::definition::check::escape;
use crate::core::definition::Findings;
use crate::core::zone::Zone;

/// The most triggers a workflow declares.
pub const TRIGGERS_MAX: usize = 10;
/// The shortest interval of `every`: one minute, as the finest cron schedule.
pub const EVERY_MIN_SECONDS: i64 = 60;
pub const EVERY_MAX_SECONDS: i64 = 366 * 86_400;
/// The most times one `at` trigger lists.
pub const AT_MAX: usize = 50;
const KEYS: &[&str] = &["cron", "time_zone", "every", "at", "event", "where", "input"];

/// The first time after `after` the trigger is due, or `None` for an event trigger, a schedule
/// that never comes again, or set times all past.
pub fn next_due(trigger: &Trigger, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
    match trigger {
        Trigger::Schedule { cron, time_zone } => {
            let zone = Zone::named(time_zone)?;
            let cron = parse_cron(cron).ok()?;
            let next = cron.find_next_occurrence(&after.with_timezone(&zone), false).ok()?;
            Some(next.with_timezone(&Utc))
        }
        Trigger::Every { seconds } => after.checked_add_signed(Duration::try_seconds(*seconds)?),
        Trigger::At { times } => times.iter().filter(|t| **t > after).min().copied(),
        Trigger::Event { .. } => None,
    }
}

/// What made a trigger fire: the time it was due, or the playbook event it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fired<'e> {
    Time(DateTime<Utc>),
    Event { kind: &'e str, data: &'e Value },
}

impl Declared {
    /// Whether this trigger starts a run on the playbook event `kind` with `data`.
    pub fn takes(&self, kind: &str, data: &Value) -> bool {
        matches!(&self.trigger, Trigger::Event { filter } if filter.matches(kind, data))
    }

    /// The input of the run it starts: its `input` expressions, given `time` or `event`; without
    /// them, the event's data, or `{}` for a time.
    pub fn input(&self, fired: Fired<'_>) -> Result<Value, String> {
        let scope = match fired {
            Fired::Time(at) => serde_json::json!({ "time": super::words::time(at) }),
            Fired::Event { kind, data } => serde_json::json!({ "event": { "kind": kind, "data": data } }),
        };
        match (&self.input, fired) {
            (Some(fields), _) => super::eval::object(fields, &scope),
            (None, Fired::Event { data, .. }) => Ok(data.clone()),
            (None, Fired::Time(_)) => Ok(Value::Object(Default::default())),
        }
    }
}

/// Five fields (minute, hour, day of month, month, day of week), names such as MON and JAN,
/// and nicknames such as @daily; no seconds and no year.
pub fn parse_cron(pattern: &str) -> Result<Cron, String> {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
        .parse(pattern)
        .map_err(|e| e.to_string())
}

/// `30m`, `2h`, `1d`: a whole number and a unit, m, h or d.
pub fn parse_every(text: &str) -> Option<i64> {
    let text = text.trim();
    let unit = match text.chars().last()? {
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        _ => return None,
    };
    let n: i64 = text[..text.len() - 1].parse().ok()?;
    n.checked_mul(unit)
}

/// Reads and checks `triggers`; `required` is what the workflow's input schema requires, which a
/// time trigger without `input` cannot give.
pub fn check_triggers(f: &mut Findings<'_>, required: &[String]) -> Vec<Declared> {
    let Some(value) = f.get("/triggers") else { return Vec::new() };
    let Some(list) = value.as_array() else {
        f.error("/triggers", "must be a list of triggers, each with cron, every, at or event");
        return Vec::new();
    };
    if list.len() > TRIGGERS_MAX {
        f.error(
            "/triggers",
            format!("declares {} triggers; a workflow may declare at most {TRIGGERS_MAX}", list.len()),
        );
    }
    (0..list.len()).filter_map(|i| check_one(f, &format!("/triggers/{i}"), required)).collect()
}

fn check_one(f: &mut Findings<'_>, at: &str, required: &[String]) -> Option<Declared> {
    f.mapping(at, true)?;
    f.only_keys(at, KEYS, "a trigger");
    let given: Vec<&str> =
        ["cron", "every", "at", "event"].into_iter().filter(|k| f.get(&format!("{at}/{k}")).is_some()).collect();
    let trigger = match given.as_slice() {
        ["cron"] => schedule(f, at),
        ["every"] => every(f, at),
        ["at"] => set_times(f, at),
        ["event"] => event(f, at),
        [] => {
            f.error(at, "must say when it starts a run: cron, every, at or event");
            None
        }
        _ => {
            f.error(at, format!("gives {}: a trigger is of one kind, so give one of them", given.join(" and ")));
            None
        }
    };
    if !matches!(trigger, Some(Trigger::Schedule { .. })) && f.get(&format!("{at}/time_zone")).is_some() {
        f.error(format!("{at}/time_zone"), "belongs to a cron schedule; a trigger without cron takes none");
    }
    if !matches!(trigger, Some(Trigger::Event { .. })) && f.get(&format!("{at}/where")).is_some() {
        f.error(format!("{at}/where"), "belongs to an event trigger; a trigger without event takes none");
    }
    let event = matches!(trigger, Some(Trigger::Event { .. }));
    let input = input(f, at, event);
    if input.is_none() && !event && !required.is_empty() {
        f.error(
            format!("{at}/input"),
            format!(
                "is required: the workflow's input schema requires {}, which a time trigger gives only through input",
                required.join(", ")
            ),
        );
    }
    trigger.map(|trigger| Declared { trigger, input })
}

fn schedule(f: &mut Findings<'_>, at: &str) -> Option<Trigger> {
    let cron = f.string(&format!("{at}/cron"), true, 120)?;
    if let Err(e) = parse_cron(cron) {
        f.error(
            format!("{at}/cron"),
            format!("is not a cron pattern of five fields (minute hour day month weekday), as 0 9 * * MON-FRI: {e}"),
        );
        return None;
    }
    let zone = f.string(&format!("{at}/time_zone"), false, 64).unwrap_or("UTC");
    if Zone::named(zone).is_none() {
        f.error(format!("{at}/time_zone"), "must name an IANA time zone, as Europe/Paris or UTC");
        return None;
    }
    Some(Trigger::Schedule { cron: cron.to_string(), time_zone: zone.to_string() })
}

fn every(f: &mut Findings<'_>, at: &str) -> Option<Trigger> {
    let pointer = format!("{at}/every");
    let seconds = f.get(&pointer).and_then(Value::as_str).and_then(parse_every);
    match seconds {
        Some(s) if (EVERY_MIN_SECONDS..=EVERY_MAX_SECONDS).contains(&s) => Some(Trigger::Every { seconds: s }),
        Some(_) => {
            f.error(pointer, "must be from 1 minute to 366 days: a trigger starts a run at most once a minute");
            None
        }
        None => {
            f.error(pointer, "must be a whole number and a unit, m, h or d, as 30m, 2h or 1d");
            None
        }
    }
}

fn set_times(f: &mut Findings<'_>, at: &str) -> Option<Trigger> {
    let pointer = format!("{at}/at");
    let Some(list) = f.get(&pointer).and_then(Value::as_array) else {
        f.error(pointer, "must be a list of times, each as 2025-06-02T09:00:00+02:00");
        return None;
    };
    if list.is_empty() || list.len() > AT_MAX {
        f.error(&pointer, format!("must list 1 to {AT_MAX} times"));
        return None;
    }
    let mut times = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item.as_str().and_then(|s| DateTime::parse_from_rfc3339(s).ok()) {
            Some(t) => times.push(t.with_timezone(&Utc)),
            None => f.error(
                format!("{pointer}/{i}"),
                "must be a time with its offset, as 2025-06-02T09:00:00+02:00 or 2025-06-02T07:00:00Z",
            ),
        }
    }
    (times.len() == list.len()).then_some(Trigger::At { times })
}

fn event(f: &mut Findings<'_>, at: &str) -> Option<Trigger> {
    let pointer = format!("{at}/event");
    let kind = f.string(&pointer, true, 64)?;
    if crate::core::event::check_kind(kind).is_err() {
        f.error(
            &pointer,
            "must name an event kind: lowercase letters, digits, _ . and -, starting with a letter, as brief_submitted",
        );
        return None;
    }
    let mut filter = Filter::kind(kind);
    if let Some(fields) = filter_where(f, &format!("{at}/where")) {
        filter.fields = fields;
    }
    Some(Trigger::Event { filter })
}

/// A filter's `where`: at most 10 dotted fields of the data, each with the value it must equal.
pub fn filter_where(f: &mut Findings<'_>, pointer: &str) -> Option<serde_json::Map<String, Value>> {
    let map = f.mapping(pointer, false)?;
    if map.len() > WHERE_MAX {
        f.error(pointer, format!("tests {} fields; a filter tests at most {WHERE_MAX}", map.len()));
    }
    for key in map.keys() {
        if let Some(problem) = path_problem(key) {
            f.error(format!("{pointer}/{}", escape(key)), problem);
        }
    }
    Some(map.clone())
}

fn input(f: &mut Findings<'_>, at: &str, event: bool) -> Option<Fields> {
    let pointer = format!("{at}/input");
    let map = f.mapping(&pointer, false)?;
    let allowed = vec![if event { "event" } else { "time" }.to_string()];
    let mut fields = Vec::new();
    for (key, value) in map {
        let p = format!("{pointer}/{}", escape(key));
        match value.as_str() {
            Some(expr) => {
                f.expression(&p, expr, &allowed);
                fields.push((key.clone(), expr.to_string()));
            }
            None => f.error(p, "must be an expression written as text, such as event.data.file"),
        }
    }
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn a_schedule_is_read_in_its_time_zone() {
        let weekdays = Trigger::Schedule { cron: "0 9 * * MON-FRI".into(), time_zone: "Europe/Paris".into() };
        // Friday 2025-06-06 10:00 in Paris (summer time, UTC+2): next is Monday 09:00 Paris.
        assert_eq!(next_due(&weekdays, t("2025-06-06T08:00:00Z")), Some(t("2025-06-09T07:00:00Z")));
        // In winter Paris is UTC+1: Monday 08:00 in Paris is before 09:00 there.
        assert_eq!(next_due(&weekdays, t("2025-01-06T07:00:00Z")), Some(t("2025-01-06T08:00:00Z")));
        let daily = Trigger::Schedule { cron: "@daily".into(), time_zone: "UTC".into() };
        assert_eq!(next_due(&daily, t("2025-06-06T08:00:00Z")), Some(t("2025-06-07T00:00:00Z")));
        assert!(parse_cron("0 0 9 * * *").is_err(), "no seconds field");
        assert!(parse_cron("61 * * * *").is_err());
    }

    #[test]
    fn a_schedule_in_a_zone_meets_its_clock_changes() {
        let at = |cron: &str| Trigger::Schedule { cron: cron.into(), time_zone: "Europe/Paris".into() };
        // 30 March 2025, 02:00 in Paris goes to 03:00: a single time of day in the gap is due
        // at the first instant after it, 03:00 summer time.
        assert_eq!(next_due(&at("30 2 * * *"), t("2025-03-29T12:00:00Z")), Some(t("2025-03-30T01:00:00Z")));
        // Times of many in the gap are not due that day.
        assert_eq!(next_due(&at("*/30 2 * * *"), t("2025-03-30T00:00:00Z")), Some(t("2025-03-31T00:00:00Z")));
        // 26 October 2025, 03:00 goes back to 02:00: a single time of day is due once, in
        // summer time...
        let once = at("30 2 * * *");
        assert_eq!(next_due(&once, t("2025-10-25T12:00:00Z")), Some(t("2025-10-26T00:30:00Z")));
        assert_eq!(next_due(&once, t("2025-10-26T00:30:00Z")), Some(t("2025-10-27T01:30:00Z")));
        // ...and times of many are due in both hours.
        let many = at("*/30 2 * * *");
        assert_eq!(next_due(&many, t("2025-10-26T00:30:00Z")), Some(t("2025-10-26T01:00:00Z")));
        assert_eq!(next_due(&many, t("2025-10-26T01:00:00Z")), Some(t("2025-10-26T01:30:00Z")));
        let unknown = Trigger::Schedule { cron: "@daily".into(), time_zone: "Mars/Olympus".into() };
        assert_eq!(next_due(&unknown, t("2025-06-06T08:00:00Z")), None);
    }

    #[test]
    fn a_fired_trigger_builds_its_input_and_takes_its_events() {
        let mut filter = Filter::kind("brief_submitted");
        filter.fields.insert("team".into(), serde_json::json!("marketing"));
        let by_event = Declared { trigger: Trigger::Event { filter }, input: None };
        let data = serde_json::json!({"team": "marketing", "file": "a.md"});
        assert!(by_event.takes("brief_submitted", &data));
        assert!(!by_event.takes("brief_submitted", &serde_json::json!({"team": "sales"})));
        assert_eq!(by_event.input(Fired::Event { kind: "brief_submitted", data: &data }), Ok(data.clone()));
        let fields = vec![("file".to_string(), "event.data.file".to_string())];
        let shaped = Declared { input: Some(fields), ..by_event };
        let input = shaped.input(Fired::Event { kind: "brief_submitted", data: &data });
        assert_eq!(input, Ok(serde_json::json!({"file": "a.md"})));
        let timed = Declared {
            trigger: Trigger::Every { seconds: 60 },
            input: Some(vec![("at".to_string(), "time".to_string())]),
        };
        let input = timed.input(Fired::Time(t("2025-06-02T07:00:00Z")));
        assert_eq!(input, Ok(serde_json::json!({"at": "2025-06-02T07:00:00Z"})));
    }

    #[test]
    fn intervals_set_times_and_events() {
        assert_eq!(parse_every("30m"), Some(1_800));
        assert_eq!(parse_every("2h"), Some(7_200));
        assert_eq!(parse_every("1d"), Some(86_400));
        assert_eq!(parse_every("10s"), None);
        assert_eq!(parse_every("m"), None);
        let every = Trigger::Every { seconds: 1_800 };
        assert_eq!(next_due(&every, t("2025-06-06T08:00:00Z")), Some(t("2025-06-06T08:30:00Z")));
        let at = Trigger::At { times: vec![t("2025-06-02T07:00:00Z"), t("2025-06-01T07:00:00Z")] };
        assert_eq!(next_due(&at, t("2025-05-01T00:00:00Z")), Some(t("2025-06-01T07:00:00Z")));
        assert_eq!(next_due(&at, t("2025-06-01T07:00:00Z")), Some(t("2025-06-02T07:00:00Z")));
        assert_eq!(next_due(&at, t("2025-06-03T00:00:00Z")), None);
        assert_eq!(next_due(&Trigger::Event { filter: Filter::kind("x") }, t("2025-06-03T00:00:00Z")), None);
    }
}
