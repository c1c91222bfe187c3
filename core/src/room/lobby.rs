//! Lobby actions (`setOptions`, `moveSeat`, `start`, `leave`, `kick`) and how an action's JSON
//! becomes either a lobby action or the game's own.

use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Room, RoomError, Status};
use crate::baduk::Baduk;
use crate::game::{Game, Lineup, Millis, PlayerId};
use crate::yut::Yut;

/// An action on the lobby, tagged by `type` as in the API contract:
/// `{"type":"setOptions","options":{…}}`, `{"type":"moveSeat","playerId":"p2","seat":0}`,
/// `{"type":"start"}`, `{"type":"leave"}`, `{"type":"kick","playerId":"p2"}`. Unknown fields are
/// refused, for payload-less actions too. `O` is the game's options type: options are parsed
/// with the action, at the edge.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "WireLobby<O>", bound = "O: DeserializeOwned")]
pub enum LobbyAction<O> {
    /// Host: replace the options (validated by the game).
    SetOptions {
        /// The new options.
        options: O,
    },
    /// Host: move a player to another seat (the player there takes the mover's seat).
    MoveSeat {
        /// Who moves.
        player_id: PlayerId,
        /// Target seat, `0..players`.
        seat: usize,
    },
    /// Host: start the game with the seated players.
    Start,
    /// Anyone seated: leave the room (in a running game, the game decides what that does).
    Leave,
    /// Host: remove a player from the lobby.
    Kick {
        /// Who is removed.
        player_id: PlayerId,
    },
    /// Any player of a finished game: play again (한 판 더) in a new lobby with the same players.
    /// It creates another room, so the service carries it out, not [`Room::act`].
    Rematch,
    /// Host: fill the next empty seat with a computer player of this level (`None`: the
    /// game's default level).
    AddBot {
        /// One of the game's `bots.levels`.
        level: Option<u8>,
    },
}

/// The JSON form, read field by field: serde's internally tagged enums ignore unknown fields of
/// unit variants (`{"type":"start","now":true}` would pass), so the fields are checked here.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireLobby<O> {
    #[serde(rename = "type")]
    kind: String,
    options: Option<O>,
    player_id: Option<PlayerId>,
    seat: Option<usize>,
    level: Option<u8>,
}

impl<O> TryFrom<WireLobby<O>> for LobbyAction<O> {
    type Error = String;

    fn try_from(w: WireLobby<O>) -> Result<Self, String> {
        let level = w.level;
        let action = match (w.kind.as_str(), w.options, w.player_id, w.seat) {
            ("addBot", None, None, None) => return Ok(LobbyAction::AddBot { level }),
            _ if level.is_some() => return Err("`level`은 addBot에만 쓸 수 있어요.".into()),
            ("setOptions", Some(options), None, None) => LobbyAction::SetOptions { options },
            ("moveSeat", None, Some(player_id), Some(seat)) => {
                LobbyAction::MoveSeat { player_id, seat }
            }
            ("start", None, None, None) => LobbyAction::Start,
            ("leave", None, None, None) => LobbyAction::Leave,
            ("kick", None, Some(player_id), None) => LobbyAction::Kick { player_id },
            ("rematch", None, None, None) => LobbyAction::Rematch,
            (kind, ..) => return Err(format!("`{kind}`에 맞지 않는 필드예요.")),
        };
        Ok(action)
    }
}

/// How many kicked addresses a room remembers (8 bytes each in the stored room): a host who
/// kicks more than this many people has bigger problems than the ninth coming back.
pub const MAX_BARRED: usize = 8;

/// The hash a room keeps of a client address (`addr`: its bytes, e.g. an IPv4 address's four
/// or an IPv6 /64 prefix's eight), salted with the room id so that the stored value identifies
/// nobody outside the room. Never 0 (0 means "unknown").
pub fn client_hash(room_id: &str, addr: &[u8]) -> u64 {
    super::digest64(&[b"client", room_id.as_bytes(), addr]).max(1)
}

