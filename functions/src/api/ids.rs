//! Typed ids at the edge: a [`RoomId`] is checked before anything else happens, so a malformed
//! one is a 404 with no store call, whatever the store (on DynamoDB a 3 KB key used to cost a
//! throttled call and a 503).

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
pub use madang_core::room::digest_of;

use crate::error::ApiError;

/// A room id taken from a route's path: [`madang_core::room::RoomId`] (whose
/// [`parse`](madang_core::room::RoomId::parse) is the one rule) as an extractor, which a type of
/// another crate cannot be here. Derefs to it, so handlers hand `&id` straight to the service.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RoomId(madang_core::room::RoomId);

impl RoomId {
    /// `text` as a room id, if it has the shape of one ([`madang_core::room::RoomId::parse`]).
    pub fn parse(text: &str) -> Option<RoomId> {
        madang_core::room::RoomId::parse(text).map(RoomId)
    }

    /// The typed id, for what outlives the request.
    pub fn into_inner(self) -> madang_core::room::RoomId {
        self.0
    }
}

impl std::ops::Deref for RoomId {
    type Target = madang_core::room::RoomId;

    fn deref(&self) -> &madang_core::room::RoomId {
        &self.0
    }
}

impl std::fmt::Display for RoomId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
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
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAAAA").is_some_and(|id| id.as_str().len() == 22));
        assert!(RoomId::parse("abc-_0123456789xyzXYZ0").is_some());
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAAA").is_none());
        assert!(RoomId::parse(&"A".repeat(3000)).is_none());
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAAA=").is_none());
        assert!(RoomId::parse("AAAAAAAAAAAAAAAAAAAA가").is_none());
        assert_eq!(digest_of("x").len(), 8);
    }

    /// The arguments of the macro call whose text starts just past its `(`, split at the
    /// top-level commas.
    fn macro_args(text: &str) -> Vec<String> {
        let (mut depth, mut args, mut current, mut quoted) =
            (0usize, Vec::new(), String::new(), false);
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => quoted = !quoted,
                '\\' if quoted => {
                    current.push(c);
                    if let Some(next) = chars.next() {
                        current.push(next);
                    }
                    continue;
                }
                '(' | '[' | '{' if !quoted => depth += 1,
                ')' | ']' | '}' if !quoted && depth == 0 => break,
                ')' | ']' | '}' if !quoted => depth -= 1,
                ',' if !quoted && depth == 0 => {
                    args.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        args.push(current);
        args.into_iter().map(|a| a.trim().to_owned()).collect()
    }

    /// No log line of the server names a room by its id (the room's capability): every field of
    /// a `tracing` macro that names a room (`room`, `room_id`, `id`) is a digest. Read from the
    /// sources of this crate and the stores', so a new line is held to it too.
    #[test]
    fn no_log_line_carries_a_raw_room_id() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = vec![root.join("src"), root.join("../infra/src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        let mut raw = Vec::new();
        let mut seen = 0;
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            for level in ["trace!(", "debug!(", "info!(", "warn!(", "error!("] {
                for (at, _) in text.match_indices(&format!("tracing::{level}")) {
                    seen += 1;
                    let args = macro_args(&text[at + "tracing::".len() + level.len()..]);
                    for arg in args {
                        let (name, value) = match arg.split_once('=') {
                            Some((n, v)) if !n.contains('"') => (n.trim(), v.trim()),
                            _ => (arg.as_str(), arg.as_str()),
                        };
                        let names_a_room = name == "id" || name.contains("room");
                        let is_field = name.chars().all(|c| c.is_alphanumeric() || c == '_');
                        if names_a_room && is_field && !value.contains("digest") {
                            raw.push(format!("{}: {arg}", path.display()));
                        }
                    }
                }
            }
        }
        assert!(seen > 20, "the scan found the log lines ({seen})");
        assert!(raw.is_empty(), "room ids logged raw: {raw:#?}");
    }
}
