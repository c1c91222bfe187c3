//! A game's position: the board, its history and the move record with captures, built by
//! playing moves under a ko rule. This is what [`super::state::BadukState`] rebuilds from its
//! stored move list.

use serde::Serialize;

use super::board::{Board, PlayError};
use super::color::{ByColor, Color};
use super::error::BadukError;
use super::handicap;
pub use super::history::Played;
use super::history::{History, KoShape};
use super::options::{BadukOptions, KoRule};
use super::point::Point;

/// One entry of the game record as views show it (§8.1 `moves`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum MoveRecord {
    /// A stone and the stones it captured.
    Place {
        /// Who played.
        color: Color,
        /// Where.
        pt: Point,
        /// The stones it captured.
        captured: Vec<Point>,
    },
    /// A pass.
    Pass {
        /// Who passed.
        color: Color,
    },
}

/// What a legal move did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveEffect {
    /// Captured stones (indices, ascending).
    pub captured: Vec<usize>,
    /// How many times the resulting situation (arrangement + side to move) has now appeared.
    pub situation_count: u8,
}

/// Board + history + record. Every method either plays a legal move or changes nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    board: Board,
    history: History,
    records: Vec<MoveRecord>,
    captures: ByColor<u32>,
    ko_rule: KoRule,
}

impl Position {
    /// The starting position of `options`: the handicap stones placed (§4), `first` to move.
    pub fn start(options: &BadukOptions) -> Self {
        let size = options.size();
        let mut board = Board::new(size);
        for p in handicap::points(size, options.handicap) {
            board.set(p.index(size), Some(Color::Black));
        }
        let history = History::new(board.hash(), options.first_to_move());
        Position {
            board,
            history,
            records: Vec::new(),
            captures: ByColor::default(),
            ko_rule: options.ko_rule,
        }
    }

    /// Replays `moves` from the start of `options`, checking each; the first illegal one is
    /// reported with its number.
    pub fn replay(options: &BadukOptions, moves: &[Played]) -> Result<Self, (usize, BadukError)> {
        let mut position = Position::start(options);
        for (i, m) in moves.iter().enumerate() {
            position.apply(*m).map_err(|e| (i, e))?;
        }
        Ok(position)
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The superko set, situation counts and ko shape.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The game record with captures.
    pub fn records(&self) -> &[MoveRecord] {
        &self.records
    }

    /// Stones each side has captured during play.
    pub fn captures(&self) -> ByColor<u32> {
        self.captures
    }

    /// Plays a stone or a pass.
    pub fn apply(&mut self, m: Played) -> Result<MoveEffect, BadukError> {
        match m.point {
            Some(p) => self.place(m.color, p),
            None => Ok(self.pass(m.color)),
        }
    }

    /// Whether `color` may play at `point` now (the checks of [`Position::place`], no change).
    pub fn check(&self, color: Color, point: Point) -> Result<(), BadukError> {
        let mut board = self.board.clone();
        let captured = board.play(color, point).map_err(play_error)?;
        self.check_ko(&board, point.index(self.board.size()), &captured)
    }

    /// Plays a stone of `color` at `point` (§5.2 steps 1–6 and §5.3).
    pub fn place(&mut self, color: Color, point: Point) -> Result<MoveEffect, BadukError> {
        let captured = self.board.play(color, point).map_err(play_error)?;
        let index = point.index(self.board.size());
        if let Err(e) = self.check_ko(&self.board, index, &captured) {
            // Step 5: take the stone back and put the captured ones back.
            self.board.set(index, None);
            for &c in &captured {
                self.board.set(c, Some(color.opponent()));
            }
            return Err(e);
        }
        let alone = !self
            .board
            .neighbors(index)
            .any(|n| self.board.get(n) == Some(color));
        let ko = match captured.as_slice() {
            [one] if alone => Some(KoShape {
                point: *one,
                capturer: index,
            }),
            _ => None,
        };
        *self.captures.get_mut(color) += captured.len() as u32;
        let situation_count = self.history.record(self.board.hash(), color.opponent(), ko);
        let size = self.board.size();
        self.records.push(MoveRecord::Place {
            color,
            pt: point,
            captured: captured
                .iter()
                .map(|&c| Point::from_index(c, size))
                .collect(),
        });
        Ok(MoveEffect {
            captured,
            situation_count,
        })
    }

    /// Records a pass by `color` (always legal, §5.4).
    pub fn pass(&mut self, color: Color) -> MoveEffect {
        let situation_count = self
            .history
            .record(self.board.hash(), color.opponent(), None);
        self.records.push(MoveRecord::Pass { color });
        MoveEffect {
            captured: Vec::new(),
            situation_count,
        }
    }

    /// The ko checks of a stone at `index` that produced `after` capturing `captured`.
    fn check_ko(&self, after: &Board, index: usize, captured: &[usize]) -> Result<(), BadukError> {
        // B2, under both rules: retaking at once the single stone that just took one.
        if let Some(ko) = self.history.ko()
            && ko.point == index
            && captured == [ko.capturer]
        {
            return Err(BadukError::Ko);
        }
        if self.ko_rule == KoRule::PositionalSuperko && self.history.seen(after.hash()) {
            return Err(BadukError::Superko);
        }
        Ok(())
    }
}

fn play_error(e: PlayError) -> BadukError {
    match e {
        PlayError::OffBoard => BadukError::OffBoard,
        PlayError::Occupied => BadukError::Occupied,
        PlayError::Suicide => BadukError::Suicide,
    }
}
