//! Turning raw HTTP input into typed values at the edge: JSON bodies (size-limited, unknown
//! fields refused) and bearer tokens.

use std::convert::Infallible;
use std::net::IpAddr;

use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use madang_core::room::{TokenHash, client_hash};
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
    let mut value: serde_json::Value = serde_json::from_slice(body).map_err(malformed)?;
    whole_numbers_as_integers(&mut value);
    serde_json::from_value(value).map_err(malformed)
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

/// The caller's address as the limits see it (the socket's peer locally, API Gateway's
/// `sourceIp` on Lambda; IPv6 per /64), for the kick list: a join passes
/// [`Client::hash_for`] its room to `Room::join_from`, so a kicked player cannot join that room
/// again from the same address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client(pub Option<IpAddr>);

impl Client {
    /// The room-salted hash `Room::join_from` takes (0 when the address is unknown).
    pub fn hash_for(&self, room_id: &str) -> u64 {
        match self.0 {
            Some(IpAddr::V4(v4)) => client_hash(room_id, &v4.octets()),
            Some(IpAddr::V6(v6)) => client_hash(room_id, &v6.octets()[..8]),
            None => 0,
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(Client(crate::limits::client_in(&parts.extensions)))
    }
}
