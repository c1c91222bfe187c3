//! The one straight path of every request: parse at the edge → authenticate → load → catch up
//! overdue timeouts → apply → conditional save → view.
//!
//! - [`save`]: the one save path every change goes through ([`save::transact`]), and the room
//!   as loaded for one request ([`Loaded`]).
//! - [`seat`]: creating a room and joining one.
//! - [`rematch`]: 한 판 더 — a finished game's players get one new lobby.
//! - [`action`]: an action as the edge checked it, read once for the room's game.
//! - [`mod@act`]: applying a lobby or game action, with `Idempotency-Key` replays.
//! - [`events`]: events rendered once, as answers carry them.
//! - [`chat`]: table talk beside the room (never through `transact`: chat changes no room).
//! - [`mod@read`]: reading a room (and long-polling it), and its SGF record.
//! - [`replay`]: a game's room after any step, replayed from its log (a read only).
//! - [`bots`]: computer players' moves in the catch-up, timed and counted once saved.
//! - [`push`]: the Web Push a saved change calls for; [`subscriptions`]: a seat's subscriptions.
//!
//! Input arrives here already parsed into typed values (a [`madang_core::room::GameKind`],
//! typed options), once, before any retry; an action arrives checked, and is read here for the
//! loaded room's game ([`action`]: the game is known only then).

pub mod act;
pub mod action;
pub mod bots;
pub mod chat;
pub mod events;
pub mod push;
pub mod read;
pub mod rematch;
pub mod replay;
pub mod review;
pub mod save;
pub mod seat;
pub mod subscriptions;

use madang_core::Game;
use madang_core::PlayerId;
use madang_core::room::{RequestId, Room};
use serde_json::value::RawValue;

pub use act::{Idempotency, act};
pub use action::{ActionRequest, LobbyRefusal, SentAction};
pub use read::{Read, read, sgf};
pub use save::{Loaded, PRESENCE_WRITE_INTERVAL_MS};
pub use seat::{NewRoom, RoomOptions, Seated, create_room, join_room};

use crate::error::ApiError;
use events::Events;

/// The answer to an accepted action.
#[derive(Debug)]
pub struct Acted {
    /// The room's version after the action.
    pub version: u64,
    /// What happened: overdue timeouts fired first, then the action's own events, then what the
    /// action made due at once (a bot's turn).
    pub events: Events,
    /// The room as the caller now sees it.
    pub room: Box<RawValue>,
    /// This is the remembered first answer to a retried `Idempotency-Key`.
    pub replayed: bool,
}

/// Fills `buf` from the OS's entropy.
pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| ApiError::Internal(Box::new(e)))?;
    Ok(buf)
}

/// A fresh id for one request (or one sweep of a room): drawn once, before its first save attempt, and recorded by the
/// attempt that lands.
pub fn new_request_id() -> Result<RequestId, ApiError> {
    Ok(RequestId(u32::from_le_bytes(random_bytes::<4>()?)))
}

/// A view rendered once, straight to JSON text: answers embed it as it is, with no
/// intermediate `serde_json::Value` tree (which cost a fifth of an action's CPU). A view that
/// cannot be rendered is a bug: a 500 with its cause in the log, never a silent `null`.
pub(crate) fn view_json<G: Game>(
    room: &Room<G>,
    viewer: Option<&PlayerId>,
    presence: &madang_core::room::Presence,
    now: madang_core::Millis,
) -> Result<Box<RawValue>, ApiError> {
    serde_json::value::to_raw_value(&room.view(viewer, presence, now))
        .map_err(|e| ApiError::Internal(Box::new(e)))
}

impl Loaded {
    /// The room as `viewer` sees it at `now`.
    pub fn view(
        &self,
        viewer: Option<&PlayerId>,
        now: madang_core::Millis,
    ) -> Result<Box<RawValue>, ApiError> {
        madang_core::with_room!(&self.room, r => view_json(r, viewer, &self.presence, now))
    }

    /// The member a token belongs to, if any.
    pub fn authenticate(&self, token: &madang_core::room::TokenHash) -> Option<PlayerId> {
        madang_core::with_room!(&self.room, r => r.authenticate(token).cloned())
    }
}
