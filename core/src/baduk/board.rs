//! The board as mechanics only: stones, chains, liberties, captures and a Zobrist hash of the
//! arrangement. Ko, superko and turn order live elsewhere (`history`, `state`).

use std::fmt;

use super::color::Color;
use super::point::{MAX_SIZE, Point};
use super::zobrist::KEYS;

const CELLS: usize = MAX_SIZE as usize * MAX_SIZE as usize;

/// Why [`Board::play`] refused a stone. The board is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The point is outside the board.
    OffBoard,
    /// A stone is already there.
    Occupied,
    /// The stone would have no liberty and captures nothing (B1: always illegal).
    Suicide,
}

/// A square Go board of 1 to 19 lines.
///
/// Invariant (kept by [`Board::play`], checked by the property tests): no chain on the board is
/// without liberties. [`Board::set`] is the raw edit for setups and may break it.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    size: u8,
    cells: Vec<Option<Color>>,
    hash: u64,
}

/// A chain (same-coloured stones connected orthogonally) and its liberties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    /// The chain's colour.
    pub color: Color,
    /// Its stones (board indices), in discovery order.
    pub stones: Vec<usize>,
    /// Its liberties (empty neighbouring indices), each once.
    pub liberties: Vec<usize>,
}

impl Board {
    /// An empty board of `size` lines (clamped to 1..=19).
    pub fn new(size: u8) -> Self {
        let size = size.clamp(1, MAX_SIZE);
        Board {
            size,
            cells: vec![None; size as usize * size as usize],
            hash: 0,
        }
    }

    /// Builds a board from rows of `.`/`+` (empty), `X`/`B`/`#` (black) and `O`/`W` (white),
    /// top row first; whitespace inside a row is ignored. `None` unless the rows form a square
    /// of 1 to 19 lines. Used by tests and fixtures.
    pub fn from_rows(rows: &[&str]) -> Option<Self> {
        let size = u8::try_from(rows.len()).ok()?;
        let mut board = Board::new(size);
        if board.size as usize != rows.len() {
            return None;
        }
        for (y, row) in rows.iter().enumerate() {
            let cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
            if cells.len() != rows.len() {
                return None;
            }
            for (x, c) in cells.into_iter().enumerate() {
                let stone = match c {
                    '.' | '+' => None,
                    'X' | 'B' | '#' => Some(Color::Black),
                    'O' | 'W' => Some(Color::White),
                    _ => return None,
                };
                board.set(y * rows.len() + x, stone);
            }
        }
        Some(board)
    }

