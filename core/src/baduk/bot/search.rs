//! Monte Carlo tree search with RAVE (all-moves-as-first) and heuristic priors over
//! pattern-guided playouts, on [`FastBoard`]. Deterministic: one seed in, one tree out; the
//! budget is a number of playouts, never a time.

use super::fast::{BLACK, EMPTY, FastBoard, PASS, WHITE};

/// A small, fast generator for playouts (wyrand), seeded once per search from the room's
/// [`crate::GameRng`]: ChaCha8 would cost more than the playouts' board work.
#[derive(Clone, Debug)]
pub(crate) struct Wy(u64);

impl Wy {
    pub fn new(seed: u64) -> Self {
        Wy(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        ((t >> 64) ^ t) as u64
    }

    /// A value in `0..n` (`n > 0`), by multiply-shift (bias below 2⁻³² is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next() & 0xffff_ffff) * n as u64) >> 32) as usize
    }
}

/// How a finished playout is counted: the rules' method, komi and compensation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Eval {
    /// Territory counting (stones put down are subtracted from the area count).
    pub territory: bool,
    /// Komi in half points.
    pub komi_halves: i32,
    /// White's handicap compensation under area counting.
    pub comp: i32,
}

impl Eval {
    /// Black's lead in half points on a finished playout board (positive: black wins).
    pub fn black_lead_halves(&self, b: &FastBoard) -> i32 {
        let (ab, aw) = b.area();
        // Area − territory difference = stones black put down − stones white put down (every
        // stone on the board or captured was put down by its side), so one playout board gives
        // either count exactly.
        let adjust = if self.territory {
            b.placed[0] as i32 - b.placed[1] as i32
        } else {
            self.comp
        };
        2 * (ab - aw - adjust) - self.komi_halves
    }
}

/// The playout policy: answer the last move tactically (capture a chain it left in atari, save
/// own chains it put in atari by capturing or extending), otherwise a random legal move that
/// fills no own eye and puts no chain of two or more stones in atari.
pub(crate) fn playout_move(b: &FastBoard, rng: &mut Wy) -> usize {
    let c = b.to_move;
    if b.last != PASS
        && let Some(m) = tactical(b, c, rng)
    {
        return m;
    }
    random_move(b, c, rng)
}

fn tactical(b: &FastBoard, c: u8, rng: &mut Wy) -> Option<usize> {
    let last = b.last;
    let opp = 3 - c;
    let mut cands = [0usize; 16];
    let mut n = 0;
    let push = |m: usize, cands: &mut [usize; 16], n: &mut usize| {
        if *n < 16 && !cands[..*n].contains(&m) {
            cands[*n] = m;
            *n += 1;
        }
    };
    if b.cells[last] == opp {
        let h = b.head(last);
        if b.in_atari(h) {
            let l = b.atari_lib(h);
            if b.is_legal(l, c) {
                push(l, &mut cands, &mut n);
            }
        }
    }
    for q in b.nbrs(last) {
        if b.cells[q] != c {
            continue;
        }
        let h = b.head(q);
        if !b.in_atari(h) {
            continue;
        }
        // Capture a neighbouring opponent chain in atari (small chains only: cost bound).
        if b.chain_len(h) <= 12 {
            for s in b.chain_stones(h) {
                for r in b.nbrs(s) {
                    if b.cells[r] == opp {
                        let hr = b.head(r);
                        if b.in_atari(hr) {
                            let l = b.atari_lib(hr);
                            if b.is_legal(l, c) {
                                push(l, &mut cands, &mut n);
                            }
                        }
                    }
                }
            }
        }
        let l = b.atari_lib(h);
        if b.is_legal(l, c) && b.after_move(l, c).0 >= 2 {
            push(l, &mut cands, &mut n);
        }
    }
    (n > 0).then(|| cands[rng.below(n)])
}

