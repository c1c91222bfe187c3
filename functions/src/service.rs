//! The one straight path of every request: authenticate → load → catch up overdue timeouts →
//! apply → conditional save → view.
//!
//! Nothing here holds a lock or keeps a room in memory between requests: any number of Lambda
//! instances can serve the same room, because every write is conditional on the version that
//! was loaded. When two requests race, exactly one save lands; the other sees
//! `VersionConflict` and either redoes its work on the fresh room (no `expectedVersion`: the
//! caller did not pin a version) or answers 409 with the current room (it did).

use std::time::Duration;

use madang_core::baduk::Baduk;
use madang_core::room::{
    Answer, AnyRoom, DecodeError, GameKind, Presence, Room, RoomAction, TokenHash, digest64,
};
use madang_core::yut::Yut;
use madang_core::{Game, GameRng, Millis, PlayerId, with_room};
use madang_infra::{RoomStore, StoreError, StoredRoom};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::app::App;
use crate::error::ApiError;

/// How often a conflicting save is redone from a fresh load before giving up with 409.
const SAVE_ATTEMPTS: usize = 4;

/// A player's presence is written at most this often (polls in between cost no write).
pub const PRESENCE_WRITE_INTERVAL_MS: Millis = 15_000;

/// A room as loaded for one request.
#[derive(Debug)]
pub struct Loaded {
    /// The decoded room.
    pub room: AnyRoom,
    /// The record it came from (version, presence, index state).
    pub stored: StoredRoom,
    /// Presence as stored, plus the caller seen now.
    pub presence: Presence,
}

impl Loaded {
    /// Decodes a stored room; its presence keys become player ids.
    pub(crate) fn from_stored(stored: StoredRoom) -> Result<Self, DecodeError> {
        let room = AnyRoom::decode(&stored.body)?;
        let presence = stored
            .presence
            .iter()
            .map(|(p, t)| (PlayerId::new(p.clone()), *t))
            .collect();
        Ok(Loaded {
            room,
            stored,
            presence,
        })
    }

    /// Fires every timeout due at `now`; returns how many fired (each one a new version).
    pub(crate) fn catch_up(&mut self, now: Millis) -> u64 {
        let before = self.room.version();
        let presence = &self.presence;
        with_room!(&mut self.room, r => { r.catch_up(now, presence); });
        self.room.version() - before
    }

    /// When the room's next timeout fires if nobody shows up (what the sweeper indexes).
    pub(crate) fn due_at(&self) -> Option<Millis> {
        with_room!(&self.room, r => r.due_at(&self.presence))
    }

    /// The record to save for the room as it is now.
    pub(crate) fn to_stored(&self) -> StoredRoom {
        StoredRoom {
            id: self.stored.id.clone(),
            version: self.room.version(),
            body: self.room.encode(),
            due: self.due_at(),
            expires_at: self.room.expires_at(),
            presence: self.stored.presence.clone(),
            indexed_due: self.stored.indexed_due,
        }
    }

    fn view(&self, viewer: Option<&PlayerId>, now: Millis) -> Box<RawValue> {
        with_room!(&self.room, r => view_json(r, viewer, &self.presence, now))
    }

    fn authenticate(&self, token: &TokenHash) -> Option<PlayerId> {
        with_room!(&self.room, r => r.authenticate(token).cloned())
    }
}

/// A view rendered once, straight to JSON text: answers embed it as it is, with no
/// intermediate `serde_json::Value` tree (which cost a fifth of an action's CPU).
fn view_json<G: Game>(
    room: &Room<G>,
    viewer: Option<&PlayerId>,
    presence: &Presence,
    now: Millis,
) -> Box<RawValue> {
    serde_json::value::to_raw_value(&room.view(viewer, presence, now)).unwrap_or_else(|_| null())
}

/// JSON `null` as raw text.
pub(crate) fn null() -> Box<RawValue> {
    RawValue::from_string("null".to_owned()).unwrap_or_default()
}

fn decode(stored: StoredRoom) -> Result<Loaded, ApiError> {
    Loaded::from_stored(stored).map_err(|e| ApiError::Internal(e.to_string()))
}

/// Loads a room (strongly consistent).
pub async fn load<S: RoomStore>(app: &App<S>, id: &str, now: Millis) -> Result<Loaded, ApiError> {
    decode(app.store.load(id, now).await?)
}

