//! Time zones by IANA name, as a schedule reads its cron pattern in one. Core asks the platform a
//! single question, the UTC offset of a zone at an instant, and answers all of chrono's from it,
//! so the Worker reads the zone data V8 carries for `Intl` instead of carrying tables of its own
//! (chrono-tz's were 118 KiB of the gzip upload, docs/size.md). The host reads chrono-tz's, so
//! `cargo test` runs on real zone data.
//!
//! The platform decides which names it knows: on the Worker, any name `Intl.DateTimeFormat`
//! takes, whatever its case ("europe/paris"), with ICU's few older names ("PST") beside IANA's.
//! The host matches IANA names regardless of case, as Intl does. A name must begin with a letter:
//! Intl also takes offsets ("+01:00"), which are not zones and follow no clock changes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::sync::OnceLock;

use chrono::{FixedOffset, LocalResult, NaiveDate, NaiveDateTime, Offset, TimeZone};

/// The platform's zone data: the UTC offset, in seconds, of the zone `name` at `utc` seconds
/// since the epoch, or `None` when it does not know the name.
pub type Offsets = fn(name: &str, utc: i64) -> Option<i32>;

/// The zone data the shell installed; the host has its own.
static INSTALLED: OnceLock<Offsets> = OnceLock::new();

const DAY: i64 = 86_400;

/// Sets the platform's zone data for this isolate. The Worker does it as its module starts;
/// before that, and without it, only `UTC` is known.
pub fn install(offsets: Offsets) {
    // A second install is the same function: keeping the first is as good.
    let _ = INSTALLED.set(offsets);
}

fn platform() -> Option<Offsets> {
    #[cfg(not(target_arch = "wasm32"))]
    let host: Option<Offsets> = Some(iana);
    #[cfg(target_arch = "wasm32")]
    let host: Option<Offsets> = None;
    INSTALLED.get().copied().or(host)
}

/// A named time zone, as chrono's `TimeZone`: croner finds a schedule's next time over it,
/// clock changes included.
#[derive(Clone)]
pub struct Zone {
    name: Rc<str>,
    offsets: Offsets,
    /// The offsets asked of the platform so far, by the minute (see `seconds_at`); shared by
    /// the zone's copies in the times croner makes of it.
    asked: Rc<RefCell<HashMap<i64, i32>>>,
}

/// A zone's offset at one instant; it keeps the zone, as chrono rebuilds the zone from it.
#[derive(Clone)]
pub struct ZoneOffset {
    zone: Zone,
    fixed: FixedOffset,
}

impl Zone {
    /// The zone `name` names, if the platform knows it.
    pub fn named(name: &str) -> Option<Zone> {
        if name == "UTC" {
            // The default zone needs no data: a schedule in UTC works wherever zones do not.
            return Some(Zone::new(name, |_, _| Some(0)));
        }
        Zone::from_data(name, platform()?)
    }

    /// The zone `name` names in the data `offsets`, if it knows it.
    pub fn from_data(name: &str, offsets: Offsets) -> Option<Zone> {
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        offsets(name, 0)?;
        Some(Zone::new(name, offsets))
    }

