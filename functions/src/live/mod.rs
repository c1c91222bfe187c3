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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, uri::Authority};
use madang_core::PlayerId;
use madang_core::room::TokenHash;
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

/// Which pages may open the live channel, by their `Origin` (a browser sends it with every
/// WebSocket handshake; other clients send none and are let in — the bounds on the channel are
/// what holds them). A page of the deployment's own origin always may: locally the one whose
/// host is the request's `Host`, on AWS the one [`APP_ORIGIN_VAR`] names. Others only when the
/// operator names them ([`ALLOWED_ORIGINS_VAR`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedOrigins {
    /// Any origin (`*` in the list).
    any: bool,
    /// Exact origins (`scheme://host[:port]`, lowercase, no trailing slash).
    origins: Vec<String>,
}

impl AllowedOrigins {
    /// The origins in a comma-separated `list` (`*` for any); blanks are skipped.
    pub fn parse(list: &str) -> Self {
        let mut allowed = AllowedOrigins::default();
        for origin in list.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            if origin == "*" {
                allowed.any = true;
            } else {
                allowed
                    .origins
                    .push(origin.trim_end_matches('/').to_ascii_lowercase());
            }
        }
        allowed
    }

    /// [`ALLOWED_ORIGINS_VAR`] and [`APP_ORIGIN_VAR`] from the environment (neither set: only
    /// the request's own host).
    pub fn from_env() -> Self {
        let mut list = std::env::var(ALLOWED_ORIGINS_VAR).unwrap_or_default();
        if let Ok(own) = std::env::var(APP_ORIGIN_VAR) {
            list.push(',');
            list.push_str(&own);
        }
        AllowedOrigins::parse(&list)
    }

    /// Whether a handshake with this `Origin` header (`None`: none sent) may open the channel;
    /// `host` is the request's `Host` (its own origin's authority), where the channel is served
    /// from the app's own host.
    pub fn allows(&self, origin: Option<&str>, host: Option<&str>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        if self.any {
            return true;
        }
        let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        let authority = origin.split_once("://").map(|(_, rest)| rest);
        if let (Some(authority), Some(host)) = (authority, host)
            && authority.eq_ignore_ascii_case(host.trim())
        {
            return true;
        }
        self.origins.contains(&origin)
    }
}

/// The live channel's share of the app: `liveUrl` and the local sockets' counters.
#[derive(Debug)]
pub struct Live {
    /// What `liveUrl` says.
    pub url: LiveUrl,
    /// Which pages may open the channel (local server: `GET /live`; AWS: `$connect`).
    pub origins: AllowedOrigins,
    /// How long a local socket waits for its client to take a frame ([`SEND_TIMEOUT`]).
    pub send_timeout: std::time::Duration,
    /// Sockets open at once in this process (local server).
    total: Arc<Semaphore>,
    /// Places taken per watched room (local server).
    rooms: Arc<Mutex<HashMap<String, Places>>>,
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
            origins: AllowedOrigins::default(),
            send_timeout: SEND_TIMEOUT,
            total: Arc::new(Semaphore::new(max_sockets)),
            rooms: Arc::default(),
        }
    }

    /// The same, with `liveUrl` as `url`.
    pub fn with_url(mut self, url: LiveUrl) -> Self {
        self.url = url;
        self
    }

    /// The defaults, with the allowed origins ([`AllowedOrigins::from_env`]) and
    /// [`SEND_TIMEOUT_VAR`] from the environment; a send timeout that does not parse is an
    /// error.
    pub fn from_env() -> Result<Self, String> {
        let mut live = Live {
            origins: AllowedOrigins::from_env(),
            ..Live::default()
        };
        if let Ok(v) = std::env::var(SEND_TIMEOUT_VAR) {
            let ms: u64 = v
                .trim()
                .parse()
                .ok()
                .filter(|ms| *ms > 0)
                .ok_or(format!("{SEND_TIMEOUT_VAR}={v} is not a positive number"))?;
            live.send_timeout = std::time::Duration::from_millis(ms);
        }
        Ok(live)
    }

    /// A slot for one more local socket, if the process has one.
    fn socket_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.total.clone().try_acquire_owned().ok()
    }

    /// A place among `room`'s watchers, if it has one left: a `spectator` only while fewer
    /// than [`SPECTATORS_PER_ROOM`] spectators watch, and anyone only while fewer than
    /// [`CONNECTIONS_PER_ROOM`] sockets do. So players always find the places spectators
    /// cannot take.
    fn room_slot(&self, room: &str, spectator: bool) -> Result<RoomSlot, LiveError> {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        let places = rooms.entry(room.to_owned()).or_default();
        if places.all >= CONNECTIONS_PER_ROOM
            || (spectator && places.spectators >= SPECTATORS_PER_ROOM)
        {
            return Err(LiveError::RateLimited);
        }
        places.all += 1;
        places.spectators += usize::from(spectator);
        Ok(RoomSlot {
            rooms: self.rooms.clone(),
            room: room.to_owned(),
            spectator,
        })
    }

    /// Sockets watching `room` now (tests and metrics).
    pub fn watchers(&self, room: &str) -> usize {
        let rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        rooms.get(room).map_or(0, |p| p.all)
    }
}

