//! Rooms of any game, as the store keeps them: one enum, so a stored room can be read back
//! without knowing its game first.

use std::cell::Cell;

use serde::{Deserialize, Deserializer, Serialize};

use super::{BotChoice, BotTurn, Fired, Presence, Room};
use crate::baduk::Baduk;
use crate::game::{Game, Millis};
use crate::yut::Yut;

/// The games a room can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// 윷놀이.
    Yut,
    /// 바둑.
    Baduk,
}

impl GameKind {
    /// Parses the API's game name (`"yut"`, `"baduk"`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            n if n == Yut::NAME => Some(GameKind::Yut),
            n if n == Baduk::NAME => Some(GameKind::Baduk),
            _ => None,
        }
    }

    /// The API's game name.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Yut => Yut::NAME,
            GameKind::Baduk => Baduk::NAME,
        }
    }
}

/// A room of either game.
// One room lives per request and is never stored in bulk, so boxing the larger variant would buy
// nothing but an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AnyRoom {
    /// A 윷놀이 room.
    Yut(Room<Yut>),
    /// A 바둑 room.
    Baduk(Room<Baduk>),
}

/// Runs the same generic code on whichever room is inside an [`AnyRoom`]:
/// `with_room!(any, room => room.version)`.
#[macro_export]
macro_rules! with_room {
    ($any:expr, $room:ident => $body:expr) => {
        match $any {
            $crate::room::AnyRoom::Yut($room) => $body,
            $crate::room::AnyRoom::Baduk($room) => $body,
        }
    };
}

/// The first byte of every stored room: bump it when the stored layout changes incompatibly.
// 2: 윷놀이 options and state gained the rules page's house rules (ruling Y16).
// 3: the generator's salt (rngCommitment), 윷놀이 `hints`, 바둑 moves bit-packed (9 bits a move
//    on 19×19 instead of 16).
// 4: members carry the hash of the address they joined from; rooms the kicked ones (`barred`);
//    the ledger of recent request ids and per-player keyed answers.
// 5: both games' options gained `chat` (DESIGN "Chat"), and members carry their
//    computer-player level (`addBot`).
// 6: 바둑 state counts each player's resumes from the scoring phase (ruling B7).
// 7: 바둑 `timeControl` gained `daysPerMove` (the correspondence clock), and rooms their seats'
//    Web Push subscriptions (`push`, `reminded`), and
//    rooms keep their game's replay log (DESIGN "Replay"; `room::GameLog`).
pub const FORMAT: u8 = 7;

/// The oldest layout [`AnyRoom::decode`] still reads. Format 4 is the release before chat and
/// computer players, format 5 the one before ruling B7, format 6 the one before the
/// correspondence clock: a deployment upgraded in the middle of a game keeps its rooms, which
/// read with the fields added since at their defaults (`chat: on`, no bots, no resumes used,
/// `daysPerMove: 1`).
pub const OLDEST_FORMAT: u8 = 4;

thread_local! {
    /// The layout [`AnyRoom::decode`] is reading on this thread, for [`since_format_5`]. It is
    /// [`FORMAT`] outside a decode (JSON included), so only a stored older room sees another.
    static READING: Cell<u8> = const { Cell::new(FORMAT) };
}

/// Deserializes a field that format 5 added to the stored layout. postcard writes fields in
/// order with no names, so a format-4 room simply lacks the bytes: the field takes its default
/// and the next field reads on from the same place. Any other decode reads the field as usual.
pub(crate) fn since_format_5<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    added_in(5, d)
}

/// Deserializes a field that format 6 added (as [`since_format_5`]).
pub(crate) fn since_format_6<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    added_in(6, d)
}

/// Deserializes a field that format 7 added (as [`since_format_5`]).
pub(crate) fn since_format_7<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    added_in(7, d)
}

/// Whether the decode under way reads a layout older than `format` (a field `format` added is
/// absent from its bytes). For fields whose default is not their type's `Default`.
pub(crate) fn reading_before(format: u8) -> bool {
    READING.get() < format
}

fn added_in<'de, D, T>(format: u8, d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    if READING.get() < format {
        Ok(T::default())
    } else {
        T::deserialize(d)
    }
}

/// Sets [`READING`] for one decode and puts it back after, even on an early return.
struct Reading(u8);

impl Reading {
    fn layout(format: u8) -> Self {
        Reading(READING.replace(format))
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        READING.set(self.0);
    }
}

