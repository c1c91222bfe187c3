//! What a room remembers of the requests that changed it, so that no request is ever applied
//! twice — whatever the network does between the server and the store, or between the client
//! and the server.
//!
//! Two different failures need two different memories, both saved inside the room, in the same
//! conditional write as the change they describe (so they can never disagree with it):
//!
//! - **The server lost the store's answer.** A save that landed but whose answer never came back
//!   (a timeout, a dropped connection) looks like a failure; the SDK or the server retries it, and
//!   by then other saves may have landed too. Every save records its request's [`RequestId`];
//!   before redoing any work the server looks for its own id among the room's recent ones, and if
//!   it is there, the earlier attempt landed and is answered as such.
//! - **The client lost the server's answer.** A client that retries with the same
//!   `Idempotency-Key` gets the first answer again. The room keeps each player's last
//!   [`ANSWERS_PER_PLAYER`] keyed answers, so other players acting in between never push a
//!   player's own answers out.
//!
//! Both are bounded, so the room item stays small: about 8 + 14 bytes a player's answer plus the
//! events of the room's most recent keyed answer.

use serde::{Deserialize, Serialize};

use super::RoomError;
use crate::game::PlayerId;

/// How many of the most recent saves' request ids a room keeps. A retried save is recognised as
/// landed as long as fewer than this many other saves followed it — far more than can land in
/// the seconds an SDK retry takes in a turn-based room.
pub const RECENT_REQUESTS: usize = 8;

/// How many keyed answers a room keeps for each player.
pub const ANSWERS_PER_PLAYER: usize = 4;

/// The id of one request, the same across every attempt the server makes to save it: random,
/// drawn by the server when the request arrives. 32 bits: it is only ever compared with the
/// room's last [`RECENT_REQUESTS`] ids, so a false match has odds of 8 in 4 billion, and only
/// after a save whose outcome was unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RequestId(#[serde(with = "fixed32")] pub u32);

/// Random 32-bit values stored as their four bytes: postcard's varint would spend five on most.
mod fixed32 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u32, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&value.to_le_bytes(), s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        <[u8; 4]>::deserialize(d).map(u32::from_le_bytes)
    }
}

/// The first answer to a request that carried an `Idempotency-Key`, kept so that a retry gets
/// the same answer instead of acting twice. Keys and bodies are stored as 32-bit hashes: they
/// are only compared within one player's last few answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Who sent it: keys are per player.
    pub player: PlayerId,
    /// Hash of the key.
    #[serde(with = "fixed32")]
    pub key: u32,
    /// Hash of the request body, to refuse a key reused for a different request.
    #[serde(with = "fixed32")]
    pub body: u32,
    /// The version the request produced.
    pub version: u64,
    /// The events of that answer, as JSON — kept for the room's most recent keyed answer only
    /// (the one a lost answer nearly always is); `None` for older ones, whose replay carries the
    /// version and the current room.
    pub events: Option<String>,
}

/// The room's memory of recent requests.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Request ids of the most recent saves, oldest first.
    requests: Vec<RequestId>,
    /// Keyed answers, oldest first, at most [`ANSWERS_PER_PLAYER`] per player.
    answers: Vec<Answer>,
}

impl Ledger {
    /// Records that the save of `request` is about to be written.
    pub fn record(&mut self, request: RequestId) {
        if self.requests.last() == Some(&request) {
            return;
        }
        self.requests.push(request);
        let excess = self.requests.len().saturating_sub(RECENT_REQUESTS);
        self.requests.drain(..excess);
    }

    /// Whether a save of `request` is among the room's recent ones: it landed.
    pub fn landed(&self, request: RequestId) -> bool {
        self.requests.contains(&request)
    }

    /// The earlier answer to `player`'s `key`, if that request was accepted. A key reused for a
    /// different body is an error.
    pub fn recall(
        &self,
        player: &PlayerId,
        key: u32,
        body: u32,
    ) -> Result<Option<&Answer>, RoomError> {
        match self
            .answers
            .iter()
            .find(|a| a.key == key && &a.player == player)
        {
            Some(a) if a.body == body => Ok(Some(a)),
            Some(_) => Err(RoomError::IdempotencyKeyReused),
            None => Ok(None),
        }
    }

