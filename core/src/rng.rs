//! The seeded random generator every game draws from, and its public commitment.
//!
//! A room is seeded once (by the caller, from OS entropy) and the generator travels with the
//! stored room: its seed and word position are serialized, so a reloaded room continues the very
//! same stream. Same seed + same actions ⇒ same state. The generator never appears in a view:
//! knowing it would let a client predict the next 윷 throw.
//!
//! So that players can check afterwards that no throw was tampered with, every room also carries
//! a 16-byte salt (from OS entropy too) and shows from its creation on the commitment
//! [`GameRng::commitment`] = SHA-256(seed ‖ salt) as `rngCommitment`; once the game is over its
//! result reveals seed and salt ([`GameRng::reveal`]). `docs/audit.md` is the procedure that
//! recomputes every draw from them.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

/// A ChaCha8 stream whose position is part of the game's stored state, with the salt of its
/// commitment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRng {
    rng: ChaCha8Rng,
    salt: [u8; 16],
}

/// What the result of a finished game reveals (`result.rngReveal`): the generator's seed and the
/// commitment's salt, lowercase hex, and how far the game read the stream. SHA-256 of the 48
/// bytes `seed ‖ salt` is the `rngCommitment` the room showed from its creation on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Reveal {
    /// The 32-byte ChaCha8 seed, 64 hex digits.
    pub seed: String,
    /// The 16-byte salt, 32 hex digits.
    pub salt: String,
    /// How many 32-bit words of the stream the game drew (so an auditor knows the log of
    /// draws is complete: a left-out throw leaves words unaccounted for).
    pub words: u64,
}

/// A salt for a generator that was given none: the first 16 bytes of SHA-256 of a label and the
/// seed. It keeps the commitment well defined; it adds no secrecy beyond the seed's own.
fn derived_salt(seed: &[u8; 32]) -> [u8; 16] {
    let digest = Sha256::new()
        .chain_update(b"madang derived salt")
        .chain_update(seed)
        .finalize();
    let mut salt = [0u8; 16];
    salt.copy_from_slice(&digest[..16]);
    salt
}

impl GameRng {
    /// A generator from a full 256-bit seed and a 128-bit salt, both from OS entropy: what a
    /// room is created with.
    pub fn new(seed: [u8; 32], salt: [u8; 16]) -> Self {
        GameRng {
            rng: ChaCha8Rng::from_seed(seed),
            salt,
        }
    }

    /// A generator from a full 256-bit seed, its salt derived from the seed. The commitment
    /// still hides a random seed, but [`GameRng::new`] with a salt of its own is what rooms
    /// should get.
    pub fn from_seed(seed: [u8; 32]) -> Self {
        GameRng::new(seed, derived_salt(&seed))
    }

    /// A generator from a small seed: for tests and `MADANG_DEV=1` rooms (their salt is derived:
    /// a 64-bit seed can be guessed from the commitment, which a dev room does not mind).
    pub fn seed_from_u64(seed: u64) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(seed);
        let salt = derived_salt(&rng.get_seed());
        GameRng { rng, salt }
    }

    /// `rngCommitment`: SHA-256 of the 48 bytes `seed ‖ salt`, lowercase hex. Shown from the
    /// room's creation on; it never changes, and reveals nothing of the stream.
    pub fn commitment(&self) -> String {
        let digest = Sha256::new()
            .chain_update(self.rng.get_seed())
            .chain_update(self.salt)
            .finalize();
        hex::encode(digest)
    }

    /// The seed and salt, for the result of a finished game only (after it, nothing more is
    /// drawn from this stream).
    pub fn reveal(&self) -> Reveal {
        Reveal {
            seed: hex::encode(self.rng.get_seed()),
            salt: hex::encode(self.salt),
            words: u64::try_from(self.rng.get_word_pos()).unwrap_or(u64::MAX),
        }
    }

    /// How many 32-bit words of the stream have been drawn (the replay log keeps it where a
    /// game starts, and how far a computer player's choice read).
    pub(crate) fn word_pos(&self) -> u128 {
        self.rng.get_word_pos()
    }

    /// Moves the stream to word `pos` (the replay puts the generator where the game had it).
    pub(crate) fn set_word_pos(&mut self, pos: u128) {
        self.rng.set_word_pos(pos);
    }

    /// The next 64 uniformly random bits: the next two 32-bit words of the stream, the first
    /// as the low half (every draw of the games goes through here, so the words pair up from
    /// word 0 on; `docs/audit.md`).
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
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

/// Stored form: the seed, how far the stream has been read (in 32-bit words) and the salt.
#[derive(Serialize, Deserialize)]
struct StoredRng {
    seed: [u8; 32],
    pos: u128,
    salt: [u8; 16],
}

impl Serialize for GameRng {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        StoredRng {
            seed: self.rng.get_seed(),
            pos: self.rng.get_word_pos(),
            salt: self.salt,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for GameRng {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let StoredRng { seed, pos, salt } = StoredRng::deserialize(d)?;
        let mut rng = ChaCha8Rng::from_seed(seed);
        rng.set_word_pos(pos);
        Ok(GameRng { rng, salt })
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
    fn the_commitment_is_sha256_of_seed_and_salt_and_the_reveal_matches_it() {
        let rng = GameRng::new([7; 32], [9; 16]);
        let mut bytes = vec![7u8; 32];
        bytes.extend([9u8; 16]);
        assert_eq!(rng.commitment(), hex::encode(Sha256::digest(&bytes)));
        assert_eq!(rng.commitment().len(), 64);
        let reveal = rng.reveal();
        assert_eq!(reveal.seed, "07".repeat(32));
        assert_eq!(reveal.salt, "09".repeat(16));
        assert_eq!(reveal.words, 0);
        // Drawing moves the stream, never the commitment; another salt is another commitment.
        let mut moved = rng.clone();
        moved.next_u64();
        assert_eq!(moved.commitment(), rng.commitment());
        assert_eq!(moved.reveal().words, 2, "one draw is two words");
        assert_ne!(
            GameRng::new([7; 32], [8; 16]).commitment(),
            rng.commitment()
        );
    }

    #[test]
    fn the_salt_survives_the_stored_form() {
        let mut rng = GameRng::new([1; 32], [2; 16]);
        rng.next_u64();
        let back: GameRng = postcard::from_bytes(&postcard::to_allocvec(&rng).unwrap()).unwrap();
        assert_eq!(back.reveal(), rng.reveal());
        assert_eq!(back.commitment(), rng.commitment());
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
