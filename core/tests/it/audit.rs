//! The audit of `docs/audit.md`, followed step by step: from a finished room's `rngCommitment`,
//! the `rngReveal` of its result and the game's action log (the `thrown` and `nak` events, in
//! order), every draw of the game is recomputed — the first side, every 윷 throw stick by stick,
//! 바둑's nigiri — and checked.
//!
//! The recomputation is written here from the document alone: the ChaCha8 keystream comes
//! straight from `rand_chacha`'s block function (`fill_bytes`), the words, the floats, the
//! rejection sampling and the stick table are re-implemented, and no engine code draws a number
//! on the auditor's side. 1,000 random 윷놀이 games (random options, random legal moves, timeouts
//! and bots) pass it; a game whose log is altered in any throw, or whose reveal does not match
//! the commitment, fails it.

use madang_core::baduk::{Baduk, BadukOptions, ColorAssignment};
use madang_core::room::{LobbyAction, Presence, Room, RoomAction, RoomEvent, TokenHash};
use madang_core::yut::{Event, Mode, OnLeave, Phase, StickModel, Yut, YutOptions};
use madang_core::{GameRng, Millis, PlayerId};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use strum::VariantArray;

// ---------------------------------------------------------------------------------------------
// The auditor's side: docs/audit.md, and nothing of the engine.

/// One throw as the action log shows it: `nak`, or `thrown` with its sticks and result.
#[derive(Clone, Debug, PartialEq)]
enum Logged {
    Nak,
    Thrown { sticks: [bool; 4], result: String },
}

