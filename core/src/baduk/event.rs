//! Events (§8.2) for clients to animate. Typed only: how an event is written on the wire (tagged
//! by `type`, with the spec's names) and its JSON Schema are the API layer's
//! (`functions/src/api/events.rs`), which checks its form against these variants on every build.

use super::color::Color;
use super::point::Point;
use super::result::BadukResult;

/// Something that happened while applying an action.
#[derive(Clone, Debug, PartialEq)]
pub enum BadukEvent {
    /// A stone was placed; `captured` lists the stones it took.
    StonePlaced {
        /// Who played.
        color: Color,
        /// Where.
        point: Point,
        /// The opponent stones removed.
        captured: Vec<Point>,
    },
    /// Stones were captured (follows `stonePlaced` when it took any).
    Captured {
        /// The capturing side.
        by: Color,
        /// The stones removed.
        points: Vec<Point>,
    },
    /// A player passed.
    Pass {
        /// Who passed.
        color: Color,
    },
    /// A hint: the stone just played left chains of `color` with a single liberty (only with
    /// `atariWarning`).
    Atari {
        /// The side whose stones are in atari.
        color: Color,
        /// The stones in atari.
        stones: Vec<Point>,
    },
    /// The move limit was reached (B7): the scoring phase follows, and cannot be resumed.
    MoveLimitReached {
        /// The moves played, passes counted: the limit.
        moves: u16,
    },
    /// Two passes: the scoring phase began with suggested marks.
    ScoringStarted {
        /// Suggested dead stones.
        dead: Vec<Point>,
        /// Suggested seki regions (representatives).
        seki: Vec<Point>,
    },
    /// The marks changed; both agreements were reset.
    MarksChanged {
        /// Who changed them.
        by: Color,
        /// The dead stones now marked.
        dead: Vec<Point>,
        /// The seki regions now marked.
        seki: Vec<Point>,
    },
    /// A player agreed to the marks.
    ScoreAgreed {
        /// Who agreed.
        color: Color,
    },
    /// Play resumed after a dispute; `turn` moves first.
    PlayResumed {
        /// Who disputed.
        by: Color,
        /// Who moves now.
        turn: Color,
    },
    /// An undo was requested.
    UndoRequested {
        /// The requester.
        by: Color,
        /// How many moves would be taken back.
        plies: u8,
    },
    /// The undo was accepted and the moves taken back.
    UndoAccepted {
        /// The requester.
        by: Color,
        /// How many moves were taken back.
        plies: u8,
    },
    /// The undo request was declined (`auto`: by the opponent moving instead).
    UndoDeclined {
        /// The requester.
        by: Color,
        /// Whether a move declined it.
        auto: bool,
    },
    /// A draw was offered.
    DrawOffered {
        /// Who offered.
        by: Color,
    },
    /// The draw offer was declined (`auto`: by a move instead of an answer).
    DrawDeclined {
        /// Who had offered.
        by: Color,
        /// Whether a move declined it.
        auto: bool,
    },
    /// A pending request was withdrawn by its sender.
    OfferCancelled {
        /// Who withdrew.
        by: Color,
    },
    /// The game ended.
    GameEnded {
        /// The result.
        result: BadukResult,
    },
}
