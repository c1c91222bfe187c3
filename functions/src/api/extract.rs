//! Turning raw HTTP input into typed values at the edge: JSON bodies (size-limited, unknown
//! fields refused) and bearer tokens.

use axum::body::Bytes;
use axum::http::{HeaderMap, header};
use madang_core::room::TokenHash;
use serde::Deserialize;

use crate::error::ApiError;

/// Request bodies larger than this are refused with 413 before they are parsed.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// Parses a JSON body into `T`, in one pass and strictly ([`super::strict`]: a key twice is
/// refused, a number with a zero fraction reads as an integer); every failure is a 400 that
/// says what is wrong.
pub fn json_body<'a, T: Deserialize<'a>>(body: &'a Bytes) -> Result<T, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError::TooLarge);
    }
    super::strict::from_slice(body).map_err(|e| ApiError::Unreadable {
        detail: "JSON 본문을 읽을 수 없어요.",
        reason: super::strict::message(&e),
    })
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

/// Where a bearer token arrives when CloudFront's origin access control signs the request to the
/// Function URL: its SigV4 signature takes the `Authorization` header, so the distribution's
/// viewer-request function moves the player's header here (`template.yaml`,
/// `EdgeAuthorizationFunction`; docs/deploy.md, "Behind CloudFront").
pub const EDGE_AUTHORIZATION: &str = "x-madang-authorization";

/// The scheme of an AWS SigV4 `Authorization` header.
const SIGV4: &str = "AWS4-HMAC-SHA256 ";

/// The hash of the `Authorization: Bearer …` token, if the header is there.
/// A header that is present but not a bearer token is refused, and so are two of them: which one
/// counts would depend on the proxy in front (the first wins in axum, the last in some others).
/// An `Authorization` that is a SigV4 signature is the edge's, not the player's (Lambda checked it
/// before the function ran; anywhere else it proves nothing and grants nothing): the token is then
/// read from [`EDGE_AUTHORIZATION`] by the same rules.
pub fn bearer(headers: &HeaderMap) -> Result<Option<TokenHash>, ApiError> {
    let signed = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(SIGV4));
    let name = if signed {
        EDGE_AUTHORIZATION
    } else {
        header::AUTHORIZATION.as_str()
    };
    let mut values = headers.get_all(name).iter();
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

/// The caller, as the limits count it (one type for the address: [`crate::limits::Client`]).
pub use crate::limits::Client;
