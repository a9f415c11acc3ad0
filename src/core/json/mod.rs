//! Reading JSON the runtime wrote itself: the calls and replies between the Worker and its
//! objects, and the records they keep. The text becomes a `serde_json::Value` through one copy of
//! serde_json's parser, and each type is read from that Value; read straight from the text, each
//! type carried serde_json's parser inlined into its own code, and the upload was 30 KB gzip
//! larger (docs/size.md). What a person or an agent sends is read by serde_json directly, whose
//! errors name the line and column; or, once it is a Value, by `from_value` here. Enums tagged
//! inside their object are declared with `tagged!`, which reads them from that Value too.

mod owned;
pub mod tagged;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// `text` as a `T`, as `serde_json::from_str` reads it; an error says what is wrong but not where.
pub fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    from_value(parse(text)?)
}

/// `bytes` as a `T`, as `serde_json::from_slice` reads them: what the runtime sealed itself.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    from_value(serde_json::from_slice(bytes)?)
}

/// `value` as a `T`, as `serde_json::from_value` reads it, but a struct only from an object
/// (`owned`). Every Value the runtime reads goes through here, so each type carries one reader.
pub fn from_value<T: DeserializeOwned>(value: Value) -> serde_json::Result<T> {
    T::deserialize(owned::Owned(value))
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

    /// Shapes of every kind the runtime's types take, read by both.
    mod shapes {
        use serde::Deserialize;

        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(tag = "op", rename_all = "snake_case")]
        pub enum Internal {
            Start { id: String, at: Option<u32> },
            Stop,
            Wrapped(Inner),
        }

        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum External {
            Plain,
            Newtype(u8),
            Pair(u8, String),
            Fields { a: bool },
        }

        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(untagged)]
        pub enum Untagged {
            Number(f64),
            Words(Vec<String>),
        }

        #[derive(Debug, PartialEq, Deserialize)]
        pub struct Inner {
            pub n: i64,
            #[serde(default)]
            pub list: Vec<External>,
        }

        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Outer {
            pub name: String,
            pub maybe: Option<Box<Outer>>,
            pub internal: Vec<Internal>,
            #[serde(flatten)]
            pub inner: Inner,
            pub untagged: Untagged,
            pub any: serde_json::Value,
            pub unit: (),
            pub wide: u64,
            pub small: u8,
            pub ratio: f32,
            pub map: std::collections::BTreeMap<String, External>,
        }
    }

    #[test]
    fn from_value_reads_what_serde_json_reads_in_its_words() {
        use serde_json::json;
        use shapes::Outer;
        let good = json!({
            "name": "a", "maybe": {"name": "b", "maybe": null, "internal": [], "n": 1, "untagged": [],
                "any": null, "unit": null, "wide": 1, "small": 1, "ratio": 1, "map": {}},
            "internal": [{"op": "start", "id": "x"}, {"op": "stop", "extra": 1}, {"op": "wrapped", "n": -2}],
            "n": 7, "list": ["plain", {"newtype": 3}, {"pair": [1, "p"]}, {"fields": {"a": true}}],
            "untagged": 2.5, "any": {"k": [1, "two", null]}, "unit": null,
            "wide": 18_446_744_073_709_551_615u64, "small": 255, "ratio": 0.5, "map": {"k": "plain"}
        });
        let ours: Outer = from_value(good.clone()).unwrap();
        assert_eq!(ours, serde_json::from_value::<Outer>(good.clone()).unwrap());
        let mut bad = Vec::new();
        for (pointer, wrong) in [
            ("/name", json!(3)),
            ("/small", json!(256)),
            ("/small", json!(-1)),
            ("/small", json!(1.5)),
            ("/wide", json!("1")),
            ("/unit", json!(false)),
            ("/maybe", json!([])),
            ("/maybe", json!("b")),
            ("/internal/0/op", json!("fly")),
            ("/internal/0", json!(["start", "x"])),
            ("/list/0", json!("newtype")),
            ("/list/0", json!({"plain": 1})),
            ("/list/0", json!({"plain": null, "newtype": 1})),
            ("/list/0", json!(5)),
            ("/untagged", json!({"a": 1})),
            ("/map", json!([])),
        ] {
            let mut v = good.clone();
            *v.pointer_mut(pointer).unwrap() = wrong;
            bad.push(v);
        }
        let mut unknown = good.clone();
        unknown["surprise"] = json!(1);
        bad.push(unknown);
        let mut missing = good;
        missing.as_object_mut().unwrap().remove("name");
        bad.push(missing);
        for v in bad {
            let theirs = serde_json::from_value::<Outer>(v.clone()).map(|_| ()).expect_err(&v.to_string()).to_string();
            assert_eq!(from_value::<Outer>(v.clone()).unwrap_err().to_string(), theirs, "{v}");
        }
        // What serde_json alone reads: a struct from an array.
        assert!(serde_json::from_value::<shapes::Inner>(json!([1, []])).is_ok());
        assert!(from_value::<shapes::Inner>(json!([1, []])).is_err());
        let list = json!(["plain", {"pair": [1, "p"]}, {"fields": {"a": false}}]);
        assert_eq!(
            from_value::<Vec<shapes::External>>(list.clone()).unwrap(),
            serde_json::from_value::<Vec<shapes::External>>(list).unwrap()
        );
    }

    #[test]
    fn reads_what_serde_json_reads_and_refuses_what_it_refuses() {
        assert_eq!(from_str::<Change>(CHANGE).unwrap(), serde_json::from_str::<Change>(CHANGE).unwrap());
        assert_eq!(from_str::<Playbook>(PLAYBOOK).unwrap(), serde_json::from_str::<Playbook>(PLAYBOOK).unwrap());
        assert!(from_str::<Change>(&format!("{CHANGE} x")).is_err());
        assert!(from_str::<Change>(r#"{"org":"acme"}"#).unwrap_err().to_string().contains("missing field `command`"));
        assert!(from_str::<Playbook>("[1").is_err());
    }

    /// What the Value costs a call: `cargo test --release --lib core::json -- --ignored --nocapture`
    /// prints each reading's time for 10,000 of a typical call and reply. Printed, not asserted.
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
        time("Change, through a Value and serde_json's reader", CHANGE, |t| {
            serde_json::from_value::<Change>(parse(t)?)
        });
        time("Playbook, serde_json", PLAYBOOK, |t| serde_json::from_str::<Playbook>(t));
        time("Playbook, through a Value", PLAYBOOK, from_str::<Playbook>);
        time("Playbook, through a Value and serde_json's reader", PLAYBOOK, |t| {
            serde_json::from_value::<Playbook>(parse(t)?)
        });
    }
}
