//! Lobby actions (`setOptions`, `moveSeat`, `start`, `leave`, `kick`) and how an action's JSON
//! becomes either a lobby action or the game's own.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Room, RoomError, Status};
use crate::game::{Game, Lineup, Millis, PlayerId};

/// An action on the lobby, tagged by `type` as in the API contract:
/// `{"type":"setOptions","options":{…}}`, `{"type":"moveSeat","playerId":"p2","seat":0}`,
/// `{"type":"start"}`, `{"type":"leave"}`, `{"type":"kick","playerId":"p2"}`. Unknown fields are
/// refused, for payload-less actions too.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "WireLobby")]
pub enum LobbyAction {
    /// Host: replace the options (validated by the game).
    SetOptions {
        /// The new options, as the game's option JSON.
        options: Value,
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
}

/// The JSON form, read field by field: serde's internally tagged enums ignore unknown fields of
/// unit variants (`{"type":"start","now":true}` would pass), so the fields are checked here.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireLobby {
    #[serde(rename = "type")]
    kind: String,
    options: Option<Value>,
    player_id: Option<PlayerId>,
    seat: Option<usize>,
}

impl TryFrom<WireLobby> for LobbyAction {
    type Error = String;

    fn try_from(w: WireLobby) -> Result<Self, String> {
        let action = match (w.kind.as_str(), w.options, w.player_id, w.seat) {
            ("setOptions", Some(options), None, None) => LobbyAction::SetOptions { options },
            ("moveSeat", None, Some(player_id), Some(seat)) => {
                LobbyAction::MoveSeat { player_id, seat }
            }
            ("start", None, None, None) => LobbyAction::Start,
            ("leave", None, None, None) => LobbyAction::Leave,
            ("kick", None, Some(player_id), None) => LobbyAction::Kick { player_id },
            (kind, ..) => return Err(format!("`{kind}`에 맞지 않는 필드예요.")),
        };
        Ok(action)
    }
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
}

impl schemars::JsonSchema for LobbyAction {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LobbyAction".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        LobbyActionSchema::json_schema(generator)
    }
}

const LOBBY_TYPES: [&str; 5] = ["setOptions", "moveSeat", "start", "leave", "kick"];

/// One action sent to `POST /rooms/{id}/actions`: a lobby action or one of the game's.
#[derive(Clone, Debug)]
pub enum RoomAction<G: Game> {
    /// A lobby action.
    Lobby(LobbyAction),
    /// A game action (`THROW`, `place`, …).
    Game(G::Action),
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
        action: LobbyAction,
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
                let options: G::Options = serde_json::from_value(options)
                    .map_err(|e| RoomError::BadAction(e.to_string()))?;
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
            LobbyAction::Start => {
                let lineup = Lineup {
                    players: self.seats.iter().map(|m| m.id.clone()).collect(),
                    host: self.host.clone(),
                };
                // Setup draws from a copy: if it refuses (wrong head count), the generator has
                // not moved.
                let mut rng = self.rng.clone();
                let state = G::setup(&lineup, &self.options, &mut rng, now)
                    .map_err(RoomError::InvalidOptions)?;
                self.rng = rng;
                self.game = Some(state);
                vec![LobbyEvent::Started]
            }
            LobbyAction::Leave => return self.leave(player, now),
            LobbyAction::Kick { player_id } => {
                if player_id == *player {
                    return Err(RoomError::CannotKickSelf);
                }
                let seat = self.seat_of(&player_id).ok_or(RoomError::UnknownPlayer)?;
                self.seats.remove(seat);
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
            .find(|m| !m.left)
            .map(|m| m.id.clone())
    }
}
