//! The whole game state, and its compact stored form.
//!
//! The room stores [`BadukState`] with postcard, so its serde form *is* the stored form
//! ([`StoredBaduk`]): options, players, the bit-packed moves, clocks, marks, request bookkeeping
//! and how the game ended. The board, captures, superko set, situation counts, ko shape, move
//! record and the final count are rebuilt by replaying the moves on decode.

use serde::{Deserialize, Serialize};
use strum::VariantArray;

use super::clock::Clock;
use super::color::{ByColor, Color};
use super::history::PackedMoves;
use super::options::BadukOptions;
use super::position::{MoveRecord, Played, Position};
use super::result::{BadukResult, EndReason};
use super::scoring;
use crate::game::{Millis, PlayerId};

/// The phase of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "BadukPhase")]
pub enum Phase {
    /// Moves and passes.
    Playing,
    /// Agreeing on dead stones and seki after two passes (§5.5).
    Scoring,
    /// Over; see the result.
    Finished,
}

/// The marks of the scoring phase (kept after the game ends: the count is rebuilt from them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoringMarks {
    /// Stones marked dead (indices, ascending).
    pub dead: Vec<u16>,
    /// Seki regions marked, by representative: the smallest index of the empty region once the
    /// stones marked dead are lifted (how the suggestion, the toggle and the count read them).
    pub seki: Vec<u16>,
    /// Who has agreed to the marks as they are.
    pub agreed: ByColor<bool>,
    /// When the scoring phase began.
    pub started_at: Millis,
}

impl ScoringMarks {
    /// The dead stones as board indices.
    pub fn dead_indices(&self) -> Vec<usize> {
        self.dead.iter().map(|&i| usize::from(i)).collect()
    }

    /// The seki representatives as board indices.
    pub fn seki_indices(&self) -> Vec<usize> {
        self.seki.iter().map(|&i| usize::from(i)).collect()
    }
}

/// A pending undo request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoRequest {
    /// The requester.
    pub by: Color,
    /// How many moves acceptance takes back (B4).
    pub plies: u8,
}

/// Undo bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoState {
    /// Accepted undos per player.
    pub used: ByColor<u16>,
    /// The request waiting for an answer.
    pub pending: Option<UndoRequest>,
}

/// Draw-offer bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DrawState {
    /// Who has an offer waiting.
    pub pending_by: Option<Color>,
    /// The move count when each side's last offer was declined (5 own moves must follow).
    pub declined_at: ByColor<Option<u16>>,
}

/// A 바둑 game. Build one with [`crate::Game::setup`] on [`super::Baduk`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "StoredBaduk", try_from = "StoredBaduk")]
pub struct BadukState {
    pub(crate) options: BadukOptions,
    pub(crate) players: ByColor<PlayerId>,
    pub(crate) moves: Vec<Played>,
    pub(crate) position: Position,
    pub(crate) turn: Color,
    pub(crate) phase: Phase,
    pub(crate) consecutive_passes: u8,
    pub(crate) marks: Option<ScoringMarks>,
    pub(crate) clock: Clock,
    pub(crate) undo: UndoState,
    pub(crate) draw: DrawState,
    /// How many times each player has resumed play from the scoring phase (B7).
    pub(crate) resumes: ByColor<u8>,
    pub(crate) result: Option<BadukResult>,
}

impl BadukState {
    /// A new game: `players` seated, the handicap placed, the clock started at `now`.
    pub(crate) fn new(options: BadukOptions, players: ByColor<PlayerId>, now: Millis) -> Self {
        BadukState {
            position: Position::start(&options),
            turn: options.first_to_move(),
            clock: Clock::new(&options, now),
            options,
            players,
            moves: Vec::new(),
            phase: Phase::Playing,
            consecutive_passes: 0,
            marks: None,
            undo: UndoState::default(),
            draw: DrawState::default(),
            resumes: ByColor::both(0),
            result: None,
        }
    }

    /// The options the game was started with.
    pub fn options(&self) -> &BadukOptions {
        &self.options
    }

    /// The players by colour.
    pub fn players(&self) -> &ByColor<PlayerId> {
        &self.players
    }

    /// The colour `player` plays, if they play.
    pub fn color_of(&self, player: &PlayerId) -> Option<Color> {
        Color::VARIANTS
            .iter()
            .copied()
            .find(|&c| self.players.get(c) == player)
    }

    /// The moves played so far (the stored record).
    pub fn moves(&self) -> &[Played] {
        &self.moves
    }

