//! What a viewer sees (§8.3): everything public, the same for players and spectators, plus
//! `illegalPoints` and `atariWarnings` for the player to move only. Never the position history
//! or the situation counts (the random generator is not part of the state at all).

use serde::Serialize;

use super::Baduk;
use super::clock::Clock;
use super::color::{ByColor, Color};
use super::error::BadukError;
use super::limits::{RESUMES_PER_PLAYER, move_limit};
use super::options::{BadukOptions, ClockKind};
use super::point::Point;
use super::position::MoveRecord;
use super::result::BadukResult;
use super::scoring::Score;
use super::state::{BadukState, Phase};
use crate::game::{Game, Millis, PlayerId};

/// The clock as shown (§8.1 `clock`).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClockView {
    /// Addition: the kind of clock (`options.timeControl.kind`).
    pub kind: ClockKind,
    /// Main time (Fischer: bank) left per side, as of the start of the current turn.
    pub main_ms: ByColor<u64>,
    /// Byoyomi periods left.
    pub periods_left: ByColor<u8>,
    /// Whether each side is in byoyomi.
    pub in_byoyomi: ByColor<bool>,
    /// When the current turn began.
    pub turn_started_at: Millis,
    /// Addition: one byoyomi period.
    pub period_ms: u64,
}

/// The scoring marks as shown (§8.1 `scoringMarks`), with the live count.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoringMarksView {
    /// Stones marked dead, as board indices (`y * size + x`), ascending.
    pub dead: Vec<u16>,
    /// Seki regions marked, each by its representative index: the smallest index of the empty
    /// region once the stones marked dead are lifted.
    pub seki: Vec<u16>,
    /// Who has agreed to the marks.
    pub agreed: ByColor<bool>,
    /// When the phase began.
    pub started_at: Millis,
    /// Always `null` here: `resumePlay` returns to play at once (§5.5.5) and drops the marks,
    /// so no resumption is ever waiting while marks are shown.
    pub resume_requested_by: Option<Color>,
    /// Addition: the count if the marks were agreed now (the live preview of §5.5.3).
    pub preview: Score,
    /// Addition (B7): whether each side may still leave this phase with `resumePlay` — false
    /// once it has used its resumes, and for both when the move limit started the phase.
    pub resumable: ByColor<bool>,
}

/// A pending undo request as shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PendingUndo {
    /// The requester.
    pub by: Color,
    /// How many moves it would take back (1 or 2).
    pub plies: u8,
}

/// Undo bookkeeping as shown (§8.1 `undo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoView {
    /// Accepted undos per side.
    pub used_by: ByColor<u16>,
    /// The request waiting for an answer.
    pub pending: Option<PendingUndo>,
}

/// Draw-offer bookkeeping as shown (§8.1 `draw`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DrawView {
    /// Who has an offer waiting.
    pub pending_by: Option<Color>,
    /// The move count at which each side's last offer was declined (it may offer again after
    /// five own moves since); `null` while it has none declined.
    pub last_offer_move: ByColor<Option<u16>>,
}

/// The view of a 바둑 game (§8.1 `BadukState` less `rng`, `positionHistory` and
/// `situationCounts`, §8.3), plus the additions documented on their fields.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BadukView {
    /// The options in force.
    pub options: BadukOptions,
    /// Lines of the board.
    pub size: u8,
    /// `Cell[]`, index `y * size + x`: 0 empty, 1 black, 2 white.
    pub board: Vec<u8>,
    /// The players by colour.
    pub players: ByColor<PlayerId>,
    /// The side to move.
    pub turn: Color,
    /// The phase.
    pub phase: Phase,
    /// Stones captured during play by each side.
    pub captures: ByColor<u32>,
    /// Passes in a row.
    pub consecutive_passes: u8,
    /// The game record, with the stones each move captured.
    pub moves: Vec<MoveRecord>,
    /// The point the side to move may not take at once (simple ko, B2), or `null`.
    pub ko_point: Option<Point>,
    /// Marks, agreement and live count while scoring (and after a counted end), else `null`.
    pub scoring_marks: Option<ScoringMarksView>,
    /// The clocks.
    pub clock: ClockView,
    /// Undo bookkeeping.
    pub undo: UndoView,
    /// Draw-offer bookkeeping.
    pub draw: DrawView,
    /// The result, once finished.
    pub result: Option<BadukResult>,
    /// Addition: the komi in force (`options.komi` may be `null`, meaning the default for the
    /// board and handicap).
    pub komi: f64,
    /// Addition: when the next timeout fires (§8.5 `deadline`), if one is pending.
    pub deadline_at: Option<Millis>,
    /// Addition (B7): the most moves the game may hold, passes counted (twice the points of the
    /// board); the move that reaches it starts a scoring phase that cannot be resumed.
    pub move_limit: u16,
    /// Addition (B7): how many more times each side may resume play from the scoring phase.
    pub resumes_left: ByColor<u8>,
    /// Addition, only for the player to move: points where a stone would be suicide, ko or
    /// superko, each with the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub illegal_points: Option<Vec<IllegalPoint>>,
    /// Addition, only for the player to move (with `atariWarning`): their stones in atari.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atari_warnings: Option<Vec<Point>>,
}

