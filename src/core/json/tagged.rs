//! Internally tagged enums (`{"op": "update", "id": …}`) read without serde's buffering.
//!
//! serde's derive reads such an enum into its private `Content` first, so every struct variant
//! carried a reader over `Content` beside the one over a Value, most of 470 KB of the wasm
//! (docs/size.md). `tagged!` declares the enum as written, serialized by serde's derive with its tag
//! as before, and reads it with serde's derive for the same variants externally tagged: the tag
//! names the variant and the rest of the object is its fields, read from the Value once.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Error, Map, Value};

use super::owned;

/// Reads the object `deserializer` holds as the variant its `tag` names, of `T`, the enum's
/// externally tagged twin. A missing or non-string tag is refused as serde refuses it.
pub fn read<'de, T: DeserializeOwned, D: Deserializer<'de>>(deserializer: D, tag: &'static str) -> Result<T, D::Error> {
    let mut fields = Map::<String, Value>::deserialize(deserializer)?;
    match fields.remove(tag) {
        Some(Value::String(name)) => T::deserialize(Tagged { name, fields }).map_err(de::Error::custom),
        Some(other) => Err(de::Error::invalid_type(owned::unexpected(&other), &"variant identifier")),
        None => Err(de::Error::missing_field(tag)),
    }
}

/// An internally tagged enum's object, its tag taken out: read as the variant `name` with the
/// rest of the object as its fields, by an enum that serde derives externally tagged.
struct Tagged {
    name: String,
    fields: Map<String, Value>,
}

impl<'de> Deserializer<'de> for Tagged {
    type Error = Error;

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(owned::Variant { name: self.name, value: Some(Value::Object(self.fields)), tagged: true })
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(de::Error::custom("an internally tagged object is read only as an enum"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Declares an internally tagged enum: `tagged! { #[derive(…, Serialize)] pub enum Name as "op" { … } }`,
/// with no `Deserialize` in its derives and no `tag` in its `serde` attributes, which this adds.
/// Its variants are units, newtypes or structs, as serde allows an internally tagged enum.
macro_rules! tagged {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as $tag:literal {
            $(
                $(#[$vmeta:meta])*
                $variant:ident $(($newtype:ty))? $({ $($(#[$fmeta:meta])* $field:ident: $fty:ty),* $(,)? })?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[serde(tag = $tag)]
        $vis enum $name {
            $($(#[$vmeta])* $variant $(($newtype))? $({ $($(#[$fmeta])* $field: $fty),* })?),*
        }

        impl<'de> serde::Deserialize<'de> for $name {
            // Each arm puts back what it does not take; the last one's is never read again.
            #[allow(unused_assignments)]
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #[derive(serde::Deserialize)]
                $(#[$meta])*
                enum Twin {
                    $($(#[$vmeta])* $variant $(($newtype))? $({ $($(#[$fmeta])* $field: $fty),* })?),*
                }
                let mut read = Some($crate::core::json::tagged::read::<Twin, D>(deserializer, $tag)?);
                $(
                    if let Some(v) = $crate::core::json::tagged::arm!(read, Twin, $name, $variant $(($newtype))? $({ $($field),* })?) {
                        return Ok(v);
                    }
                )*
                Err(serde::de::Error::custom("a variant was read that has no arm"))
            }
        }
    };
}

/// One variant of the twin, as the enum's own: `Some` when `read` holds it.
macro_rules! arm {
    ($read:ident, $from:ident, $to:ident, $variant:ident) => {
        match $read.take() {
            Some($from::$variant) => Some($to::$variant),
            other => {
                $read = other;
                None
            }
        }
    };
    ($read:ident, $from:ident, $to:ident, $variant:ident($ty:ty)) => {
        match $read.take() {
            Some($from::$variant(inner)) => Some($to::$variant(inner)),
            other => {
                $read = other;
                None
            }
        }
    };
    ($read:ident, $from:ident, $to:ident, $variant:ident { $($field:ident),* }) => {
        match $read.take() {
            Some($from::$variant { $($field),* }) => Some($to::$variant { $($field),* }),
            other => {
                $read = other;
                None
            }
        }
    };
}

pub(crate) use {arm, tagged};

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};
    use serde_json::{json, Value};

    use crate::core::json::from_value;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    pub struct Inner {
        pub n: i64,
    }

    tagged! {
        /// Each shape a variant takes.
        #[derive(Debug, PartialEq, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Ours as "op" {
            Stop,
            Wrapped(Inner),
            Start {
                id: String,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                at: Option<u32>,
            },
            #[serde(rename = "go_on")]
            Resume { by: String },
        }
    }

    /// The same enum as serde's derive reads it.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "op", rename_all = "snake_case")]
    pub enum Serdes {
        Stop,
        Wrapped(Inner),
        Start {
            id: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            at: Option<u32>,
        },
        #[serde(rename = "go_on")]
        Resume {
            by: String,
        },
    }

    tagged! {
        #[derive(Debug, PartialEq, Serialize)]
        #[serde(rename_all = "snake_case", deny_unknown_fields)]
        pub enum Strict as "kind" {
            Key { name: String },
        }
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        name: String,
        #[serde(flatten)]
        ours: Ours,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct SerdesHolder {
        name: String,
        #[serde(flatten)]
        ours: Serdes,
    }

    #[test]
    fn reads_and_writes_what_serdes_derive_does() {
        for v in [
            json!({"op": "stop"}),
            json!({"op": "stop", "extra": 1}),
            json!({"op": "wrapped", "n": -2}),
            json!({"op": "start", "id": "x"}),
            json!({"op": "start", "id": "x", "at": 3, "extra": true}),
            json!({"op": "go_on", "by": "ada"}),
        ] {
            let ours: Ours = from_value(v.clone()).unwrap();
            let theirs: Serdes = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&ours).unwrap(), serde_json::to_value(&theirs).unwrap(), "{v}");
            let text = serde_json::to_string(&ours).unwrap();
            assert_eq!(serde_json::from_str::<Ours>(&text).unwrap(), ours, "read from text as well");
        }
        let held = json!({"name": "h", "op": "start", "id": "x", "at": 1});
        let ours: Holder = from_value(held.clone()).unwrap();
        let theirs: SerdesHolder = serde_json::from_value(held.clone()).unwrap();
        assert_eq!(serde_json::to_value(&ours).unwrap(), serde_json::to_value(&theirs).unwrap());
        assert_eq!(serde_json::to_value(&ours).unwrap(), held);
    }

    #[test]
    fn refuses_what_serdes_derive_refuses() {
        let words = |v: Value| from_value::<Ours>(v).unwrap_err().to_string();
        let serdes = |v: Value| serde_json::from_value::<Serdes>(v).unwrap_err().to_string();
        for v in [
            json!({"id": "x"}),
            json!({"op": "fly"}),
            json!({"op": "start"}),
            json!({"op": "start", "id": 5}),
            json!({"op": "wrapped", "n": "two"}),
        ] {
            assert_eq!(words(v.clone()), serdes(v.clone()), "{v}");
        }
        assert!(words(json!({"op": 3})).contains("invalid type: integer `3`"));
        assert!(words(json!("stop")).contains("expected a map"));
        let strict = from_value::<Strict>(json!({"kind": "key", "name": "a", "other": 1})).unwrap_err();
        assert!(strict.to_string().contains("unknown field `other`"), "{strict}");
        assert!(from_value::<Strict>(json!({"kind": "key", "name": "a"})).is_ok());
    }
}