    fn new(name: &str, offsets: Offsets) -> Zone {
        Zone { name: name.into(), offsets, asked: Rc::default() }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its offset from UTC at `utc` seconds since the epoch. Clocks change on the minute (every
    /// offset and every change's wall time is whole minutes since the 1970s), so one answer
    /// serves the whole minute: croner walks a skipped hour a second at a time, thousands of
    /// questions that would each cost a call into JavaScript. The data knew the name when the
    /// zone was made; should it fail later, UTC is the answer rather than a panic.
    fn seconds_at(&self, utc: i64) -> i32 {
        let minute = utc.div_euclid(60);
        if let Some(seconds) = self.asked.borrow().get(&minute) {
            return *seconds;
        }
        let seconds = (self.offsets)(&self.name, minute * 60).unwrap_or(0);
        self.asked.borrow_mut().insert(minute, seconds);
        seconds
    }

    fn offset(&self, seconds: i32) -> ZoneOffset {
        let fixed = FixedOffset::east_opt(seconds).unwrap_or(chrono::Utc.fix());
        ZoneOffset { zone: self.clone(), fixed }
    }
}

impl TimeZone for Zone {
    type Offset = ZoneOffset;

    fn from_offset(offset: &ZoneOffset) -> Zone {
        offset.zone.clone()
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> ZoneOffset {
        self.offset(self.seconds_at(utc.and_utc().timestamp()))
    }

    /// The instants the wall time `local` names: none in a gap the clock skips when it goes
    /// forward, two where it goes back and repeats, earlier first.
    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> LocalResult<ZoneOffset> {
        let wall = local.and_utc().timestamp();
        // Every instant a wall time names is within a day of it read as UTC (offsets are under
        // 15 hours), and no zone changes its clock twice in two days: the offsets a day before
        // and a day after are the only ones it can have. One fits where its instant has it.
        let mut fits: Vec<(i64, i32)> = Vec::with_capacity(2);
        for probe in [wall - DAY, wall + DAY] {
            let seconds = self.seconds_at(probe);
            if fits.iter().any(|(_, s)| *s == seconds) {
                continue;
            }
            let instant = wall - i64::from(seconds);
            if self.seconds_at(instant) == seconds {
                fits.push((instant, seconds));
            }
        }
        fits.sort_unstable();
        match fits.as_slice() {
            [] => LocalResult::None,
            [(_, one)] => LocalResult::Single(self.offset(*one)),
            [(_, earlier), (_, later), ..] => LocalResult::Ambiguous(self.offset(*earlier), self.offset(*later)),
        }
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> LocalResult<ZoneOffset> {
        self.offset_from_local_datetime(&local.and_time(chrono::NaiveTime::MIN))
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> ZoneOffset {
        self.offset_from_utc_datetime(&utc.and_time(chrono::NaiveTime::MIN))
    }
}

impl Offset for ZoneOffset {
    fn fix(&self) -> FixedOffset {
        self.fixed
    }
}

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl fmt::Debug for ZoneOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:?})", self.fixed, self.zone)
    }
}

impl fmt::Display for ZoneOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.fixed, f)
    }
}

/// Seconds east of UTC in Intl's long GMT form: `GMT` (or `GMT+00:00`), `GMT-05:00`, and with
/// seconds for the local mean times of old, `GMT+00:09:21`. The minus may be Unicode's.
pub fn gmt_offset(text: &str) -> Option<i32> {
    let rest = text.strip_prefix("GMT")?;
    if rest.is_empty() {
        return Some(0);
    }
    let (sign, rest) = match rest.chars().next()? {
        '+' => (1, &rest[1..]),
        '-' => (-1, &rest[1..]),
        '\u{2212}' => (-1, &rest['\u{2212}'.len_utf8()..]),
        _ => return None,
    };
    let mut seconds = 0;
    let mut parts = 0;
    for (part, scale) in rest.split(':').zip([3_600, 60, 1]) {
        if part.len() != 2 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        seconds += part.parse::<i32>().ok()? * scale;
        parts += 1;
    }
    (parts >= 2 && rest.split(':').count() == parts).then_some(sign * seconds)
}

/// The host's zone data: chrono-tz's IANA tables, the name matched regardless of case as Intl
/// matches it.
#[cfg(not(target_arch = "wasm32"))]
fn iana(name: &str, utc: i64) -> Option<i32> {
    use chrono_tz::{Tz, TZ_VARIANTS};
    let zone = name
        .parse::<Tz>()
        .ok()
        .or_else(|| TZ_VARIANTS.iter().copied().find(|z| z.name().eq_ignore_ascii_case(name)))?;
    let at = chrono::DateTime::from_timestamp(utc, 0)?;
    Some(zone.offset_from_utc_datetime(&at.naive_utc()).fix().local_minus_utc())
}

#[cfg(test)]
mod tests;
