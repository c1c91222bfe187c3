//! Zobrist keys for stone arrangements, and a hasher that trusts them.
//!
//! The keys are a constant table built at compile time from splitmix64 over a fixed seed, so a
//! hash means the same arrangement in every process and every release; they have nothing to do
//! with the game's random generator.
//!
//! # Stability
//! Hashes are never stored (the history is rebuilt from the moves), so changing the seed only
//! changes in-memory values.

use std::hash::{BuildHasherDefault, Hasher};

use super::point::MAX_SIZE;

const POINTS: usize = MAX_SIZE as usize * MAX_SIZE as usize;
const SEED: u64 = 0x6261_6475_6b5f_7a6f; // "baduk_zo"

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const fn build() -> [[u64; POINTS]; 2] {
    let mut table = [[0u64; POINTS]; 2];
    let mut state = SEED;
    let mut color = 0;
    while color < 2 {
        let mut i = 0;
        while i < POINTS {
            let (next, value) = splitmix64(state);
            state = next;
            table[color][i] = value;
            i += 1;
        }
        color += 1;
    }
    table
}

/// `KEYS[color][index]`: the key of a stone of `color` (0 black, 1 white) at `index`.
/// Indices are `y * size + x` of the board in use, so boards of different sizes share the table.
pub(crate) static KEYS: [[u64; POINTS]; 2] = build();

/// A hasher for keys that already are uniform 64-bit hashes: it passes them through.
///
/// Superko lookups happen on every move; SipHash over a value that is already random would only
/// cost time.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassThroughHasher(u64);

impl Hasher for PassThroughHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only reached for non-u64 keys; fold them in so the hasher stays correct for any key.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }

    fn write_u8(&mut self, n: u8) {
        // The side to move in a situation key: spread it so (hash, black) ≠ (hash, white).
        self.0 ^= u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Builds [`PassThroughHasher`]s.
pub type ZobristBuild = BuildHasherDefault<PassThroughHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_fixed_and_has_no_repeated_keys() {
        let mut all: Vec<u64> = KEYS.iter().flatten().copied().collect();
        assert_eq!(KEYS[0][0], build()[0][0]);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 2 * POINTS);
    }
}