/// Fires the room's overdue timeouts and saves them. Someone else may save first (another
/// request catching up the same timeouts): then the fresh room is loaded and checked again.
async fn settle<S: RoomStore>(
    app: &App<S>,
    mut loaded: Loaded,
    now: Millis,
) -> Result<Loaded, ApiError> {
    for _ in 0..SAVE_ATTEMPTS {
        let before = loaded.room.version();
        if loaded.catch_up(now) == 0 {
            return Ok(loaded);
        }
        match app.store.save_if_version(&loaded.to_stored(), before).await {
            Ok(()) => {
                loaded.stored.version = loaded.room.version();
                return Ok(loaded);
            }
            Err(StoreError::VersionConflict { .. }) => {
                let viewer_presence = loaded.presence;
                loaded = load(app, &loaded.stored.id, now).await?;
                loaded.presence.extend(viewer_presence);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::Unavailable(
        "room keeps changing while catching up".into(),
    ))
}

/// Records that `player` was seen, unless a recent write already did: presence must not cost a
/// write on every poll. A failure here is logged, not returned — the request itself succeeded.
async fn see<S: RoomStore>(app: &App<S>, loaded: &mut Loaded, player: &PlayerId, now: Millis) {
    let last = loaded
        .stored
        .presence
        .get(player.as_str())
        .copied()
        .unwrap_or(0);
    loaded.presence.insert(player.clone(), now);
    if now.saturating_sub(last) >= PRESENCE_WRITE_INTERVAL_MS
        && let Err(e) = app
            .store
            .touch(&loaded.stored.id, player.as_str(), now)
            .await
    {
        tracing::warn!(error = %e, "presence write failed");
    }
}

fn random_bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| ApiError::Internal(format!("no OS entropy: {e}")))?;
    Ok(buf)
}

/// URL-safe base64 without padding: compact, unguessable ids and tokens.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A new bearer token (192 random bits) and its stored hash.
fn new_token() -> Result<(String, TokenHash), ApiError> {
    let token = base64url(&random_bytes::<24>()?);
    let hash = TokenHash::of(&token);
    Ok((token, hash))
}

fn check_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 20 {
        return Err(ApiError::Invalid {
            code: "INVALID_NAME",
            message: "이름은 1~20자로 해 주세요.".into(),
        });
    }
    Ok(name.to_owned())
}

/// `POST /rooms` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    /// `"yut"` or `"baduk"`.
    pub game: String,
    /// The creator's display name.
    pub name: String,
    /// The game's options; missing fields take the game's defaults.
    #[serde(default)]
    pub options: Option<Value>,
    /// `MADANG_DEV=1` only: seed the room's generator for a reproducible game.
    #[serde(default)]
    pub seed: Option<u64>,
}

/// A new seat: who, and the token that proves it (shown once).
#[derive(Debug)]
pub struct Seated {
    /// The room's id.
    pub room_id: String,
    /// The new player's id.
    pub player_id: PlayerId,
    /// Their bearer token.
    pub token: String,
    /// The room as they now see it.
    pub room: Box<RawValue>,
}

fn create_in<G: Game>(
    id: String,
    name: String,
    token: TokenHash,
    options: Option<Value>,
    rng: GameRng,
    now: Millis,
) -> Result<(AnyRoom, PlayerId), ApiError>
where
    AnyRoom: From<Room<G>>,
{
    let options: G::Options = match options {
        Some(v) => {
            serde_json::from_value(v).map_err(|e| ApiError::Malformed(format!("options: {e}")))?
        }
        None => G::Options::default(),
    };
    let (room, host) = Room::<G>::create(id, name, token, options, rng, now)?;
    Ok((room.into(), host))
}

/// Creates a room with its creator as host.
pub async fn create_room<S: RoomStore>(
    app: &App<S>,
    request: CreateRequest,
) -> Result<Seated, ApiError> {
    let kind = GameKind::parse(&request.game).ok_or_else(|| ApiError::Invalid {
        code: "UNKNOWN_GAME",
        message: "game은 \"yut\" 또는 \"baduk\"이어야 해요.".into(),
    })?;
    if request.seed.is_some() && !app.dev {
        return Err(ApiError::Malformed(
            "seed는 개발 모드(MADANG_DEV=1)에서만 쓸 수 있어요.".into(),
        ));
    }
    let name = check_name(&request.name)?;
    let now = app.clock.now();
    let rng = match request.seed {
        Some(seed) => GameRng::seed_from_u64(seed),
        None => GameRng::from_seed(random_bytes::<32>()?),
    };
    let (token, hash) = new_token()?;
    // 128 random bits: room ids are links people share, so they must not be guessable.
    let id = base64url(&random_bytes::<16>()?);
    let (room, host) = match kind {
        GameKind::Yut => create_in::<Yut>(id.clone(), name, hash, request.options, rng, now)?,
        GameKind::Baduk => create_in::<Baduk>(id.clone(), name, hash, request.options, rng, now)?,
    };
    let mut presence = Presence::new();
    presence.insert(host.clone(), now);
    let stored = StoredRoom {
        id: id.clone(),
        version: room.version(),
        body: room.encode(),
        due: None,
        expires_at: room.expires_at(),
        presence: [(host.as_str().to_owned(), now)].into(),
        indexed_due: None,
    };
    app.store.create(&stored).await?;
    let loaded = Loaded {
        room,
        stored,
        presence,
    };
    let view = loaded.view(Some(&host), now);
    Ok(Seated {
        room_id: id,
        player_id: host,
        token,
        room: view,
    })
}

