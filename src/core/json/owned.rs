//! A serde `Deserializer` over an owned `serde_json::Value`, which reads a struct only from an
//! object. serde_json's own also reads a struct from an array (`visit_seq`), so every struct
//! read from a Value carried that code too, 116 KB of the wasm (docs/size.md) that no caller used:
//! what the runtime reads is always written as objects. Otherwise it reads as serde_json's does,
//! with the same words when it refuses.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde_json::{Error, Map, Value};

pub struct Owned(pub Value);

impl<'de> Deserializer<'de> for Owned {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (None, None, Some(f)) => visitor.visit_f64(f),
                _ => Err(de::Error::custom("a number that is neither an integer nor a float")),
            },
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(map) => visit_object(map, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            other => Err(refused(&other, &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(refused(&other, &visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(variant) => visitor.visit_enum(Variant { name: variant, value: None, tagged: false }),
            Value::Object(map) if map.len() == 1 => match map.into_iter().next() {
                Some((name, value)) => visitor.visit_enum(Variant { name, value: Some(value), tagged: false }),
                None => Err(de::Error::custom("a map with a single key is empty")),
            },
            Value::Object(_) => Err(de::Error::invalid_value(Unexpected::Map, &"map with a single key")),
            other => Err(de::Error::invalid_type(unexpected(&other), &"string or map")),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_string(s),
            other => Err(refused(&other, &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf seq tuple
        tuple_struct map
    }
}

fn visit_array<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = Items(items.into_iter());
    let read = visitor.visit_seq(&mut seq)?;
    match seq.0.len() {
        0 => Ok(read),
        _ => Err(de::Error::invalid_length(len, &"fewer elements in array")),
    }
}

fn visit_object<'de, V: Visitor<'de>>(map: Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
    let len = map.len();
    let mut entries = Entries { iter: map.into_iter(), value: None };
    let read = visitor.visit_map(&mut entries)?;
    match entries.iter.len() {
        0 => Ok(read),
        _ => Err(de::Error::invalid_length(len, &"fewer elements in map")),
    }
}

pub(super) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn refused<'de, V: Visitor<'de>>(value: &Value, visitor: &V) -> Error {
    de::Error::invalid_type(unexpected(value), visitor)
}

struct Items(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|v| seed.deserialize(Owned(v))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries {
    iter: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.iter.next() else { return Ok(None) };
        self.value = Some(value);
        seed.deserialize(Owned(Value::String(key))).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Owned(value)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An enum's variant: its name, and what it holds unless it is a unit variant; or, `tagged`, the
/// rest of an internally tagged object (`super::tagged`), which a unit variant ignores as serde's
/// derive does.
pub(super) struct Variant {
    pub(super) name: String,
    pub(super) value: Option<Value>,
    pub(super) tagged: bool,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Held;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Held), Error> {
        Ok((seed.deserialize(Owned(Value::String(self.name)))?, Held { value: self.value, tagged: self.tagged }))
    }
}

pub(super) struct Held {
    value: Option<Value>,
    tagged: bool,
}

impl<'de> VariantAccess<'de> for Held {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            None | Some(Value::Null) => Ok(()),
            Some(_) if self.tagged => Ok(()),
            Some(other) => Err(de::Error::invalid_type(unexpected(&other), &"unit variant")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(value) => seed.deserialize(Owned(value)),
            None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &"newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(Value::Array(items)) => visit_array(items, visitor),
            Some(other) => Err(de::Error::invalid_type(unexpected(&other), &"tuple variant")),
            None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &"tuple variant")),
        }
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(Value::Object(map)) => visit_object(map, visitor),
            Some(other) => Err(de::Error::invalid_type(unexpected(&other), &"struct variant")),
            None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &"struct variant")),
        }
    }
}
