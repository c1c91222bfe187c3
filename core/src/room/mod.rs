//! A game room: the lobby around a game, its version, its players' token hashes and the
//! bookkeeping that makes a stateless server safe.
//!
//! Every accepted change — a lobby action, a game action, a timeout fired on someone's behalf —
//! bumps [`Room::version`] by exactly one (the spec's `turnSeq`). The store writes a room only if
//! its version is still the one that was loaded, so two racing requests never both land.
//!
//! A request works on a room in one straight line: [`Room::catch_up`] fires every overdue timeout
//! of a person (each at its own deadline, so the outcome is the same as if a timer had fired on
//! time; a computer player's due move is left to the server's thinker, [`Room::play_out`]), then
//! [`Room::act`] applies the caller's action, then the caller saves and renders a [`RoomView`].
//! A refused action leaves the room exactly as it was.

mod any;
mod bot;
mod error;
mod id;
mod ledger;
mod lobby;
mod name;
mod poll;
mod push;
mod replay;
mod version;
mod view;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use any::{AnyBotChoice, AnyRoom, DecodeError, FORMAT, GameKind, OLDEST_FORMAT};
pub(crate) use any::{reading_before, since_format_5, since_format_6};
use bot::Due;
pub use bot::{BOT_THINK_MAX_MS, BOT_THINK_MIN_MS, BotChoice, PlanLanded, bot_name};
pub use error::{ErrorKind, RoomError};
pub use id::{RoomId, digest_of};
pub use ledger::{ANSWERS_PER_PLAYER, Answer, Ledger, RECENT_REQUESTS, RequestId};
pub use lobby::{LobbyAction, LobbyEvent, MAX_BARRED, RoomAction, RoomEvent, bar_of};
pub use name::{
    BOT_NAME_PREFIX, MAX_MARKS_PER_GRAPHEME, MAX_NAME_BYTES, MAX_NAME_GRAPHEMES, PlayerName,
    clean_text, fold as fold_name, player_name, reads_as_bot_name, spectator_name,
};
pub use poll::{
    AFTER_DEADLINE_MS, POLL_AWAITED_MS, POLL_FINISHED_MS, POLL_MIN_MS, POLL_SOON_MS,
    POLL_SPECTATOR_MS,
};
pub use push::{MAX_ENDPOINT_LEN, MAX_PUSH_PER_SEAT, PushSubscription};
pub use replay::{CHECKPOINT_EVERY, GameLog, MAX_LOGGED_SEATS, Replay, ReplayError};
pub(crate) use replay::{put_varint, take_byte, take_varint};
pub use version::Version;
pub use view::{PlayerView, ResultView, RoomView, Status};

use crate::game::{Actor, Game, Millis, PlayerId, RuleError};
use crate::rng::GameRng;

/// A player whose last request is older than this counts as disconnected. Clients long-poll for
/// up to 25 s, so a connected client is never silent for longer than that plus a round trip.
pub const PRESENCE_WINDOW_MS: Millis = 45_000;

/// Finished rooms are kept this long, then the store may drop them.
pub const FINISHED_TTL_MS: Millis = 7 * 24 * 3600 * 1000;
/// Lobbies that never start are kept this long.
pub const LOBBY_TTL_MS: Millis = 24 * 3600 * 1000;
/// A running game nobody touches for this long is abandoned.
pub const PLAYING_TTL_MS: Millis = 30 * 24 * 3600 * 1000;

/// Catch-up never fires more than this many timeouts in one go: a bound on the work a single
/// request can do, even for a room left alone for weeks (the rest fires on the next load).
pub const MAX_TIMEOUTS_PER_CATCH_UP: usize = 1_000;

/// When each player was last seen (epoch ms), kept by the store outside the versioned room so
/// that polling never costs a versioned write.
pub type Presence = BTreeMap<PlayerId, Millis>;

