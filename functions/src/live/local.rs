//! `GET /live` on the local server: a WebSocket on the same router and port, woken by the app's
//! in-process announcer ([`crate::announce::LocalAnnouncer`]), which every save tells — a
//! request's, a read's catch-up, the sweeper's, the thinker's — because they all go through the
//! one save path.
//!
//! Bounds, each met with `RATE_LIMITED` or a close:
//! - per socket: [`super::MAX_FRAME_BYTES`] per frame (a larger one closes the socket),
//!   [`super::FRAME_BURST`] frames then [`super::FRAMES_PER_SECOND`],
//!   [`super::HELLOS_PER_CONNECTION`] hellos; a first hello within [`HELLO_WITHIN`]; like API
//!   Gateway, a close after [`IDLE`] without a frame from the client and after [`LIFETIME`] in
//!   all; and a client that does not take a frame within [`super::Live::send_timeout`] is
//!   dropped. Those timers run on while the server waits to send: no send waits past them.
//! - per client and per process: a socket keeps the places its HTTP connection held — under the
//!   serve loop's connection cap (the descriptor budget) and under its address's cap
//!   ([`crate::serve::ConnectionHold`]) — for as long as it is open; and the process-wide
//!   socket cap ([`super::Live::new`]).
//! - per room: [`super::CONNECTIONS_PER_ROOM`] sockets, of which at most
//!   [`super::SPECTATORS_PER_ROOM`] spectators (players always have the rest).
//! - per page: a browser's handshake from an origin other than the server's own (or one the
//!   operator names, [`super::AllowedOrigins`]) is refused 403 `ORIGIN_NOT_ALLOWED`.
//!
//! A socket never outlives its room: the room is looked at every [`ROOM_CHECK_EVERY`] and on
//! every change, and once it is gone the socket gets `ROOM_NOT_FOUND` and closes. It closes
//! (`1001`) when the server shuts down.
//!
//! Chat ([`super`], "Chat"): a post wakes the room's sockets through the announcer's chat wake;
//! each woken socket reads the log past the last record it passed on (the embedded store's
//! SQLite, no network) and sends `{"type":"chat","message":M}` for each message its viewer may
//! receive on the room as it is now. A socket passes on only what is posted after its hello.
//! The post committed before it woke the socket, so the read has it; a socket that cannot read
//! what it was woken for (the store failed) never skips it silently: it closes (`UNAVAILABLE`),
//! and its client reconnects and catches up with `GET /rooms/{id}/chat`.

use std::time::Duration;

use axum::Extension;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use madang_core::PlayerId;
use madang_core::room::RoomId;
use madang_infra::notify::Subscription;
use madang_infra::{ChatStore, RoomStore, StoreError};
use tokio::time::{Instant, sleep_until, timeout_at};

use super::{
    ClientFrame, FrameBudget, LiveError, MAX_FRAME_BYTES, RoomSlot, ServerFrame, ViewUrl, admit,
};
use crate::announce::Tell;
use crate::app::App;
use crate::error::{ApiError, Problem};
use crate::serve::ConnectionHold;
use crate::service::Loaded;
use crate::service::chat::{live_may_receive, log_after, message_json};

/// A new socket must say hello within this.
pub const HELLO_WITHIN: Duration = Duration::from_secs(10);
/// A socket the client sends nothing on for this long is closed (API Gateway: 10 minutes).
pub const IDLE: Duration = Duration::from_secs(10 * 60);
/// A socket is closed after this long in all (API Gateway: 2 hours); the client reconnects.
pub const LIFETIME: Duration = Duration::from_secs(2 * 60 * 60);
/// How often a watched room is looked at for expiry (a read of the store's cache).
pub const ROOM_CHECK_EVERY: Duration = Duration::from_secs(2);

/// The refusal of a handshake from a page of another origin.
const ORIGIN_NOT_ALLOWED: Problem = crate::error::ORIGIN_NOT_ALLOWED;

