//! What a replay costs (DESIGN "Replay"), for `BENCHMARKS.md`:
//! `cargo run --release -p madang-core --example replay_cost`.
//!
//! - A 19줄 바둑 game of 722 moves (random legal points, 4–20 s a move) and a four-player
//!   윷놀이 game (the weakest computer player's choices, 1–6 s a step): the stored room's
//!   bytes with and without its replay log, and the log's bytes a step.
//! - Replaying: the first step asked for in a fresh process (a full replay up to it), and
//!   stepping through the whole game one step after another, and backwards, with the
//!   checkpoints the replay keeps (what the server does for a room it has seen).
//! - The room item's size over a whole game, after every step: a 250-move 19×19 game and the
//!   four-player 윷놀이 game, with the log in the room (stored format 7) and as it would be
//!   with the log's older bytes flushed to items of their own (`split`: a projection, not
//!   built), and the write units their saves would bill.

/// The DynamoDB item around the stored room, by DynamoDB's size rules (docs/cost.md): `id` (22
/// characters), `v`, `x`, `w` (the write stamp), `d` and `s` (the due index) and `p` (presence,
/// a 13-digit time per seat) with their names, and the name of `b`. An estimate: with it the
/// 250-move game here passes 1 KB at move 210, where `tests/dynamodb/cost.rs` measured its own
/// 250-move game's real item passing it near move 205.
fn item_overhead(seats: usize) -> usize {
    let id = 2 + 22;
    let v = 1 + 3;
    let x = 1 + 6;
    let w = 1 + 11;
    let due = (1 + 8) + (1 + 1);
    let presence = 1 + 3 + seats * (2 + 1 + 8);
    id + v + x + w + due + presence + 1
}

/// Write units of one whole-item write (1 KB each, started).
fn units(bytes: usize) -> usize {
    bytes.div_ceil(1024)
}

/// The log's bytes kept in the room when its older bytes are flushed: once the room's part
/// reaches `flush_at` bytes, its oldest `chunk` bytes go to an item of their own (one more
/// write of one unit); each flushed chunk leaves a reference in the room (its step count and
/// a 64-bit digest: about 11 bytes).
#[derive(Clone, Copy)]
struct Split {
    flush_at: usize,
    chunk: usize,
}

const CHUNK_REF_BYTES: usize = 11;

/// Plays the room's saves one step at a time (`sizes`: the stored room's bytes and the log's
/// bytes after each step) and prints the item's size and the saves' write units, today and
/// with `split`.
fn split(name: &str, seats: usize, sizes: &[(usize, usize)], split: Split) {
    let over = item_overhead(seats);
    let (mut today_units, mut today_max, mut crossed) = (0, 0, None);
    let (mut split_units, mut split_max, mut flushes, mut flushed) = (0, 0, 0, 0);
    for (step, &(body, log)) in sizes.iter().enumerate() {
        let item = over + body;
        today_units += units(item);
        today_max = today_max.max(item);
        if crossed.is_none() && item > 1024 {
            crossed = Some(step + 1);
        }
        // The room's part of the log, flushed when it reaches `flush_at`.
        let mut tail = log - flushed;
        while tail >= split.flush_at {
            flushed += split.chunk;
            flushes += 1;
            tail -= split.chunk;
            split_units += units(split.chunk + 40);
        }
        let kept = over + body - (log - tail) + CHUNK_REF_BYTES * flushes;
        split_units += units(kept);
        split_max = split_max.max(kept);
    }
    let steps = sizes.len();
    println!(
        "{name}: {steps} saves; log in the room (format 7): the item reaches {today_max} bytes (past 1 KB at step {}), the saves bill {today_units} write units; \
         flushing {} bytes when the room holds {}: the item reaches {split_max} bytes, {flushes} chunk writes, {split_units} write units in all",
        crossed.map_or("never".to_owned(), |s| s.to_string()),
        split.chunk,
        split.flush_at,
    );
}

use std::time::Instant;

use madang_core::baduk::{Baduk, BadukAction, BadukOptions};
use madang_core::room::{
    AnyRoom, CHECKPOINT_EVERY, LobbyAction, Replay, Room, RoomAction, TokenHash,
};
use madang_core::yut::{Yut, YutOptions};
use madang_core::{Game, GameRng, PlayerId};

fn stored<G: Game>(room: &Room<G>) -> (usize, usize)
where
    Room<G>: Into<AnyRoom>,
{
    let with = room.clone().into().encode().len();
    let without = Room {
        replay: None,
        ..room.clone()
    }
    .into()
    .encode()
    .len();
    (with, without)
}