/// What one step of the catch-up ([`Room::catch_up_one`]) fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    /// A person's deadline (or grace period) passed: the game's timeout action.
    Timeout,
    /// A computer player of `level` moved; `fallback`: its own choice failed (an engine error,
    /// or a move the rules refused) and the game's fallback was played instead (바둑 resigns).
    Bot {
        /// The computer player's level.
        level: u8,
        /// The fallback was played.
        fallback: bool,
    },
}

/// A computer player's move that is next in a room: who makes it, at what level, when it is
/// due, and the room's version it follows. Two turns are the same move only if all four match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotTurn {
    /// The seat the computer player plays.
    pub player: PlayerId,
    /// Its level.
    pub level: u8,
    /// When the move is due (the room's `deadlineAt`).
    pub at: Millis,
    /// The room's version before the move.
    pub version: u64,
}

/// One fired timeout: what it was and what it did.
#[derive(Debug)]
pub struct CaughtUp<G: Game> {
    /// What fired.
    pub fired: Fired,
    /// Its events.
    pub events: Vec<G::Event>,
}

/// The hash of a bearer token: tokens are shown once and stored only as this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenHash(pub [u8; 16]);

impl TokenHash {
    /// Hashes a token (SHA-256, first 128 bits: plenty for random 128-bit tokens, half the bytes
    /// in every stored room).
    pub fn of(token: &str) -> Self {
        let digest = Sha256::digest(token.as_bytes());
        let mut out = [0u8; 16];
        out.copy_from_slice(&digest[..16]);
        TokenHash(out)
    }
}

/// A person with a seat in the room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// Room-scoped id, shown to everyone.
    pub id: PlayerId,
    /// Display name.
    pub name: String,
    /// Hash of the member's bearer token.
    pub token: TokenHash,
    /// When they joined (counts as "last seen" until they poll).
    pub joined_at: Millis,
    /// They left a running game: the seat stays (the game knows it), the token no longer works.
    pub left: bool,
    /// Unused since kicks bar tokens ([`bar_of`]); always 0. Kept so stored rooms keep
    /// their shape.
    pub client: u64,
    /// A computer player of this level (`addBot`), or `None` for a person. A bot has no token
    /// that works ([`Room::authenticate`] never matches it) and no presence.
    #[serde(deserialize_with = "any::since_format_5")]
    pub bot: Option<u8>,
}

/// A room of game `G`. (`Clone` and `PartialEq` come from `derive_where`, which bounds only the
/// fields and not the zero-sized game marker, as std's derives would; every field takes part, so
/// a new one cannot be left out. `Debug` is written out below to show less.)
#[derive(Serialize, Deserialize)]
#[derive_where::derive_where(Clone, PartialEq)]
#[serde(bound = "")]
pub struct Room<G: Game> {
    /// Unguessable room id.
    pub id: String,
    /// Grows by one on every accepted change.
    pub version: u64,
    /// The host: may change options, seats, kick, start.
    pub host: PlayerId,
    /// Members in seat order: `seats[i]` sits in seat `i`.
    pub seats: Vec<Member>,
    /// The game's options (validated by the game whenever they change).
    pub options: G::Options,
    /// The running or finished game; `None` in the lobby.
    pub game: Option<G::State>,
    /// The room's generator; never shown to anyone.
    pub rng: GameRng,
    /// When the room was created.
    pub created_at: Millis,
    /// When the last change was accepted.
    pub updated_at: Millis,
    /// Number for the next player id (`p1`, `p2`, …).
    pub next_player_no: u32,
    /// Recent requests and keyed answers, so that none is applied twice.
    pub ledger: Ledger,
    /// Kicked members (their number and [`bar_of`] their token), newest last, at most
    /// [`MAX_BARRED`]: a join holding a kicked token is refused. A rematch lobby keeps them.
    pub barred: Vec<u64>,
    /// The rematch lobby of this finished game (한 판 더), once someone asked for it.
    pub rematch: Option<String>,
    /// The seats' Web Push subscriptions ([`PushSubscription`]), at most [`MAX_PUSH_PER_SEAT`]
    /// a seat; never shown in a view.
    #[serde(deserialize_with = "any::since_format_7")]
    pub push: Vec<PushSubscription>,
    /// The deadline whose "time is low" push went out (`timeLow`, once per deadline).
    #[serde(deserialize_with = "any::since_format_7")]
    pub reminded: Option<Millis>,
    /// The game's replay log ([`GameLog`]), from its start on; `None` in the lobby, and for a
    /// game started before rooms kept one (format 7).
    #[serde(deserialize_with = "any::since_format_7")]
    pub replay: Option<GameLog>,
}

