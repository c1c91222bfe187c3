//! What happened, for clients to animate (§8.2): returned by every accepted action, in order.
//!
//! Unlike 바둑's and the lobby's events, whose wire form is the API layer's
//! (`functions/src/api/events.rs`), these keep theirs here: the view embeds them
//! (`state.log`, §8.1), views are written by core, and an event must read the same in an
//! answer and in the log — so both take it from the one derive below.

use serde::Serialize;

use super::SideId;
use super::board::{Node, Position};
use super::throw::Throw;
use crate::game::PlayerId;

/// One thing that happened. JSON objects tagged by `type` with the spec's names and camelCase
/// fields, e.g. `{"type":"thrown","player":"p1","sticks":[true,false,true,true],"result":"geol"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[schemars(rename = "YutEvent")]
pub enum Event {
    /// The sticks landed.
    Thrown {
        /// Who threw.
        player: PlayerId,
        /// Each stick, `true` = flat side up; index 0 is the marked stick.
        sticks: [bool; 4],
        /// What they read as.
        result: Throw,
    },
    /// The throw was 낙: void, nothing added.
    Nak {
        /// Who threw.
        player: PlayerId,
    },
    /// A piece or stack moved.
    Moved {
        /// Whose pieces.
        side: SideId,
        /// The result used.
        result: Throw,
        /// Where they stood (`"home"` when entering).
        from: Position,
        /// Where they stopped (`"goal"` when they finished).
        to: Position,
        /// Every spot stepped on, in order, ending with `to`.
        path: Vec<Position>,
        /// How many pieces moved.
        count: u8,
    },
    /// The moving pieces stopped on their own side's pieces and were stacked with them.
    Stacked {
        /// Whose pieces.
        side: SideId,
        /// Where.
        at: Node,
        /// How many pieces the stack holds now.
        count: u8,
    },
    /// The moving pieces stopped on an opponent, sending its pieces back to wait.
    Captured {
        /// The capturing side.
        side: SideId,
        /// The side captured.
        victim_side: SideId,
        /// Where.
        at: Node,
        /// How many pieces went back.
        count: u8,
    },
    /// Pieces finished (남).
    FinishedPieces {
        /// Whose pieces.
        side: SideId,
        /// How many finished with this move.
        count: u8,
    },
    /// The capture earned an extra throw.
    BonusThrow {
        /// Who throws.
        player: PlayerId,
    },
    /// Pending results that could not be used were thrown away.
    Discarded {
        /// The results discarded.
        throws: Vec<Throw>,
    },
    /// It is another player's turn.
    TurnChanged {
        /// The player to move.
        player: PlayerId,
    },
    /// A side has all its pieces home.
    SideFinished {
        /// The side.
        side: SideId,
        /// Its rank.
        rank: u8,
    },
    /// A player conceded.
    Conceded {
        /// Who.
        player: PlayerId,
        /// Their side.
        side: SideId,
        /// Whether the side is now out (a team is out once all its members conceded).
        side_out: bool,
    },
    /// A player was marked away after three timeouts in a row, or is back (ruling Y15).
    Away {
        /// Who.
        player: PlayerId,
        /// Whether they are away now.
        away: bool,
    },
    /// A teammate recommended a move. Only the recommender receives this event; the team sees
    /// the recommendation in its view, nobody else ever does.
    Recommended {
        /// Who recommends it.
        player: PlayerId,
        /// The pending result it uses.
        throw_index: usize,
        /// Where the piece or stack stands.
        from: Position,
        /// Where it would stop.
        to: Position,
    },
    /// A seat switched to auto play (idle turns) or back to the player (`TAKE_CONTROL`).
    AutoPlay {
        /// Whose seat.
        player: PlayerId,
        /// Whether the system plays it now.
        auto: bool,
    },
    /// A player left and a bot took their seat over.
    ReplacedByBot {
        /// Whose seat.
        player: PlayerId,
    },
    /// `endMode: timed`: the time is up and the last round is over.
    TimeUp,
    /// The game is over; [`Yut::result`](crate::game::Game::result) has the ranking.
    GameOver {
        /// The players ranked first.
        winners: Vec<PlayerId>,
    },
}

/// How many recent events the state keeps for `state.log` (§8.1 "최대 N개"): enough to replay a
/// whole turn's animation (a throw, a move with its capture and bonus, the turn change) for a
/// client that missed the answer, small enough to stay well inside the 1 KB room item.
pub const LOG_LEN: usize = 12;

/// Whether `event` belongs in the public log: a recommendation is shown to its team only
/// (ruling Y16), so it never goes where everyone reads.
pub(crate) fn is_public(event: &Event) -> bool {
    !matches!(event, Event::Recommended { .. })
}

/// The stored (postcard) form of the log. The API form is tagged by `type`, which postcard
/// cannot read back (it is not self-describing), so the stored form is the plain externally
/// tagged enum below, a field-for-field mirror of [`Event`].
pub(crate) mod stored {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Event;
    use crate::game::PlayerId;
    use crate::yut::SideId;
    use crate::yut::board::{Node, Position};
    use crate::yut::throw::Throw;

    #[derive(Serialize, Deserialize)]
    #[serde(remote = "Event")]
    enum Stored {
        Thrown {
            player: PlayerId,
            sticks: [bool; 4],
            result: Throw,
        },
        Nak {
            player: PlayerId,
        },
        Moved {
            side: SideId,
            result: Throw,
            from: Position,
            to: Position,
            path: Vec<Position>,
            count: u8,
        },
        Stacked {
            side: SideId,
            at: Node,
            count: u8,
        },
        Captured {
            side: SideId,
            victim_side: SideId,
            at: Node,
            count: u8,
        },
        FinishedPieces {
            side: SideId,
            count: u8,
        },
        BonusThrow {
            player: PlayerId,
        },
        Discarded {
            throws: Vec<Throw>,
        },
        TurnChanged {
            player: PlayerId,
        },
        SideFinished {
            side: SideId,
            rank: u8,
        },
        Conceded {
            player: PlayerId,
            side: SideId,
            side_out: bool,
        },
        Away {
            player: PlayerId,
            away: bool,
        },
        Recommended {
            player: PlayerId,
            throw_index: usize,
            from: Position,
            to: Position,
        },
        AutoPlay {
            player: PlayerId,
            auto: bool,
        },
        ReplacedByBot {
            player: PlayerId,
        },
        TimeUp,
        GameOver {
            winners: Vec<PlayerId>,
        },
    }

    #[derive(Serialize)]
    struct Out<'a>(#[serde(with = "Stored")] &'a Event);

    #[derive(Deserialize)]
    struct In(#[serde(with = "Stored")] Event);

    /// Serializes a log in its stored form.
    pub(crate) fn serialize<S: Serializer>(log: &[Event], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(log.iter().map(Out))
    }

    /// Reads a log back from its stored form.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Event>, D::Error> {
        Ok(Vec::<In>::deserialize(d)?
            .into_iter()
            .map(|e| e.0)
            .collect())
    }
}
