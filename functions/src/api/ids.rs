//! Typed ids at the edge: a [`RoomId`] is checked before anything else happens, so a malformed
//! one is a 404 with no store call, whatever the store (on DynamoDB a 3 KB key used to cost a
//! throttled call and a 503).

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// A room id as the server makes them: 128 bits in URL-safe base64 without padding, 22
/// characters of `A–Z a–z 0–9 - _` (a new room's are random; a rematch lobby's are derived from
/// the finished room's id, the same shape). Made only by [`RoomId::parse`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RoomId(String);

impl RoomId {
    /// The length of every room id.
    pub const LEN: usize = 22;

    /// `text` as a room id, if it has the shape of one.
    pub fn parse(text: &str) -> Option<RoomId> {
        (text.len() == Self::LEN
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
        .then(|| RoomId(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What logs carry instead of the id: the first 8 hex digits of its SHA-256. A room id is
    /// the capability to read the room (links are shared, not secret-free), so logs — which
    /// more people read than play — name rooms by a digest that still joins one room's lines.
    pub fn digest(&self) -> String {
        digest_of(&self.0)
    }
}

/// [`RoomId::digest`] of any id text (for the ids the service makes, e.g. a rematch lobby's).
pub fn digest_of(id: &str) -> String {
    let sum = Sha256::digest(id.as_bytes());
    format!(
        "{:08x}",
        u32::from_be_bytes([sum[0], sum[1], sum[2], sum[3]])
    )
}

impl std::fmt::Display for RoomId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RoomId {
    type Rejection = ApiError;

    /// The `{id}` of the route's path. Anything that is not a room id's shape — too long, an
    /// undecodable escape, a character outside the alphabet — is a room that does not exist.
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(text) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::RoomNotFound)?;
        let id = RoomId::parse(&text).ok_or(ApiError::RoomNotFound)?;
        tracing::Span::current().record("room", id.digest().as_str());
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_shape_of_a_room_id_passes() {
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAAAA").is_some());
        assert!(RoomId::parse("abc-_0123456789xyzXYZ0").is_some());
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAAA").is_none());
        assert!(RoomId::parse(&"A".repeat(3000)).is_none());
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAAA=").is_none());
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAA가").is_none());
        assert_eq!(digest_of("x").len(), 8);
    }
}
