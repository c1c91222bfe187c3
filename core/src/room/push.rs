//! Web Push subscriptions of a room's seats (DESIGN "Slow 바둑 and 'your turn' notifications"):
//! what the browser's `PushSubscription.toJSON()` gave, kept in the room (so they live and expire
//! with it, and a rematch takes them along), at most [`MAX_PUSH_PER_SEAT`] per seat. Which
//! seats are awaited, for the server to tell the ones that are away.

use serde::{Deserialize, Serialize};

use super::{Presence, Room};
use crate::game::{Game, Millis, PlayerId};

/// Subscriptions a seat may hold: a phone, a tablet, a laptop.
pub const MAX_PUSH_PER_SEAT: usize = 3;
/// The longest endpoint URL kept (the major push services' are under 600 bytes).
pub const MAX_ENDPOINT_LEN: usize = 1024;

/// One browser's push subscription, for one seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushSubscription {
    /// The seat it notifies.
    pub player: PlayerId,
    /// The push service's URL for this browser.
    pub endpoint: String,
    /// The browser's P-256 public key (`keys.p256dh`, base64url).
    pub p256dh: String,
    /// The browser's authentication secret (`keys.auth`, base64url).
    pub auth: String,
}

impl<G: Game> Room<G> {
    /// Adds (or renews) a subscription of `sub.player`'s seat: the same endpoint is replaced,
    /// and a fourth one pushes out the seat's oldest. An accepted change (version + 1).
    pub fn subscribe(&mut self, sub: PushSubscription, now: Millis) {
        self.push.retain(|s| s.endpoint != sub.endpoint);
        let mine: Vec<usize> = (0..self.push.len())
            .filter(|&i| self.push[i].player == sub.player)
            .collect();
        if mine.len() >= MAX_PUSH_PER_SEAT {
            self.push.remove(mine[0]);
        }
        self.push.push(sub);
        self.accept(now);
    }

    /// Removes `player`'s subscription at `endpoint`; whether there was one (an accepted change
    /// only then).
    pub fn unsubscribe(&mut self, player: &PlayerId, endpoint: &str, now: Millis) -> bool {
        let before = self.push.len();
        self.push
            .retain(|s| !(s.endpoint == endpoint && &s.player == player));
        let removed = self.push.len() != before;
        if removed {
            self.accept(now);
        }
        removed
    }

    /// Removes every subscription at `endpoint` (the push service said it is gone: 404/410).
    pub fn forget_endpoint(&mut self, endpoint: &str, now: Millis) -> bool {
        let before = self.push.len();
        self.push.retain(|s| s.endpoint != endpoint);
        let removed = self.push.len() != before;
        if removed {
            self.accept(now);
        }
        removed
    }

    /// The people (no computer player, nobody who left) whose action the game awaits now: their
    /// turn, or an answer they owe (바둑: an undo request, a draw offer, the score agreement).
    pub fn awaited_people(&self) -> Vec<PlayerId> {
        let Some(state) = self.game.as_ref() else {
            return Vec::new();
        };
        if G::result(state).is_some() {
            return Vec::new();
        }
        self.present_ids()
            .filter(|p| G::bot_awaited(state, p))
            .cloned()
            .collect()
    }

    /// The subscriptions of `player`'s seat.
    pub fn subscriptions_of<'a>(
        &'a self,
        player: &'a PlayerId,
    ) -> impl Iterator<Item = &'a PushSubscription> + 'a {
        self.push.iter().filter(move |s| &s.player == player)
    }

    /// Records that the "time is low" push for `deadline` went out (an accepted change); false
    /// when it already had.
    pub fn remind(&mut self, deadline: Millis, now: Millis) -> bool {
        if self.reminded == Some(deadline) {
            return false;
        }
        self.reminded = Some(deadline);
        self.accept(now);
        true
    }

    /// Whether `player` has no open connection to the room at `now` (no request within the
    /// presence window): the one a push is for.
    pub fn is_away(&self, player: &PlayerId, presence: &Presence, now: Millis) -> bool {
        !self.is_connected(player, presence, now)
    }
}
