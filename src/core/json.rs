//! Reading JSON the runtime wrote itself: the calls and replies between the Worker and its
//! objects, and the records they keep. The text becomes a `serde_json::Value` through one copy of
//! serde_json's parser, and each type is read from that Value; read straight from the text, each
//! type carried serde_json's parser inlined into its own code, and the upload was 30 KB gzip
//! larger (issue 18). What a person or an agent sends is read by serde_json directly, whose
//! errors name the line and column.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// `text` as a `T`, as `serde_json::from_str` reads it; an error says what is wrong but not where.
pub fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    T::deserialize(parse(text)?)
}

/// The part that is the same for every type, out of line so that it is not copied into each.
#[inline(never)]
fn parse(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str(text)
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::core::directory::Change;
    use crate::core::playbook::Playbook;

    const CHANGE: &str = r#"{"org":"acme","command":{"op":"update","id":"pb_7f3a","changes":{"name":"Invoices","description":"Reads the month's invoices and files them","page":null},"now":"2026-12-05T15:00:00Z","by":{"kind":"person","id":"u_19","name":"Ada"}}}"#;
    const PLAYBOOK: &str = r##"{"id":"pb_7f3a","name":"Invoices","description":"Reads the month's invoices","status":"active","created_at":"2026-12-01T09:00:00Z","updated_at":"2026-12-05T15:00:00Z","page":"# Invoices\n\nWhat this playbook does, at length.","created_by":{"kind":"key","id":"k_2","name":"ci"}}"##;

    #[test]
    fn reads_what_serde_json_reads_and_refuses_what_it_refuses() {
        assert_eq!(from_str::<Change>(CHANGE).unwrap(), serde_json::from_str::<Change>(CHANGE).unwrap());
        assert_eq!(from_str::<Playbook>(PLAYBOOK).unwrap(), serde_json::from_str::<Playbook>(PLAYBOOK).unwrap());
        assert!(from_str::<Change>(&format!("{CHANGE} x")).is_err());
        assert!(from_str::<Change>(r#"{"org":"acme"}"#).unwrap_err().to_string().contains("missing field `command`"));
        assert!(from_str::<Playbook>("[1").is_err());
    }

    /// What the Value costs a call: `cargo test --release --lib core::json -- --ignored --nocapture`
    /// prints both readers' time for 10,000 of a typical call and reply. Printed, not asserted.
    #[test]
    #[ignore = "a timing, run on demand"]
    fn time_against_serde_json() {
        fn time<T: DeserializeOwned>(what: &str, text: &str, read: fn(&str) -> serde_json::Result<T>) {
            let start = Instant::now();
            for _ in 0..10_000 {
                std::hint::black_box(read(std::hint::black_box(text)).unwrap());
            }
            println!("{what}: {:?} for 10,000", start.elapsed());
        }
        time("Change, serde_json", CHANGE, |t| serde_json::from_str::<Change>(t));
        time("Change, through a Value", CHANGE, from_str::<Change>);
        time("Playbook, serde_json", PLAYBOOK, |t| serde_json::from_str::<Playbook>(t));
        time("Playbook, through a Value", PLAYBOOK, from_str::<Playbook>);
    }
}
