//! The live channel (`docs/DESIGN.md`, "Live channel"): one WebSocket per app that announces a
//! room's new versions, so nobody has to poll for them.
//!
//! Client → server: `{"type":"hello","roomId":R,"token":T?,"since":V}` (no token: a spectator;
//! the token is never in the URL) and `{"type":"ping"}`. Server → client:
//! `{"type":"version","version":V}` at once when the room is already past `since` and after
//! every accepted change; `{"type":"pong"}`; `{"type":"chat","message":M}` for each chat
//! message the receiver may see ([`ServerFrame::Chat`], sent by [`chat`]); `{"type":"error","code":C}` and then a close, with `C` one of
//! `UNAUTHORIZED`, `ROOM_NOT_FOUND`, `BAD_MESSAGE`, `RATE_LIMITED`.
//!
//! Delivery is a hint, never the source of truth: a client reads the room (`since`, ETag) for
//! each version announced, and converges even when a message is lost.
//!
//! - [`local`]: `GET /live` on the local server, fed by the embedded store's notifier.
//! - [`aws`]: API Gateway's WebSocket API on Lambda — the connection registry in the rooms
//!   table and the `PostToConnection` announcer the save path calls.
//!
//! What both share lives here: the frames, the bounds, the hello check and `liveUrl`.