/// Takes a new player into a lobby.
pub async fn join_room<S: RoomStore>(
    app: &App<S>,
    id: &str,
    name: &str,
) -> Result<Seated, ApiError> {
    let name = check_name(name)?;
    let (token, hash) = new_token()?;
    for _ in 0..SAVE_ATTEMPTS {
        let now = app.clock.now();
        let mut loaded = load(app, id, now).await?;
        let before = loaded.room.version();
        let player = with_room!(&mut loaded.room, r => r.join(name.clone(), hash, now))?;
        loaded.presence.insert(player.clone(), now);
        match app.store.save_if_version(&loaded.to_stored(), before).await {
            Ok(()) => {
                loaded.stored.version = loaded.room.version();
                see(app, &mut loaded, &player, now).await;
                let room = loaded.view(Some(&player), now);
                return Ok(Seated {
                    room_id: id.to_owned(),
                    player_id: player,
                    token,
                    room,
                });
            }
            Err(StoreError::VersionConflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(conflict_without_room())
}

fn conflict_without_room() -> ApiError {
    ApiError::VersionConflict { room: null() }
}

/// `POST /rooms/{id}/actions` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ActionRequest {
    /// The version the client acted on; a stale one is refused with 409 and the current room.
    #[serde(default)]
    pub expected_version: Option<u64>,
    /// The action, tagged by `type`.
    pub action: Value,
}

/// The answer to an accepted action.
#[derive(Debug)]
pub struct Acted {
    /// The room's version after the action.
    pub version: u64,
    /// What happened: overdue timeouts fired first, then the action's own events, then what the
    /// action made due at once (a bot's turn).
    pub events: Value,
    /// The room as the caller now sees it.
    pub room: Box<RawValue>,
    /// The action's type, for logs.
    pub kind: String,
    /// This is the remembered first answer to a retried `Idempotency-Key`.
    pub replayed: bool,
}

enum Step {
    Done(Acted),
    Stale,
}

/// Applies one action for the holder of `token`.
pub async fn act<S: RoomStore>(
    app: &App<S>,
    id: &str,
    token: &TokenHash,
    request: ActionRequest,
    idempotency: Option<(&str, &[u8])>,
) -> Result<Acted, ApiError> {
    for _ in 0..SAVE_ATTEMPTS {
        let now = app.clock.now();
        let mut loaded = load(app, id, now).await?;
        let loaded_version = loaded.room.version();
        let player = loaded.authenticate(token).ok_or(ApiError::Unauthorized)?;
        loaded.presence.insert(player.clone(), now);
        let key = idempotency.map(|(key, body)| {
            (
                digest64(&[player.as_str().as_bytes(), key.as_bytes()]),
                digest64(&[body]),
            )
        });
        let presence = loaded.presence.clone();
        let step =
            with_room!(&mut loaded.room, r => act_in(r, &player, &request, key, &presence, now))?;
        let acted = match step {
            Step::Stale => {
                return Err(ApiError::VersionConflict {
                    room: loaded.view(Some(&player), now),
                });
            }
            Step::Done(acted) if acted.replayed => return Ok(acted),
            Step::Done(acted) => acted,
        };
        match app
            .store
            .save_if_version(&loaded.to_stored(), loaded_version)
            .await
        {
            Ok(()) => {
                loaded.stored.version = loaded.room.version();
                see(app, &mut loaded, &player, now).await;
                let room = loaded.view(Some(&player), now);
                return Ok(Acted { room, ..acted });
            }
            // The caller pinned the version they saw, and someone else's change landed first:
            // their action may no longer make sense. Tell them, with the room as it is now.
            Err(StoreError::VersionConflict { current }) if request.expected_version.is_some() => {
                let current = match current {
                    Some(current) => decode(*current)?,
                    None => load(app, id, now).await?,
                };
                return Err(ApiError::VersionConflict {
                    room: current.view(Some(&player), now),
                });
            }
            // Unpinned: redo the action on the fresh room.
            Err(StoreError::VersionConflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(conflict_without_room())
}

fn act_in<G: Game>(
    room: &mut Room<G>,
    player: &PlayerId,
    request: &ActionRequest,
    key: Option<(u64, u64)>,
    presence: &Presence,
    now: Millis,
) -> Result<Step, ApiError> {
    if let Some((key, body)) = key
        && let Some(answer) = room.recall(key, body)?
    {
        let events = serde_json::from_str(&answer.events).unwrap_or(Value::Array(Vec::new()));
        return Ok(Step::Done(Acted {
            version: answer.version,
            events,
            room: view_json(room, Some(player), presence, now),
            kind: "replay".into(),
            replayed: true,
        }));
    }
    // Parse before doing any work: malformed input is refused without touching the room.
    let action = RoomAction::<G>::from_json(request.action.clone())?;
    // The action parsed, so its `type` is one the game knows: log it as sent.
    let kind = request.action["type"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let fired = room.catch_up(now, presence);
    if request.expected_version.is_some_and(|v| v != room.version) {
        return Ok(Step::Stale);
    }
    let acted = room.act(player, action, now)?;
    // What the action made due at once — a bot's or an auto-played seat's turn — plays now, so
    // the caller sees it in this answer (nothing else can be due yet: every other deadline is
    // in the future after an accepted action).
    let followed = room.catch_up(now, presence);
    let mut events: Vec<Value> = fired.iter().map(|e| json!(e)).collect();
    events.extend(acted.iter().map(|e| json!(e)));
    events.extend(followed.iter().map(|e| json!(e)));
    let events = Value::Array(events);
    if let Some((key, body)) = key {
        room.remember(Answer {
            key,
            body,
            version: room.version,
            events: events.to_string(),
        });
    }
    Ok(Step::Done(Acted {
        version: room.version,
        events,
        room: null(),
        kind,
        replayed: false,
    }))
}

/// What a read returns.
#[derive(Debug)]
pub enum Read {
    /// The room as the viewer sees it.
    Fresh {
        /// Its version (the `ETag`).
        version: u64,
        /// The view.
        room: Box<RawValue>,
    },
    /// Nothing newer than what the client has (304).
    NotModified {
        /// The current version.
        version: u64,
    },
}

/// Reads a room, firing overdue timeouts first. With `since`, waits up to `wait` for a version
/// newer than `since` — waking when the room is saved, or when its next timeout comes due so
/// the poller sees the timeout fire on time.
pub async fn read<S: RoomStore>(
    app: &App<S>,
    id: &str,
    token: Option<&TokenHash>,
    since: Option<u64>,
    wait: Duration,
) -> Result<Read, ApiError> {
    let until = tokio::time::Instant::now() + wait;
    let mut fetched: Option<StoredRoom> = None;
    loop {
        let now = app.clock.now();
        let mut loaded = match fetched.take() {
            Some(stored) => decode(stored)?,
            None => load(app, id, now).await?,
        };
        let viewer = match token {
            Some(token) => Some(loaded.authenticate(token).ok_or(ApiError::Unauthorized)?),
            None => None,
        };
        if let Some(player) = &viewer {
            loaded.presence.insert(player.clone(), now);
        }
        let mut loaded = settle(app, loaded, now).await?;
        if let Some(player) = &viewer {
            see(app, &mut loaded, player, now).await;
        }
        let version = loaded.room.version();
        let Some(since) = since.filter(|since| version <= *since) else {
            return Ok(Read::Fresh {
                version,
                room: loaded.view(viewer.as_ref(), now),
            });
        };
        let remaining = until.saturating_duration_since(tokio::time::Instant::now());
        if remaining.is_zero() {
            return Ok(Read::NotModified { version });
        }
        // Wake for a save, or for the room's own next timeout, whichever comes first.
        let due_in = loaded
            .due_at()
            .map(|due| Duration::from_millis(due.saturating_sub(now) + 1));
        let nap = due_in.map_or(remaining, |d| d.min(remaining));
        fetched = app.store.wait_for_change(id, since, nap).await?;
    }
}

/// A 바둑 room's record as SGF.
pub async fn sgf<S: RoomStore>(app: &App<S>, id: &str) -> Result<String, ApiError> {
    let now = app.clock.now();
    let loaded = settle(app, load(app, id, now).await?, now).await?;
    match &loaded.room {
        AnyRoom::Baduk(room) => Ok(crate::api::sgf_of(room)),
        AnyRoom::Yut(_) => Err(ApiError::NotAvailable("기보(SGF)는 바둑 방에만 있어요.")),
    }
}