    /// The position: board, history and the record with captures.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The record with captures, as views show it.
    pub fn records(&self) -> &[MoveRecord] {
        self.position.records()
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Passes in a row since the last stone (or resumption).
    pub fn consecutive_passes(&self) -> u8 {
        self.consecutive_passes
    }

    /// The scoring marks (during and after the scoring phase).
    pub fn marks(&self) -> Option<&ScoringMarks> {
        self.marks.as_ref()
    }

    /// The clocks.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Undo bookkeeping.
    pub fn undo(&self) -> &UndoState {
        &self.undo
    }

    /// Draw-offer bookkeeping.
    pub fn draw(&self) -> &DrawState {
        &self.draw
    }

    /// How many times each player has resumed play from the scoring phase (B7).
    pub fn resumes(&self) -> ByColor<u8> {
        self.resumes
    }

    /// Whether the move limit has been reached (B7): no more moves, and the scoring phase it
    /// started cannot be resumed.
    pub fn at_move_limit(&self) -> bool {
        self.moves.len() >= super::limits::move_limit(&self.options)
    }

    /// Whether `color` may leave the scoring phase with `resumePlay` now (B7): the phase is
    /// under way, the move limit did not start it, and `color` has resumes left.
    pub fn can_resume(&self, color: Color) -> bool {
        self.phase == Phase::Scoring
            && !self.at_move_limit()
            && *self.resumes.get(color) < super::limits::RESUMES_PER_PLAYER
    }

    /// The result, once finished.
    pub fn result(&self) -> Option<&BadukResult> {
        self.result.as_ref()
    }

    /// The count of the current marks (the live preview while scoring; empty marks: all alive).
    pub fn score_preview(&self) -> scoring::Score {
        let (dead, seki) = self
            .marks
            .as_ref()
            .map(|m| (m.dead_indices(), m.seki_indices()))
            .unwrap_or_default();
        scoring::score(
            self.position.board(),
            &dead,
            &seki,
            self.position.captures(),
            &self.options,
        )
    }

    /// The result of counting the current marks.
    pub(crate) fn counted_result(&self) -> BadukResult {
        let score = self.score_preview();
        let winner = score.winner();
        let reason = if winner.is_some() {
            EndReason::Score
        } else {
            EndReason::Jigo
        };
        BadukResult::new(&self.players, winner, reason, Some(score))
    }
}

/// The stored form of [`BadukState`]: nothing that can be rebuilt from the moves.
///
/// Postcard is not self-describing, so this uses no `tag`, `untagged`, `flatten` or
/// `skip_serializing_if`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredBaduk {
    options: BadukOptions,
    players: ByColor<PlayerId>,
    /// The moves, 9 bits each on 19×19 ([`PackedMoves`]).
    moves: PackedMoves,
    turn: Color,
    phase: Phase,
    consecutive_passes: u8,
    marks: Option<ScoringMarks>,
    clock: Clock,
    undo: UndoState,
    draw: DrawState,
    /// Resumes from the scoring phase per player (B7).
    #[serde(deserialize_with = "crate::room::since_format_6")]
    resumes: ByColor<u8>,
    /// How the game ended; a count is recomputed from the board and the marks.
    ended: Option<(EndReason, Option<Color>)>,
}

impl From<BadukState> for StoredBaduk {
    fn from(s: BadukState) -> Self {
        let moves = PackedMoves::pack(&s.moves, s.options.size(), s.options.first_to_move());
        StoredBaduk {
            moves,
            turn: s.turn,
            phase: s.phase,
            consecutive_passes: s.consecutive_passes,
            marks: s.marks,
            clock: s.clock,
            undo: s.undo,
            draw: s.draw,
            resumes: s.resumes,
            ended: s.result.map(|r| (r.reason, r.winner)),
            options: s.options,
            players: s.players,
        }
    }
}

/// Why a stored state could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoredStateError {
    /// The stored options are not valid.
    #[error("stored options are invalid: {0}")]
    Options(String),
    /// The packed moves are damaged: a code out of range, too few or too many bits.
    #[error("stored move {0} is malformed")]
    MalformedMove(usize),
    /// A stored move is illegal when replayed.
    #[error("stored move {0} is illegal: {1}")]
    IllegalMove(usize, &'static str),
}

impl TryFrom<StoredBaduk> for BadukState {
    type Error = StoredStateError;

    fn try_from(s: StoredBaduk) -> Result<Self, StoredStateError> {
        s.options
            .validate()
            .map_err(|e| StoredStateError::Options(e.to_string()))?;
        let moves = s
            .moves
            .unpack(s.options.size(), s.options.first_to_move())
            .map_err(StoredStateError::MalformedMove)?;
        let position = Position::replay(&s.options, &moves)
            .map_err(|(i, e)| StoredStateError::IllegalMove(i, crate::game::RuleError::code(&e)))?;
        let mut state = BadukState {
            options: s.options,
            players: s.players,
            moves,
            position,
            turn: s.turn,
            phase: s.phase,
            consecutive_passes: s.consecutive_passes,
            marks: s.marks,
            clock: s.clock,
            undo: s.undo,
            draw: s.draw,
            resumes: s.resumes,
            result: None,
        };
        state.result = s.ended.map(|(reason, winner)| match reason {
            EndReason::Score | EndReason::Jigo => state.counted_result(),
            _ => BadukResult::new(&state.players, winner, reason, None),
        });
        Ok(state)
    }
}