pub mod aws;
pub mod chat;
pub mod local;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, uri::Authority};
use madang_core::PlayerId;
use madang_core::room::TokenHash;
use madang_infra::notify::{Notifier, Subscription};
use madang_infra::{RoomStore, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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
/// Connections watching one room at once (players and spectators); more: `RATE_LIMITED`.
pub const CONNECTIONS_PER_ROOM: usize = 32;

/// A frame a client sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ClientFrame {
    /// Start (or move) watching a room.
    #[serde(rename_all = "camelCase")]
    Hello {
        /// The room to watch.
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
        let frame: ClientFrame = serde_json::from_str(text).map_err(|_| LiveError::BadMessage)?;
        if let ClientFrame::Hello { room_id, .. } = &frame
            && !is_room_id(room_id)
        {
            // Not an id the server ever hands out (and never one of the table's own `#` items).
            return Err(LiveError::RoomNotFound);
        }
        Ok(frame)
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
    /// A chat message the receiver may see (`docs/DESIGN.md`, "Chat"; sent by [`chat`]).
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

/// Whether `id` looks like a room id this server hands out (base64url, 1–64 characters).
fn is_room_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
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
    room_id: &str,
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

/// Where clients find the live channel: what every room view's `liveUrl` says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LiveUrl {
    /// `ws://{Host}/live` (`wss://` behind `X-Forwarded-Proto: https`) when this process's
    /// store announces its saves in process (the local server), else `null`.
    #[default]
    FromHost,
    /// This URL ([`LIVE_URL_VAR`] locally; on AWS the WebSocket API's, from
    /// `MADANG_LIVE_ENDPOINT`).
    Fixed(String),
    /// `null`: no live channel.
    Off,
}

/// The variable that fixes the local server's `liveUrl` (`ws://` or `wss://`, absolute): for a
/// server whose live channel clients reach at another address than its pages.
pub const LIVE_URL_VAR: &str = "MADANG_LIVE_URL";

impl LiveUrl {
    /// `url` as a fixed `liveUrl`: an absolute `ws://` or `wss://` URL with a plain host (and
    /// port); anything else is an error naming what is wrong.
    pub fn fixed(url: &str) -> Result<LiveUrl, String> {
        let url = url.trim();
        if web_socket_origin(url).is_none() {
            return Err(format!(
                "{LIVE_URL_VAR}={url} is not an absolute ws:// or wss:// URL with a plain host"
            ));
        }
        Ok(LiveUrl::Fixed(url.to_owned()))
    }

    /// `liveUrl` from [`LIVE_URL_VAR`] when it is set, else [`LiveUrl::FromHost`].
    pub fn from_env() -> Result<LiveUrl, String> {
        match std::env::var(LIVE_URL_VAR) {
            Ok(url) => LiveUrl::fixed(&url),
            Err(_) => Ok(LiveUrl::FromHost),
        }
    }

    /// The origin a page must be allowed to connect to for this `liveUrl` (its CSP's
    /// `connect-src`, `api::web`), when it is not the page's own: a fixed URL's
    /// `scheme://host[:port]`. `None` for [`LiveUrl::FromHost`] (the page's own origin, which
    /// `'self'` covers) and [`LiveUrl::Off`].
    pub fn foreign_origin(&self) -> Option<String> {
        match self {
            LiveUrl::Fixed(url) => web_socket_origin(url),
            LiveUrl::FromHost | LiveUrl::Off => None,
        }
    }
}

/// `scheme://host[:port]` of an absolute `ws://` or `wss://` URL, if its host is plain: letters,
/// digits, `.`, `-`, a port, or a bracketed IPv6 address. Nothing else can reach a CSP header,
/// where a `;` or a space would add a directive or a source.
fn web_socket_origin(url: &str) -> Option<String> {
    let uri: axum::http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str().filter(|s| *s == "ws" || *s == "wss")?;
    let authority = uri.authority()?.as_str();
    let plain = !authority.is_empty()
        && authority
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    plain.then(|| format!("{scheme}://{}", authority.to_ascii_lowercase()))
}

/// The live channel's share of the app: `liveUrl` and the local sockets' counters.
#[derive(Debug)]
pub struct Live {
    /// What `liveUrl` says.
    pub url: LiveUrl,
    /// Sockets open at once in this process (local server).
    total: Arc<Semaphore>,
    /// Sockets per watched room (local server).
    rooms: Arc<Mutex<HashMap<String, usize>>>,
    /// The chat wake of local sockets: a post sends the room's newest chat record number
    /// ([`chat`]). One channel per room some socket watches, gone with its last socket.
    chat: Notifier,
}

impl Default for Live {
    fn default() -> Self {
        Live::new(LiveUrl::default(), 1024)
    }
}

impl Live {
    /// `liveUrl` as `url`, and at most `max_sockets` local sockets at once.
    pub fn new(url: LiveUrl, max_sockets: usize) -> Self {
        Live {
            url,
            total: Arc::new(Semaphore::new(max_sockets)),
            rooms: Arc::default(),
            chat: Notifier::default(),
        }
    }

    /// The same, with `liveUrl` as `url`.
    pub fn with_url(mut self, url: LiveUrl) -> Self {
        self.url = url;
        self
    }

    /// Wakes this process's sockets watching `room`: its chat log has a new record, `seq`.
    pub fn chat_posted(&self, room: &str, seq: u64) {
        self.chat.notify(room, seq);
    }

    /// A subscription to `room`'s chat wake (a local socket's).
    fn chat_wake(&self, room: &str) -> Subscription<'_> {
        self.chat.subscribe(room)
    }

    /// A slot for one more local socket, if the process has one.
    fn socket_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.total.clone().try_acquire_owned().ok()
    }

    /// A place among `room`'s watchers, if it has one left ([`CONNECTIONS_PER_ROOM`]).
    fn room_slot(&self, room: &str) -> Result<RoomSlot, LiveError> {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        let n = rooms.entry(room.to_owned()).or_insert(0);
        if *n >= CONNECTIONS_PER_ROOM {
            return Err(LiveError::RateLimited);
        }
        *n += 1;
        Ok(RoomSlot {
            rooms: self.rooms.clone(),
            room: room.to_owned(),
        })
    }

    /// Sockets watching `room` now (tests and metrics).
    pub fn watchers(&self, room: &str) -> usize {
        let rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        rooms.get(room).copied().unwrap_or(0)
    }
}

/// One socket's place among a room's watchers; dropping it frees the place (and the room's
/// entry with the last one, so the map holds only watched rooms).
#[derive(Debug)]
struct RoomSlot {
    rooms: Arc<Mutex<HashMap<String, usize>>>,
    room: String,
}

impl Drop for RoomSlot {
    fn drop(&mut self) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = rooms.get_mut(&self.room) {
            *n -= 1;
            if *n == 0 {
                rooms.remove(&self.room);
            }
        }
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
            LiveUrl::FromHost if app.store.notifier().is_some() => from_host(parts),
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
            ClientFrame::parse(r#"{"type":"hello","roomId":"abc_-1","since":4}"#),
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
