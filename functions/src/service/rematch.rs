//! 한 판 더: a finished game's players ask to play again, and get one new lobby.
//!
//! Two rooms change, and there is no transaction across them (DynamoDB would bill every unit
//! twice). So the rematch is built to be safe to do any number of times, in any interleaving:
//! the new lobby's id follows from the finished room's id, so every request for it — two players
//! tapping at once, a retry after a lost answer — creates the *same* room and only the first
//! create lands; then the finished room records that id (once: a second mark changes nothing).
//! The lobby is created before it is announced, so a client that sees `rematchRoomId` always
//! finds the room there.

use madang_core::room::{LobbyEvent, Room, RoomId, TokenHash};
use madang_core::{Game, GameRng, PlayerId, with_room};
use madang_infra::RoomStore;
use sha2::{Digest, Sha256};

use super::Acted;
use super::events::rendered;
use super::save::{Loaded, Target, transact};
use super::seat::base64url;
use super::{new_request_id, random_bytes};
use crate::app::App;
use crate::error::ApiError;

/// The rematch lobby's id for a room: 128 bits of SHA-256 of the room's id, as unguessable as
/// the room's own id.
pub fn rematch_id(room_id: &str) -> String {
    let digest = Sha256::digest([b"madang rematch\0".as_slice(), room_id.as_bytes()].concat());
    base64url(&digest[..16])
}

enum Plan {
    /// The finished room already names its rematch.
    Announced(String),
    /// Create this lobby, then announce it.
    Create(Box<Loaded>),
}

fn plan<G: Game>(
    room: &Room<G>,
    asker: &PlayerId,
    rng: GameRng,
    now: madang_core::Millis,
) -> Result<Plan, ApiError>
where
    madang_core::room::AnyRoom: From<Room<G>>,
{
    if let Some(existing) = &room.rematch {
        return Ok(Plan::Announced(existing.clone()));
    }
    let id = rematch_id(&room.id);
    let lobby = room.rematch_lobby(id.clone(), asker, rng, now)?;
    let host = lobby.host.clone();
    Ok(Plan::Create(Box::new(Loaded::new_room(
        super::seat::made_room_id(&id)?,
        lobby.into(),
        host,
        now,
    ))))
}

/// `{"type": "rematch"}` on a finished room, by any of its players.
pub async fn rematch<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    token: &TokenHash,
) -> Result<Acted, ApiError> {
    // A fresh generator: the finished game revealed its seed with its result.
    let rng = GameRng::new(random_bytes::<32>()?, random_bytes::<16>()?);
    let planned = transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
        || app.clock.now(),
        Target::Load(id),
        new_request_id()?,
        |loaded, _, now| {
            let asker = loaded.authenticate(token).ok_or(ApiError::Unauthorized)?;
            loaded.see(&asker, now);
            with_room!(&loaded.room, r => plan(r, &asker, rng.clone(), now))
        },
    )
    .await?;
    let new_id = match planned.outcome {
        Plan::Announced(existing) => existing,
        Plan::Create(lobby) => {
            let new_id = lobby.id.to_string();
            match transact(
                &*app.store,
                &*app.announcer,
                &*app.thinker,
                || app.clock.now(),
                Target::New(*lobby),
                new_request_id()?,
                |_, _, _| Ok(()),
            )
            .await
            {
                // Another request for the same rematch created it first: the same room.
                Ok(_) | Err(ApiError::RoomExists) => new_id,
                Err(e) => return Err(e),
            }
        }
    };
    let mut asker = None;
    let marked = transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
        || app.clock.now(),
        Target::Load(id),
        new_request_id()?,
        |loaded, _, now| {
            let who = loaded.authenticate(token).ok_or(ApiError::Unauthorized)?;
            loaded.see(&who, now);
            let fresh = with_room!(&mut loaded.room, r => r.mark_rematch(&new_id, now));
            asker = Some(who);
            Ok(fresh)
        },
    )
    .await?;
    let events = if marked.outcome {
        rendered(&[LobbyEvent::RematchCreated { room_id: new_id }])?
    } else {
        Vec::new()
    };
    Ok(Acted {
        version: marked.loaded.room.version(),
        events,
        room: marked.loaded.view(asker.as_ref(), marked.now)?,
        replayed: false,
    })
}