impl<G: Game> std::fmt::Debug for Room<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Room")
            .field("id", &self.id)
            .field("game", &G::NAME)
            .field("version", &self.version)
            .field("host", &self.host)
            .field("seats", &self.seats)
            .field("options", &self.options)
            .field("state", &self.game)
            .finish_non_exhaustive()
    }
}

impl<G: Game> Room<G> {
    /// Opens a lobby with its creator as host in seat 0.
    pub fn create(
        id: String,
        host_name: String,
        host_token: TokenHash,
        options: G::Options,
        rng: GameRng,
        now: Millis,
    ) -> Result<(Self, PlayerId), RoomError> {
        G::validate_options(&options, None).map_err(RoomError::InvalidOptions)?;
        let mut room = Room {
            id,
            version: 0,
            host: PlayerId::new("p1"),
            seats: Vec::new(),
            options,
            game: None,
            rng,
            created_at: now,
            updated_at: now,
            next_player_no: 1,
            ledger: Ledger::default(),
            barred: Vec::new(),
            rematch: None,
            push: Vec::new(),
            reminded: None,
            replay: None,
        };
        let host = room.seat_new_member(host_name, host_token, 0, now);
        room.host = host.clone();
        room.version = 1;
        Ok((room, host))
    }

    /// Where the room is in its life.
    pub fn status(&self) -> Status {
        match &self.game {
            None => Status::Lobby,
            Some(state) if G::result(state).is_some() => Status::Finished,
            Some(_) => Status::Playing,
        }
    }

    /// The member a token belongs to, if any (members who left a game no longer authenticate,
    /// and a computer player has no token).
    pub fn authenticate(&self, token: &TokenHash) -> Option<&PlayerId> {
        self.seats
            .iter()
            .find(|m| !m.left && m.bot.is_none() && m.token == *token)
            .map(|m| &m.id)
    }

    /// The seated member with this id.
    pub fn member(&self, id: &PlayerId) -> Option<&Member> {
        self.seats.iter().find(|m| &m.id == id)
    }

    /// Takes a new player into the lobby, in the next free seat, from an unknown address.
    pub fn join(
        &mut self,
        name: String,
        token: TokenHash,
        now: Millis,
    ) -> Result<PlayerId, RoomError> {
        self.join_from(name, token, 0, now)
    }

    /// Takes a new player into the lobby. `bar` is [`bar_of`] the token the joiner already held
    /// for this room, if any (0: none): refused with [`RoomError::Kicked`] if that token was
    /// kicked. A name someone in the room already goes by is refused ([`RoomError::NameTaken`]). A lobby whose host is gone (the last member left) gets the joiner as its host: a
    /// lobby always has a host who is in it.
    pub fn join_from(
        &mut self,
        name: String,
        token: TokenHash,
        bar: u64,
        now: Millis,
    ) -> Result<PlayerId, RoomError> {
        if self.is_barred(bar) {
            return Err(RoomError::Kicked);
        }
        let folded = name::fold(&name);
        if self.seats.iter().any(|m| name::fold(&m.name) == folded) {
            return Err(RoomError::NameTaken);
        }
        if self.game.is_some() {
            return Err(RoomError::AlreadyStarted);
        }
        if self.seats.len() >= G::max_players(&self.options) {
            return Err(RoomError::RoomFull);
        }
        let id = self.seat_new_member(name, token, 0, now);
        if self.member(&self.host).is_none() {
            self.host = id.clone();
        }
        self.accept(now);
        Ok(id)
    }