fn random_move(b: &FastBoard, c: u8, rng: &mut Wy) -> usize {
    let e = b.empties();
    let n = e.len();
    if n == 0 {
        return PASS;
    }
    let start = rng.below(n);
    for k in 0..n {
        let p = e[(start + k) % n] as usize;
        if !b.is_legal(p, c) || b.is_eye(p, c) {
            continue;
        }
        let free = b.nbrs(p).iter().filter(|&&q| b.cells[q] == EMPTY).count();
        if free < 2 {
            let (libs, size, _) = b.after_move(p, c);
            // Self-atari: never for a chain, half the time for a lone stone (throw-ins and
            // nakade need some).
            if libs <= 1 && (size >= 2 || rng.below(2) == 0) {
                continue;
            }
        }
        return p;
    }
    PASS
}

/// A tree node: the move into it, its mover, its children (a contiguous range) and its
/// statistics, real and all-moves-as-first, wins counted for the mover.
#[derive(Clone, Debug)]
struct Node {
    mv: u16,
    color: u8,
    first: u32,
    count: u16,
    expanded: bool,
    visits: u32,
    n: f32,
    w: f32,
    rn: f32,
    rw: f32,
}

/// Search settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params {
    /// RAVE equivalence: visits at which real and AMAF values weigh the same.
    pub equiv: f32,
    /// Exploration constant of the UCB term.
    pub explore: f32,
    /// Playout length cap, as a multiple of the number of points.
    pub max_moves_factor: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            equiv: 3000.0,
            explore: 0.05,
            max_moves_factor: 3,
        }
    }
}

/// What a root child ended with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootChild {
    /// Padded index, or `PASS`.
    pub mv: usize,
    /// Real visits (without priors).
    pub visits: u32,
    /// Win rate for the side to move at the root (priors included).
    pub value: f32,
}

/// One search.
pub(crate) struct Search {
    nodes: Vec<Node>,
    root: FastBoard,
    eval: Eval,
    params: Params,
    rng: Wy,
    /// Root moves the rules allow (padded index), `None`: any playout-legal move.
    allowed: Option<Vec<bool>>,
    /// Ownership sums, + black, − white, by padded index.
    own: Vec<f32>,
    playouts: u32,
    /// Sum of black's lead in half points over the playouts run.
    lead_sum: i64,
    amaf: Vec<u8>,
    seq: Vec<(u16, u8)>,
    path: Vec<usize>,
}

impl Search {
    pub fn new(
        root: FastBoard,
        eval: Eval,
        params: Params,
        seed: u64,
        allowed: Option<Vec<bool>>,
    ) -> Self {
        let n = root.cells.len();
        let to_move = root.to_move;
        Search {
            nodes: vec![Node {
                mv: PASS as u16,
                color: 3 - to_move,
                first: 0,
                count: 0,
                expanded: false,
                visits: 0,
                n: 0.0,
                w: 0.0,
                rn: 0.0,
                rw: 0.0,
            }],
            root,
            eval,
            params,
            rng: Wy::new(seed),
            allowed,
            own: vec![0.0; n],
            playouts: 0,
            lead_sum: 0,
            amaf: vec![0; n],
            seq: Vec::new(),
            path: Vec::new(),
        }
    }

    /// Runs `playouts` more simulations.
    pub fn run(&mut self, playouts: u32) {
        for _ in 0..playouts {
            self.simulate();
        }
    }

    /// Ownership by padded index in −1..=1 (+ black).
    pub fn ownership(&self) -> Vec<f32> {
        let k = 1.0 / self.playouts.max(1) as f32;
        self.own.iter().map(|o| o * k).collect()
    }

    /// Black's mean lead in points over the playouts run so far (komi and compensation
    /// included), 0 before any.
    pub fn mean_black_lead(&self) -> f64 {
        self.lead_sum as f64 / 2.0 / f64::from(self.playouts.max(1))
    }

