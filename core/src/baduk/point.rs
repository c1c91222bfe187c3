//! Intersections: `{x, y}` with `x` left to right and `y` top to bottom, both from 0.

use serde::{Deserialize, Serialize};

/// The largest board this crate's mechanics support (the engine itself plays 9, 13 and 19).
pub const MAX_SIZE: u8 = 19;

/// An intersection of the board. `y = 0` is the top row, as in the views and in SGF.
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
)]
pub struct Point {
    /// Column, 0 = left (`A`).
    pub x: u8,
    /// Row, 0 = top (the highest row number in the `D4` notation).
    pub y: u8,
}

impl Point {
    /// The point at column `x`, row `y`.
    pub const fn new(x: u8, y: u8) -> Self {
        Point { x, y }
    }

    /// The point's index on a board of `size` lines: `y * size + x`.
    pub const fn index(self, size: u8) -> usize {
        self.y as usize * size as usize + self.x as usize
    }

    /// The point at `index` on a board of `size` lines.
    pub const fn from_index(index: usize, size: u8) -> Self {
        let size = size as usize;
        Point {
            x: (index % size) as u8,
            y: (index / size) as u8,
        }
    }

    /// Whether the point lies on a board of `size` lines.
    pub const fn is_on(self, size: u8) -> bool {
        self.x < size && self.y < size
    }

    /// Parses the board notation of §3 (`D4`, `Q16`: columns from `A` skipping `I`, rows counted
    /// from the bottom) on a board of `size` lines.
    pub fn from_label(label: &str, size: u8) -> Option<Self> {
        let mut chars = label.chars();
        let column = chars.next()?.to_ascii_uppercase();
        if !column.is_ascii_uppercase() || column == 'I' {
            return None;
        }
        // `I` is skipped so that it is never mistaken for `J` or `1`.
        let x = column as u8 - b'A' - u8::from(column > 'I');
        let row: u8 = chars.as_str().parse().ok()?;
        if row == 0 || row > size || x >= size {
            return None;
        }
        Some(Point { x, y: size - row })
    }

    /// The board notation of §3 (`D4`) on a board of `size` lines.
    pub fn label(self, size: u8) -> String {
        let column = b'A' + self.x + u8::from(self.x >= 8);
        format!("{}{}", column as char, size - self.y)
    }

    /// The SGF coordinate pair (`aa` is the top-left corner).
    pub fn sgf(self) -> String {
        let mut s = String::with_capacity(2);
        s.push((b'a' + self.x) as char);
        s.push((b'a' + self.y) as char);
        s
    }

    /// Parses an SGF coordinate pair; `None` for anything else (including the empty pass value).
    pub fn from_sgf(text: &str) -> Option<Self> {
        match text.as_bytes() {
            [x @ b'a'..=b'z', y @ b'a'..=b'z'] => Some(Point::new(x - b'a', y - b'a')),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_skip_the_letter_i_and_count_rows_from_the_bottom() {
        assert_eq!(Point::from_label("D4", 19), Some(Point::new(3, 15)));
        assert_eq!(Point::from_label("Q16", 19), Some(Point::new(15, 3)));
        assert_eq!(Point::from_label("J1", 9), Some(Point::new(8, 8)));
        assert_eq!(Point::from_label("I5", 9), None);
        assert_eq!(Point::new(15, 3).label(19), "Q16");
        assert_eq!(Point::new(8, 0).label(9), "J9");
    }

    #[test]
    fn sgf_coordinates_round_trip() {
        let p = Point::new(3, 15);
        assert_eq!(p.sgf(), "dp");
        assert_eq!(Point::from_sgf("dp"), Some(p));
        assert_eq!(Point::from_sgf(""), None);
    }
}
