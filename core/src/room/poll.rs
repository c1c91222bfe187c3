//! How soon a client should read a room again: the answer's `pollAfterMs` (and `Retry-After`).
//!
//! A client that short-polls pays one request per poll, so it should poll often only while a
//! change may come any moment and matter to it, and rarely otherwise. The room knows which: whose
//! action is awaited, when the next timeout fires, and whether the game is on at all. This is a
//! pure function of the room, the viewer, the presence the deadlines depend on, and `now`.
//!
//! | situation | poll again after |
//! |---|---|
//! | the game is over | [`POLL_FINISHED_MS`] (nothing will change) |
//! | lobby | [`POLL_SOON_MS`] (someone may join; the host waits to start) |
//! | playing, the viewer is a player whose action is **not** awaited | [`POLL_SOON_MS`] |
//! | playing, the viewer's own action is awaited | [`POLL_AWAITED_MS`] (only rarer changes: an offer, a teammate's recommendation) |
//! | playing, a spectator | [`POLL_SPECTATOR_MS`] |
//!
//! and never later than just after the room's next deadline, so a poller sees a timeout fire
//! on time (its own read fires it), never sooner than [`POLL_MIN_MS`].

use super::{Presence, Room, Status};
use crate::game::{Game, Millis, PlayerId};

/// A change may come any moment and the viewer is waiting for it: a change reaches a
/// short-polling client within this long.
pub const POLL_SOON_MS: Millis = 1_000;
/// The viewer's own action is awaited: others rarely change the room meanwhile.
pub const POLL_AWAITED_MS: Millis = 3_000;
/// A spectator (no token) follows the game, a little less eagerly than the players.
pub const POLL_SPECTATOR_MS: Millis = 2_000;
/// A finished room changes only when someone asks for a rematch (한 판 더): the others should
/// follow within a few seconds, not a minute. Once the rematch is named, it changes no more.
pub const POLL_FINISHED_MS: Millis = 3_000;
/// A finished room whose rematch is named: only a rare refresh.
pub const POLL_DONE_MS: Millis = 60_000;
/// The floor: a deadline a moment away still leaves this long between polls.
pub const POLL_MIN_MS: Millis = 250;
/// How long after a deadline to poll: the timeout is due by then, and the read fires it.
pub const AFTER_DEADLINE_MS: Millis = 100;

impl<G: Game> Room<G> {
    /// How many ms `viewer` (`None`: a spectator) should wait at `now` before reading the room
    /// again (see the module docs for the table).
    pub fn poll_after(
        &self,
        viewer: Option<&PlayerId>,
        presence: &Presence,
        now: Millis,
    ) -> Millis {
        let base = match (self.status(), &self.game) {
            (Status::Finished, _) if self.rematch.is_some() => return POLL_DONE_MS,
            (Status::Finished, _) => return POLL_FINISHED_MS,
            (Status::Lobby, _) | (Status::Playing, None) => POLL_SOON_MS,
            (Status::Playing, Some(state)) => match viewer {
                None => POLL_SPECTATOR_MS,
                Some(viewer) if G::active_players(state).contains(viewer) => POLL_AWAITED_MS,
                Some(_) => POLL_SOON_MS,
            },
        };
        let until_deadline = self
            .deadline_at(presence, now)
            .map(|deadline| deadline.saturating_sub(now) + AFTER_DEADLINE_MS);
        until_deadline
            .map_or(base, |d| d.min(base))
            .max(POLL_MIN_MS)
    }
}
