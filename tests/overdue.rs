//! The room both sweeper races start from (on DynamoDB and on the Lambda path): a started
//! two-player 윷놀이 room whose first turn timed out [`OVERDUE_MS`] ago.

use madang_core::room::{AnyRoom, LobbyAction, Presence, Room, RoomAction, TokenHash};
use madang_core::yut::{Yut, YutOptions};
use madang_core::{GameRng, Millis, PlayerId};
use madang_infra::StoredRoom;
use madang_infra::contract::{fresh_id, fresh_room_id};

/// The room's turn timer.
pub const TURN_MS: Millis = 30_000;
/// How far past the deadline the race runs: the timeout is overdue, the next one is 29 s away.
pub const OVERDUE_MS: Millis = 1_000;

/// One racing room, as stored before the race.
pub struct OverdueRoom {
    pub id: String,
    pub room: Room<Yut>,
    pub presence: Presence,
    /// The host's and the guest's ids and tokens.
    pub tokens: [(PlayerId, String); 2],
}

/// A started two-player room whose first turn timed out [`OVERDUE_MS`] before `now`. Both
/// players were seen 5 s before the deadline (their apps poll), so the turn timer, not a
/// disconnect, is what is due; and their grace period ends well after the race.
pub fn overdue_turn(now: Millis, seed: u64) -> OverdueRoom {
    let started = now - TURN_MS - OVERDUE_MS;
    let id = fresh_room_id();
    let tokens = [
        fresh_id("host-token").to_string(),
        fresh_id("guest-token").to_string(),
    ];
    let options = YutOptions {
        turn_seconds: Some(30),
        ..YutOptions::default()
    };
    let (mut room, host) = Room::<Yut>::create(
        id.clone(),
        "방장".into(),
        TokenHash::of(&tokens[0]),
        options,
        GameRng::seed_from_u64(seed),
        started,
    )
    .unwrap();
    let guest = room
        .join("손님".into(), TokenHash::of(&tokens[1]), started)
        .unwrap();
    let start = RoomAction::<Yut>::Lobby(LobbyAction::Start);
    room.act(&host, start, started).unwrap();
    let seen = started + TURN_MS - 5_000;
    let presence = Presence::from([(host.clone(), seen), (guest.clone(), seen)]);
    let [host_token, guest_token] = tokens;
    OverdueRoom {
        id,
        room,
        presence,
        tokens: [(host, host_token), (guest, guest_token)],
    }
}

impl OverdueRoom {
    /// The record to store before the race.
    pub fn stored(&self) -> StoredRoom {
        let room = &self.room;
        StoredRoom {
            id: self.id.clone(),
            version: room.version,
            body: AnyRoom::from(room.clone()).encode(),
            due: room.due_at(&self.presence),
            expires_at: room.expires_at(),
            presence: self
                .presence
                .iter()
                .map(|(p, t)| (p.as_str().to_owned(), *t))
                .collect(),
            departed: Vec::new(),
            seen: None,
            indexed_due: None,
            plan: None,
        }
    }
}
