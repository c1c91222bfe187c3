//! The live channel on AWS: API Gateway's WebSocket API (`$connect`, `$default`,
//! `$disconnect`, all on the `live` function) and the app's announcer there, [`AwsAnnouncer`].
//!
//! - **Connections** are registered in the rooms table at their hello
//!   ([`madang_infra::live_registry`]), with the table's TTL; `$disconnect` and a post that
//!   meets `410 Gone` remove them.
//! - **Every save that changes a room** — an action, a join, a rematch, a read's catch-up, the
//!   sweeper's, the bot function's — is told to the announcer by the one save path
//!   (`service::save::transact` calls [`Announcer::saved`] once the save landed), which reads
//!   the room's registry once (eventually consistent: half a unit) and posts `version` to each
//!   connection with `PostToConnection`, all at once.
//! - **Every chat message stored** goes the same way ([`Announcer::chat_posted`], called by the
//!   chat service once the post is stored): one read of the registry, then
//!   `{"type":"chat","message":M}` to each connection whose viewer may receive it — decided per
//!   connection from the registry's `player` (none: a spectator) by the chat service's one rule
//!   (`service::chat::live_may_receive`), on the room the post read strongly.
//! - **Bounded**: the whole announcement takes at most [`ANNOUNCE_BOUND`] on top of the
//!   action's answer, and never fails it: a post that is late or fails is dropped (delivery is a
//!   hint; clients converge by reading the room at its next deadline or on the next version).
//! - **Configuration**: one environment variable, `MADANG_LIVE_ENDPOINT`, the WebSocket API's
//!   stage URL (`https://{api}.execute-api.{region}.amazonaws.com/{stage}`): posts go to its
//!   `@connections`, and `liveUrl` is the same URL as `wss://`. Unset: no posts, no registry
//!   reads, `liveUrl` is `null`.
//!
//! Bounds on AWS, counted in the table (so across Lambda environments), each met with
//! `RATE_LIMITED` (or `BAD_MESSAGE`), the `error` frame and a close (`DeleteConnection`):
//! - per connection: [`super::MAX_FRAME_BYTES`] per frame, [`super::HELLOS_PER_CONNECTION`]
//!   hellos, and [`madang_infra::live_registry::FRAMES_PER_WINDOW`] frames a minute — a
//!   connection that floods is closed (one write per frame, which also renews the
//!   connection's TTL);
//! - per client (source address, IPv6 per /64):
//!   [`madang_infra::live_registry::MAX_PER_CLIENT`] registered connections;
//! - per room: [`madang_infra::live_registry::MAX_PER_ROOM`] connections, of which at most
//!   [`madang_infra::live_registry::MAX_SPECTATORS_PER_ROOM`] spectators';
//! - per page: `$connect` from a browser page of another origin than the deployment's own
//!   ([`super::APP_ORIGIN_VAR`]) or the operator's list ([`super::ALLOWED_ORIGINS_VAR`]) is
//!   answered 403, and API Gateway refuses the handshake;
//! - for everyone together, the stage's route throttle (`template.yaml`, docs/deploy.md).
//!
//! A heartbeat `ping` looks at the room: once the room is gone the connection gets
//! `ROOM_NOT_FOUND` and is closed, so a connection outlives its room by at most one heartbeat
//! (clients send one every 9 minutes).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use aws_sdk_apigatewaymanagement::Client as PostClient;
use aws_sdk_apigatewaymanagement::operation::post_to_connection::PostToConnectionError;
use aws_sdk_apigatewaymanagement::primitives::Blob;
use madang_core::room::RoomId;
use madang_infra::live_registry::{RegisterError, Watcher};
use madang_infra::{DynamoStore, RoomStore, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::Digest as _;
use tokio::task::JoinSet;

use super::{
    ClientFrame, HELLOS_PER_CONNECTION, LiveError, MAX_FRAME_BYTES, ServerFrame, ViewUrl, admit,
};
use crate::announce::{Announced, Announcer, Receives, Tell, Teller};
use crate::app::App;

/// API Gateway's WebSocket billing unit: a message is billed per 32 KB (of 1,024 bytes). A
/// `version` frame carries the receiver's room only when the whole frame fits in one.
pub const MESSAGE_UNIT: usize = 32 * 1024;

/// The longest an announcement may add to the answer of the save that caused it.
pub const ANNOUNCE_BOUND: Duration = Duration::from_millis(500);

/// The environment variable naming the WebSocket API's stage URL.
pub const ENDPOINT_VAR: &str = "MADANG_LIVE_ENDPOINT";

/// The announcer of the `api`, `sweeper`, `live` and `bot` functions: posts what landed to the
/// room's connections, as registered in the rooms table. Without an endpoint it posts nothing
/// and reads no registry.
#[derive(Clone, Debug)]
pub struct AwsAnnouncer {
    /// The rooms table, which holds the connection registry.
    store: DynamoStore,
    posts: Option<PostClient>,
    /// The views' `liveUrl` (from the same endpoint), spliced into the views announcements carry.
    url: Option<String>,
}

/// What one post came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Posted {
    /// Delivered to API Gateway.
    Sent,
    /// `410 Gone`: the connection is closed; its registration should go.
    Gone,
    /// Failed otherwise (logged).
    Failed,
}

