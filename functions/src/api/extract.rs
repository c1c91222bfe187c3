//! Turning raw HTTP input into typed values at the edge: JSON bodies (size-limited, unknown
//! fields refused) and bearer tokens.

use std::convert::Infallible;
use std::net::IpAddr;

use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use madang_core::room::TokenHash;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Request bodies larger than this are refused with 413 before they are parsed.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// Parses a JSON body into `T`; every failure is a 400 that says what is wrong.
///
/// A number with a zero fraction (`4.0`) is read as the integer it is wherever the body has
/// one: JSON Schema's `integer` (the OpenAPI document's) allows it, so the parser does too.
pub fn json_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError::TooLarge);
    }
    let malformed =
        |e: serde_json::Error| ApiError::Malformed(format!("JSON 본문을 읽을 수 없어요: {e}"));
    let Strict(mut value) = serde_json::from_slice(body).map_err(malformed)?;
    whole_numbers_as_integers(&mut value);
    serde_json::from_value(value).map_err(malformed)
}

/// A JSON value read with every object's keys unique: `{"a":1,"a":2}` is refused, where
/// serde_json keeps the last (and a proxy or another parser in between might keep the first).
struct Strict(serde_json::Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value()?;
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "`{key}` 키가 두 번 나왔어요"
                )));
            }
            object.insert(key, value);
        }
        Ok(serde_json::Value::Object(object))
    }
}

/// Rewrites every number with a zero fraction (in the `u64`/`i64` range) as an integer.
pub fn whole_numbers_as_integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0) {
                // Within ±2^53 every whole f64 is exact, so the conversion loses nothing.
                const EXACT: f64 = 9_007_199_254_740_992.0;
                if (0.0..=EXACT).contains(&f) {
                    *value = Value::from(f as u64);
                } else if (-EXACT..0.0).contains(&f) {
                    *value = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

/// A query parameter holding a non-negative integer, also written with a zero fraction
/// (`4235030.0`), as JSON Schema's `integer` allows.
pub fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    use serde::Deserialize;
    let Some(text) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    if let Ok(n) = text.parse::<u64>() {
        return Ok(Some(n));
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(f))
        .map(|f| Some(f as u64))
        .ok_or_else(|| serde::de::Error::custom(format!("`{text}`: 0 이상의 정수여야 해요.")))
}

/// A query parameter naming a room's version (`since`): a non-negative integer, as
/// [`whole_number`] reads it.
pub fn version<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<madang_core::room::Version>, D::Error> {
    whole_number(d).map(|n| n.map(madang_core::room::Version::new))
}

/// The hash of the `Authorization: Bearer …` token, if the header is there.
/// A header that is present but not a bearer token is refused, and so are two of them: which one
/// counts would depend on the proxy in front (the first wins in axum, the last in some others).
pub fn bearer(headers: &HeaderMap) -> Result<Option<TokenHash>, ApiError> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(ApiError::DuplicateHeader("Authorization"));
    }
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or(ApiError::Unauthorized)?;
    Ok(Some(TokenHash::of(token)))
}

/// The `Idempotency-Key` header, if any (at most 255 visible ASCII characters).
pub fn idempotency_key(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .filter(|k| !k.is_empty() && k.len() <= 255)
        .map(Some)
        .ok_or_else(|| ApiError::Malformed("Idempotency-Key는 1~255자의 ASCII여야 해요.".into()))
}

/// The caller's address as the limits see it (the socket's peer locally, or the right-most
/// untrusted `X-Forwarded-For` hop behind `MADANG_TRUSTED_PROXIES`; the event's `sourceIp` on
/// Lambda; IPv6 per /64). Limits only: kicks bind the seat, not the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client(pub Option<IpAddr>);

impl Client {
    /// A room-salted key of the address, for per-address counters inside one room (a
    /// spectator's chat rate). 0 when the address is unknown. The salt keeps one room's
    /// counters from telling anything about another's.
    pub fn key_for(&self, room_id: &str) -> u64 {
        use sha2::{Digest, Sha256};
        let bytes: &[u8] = match &self.0 {
            Some(IpAddr::V4(v4)) => &v4.octets(),
            Some(IpAddr::V6(v6)) => &v6.octets()[..8],
            None => return 0,
        };
        let digest = Sha256::new()
            .chain_update(room_id.as_bytes())
            .chain_update(bytes)
            .finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_le_bytes(first)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(Client(crate::limits::client_in(&parts.extensions)))
    }
}