    fn seat_new_member(
        &mut self,
        name: String,
        token: TokenHash,
        client: u64,
        now: Millis,
    ) -> PlayerId {
        let id = PlayerId::new(format!("p{}", self.next_player_no));
        self.next_player_no += 1;
        self.seats.push(Member {
            id: id.clone(),
            name,
            token,
            joined_at: now,
            left: false,
            client,
            bot: None,
        });
        id
    }

    /// Records an accepted change.
    fn accept(&mut self, now: Millis) {
        self.version += 1;
        self.updated_at = self.updated_at.max(now);
    }

    /// Whether `player` counts as connected at `now`.
    pub fn is_connected(&self, player: &PlayerId, presence: &Presence, now: Millis) -> bool {
        self.last_seen(player, presence)
            .is_some_and(|seen| seen + PRESENCE_WINDOW_MS >= now)
    }

    fn last_seen(&self, player: &PlayerId, presence: &Presence) -> Option<Millis> {
        let member = self.member(player)?;
        if member.left {
            return None;
        }
        Some(
            presence
                .get(player)
                .copied()
                .unwrap_or(0)
                .max(member.joined_at),
        )
    }

    /// When `player`'s timeout fires: the game's own deadline, or earlier when they are
    /// disconnected — a grace period after they dropped (or after their turn began, whichever
    /// is later), so a vanished player never holds the table for a whole main time.
    fn timeout_at(
        &self,
        state: &G::State,
        player: &PlayerId,
        presence: &Presence,
    ) -> Option<Millis> {
        let deadline = G::deadline(state);
        let dropped = match self.last_seen(player, presence) {
            Some(seen) => seen + PRESENCE_WINDOW_MS,
            // Left the room: they are gone for good.
            None => self.updated_at,
        };
        let early = G::disconnect_grace(state).map(|grace| dropped.max(self.updated_at) + grace);
        match (deadline, early) {
            (Some(d), Some(e)) => Some(d.min(e)),
            (d, e) => d.or(e),
        }
    }

    /// The next moment a timeout fires, with the player it fires for: a person's deadline (or
    /// grace period), or a computer player's move after its think time ([`bot::Due`]).
    fn next_timeout(&self, presence: &Presence) -> Option<(Millis, PlayerId, Due)> {
        let state = self.game.as_ref()?;
        if G::result(state).is_some() {
            return None;
        }
        let people = G::active_players(state)
            .into_iter()
            .filter(|p| self.bot_level(state, p).is_none())
            .filter_map(|p| {
                self.timeout_at(state, &p, presence)
                    .map(|at| (at, p, Due::Timeout))
            });
        people.chain(self.bots_due(state)).min()
    }

    /// When the next timeout fires if nobody shows up again (what the sweeper indexes): a
    /// player's grace period is counted as if they dropped when their presence window closes.
    pub fn due_at(&self, presence: &Presence) -> Option<Millis> {
        self.next_timeout(presence).map(|(at, ..)| at)
    }

    /// The deadline players are shown at `now`: the game's own deadline, or the end of the grace
    /// period of an active player who is disconnected right now.
    pub fn deadline_at(&self, presence: &Presence, now: Millis) -> Option<Millis> {
        let state = self.game.as_ref()?;
        if G::result(state).is_some() {
            return None;
        }
        let people = G::active_players(state)
            .into_iter()
            .filter(|p| self.bot_level(state, p).is_none())
            .filter_map(|p| {
                if self.is_connected(&p, presence, now) {
                    G::deadline(state)
                } else {
                    self.timeout_at(state, &p, presence)
                }
            });
        people.chain(self.bots_due(state).map(|(at, ..)| at)).min()
    }

    /// Fires every person's timeout due at `now`, oldest first, each at its own deadline, and
    /// stops before a computer player's move (see [`Room::catch_up_one`]). Each fired timeout is
    /// an accepted change (version + 1). Returns what happened.
    pub fn catch_up(&mut self, now: Millis, presence: &Presence) -> Vec<G::Event> {
        let mut events = Vec::new();
        for _ in 0..MAX_TIMEOUTS_PER_CATCH_UP {
            let Some(mut step) = self.catch_up_one(now, presence) else {
                break;
            };
            events.append(&mut step.events);
        }
        events
    }

