//! The live channel (`docs/DESIGN.md`, "Live channel"): one WebSocket per app that announces a
//! room's new versions, so nobody has to poll for them.
//!
//! Client → server: `{"type":"hello","roomId":R,"token":T?,"since":V}` (no token: a spectator;
//! the token is never in the URL) and `{"type":"ping"}`. Server → client:
//! `{"type":"version","version":V}` at once when the room is already past `since` and after
//! every accepted change; `{"type":"pong"}`; `{"type":"chat","message":M}` for each chat
//! message the receiver may see ([`ServerFrame::Chat`]); `{"type":"error","code":C}` and then a
//! close, with `C` one of `UNAUTHORIZED`, `ROOM_NOT_FOUND`, `BAD_MESSAGE`, `RATE_LIMITED`.
//!
//! Delivery is a hint, never the source of truth: a client reads the room (`since`, ETag) for
//! each version announced, and converges even when a message is lost.
//!
//! The save path and the chat service tell the app's announcer ([`crate::announce`]) what
//! landed; this module is its two implementations and what they share:
//! - [`local`]: `GET /live` on the local server, woken by the in-process
//!   [`crate::announce::LocalAnnouncer`].
//! - [`aws`]: API Gateway's WebSocket API on Lambda — the connection registry in the rooms
//!   table and the `PostToConnection` announcer.
//!
//! What both share lives here: the frames, the bounds, the hello check and `liveUrl`.
//!
//! **Chat** (DESIGN "Live channel" and "Chat"): a message, once stored, is sent as
//! `{"type":"chat","message":M}` to exactly those live connections whose viewer may see it —
//! `M` exactly as `GET /rooms/{id}/chat` renders it ([`crate::service::chat::message_json`]),
//! the viewer's rights by the chat service's one rule
//! ([`crate::service::chat::live_may_receive`]).
//!
//! - **Local server**: the post wakes the room's sockets through the local announcer's chat wake
//!   (a `watch` channel per room that has a socket, so it holds at most one entry per watched
//!   room); each socket then reads the log past the last record it passed on and sends what its
//!   viewer may see on the room as it is now (so a member kicked or gone meanwhile gets none).
//! - **AWS**: the announcer reads the room's connection registry and posts to each connection
//!   its frame, decided per connection from the registry's `player`, within the same bound as a
//!   version's announcement ([`aws::ANNOUNCE_BOUND`]): a post never fails the chat answer, nor
//!   delays it beyond that.
//! - **No replay at hello**: the hello carries only the room's `since`. Delivery is a hint and
//!   the chat log is the source of truth, as the room is for versions: after a (re)connect a
//!   client fetches `GET /rooms/{id}/chat?after=N` once its hello is taken (the JS client
//!   follows its hello with a `ping`; the `pong` says the hello was handled), and from then on
//!   every message it may see also arrives over the socket.

pub mod aws;
pub mod local;
pub mod state;

