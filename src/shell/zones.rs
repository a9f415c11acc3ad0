//! The platform's time zones for core::zone: a zone's UTC offset read through
//! `Intl.DateTimeFormat`, whose zone data V8 carries, so the upload carries none (docs/size.md).

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::prelude::*;
use worker::event;
use worker::js_sys::{Array, Object, Reflect};

use crate::core::zone::{gmt_offset, install};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Intl)]
    type DateTimeFormat;

    /// Throws a RangeError for a time zone Intl does not know.
    #[wasm_bindgen(constructor, js_namespace = Intl, catch)]
    fn new(locale: &str, options: &Object) -> Result<DateTimeFormat, JsValue>;

    /// Takes the instant as milliseconds since the epoch, as a `Date` would give them.
    #[wasm_bindgen(method, js_class = "Intl.DateTimeFormat", js_name = formatToParts)]
    fn format_to_parts(this: &DateTimeFormat, millis: f64) -> Array;
}

thread_local! {
    /// A formatter per zone, as building one costs far more than using it. Keyed by the name in
    /// lowercase, as Intl reads it, so names that differ in case alone share one and the cache
    /// holds at most one per zone V8 knows.
    static FORMATTERS: RefCell<HashMap<String, DateTimeFormat>> = RefCell::new(HashMap::new());
}

/// The zones are Intl's from the moment the module starts, before any request.
#[event(start)]
fn start() {
    install(offset);
}

/// The UTC offset of `zone` at `utc` seconds since the epoch, in seconds; `None` for a name
/// Intl refuses.
fn offset(zone: &str, utc: i64) -> Option<i32> {
    let key = zone.to_ascii_lowercase();
    FORMATTERS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if !cache.contains_key(&key) {
            cache.insert(key.clone(), formatter(zone)?);
        }
        let parts = cache.get(&key)?.format_to_parts(utc as f64 * 1_000.0);
        parts.iter().find_map(|part| {
            let kind = Reflect::get(&part, &"type".into()).ok()?;
            if kind.as_string()? != "timeZoneName" {
                return None;
            }
            gmt_offset(&Reflect::get(&part, &"value".into()).ok()?.as_string()?)
        })
    })
}

/// A formatter that names the zone's offset in full (`GMT+05:30`), in a locale that writes it so.
fn formatter(zone: &str) -> Option<DateTimeFormat> {
    let options = Object::new();
    Reflect::set(&options, &"timeZone".into(), &zone.into()).ok()?;
    Reflect::set(&options, &"timeZoneName".into(), &"longOffset".into()).ok()?;
    DateTimeFormat::new("en-US", &options).ok()
}
