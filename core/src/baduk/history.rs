//! What the board does not know: the positions seen so far (positional superko), the
//! situations seen so far (`korean` repetition, B3) and the simple-ko point (B2) — and the
//! move list they are rebuilt from, in its stored, bit-packed form ([`PackedMoves`]).
//!
//! [`History`] is not stored: it is rebuilt by replaying the move list, so it is always the
//! whole game's history, never a window.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::color::Color;
use super::point::Point;
use super::zobrist::ZobristBuild;

/// A move as stored: who played, and where (`None`: a pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The side that moved.
    pub color: Color,
    /// The point played, or `None` for a pass.
    pub point: Option<Point>,
}

/// The move list as stored: one fixed-width code per move, packed into bytes.
///
/// On a board of `n` lines a code is `0..n²` for a stone at that point index (`y·n + x`), `n²`
/// for a pass, and `n² + 1` for "the next move is by the side that just moved" (colours
/// otherwise alternate from [`BadukOptions::first_to_move`](super::BadukOptions::first_to_move);
/// resuming play after the scoring phase may give the move to either side). Codes are
/// `⌈log₂(n² + 2)⌉` bits wide — 7 on 9×9, 8 on 13×13, 9 on 19×19, where a move costs 9 bits
/// instead of 16 — written least significant bit first into a little-endian bit stream, the
/// last byte padded with zero bits. `count` is the number of moves (flags not counted).
///
/// Decoding is strict, so a damaged list is refused, never misread: every code must be in
/// range, a flag must be followed by a move, the padding must be zero and no byte may follow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackedMoves {
    count: u32,
    bits: Vec<u8>,
}

/// The code width on a board of `size` lines: enough bits for `size² + 2` codes.
const fn code_width(size: u8) -> u32 {
    let codes = size as u32 * size as u32 + 2;
    u32::BITS - (codes - 1).leading_zeros()
}

impl PackedMoves {
    /// Packs `moves` of a game on `size` lines whose first move is `first`'s.
    pub fn pack(moves: &[Played], size: u8, first: Color) -> Self {
        let points = u32::from(size) * u32::from(size);
        let (pass, flip) = (points, points + 1);
        let width = code_width(size);
        let mut writer = BitWriter::default();
        let mut expected = first;
        for m in moves {
            if m.color != expected {
                writer.write(flip, width);
            }
            let code = m.point.map_or(pass, |p| p.index(size) as u32);
            writer.write(code, width);
            expected = m.color.opponent();
        }
        PackedMoves {
            count: moves.len() as u32,
            bits: writer.finish(),
        }
    }

    /// The moves back, or the number of the first malformed one.
    pub fn unpack(&self, size: u8, first: Color) -> Result<Vec<Played>, usize> {
        let points = u32::from(size) * u32::from(size);
        let (pass, flip) = (points, points + 1);
        let width = code_width(size);
        let count = self.count as usize;
        // A cheap bound before allocating: every move takes at least one code.
        if (self.bits.len() as u64) * 8 < count as u64 * u64::from(width) {
            return Err(self.bits.len() * 8 / width as usize);
        }
        let mut reader = BitReader::new(&self.bits);
        let mut moves = Vec::with_capacity(count);
        let mut expected = first;
        for i in 0..count {
            let mut code = reader.read(width).ok_or(i)?;
            if code == flip {
                expected = expected.opponent();
                code = reader.read(width).ok_or(i)?;
            }
            let point = match code {
                c if c < points => Some(Point::from_index(c as usize, size)),
                c if c == pass => None,
                // A second flag in a row, or a code past the flag.
                _ => return Err(i),
            };
            moves.push(Played {
                color: expected,
                point,
            });
            expected = expected.opponent();
        }
        if !reader.rest_is_padding() {
            return Err(count);
        }
        Ok(moves)
    }

    /// How many bytes the packed codes take.
    pub fn byte_len(&self) -> usize {
        self.bits.len()
    }
}

/// Appends fixed-width codes, least significant bit first.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    filled: u32,
}

impl BitWriter {
    fn write(&mut self, code: u32, width: u32) {
        self.acc |= u64::from(code) << self.filled;
        self.filled += width;
        while self.filled >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.filled -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.filled > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

/// Reads what [`BitWriter`] wrote.
struct BitReader<'a> {
    bytes: &'a [u8],
    /// Bits read so far.
    at: usize,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        BitReader { bytes, at: 0 }
    }