/// `liveUrl` for the stage URL `endpoint`: the same URL over `wss://` (`ws://` for `http://`,
/// the emulator).
pub fn live_url(endpoint: &str) -> Option<String> {
    let endpoint = endpoint.trim_end_matches('/');
    if let Some(rest) = endpoint.strip_prefix("https://") {
        Some(format!("wss://{rest}"))
    } else {
        endpoint
            .strip_prefix("http://")
            .map(|rest| format!("ws://{rest}"))
    }
}

impl AwsAnnouncer {
    /// Posting through `posts` (`None`: no live channel) to the connections registered in
    /// `store`.
    pub fn new(store: DynamoStore, posts: Option<PostClient>) -> Self {
        AwsAnnouncer {
            store,
            posts,
            url: None,
        }
    }

    /// Posting to the endpoint `MADANG_LIVE_ENDPOINT` names, if it is set, to the connections
    /// registered in `store`.
    pub async fn from_env(store: DynamoStore) -> Self {
        let (posts, url) = match std::env::var(ENDPOINT_VAR) {
            Ok(endpoint) if !endpoint.trim().is_empty() => {
                let config = madang_infra::dynamo::sdk_config().load().await;
                let config = aws_sdk_apigatewaymanagement::config::Builder::from(&config)
                    .endpoint_url(endpoint.trim().trim_end_matches('/'))
                    .build();
                (
                    Some(PostClient::from_conf(config)),
                    live_url(endpoint.trim()),
                )
            }
            _ => (None, None),
        };
        AwsAnnouncer { store, posts, url }
    }

    /// Whether posts are configured.
    pub fn is_live(&self) -> bool {
        self.posts.is_some()
    }

    /// Posts one frame to one connection.
    pub async fn post(&self, connection: &str, text: &str) -> Posted {
        match &self.posts {
            Some(posts) => post(posts, connection, text.to_owned()).await,
            None => Posted::Failed,
        }
    }

    /// Sends `error` and closes the connection (API Gateway then runs `$disconnect`).
    pub async fn refuse(&self, connection: &str, error: LiveError) {
        let Some(posts) = &self.posts else { return };
        post(posts, connection, error.frame()).await;
        if let Err(e) = posts
            .delete_connection()
            .connection_id(connection)
            .send()
            .await
        {
            tracing::debug!(connection, error = %e, "live: close failed");
        }
    }
}

async fn post(posts: &PostClient, connection: &str, text: String) -> Posted {
    let sent = posts
        .post_to_connection()
        .connection_id(connection)
        .data(Blob::new(text.into_bytes()))
        .send()
        .await;
    // Counted for the operator (LivePosts, LiveGone, LivePostFailures: alarmed).
    use crate::metrics::{Metric, record};
    match sent {
        Ok(_) => {
            record(Metric::LivePost);
            Posted::Sent
        }
        Err(e)
            if matches!(
                e.as_service_error(),
                Some(PostToConnectionError::GoneException(_))
            ) =>
        {
            record(Metric::LiveGone);
            Posted::Gone
        }
        Err(e) => {
            tracing::warn!(connection, error = %e, "live: post failed");
            record(Metric::LivePostFailed);
            Posted::Failed
        }
    }
}

impl Announcer for AwsAnnouncer {
    fn saved<'a>(&'a self, id: &'a str, version: u64, tell: &'a Teller<'a>) -> Announced<'a> {
        Box::pin(self.announce(id, version, tell))
    }

    fn chat_posted<'a>(
        &'a self,
        id: &'a str,
        _seq: u64,
        message: &'a RawValue,
        may_receive: &'a Receives<'a>,
    ) -> Announced<'a> {
        Box::pin(async move {
            // The same frame for everyone who may receive it: rendered once.
            let frame = ServerFrame::Chat { message }.text();
            let frame_for = |w: &Watcher| may_receive(w.player.as_deref()).then(|| frame.clone());
            if !self.post_to_watchers(id, frame_for).await {
                tracing::warn!(room = %crate::api::ids::digest_of(id), "live: chat delivery cut at its bound");
            }
        })
    }
}

