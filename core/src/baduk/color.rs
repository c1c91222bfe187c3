//! The two sides and a pair of values indexed by side.

use serde::{Deserialize, Serialize};

/// A side: 흑 (black, moves first in an even game) or 백 (white).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    strum::VariantArray,
)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// 흑.
    Black,
    /// 백.
    White,
}

impl Color {
    /// The other side.
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The spec's `Cell` value of a stone of this colour: 1 black, 2 white.
    pub const fn cell(self) -> u8 {
        match self {
            Color::Black => 1,
            Color::White => 2,
        }
    }

    /// 0 for black, 1 for white (table indices).
    pub const fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }

    /// The Korean name used in summaries: "흑" or "백".
    pub const fn korean(self) -> &'static str {
        match self {
            Color::Black => "흑",
            Color::White => "백",
        }
    }

    /// The SGF property letter: `B` or `W`.
    pub const fn sgf(self) -> &'static str {
        match self {
            Color::Black => "B",
            Color::White => "W",
        }
    }
}

/// One value per side, serialized as `{black, white}`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[schemars(rename = "ByColor_{T}")]
pub struct ByColor<T> {
    /// Black's value.
    pub black: T,
    /// White's value.
    pub white: T,
}

impl<T> ByColor<T> {
    /// A pair from black's and white's values.
    pub const fn new(black: T, white: T) -> Self {
        ByColor { black, white }
    }

    /// The value of `color`.
    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The value of `color`, mutably.
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }
}

impl<T: Clone> ByColor<T> {
    /// The same value for both sides.
    pub fn both(value: T) -> Self {
        ByColor {
            black: value.clone(),
            white: value,
        }
    }
}