/// One schema per lobby `type`, exactly the fields [`WireLobby`] accepts for it (schema only).
#[derive(schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
enum LobbyActionSchema {
    /// Host: replace the options (the game's options; missing keys take their defaults).
    SetOptions {
        /// The new options.
        options: serde_json::Map<String, Value>,
    },
    /// Host: move a player to another seat.
    #[serde(rename_all = "camelCase")]
    MoveSeat {
        /// Who moves.
        player_id: PlayerId,
        /// Target seat, `0..players`.
        seat: usize,
    },
    /// Host: start the game.
    Start {},
    /// Anyone seated: leave the room.
    Leave {},
    /// Host: remove a player from the lobby.
    #[serde(rename_all = "camelCase")]
    Kick {
        /// Who is removed.
        player_id: PlayerId,
    },
    /// Any player of a finished game: play again in a new lobby (한 판 더).
    Rematch {},
    /// Host: fill the next empty seat with a computer player; `kick` removes it again.
    AddBot {
        /// One of the game's `bots.levels` (`GET /games/{kind}`); missing: the game's default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        level: Option<u8>,
    },
}

impl<O> schemars::JsonSchema for LobbyAction<O> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LobbyAction".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        LobbyActionSchema::json_schema(generator)
    }
}

const LOBBY_TYPES: [&str; 7] = [
    "setOptions",
    "moveSeat",
    "start",
    "leave",
    "kick",
    "rematch",
    "addBot",
];

/// One action sent to `POST /rooms/{id}/actions`: a lobby action or one of the game's.
#[derive(Debug)]
pub enum RoomAction<G: Game> {
    /// A lobby action.
    Lobby(LobbyAction<G::Options>),
    /// A game action (`THROW`, `place`, …).
    Game(G::Action),
}

// Written out: a derive would demand `Clone` of the zero-sized game marker too.
impl<G: Game> Clone for RoomAction<G> {
    fn clone(&self) -> Self {
        match self {
            RoomAction::Lobby(a) => RoomAction::Lobby(a.clone()),
            RoomAction::Game(a) => RoomAction::Game(a.clone()),
        }
    }
}

impl<G: Game> RoomAction<G> {
    /// Parses the `action` member of a request. Unknown types, unknown fields and bad payloads
    /// are [`RoomError::BadAction`] (a 400): the rules never see malformed input.
    pub fn from_json(value: Value) -> Result<Self, RoomError> {
        let ty = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if LOBBY_TYPES.contains(&ty) {
            serde_json::from_value(value).map(RoomAction::Lobby)
        } else {
            serde_json::from_value(value).map(RoomAction::Game)
        }
        .map_err(|e| RoomError::BadAction(e.to_string()))
    }
}

/// An action for whichever game the room turns out to hold. The room's game is known only once
/// the room is loaded, so the edge keeps the action as sent and each game parses it on first
/// use ([`AnyAction::of`]): once per request, however many times a conflict makes the save
/// loop redo its work. Parsing it for both games up front cost an error message for the wrong
/// game on every request (a `setOptions` for 윷놀이 is no 바둑 `setOptions`).
#[derive(Clone, Debug)]
pub struct AnyAction {
    /// The action's `type` as sent (for logs).
    pub kind: String,
    value: Value,
    yut: OnceLock<Result<RoomAction<Yut>, RoomError>>,
    baduk: OnceLock<Result<RoomAction<Baduk>, RoomError>>,
}

impl AnyAction {
    /// Takes the `action` member of a request, for either game.
    pub fn parse(value: &Value) -> Self {
        AnyAction {
            kind: value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            value: value.clone(),
            yut: OnceLock::new(),
            baduk: OnceLock::new(),
        }
    }

    /// Whether this is `{"type": "rematch"}` (the same for every game).
    pub fn is_rematch(&self) -> bool {
        self.kind == "rematch"
            && matches!(
                self.of::<Yut>(),
                Ok(RoomAction::Lobby(LobbyAction::Rematch))
            )
    }

