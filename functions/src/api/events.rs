//! The wire form of events: how each event an answer carries (`POST /rooms/{id}/actions`
//! `events`) is written, and its JSON Schema. Core makes typed events and knows nothing of JSON;
//! [`crate::service::events`] renders them once, through the forms here.
//!
//! The mechanism: every event has a *form*, a borrowed projection of it made by one exhaustive
//! `match` ([`Wire::wire`]) and written by serde's derive, as a view is: tagged by `type`, with
//! the spec's names. The `match` destructures each of core's variants without `..` and builds
//! the form's variant from the fields' references, so the compiler checks the form against
//! core on every build — a variant or field added, removed or retyped in core does not compile
//! until its wire form says how it is written — and the form borrows, copying nothing but a
//! few numbers. (serde's `#[serde(remote = "…")]` mirrors were the other candidate: they check
//! the variants and field names, but not the fields' types, so a mirror's schema could drift
//! from what it writes.)
//!
//! 윷놀이's events are the one exception, and keep their form in core: the 윷놀이 view embeds
//! them (`state.log`, §8.1, the last public events), and views are written by core, so the log
//! and the answers write an event the same way only if both take it from the one derive there.
//! 바둑's and the lobby's events appear in answers only, and are written here.
//!
//! The forms' documentation is the schema's (`schemars` takes descriptions from it): it is the
//! contract of `functions/openapi.json`, worded for clients. The bytes are held by a test from
//! outside the crate (`functions/tests/it/events_snapshot.rs`): every kind of event, from seeded
//! engine-made games, renders as the fixture `functions/tests/fixtures/events.jsonl` that the
//! derives in core wrote before the forms moved here.

use madang_core::baduk::{BadukEvent, BadukResult, Color, Point};
use madang_core::room::{LobbyEvent, RoomEvent};
use madang_core::{Game, PlayerId, yut};
use schemars::JsonSchema;
use serde::Serialize;

/// An event that has a wire form.
pub trait Wire {
    /// How it is written: a borrowed projection of it, with its JSON Schema.
    type Form<'a>: Serialize + JsonSchema
    where
        Self: 'a;

    /// Its wire form.
    fn wire(&self) -> Self::Form<'_>;
}

/// An event of a room action: the lobby's or the game's.
#[derive(Serialize, JsonSchema)]
#[serde(untagged, bound = "")]
#[schemars(bound = "")]
pub enum RoomEventForm<'a, E: Wire + 'a> {
    /// A lobby event.
    Lobby(LobbyEventForm<'a>),
    /// A game event.
    Game(E::Form<'a>),
}

impl<G: Game<Event: Wire>> Wire for RoomEvent<G> {
    type Form<'a>
        = RoomEventForm<'a, G::Event>
    where
        Self: 'a;

    fn wire(&self) -> Self::Form<'_> {
        match self {
            RoomEvent::Lobby(event) => RoomEventForm::Lobby(event.wire()),
            RoomEvent::Game(event) => RoomEventForm::Game(event.wire()),
        }
    }
}

/// Something that happened in the lobby, tagged by `type`.
#[derive(Serialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[schemars(rename = "LobbyEvent")]
pub enum LobbyEventForm<'a> {
    /// The options changed.
    OptionsChanged,
    /// Seats were rearranged.
    SeatMoved {
        /// Who moved.
        player_id: &'a PlayerId,
        /// Their new seat.
        seat: usize,
    },
    /// The game started.
    Started,
    /// A player left.
    Left {
        /// Who left.
        player_id: &'a PlayerId,
    },
    /// The host removed a player.
    Kicked {
        /// Who was removed.
        player_id: &'a PlayerId,
    },
    /// The host lifted a kick: that player may join again.
    Unkicked {
        /// Who was kicked.
        player_id: &'a PlayerId,
    },
    /// The host role passed on (the host left).
    HostChanged {
        /// The new host.
        player_id: &'a PlayerId,
    },
    /// The host seated a computer player.
    BotAdded {
        /// The computer player's id.
        player_id: &'a PlayerId,
        /// Its level.
        level: u8,
    },
    /// A rematch lobby was opened for this finished game.
    RematchCreated {
        /// The new lobby's id.
        room_id: &'a str,
    },
}