/// `GET /live`: upgrades to the live channel when the app's announcer wakes this process's
/// sockets ([`crate::announce::LocalAnnouncer`]); otherwise (the local server on DynamoDB, whose
/// other processes' saves would never wake them) there is no such route, and `liveUrl` is
/// `null`.
/// A browser page of another origin than the server's own or the operator's list is refused
/// 403 `ORIGIN_NOT_ALLOWED` before the upgrade.
pub async fn socket<S: RoomStore + ChatStore>(
    State(app): State<App<S>>,
    live: ViewUrl,
    hold: Option<Extension<ConnectionHold>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if app.announcer.local().is_none() {
        return crate::error::NO_SUCH_ROUTE.into_response();
    }
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    if !app
        .live
        .origins
        .allows(text(header::ORIGIN), text(header::HOST))
    {
        return ORIGIN_NOT_ALLOWED.into_response();
    }
    let Some(slot) = app.live.socket_slot() else {
        return ApiError::RateLimited {
            retry_after_secs: 5,
        }
        .into_response();
    };
    upgrade
        .max_message_size(MAX_FRAME_BYTES)
        .max_frame_size(MAX_FRAME_BYTES)
        .on_upgrade(move |socket| async move {
            // The connection's places go along with the socket (`ConnectionHold`).
            let hold = hold.map(|Extension(hold)| hold);
            run(&app, &live, socket, hold).await;
            drop(slot);
        })
}

/// The room one socket watches.
struct Watch<'a> {
    room: RoomId,
    subscription: Subscription<'a>,
    /// The last version sent.
    sent: u64,
    /// Who the hello's token belongs to; `None`: a spectator.
    player: Option<PlayerId>,
    /// The room's chat wake.
    chat: Subscription<'a>,
    /// The newest chat record passed on (sent, or not for this viewer).
    chat_read: u64,
    _slot: RoomSlot,
}

/// What woke a watching socket.
enum Woken {
    /// The room's version moved (`false`: the channel went).
    Version(bool),
    /// The room's chat has a new record.
    Chat,
}

/// How a socket's loop ends.
enum End {
    /// Send this error and close.
    Refuse(LiveError),
    /// Close without a word (the client went, or a limit of time).
    Close(u16),
    /// Drop the connection without another frame: the client did not take the last one in time.
    Drop,
}

/// One socket and the deadline none of its sends may pass.
struct Sender<'s> {
    socket: &'s mut WebSocket,
    send_timeout: Duration,
    /// The socket's own deadline now (idle, lifetime, first hello): a send never outlasts it.
    until: Instant,
}

impl Sender<'_> {
    /// Sends `text`; `Err` when the client did not take it within the send timeout or the
    /// socket's own deadline ([`End::Drop`]), or is gone ([`End::Close`]).
    async fn send(&mut self, text: String) -> Result<(), End> {
        let until = self.until.min(Instant::now() + self.send_timeout);
        match timeout_at(until, self.socket.send(Message::Text(text.into()))).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(End::Close(close_code::NORMAL)),
            Err(_) => Err(End::Drop),
        }
    }
}

async fn run<S: RoomStore + ChatStore>(
    app: &App<S>,
    live: &ViewUrl,
    mut socket: WebSocket,
    hold: Option<ConnectionHold>,
) {
    let end = serve_socket(app, live, &mut socket, hold).await;
    let (code, reason) = match end {
        End::Drop => return,
        End::Refuse(error) => {
            let frame = Message::Text(error.frame().into());
            if timeout_at(Instant::now() + app.live.send_timeout, socket.send(frame))
                .await
                .is_err()
            {
                return;
            }
            let code = match error {
                LiveError::BadMessage => close_code::PROTOCOL,
                LiveError::Unavailable => close_code::AGAIN,
                _ => close_code::POLICY,
            };
            (code, error.code())
        }
        End::Close(code) => (code, ""),
    };
    let close = Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }));
    let _ = timeout_at(Instant::now() + app.live.send_timeout, socket.send(close)).await;
}

