//! Taking seats: creating a room (its creator becomes host) and joining one.

use madang_core::baduk::{Baduk, BadukOptions};
use madang_core::room::{AnyRoom, PlayerName, Room, RoomId, TokenHash};
use madang_core::yut::{Yut, YutOptions};
use madang_core::{Game, GameRng, Millis, PlayerId, with_room};
use madang_infra::RoomStore;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::save::{Loaded, Target, transact};
use super::{new_request_id, random_bytes};
use crate::app::App;
use crate::error::ApiError;

/// A game's options, parsed for the game the room is created for.
#[derive(Clone, Debug)]
pub enum RoomOptions {
    /// 윷놀이 options.
    Yut(YutOptions),
    /// 바둑 options.
    Baduk(BadukOptions),
}

/// `POST /rooms`, parsed.
#[derive(Clone, Debug)]
pub struct NewRoom {
    /// The creator's display name.
    pub name: PlayerName,
    /// The game and its options.
    pub options: RoomOptions,
    /// `MADANG_DEV=1` only: seed the room's generator for a reproducible game (`dev` feature).
    #[cfg(feature = "dev")]
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

/// URL-safe base64 without padding: compact, unguessable ids and tokens.
pub(crate) fn base64url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A new bearer token (192 random bits) and its stored hash.
pub(crate) fn new_token() -> Result<(String, TokenHash), ApiError> {
    let token = base64url(&random_bytes::<24>()?);
    let hash = TokenHash::of(&token);
    Ok((token, hash))
}

/// A new room id: 128 random bits — room ids are links people share, so they must not be
/// guessable.
pub(crate) fn new_room_id() -> Result<RoomId, ApiError> {
    made_room_id(&base64url(&random_bytes::<16>()?))
}

/// An id the service made (128 bits in base64url: always a room id's shape) as a [`RoomId`].
pub(crate) fn made_room_id(text: &str) -> Result<RoomId, ApiError> {
    RoomId::parse(text).ok_or_else(|| ApiError::Internal("a made room id is not a room id".into()))
}

fn open<G: Game>(
    id: String,
    name: String,
    token: TokenHash,
    options: G::Options,
    rng: GameRng,
    now: Millis,
) -> Result<(AnyRoom, PlayerId), ApiError>
where
    AnyRoom: From<Room<G>>,
{
    let (room, host) = Room::<G>::create(id, name, token, options, rng, now)?;
    Ok((room.into(), host))
}

/// Creates a room with its creator as host.
pub async fn create_room<S: RoomStore>(app: &App<S>, new: NewRoom) -> Result<Seated, ApiError> {
    #[cfg(feature = "dev")]
    if new.seed.is_some() && !app.dev {
        return Err(ApiError::Malformed(
            "seed는 개발 모드(MADANG_DEV=1)에서만 쓸 수 있어요.".into(),
        ));
    }
    #[cfg(feature = "dev")]
    let seed = new.seed;
    #[cfg(not(feature = "dev"))]
    let seed: Option<u64> = None;
    let now = app.clock.now();
    let rng = match seed {
        Some(seed) => GameRng::seed_from_u64(seed),
        // Seed and salt from the OS: the salt keeps `rngCommitment` from revealing the seed.
        None => GameRng::new(random_bytes::<32>()?, random_bytes::<16>()?),
    };
    let (token, hash) = new_token()?;
    let id = new_room_id()?;
    let name = new.name.into_string();
    let (room, host) = match new.options {
        RoomOptions::Yut(o) => open::<Yut>(id.to_string(), name, hash, o, rng, now)?,
        RoomOptions::Baduk(o) => open::<Baduk>(id.to_string(), name, hash, o, rng, now)?,
    };
    let loaded = Loaded::new_room(id.clone(), room, host.clone(), now);
    let saved = transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
        || app.clock.now(),
        Target::New(loaded),
        new_request_id()?,
        |_, _, _| Ok(()),
    )
    .await?;
    Ok(Seated {
        room_id: id.to_string(),
        room: saved.loaded.view(Some(&host), saved.now)?,
        player_id: host,
        token,
    })
}

/// The token of a keyed join: 192 bits of SHA-256 over the room id and the `Idempotency-Key`.
/// The key is the client's own 128 random bits or more, sent only to this server, so the token
/// is as unguessable as a drawn one; a retry with the same key arrives at the same token, and
/// so at the seat the first attempt took — nothing is stored for it.
fn keyed_token(id: &str, key: &str) -> (String, TokenHash) {
    let digest = Sha256::digest([b"madang join\0", id.as_bytes(), b"\0", key.as_bytes()].concat());
    let token = base64url(&digest[..24]);
    let hash = TokenHash::of(&token);
    (token, hash)
}

/// The shortest `Idempotency-Key` a join accepts: 32 characters (128 bits in hex, what the JS
/// client draws), since the key stands in for the token's randomness.
pub const MIN_JOIN_KEY_CHARS: usize = 32;

/// Takes a new player into a lobby. `bar` is [`madang_core::room::bar_of`] the token the
/// joiner held here before (0: none): a kicked seat's token cannot take another. With an
/// `Idempotency-Key` (`key`) a retried join — its first answer lost — gets the seat the first
/// attempt took (`replayed`), never a second one.
pub async fn join_room<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    name: PlayerName,
    bar: u64,
    key: Option<&str>,
) -> Result<(Seated, bool), ApiError> {
    let name = name.into_string();
    // Drawn once: a join redone after a conflict seats the same token, and a join whose save
    // landed unconfirmed is recognised by the request id.
    let (token, hash) = match key {
        Some(key) if key.len() < MIN_JOIN_KEY_CHARS => {
            return Err(ApiError::Malformed(format!(
                "참가 요청의 Idempotency-Key는 {MIN_JOIN_KEY_CHARS}자 이상이어야 해요."
            )));
        }
        Some(key) => keyed_token(id.as_str(), key),
        None => new_token()?,
    };
    let mut replayed = false;
    let saved = transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
        || app.clock.now(),
        Target::Load(id),
        new_request_id()?,
        |loaded, _, now| {
            if let Some(player) = loaded.authenticate(&hash) {
                replayed = true;
                return Ok(player);
            }
            let player =
                with_room!(&mut loaded.room, r => r.join_from(name.clone(), hash, bar, now))?;
            loaded.see(&player, now);
            Ok(player)
        },
    )
    .await?;
    let seated = Seated {
        room_id: id.to_string(),
        room: saved.loaded.view(Some(&saved.outcome), saved.now)?,
        player_id: saved.outcome,
        token,
    };
    Ok((seated, replayed))
}