fn measure<G: Game>(name: &str, room: &Room<G>)
where
    Room<G>: Into<AnyRoom>,
{
    let log = room.game_log().unwrap();
    let steps = log.steps();
    let (with, without) = stored(room);
    println!(
        "{name}: {steps} steps; stored room {with} bytes ({without} without its log); log {} bytes = {:.2} bytes a step",
        log.byte_len(),
        log.byte_len() as f64 / steps as f64
    );
    // A fresh replay, to the last step: what a process that never saw the room pays once.
    let runs = 5;
    let t = Instant::now();
    for _ in 0..runs {
        let mut replay = Replay::new(room).unwrap();
        replay.at(steps as u64).unwrap();
    }
    let cold = t.elapsed() / runs;
    // Then every step in order, and every step backwards, from the kept checkpoints.
    let mut replay = Replay::new(room).unwrap();
    replay.at(steps as u64).unwrap();
    let t = Instant::now();
    for n in 0..=steps as u64 {
        replay.at(n).unwrap();
    }
    let forward = t.elapsed() / (steps as u32 + 1);
    let t = Instant::now();
    for n in (0..=steps as u64).rev() {
        replay.at(n).unwrap();
    }
    let backward = t.elapsed() / (steps as u32 + 1);
    println!(
        "{name}: first request (full replay to the last step) {cold:?}; then a step {forward:?} forward, {backward:?} backward (checkpoint every {CHECKPOINT_EVERY} steps)"
    );
}

/// The stored room's bytes and its log's, now.
fn sizes_now<G: Game>(room: &Room<G>) -> (usize, usize)
where
    Room<G>: Into<AnyRoom>,
{
    let log = room.game_log().map_or(0, |l| l.byte_len());
    (room.clone().into().encode().len(), log)
}

fn baduk_game(moves: usize, sizes: &mut Vec<(usize, usize)>) -> Room<Baduk> {
    // Game time long enough for 722 moves at up to 20 s each (the moves only need to be legal).
    let options: BadukOptions = serde_json::from_value(serde_json::json!({
        "boardSize": 19,
        "timeControl": {"kind": "fischer", "mainSec": 3600, "incSec": 30}
    }))
    .unwrap();
    let (mut room, black) = Room::<Baduk>::create(
        "Q2hlb2xzdS1ZZW9uZ2hlZQ".into(),
        "흑돌철수".into(),
        TokenHash::of("a"),
        options,
        GameRng::new([3; 32], [4; 16]),
        1_700_000_000_000,
    )
    .unwrap();
    let _white = room
        .join("백돌영희".into(), TokenHash::of("b"), 1_700_000_000_001)
        .unwrap();
    let mut now = 1_700_000_000_002;
    room.act(&black, RoomAction::Lobby(LobbyAction::Start), now)
        .unwrap();
    let mut dice = GameRng::seed_from_u64(7);
    let mut played = 0;
    while played < moves {
        let state = room.game.as_ref().unwrap();
        let who: PlayerId = Baduk::active_players(state)[0].clone();
        let at = now + 4_000 + u64::from(dice.below(16_000));
        let action = BadukAction::Place {
            x: dice.below(19) as i32,
            y: dice.below(19) as i32,
        };
        if room.act(&who, RoomAction::Game(action), at).is_ok() {
            played += 1;
            now = at;
            sizes.push(sizes_now(&room));
        }
    }
    room
}

fn yut_game(sizes: &mut Vec<(usize, usize)>) -> Room<Yut> {
    let (mut room, host) = Room::<Yut>::create(
        "WXV0bm9yaS1Zb3VuZ2hlZTAx".into(),
        "방장".into(),
        TokenHash::of("h"),
        YutOptions::default(),
        GameRng::new([5; 32], [6; 16]),
        1_700_000_000_000,
    )
    .unwrap();
    let mut people = vec![host.clone()];
    for i in 1..4 {
        people.push(
            room.join(
                format!("친구{i}"),
                TokenHash::of(&format!("t{i}")),
                1_700_000_000_001,
            )
            .unwrap(),
        );
    }
    let mut now = 1_700_000_000_002;
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), now)
        .unwrap();
    let mut dice = GameRng::seed_from_u64(9);
    while room.game.as_ref().is_some_and(|s| Yut::result(s).is_none()) {
        let state = room.game.as_ref().unwrap();
        let who = Yut::active_players(state)[0].clone();
        let action = Yut::bot_action(state, &who, 1, &mut dice).unwrap();
        now += 1_000 + u64::from(dice.below(5_000));
        room.act(&who, RoomAction::Game(action), now).unwrap();
        sizes.push(sizes_now(&room));
    }
    room
}

fn main() {
    measure("바둑 19줄", &baduk_game(722, &mut Vec::new()));
    let mut yut = Vec::new();
    measure("윷놀이 4인", &yut_game(&mut yut));
    let mut baduk = Vec::new();
    baduk_game(250, &mut baduk);
    // The room keeping less than 384, then 256 bytes of the log.
    for (flush_at, chunk) in [(384, 256), (256, 192)] {
        let policy = Split { flush_at, chunk };
        split("item, 바둑 19줄 of 250 moves", 2, &baduk, policy);
        split("item, 윷놀이 4인", 4, &yut, policy);
    }
}