impl Wire for LobbyEvent {
    type Form<'a> = LobbyEventForm<'a>;

    fn wire(&self) -> LobbyEventForm<'_> {
        use LobbyEventForm as F;
        match self {
            LobbyEvent::OptionsChanged => F::OptionsChanged,
            LobbyEvent::SeatMoved { player_id, seat } => F::SeatMoved {
                player_id,
                seat: *seat,
            },
            LobbyEvent::Started => F::Started,
            LobbyEvent::Left { player_id } => F::Left { player_id },
            LobbyEvent::Kicked { player_id } => F::Kicked { player_id },
            LobbyEvent::Unkicked { player_id } => F::Unkicked { player_id },
            LobbyEvent::HostChanged { player_id } => F::HostChanged { player_id },
            LobbyEvent::BotAdded { player_id, level } => F::BotAdded {
                player_id,
                level: *level,
            },
            LobbyEvent::RematchCreated { room_id } => F::RematchCreated { room_id },
        }
    }
}

/// 윷놀이: written as core writes it in the view's `state.log` (see the module's documentation).
impl Wire for yut::Event {
    type Form<'a> = &'a yut::Event;

    fn wire(&self) -> &yut::Event {
        self
    }
}

/// Something that happened while applying an action.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
#[schemars(rename = "BadukEvent")]
pub enum BadukEventForm<'a> {
    /// A stone was placed; `captured` lists the stones it took.
    #[serde(rename_all = "camelCase")]
    StonePlaced {
        /// Who played.
        color: Color,
        /// Where.
        point: Point,
        /// The opponent stones removed.
        captured: &'a [Point],
    },
    /// Stones were captured (follows `stonePlaced` when it took any).
    Captured {
        /// The capturing side.
        by: Color,
        /// The stones removed.
        points: &'a [Point],
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
        stones: &'a [Point],
    },
    /// The move limit was reached (B7): the scoring phase follows, and cannot be resumed.
    MoveLimitReached {
        /// The moves played, passes counted: the limit.
        moves: u16,
    },
    /// Two passes: the scoring phase began with suggested marks.
    ScoringStarted {
        /// Suggested dead stones.
        dead: &'a [Point],
        /// Suggested seki regions (representatives).
        seki: &'a [Point],
    },
    /// The marks changed; both agreements were reset.
    MarksChanged {
        /// Who changed them.
        by: Color,
        /// The dead stones now marked.
        dead: &'a [Point],
        /// The seki regions now marked.
        seki: &'a [Point],
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
        result: &'a BadukResult,
    },
}

impl Wire for BadukEvent {
    type Form<'a> = BadukEventForm<'a>;

    fn wire(&self) -> BadukEventForm<'_> {
        use BadukEventForm as F;
        match *self {
            BadukEvent::StonePlaced {
                color,
                point,
                ref captured,
            } => F::StonePlaced {
                color,
                point,
                captured,
            },
            BadukEvent::Captured { by, ref points } => F::Captured { by, points },
            BadukEvent::Pass { color } => F::Pass { color },
            BadukEvent::Atari { color, ref stones } => F::Atari { color, stones },
            BadukEvent::MoveLimitReached { moves } => F::MoveLimitReached { moves },
            BadukEvent::ScoringStarted { ref dead, ref seki } => F::ScoringStarted { dead, seki },
            BadukEvent::MarksChanged {
                by,
                ref dead,
                ref seki,
            } => F::MarksChanged { by, dead, seki },
            BadukEvent::ScoreAgreed { color } => F::ScoreAgreed { color },
            BadukEvent::PlayResumed { by, turn } => F::PlayResumed { by, turn },
            BadukEvent::UndoRequested { by, plies } => F::UndoRequested { by, plies },
            BadukEvent::UndoAccepted { by, plies } => F::UndoAccepted { by, plies },
            BadukEvent::UndoDeclined { by, auto } => F::UndoDeclined { by, auto },
            BadukEvent::DrawOffered { by } => F::DrawOffered { by },
            BadukEvent::DrawDeclined { by, auto } => F::DrawDeclined { by, auto },
            BadukEvent::OfferCancelled { by } => F::OfferCancelled { by },
            BadukEvent::GameEnded { ref result } => F::GameEnded { result },
        }
    }
}
