//! What a viewer sees (§8.3): everything public, the same for players and spectators, plus
//! `illegalPoints` and `atariWarnings` for the player to move only. Never the position history
//! or the situation counts (the random generator is not part of the state at all).

use serde::Serialize;

use super::Baduk;
use super::clock::Clock;
use super::color::{ByColor, Color};
use super::options::{ClockKind, KoRule, ScoringMethod};
use super::point::Point;
use super::position::MoveRecord;
use super::result::BadukResult;
use super::scoring::Score;
use super::state::{BadukState, Phase};
use crate::game::{Game, Millis, PlayerId};

/// The clock as shown.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockView {
    /// The kind of clock.
    pub kind: ClockKind,
    /// Main time (Fischer: bank) left per side, as of the start of the current turn.
    pub main_ms: ByColor<u64>,
    /// Byoyomi periods left.
    pub periods_left: ByColor<u8>,
    /// Whether each side is in byoyomi.
    pub in_byoyomi: ByColor<bool>,
    /// When the current turn began.
    pub turn_started_at: Millis,
    /// One byoyomi period.
    pub period_ms: u64,
}

/// The scoring phase as shown: the marks, who agreed, and the live count.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoringView {
    /// Stones marked dead.
    pub dead: Vec<Point>,
    /// Seki regions marked (a representative point of each).
    pub seki: Vec<Point>,
    /// Who has agreed to the marks.
    pub agreed: ByColor<bool>,
    /// When the phase began.
    pub started_at: Millis,
    /// The count if the marks were agreed now.
    pub preview: Score,
}

/// A pending undo request as shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PendingUndo {
    /// The requester.
    pub by: Color,
    /// How many moves it would take back.
    pub plies: u8,
}

/// The view of a 바둑 game (§8.3).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BadukView {
    /// Lines of the board.
    pub size: u8,
    /// `Cell[]`, index `y * size + x`: 0 empty, 1 black, 2 white.
    pub board: Vec<u8>,
    /// The side to move.
    pub turn: Color,
    /// The phase.
    pub phase: Phase,
    /// Stones captured during play by each side.
    pub captures: ByColor<u32>,
    /// The players by colour.
    pub players: ByColor<PlayerId>,
    /// Counting method.
    pub scoring_method: ScoringMethod,
    /// Ko rule.
    pub ko_rule: KoRule,
    /// Komi.
    pub komi: f64,
    /// Handicap stones.
    pub handicap: u32,
    /// Passes in a row.
    pub consecutive_passes: u8,
    /// The game record, with the stones each move captured.
    pub moves: Vec<MoveRecord>,
    /// Marks, agreement and live count while scoring (and after a counted end).
    pub scoring: Option<ScoringView>,
    /// The clocks.
    pub clock: ClockView,
    /// When the next timeout fires, if one is pending.
    pub deadline_at: Option<Millis>,
    /// A pending undo request.
    pub pending_undo: Option<PendingUndo>,
    /// Who has a draw offer pending.
    pub pending_draw: Option<Color>,
    /// Accepted undos per side.
    pub undo_used: ByColor<u16>,
    /// The result, once finished.
    pub result: Option<BadukResult>,
    /// Only for the player to move: points where a stone would be suicide, ko or superko.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub illegal_points: Option<Vec<Point>>,
    /// Only for the player to move (with `atariWarning`): their stones in atari.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atari_warnings: Option<Vec<Point>>,
}

fn clock_view(clock: &Clock, state: &BadukState) -> ClockView {
    ClockView {
        kind: state.options.time_control.kind,
        main_ms: clock.main_ms,
        periods_left: clock.periods_left,
        in_byoyomi: clock.in_byoyomi,
        turn_started_at: clock.turn_started_at,
        period_ms: state.options.period_ms(),
    }
}

/// Builds the view of `state` for `viewer` (`None`: a spectator).
pub fn view(state: &BadukState, viewer: Option<&PlayerId>) -> BadukView {
    let board = state.position.board();
    let size = board.size();
    let to_move =
        state.phase == Phase::Playing && viewer.is_some_and(|v| state.players.get(state.turn) == v);
    let (illegal_points, atari_warnings) = if to_move {
        let illegal = (0..board.len())
            .filter(|&i| board.get(i).is_none())
            .map(|i| Point::from_index(i, size))
            .filter(|&p| state.position.check(state.turn, p).is_err())
            .collect();
        let atari = state.options.atari_warning.then(|| {
            let mut stones: Vec<usize> = board
                .chains()
                .into_iter()
                .filter(|c| c.color == state.turn && c.liberties.len() == 1)
                .flat_map(|c| c.stones)
                .collect();
            stones.sort_unstable();
            stones
                .into_iter()
                .map(|i| Point::from_index(i, size))
                .collect()
        });
        (Some(illegal), atari)
    } else {
        (None, None)
    };
    let scoring = state.marks.as_ref().map(|m| ScoringView {
        dead: m
            .dead
            .iter()
            .map(|&i| Point::from_index(usize::from(i), size))
            .collect(),
        seki: m
            .seki
            .iter()
            .map(|&i| Point::from_index(usize::from(i), size))
            .collect(),
        agreed: m.agreed,
        started_at: m.started_at,
        preview: state.score_preview(),
    });
    BadukView {
        size,
        board: board
            .cells()
            .iter()
            .map(|c| c.map_or(0, Color::cell))
            .collect(),
        turn: state.turn,
        phase: state.phase,
        captures: state.position.captures(),
        players: state.players.clone(),
        scoring_method: state.options.scoring,
        ko_rule: state.options.ko_rule,
        komi: f64::from(state.options.komi_halves()) / 2.0,
        handicap: state.options.handicap,
        consecutive_passes: state.consecutive_passes,
        moves: state.records().to_vec(),
        scoring,
        clock: clock_view(&state.clock, state),
        deadline_at: Baduk::deadline(state),
        pending_undo: state.undo.pending.map(|r| PendingUndo {
            by: r.by,
            plies: r.plies,
        }),
        pending_draw: state.draw.pending_by,
        undo_used: state.undo.used,
        result: state.result.clone(),
        illegal_points,
        atari_warnings,
    }
}