    /// The action for a room of game `G`, or why it is not one of `G`'s.
    pub fn of<G: Pick>(&self) -> Result<&RoomAction<G>, RoomError> {
        G::pick(self)
            .get_or_init(|| RoomAction::from_json(self.value.clone()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// The games an [`AnyAction`] is parsed for.
pub trait Pick: Game + Sized {
    /// This game's parse of the action.
    fn pick(action: &AnyAction) -> &OnceLock<Result<RoomAction<Self>, RoomError>>;
}

impl Pick for Yut {
    fn pick(action: &AnyAction) -> &OnceLock<Result<RoomAction<Self>, RoomError>> {
        &action.yut
    }
}

impl Pick for Baduk {
    fn pick(action: &AnyAction) -> &OnceLock<Result<RoomAction<Self>, RoomError>> {
        &action.baduk
    }
}

/// Something that happened in the lobby, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum LobbyEvent {
    /// The options changed.
    OptionsChanged,
    /// Seats were rearranged.
    SeatMoved {
        /// Who moved.
        player_id: PlayerId,
        /// Their new seat.
        seat: usize,
    },
    /// The game started.
    Started,
    /// A player left.
    Left {
        /// Who left.
        player_id: PlayerId,
    },
    /// The host removed a player.
    Kicked {
        /// Who was removed.
        player_id: PlayerId,
    },
    /// The host role passed on (the host left).
    HostChanged {
        /// The new host.
        player_id: PlayerId,
    },
    /// The host seated a computer player.
    BotAdded {
        /// The computer player's id.
        player_id: PlayerId,
        /// Its level.
        level: u8,
    },
    /// A rematch lobby was opened for this finished game.
    RematchCreated {
        /// The new lobby's id.
        room_id: String,
    },
}

/// An event of a room action: the lobby's or the game's.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(untagged, bound = "")]
pub enum RoomEvent<G: Game> {
    /// A lobby event.
    Lobby(LobbyEvent),
    /// A game event.
    Game(G::Event),
}

impl<G: Game> Room<G> {
    pub(super) fn act_lobby(
        &mut self,
        player: &PlayerId,
        action: LobbyAction<G::Options>,
        now: Millis,
    ) -> Result<Vec<RoomEvent<G>>, RoomError> {
        let host_only = !matches!(action, LobbyAction::Leave);
        if host_only && *player != self.host {
            return Err(RoomError::NotHost);
        }
        if !matches!(action, LobbyAction::Leave) && self.game.is_some() {
            return Err(RoomError::AlreadyStarted);
        }
        let events = match action {
            LobbyAction::SetOptions { options } => {
                G::validate_options(&options, None).map_err(RoomError::InvalidOptions)?;
                if self.seats.len() > G::max_players(&options) {
                    return Err(RoomError::InvalidOptions(crate::OptionsError::new(
                        "options",
                        format!(
                            "지금 {}명이 있어서 이 설정으로는 할 수 없어요.",
                            self.seats.len()
                        ),
                    )));
                }
                self.options = options;
                vec![LobbyEvent::OptionsChanged]
            }
            LobbyAction::MoveSeat { player_id, seat } => {
                let from = self.seat_of(&player_id).ok_or(RoomError::UnknownPlayer)?;
                if seat >= self.seats.len() {
                    return Err(RoomError::BadSeat);
                }
                self.seats.swap(from, seat);
                vec![LobbyEvent::SeatMoved { player_id, seat }]
            }
            LobbyAction::AddBot { level } => return self.add_bot(level, now),
            LobbyAction::Start => {
                if self.seats.iter().all(|m| m.bot.is_some()) {
                    return Err(RoomError::OnlyBots);
                }
                let lineup = Lineup {
                    players: self.seats.iter().map(|m| m.id.clone()).collect(),
                    host: self.host.clone(),
                };
                // Setup draws from a copy: if it refuses (wrong head count), the generator has
                // not moved.
                let mut rng = self.rng.clone();
                let mut state = G::setup(&lineup, &self.options, &mut rng, now)
                    .map_err(RoomError::InvalidOptions)?;
                for bot in self.seats.iter().filter(|m| m.bot.is_some()) {
                    G::seat_bot(&mut state, &bot.id);
                }
                self.rng = rng;
                self.game = Some(state);
                vec![LobbyEvent::Started]
            }
            // Opens another room: the service carries it out (it saves both rooms).
            LobbyAction::Rematch => {
                return Err(RoomError::BadAction(
                    "한 판 더는 끝난 게임에서만 할 수 있어요.".into(),
                ));
            }
            LobbyAction::Leave => return self.leave(player, now),
            LobbyAction::Kick { player_id } => {
                if player_id == *player {
                    return Err(RoomError::CannotKickSelf);
                }
                let seat = self.seat_of(&player_id).ok_or(RoomError::UnknownPlayer)?;
                let kicked = self.seats.remove(seat);
                if kicked.client != 0 && !self.barred.contains(&kicked.client) {
                    self.barred.push(kicked.client);
                    let excess = self.barred.len().saturating_sub(MAX_BARRED);
                    self.barred.drain(..excess);
                }
                vec![LobbyEvent::Kicked { player_id }]
            }
        };
        Ok(events.into_iter().map(RoomEvent::Lobby).collect())
    }

    fn seat_of(&self, player: &PlayerId) -> Option<usize> {
        self.seats.iter().position(|m| &m.id == player)
    }

    fn leave(&mut self, player: &PlayerId, now: Millis) -> Result<Vec<RoomEvent<G>>, RoomError> {
        let seat = self.seat_of(player).ok_or(RoomError::NotAPlayer)?;
        let mut events = Vec::new();
        match self.status() {
            Status::Lobby => {
                self.seats.remove(seat);
            }
            Status::Playing => {
                // The seat stays: the game knows the player and decides what their leaving does
                // (a forfeit, or a bot taking the seat over). It works on copies, so a refusal
                // leaves the room untouched.
                if let Some(state) = self.game.as_mut() {
                    let mut next = state.clone();
                    let mut rng = self.rng.clone();
                    let fired =
                        G::leave(&mut next, player, &mut rng, now).map_err(super::rule_error)?;
                    *state = next;
                    self.rng = rng;
                    events.extend(fired.into_iter().map(RoomEvent::Game));
                }
                self.seats[seat].left = true;
            }
            Status::Finished => self.seats[seat].left = true,
        }
        events.push(RoomEvent::Lobby(LobbyEvent::Left {
            player_id: player.clone(),
        }));
        if *player == self.host
            && let Some(next) = self.next_host(seat)
        {
            self.host = next.clone();
            events.push(RoomEvent::Lobby(LobbyEvent::HostChanged {
                player_id: next,
            }));
        }
        Ok(events)
    }

    /// The member after `seat` (wrapping) who is still present: the host role passes to them.
    /// In the lobby the leaver's seat is already gone, so `seat` now holds the next member.
    fn next_host(&self, seat: usize) -> Option<PlayerId> {
        let n = self.seats.len();
        let start = if self.game.is_none() { seat } else { seat + 1 };
        (0..n)
            .map(|i| &self.seats[(start + i) % n.max(1)])
            .find(|m| !m.left && m.bot.is_none())
            .map(|m| m.id.clone())
    }
}

impl<G: Game> Room<G> {
    /// Ids of the members whose presence still matters: seated and not gone. A player who left
    /// the lobby or was kicked has no seat; one who left a running game keeps the seat but can
    /// no longer authenticate. Stores drop the presence entries of everyone else on save, so
    /// join/leave cycles cannot grow a room's presence without bound.
    pub fn present_ids(&self) -> impl Iterator<Item = &PlayerId> {
        self.seats
            .iter()
            .filter(|m| !m.left && m.bot.is_none())
            .map(|m| &m.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::GameRng;
    use crate::room::TokenHash;
    use crate::yut::Yut;

    #[test]
    fn a_kicked_player_cannot_rejoin_from_the_same_address() {
        let (mut room, host) = Room::<Yut>::create(
            "r".into(),
            "방장".into(),
            TokenHash::of("h"),
            Default::default(),
            GameRng::seed_from_u64(1),
            0,
        )
        .unwrap();
        let pest = client_hash("r", &[10, 0, 0, 9]);
        let friend = client_hash("r", &[10, 0, 0, 7]);
        let p2 = room
            .join_from("손님".into(), TokenHash::of("a"), pest, 1)
            .unwrap();
        room.act(
            &host,
            RoomAction::Lobby(LobbyAction::Kick { player_id: p2 }),
            2,
        )
        .unwrap();
        assert_eq!(
            room.join_from("손님2".into(), TokenHash::of("b"), pest, 3),
            Err(RoomError::Kicked)
        );
        assert!(
            room.join_from("친구".into(), TokenHash::of("c"), friend, 4)
                .is_ok()
        );
        // The hash is per room: the same address elsewhere is a stranger.
        assert_ne!(client_hash("other", &[10, 0, 0, 9]), pest);
        assert_eq!(room.barred, vec![pest]);
    }

    #[test]
    fn a_room_remembers_a_bounded_number_of_kicked_addresses() {
        let (mut room, host) = Room::<Yut>::create(
            "r".into(),
            "방장".into(),
            TokenHash::of("h"),
            Default::default(),
            GameRng::seed_from_u64(1),
            0,
        )
        .unwrap();
        for i in 0..(MAX_BARRED as u8 + 3) {
            let p = room
                .join_from("손님".into(), TokenHash::of("x"), client_hash("r", &[i]), 1)
                .unwrap();
            room.act(
                &host,
                RoomAction::Lobby(LobbyAction::Kick { player_id: p }),
                2,
            )
            .unwrap();
        }
        assert_eq!(room.barred.len(), MAX_BARRED);
        assert!(
            room.join_from("첫째".into(), TokenHash::of("y"), client_hash("r", &[0]), 3)
                .is_ok()
        );
    }
}