fn unhex<const N: usize>(text: &str) -> Result<[u8; N], String> {
    if text.len() != 2 * N {
        return Err(format!("{text}: not {N} bytes of hex"));
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Step 2: the ChaCha8 keystream of the seed (64-bit nonce 0, block counter from 0), read as
/// little-endian 32-bit words; a draw takes the next two words, the first as the low half.
struct Keystream {
    cipher: ChaCha8Rng,
    block: [u8; 64],
    /// Words taken from the stream so far.
    words: u64,
}

impl Keystream {
    fn new(seed: [u8; 32]) -> Self {
        Keystream {
            cipher: ChaCha8Rng::from_seed(seed),
            block: [0; 64],
            words: 0,
        }
    }

    fn word(&mut self) -> u32 {
        let at = (self.words % 16) as usize;
        if at == 0 {
            // One ChaCha8 block: 64 bytes of keystream.
            self.cipher.fill_bytes(&mut self.block);
        }
        self.words += 1;
        u32::from_le_bytes(self.block[4 * at..4 * at + 4].try_into().unwrap())
    }

    fn draw(&mut self) -> u64 {
        let low = u64::from(self.word());
        let high = u64::from(self.word());
        low | high << 32
    }

    /// Step 3: `u = (x >> 11) · 2⁻⁵³`.
    fn unit(&mut self) -> f64 {
        (self.draw() >> 11) as f64 / 9_007_199_254_740_992.0
    }

    /// Step 3: a uniform integer below `n` by rejection: draws until `x < 2⁶⁴ − 1 − ((2⁶⁴ − 1)
    /// mod n)`, then `x mod n`.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.draw();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// Step 1: SHA-256 of the 48 bytes `seed ‖ salt` must be the commitment.
fn check_commitment(commitment: &str, reveal: &Value) -> Result<([u8; 32], u64), String> {
    let seed: [u8; 32] = unhex(reveal["seed"].as_str().ok_or("no seed")?)?;
    let salt: [u8; 16] = unhex(reveal["salt"].as_str().ok_or("no salt")?)?;
    let digest = Sha256::new()
        .chain_update(seed)
        .chain_update(salt)
        .finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    if hex != commitment {
        return Err(format!(
            "commitment {commitment} ≠ SHA-256(seed ‖ salt) {hex}"
        ));
    }
    let words = reveal["words"].as_u64().ok_or("no words")?;
    Ok((seed, words))
}

/// Steps 4–6 for 윷놀이: the first side, then each logged throw in order.
fn audit_yut(
    commitment: &str,
    reveal: &Value,
    options: &Value,
    players: usize,
    first_seat: usize,
    log: &[Logged],
) -> Result<(), String> {
    let (seed, words) = check_commitment(commitment, reveal)?;
    let mut stream = Keystream::new(seed);
    let sides = if options["mode"] == "team" {
        2
    } else {
        players
    };
    let first = stream.below(sides as u64) as usize;
    if first != first_seat % sides {
        return Err(format!(
            "first side {first}, the game started with seat {first_seat}"
        ));
    }
    let nak = options["nakPercent"].as_u64().ok_or("no nakPercent")? as f64 / 100.0;
    let p = match options["stickModel"].as_str() {
        Some("realistic") => 0.6,
        Some("fair") => 0.5,
        other => return Err(format!("stick model {other:?}")),
    };
    let backdo = options["backdo"].as_bool().ok_or("no backdo")?;
    for (i, logged) in log.iter().enumerate() {
        let expected = if nak > 0.0 && stream.unit() < nak {
            Logged::Nak
        } else {
            let sticks: [bool; 4] = std::array::from_fn(|_| stream.unit() < p);
            let up = sticks.iter().filter(|&&s| s).count();
            let result = match up {
                0 => "mo",
                1 if backdo && sticks[0] => "backdo",
                1 => "do",
                2 => "gae",
                3 => "geol",
                _ => "yut",
            };
            Logged::Thrown {
                sticks,
                result: result.to_owned(),
            }
        };
        if &expected != logged {
            return Err(format!(
                "throw {i}: logged {logged:?}, recomputed {expected:?}"
            ));
        }
    }
    if stream.words != words {
        return Err(format!(
            "the log accounts for {} words, the game drew {words}",
            stream.words
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The games: driven through the room with random legal actions.

/// A small deterministic generator for the test's own choices (not the game's).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next() as u8)
    }
}

/// What a finished game leaves for the auditor.
struct Played {
    commitment: String,
    reveal: Value,
    options: Value,
    players: usize,
    first_seat: usize,
    log: Vec<Logged>,
}

fn log_of(events: impl IntoIterator<Item = Event>, log: &mut Vec<Logged>) {
    for event in events {
        match event {
            Event::Nak { .. } => log.push(Logged::Nak),
            Event::Thrown { sticks, result, .. } => log.push(Logged::Thrown {
                sticks,
                result: result.as_str().to_owned(),
            }),
            _ => {}
        }
    }
}

fn random_options(r: &mut SplitMix) -> (YutOptions, usize) {
    let mode = if r.pick(3) == 0 {
        Mode::Team
    } else {
        Mode::Individual
    };
    let base = YutOptions {
        mode,
        ..YutOptions::default()
    };
    let counts = base.player_counts();
    let players = counts[r.pick(counts.len())];
    let options = YutOptions {
        pieces: YutOptions::PIECES[r.pick(4)],
        stick_model: StickModel::VARIANTS[r.pick(2)],
        backdo: r.pick(4) != 0,
        nak_percent: YutOptions::NAK_PERCENTS[r.pick(4)],
        on_leave: OnLeave::VARIANTS[r.pick(2)],
        hints: r.pick(2) == 0,
        ..base
    };
    (options, players)
}

fn play_yut(game: u64) -> Played {
    let mut r = SplitMix(game);
    let (options, players) = random_options(&mut r);
    let t0: Millis = 1_700_000_000_000;
    let rng = GameRng::new(r.bytes(), r.bytes());
    let (mut room, host) = Room::<Yut>::create(
        format!("room{game}"),
        "호스트".into(),
        TokenHash::of("host"),
        options.clone(),
        rng,
        t0,
    )
    .unwrap();
    let mut ids = vec![host.clone()];
    for i in 1..players {
        let id = room
            .join(format!("손님{i}"), TokenHash::of(&format!("t{i}")), t0)
            .unwrap();
        ids.push(id);
    }
    let start = RoomAction::Lobby(LobbyAction::Start);
    room.act(&host, start, t0).unwrap();
    // The commitment and options as the view shows them at the start.
    let view = serde_json::to_value(room.view(Some(&host), &Presence::new(), t0)).unwrap();
    let commitment = view["rngCommitment"].as_str().unwrap().to_owned();
    let first_player = view["state"]["turnOrder"][0].as_str().unwrap().to_owned();
    let first_seat = ids.iter().position(|p| p.as_str() == first_player).unwrap();
    let mut log = Vec::new();
    let mut now = t0;
    for _ in 0..20_000 {
        let state = room.game.as_ref().unwrap();
        if state.phase() == Phase::Finished {
            break;
        }
        now += 1_000;
        // Everyone is present, except that now and then the clock jumps past the turn timer so
        // that a timeout (or the cap, or a bot's turn) plays for someone.
        if r.pick(40) == 0 {
            now += 61_000;
        }
        let presence: Presence = ids.iter().map(|p| (p.clone(), now)).collect();
        log_of(room.play_out(now, &presence), &mut log);
        let state = room.game.as_ref().unwrap();
        let Some(mover) = state.current_player().cloned() else {
            continue;
        };
        let action = match state.phase() {
            Phase::Throw => json!({"type": "THROW"}),
            Phase::Move => {
                let moves = state.legal_moves();
                let m = &moves[r.pick(moves.len())];
                json!({"type": "MOVE", "throwIndex": m.throw_index, "from": m.from})
            }
            Phase::Finished => break,
        };
        // Rarely the player to move leaves (a concession, or a bot takes the seat over).
        let action = if r.pick(400) == 0 {
            json!({"type": "leave"})
        } else {
            action
        };
        let action = if action["type"] == "leave" {
            RoomAction::Lobby(LobbyAction::Leave)
        } else {
            RoomAction::Game(serde_json::from_value(action).unwrap())
        };
        if let Ok(events) = room.act(&mover, action, now) {
            log_of(
                events.into_iter().filter_map(|e| match e {
                    RoomEvent::Game(e) => Some(e),
                    RoomEvent::Lobby(_) => None,
                }),
                &mut log,
            );
        }
    }
    // A game its bots finish needs the thinker's play-out to run to its end.
    for _ in 0..100 {
        if room.game.as_ref().unwrap().phase() == Phase::Finished {
            break;
        }
        now += 61_000;
        log_of(room.play_out(now, &Presence::new()), &mut log);
    }
    let viewer = PlayerId::new(first_player);
    let end = serde_json::to_value(room.view(Some(&viewer), &Presence::new(), now)).unwrap();
    assert_eq!(end["status"], "finished", "game {game} did not finish");
    assert_eq!(
        end["rngCommitment"], commitment,
        "the commitment never changes"
    );
    Played {
        commitment,
        reveal: end["result"]["rngReveal"].clone(),
        options: end["options"].clone(),
        players,
        first_seat,
        log,
    }
}

fn audit(p: &Played, log: &[Logged]) -> Result<(), String> {
    audit_yut(
        &p.commitment,
        &p.reveal,
        &p.options,
        p.players,
        p.first_seat,
        log,
    )
}

#[test]
fn the_audit_recomputes_every_throw_of_1000_random_games() {
    let mut throws = 0;
    let mut naks = 0;
    for game in 0..1_000 {
        let played = play_yut(game);
        assert!(!played.log.is_empty(), "game {game} threw nothing");
        throws += played.log.len();
        naks += played.log.iter().filter(|t| **t == Logged::Nak).count();
        if let Err(e) = audit(&played, &played.log) {
            panic!("game {game}: {e}");
        }
    }
    println!("audited {throws} throws ({naks} 낙) of 1,000 games");
    assert!(naks > 0, "some games play with 낙");
}

#[test]
fn the_audit_fails_when_any_logged_throw_is_altered() {
    let played = play_yut(7);
    assert!(audit(&played, &played.log).is_ok());
    let mut r = SplitMix(99);
    for _ in 0..200 {
        let mut log = played.log.clone();
        let i = r.pick(log.len());
        log[i] = match &log[i] {
            Logged::Nak => Logged::Thrown {
                sticks: [true; 4],
                result: "yut".into(),
            },
            Logged::Thrown { sticks, result } => match r.pick(3) {
                // One stick turned over, its result read again: a consistent-looking fake.
                0 => {
                    let mut sticks = *sticks;
                    let k = r.pick(4);
                    sticks[k] = !sticks[k];
                    let up = sticks.iter().filter(|&&s| s).count();
                    let result = ["mo", "do", "gae", "geol", "yut"][up];
                    Logged::Thrown {
                        sticks,
                        result: result.into(),
                    }
                }
                // Another result on the same sticks.
                1 => Logged::Thrown {
                    sticks: *sticks,
                    result: if result == "mo" { "yut" } else { "mo" }.into(),
                },
                _ => Logged::Nak,
            },
        };
        let err = audit(&played, &log).unwrap_err();
        assert!(err.contains(&format!("throw {i}")), "{err}");
    }
    // A throw left out, or one added at the end.
    let mut short = played.log.clone();
    short.pop();
    assert!(audit(&played, &short).is_err());
    let mut long = played.log.clone();
    long.push(Logged::Nak);
    assert!(audit(&played, &long).is_err());
    // Another seed (or salt) than the committed one.
    let mut reveal = played.reveal.clone();
    let seed = reveal["seed"].as_str().unwrap().to_owned();
    let other = if seed.starts_with('0') { "1" } else { "0" };
    reveal["seed"] = json!(format!("{other}{}", &seed[1..]));
    let forged = Played {
        reveal,
        log: played.log.clone(),
        ..played
    };
    let err = audit(&forged, &forged.log).unwrap_err();
    assert!(err.contains("commitment"), "{err}");
}

#[test]
fn the_audit_recomputes_the_nigiri_of_baduk() {
    let mut r = SplitMix(2024);
    let mut black_first = 0;
    for game in 0..200 {
        let options = BadukOptions {
            color_assignment: ColorAssignment::Nigiri,
            ..BadukOptions::default()
        };
        let t0 = 1_700_000_000_000;
        let (mut room, host) = Room::<Baduk>::create(
            format!("baduk{game}"),
            "하나".into(),
            TokenHash::of("a"),
            options,
            GameRng::new(r.bytes(), r.bytes()),
            t0,
        )
        .unwrap();
        let guest = room.join("둘".into(), TokenHash::of("b"), t0).unwrap();
        let start = RoomAction::Lobby(LobbyAction::Start);
        room.act(&host, start, t0).unwrap();
        let view = serde_json::to_value(room.view(Some(&host), &Presence::new(), t0)).unwrap();
        let commitment = view["rngCommitment"].as_str().unwrap().to_owned();
        let black = view["state"]["players"]["black"]
            .as_str()
            .unwrap()
            .to_owned();
        let resign = RoomAction::Game(serde_json::from_value(json!({"type": "resign"})).unwrap());
        room.act(&guest, resign, t0 + 1_000).unwrap();
        let end = serde_json::to_value(room.view(None, &Presence::new(), t0 + 1_000)).unwrap();
        assert_eq!(end["status"], "finished");
        // The auditor: the first draw below 2 is 0 exactly when the first seat plays Black.
        let (seed, words) = check_commitment(&commitment, &end["result"]["rngReveal"]).unwrap();
        let mut stream = Keystream::new(seed);
        let first_is_black = stream.below(2) == 0;
        assert_eq!(first_is_black, black == host.as_str(), "game {game}");
        assert_eq!(stream.words, words, "nigiri is the only draw");
        black_first += usize::from(first_is_black);
    }
    assert!((60..140).contains(&black_first), "{black_first} of 200");
}