impl AwsAnnouncer {
    /// Posts `version` to the connections watching room `id`, each its viewer's frame.
    async fn announce(&self, id: &str, version: u64, tell: &Teller<'_>) {
        // One frame per distinct viewer (a player's, or the spectators'), made on first use:
        // a view is rendered once however many connections that viewer has.
        let frames: Mutex<HashMap<Option<String>, Option<String>>> = Mutex::default();
        let live = ViewUrl(self.url.clone());
        let frame_for = |watcher: &Watcher| {
            let mut frames = frames.lock().unwrap_or_else(|e| e.into_inner());
            frames
                .entry(watcher.player.clone())
                .or_insert_with(|| version_frame(&live, version, tell(watcher.player.as_deref())))
                .clone()
        };
        if !self.post_to_watchers(id, frame_for).await {
            tracing::warn!(room = %crate::api::ids::digest_of(id), version, "live: announcement cut at its bound");
        }
    }
}

/// The `version` frame for what [`Tell`] says: with the receiver's view (and `liveUrl`, as
/// `GET /rooms/{id}` has it) when the whole frame fits in one [`MESSAGE_UNIT`], else the version
/// alone; `None` for [`Tell::Nothing`].
pub fn version_frame(live: &ViewUrl, version: u64, tell: Tell) -> Option<String> {
    let view = match tell {
        Tell::Nothing => return None,
        Tell::Version => return Some(ServerFrame::version(version)),
        Tell::View(view) => view,
    };
    let Ok(view) = RawValue::from_string(view) else {
        return Some(ServerFrame::version(version));
    };
    let room = live.room(&view);
    let text = ServerFrame::Version {
        version,
        room: Some(&room),
    }
    .text();
    // Why: API Gateway bills a message per 32 KB unit; a larger view would cost more than the
    // read it saves, so the version alone goes and the app reads.
    Some(if text.len() <= MESSAGE_UNIT {
        text
    } else {
        ServerFrame::version(version)
    })
}

impl AwsAnnouncer {
    /// Posts to each connection watching room `id` the frame `frame_for` gives it (`None`: that
    /// connection gets nothing): one read of the room's registry (half a unit), then every post
    /// at once, a `410 Gone` deleting its registration — all within [`ANNOUNCE_BOUND`]. `false`
    /// when the bound cut it short. Version announcements and chat messages both go this way.
    pub async fn post_to_watchers(
        &self,
        id: &str,
        frame_for: impl Fn(&Watcher) -> Option<String>,
    ) -> bool {
        let Some(posts) = &self.posts else {
            return true;
        };
        let work = async {
            let watchers = match self.store.live_watchers(id).await {
                Ok(watchers) => watchers,
                Err(e) => {
                    tracing::warn!(room = %crate::api::ids::digest_of(id), error = %crate::error::chain(&e), "live: registry not read");
                    return;
                }
            };
            // All posts at once: the announcement takes as long as the slowest one.
            let mut sends = JoinSet::new();
            for watcher in watchers {
                let Some(text) = frame_for(&watcher) else {
                    continue;
                };
                let posts = posts.clone();
                sends.spawn(async move {
                    let posted = post(&posts, &watcher.connection, text).await;
                    (watcher, posted)
                });
            }
            while let Some(done) = sends.join_next().await {
                // The entry is known here: it goes even if the connection's record went first.
                if let Ok((watcher, Posted::Gone)) = done
                    && let Err(e) = self
                        .store
                        .live_forget(&watcher.connection, Some((id, watcher.player.is_none())))
                        .await
                {
                    let connection = watcher.connection;
                    tracing::warn!(connection, error = %crate::error::chain(&e), "live: gone connection not forgotten");
                }
            }
        };
        tokio::time::timeout(ANNOUNCE_BOUND, work).await.is_ok()
    }
}

/// An API Gateway WebSocket event, as the `live` function receives it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WsEvent {
    /// Which route and which connection.
    pub request_context: WsContext,
    /// The handshake's headers (`$connect` only).
    #[serde(default)]
    pub headers: Option<HashMap<String, String>>,
    /// The frame (`$default`).
    #[serde(default)]
    pub body: Option<String>,
    /// Whether `body` is base64 (a binary frame).
    #[serde(default)]
    pub is_base64_encoded: bool,
}

/// The part of [`WsEvent`] the function reads.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WsContext {
    /// `$connect`, `$disconnect` or `$default`.
    pub route_key: String,
    /// API Gateway's id of the connection.
    pub connection_id: String,
    /// Who is calling.
    #[serde(default)]
    pub identity: Option<WsIdentity>,
}

