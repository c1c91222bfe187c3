//! What the board does not know: the positions seen so far (positional superko), the
//! situations seen so far (`korean` repetition, B3) and the simple-ko point (B2).
//!
//! Nothing here is stored: [`History`] is rebuilt by replaying the move list, so it is always
//! the whole game's history, never a window.

use std::collections::{HashMap, HashSet};

use super::color::Color;
use super::zobrist::ZobristBuild;

/// The simple-ko shape left by the last move (B2): it captured exactly one stone at `point`
/// with a stone at `capturer` that is a single-stone chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KoShape {
    /// Where the captured stone stood: the point the opponent may not retake at once.
    pub point: usize,
    /// The single stone that captured, which a retake at `point` would capture.
    pub capturer: usize,
}

/// Superko set, situation counts and the ko shape of the last move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    positions: HashSet<u64, ZobristBuild>,
    situations: HashMap<(u64, Color), u8, ZobristBuild>,
    ko: Option<KoShape>,
}

impl History {
    /// The history of a game that starts from `hash` with `to_move` to play.
    pub fn new(hash: u64, to_move: Color) -> Self {
        let mut history = History::default();
        history.positions.insert(hash);
        history.situations.insert((hash, to_move), 1);
        history
    }

    /// Whether the arrangement `hash` has appeared in this game (positional superko).
    pub fn seen(&self, hash: u64) -> bool {
        self.positions.contains(&hash)
    }

    /// The simple-ko shape left by the last move, if any.
    pub fn ko(&self) -> Option<KoShape> {
        self.ko
    }

    /// How many times `hash` with `to_move` to play has appeared.
    pub fn situation_count(&self, hash: u64, to_move: Color) -> u8 {
        self.situations.get(&(hash, to_move)).copied().unwrap_or(0)
    }

    /// The number of distinct arrangements seen.
    pub fn positions(&self) -> usize {
        self.positions.len()
    }

    /// Records a move or pass that left arrangement `hash` with `to_move` to play, and the ko
    /// shape it made (`None` for passes and ordinary moves). Returns how many times that
    /// situation has now appeared.
    pub fn record(&mut self, hash: u64, to_move: Color, ko: Option<KoShape>) -> u8 {
        self.positions.insert(hash);
        self.ko = ko;
        let count = self.situations.entry((hash, to_move)).or_insert(0);
        *count = count.saturating_add(1);
        *count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn situations_count_the_side_to_move_and_positions_do_not() {
        let mut h = History::new(7, Color::Black);
        assert_eq!(h.record(9, Color::White, None), 1);
        assert_eq!(h.record(7, Color::White, None), 1);
        assert_eq!(h.record(7, Color::Black, None), 2);
        assert!(h.seen(7) && h.seen(9) && !h.seen(8));
        assert_eq!(h.positions(), 2);
    }
}