use state::RoomSlot;
pub use state::{AllowedOrigins, LIVE_URL_VAR, Live, LiveUrl};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, uri::Authority};
use madang_core::PlayerId;
use madang_core::room::{RoomId, TokenHash};
use madang_infra::{RoomStore, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::app::App;
use crate::service::Loaded;

/// The largest frame a client may send, in bytes (a hello with a room id and a token is under
/// 150). Larger frames close the connection.
pub const MAX_FRAME_BYTES: usize = 1024;
/// Hellos one connection may send (moving between rooms, a rematch); more: `RATE_LIMITED`.
pub const HELLOS_PER_CONNECTION: u32 = 16;
/// Frames per second a connection may send on average, and in one burst; more: `RATE_LIMITED`.
pub const FRAMES_PER_SECOND: u32 = 5;
/// See [`FRAMES_PER_SECOND`].
pub const FRAME_BURST: u32 = 20;
/// Connections watching one room at once (players and spectators); more: `RATE_LIMITED`. The
/// same on AWS ([`madang_infra::live_registry::MAX_PER_ROOM`]).
pub const CONNECTIONS_PER_ROOM: usize = madang_infra::live_registry::MAX_PER_ROOM as usize;
/// Of a room's [`CONNECTIONS_PER_ROOM`] places, those spectators (a hello without a token) may
/// take; one more spectator is refused `RATE_LIMITED`. The other places are the seated
/// players' alone, so a crowd in the gallery can never keep a player off the live channel.
pub const SPECTATORS_PER_ROOM: usize =
    madang_infra::live_registry::MAX_SPECTATORS_PER_ROOM as usize;
/// How long the server waits for a client to take one frame (locally: the socket's send; it
/// never waits past the socket's idle or lifetime deadline either). A client that does not read
/// is closed after it, so it cannot pin a socket, its place, or the frames queued for it.
pub const SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// The environment variable naming, comma-separated, the origins other than the deployment's
/// own whose pages may open the live channel (`*`: any). CORS reads the same list
/// (`template.yaml`'s `AllowedOrigins`).
pub const ALLOWED_ORIGINS_VAR: &str = "MADANG_ALLOWED_ORIGINS";
/// The environment variable naming the deployment's own origin where the live channel is not
/// served from it (on AWS the WebSocket API has a host of its own): `https://app.example.com`.
pub const APP_ORIGIN_VAR: &str = "MADANG_APP_ORIGIN";
/// The environment variable that shortens [`SEND_TIMEOUT`] (milliseconds), for tests.
pub const SEND_TIMEOUT_VAR: &str = "MADANG_LIVE_SEND_TIMEOUT_MS";

/// A frame a client sends.
#[derive(Debug)]
pub enum ClientFrame {
    /// Start (or move) watching a room.
    Hello {
        /// The room to watch.
        room_id: RoomId,
        /// The player's token; absent for a spectator.
        token: Option<String>,
        /// The last version the client has seen (0: none).
        since: u64,
    },
    /// A heartbeat: answered `pong`.
    Ping,
}

/// A client frame as read, before its room id is checked.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum WireFrame {
    #[serde(rename_all = "camelCase")]
    Hello {
        room_id: String,
        /// The player's token; absent for a spectator.
        #[serde(default)]
        token: Option<String>,
        /// The last version the client has seen (0: none).
        #[serde(default)]
        since: u64,
    },
    /// A heartbeat: answered `pong`.
    Ping,
}

impl ClientFrame {
    /// Parses a text frame; anything else is `BAD_MESSAGE`.
    pub fn parse(text: &str) -> Result<Self, LiveError> {
        let frame: WireFrame = serde_json::from_str(text).map_err(|_| LiveError::BadMessage)?;
        Ok(match frame {
            WireFrame::Hello {
                room_id,
                token,
                since,
            } => ClientFrame::Hello {
                // Not an id the server ever hands out (and never one of the table's own `#`
                // items): the HTTP edge's one rule, so an id the edge refuses is refused here too.
                room_id: RoomId::parse(&room_id).ok_or(LiveError::RoomNotFound)?,
                token,
                since,
            },
            WireFrame::Ping => ClientFrame::Ping,
        })
    }
}

/// A frame the server sends.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ServerFrame<'a> {
    /// The room is at `version` now.
    Version {
        /// The room's version.
        version: u64,
        /// The receiver's own view of the room, when the sender has it at hand.
        #[serde(skip_serializing_if = "Option::is_none")]
        room: Option<&'a RawValue>,
    },
    /// The answer to `ping`.
    Pong,
    /// A chat message the receiver may see (`docs/DESIGN.md`, "Chat").
    Chat {
        /// The message `M`, as JSON text.
        message: &'a RawValue,
    },
    /// Why the connection is being closed.
    Error {
        /// A [`LiveError::code`].
        code: &'static str,
    },
}

impl ServerFrame<'_> {
    /// The frame as JSON text.
    pub fn text(&self) -> String {
        // Plain structs of strings and numbers: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `{"type":"version","version":V}`.
    pub fn version(version: u64) -> String {
        ServerFrame::Version {
            version,
            room: None,
        }
        .text()
    }
}