async fn serve_socket<S: RoomStore + ChatStore>(
    app: &App<S>,
    live: &ViewUrl,
    socket: &mut WebSocket,
    mut hold: Option<ConnectionHold>,
) -> End {
    let Some(announcer) = app.announcer.local() else {
        return End::Close(close_code::POLICY);
    };
    let opened = Instant::now();
    let mut budget = FrameBudget::default();
    let mut watch: Option<Watch<'_>> = None;
    let mut heard = Instant::now();
    let mut check = Instant::now() + ROOM_CHECK_EVERY;
    loop {
        let quiet_until = if watch.is_some() {
            (heard + IDLE).min(opened + LIFETIME)
        } else {
            heard + HELLO_WITHIN
        };
        let watching = watch.is_some();
        let shutdown = async {
            match hold.as_mut() {
                Some(hold) => hold.shutdown().await,
                None => std::future::pending().await,
            }
        };
        let changed = async {
            match watch.as_mut() {
                Some(w) => tokio::select! {
                    alive = w.subscription.changed() => Woken::Version(alive.is_ok()),
                    // The chat channel lives as long as this subscription: it cannot go.
                    _ = w.chat.changed() => Woken::Chat,
                },
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            // Wakes first: whatever was announced before a client's frame is passed on before
            // that frame is answered (so a `pong` says everything posted before its `ping` was
            // sent), and a flood of frames cannot hold announcements back.
            biased;
            woken = changed => {
                let Some(w) = watch.as_mut() else { continue };
                let mut out = Sender { socket: &mut *socket, send_timeout: app.live.send_timeout, until: quiet_until };
                let sent = match woken {
                    Woken::Version(false) => return End::Close(close_code::AWAY),
                    Woken::Version(true) => {
                        let version = w.subscription.latest();
                        if version > w.sent {
                            send_version(app, live, &mut out, w, version).await
                        } else {
                            Ok(())
                        }
                    }
                    Woken::Chat => {
                        let posted = w.chat.latest();
                        send_chat(app, &mut out, w, posted).await
                    }
                };
                if let Err(end) = sent {
                    return end;
                }
            }
            () = shutdown => return End::Close(close_code::AWAY),
            frame = socket.recv() => {
                let text = match frame {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Binary(_))) => return End::Refuse(LiveError::BadMessage),
                    // Pings are answered by the socket itself; they still count as frames.
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                        heard = Instant::now();
                        if let Err(e) = budget.frame() {
                            return End::Refuse(e);
                        }
                        continue;
                    }
                    // Closed by the client, or a frame over the size limit.
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                        return End::Close(close_code::NORMAL);
                    }
                };
                heard = Instant::now();
                if let Err(e) = budget.frame() {
                    return End::Refuse(e);
                }
                let until = if watching {
                    (heard + IDLE).min(opened + LIFETIME)
                } else {
                    heard + HELLO_WITHIN
                };
                let mut out = Sender { socket: &mut *socket, send_timeout: app.live.send_timeout, until };
                match ClientFrame::parse(&text) {
                    Ok(ClientFrame::Ping) => {
                        if let Err(end) = out.send(ServerFrame::Pong.text()).await {
                            return end;
                        }
                    }
                    Ok(ClientFrame::Hello { room_id, token, since }) => {
                        if let Err(e) = budget.hello() {
                            return End::Refuse(e);
                        }
                        // Subscribe before reading, so a save between the read and the wait
                        // is still seen (the channel keeps the latest version).
                        let same_room = watch.as_ref().is_some_and(|w| w.room == room_id);
                        let mut subscription = announcer.versions(room_id.as_str());
                        // Likewise for chat: wake first, then where the log is now; what is
                        // posted from here on is passed on.
                        let chat = announcer.chat(room_id.as_str());
                        let admitted = match admit(app, &room_id, token.as_deref()).await {
                            Ok(admitted) => admitted,
                            Err(e) => return End::Refuse(e),
                        };
                        let chat_read = match app.store.chat_latest(&room_id).await {
                            Ok(latest) => latest.map_or(0, |c| c.seq),
                            Err(_) => return End::Refuse(LiveError::Unavailable),
                        };
                        // The same place when the room and the role stay; else the old place
                        // goes first, and the new one is taken by the role's bound.
                        let spectator = admitted.player.is_none();
                        let slot = match watch.take() {
                            Some(w) if same_room && w._slot.spectator == spectator => w._slot,
                            old => {
                                drop(old);
                                match app.live.room_slot(room_id.as_str(), spectator) {
                                    Ok(slot) => slot,
                                    Err(e) => return End::Refuse(e),
                                }
                            }
                        };
                        let version = admitted.version.max(subscription.latest());
                        let mut w = Watch {
                            room: room_id,
                            subscription,
                            sent: since,
                            player: admitted.player,
                            chat,
                            chat_read,
                            _slot: slot,
                        };
                        if version > since
                            && let Err(end) = send_version(app, live, &mut out, &mut w, version).await
                        {
                            return end;
                        }
                        watch = Some(w);
                        check = Instant::now() + ROOM_CHECK_EVERY;
                    }
                    Err(e) => return End::Refuse(e),
                }
            }
            () = sleep_until(check), if watching => {
                check = Instant::now() + ROOM_CHECK_EVERY;
                if let Some(w) = watch.as_ref() {
                    // A lost read is retried at the next check.
                    if let Err(StoreError::NotFound) = app.store.peek(&w.room, app.clock.now()).await
                    {
                        return End::Refuse(LiveError::RoomNotFound);
                    }
                }
            }
            () = sleep_until(quiet_until) => return End::Close(close_code::AWAY),
        }
    }
}