/// The caller of a [`WsEvent`].
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WsIdentity {
    /// The client's address as API Gateway saw it.
    #[serde(default)]
    pub source_ip: Option<String>,
}

impl WsEvent {
    /// A header of the handshake, whatever its case.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .as_ref()?
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// What the per-client bound counts: a digest of the source address (IPv6 per /64), never
    /// the address itself (the table keeps it for up to two hours).
    fn client(&self) -> String {
        let ip = self
            .request_context
            .identity
            .as_ref()
            .and_then(|i| i.source_ip.as_deref())
            .and_then(|ip| ip.parse::<std::net::IpAddr>().ok());
        let key = ip.map_or_else(
            || "unknown".to_owned(),
            |ip| crate::limits::client::key_of(ip).to_string(),
        );
        let sum = sha2::Sha256::digest(key.as_bytes());
        sum[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The function's answer to API Gateway.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WsAnswer {
    /// 200: accepted; on `$connect`, anything else refuses the handshake.
    pub status_code: u16,
}

/// Handles one WebSocket event. Frames are answered by posts, not by the return value (the
/// routes have no route responses), so every route answers 200 — but `$connect` from a page of
/// an origin that may not open the channel, which is answered 403.
/// Posts (frames, the refusal's close) go through `live`, the app's announcer.
pub async fn handle(app: &App<DynamoStore>, live: &AwsAnnouncer, event: WsEvent) -> WsAnswer {
    let connection = event.request_context.connection_id.as_str();
    match event.request_context.route_key.as_str() {
        // Nothing is stored until the first frame: a connection that never sends one costs
        // nothing but its minutes.
        "$connect" => {
            // The WebSocket API's own host is not the app's: only configured origins count.
            if !app.live.origins.allows(event.header("origin"), None) {
                return WsAnswer { status_code: 403 };
            }
        }
        "$disconnect" => {
            if let Err(e) = app.store.live_forget(connection, None).await {
                tracing::warn!(connection, error = %crate::error::chain(&e), "live: disconnect not recorded");
            }
        }
        _ => {
            if let Err(error) = frame(app, live, connection, &event).await {
                live.refuse(connection, error).await;
            }
        }
    }
    WsAnswer { status_code: 200 }
}

async fn frame(
    app: &App<DynamoStore>,
    live: &AwsAnnouncer,
    connection: &str,
    event: &WsEvent,
) -> Result<(), LiveError> {
    let body = event.body.as_deref().unwrap_or("");
    if event.is_base64_encoded || body.len() > MAX_FRAME_BYTES {
        return Err(LiveError::BadMessage);
    }
    // Every frame is counted; a connection that floods is closed.
    let room = app
        .store
        .live_frame(connection, app.clock.now())
        .await
        .map_err(refusal)?;
    match ClientFrame::parse(body)? {
        ClientFrame::Ping => {
            // The heartbeat also checks that the room still exists (a connection never
            // outlives its room by more than one heartbeat).
            if let Some(room) = room {
                // A failed read is no verdict: the next heartbeat looks again.
                // The registry keeps the id a hello gave, so it is a room id.
                let id = RoomId::parse(&room).ok_or(LiveError::RoomNotFound)?;
                if let Err(StoreError::NotFound) = app.store.peek(&id, app.clock.now()).await {
                    return Err(LiveError::RoomNotFound);
                }
            }
            live.post(connection, &ServerFrame::Pong.text()).await;
        }
        ClientFrame::Hello {
            room_id,
            token,
            since,
        } => {
            let admitted = admit(app, &room_id, token.as_deref()).await?;
            let player = admitted.player.as_ref().map(|p| p.as_str());
            app.store
                .live_register(
                    connection,
                    room_id.as_str(),
                    player,
                    &event.client(),
                    app.clock.now(),
                    u64::from(HELLOS_PER_CONNECTION),
                )
                .await
                .map_err(refusal)?;
            // A save that landed between the check and the registration read a registry
            // without this connection: one more cheap read catches it (half a unit).
            let version = match app.store.peek(&room_id, app.clock.now()).await {
                Ok(stored) => stored.version.max(admitted.version),
                Err(_) => admitted.version,
            };
            if version > since {
                live.post(connection, &ServerFrame::version(version)).await;
            }
        }
    }
    Ok(())
}

/// What a refused registration or frame closes the connection with; a failed store is logged.
fn refusal(e: RegisterError) -> LiveError {
    match e {
        RegisterError::Limited => LiveError::RateLimited,
        RegisterError::Store(e) => {
            tracing::warn!(error = %crate::error::chain(&e), "live: registry not written");
            LiveError::Unavailable
        }
    }
}
