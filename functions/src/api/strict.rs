//! JSON read strictly, in one pass, straight into typed values.
//!
//! [`from_slice`] wraps serde_json's parser so that every request body is read once, from its
//! bytes into its typed form, with no `serde_json::Value` tree in between, and still:
//! - an object with a key twice (`{"a":1,"a":2}`) is refused, where serde_json keeps the last
//!   (and a proxy or another parser in between might keep the first);
//! - a number with a zero fraction (`4.0`) is read as the integer it is: JSON Schema's
//!   `integer` (the OpenAPI document's) allows it, so the parser does too.
//!
//! The wrappers below forward every call to serde_json and change only those two things.

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// Within ±2^53 every whole `f64` is exact, so reading it as an integer loses nothing.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// The end of the message of a key seen twice.
pub const TWICE: &str = "키가 두 번 나왔어요";

/// Reads `bytes` as one `T`, strictly (see the module doc), and nothing after it.
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, serde_json::Error> {
    let mut parser = serde_json::Deserializer::from_slice(bytes);
    let value = T::deserialize(Strict(&mut parser))?;
    parser.end()?;
    Ok(value)
}

/// [`from_slice`] of a text.
pub fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, serde_json::Error> {
    from_slice(text.as_bytes())
}

/// What a parse error says, for people. Errors in the JSON itself (and a key seen twice) say
/// where they are; errors of the typed layer (an unknown field, a wrong type) say what, as
/// they did when they were read from a tree that had no positions.
pub fn message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if e.classify() != serde_json::error::Category::Data || text.contains(TWICE) {
        return text;
    }
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

/// Whether `e` is a key seen twice (a malformed body, whatever part of it).
pub fn is_twice(e: &serde_json::Error) -> bool {
    e.to_string().contains(TWICE)
}

/// A deserializer read strictly.
struct Strict<D>(D);

/// Forwards every `deserialize_*` of a wrapping deserializer: `$this` is the wrapper, `$inner`
/// the wrapped deserializer and `$wrap` the visitor handed on.
macro_rules! forward {
    ($this:ident, $visitor:ident => $inner:expr, $wrap:expr) => {
        forward!(@each $this, $visitor, $inner, $wrap;
            deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
            deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
            deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
            deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
            deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
            deserialize_option(), deserialize_unit(), deserialize_unit_struct(name: &'static str),
            deserialize_newtype_struct(name: &'static str), deserialize_seq(),
            deserialize_tuple(len: usize), deserialize_tuple_struct(name: &'static str, len: usize),
            deserialize_map(),
            deserialize_struct(name: &'static str, fields: &'static [&'static str]),
            deserialize_enum(name: &'static str, variants: &'static [&'static str]),
            deserialize_identifier(), deserialize_ignored_any(),
        );
    };
    (@each $this:ident, $visitor:ident, $inner:expr, $wrap:expr; $($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* $visitor: V) -> Result<V::Value, Self::Error> {
                let $this = self;
                $inner.$method($($arg,)* $wrap)
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<D> {
    type Error = D::Error;

    forward!(this, visitor => this.0, Wrap(visitor));

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// A visitor whose maps, sequences and nested values are read strictly.
struct Wrap<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.0.visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.0.visit_i64(v)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<V::Value, E> {
        self.0.visit_i128(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.0.visit_u64(v)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<V::Value, E> {
        self.0.visit_u128(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        if v.fract() == 0.0 {
            if (0.0..=EXACT).contains(&v) {
                return self.0.visit_u64(v as u64);
            }
            if (-EXACT..0.0).contains(&v) {
                return self.0.visit_i64(v as i64);
            }
        }
        self.0.visit_f64(v)
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<V::Value, E> {
        self.0.visit_char(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.0.visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_string(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.0.visit_bytes(v)
    }
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.0.visit_borrowed_bytes(v)
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.0.visit_byte_buf(v)
    }
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Strict(d))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Strict(d))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Seq(seq))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Map {
            inner: map,
            seen: Vec::new(),
        })
    }
    fn visit_enum<A: EnumAccess<'de>>(self, e: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Enum(e))
    }
}

/// A seed whose value is read strictly.
struct Seed<T>(T);

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<T> {
    type Value = T::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T::Value, D::Error> {
        self.0.deserialize(Strict(d))
    }
}

struct Seq<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// An object's entries, with the keys seen so far (objects in requests are small: a scan beats
/// a set).
struct Map<A> {
    inner: A,
    seen: Vec<String>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let mut key = None;
        let value = self.inner.next_key_seed(KeySeed {
            seed,
            key: &mut key,
        })?;
        if let Some(key) = key {
            if self.seen.contains(&key) {
                return Err(de::Error::custom(format!("`{key}` {TWICE}")));
            }
            self.seen.push(key);
        }
        Ok(value)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.inner.next_value_seed(Seed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A key's seed that notes the key's text on the way.
struct KeySeed<'k, K> {
    seed: K,
    key: &'k mut Option<String>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyReader {
            inner: d,
            key: self.key,
        })
    }
}

struct KeyReader<'k, D> {
    inner: D,
    key: &'k mut Option<String>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyReader<'_, D> {
    type Error = D::Error;

    forward!(this, visitor => this.inner, KeyVisitor { inner: visitor, key: this.key });
}

struct KeyVisitor<'k, V> {
    inner: V,
    key: &'k mut Option<String>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.expecting(f)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        *self.key = Some(v.to_owned());
        self.inner.visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        *self.key = Some(v.to_owned());
        self.inner.visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        *self.key = Some(v.clone());
        self.inner.visit_string(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.inner.visit_u64(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.inner.visit_i64(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.inner.visit_bool(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.inner.visit_bytes(v)
    }
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.inner.visit_borrowed_bytes(v)
    }
}

struct Enum<A>(A);

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<A> {
    type Error = A::Error;
    type Variant = Variant<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(Seed(seed))?;
        Ok((value, Variant(variant)))
    }
}

struct Variant<A>(A);

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Variant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap(v))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Wrap(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Point {
        x: u32,
        y: Option<i32>,
        z: Option<f64>,
        #[serde(default)]
        tags: Vec<std::collections::BTreeMap<String, u32>>,
    }

    #[test]
    fn keys_twice_are_refused_at_any_depth() {
        for text in [
            r#"{"x":1,"x":2}"#,
            r#"{"x":1,"tags":[{"a":1,"a":1}]}"#,
            r#"{"tags":[{},{"b":1,"c":2,"b":2}],"x":1}"#,
        ] {
            let e = from_str::<Point>(text).unwrap_err();
            assert!(is_twice(&e), "{text}: {e}");
        }
    }

    #[test]
    fn whole_numbers_read_as_integers_and_fractions_do_not() {
        let p: Point = from_str(r#"{"x":4.0,"y":-3.0,"z":6.0}"#).unwrap();
        assert_eq!(
            p,
            Point {
                x: 4,
                y: Some(-3),
                z: Some(6.0),
                tags: Vec::new(),
            }
        );
        assert!(from_str::<Point>(r#"{"x":4.5}"#).is_err());
        assert!(from_str::<Point>(r#"{"x":1e300}"#).is_err());
    }

    #[test]
    fn typed_errors_say_what_and_syntax_errors_say_where() {
        let typed = from_str::<Point>(r#"{"x":"a"}"#).unwrap_err();
        assert_eq!(message(&typed), "invalid type: string \"a\", expected u32");
        let syntax = from_str::<Point>(r#"{"x":"#).unwrap_err();
        assert!(message(&syntax).contains("line 1"), "{syntax}");
    }
}