/// Why a connection is refused and closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LiveError {
    /// A token that belongs to nobody in the room.
    #[error("unauthorized")]
    Unauthorized,
    /// No such room (or it expired).
    #[error("room not found")]
    RoomNotFound,
    /// A frame that is not one of the protocol's.
    #[error("bad message")]
    BadMessage,
    /// Over one of the bounds (frames per second, hellos, connections per room).
    #[error("rate limited")]
    RateLimited,
    /// The store could not answer: the connection closes and the client reconnects later.
    #[error("store unavailable")]
    Unavailable,
}

impl LiveError {
    /// The `code` of the `error` frame.
    pub fn code(self) -> &'static str {
        match self {
            LiveError::Unauthorized => "UNAUTHORIZED",
            LiveError::RoomNotFound => "ROOM_NOT_FOUND",
            LiveError::BadMessage => "BAD_MESSAGE",
            LiveError::RateLimited => "RATE_LIMITED",
            // Not one of the contract's codes on purpose: the client treats it as a drop.
            LiveError::Unavailable => "UNAVAILABLE",
        }
    }

    /// The `error` frame.
    pub fn frame(self) -> String {
        ServerFrame::Error { code: self.code() }.text()
    }
}

/// Who a hello admitted: the player (or `None` for a spectator) and the room's version now.
#[derive(Debug)]
pub struct Admitted {
    /// The player the token belongs to; `None`: a spectator.
    pub player: Option<PlayerId>,
    /// The room's version as read.
    pub version: u64,
    /// When the room expires (epoch ms, server clock).
    pub expires_at: u64,
}

/// Checks a hello against the room: it must exist and the token, if any, must be one of its
/// players'. One cheap read ([`RoomStore::peek`]: half a unit on DynamoDB), nothing written.
pub async fn admit<S: RoomStore>(
    app: &App<S>,
    room_id: &RoomId,
    token: Option<&str>,
) -> Result<Admitted, LiveError> {
    let stored = match app.store.peek(room_id, app.clock.now()).await {
        Ok(stored) => stored,
        Err(StoreError::NotFound) => return Err(LiveError::RoomNotFound),
        Err(e) => {
            tracing::warn!(room = %crate::api::ids::digest_of(room_id), error = %crate::error::chain(&e), "live hello: room not read");
            return Err(LiveError::Unavailable);
        }
    };
    let (version, expires_at) = (stored.version, stored.expires_at);
    let loaded = Loaded::from_stored(stored).map_err(|_| LiveError::Unavailable)?;
    let player = match token {
        Some(token) => Some(
            loaded
                .authenticate(&TokenHash::of(token))
                .ok_or(LiveError::Unauthorized)?,
        ),
        None => None,
    };
    Ok(Admitted {
        player,
        version,
        expires_at,
    })
}

/// A token bucket over one connection's frames.
#[derive(Debug)]
pub struct FrameBudget {
    tokens: f64,
    last: std::time::Instant,
    hellos: u32,
}

impl Default for FrameBudget {
    fn default() -> Self {
        FrameBudget {
            tokens: f64::from(FRAME_BURST),
            last: std::time::Instant::now(),
            hellos: 0,
        }
    }
}

impl FrameBudget {
    /// Takes one frame from the budget; `RATE_LIMITED` when it is spent.
    pub fn frame(&mut self) -> Result<(), LiveError> {
        let now = std::time::Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * f64::from(FRAMES_PER_SECOND);
        self.tokens = (self.tokens + refill).min(f64::from(FRAME_BURST));
        self.last = now;
        if self.tokens < 1.0 {
            return Err(LiveError::RateLimited);
        }
        self.tokens -= 1.0;
        Ok(())
    }

    /// Counts one hello; `RATE_LIMITED` past [`HELLOS_PER_CONNECTION`].
    pub fn hello(&mut self) -> Result<(), LiveError> {
        self.hellos += 1;
        if self.hellos > HELLOS_PER_CONNECTION {
            return Err(LiveError::RateLimited);
        }
        Ok(())
    }
}

/// The `liveUrl` of one request's room views.
#[derive(Clone, Debug)]
pub struct ViewUrl(pub Option<String>);

