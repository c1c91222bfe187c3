//! The seeded random generator every game draws from.
//!
//! A room is seeded once (by the caller, from OS entropy) and the generator travels with the
//! stored room: its seed and word position are serialized, so a reloaded room continues the very
//! same stream. Same seed + same actions ⇒ same state. The generator never appears in a view:
//! knowing it would let a client predict the next 윷 throw.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A ChaCha8 stream whose position is part of the game's stored state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRng(ChaCha8Rng);

impl GameRng {
    /// A generator from a full 256-bit seed (what a room gets from OS entropy).
    pub fn from_seed(seed: [u8; 32]) -> Self {
        GameRng(ChaCha8Rng::from_seed(seed))
    }

    /// A generator from a small seed: for tests and `MADANG_DEV=1` rooms.
    pub fn seed_from_u64(seed: u64) -> Self {
        GameRng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// The next 64 uniformly random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform float in `[0, 1)` with 53 bits of precision, so `rng.unit() < p` happens with
    /// probability `p` (the spec's `rng() < p`).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `0..n` (unbiased, by rejection). `n` must be positive.
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "below(0) has no value");
        let n = u64::from(n);
        // Reject the top partial bucket so every value is equally likely.
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as u32;
            }
        }
    }
}

/// Stored form: the seed and how far the stream has been read (in 32-bit words).
#[derive(Serialize, Deserialize)]
struct StoredRng {
    seed: [u8; 32],
    pos: u128,
}

impl Serialize for GameRng {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StoredRng {
            seed: self.0.get_seed(),
            pos: self.0.get_word_pos(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for GameRng {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let StoredRng { seed, pos } = StoredRng::deserialize(d)?;
        let mut rng = ChaCha8Rng::from_seed(seed);
        rng.set_word_pos(pos);
        Ok(GameRng(rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reloaded_generator_continues_the_same_stream() {
        let mut rng = GameRng::seed_from_u64(7);
        rng.next_u64();
        rng.unit();
        let bytes = postcard::to_allocvec(&rng).unwrap();
        let mut back: GameRng = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, rng);
        assert_eq!(back.next_u64(), rng.next_u64());
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = GameRng::seed_from_u64(1);
        let mut seen = [false; 3];
        for _ in 0..100 {
            seen[rng.below(3) as usize] = true;
        }
        assert_eq!(seen, [true; 3]);
    }

    #[test]
    fn unit_is_in_the_half_open_interval() {
        let mut rng = GameRng::seed_from_u64(2);
        for _ in 0..1000 {
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