    /// Remembers a keyed answer: the player's oldest goes past [`ANSWERS_PER_PLAYER`], and only
    /// the newest answer keeps its events.
    pub fn remember(&mut self, answer: Answer) {
        for older in &mut self.answers {
            older.events = None;
        }
        let player = answer.player.clone();
        self.answers.push(answer);
        let mine = self.answers.iter().filter(|a| a.player == player).count();
        if mine > ANSWERS_PER_PLAYER
            && let Some(oldest) = self.answers.iter().position(|a| a.player == player)
        {
            self.answers.remove(oldest);
        }
    }

    /// Forgets the answers of players for whom `keep` is false (they left the lobby or were
    /// kicked: their tokens no longer work, so their keys can never come back).
    pub fn retain_players(&mut self, keep: impl Fn(&PlayerId) -> bool) {
        self.answers.retain(|a| keep(&a.player));
    }

    /// How many keyed answers are kept in all.
    pub fn answer_count(&self) -> usize {
        self.answers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_hashes_take_four_bytes_each() {
        let mut ledger = Ledger::default();
        ledger.record(RequestId(u32::MAX));
        ledger.remember(Answer {
            player: PlayerId::new("p1"),
            key: u32::MAX,
            body: u32::MAX,
            version: 3,
            events: None,
        });
        // lengths (1 + 1), id 4, player 1 + 2, key 4, body 4, version 1, no events 1.
        assert_eq!(postcard::to_allocvec(&ledger).unwrap().len(), 19);
    }

    fn answer(player: &str, key: u32, version: u64) -> Answer {
        Answer {
            player: PlayerId::new(player),
            key,
            body: 1,
            version,
            events: Some("[]".into()),
        }
    }

    #[test]
    fn a_players_answers_survive_any_number_of_other_players_answers() {
        let mut ledger = Ledger::default();
        let p1 = PlayerId::new("p1");
        for k in 0..ANSWERS_PER_PLAYER as u32 {
            ledger.remember(answer("p1", k, u64::from(k)));
        }
        for k in 0..100 {
            ledger.remember(answer("p2", k, 100 + u64::from(k)));
        }
        for k in 0..ANSWERS_PER_PLAYER as u32 {
            assert_eq!(
                ledger.recall(&p1, k, 1).ok().flatten().map(|a| a.version),
                Some(u64::from(k))
            );
        }
        assert_eq!(ledger.answer_count(), 2 * ANSWERS_PER_PLAYER);
        // A fifth answer of p1 pushes out p1's oldest, nobody else's.
        ledger.remember(answer("p1", 99, 999));
        assert_eq!(ledger.recall(&p1, 0, 1), Ok(None));
        assert!(ledger.recall(&p1, 1, 1).ok().flatten().is_some());
    }

    #[test]
    fn a_key_is_per_player_and_a_reused_key_with_another_body_is_refused() {
        let mut ledger = Ledger::default();
        ledger.remember(answer("p1", 7, 2));
        assert_eq!(
            ledger.recall(&PlayerId::new("p2"), 7, 1),
            Ok(None),
            "another player's key"
        );
        assert_eq!(
            ledger.recall(&PlayerId::new("p1"), 7, 2),
            Err(RoomError::IdempotencyKeyReused)
        );
    }

    #[test]
    fn only_the_newest_answer_keeps_its_events() {
        let mut ledger = Ledger::default();
        ledger.remember(answer("p1", 1, 2));
        ledger.remember(answer("p2", 2, 3));
        let p1 = PlayerId::new("p1");
        let p2 = PlayerId::new("p2");
        assert_eq!(
            ledger
                .recall(&p1, 1, 1)
                .ok()
                .flatten()
                .and_then(|a| a.events.clone()),
            None
        );
        assert!(
            ledger
                .recall(&p2, 2, 1)
                .ok()
                .flatten()
                .and_then(|a| a.events.clone())
                .is_some()
        );
    }

    #[test]
    fn a_request_is_recognised_until_enough_other_saves_follow_it() {
        let mut ledger = Ledger::default();
        ledger.record(RequestId(42));
        for id in 0..RECENT_REQUESTS as u32 - 1 {
            ledger.record(RequestId(1_000 + id));
        }
        assert!(ledger.landed(RequestId(42)));
        ledger.record(RequestId(7));
        assert!(!ledger.landed(RequestId(42)));
    }
}