/// A stored room that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// No bytes at all.
    #[error("stored room is empty")]
    Empty,
    /// A layout this server does not read (an older one, or a newer server's).
    #[error(
        "stored room has format {found}, an older or unknown layout: this server reads formats {OLDEST_FORMAT} to {FORMAT}"
    )]
    Format {
        /// The format byte found.
        found: u8,
    },
    /// The bytes do not decode as a room of this format.
    #[error("stored room (format {FORMAT}) does not decode")]
    Body(#[source] postcard::Error),
    /// A whole room, followed by bytes that belong to nothing.
    #[error("{0} bytes after the stored room (format {FORMAT})")]
    Trailing(usize),
}

/// A computer player's choice in an [`AnyRoom`] ([`AnyRoom::choose`]).
#[derive(Clone, Debug)]
pub enum AnyBotChoice {
    /// In a 윷놀이 room.
    Yut(BotChoice<Yut>),
    /// In a 바둑 room.
    Baduk(BotChoice<Baduk>),
}

impl AnyBotChoice {
    /// The turn it was made for.
    pub fn turn(&self) -> &BotTurn {
        match self {
            AnyBotChoice::Yut(c) => c.turn(),
            AnyBotChoice::Baduk(c) => c.turn(),
        }
    }

    /// [`BotChoice::plan`]: the choice as a plan to keep with the room.
    pub fn plan(&self, took_us: u64) -> Vec<u8> {
        match self {
            AnyBotChoice::Yut(c) => c.plan(took_us),
            AnyBotChoice::Baduk(c) => c.plan(took_us),
        }
    }
}

impl AnyRoom {
    /// [`Room::choose`]: the computer player's search for `turn`, on copies.
    pub fn choose(&self, turn: &BotTurn) -> Option<AnyBotChoice> {
        match self {
            AnyRoom::Yut(r) => r.choose(turn).map(AnyBotChoice::Yut),
            AnyRoom::Baduk(r) => r.choose(turn).map(AnyBotChoice::Baduk),
        }
    }

    /// [`Room::play_choice`]: plays `choice` if its turn is still the room's next one; what
    /// fired, or `None` (nothing changed: the room moved on, or the choice is another game's).
    pub fn play_choice(&mut self, choice: AnyBotChoice, presence: &Presence) -> Option<Fired> {
        match (self, choice) {
            (AnyRoom::Yut(r), AnyBotChoice::Yut(c)) => r.play_choice(c, presence).map(|s| s.fired),
            (AnyRoom::Baduk(r), AnyBotChoice::Baduk(c)) => {
                r.play_choice(c, presence).map(|s| s.fired)
            }
            _ => None,
        }
    }

    /// The room's game.
    pub fn kind(&self) -> GameKind {
        match self {
            AnyRoom::Yut(_) => GameKind::Yut,
            AnyRoom::Baduk(_) => GameKind::Baduk,
        }
    }

    /// The stored form: a format byte, then the room in postcard (compact binary: varints,
    /// no field names).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![FORMAT];
        // Serializing plain data into a Vec cannot fail; an empty body would be caught by decode.
        if let Ok(bytes) = postcard::to_extend(self, Vec::new()) {
            out.extend(bytes);
        }
        out
    }

    /// Reads a stored room back: the current [`FORMAT`], or an older layout down to
    /// [`OLDEST_FORMAT`] (its missing fields at their defaults; the room is saved back in the
    /// current format with its next change). Any other layout is refused by its number
    /// (postcard is not self-describing, so reading it as the current one could misread it
    /// rather than fail), as is trailing data after the room.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        match bytes.split_first() {
            Some((&format, rest)) if (OLDEST_FORMAT..=FORMAT).contains(&format) => {
                let _reading = Reading::layout(format);
                match postcard::take_from_bytes(rest) {
                    Ok((room, [])) => Ok(room),
                    Ok((_, extra)) => Err(DecodeError::Trailing(extra.len())),
                    Err(e) => Err(DecodeError::Body(e)),
                }
            }
            Some((&found, _)) => Err(DecodeError::Format { found }),
            None => Err(DecodeError::Empty),
        }
    }

    /// The room's version.
    pub fn version(&self) -> u64 {
        with_room!(self, r => r.version)
    }

    /// When the store may forget the room.
    pub fn expires_at(&self) -> Millis {
        with_room!(self, r => r.expires_at())
    }
}

impl From<Room<Yut>> for AnyRoom {
    fn from(room: Room<Yut>) -> Self {
        AnyRoom::Yut(room)
    }
}

impl From<Room<Baduk>> for AnyRoom {
    fn from(room: Room<Baduk>) -> Self {
        AnyRoom::Baduk(room)
    }
}
