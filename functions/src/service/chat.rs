//! Table talk: posting a message, reading the messages the caller may see, and the host's mute.
//!
//! Chat never goes through [`super::save::transact`]: it changes no room. A request reads the
//! room (to know who is asking and what they may see), then works on the room's chat log alone
//! ([`ChatStore`]): a post reads the log's newest record (it holds the rate and the mutes), builds
//! the next one and appends it where the number is free, starting over from the read when another
//! post took the number first. So chat never changes the room's version, never costs a write on
//! the room's record, and can never make a pinned action 409.
//!
//! Who sees what is decided in one place, [`madang_core::chat::ChatMessage::visible_to`]; the
//! poll applies it through [`may_receive`], and so does the live channel (DESIGN "Live
//! channel"): once a post is stored, the app's announcer is told ([`crate::announce`]), which
//! sends `{"type":"chat","message":M}` (`M` from [`message_json`], exactly as the poll renders
//! it) to each connection of the room for which [`live_may_receive`] holds.

use madang_core::chat::{
    Audience, ChatBody, ChatError, ChatMessage, ChatRecord, ChatText, KEPT_MESSAGES, Viewer,
    spectator_key,
};
use madang_core::room::{AnyRoom, LOBBY_TTL_MS, RoomId, TokenHash};
use madang_core::{Millis, PlayerId, with_room};
use madang_infra::{ChatStore, RoomStore, StoreError, StoredChat};

use super::save::Loaded;
use crate::announce::Announcer;
use crate::app::App;
use crate::error::ApiError;

/// Appends that lost the race for a number are retried from the read this many times; past it
/// the post is refused 503 `ROOM_BUSY` (nothing was written).
const APPEND_ATTEMPTS: usize = 8;

/// How long a room's chat may outlive the room: a record expires at the room's expiry as the
/// post read it, plus this (DynamoDB's TTL deletes it some time after; the embedded store
/// deletes a room's chat with the room). Reads go through the room, so nothing is served after
/// the room is gone.
pub const CHAT_GRACE_MS: Millis = 60 * 60 * 1000;

/// What a post says, parsed at the edge.
#[derive(Clone, Debug)]
pub enum Said {
    /// Free text, still to be checked against the name rules.
    Text(String),
    /// One of the game's emotes, still to be looked up.
    Emote(String),
}

/// `POST /rooms/{id}/chat`, parsed.
#[derive(Clone, Debug)]
pub struct ChatPost {
    /// What is said.
    pub said: Said,
    /// `"to": "team"`: only the sender's team.
    pub to_team: bool,
    /// A spectator's display name (spectators only: a player's name is their seat's).
    pub name: Option<String>,
}

/// Who is posting.
enum Sender {
    Player { id: PlayerId, name: String },
    Spectator { name: String, key: String },
}

/// The room a chat request is about, read for who is asking (never written).
async fn room_of<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    consistent: bool,
) -> Result<AnyRoom, ApiError> {
    let now = app.clock.now();
    let stored = if consistent {
        app.store.load(id, now).await?
    } else {
        app.store.peek(id, now).await?
    };
    Ok(Loaded::from_stored(stored)
        .map_err(|e| ApiError::Internal(Box::new(e)))?
        .room)
}

/// The member a token belongs to; 401 for a token of nobody seated (a departed or kicked
/// member's token no longer authenticates).
fn member(room: &AnyRoom, token: &TokenHash) -> Result<PlayerId, ApiError> {
    with_room!(room, r => r.authenticate(token).cloned()).ok_or(ApiError::Unauthorized)
}

/// Whether the holder of `viewer`'s seat (`None`: a spectator) may receive `message` in `room`:
/// the one check the poll and the live channel share.
pub fn may_receive(room: &AnyRoom, viewer: Option<&PlayerId>, message: &ChatMessage) -> bool {
    let viewer = with_room!(room, r => r.chat_viewer(viewer));
    message.visible_to(&viewer)
}