    /// The next `width`-bit code (`width` ≤ 16: a code and its offset in its first byte fit in
    /// the three bytes gathered).
    fn read(&mut self, width: u32) -> Option<u32> {
        let width = width as usize;
        if self.at + width > self.bytes.len() * 8 {
            return None;
        }
        let (first, shift) = (self.at / 8, self.at % 8);
        let word = self.bytes[first..]
            .iter()
            .take(3)
            .enumerate()
            .fold(0u32, |w, (k, &b)| w | u32::from(b) << (8 * k));
        self.at += width;
        Some((word >> shift) & ((1 << width) - 1))
    }

    /// Whether only the zero padding of the last byte is left.
    fn rest_is_padding(&self) -> bool {
        let last = self.at.div_ceil(8);
        last == self.bytes.len()
            && (self.at.is_multiple_of(8) || self.bytes[last - 1] >> (self.at % 8) == 0)
    }
}

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

    fn stone(color: Color, x: u8, y: u8) -> Played {
        Played {
            color,
            point: Some(Point::new(x, y)),
        }
    }

    #[test]
    fn codes_are_7_8_and_9_bits_wide() {
        assert_eq!([code_width(9), code_width(13), code_width(19)], [7, 8, 9]);
    }

    #[test]
    fn packed_moves_round_trip_with_passes_and_a_side_moving_twice() {
        let (b, w) = (Color::Black, Color::White);
        let moves = vec![
            stone(b, 3, 3),
            Played {
                color: w,
                point: None,
            },
            stone(b, 18, 18),
            // White was due; Black moves again (play resumed after scoring).
            stone(b, 0, 0),
            stone(w, 18, 0),
        ];
        let packed = PackedMoves::pack(&moves, 19, b);
        // 5 moves and one flag, 9 bits each: 54 bits in 7 bytes.
        assert_eq!(packed.byte_len(), 7);
        assert_eq!(packed.unpack(19, b), Ok(moves.clone()));
        // White first (a handicap game): every move is a flip away from the expected colour.
        let white_first = PackedMoves::pack(&moves, 19, w);
        assert_eq!(white_first.unpack(19, w), Ok(moves));
        for size in [9, 13, 19] {
            let n = u16::from(size);
            let all: Vec<Played> = (0..n * n)
                .map(|i| {
                    let color = if i % 2 == 0 { b } else { w };
                    stone(color, (i % n) as u8, (i / n) as u8)
                })
                .collect();
            let packed = PackedMoves::pack(&all, size, b);
            assert_eq!(
                packed.byte_len(),
                (usize::from(size) * usize::from(size) * code_width(size) as usize).div_ceil(8)
            );
            assert_eq!(packed.unpack(size, b), Ok(all));
        }
    }

    #[test]
    fn damaged_packed_moves_are_refused_not_misread() {
        let (b, w) = (Color::Black, Color::White);
        let moves = vec![stone(b, 1, 1), stone(w, 2, 2), stone(b, 3, 3)];
        let good = PackedMoves::pack(&moves, 9, b);
        // One move more than the bits hold, or one fewer (the last code left over).
        let more = PackedMoves {
            count: 4,
            ..good.clone()
        };
        assert!(more.unpack(9, b).is_err());
        let fewer = PackedMoves {
            count: 2,
            ..good.clone()
        };
        assert_eq!(fewer.unpack(9, b), Err(2));
        // A trailing byte, nonzero padding, a code past the flag.
        let mut trailing = good.clone();
        trailing.bits.push(0);
        assert_eq!(trailing.unpack(9, b), Err(3));
        let mut padded = good.clone();
        *padded.bits.last_mut().unwrap() |= 0x80;
        assert_eq!(padded.unpack(9, b), Err(3));
        let mut writer = BitWriter::default();
        writer.write(83, 7);
        let past = PackedMoves {
            count: 1,
            bits: writer.finish(),
        };
        assert_eq!(past.unpack(9, b), Err(0));
        // A flag followed by a flag.
        let mut writer = BitWriter::default();
        writer.write(82, 7);
        writer.write(82, 7);
        let flags = PackedMoves {
            count: 1,
            bits: writer.finish(),
        };
        assert_eq!(flags.unpack(9, b), Err(0));
    }

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