/// A point where the player to move may not play (`illegalPoints`): `{x, y, reason}`, a
/// [`Point`] with the code a stone there would be refused with, so a client says why without
/// working out liberties and ko itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct IllegalPoint {
    /// Column, 0 = left (`A`).
    pub x: u8,
    /// Row, 0 = top.
    pub y: u8,
    /// Why: the error code of the refusal.
    pub reason: IllegalReason,
}

/// Why a point is illegal: the [`BadukError`] code a stone there is refused with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum IllegalReason {
    /// The stone would have no liberty and captures nothing (B1).
    Suicide,
    /// An immediate recapture of a ko (B2).
    Ko,
    /// The stone repeats an earlier arrangement of the whole board (positional superko).
    Superko,
}

impl IllegalReason {
    /// The reason for `error`, if it is one a stone on an empty point can meet.
    fn of(error: &BadukError) -> Option<Self> {
        match error {
            BadukError::Suicide => Some(IllegalReason::Suicide),
            BadukError::Ko => Some(IllegalReason::Ko),
            BadukError::Superko => Some(IllegalReason::Superko),
            _ => None,
        }
    }
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
            .filter_map(|p| {
                let error = state.position.check(state.turn, p).err()?;
                // Only these three can refuse a stone on an empty point on the board.
                let reason = IllegalReason::of(&error)?;
                Some(IllegalPoint {
                    x: p.x,
                    y: p.y,
                    reason,
                })
            })
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
    let resumes = state.resumes();
    let resumes_left = ByColor::new(
        RESUMES_PER_PLAYER.saturating_sub(resumes.black),
        RESUMES_PER_PLAYER.saturating_sub(resumes.white),
    );
    let scoring_marks = state.marks.as_ref().map(|m| ScoringMarksView {
        dead: m.dead.clone(),
        seki: m.seki.clone(),
        agreed: m.agreed,
        started_at: m.started_at,
        resume_requested_by: None,
        preview: state.score_preview(),
        resumable: ByColor::new(
            state.can_resume(Color::Black),
            state.can_resume(Color::White),
        ),
    });
    let ko_point = (state.phase == Phase::Playing)
        .then(|| state.position.history().ko())
        .flatten()
        .map(|ko| Point::from_index(ko.point, size));
    BadukView {
        options: state.options.clone(),
        size,
        board: board
            .cells()
            .iter()
            .map(|c| c.map_or(0, Color::cell))
            .collect(),
        players: state.players.clone(),
        turn: state.turn,
        phase: state.phase,
        captures: state.position.captures(),
        consecutive_passes: state.consecutive_passes,
        moves: state.records().to_vec(),
        ko_point,
        scoring_marks,
        clock: clock_view(&state.clock, state),
        undo: UndoView {
            used_by: state.undo.used,
            pending: state.undo.pending.map(|r| PendingUndo {
                by: r.by,
                plies: r.plies,
            }),
        },
        draw: DrawView {
            pending_by: state.draw.pending_by,
            last_offer_move: state.draw.declined_at,
        },
        result: state.result.clone(),
        komi: f64::from(state.options.komi_halves()) / 2.0,
        deadline_at: Baduk::deadline(state),
        move_limit: u16::try_from(move_limit(&state.options)).unwrap_or(u16::MAX),
        resumes_left,
        illegal_points,
        atari_warnings,
    }
}
