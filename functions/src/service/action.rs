//! An action as the edge read it ([`crate::api::actions`]), typed for either game, and how it
//! becomes the action of the room's game once the room is loaded.

use madang_core::Game;
use madang_core::baduk::{Baduk, BadukAction, BadukOptions};
use madang_core::room::{LobbyAction, RoomAction, RoomError, Version};
use madang_core::yut::{self, Yut, YutOptions};
use serde::Deserialize;

use crate::api::events::Wire;

/// `POST /rooms/{id}/actions`, parsed.
#[derive(Clone, Debug)]
pub struct ActionRequest {
    /// The version the client acted on; a stale one is refused with 409 and the current room.
    pub expected_version: Option<Version>,
    /// The action's `type` as sent (for logs; `""` when it has none).
    pub kind: String,
    /// The action, or — when no game accepts it — how each game refuses it.
    pub action: Result<Action, Box<Refusal>>,
}

/// An action, typed. The games' `type`s do not overlap, so the edge knows which game an action
/// belongs to before it knows the room's.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A lobby action (every game has them).
    Lobby(LobbyAction<Options>),
    /// A 윷놀이 action.
    Yut(yut::Action),
    /// A 바둑 action.
    Baduk(BadukAction),
}

/// `setOptions`'s options, read for each game: the room's game picks its own.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// As 윷놀이 options.
    pub yut: Result<YutOptions, RoomError>,
    /// As 바둑 options.
    pub baduk: Result<BadukOptions, RoomError>,
}

/// Why no game accepts an action, in each game's words (`BAD_ACTION`).
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// 윷놀이's.
    pub yut: RoomError,
    /// 바둑's.
    pub baduk: RoomError,
}

impl Refusal {
    /// The same refusal for every game.
    pub fn same(why: RoomError) -> Self {
        Refusal {
            yut: why.clone(),
            baduk: why,
        }
    }
}

impl ActionRequest {
    /// Whether this is `{"type": "rematch"}` (the same for every game).
    pub fn is_rematch(&self) -> bool {
        matches!(self.action, Ok(Action::Lobby(LobbyAction::Rematch)))
    }

    /// The action for a room of game `G`, or why it is not one of `G`'s (400 `BAD_ACTION`).
    pub fn for_game<G: Pick>(&self) -> Result<RoomAction<G>, RoomError> {
        match self.action.as_ref().map_err(|r| G::refusal(r).clone())? {
            Action::Lobby(lobby) => lobby_for::<G>(lobby).map(RoomAction::Lobby),
            action => match G::own(action) {
                Some(action) => Ok(RoomAction::Game(action.clone())),
                None => Err(foreign::<G>(&self.kind)),
            },
        }
    }
}

fn lobby_for<G: Pick>(action: &LobbyAction<Options>) -> Result<LobbyAction<G::Options>, RoomError> {
    Ok(match action {
        LobbyAction::SetOptions { options } => LobbyAction::SetOptions {
            options: G::options(options).clone()?,
        },
        LobbyAction::MoveSeat { player_id, seat } => LobbyAction::MoveSeat {
            player_id: player_id.clone(),
            seat: *seat,
        },
        LobbyAction::Start => LobbyAction::Start,
        LobbyAction::Leave => LobbyAction::Leave,
        LobbyAction::Kick { player_id } => LobbyAction::Kick {
            player_id: player_id.clone(),
        },
        LobbyAction::Unkick { player_id } => LobbyAction::Unkick {
            player_id: player_id.clone(),
        },
        LobbyAction::Rematch => LobbyAction::Rematch,
        LobbyAction::AddBot { level } => LobbyAction::AddBot { level: *level },
    })
}

/// How `G`'s own action parser refuses a `type` that belongs to another game: asked of the
/// parser with the type alone (serde's in-memory map, no JSON read again), so the words are
/// the ones a wrong `type` always got ("unknown variant `THROW`, expected one of `place`, …").
fn foreign<G: Game>(kind: &str) -> RoomError {
    use serde::de::value::{Error, MapDeserializer};
    let probe = MapDeserializer::<_, Error>::new(std::iter::once(("type", kind)));
    match G::Action::deserialize(probe) {
        Err(e) => RoomError::BadAction(e.to_string()),
        Ok(_) => RoomError::BadAction(format!("`{kind}`")),
    }
}

/// The games an [`Action`] can be for: each picks what is its own.
pub trait Pick: Game<Event: Wire> + Sized {
    /// This game's action, if `action` is one.
    fn own(action: &Action) -> Option<&Self::Action>;
    /// This game's reading of `setOptions`'s options.
    fn options(options: &Options) -> &Result<Self::Options, RoomError>;
    /// This game's refusal.
    fn refusal(refusal: &Refusal) -> &RoomError;
}

impl Pick for Yut {
    fn own(action: &Action) -> Option<&yut::Action> {
        match action {
            Action::Yut(a) => Some(a),
            _ => None,
        }
    }
    fn options(options: &Options) -> &Result<YutOptions, RoomError> {
        &options.yut
    }
    fn refusal(refusal: &Refusal) -> &RoomError {
        &refusal.yut
    }
}

impl Pick for Baduk {
    fn own(action: &Action) -> Option<&BadukAction> {
        match action {
            Action::Baduk(a) => Some(a),
            _ => None,
        }
    }
    fn options(options: &Options) -> &Result<BadukOptions, RoomError> {
        &options.baduk
    }
    fn refusal(refusal: &Refusal) -> &RoomError {
        &refusal.baduk
    }
}