/// Whether a live connection of `player` (`None`: a spectator's) receives `message` in `room`
/// as it is now: a seat's connection only while its holder is still present — seated and not
/// gone. A member who left the lobby, was kicked, or left a running or finished game (the seat
/// stays, marked left) no longer reads the chat with their token (401), so their socket gets
/// none either, of the room's talk or their old team's. Then exactly what [`may_receive`] says.
/// Every socket applies this to the room as it is when the message goes out, so rights follow
/// the seat from one message to the next, whatever changed in between.
pub fn live_may_receive(room: &AnyRoom, player: Option<&PlayerId>, message: &ChatMessage) -> bool {
    if let Some(player) = player
        && !with_room!(room, r => r.present_ids().any(|p| p == player))
    {
        return false;
    }
    may_receive(room, player, message)
}

/// The messages of room `id`'s log numbered above `after` that have not expired at `now`,
/// oldest first, whoever may see them, and the newest record number read (`after` when none; a
/// mute is a record without a message, so the number can pass the last message's).
pub async fn log_after<S: ChatStore>(
    store: &S,
    id: &RoomId,
    after: u64,
    now: Millis,
) -> Result<(Vec<ChatMessage>, u64), ApiError> {
    let records = store.chat_after(id, after, KEPT_MESSAGES as usize).await?;
    let newest = records.last().map_or(after, |r| r.seq);
    let mut messages = Vec::with_capacity(records.len());
    // Expiries never go down along the log: what expired is a run of its oldest records (still
    // stored until DynamoDB's TTL gets to them).
    for stored in records.into_iter().filter(|r| r.expires_at > now) {
        let record =
            ChatRecord::decode(&stored.body).map_err(|e| ApiError::Internal(Box::new(e)))?;
        messages.extend(record.message);
    }
    Ok((messages, newest))
}

/// `M` as JSON text, for the live channel's `ServerFrame::Chat { message }` (the frame
/// `{"type":"chat","message":M}`): `ServerFrame::Chat { message: &message_json(&m)? }.text()`.
pub fn message_json(message: &ChatMessage) -> Result<Box<serde_json::value::RawValue>, ApiError> {
    serde_json::value::to_raw_value(&message.view()).map_err(|e| ApiError::Internal(Box::new(e)))
}

/// The newest record of a room's chat that has not expired at `now`, decoded, with its number
/// and expiry (`None`: nobody chatted yet, or the whole log expired — expiries never go down
/// along it, so the newest record expires last).
async fn latest<S: ChatStore>(
    store: &S,
    id: &RoomId,
    now: Millis,
) -> Result<Option<(u64, Millis, ChatRecord)>, ApiError> {
    match store.chat_latest(id).await? {
        Some(stored) if stored.expires_at > now => {
            let record =
                ChatRecord::decode(&stored.body).map_err(|e| ApiError::Internal(Box::new(e)))?;
            Ok(Some((stored.seq, stored.expires_at, record)))
        }
        _ => Ok(None),
    }
}

/// The number before a room's first record when its log holds none alive at `now`. Numbers
/// only ever grow, so a client's `after` never skips a new message: 0 while the room is too
/// young for any record to have expired (each expires at least a lobby's life plus the grace
/// after the room's creation — so the first message is 1); after that the log may have expired
/// whole while the room lived on (it changed without chat for longer than its chat's expiry),
/// and the numbers go on from the milliseconds the room has lived, more than it can have used
/// (a record takes a read and a conditional write, and the rate allows a few a second).
fn first_seq(room: &AnyRoom, now: Millis) -> u64 {
    let created = with_room!(room, r => r.created_at);
    let young = created.saturating_add(LOBBY_TTL_MS + CHAT_GRACE_MS);
    if now < young { 0 } else { now - created }
}

