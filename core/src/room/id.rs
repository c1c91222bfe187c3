//! [`RoomId`]: a room's id, checked once where it enters (the HTTP path, a live hello, a bot's
//! event) and carried typed down to the store.

use sha2::{Digest, Sha256};

/// A room id as the server makes them: 128 bits in URL-safe base64 without padding, 22
/// characters of `A–Z a–z 0–9 - _` (a new room's are random; a rematch lobby's are derived from
/// the finished room's id, the same shape). Made only by [`RoomId::parse`]: the one rule a room
/// id is held to, at the HTTP edge, on the live channel and in the stores' signatures.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

    /// An id of a room's shape that no room has, for reads that only probe the store
    /// (`GET /healthz`, a warm-up read): a made id is 16 bytes in base64url, whose last
    /// character is one of `A`, `Q`, `g`, `w`.
    pub fn unmade() -> RoomId {
        RoomId("probe_________________".to_owned())
    }

    /// The id as text: for the storage key, the wire and nothing else (logs carry
    /// [`RoomId::digest`]).
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

/// [`RoomId::digest`] of a room id or of any id text.
pub fn digest_of(id: impl AsRef<str>) -> String {
    let sum = Sha256::digest(id.as_ref().as_bytes());
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

impl AsRef<str> for RoomId {
    fn as_ref(&self) -> &str {
        &self.0
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
        assert!(RoomId::parse("#clock").is_none());
        let unmade = RoomId::unmade();
        assert_eq!(RoomId::parse(unmade.as_str()), Some(unmade.clone()));
        assert!(!"AQgw".contains(unmade.as_str().chars().last().unwrap()));
        assert_eq!(digest_of("x").len(), 8);
    }
}
