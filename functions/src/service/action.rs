//! An action as the edge checked it ([`crate::api::actions`]), and how it is read, once, for
//! the game of the room it was sent to.
//!
//! The room's game is known only once the room is loaded, so the edge reads what every game
//! reads alike — the `type`, a lobby action's fields — and keeps the rest as the text it was
//! sent as: a game action, and `setOptions`'s options, are read here by the loaded room's game
//! alone (a 윷놀이 room reads only 윷놀이 actions). Everything that refuses a body as a whole
//! (a key twice, `options` not an object) was refused at the edge, before any room was loaded.

use std::borrow::Cow;

use madang_core::Game;
use madang_core::room::{LobbyAction, RoomAction, RoomError, Version};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::api::strict;

/// `POST /rooms/{id}/actions`, checked: it borrows the action's text from the request body.
#[derive(Clone, Debug)]
pub struct ActionRequest<'a> {
    /// The version the client acted on; a stale one is refused with 409 and the current room.
    pub expected_version: Option<Version>,
    /// The action's `type` as sent (for logs; `""` when it has none).
    pub kind: Cow<'a, str>,
    /// The action, as far as the edge reads it.
    pub action: SentAction<'a>,
}

/// An action as far as it reads alike for every game.
#[derive(Clone, Debug)]
pub enum SentAction<'a> {
    /// A lobby action (its `type` is one of `LobbyActionSchema`'s): its fields read, its
    /// options (if any) still text; or why its fields are refused.
    Lobby(Result<LobbyAction<&'a RawValue>, LobbyRefusal<'a>>),
    /// Any other action's text, read by the room's game (a `type` of no game's is refused in
    /// that game's words).
    Game(&'a str),
}

/// Why a lobby action's fields are refused (`BAD_ACTION`), and the options sent with it: a
/// game that refuses those says so first, as when options were read with the rest.
#[derive(Clone, Debug)]
pub struct LobbyRefusal<'a> {
    /// The options as sent, if they are to be read first.
    pub options: Option<&'a RawValue>,
    /// The refusal of the fields.
    pub why: RoomError,
}

impl ActionRequest<'_> {
    /// Whether this is `{"type": "rematch"}` (the same for every game).
    pub fn is_rematch(&self) -> bool {
        matches!(self.action, SentAction::Lobby(Ok(LobbyAction::Rematch)))
    }

    /// The action for a room of game `G`, read by `G` alone, or why it is not one of `G`'s (400
    /// `BAD_ACTION`, in `G`'s parser's words).
    pub fn for_game<G: Game>(&self) -> Result<RoomAction<G>, RoomError> {
        match &self.action {
            SentAction::Game(text) => read(text).map(RoomAction::Game),
            SentAction::Lobby(Ok(action)) => lobby_for::<G>(action).map(RoomAction::Lobby),
            SentAction::Lobby(Err(refused)) => {
                if let Some(options) = refused.options {
                    read::<G::Options>(options.get())?;
                }
                Err(refused.why.clone())
            }
        }
    }
}

/// `text` read strictly as a `T`, or `BAD_ACTION` in the parser's words.
fn read<T: DeserializeOwned>(text: &str) -> Result<T, RoomError> {
    strict::from_str(text).map_err(|e| bad(&e))
}

/// A refusal of an action in the parser's words (without a position: the action is short).
pub(crate) fn bad(e: &serde_json::Error) -> RoomError {
    RoomError::BadAction(strict::message(e))
}

fn lobby_for<G: Game>(
    action: &LobbyAction<&RawValue>,
) -> Result<LobbyAction<G::Options>, RoomError> {
    Ok(match action {
        LobbyAction::SetOptions { options } => LobbyAction::SetOptions {
            options: read(options.get())?,
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
