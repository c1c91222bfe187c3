//! The engine's own board for playouts: a padded array with incrementally kept chains
//! (head, circular stone list) and pseudo-liberties (count, sum and sum of squares, so "in
//! atari" and its one liberty are O(1)), plus the list of empty points for random picks.
//!
//! It knows simple ko only; superko is left to the rules engine ([`super::super::Position`]),
//! which checks every move the bot finally chooses. Nothing here allocates after `from_board`
//! except the `Vec` clones a search makes of the root.

use crate::baduk::board::Board;
use crate::baduk::color::Color;

/// Cell values.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const EDGE: u8 = 3;
/// The "pass" move (index 0 is always an edge cell of the padded board).
pub(crate) const PASS: usize = 0;

/// The cell value of `color`.
pub(crate) fn cell_of(color: Color) -> u8 {
    match color {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

/// The padded playout board.
#[derive(Clone, Debug)]
pub(crate) struct FastBoard {
    /// Lines.
    pub size: usize,
    /// Padded width (`size + 2`).
    pub w: usize,
    /// Cell values, padded index `(y + 1) * w + x + 1`.
    pub cells: Vec<u8>,
    head: Vec<u16>,
    next: Vec<u16>,
    libs: Vec<u16>,
    lsum: Vec<u32>,
    lsq: Vec<u64>,
    stones: Vec<u16>,
    empties: Vec<u16>,
    epos: Vec<u16>,
    /// The point the side to move may not play (simple ko), or `PASS` for none.
    pub ko: usize,
    /// The side to move (`BLACK`/`WHITE`).
    pub to_move: u8,
    /// Passes in a row.
    pub passes: u8,
    /// The last move (`PASS` for a pass or none).
    pub last: usize,
    /// Stones each side has put on the board in the whole game (handicap stones count as
    /// black's): what turns an area count into a territory count.
    pub placed: [u32; 2],
}

impl FastBoard {
    /// The playout board of `board` with `to_move` to play, `ko` the forbidden retake (a rules
    /// board index) and `placed` the stones each side has put down so far.
    pub fn from_board(board: &Board, to_move: Color, ko: Option<usize>, placed: [u32; 2]) -> Self {
        let size = board.size() as usize;
        let w = size + 2;
        let n = w * w;
        let mut fb = FastBoard {
            size,
            w,
            cells: vec![EDGE; n],
            head: vec![0; n],
            next: vec![0; n],
            libs: vec![0; n],
            lsum: vec![0; n],
            lsq: vec![0; n],
            stones: vec![0; n],
            empties: Vec::with_capacity(size * size),
            epos: vec![0; n],
            ko: PASS,
            to_move: cell_of(to_move),
            passes: 0,
            last: PASS,
            placed,
        };
        for y in 0..size {
            for x in 0..size {
                let p = fb.pad(x, y);
                fb.cells[p] = EMPTY;
                fb.epos[p] = fb.empties.len() as u16;
                fb.empties.push(p as u16);
            }
        }
        for i in 0..board.len() {
            if let Some(c) = board.get(i) {
                let p = fb.rules_to_pad(i);
                fb.put(p, cell_of(c));
            }
        }
        if let Some(k) = ko {
            fb.ko = fb.rules_to_pad(k);
        }
        fb
    }

    /// The padded index of column `x`, row `y`.
    pub fn pad(&self, x: usize, y: usize) -> usize {
        (y + 1) * self.w + x + 1
    }

    /// The padded index of a rules-board index.
    pub fn rules_to_pad(&self, i: usize) -> usize {
        self.pad(i % self.size, i / self.size)
    }

    /// The rules-board index of a padded index.
    pub fn to_rules(&self, p: usize) -> usize {
        (p / self.w - 1) * self.size + (p % self.w - 1)
    }

    /// The four neighbours of `p` (all valid indices: the board is padded).
    #[inline]
    pub fn nbrs(&self, p: usize) -> [usize; 4] {
        [p - 1, p + 1, p - self.w, p + self.w]
    }

    /// The four diagonal neighbours of `p`.
    #[inline]
    pub fn diags(&self, p: usize) -> [usize; 4] {
        [
            p - self.w - 1,
            p - self.w + 1,
            p + self.w - 1,
            p + self.w + 1,
        ]
    }

    /// The empty points.
    pub fn empties(&self) -> &[u16] {
        &self.empties
    }

    /// The head of the chain through stone `p`.
    #[inline]
    pub fn head(&self, p: usize) -> usize {
        self.head[p] as usize
    }

    /// The number of stones of the chain with head `h`.
    #[inline]
    pub fn chain_len(&self, h: usize) -> usize {
        self.stones[h] as usize
    }

    /// Whether the chain with head `h` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, h: usize) -> bool {
        let n = u64::from(self.libs[h]);
        let s = u64::from(self.lsum[h]);
        n > 0 && n * self.lsq[h] == s * s
    }

    /// The only liberty of the chain with head `h` (meaningful when [`Self::in_atari`]).
    #[inline]
    pub fn atari_lib(&self, h: usize) -> usize {
        (self.lsum[h] / u32::from(self.libs[h].max(1))) as usize
    }

    /// Up to `out.len()` distinct liberties of the chain with head `h`; returns how many.
    pub fn liberties(&self, h: usize, out: &mut [usize]) -> usize {
        let mut n = 0;
        let mut s = h;
        loop {
            for q in self.nbrs(s) {
                if self.cells[q] == EMPTY && !out[..n].contains(&q) {
                    if n == out.len() {
                        return n;
                    }
                    out[n] = q;
                    n += 1;
                }
            }
            s = self.next[s] as usize;
            if s == h {
                return n;
            }
        }
    }

    /// The stones of the chain with head `h`.
    pub fn chain_stones(&self, h: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.stones[h] as usize);
        let mut s = h;
        loop {
            out.push(s);
            s = self.next[s] as usize;
            if s == h {
                return out;
            }
        }
    }

    /// Whether `c` may play at `p` (empty, not the ko point, not suicide).
    pub fn is_legal(&self, p: usize, c: u8) -> bool {
        if self.cells[p] != EMPTY || p == self.ko {
            return false;
        }
        for q in self.nbrs(p) {
            let v = self.cells[q];
            if v == EMPTY {
                return true;
            }
            if v == EDGE {
                continue;
            }
            let h = self.head(q);
            // An own chain with another liberty, or an opponent chain captured here.
            if (v == c) != self.in_atari(h) {
                return true;
            }
        }
        false
    }

    /// Whether `p` is an eye of `c`: all neighbours `c` (or the edge) and at most one diagonal
    /// held by the opponent (none at the edge).
    pub fn is_eye(&self, p: usize, c: u8) -> bool {
        if self.nbrs(p).iter().any(|&q| {
            let v = self.cells[q];
            v != c && v != EDGE
        }) {
            return false;
        }
        let opp = 3 - c;
        let mut bad = 0;
        let mut edge = false;
        for q in self.diags(p) {
            match self.cells[q] {
                EDGE => edge = true,
                v if v == opp => bad += 1,
                _ => {}
            }
        }
        if edge { bad == 0 } else { bad < 2 }
    }

    /// What a stone of `c` at `p` would leave: its chain's liberty count (capped at 3, captures
    /// counted as liberties), the chain's size, and whether it captures.
    pub fn after_move(&self, p: usize, c: u8) -> (usize, usize, bool) {
        let mut libs = [0usize; 4];
        let mut n = 0;
        let mut size = 1;
        let mut captures = false;
        let mut seen = [0usize; 4];
        let mut seen_n = 0;
        for q in self.nbrs(p) {
            let v = self.cells[q];
            if v == EMPTY {
                if !libs[..n].contains(&q) && n < 3 {
                    libs[n] = q;
                    n += 1;
                }
            } else if v == EDGE {
                continue;
            } else {
                let h = self.head(q);
                if seen[..seen_n].contains(&h) {
                    continue;
                }
                seen[seen_n] = h;
                seen_n += 1;
                if v == c {
                    size += self.chain_len(h);
                    let mut l = [0usize; 4];
                    let k = self.liberties(h, &mut l);
                    for &x in &l[..k] {
                        if x != p && !libs[..n].contains(&x) && n < 3 {
                            libs[n] = x;
                            n += 1;
                        }
                    }
                } else if self.in_atari(h) {
                    captures = true;
                }
            }
        }
        if captures {
            n = n.max(2);
        }
        (n, size, captures)
    }

    /// Plays `c` at `p` (which must be legal), or passes when `p == PASS`.
    pub fn play(&mut self, p: usize, c: u8) {
        if p == PASS {
            self.ko = PASS;
            self.passes += 1;
            self.last = PASS;
            self.to_move = 3 - c;
            return;
        }
        let captured = self.put(p, c);
        let h = self.head(p);
        self.ko = match captured {
            Some(at) if self.stones[h] == 1 && self.in_atari(h) => at,
            _ => PASS,
        };
        self.placed[usize::from(c - 1)] += 1;
        self.passes = 0;
        self.last = p;
        self.to_move = 3 - c;
    }

    /// Puts a stone with its captures; returns the captured point when exactly one stone was.
    fn put(&mut self, p: usize, c: u8) -> Option<usize> {
        let opp = 3 - c;
        self.cells[p] = c;
        self.remove_empty(p);
        self.head[p] = p as u16;
        self.next[p] = p as u16;
        self.libs[p] = 0;
        self.lsum[p] = 0;
        self.lsq[p] = 0;
        self.stones[p] = 1;
        let pl = p as u32;
        let pq = (p * p) as u64;
        for q in self.nbrs(p) {
            match self.cells[q] {
                EMPTY => {
                    self.libs[p] += 1;
                    self.lsum[p] += q as u32;
                    self.lsq[p] += (q * q) as u64;
                }
                EDGE => {}
                _ => {
                    let h = self.head(q);
                    self.libs[h] -= 1;
                    self.lsum[h] -= pl;
                    self.lsq[h] -= pq;
                }
            }
        }
        for q in self.nbrs(p) {
            if self.cells[q] == c && self.head(q) != self.head(p) {
                self.merge(self.head(p), self.head(q));
            }
        }
        let mut count = 0;
        let mut at = PASS;
        for q in self.nbrs(p) {
            if self.cells[q] == opp && self.libs[self.head(q)] == 0 {
                count += self.remove_chain(self.head(q));
                at = q;
            }
        }
        (count == 1).then_some(at)
    }

    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.stones[a] >= self.stones[b] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = self.next[s] as usize;
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.libs[big] += self.libs[small];
        self.lsum[big] += self.lsum[small];
        self.lsq[big] += self.lsq[small];
        self.stones[big] += self.stones[small];
    }

    fn remove_chain(&mut self, h: usize) -> usize {
        let stones = self.chain_stones(h);
        for &s in &stones {
            self.cells[s] = EMPTY;
            self.epos[s] = self.empties.len() as u16;
            self.empties.push(s as u16);
        }
        for &s in &stones {
            for q in self.nbrs(s) {
                let v = self.cells[q];
                if v == BLACK || v == WHITE {
                    let hq = self.head(q);
                    self.libs[hq] += 1;
                    self.lsum[hq] += s as u32;
                    self.lsq[hq] += (s * s) as u64;
                }
            }
        }
        stones.len()
    }

    fn remove_empty(&mut self, p: usize) {
        let i = self.epos[p] as usize;
        let last = *self.empties.last().unwrap_or(&0);
        self.empties.swap_remove(i);
        if (last as usize) != p {
            self.epos[last as usize] = i as u16;
        }
    }

    /// Area count of a finished playout: stones plus empty points whose neighbours are all
    /// one colour. Returns (black, white).
    pub fn area(&self) -> (i32, i32) {
        let (mut b, mut w) = (0, 0);
        for y in 0..self.size {
            for x in 0..self.size {
                let p = self.pad(x, y);
                match self.owner(p) {
                    BLACK => b += 1,
                    WHITE => w += 1,
                    _ => {}
                }
            }
        }
        (b, w)
    }

    /// Who owns `p` on a finished playout board: its stone, or the one colour around an empty
    /// point (`EMPTY` for neither).
    pub fn owner(&self, p: usize) -> u8 {
        let v = self.cells[p];
        if v != EMPTY {
            return v;
        }
        let mut seen = EMPTY;
        for q in self.nbrs(p) {
            let c = self.cells[q];
            if c == BLACK || c == WHITE {
                if seen == EMPTY {
                    seen = c;
                } else if seen != c {
                    return EMPTY;
                }
            }
        }
        seen
    }
}