/// The places taken in one room: by everyone, and of them by spectators.
#[derive(Debug, Default)]
struct Places {
    all: usize,
    spectators: usize,
}

/// One socket's place among a room's watchers; dropping it frees the place (and the room's
/// entry with the last one, so the map holds only watched rooms).
#[derive(Debug)]
struct RoomSlot {
    rooms: Arc<Mutex<HashMap<String, Places>>>,
    room: String,
    spectator: bool,
}

impl Drop for RoomSlot {
    fn drop(&mut self) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(places) = rooms.get_mut(&self.room) {
            places.all -= 1;
            places.spectators -= usize::from(self.spectator);
            if places.all == 0 {
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
    fn a_page_may_open_the_channel_from_its_own_origin_or_a_named_one() {
        let own_only = AllowedOrigins::parse("");
        assert!(
            own_only.allows(None, Some("h:1")),
            "no Origin: not a browser"
        );
        assert!(own_only.allows(Some("http://h:1"), Some("h:1")));
        assert!(own_only.allows(Some("https://H:1/"), Some("h:1")));
        assert!(!own_only.allows(Some("http://evil.example"), Some("h:1")));
        assert!(!own_only.allows(Some("http://h:2"), Some("h:1")));
        assert!(!own_only.allows(Some("null"), Some("h:1")));
        assert!(!own_only.allows(Some("http://h:1"), None));
        let named = AllowedOrigins::parse(" https://app.example.com/ , http://localhost:5173");
        assert!(named.allows(Some("https://app.example.com"), Some("api.example.com")));
        assert!(named.allows(Some("http://localhost:5173"), None));
        assert!(!named.allows(Some("https://app.example.com.evil"), None));
        assert!(AllowedOrigins::parse("*").allows(Some("http://anyone"), None));
    }

    #[test]
    fn spectators_never_take_the_players_places() {
        let live = Live::default();
        let spectators: Vec<_> = (0..SPECTATORS_PER_ROOM)
            .map(|_| live.room_slot("r", true).unwrap())
            .collect();
        assert_eq!(
            live.room_slot("r", true).unwrap_err(),
            LiveError::RateLimited
        );
        let players: Vec<_> = (SPECTATORS_PER_ROOM..CONNECTIONS_PER_ROOM)
            .map(|_| live.room_slot("r", false).unwrap())
            .collect();
        assert_eq!(
            live.room_slot("r", false).unwrap_err(),
            LiveError::RateLimited
        );
        assert_eq!(live.watchers("r"), CONNECTIONS_PER_ROOM);
        drop(spectators);
        drop(players);
        assert_eq!(live.watchers("r"), 0);
        assert!(
            live.rooms.lock().unwrap().is_empty(),
            "no entry left behind"
        );
        assert!(live.room_slot("other", true).is_ok());
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