    /// The root's children, most visited first (ties: higher value, then lower index).
    pub fn root_children(&self) -> Vec<RootChild> {
        let root = &self.nodes[0];
        let mut out: Vec<RootChild> = (root.first..root.first + u32::from(root.count))
            .map(|i| {
                let c = &self.nodes[i as usize];
                RootChild {
                    mv: usize::from(c.mv),
                    visits: c.visits,
                    value: if c.n > 0.0 { c.w / c.n } else { 0.5 },
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.visits
                .cmp(&a.visits)
                .then(b.value.total_cmp(&a.value))
                .then(a.mv.cmp(&b.mv))
        });
        out
    }

    fn simulate(&mut self) {
        let mut b = self.root.clone();
        self.seq.clear();
        self.path.clear();
        let mut node = 0;
        self.path.push(0);
        loop {
            if !self.nodes[node].expanded {
                if node != 0 && self.nodes[node].visits < 1 {
                    break;
                }
                self.expand(node, &b);
            }
            if self.nodes[node].count == 0 || b.passes >= 2 {
                break;
            }
            let child = self.select(node);
            let (mv, color) = (usize::from(self.nodes[child].mv), self.nodes[child].color);
            b.play(mv, color);
            self.seq.push((mv as u16, color));
            self.path.push(child);
            node = child;
        }
        // Playout.
        let max = self.params.max_moves_factor * b.size * b.size;
        let start = self.seq.len();
        let mut moves = 0;
        while b.passes < 2 && moves < max {
            let c = b.to_move;
            let m = playout_move(&b, &mut self.rng);
            b.play(m, c);
            if m != PASS {
                self.seq.push((m as u16, c));
            }
            moves += 1;
        }
        let lead = self.eval.black_lead_halves(&b);
        let black = match lead.signum() {
            1 => 1.0,
            -1 => 0.0,
            _ => 0.5,
        };
        self.playouts += 1;
        self.lead_sum += i64::from(lead);
        for y in 0..b.size {
            for x in 0..b.size {
                let p = b.pad(x, y);
                match b.owner(p) {
                    BLACK => self.own[p] += 1.0,
                    WHITE => self.own[p] -= 1.0,
                    _ => {}
                }
            }
        }
        // Backup with AMAF: a child of the node at depth k gets the result when its move was
        // first played, by its mover, anywhere from depth k on.
        self.amaf.fill(0);
        for &(m, c) in self.seq[start..].iter().rev() {
            self.amaf[usize::from(m)] = c;
        }
        for k in (0..self.path.len()).rev() {
            if k < start {
                let (m, c) = self.seq[k];
                self.amaf[usize::from(m)] = c;
            }
            let id = self.path[k];
            let value = |color: u8| if color == BLACK { black } else { 1.0 - black };
            {
                let nd = &mut self.nodes[id];
                nd.visits += 1;
                nd.n += 1.0;
                nd.w += value(nd.color);
            }
            let (first, count) = (
                self.nodes[id].first as usize,
                usize::from(self.nodes[id].count),
            );
            for c in &mut self.nodes[first..first + count] {
                let m = usize::from(c.mv);
                if m != PASS && self.amaf[m] == c.color {
                    c.rn += 1.0;
                    c.rw += value(c.color);
                }
            }
        }
    }

    fn select(&self, node: usize) -> usize {
        let nd = &self.nodes[node];
        let first = nd.first as usize;
        let ln = (nd.visits.max(1) as f32).ln();
        let mut best = first;
        let mut best_v = f32::NEG_INFINITY;
        for i in first..first + usize::from(nd.count) {
            let c = &self.nodes[i];
            let q = if c.n > 0.0 { c.w / c.n } else { 0.5 };
            let v = if c.rn > 0.0 {
                let beta = c.rn / (c.rn + c.n + c.rn * c.n / self.params.equiv);
                (1.0 - beta) * q + beta * (c.rw / c.rn)
            } else {
                q
            };
            let v = v + self.params.explore * (ln / (c.n + 1.0)).sqrt();
            if v > best_v {
                best_v = v;
                best = i;
            }
        }
        best
    }

    fn expand(&mut self, node: usize, b: &FastBoard) {
        let c = b.to_move;
        let first = self.nodes.len();
        let mut empties: Vec<u16> = b.empties().to_vec();
        // The empty list's order depends on history; sorting keeps ties independent of it.
        empties.sort_unstable();
        for p in empties {
            let p = usize::from(p);
            if node == 0
                && let Some(allowed) = &self.allowed
                && !allowed[p]
            {
                continue;
            }
            if !b.is_legal(p, c) || b.is_eye(p, c) {
                continue;
            }
            let (n, w) = prior(b, p, c);
            self.nodes.push(Node {
                mv: p as u16,
                color: c,
                first: 0,
                count: 0,
                expanded: false,
                visits: 0,
                n,
                w,
                rn: 0.0,
                rw: 0.0,
            });
        }
        if self.nodes.len() == first {
            self.nodes.push(Node {
                mv: PASS as u16,
                color: c,
                first: 0,
                count: 0,
                expanded: false,
                visits: 0,
                n: 1.0,
                w: 0.5,
                rn: 0.0,
                rw: 0.0,
            });
        }
        let count = (self.nodes.len() - first) as u16;
        let nd = &mut self.nodes[node];
        nd.first = first as u32;
        nd.count = count;
        nd.expanded = true;
    }
}

/// Heuristic prior of a move as (virtual visits, virtual wins): captures and escapes up, self-
/// atari and empty first-line moves down, the third and fourth lines and replies next to the
/// last move a little up.
fn prior(b: &FastBoard, p: usize, c: u8) -> (f32, f32) {
    let (mut n, mut w) = (10.0f32, 5.0f32);
    let good = |k: f32, n: &mut f32, w: &mut f32| {
        *n += k;
        *w += k;
    };
    let (libs, size, captures) = b.after_move(p, c);
    let opp = 3 - c;
    if captures {
        // Bigger captures weigh more.
        let mut biggest = 0;
        for q in b.nbrs(p) {
            if b.cells[q] == opp && b.in_atari(b.head(q)) {
                biggest = biggest.max(b.chain_len(b.head(q)));
            }
        }
        good(10.0 + 5.0 * biggest.min(6) as f32, &mut n, &mut w);
    }
    let mut escape = false;
    let mut threat = false;
    for q in b.nbrs(p) {
        if b.cells[q] == c && b.in_atari(b.head(q)) {
            escape = true;
        }
        if b.cells[q] == opp && !b.in_atari(b.head(q)) {
            let mut l = [0usize; 3];
            if b.liberties(b.head(q), &mut l) == 2 {
                threat = true;
            }
        }
    }
    if escape && libs >= 2 {
        good(15.0, &mut n, &mut w);
    }
    if threat && libs >= 2 {
        good(3.0, &mut n, &mut w);
    }
    if libs <= 1 && !captures {
        n += if size >= 2 { 30.0 } else { 10.0 };
    }
    let (x, y) = (p % b.w - 1, p / b.w - 1);
    let s = b.size;
    let line = x.min(y).min(s - 1 - x).min(s - 1 - y);
    let empty_around = {
        let mut empty = true;
        'scan: for dy in -2i32..=2 {
            for dx in -2i32..=2 {
                let (xx, yy) = (x as i32 + dx, y as i32 + dy);
                if xx < 0 || yy < 0 || xx >= s as i32 || yy >= s as i32 {
                    continue;
                }
                if b.cells[b.pad(xx as usize, yy as usize)] != EMPTY {
                    empty = false;
                    break 'scan;
                }
            }
        }
        empty
    };
    if empty_around {
        match line {
            0 => n += 15.0,
            1 => n += 5.0,
            2 => good(5.0, &mut n, &mut w),
            3 if s >= 13 => good(5.0, &mut n, &mut w),
            _ => {}
        }
    }
    if b.last != PASS {
        let near = b.nbrs(b.last).contains(&p) || b.diags(b.last).contains(&p);
        if near {
            good(4.0, &mut n, &mut w);
        }
    }
    (n, w)
}