    /// The number of lines.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The number of intersections (`size * size`).
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Always false: a board has at least one intersection (here for clippy's `len` convention).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The stone at `index`, if any. Out-of-range indices read as empty.
    pub fn get(&self, index: usize) -> Option<Color> {
        self.cells.get(index).copied().flatten()
    }

    /// The stone at `point`, if any.
    pub fn at(&self, point: Point) -> Option<Color> {
        if point.is_on(self.size) {
            self.get(point.index(self.size))
        } else {
            None
        }
    }

    /// All cells, index `y * size + x`.
    pub fn cells(&self) -> &[Option<Color>] {
        &self.cells
    }

    /// The Zobrist hash of the stone arrangement (the side to move is not part of it).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The number of stones of `color` on the board.
    pub fn count(&self, color: Color) -> usize {
        self.cells.iter().filter(|&&c| c == Some(color)).count()
    }

    /// Puts `stone` at `index` (or clears it) without any rule: for handicap setup and scoring.
    /// Out-of-range indices are ignored.
    pub fn set(&mut self, index: usize, stone: Option<Color>) {
        let Some(cell) = self.cells.get_mut(index) else {
            return;
        };
        if let Some(old) = *cell {
            self.hash ^= KEYS[old.index()][index];
        }
        if let Some(new) = stone {
            self.hash ^= KEYS[new.index()][index];
        }
        *cell = stone;
    }

    /// The orthogonal neighbours of `index`, without allocating.
    pub fn neighbors(&self, index: usize) -> Neighbors {
        let size = self.size as usize;
        let (x, y) = (index % size, index / size);
        let mut n = Neighbors {
            items: [0; 4],
            len: 0,
        };
        if y > 0 {
            n.push(index - size);
        }
        if x > 0 {
            n.push(index - 1);
        }
        if x + 1 < size {
            n.push(index + 1);
        }
        if y + 1 < size {
            n.push(index + size);
        }
        n
    }

    /// Plays a stone of `color` at `point` by §5.2 steps 1–4: it must be empty, opponent chains
    /// left without liberties are removed, and a stone that then has no liberty is suicide.
    /// Returns the captured indices (ascending). On `Err` the board is unchanged.
    pub fn play(&mut self, color: Color, point: Point) -> Result<Vec<usize>, PlayError> {
        if !point.is_on(self.size) {
            return Err(PlayError::OffBoard);
        }
        let index = point.index(self.size);
        if self.cells[index].is_some() {
            return Err(PlayError::Occupied);
        }
        self.set(index, Some(color));
        let mut captured = Vec::new();
        for n in self.neighbors(index) {
            if self.cells[n] == Some(color.opponent())
                && !captured.contains(&n)
                && !self.has_liberty(n)
            {
                self.collect_chain(n, &mut captured);
            }
        }
        if captured.is_empty() && !self.has_liberty(index) {
            self.set(index, None);
            return Err(PlayError::Suicide);
        }
        for &c in &captured {
            self.set(c, None);
        }
        captured.sort_unstable();
        Ok(captured)
    }

    /// Whether the chain through `index` has at least one liberty (stops at the first found).
    pub fn has_liberty(&self, index: usize) -> bool {
        let Some(color) = self.get(index) else {
            return true;
        };
        let mut seen = [false; CELLS];
        let mut stack = [0u16; CELLS];
        let mut top = 1;
        stack[0] = index as u16;
        seen[index] = true;
        while top > 0 {
            top -= 1;
            let i = stack[top] as usize;
            for n in self.neighbors(i) {
                match self.cells[n] {
                    None => return true,
                    Some(c) if c == color && !seen[n] => {
                        seen[n] = true;
                        stack[top] = n as u16;
                        top += 1;
                    }
                    _ => {}
                }
            }
        }
        false
    }

    /// The chain through `index`, or `None` on an empty point.
    pub fn chain(&self, index: usize) -> Option<Chain> {
        let color = self.get(index)?;
        let mut stones = Vec::new();
        self.collect_chain(index, &mut stones);
        let mut liberties = Vec::new();
        for &s in &stones {
            for n in self.neighbors(s) {
                if self.cells[n].is_none() && !liberties.contains(&n) {
                    liberties.push(n);
                }
            }
        }
        Some(Chain {
            color,
            stones,
            liberties,
        })
    }

    /// Every chain on the board, each once.
    pub fn chains(&self) -> Vec<Chain> {
        let mut seen = vec![false; self.cells.len()];
        let mut chains = Vec::new();
        for i in 0..self.cells.len() {
            if seen[i] {
                continue;
            }
            if let Some(chain) = self.chain(i) {
                for &s in &chain.stones {
                    seen[s] = true;
                }
                chains.push(chain);
            }
        }
        chains
    }

    /// Appends the stones of the chain through `index` to `out` (which may already hold other
    /// stones; those are treated as visited).
    fn collect_chain(&self, index: usize, out: &mut Vec<usize>) {
        let Some(color) = self.get(index) else {
            return;
        };
        let start = out.len();
        out.push(index);
        let mut next = start;
        while next < out.len() {
            let i = out[next];
            next += 1;
            for n in self.neighbors(i) {
                if self.cells[n] == Some(color) && !out[start..].contains(&n) {
                    out.push(n);
                }
            }
        }
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Board {}x{} hash {:016x}",
            self.size, self.size, self.hash
        )?;
        for row in self.cells.chunks(self.size as usize) {
            for cell in row {
                f.write_str(match cell {
                    None => ".",
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Up to four neighbouring indices (an iterator that never allocates).
#[derive(Clone, Copy, Debug)]
pub struct Neighbors {
    items: [usize; 4],
    len: u8,
}

impl Neighbors {
    fn push(&mut self, index: usize) {
        self.items[self.len as usize] = index;
        self.len += 1;
    }
}

impl Iterator for Neighbors {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        // Order does not matter to any caller; popping from the back keeps this branch-free.
        self.len -= 1;
        Some(self.items[self.len as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        Board::from_rows(rows).unwrap()
    }

    #[test]
    fn a_surrounded_stone_is_captured_and_the_hash_forgets_it() {
        let mut b = board(&[".X.", "XO.", ".X."]);
        let before = board(&[".X.", "X..", ".X."]).hash();
        let captured = b.play(Color::Black, Point::new(2, 1)).unwrap();
        assert_eq!(captured, vec![4]);
        assert_eq!(b.get(4), None);
        assert_eq!(b.hash() ^ KEYS[0][5], before);
    }

    #[test]
    fn suicide_is_refused_and_changes_nothing() {
        let mut b = board(&[".X.", "X.X", ".X."]);
        let copy = b.clone();
        assert_eq!(
            b.play(Color::White, Point::new(1, 1)),
            Err(PlayError::Suicide)
        );
        assert_eq!(b, copy);
    }

    #[test]
    fn a_move_without_liberties_that_captures_is_legal() {
        // White at the corner has no empty neighbour but takes both black stones.
        let mut b = board(&[".XO", "XO.", "O.."]);
        assert_eq!(b.play(Color::White, Point::new(0, 0)), Ok(vec![1, 3]));
        assert!(b.has_liberty(0));
    }

    #[test]
    fn chains_report_stones_and_liberties_once() {
        let b = board(&["XX.", "X..", "..."]);
        let chain = b.chain(0).unwrap();
        assert_eq!(chain.stones.len(), 3);
        assert_eq!(chain.liberties.len(), 3);
        assert_eq!(b.chains().len(), 1);
    }
}