/// Sends `version` (once; versions only go up) with the socket's viewer's own room view, as
/// the AWS announcer does (`aws::version_frame`: the view read from the embedded store as it
/// is now, so its version may be newer; the version alone when the read fails or the frame
/// would pass one message unit); `Err` if the socket is gone or did not take it in time.
async fn send_version<S: RoomStore>(
    app: &App<S>,
    live: &ViewUrl,
    out: &mut Sender<'_>,
    watch: &mut Watch<'_>,
    version: u64,
) -> Result<(), End> {
    let now = app.clock.now();
    let (version, tell) = match app.store.peek(&watch.room, now).await {
        Ok(stored) if stored.version >= version => {
            let version = stored.version;
            match Loaded::from_stored(stored) {
                Ok(loaded) => {
                    let seated = watch.player.as_ref().is_none_or(|p| {
                        madang_core::with_room!(&loaded.room, r => r.present_ids().any(|q| q == p))
                    });
                    let view = loaded.view(watch.player.as_ref(), now).ok();
                    match view {
                        Some(view) if seated => (version, Tell::View(view.get().to_owned())),
                        _ => (version, Tell::Version),
                    }
                }
                Err(_) => (version, Tell::Version),
            }
        }
        _ => (version, Tell::Version),
    };
    watch.sent = version;
    let frame = super::aws::version_frame(live, version, tell)
        .unwrap_or_else(|| ServerFrame::version(version));
    out.send(frame).await
}

/// Sends the chat messages posted since the last records passed on that the socket's viewer
/// may receive, on the room as it is now (a member kicked or gone since gets none). `posted` is
/// the record the socket was woken for: the post committed before it woke the socket, so one
/// read has it. A read that fails — or, which never happens, that comes back without it — ends
/// the socket with `UNAVAILABLE` rather than pass a message over in silence: the client
/// reconnects and catches up by the poll (delivery is a hint, never the source of truth).
async fn send_chat<S: RoomStore + ChatStore>(
    app: &App<S>,
    out: &mut Sender<'_>,
    watch: &mut Watch<'_>,
    posted: u64,
) -> Result<(), End> {
    let room = match app.store.peek(&watch.room, app.clock.now()).await {
        Ok(stored) => match Loaded::from_stored(stored) {
            Ok(loaded) => loaded.room,
            Err(_) => return Err(End::Refuse(LiveError::Unavailable)),
        },
        Err(StoreError::NotFound) => return Err(End::Refuse(LiveError::RoomNotFound)),
        Err(_) => return Err(End::Refuse(LiveError::Unavailable)),
    };
    let now = app.clock.now();
    let Ok((messages, newest)) = log_after(&*app.store, &watch.room, watch.chat_read, now).await
    else {
        return Err(End::Refuse(LiveError::Unavailable));
    };
    if newest < posted {
        tracing::warn!(
            room = %crate::api::ids::digest_of(&watch.room),
            newest,
            posted,
            "live: the chat read missed the record it was woken for"
        );
        return Err(End::Refuse(LiveError::Unavailable));
    }
    watch.chat_read = newest;
    for message in messages {
        if !live_may_receive(&room, watch.player.as_ref(), &message) {
            continue;
        }
        let Ok(rendered) = message_json(&message) else {
            continue;
        };
        out.send(ServerFrame::Chat { message: &rendered }.text())
            .await?;
    }
    Ok(())
}
