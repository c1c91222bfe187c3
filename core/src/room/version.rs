//! [`Version`]: a room's version as a request names it.

use serde::{Deserialize, Serialize};

/// A room's version as a client names it: `expectedVersion` in an action, `since` in a
/// long-poll, the `"V"` of an `If-None-Match` tag. Every accepted change bumps a room's version
/// by one ([`super::Room::version`], the spec's `turnSeq`), so any whole number is one; the type
/// keeps a pin apart from every other number a request carries. The HTTP edge parses it once
/// (query, header or body), and the service compares it with the room's.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct Version(u64);

impl Version {
    /// The version numbered `n`.
    pub const fn new(n: u64) -> Self {
        Version(n)
    }

    /// Its number.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Whether a room at `version` is still at this one.
    pub const fn is(self, version: u64) -> bool {
        self.0 == version
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for Version {
    type Err = std::num::ParseIntError;

    /// Decimal digits, as in `?since=12` or the tag `"12"`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(Version)
    }
}