    /// Fires the oldest timeout due at `now` if it is a person's, at its own deadline (the
    /// version goes up by one), or nothing (`None`): nothing is due, or what is due first is a
    /// computer player's move ([`Room::bot_turn`]).
    ///
    /// This is what a request runs. A computer player's move is a search (a 19줄 바둑 move takes
    /// about a second), so it is never made inside a request: the server hands it to one
    /// thinker per room ([`Room::play_one`]), and readers see it arrive as a new version. The
    /// timeouts behind it wait for it, since they fire in order.
    pub fn catch_up_one(&mut self, now: Millis, presence: &Presence) -> Option<CaughtUp<G>> {
        let (at, player, due) = self.next_timeout(presence)?;
        if at > now || due != Due::Timeout {
            return None;
        }
        let state = self.game.as_mut()?;
        let action = G::on_timeout(state, &player, at)?;
        let deadline = G::deadline(state);
        // An `Err`: the engine chose an action it then refused, a bug in the engine. Stop rather
        // than spin; the room stays as it was before this timeout.
        let events = G::apply(state, Actor::Timeout(&player), &action, &mut self.rng, at).ok()?;
        self.log_timeout(&player, at, deadline);
        self.accept(at);
        Some(CaughtUp {
            fired: Fired::Timeout,
            events,
        })
    }

    /// The computer player's move that comes next among the room's timeouts, due or not
    /// (`None`: the next timeout is a person's, or there is none).
    pub fn bot_turn(&self, presence: &Presence) -> Option<BotTurn> {
        match self.next_timeout(presence)? {
            (at, player, Due::Bot(level)) => Some(BotTurn {
                player,
                level,
                at,
                version: self.version,
            }),
            _ => None,
        }
    }

    /// Fires the oldest timeout due at `now`, a person's or a computer player's (whose move the
    /// engine searches here: the expensive step), at its own deadline (version + 1), or nothing.
    /// What the server's thinker runs, off the request path; [`Room::play_out`] is this,
    /// repeated.
    pub fn play_one(&mut self, now: Millis, presence: &Presence) -> Option<CaughtUp<G>> {
        let Some(turn) = self.bot_turn(presence).filter(|t| t.at <= now) else {
            return self.catch_up_one(now, presence);
        };
        let choice = self.choose(&turn)?;
        self.play_choice(choice, presence)
    }

    /// Fires every timeout due at `now`, computer players' moves included, oldest first (at
    /// most [`MAX_TIMEOUTS_PER_CATCH_UP`]).
    pub fn play_out(&mut self, now: Millis, presence: &Presence) -> Vec<G::Event> {
        let mut events = Vec::new();
        for _ in 0..MAX_TIMEOUTS_PER_CATCH_UP {
            let Some(mut step) = self.play_one(now, presence) else {
                break;
            };
            events.append(&mut step.events);
        }
        events
    }

    /// Applies one action of `player` at `now`. On `Err` the room is unchanged.
    pub fn act(
        &mut self,
        player: &PlayerId,
        action: RoomAction<G>,
        now: Millis,
    ) -> Result<Vec<RoomEvent<G>>, RoomError> {
        if self.member(player).is_none_or(|m| m.left) {
            return Err(RoomError::NotAPlayer);
        }
        let events = match action {
            RoomAction::Lobby(lobby) => self.act_lobby(player, lobby, now)?,
            RoomAction::Game(action) => {
                let state = self.game.as_ref().ok_or(RoomError::NotStarted)?;
                let before = self.before_logging(state, &action);
                let state = self.game.as_mut().ok_or(RoomError::NotStarted)?;
                let events = G::apply(state, Actor::Player(player), &action, &mut self.rng, now)
                    .map_err(rule_error)?
                    .into_iter()
                    .map(RoomEvent::Game)
                    .collect();
                self.log_act(player, &action, now, before);
                events
            }
        };
        self.accept(now);
        Ok(events)
    }