impl<S: RoomStore> FromRequestParts<App<S>> for ViewUrl {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, app: &App<S>) -> Result<Self, Self::Rejection> {
        Ok(ViewUrl(match &app.live.url {
            LiveUrl::Fixed(url) => Some(url.clone()),
            LiveUrl::Off => None,
            LiveUrl::FromHost if app.announcer.local().is_some() => from_host(parts),
            LiveUrl::FromHost => None,
        }))
    }
}

/// `ws://{Host}/live`, or `wss://` when a proxy says the client came over HTTPS; `None` when the
/// Host header is missing or not a plain authority.
fn from_host(parts: &Parts) -> Option<String> {
    let host = parts.headers.get(header::HOST)?.to_str().ok()?;
    let authority: Authority = host.parse().ok()?;
    if authority.as_str().contains('@') {
        return None;
    }
    let https = parts
        .headers
        .get("x-forwarded-proto")
        .is_some_and(|p| p.as_bytes().eq_ignore_ascii_case(b"https"));
    let scheme = if https { "wss" } else { "ws" };
    Some(format!("{scheme}://{authority}/live"))
}

impl ViewUrl {
    /// The room view with `liveUrl` as its last member. The view is JSON text already (rendered
    /// once, `service::view_json`): the member is spliced in before its closing brace rather
    /// than re-rendering the view.
    pub fn room(&self, room: &RawValue) -> Box<RawValue> {
        let text = room.get().trim_end();
        let url = serde_json::to_string(&self.0).unwrap_or_else(|_| "null".into());
        let Some(open) = text.strip_suffix('}') else {
            return room.to_owned();
        };
        let comma = if open.trim_end().ends_with('{') {
            ""
        } else {
            ","
        };
        RawValue::from_string(format!("{open}{comma}\"liveUrl\":{url}}}"))
            .unwrap_or_else(|_| room.to_owned())
    }
}

impl ViewUrl {
    /// The error with `liveUrl` in its room view, when it carries one (409 `VERSION_CONFLICT`).
    pub fn conflict(&self, error: crate::ApiError) -> crate::ApiError {
        match error {
            crate::ApiError::VersionConflict { room } => crate::ApiError::VersionConflict {
                room: self.room(&room),
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_url_is_spliced_into_the_view() {
        let room = RawValue::from_string(r#"{"roomId":"a","version":3}"#.into()).unwrap();
        let url = ViewUrl(Some("ws://h:1/live".into()));
        let spliced: serde_json::Value = serde_json::from_str(url.room(&room).get()).unwrap();
        assert_eq!(spliced["liveUrl"], "ws://h:1/live");
        assert_eq!(spliced["version"], 3);
        let none: serde_json::Value =
            serde_json::from_str(ViewUrl(None).room(&room).get()).unwrap();
        assert!(none["liveUrl"].is_null());
    }

    #[test]
    fn frames_parse_and_refuse() {
        assert!(matches!(
            ClientFrame::parse(r#"{"type":"hello","roomId":"abc_-1AAAAAAAAAAAAAAAA","since":4}"#),
            Ok(ClientFrame::Hello {
                since: 4,
                token: None,
                ..
            })
        ));
        assert!(matches!(
            ClientFrame::parse(r#"{"type":"ping"}"#),
            Ok(ClientFrame::Ping)
        ));
        assert_eq!(
            ClientFrame::parse(r##"{"type":"hello","roomId":"#clock"}"##).unwrap_err(),
            LiveError::RoomNotFound
        );
        // The edge's rule: exactly 22 characters (a shorter or longer id is no room's).
        for id in ["abc_-1", "AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAA"] {
            assert_eq!(
                ClientFrame::parse(&format!(r#"{{"type":"hello","roomId":"{id}"}}"#)).unwrap_err(),
                LiveError::RoomNotFound
            );
        }
        assert_eq!(
            ClientFrame::parse("nope").unwrap_err(),
            LiveError::BadMessage
        );
        assert_eq!(
            ClientFrame::parse(r#"{"type":"hello"}"#).unwrap_err(),
            LiveError::BadMessage
        );
    }
}
