//! The live channel's share of the app ([`crate::App::live`]): what `liveUrl` says, which pages
//! may open the channel, and the local sockets' bounds and places. Configuration and counters
//! only: the channel itself is [`super::local`] and [`super::aws`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{
    ALLOWED_ORIGINS_VAR, APP_ORIGIN_VAR, CONNECTIONS_PER_ROOM, LiveError, SEND_TIMEOUT,
    SEND_TIMEOUT_VAR, SPECTATORS_PER_ROOM,
};

/// Where clients find the live channel: what every room view's `liveUrl` says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LiveUrl {
    /// `ws://{Host}/live` (`wss://` behind `X-Forwarded-Proto: https`) when the app's announcer
    /// wakes this process's sockets (the local server on its embedded store), else `null`.
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

/// The origin of an absolute `ws://` or `wss://` URL ([`crate::origin::origin`]).
fn web_socket_origin(url: &str) -> Option<String> {
    crate::origin::origin(url, &["ws", "wss"])
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
    pub(super) fn socket_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.total.clone().try_acquire_owned().ok()
    }

    /// A place among `room`'s watchers, if it has one left: a `spectator` only while fewer
    /// than [`SPECTATORS_PER_ROOM`] spectators watch, and anyone only while fewer than
    /// [`CONNECTIONS_PER_ROOM`] sockets do. So players always find the places spectators
    /// cannot take.
    pub(super) fn room_slot(&self, room: &str, spectator: bool) -> Result<RoomSlot, LiveError> {
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
pub(super) struct RoomSlot {
    rooms: Arc<Mutex<HashMap<String, Places>>>,
    room: String,
    pub(super) spectator: bool,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