/// Builds the next record from the newest one with `change` and appends it, starting over when
/// another writer took the number first. Returns the new record's number. `change` refusing
/// leaves everything as it was. Every new record forgets the mutes and rates of members no
/// longer present in `room` (as the request read it), and expires at the room's expiry plus
/// [`CHAT_GRACE_MS`] — never before the record it follows.
async fn append<S: RoomStore + ChatStore>(
    app: &App<S>,
    id: &RoomId,
    room: &AnyRoom,
    mut change: impl FnMut(u64, &mut ChatRecord) -> Result<bool, ApiError>,
) -> Result<u64, ApiError> {
    let now = app.clock.now();
    let present: Vec<PlayerId> = with_room!(room, r => r.present_ids().cloned().collect());
    let expiry = room.expires_at().saturating_add(CHAT_GRACE_MS);
    for _ in 0..APPEND_ATTEMPTS {
        let (seq, before, mut record) = match latest(&*app.store, id, now).await? {
            Some(newest) => newest,
            None => (first_seq(room, now), 0, ChatRecord::default()),
        };
        record.message = None;
        record.head.keep_present(|p| present.contains(p));
        let next = seq + 1;
        if !change(next, &mut record)? {
            return Ok(seq);
        }
        let stored = StoredChat {
            seq: next,
            body: record.encode(),
            expires_at: expiry.max(before),
        };
        match app.store.chat_append(id, &stored).await {
            Ok(()) => return Ok(next),
            // Someone else's record took the number: read it and build on it.
            Err(StoreError::VersionConflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::Busy)
}

/// Posts one message for the holder of `token` (a player) or for a spectator (no token: `name`
/// required). `client` is the spectator's address key for the rate. Returns the message's `seq`.
pub async fn post<S: RoomStore + ChatStore>(
    app: &App<S>,
    id: &RoomId,
    token: Option<&TokenHash>,
    client: u64,
    request: ChatPost,
) -> Result<u64, ApiError> {
    // A strongly consistent read: a member kicked a moment ago must not post.
    let room = room_of(app, id, true).await?;
    let sender = match (token, request.name) {
        (Some(token), None) => {
            let id = member(&room, token)?;
            let name =
                with_room!(&room, r => r.member(&id).map(|m| m.name.clone())).unwrap_or_default();
            Sender::Player { id, name }
        }
        (Some(_), Some(_)) => {
            return Err(ApiError::Malformed(
                "참가자의 이름은 자리에서 정해져요. name은 관전자만 보내요.".into(),
            ));
        }
        // Not a seated member's name nor a computer player's, compared folded (NFKC and
        // look-alikes): the gallery cannot speak as a player.
        (None, Some(name)) => Sender::Spectator {
            name: with_room!(&room, r => madang_core::room::spectator_name(
                &name,
                r.seats.iter().map(|m| m.name.as_str()),
            ))?
            .to_string(),
            key: spectator_key(client),
        },
        (None, None) => return Err(ApiError::Unauthorized),
    };
    let body = match request.said {
        Said::Text(text) => ChatBody::text(ChatText::parse(&text)?),
        Said::Emote(emote) => ChatBody::emote(room.kind(), &emote)?,
    };
    body.allowed(with_room!(&room, r => r.chat_setting()))?;
    let audience = match (&sender, request.to_team) {
        (Sender::Player { id, .. }, true) => {
            match with_room!(&room, r => r.chat_viewer(Some(id))) {
                Viewer::Player {
                    team: Some(team), ..
                } => Audience::Team(team),
                _ => return Err(ChatError::NoTeam.into()),
            }
        }
        (Sender::Player { .. }, false) => Audience::Room,
        (Sender::Spectator { .. }, true) => return Err(ChatError::NoTeam.into()),
        (Sender::Spectator { .. }, false) => Audience::Spectators,
    };
    let now = app.clock.now();
    let (from, name, key, spectator) = match sender {
        Sender::Player { id, name } => (Some(id.clone()), name, id.0, false),
        Sender::Spectator { name, key } => (None, name, key, true),
    };
    let mut posted = None;
    let seq = append(app, id, &room, |seq, record| {
        if let Some(player) = &from
            && record.head.is_muted(player)
        {
            return Err(ChatError::Muted.into());
        }
        record.head.admit(&key, spectator, now)?;
        let message = ChatMessage {
            seq,
            at: now,
            from: from.clone(),
            name: name.clone(),
            audience,
            body: body.clone(),
        };
        posted = Some(message.clone());
        record.message = Some(message);
        Ok(true)
    })
    .await?;
    crate::metrics::record(crate::metrics::Metric::ChatMessage);
    if let Some(message) = posted.filter(|m| m.seq == seq) {
        // Stored: now the live channel (bounded, never failing the post).
        announce(&*app.announcer, id, &room, &message).await;
    }
    Ok(seq)
}

/// The messages of a room the caller may see, numbered above `after`, oldest first (at most the
/// [`KEPT_MESSAGES`] the room keeps), and the number to tag them with: the newest of them, or
/// `after` when there is none.
pub async fn read<S: RoomStore + ChatStore>(
    app: &App<S>,
    id: &RoomId,
    token: Option<&TokenHash>,
    after: u64,
) -> Result<(Vec<ChatMessage>, u64), ApiError> {
    // An eventually consistent read of the room is enough to know who is asking (half a unit on
    // DynamoDB); the chat log itself is read strongly (see madang_infra::dynamo::chat).
    let room = room_of(app, id, false).await?;
    let viewer = match token {
        Some(token) => Some(member(&room, token)?),
        None => None,
    };
    let (mut messages, _) = log_after(&*app.store, id, after, app.clock.now()).await?;
    messages.retain(|message| may_receive(&room, viewer.as_ref(), message));
    let tag = messages.last().map_or(after, |m| m.seq);
    Ok((messages, tag))
}

/// The host mutes (`muted: true`) or unmutes a present member (seated and not gone: a mute
/// is forgotten with its member). Returns who is muted now.
pub async fn mute<S: RoomStore + ChatStore>(
    app: &App<S>,
    id: &RoomId,
    token: &TokenHash,
    target: PlayerId,
    muted: bool,
) -> Result<Vec<PlayerId>, ApiError> {
    let room = room_of(app, id, true).await?;
    let host = member(&room, token)?;
    if with_room!(&room, r => r.host != host) {
        return Err(madang_core::room::RoomError::NotHost.into());
    }
    if target == host {
        return Err(ChatError::CannotMuteSelf.into());
    }
    if !with_room!(&room, r => r.present_ids().any(|p| *p == target)) {
        return Err(madang_core::room::RoomError::UnknownPlayer.into());
    }
    let now = app.clock.now();
    let mut after = Vec::new();
    append(app, id, &room, |_, record| {
        let changed = record.head.set_muted(&target, muted);
        after.clone_from(&record.head.muted);
        if changed {
            // A change of the mutes is a record too: counted against the host's rate, so it
            // cannot push the room's messages out of the kept window at will.
            record.head.admit(&host.0, false, now)?;
        }
        Ok(changed)
    })
    .await?;
    Ok(after)
}

/// Tells `announcer` of `message`, just stored in room `id` (as `room` was when the post read
/// it): who may receive it is decided per viewer by [`live_may_receive`] on that room.
async fn announce(announcer: &dyn Announcer, id: &RoomId, room: &AnyRoom, message: &ChatMessage) {
    let Ok(rendered) = message_json(message) else {
        return;
    };
    let may_receive = |player: Option<&str>| {
        let player = player.map(PlayerId::new);
        live_may_receive(room, player.as_ref(), message)
    };
    announcer
        .chat_posted(id.as_str(), message.seq, &rendered, &may_receive)
        .await;
}