    /// The earlier answer to `player`'s `Idempotency-Key` (hashed), if that request was
    /// accepted. A key reused for a different body is an error.
    pub fn recall(
        &self,
        player: &PlayerId,
        key: u32,
        body: u32,
    ) -> Result<Option<&Answer>, RoomError> {
        self.ledger.recall(player, key, body)
    }

    /// Remembers the answer to a keyed request (saved with the change it answers, so a retry
    /// can never act twice). Answers of players no longer seated are dropped on the way.
    pub fn remember(&mut self, answer: Answer) {
        let seats = &self.seats;
        self.ledger
            .retain_players(|p| seats.iter().any(|m| &m.id == p));
        self.ledger.remember(answer);
    }

    /// The lobby of a rematch (한 판 더) of this finished game, with id `id`: the same players
    /// in the same seats (so the same teams), whose tokens of this room work there too, the
    /// game's rematch options ([`Game::rematch_options`]), the same host — or `asker` if the
    /// host left — and a fresh generator `rng` (this game's seed was revealed with its result).
    /// Players who left the game are not taken along.
    pub fn rematch_lobby(
        &self,
        id: String,
        asker: &PlayerId,
        rng: GameRng,
        now: Millis,
    ) -> Result<Room<G>, RoomError> {
        if self.status() != Status::Finished {
            return Err(RoomError::NotFinished);
        }
        if self.member(asker).is_none_or(|m| m.left) {
            return Err(RoomError::NotAPlayer);
        }
        let seats: Vec<Member> = self
            .seats
            .iter()
            .filter(|m| !m.left)
            .map(|m| Member {
                joined_at: now,
                ..m.clone()
            })
            .collect();
        // Computer players come along like everyone else, but never as the host.
        let host = if seats.iter().any(|m| m.id == self.host) {
            self.host.clone()
        } else {
            asker.clone()
        };
        let options = G::rematch_options(&self.options);
        G::validate_options(&options, None).map_err(RoomError::InvalidOptions)?;
        // The seats come along, and so do their push subscriptions.
        let push = self
            .push
            .iter()
            .filter(|s| seats.iter().any(|m| m.id == s.player))
            .cloned()
            .collect();
        Ok(Room {
            id,
            version: 1,
            host,
            seats,
            options,
            game: None,
            rng,
            created_at: now,
            updated_at: now,
            next_player_no: self.next_player_no,
            ledger: Ledger::default(),
            barred: self.barred.clone(),
            rematch: None,
            push,
            reminded: None,
            replay: None,
        })
    }

    /// Records that this finished game's rematch lobby is `id` (an accepted change: everyone
    /// polling the room sees `rematchRoomId` and moves over). Asking again changes nothing.
    pub fn mark_rematch(&mut self, id: &str, now: Millis) -> bool {
        if self.rematch.is_some() {
            return false;
        }
        self.rematch = Some(id.to_owned());
        self.accept(now);
        true
    }

    /// When the store may forget this room (epoch ms).
    pub fn expires_at(&self) -> Millis {
        self.updated_at
            + match self.status() {
                Status::Lobby => LOBBY_TTL_MS,
                Status::Playing => PLAYING_TTL_MS,
                Status::Finished => FINISHED_TTL_MS,
            }
    }
}

/// A stable 64-bit digest (SHA-256, first 8 bytes) of `parts`, each length-prefixed.
pub fn digest64(parts: &[&[u8]]) -> u64 {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    let d = h.finalize();
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// A stable 32-bit digest (SHA-256, first 4 bytes) of `bytes`, for idempotency keys and bodies.
pub fn digest32(bytes: &[u8]) -> u32 {
    let d = Sha256::digest(bytes);
    u32::from_le_bytes([d[0], d[1], d[2], d[3]])
}

fn rule_error<E: RuleError>(e: E) -> RoomError {
    RoomError::Rule {
        code: e.code(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests;
