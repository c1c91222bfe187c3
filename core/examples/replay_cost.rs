//! What a replay costs (DESIGN "Replay"), for `BENCHMARKS.md`:
//! `cargo run --release -p madang-core --example replay_cost`.
//!
//! - A 19줄 바둑 game of 722 moves (random legal points, 4–20 s a move) and a four-player
//!   윷놀이 game (the weakest computer player's choices, 1–6 s a step): the stored room's
//!   bytes with and without its replay log, and the log's bytes a step.
//! - Replaying: the first step asked for in a fresh process (a full replay up to it), and
//!   stepping through the whole game one step after another, and backwards, with the
//!   checkpoints the replay keeps (what the server does for a room it has seen).

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

fn baduk_game(moves: usize) -> Room<Baduk> {
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
        }
    }
    room
}

fn yut_game() -> Room<Yut> {
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
    }
    room
}

fn main() {
    measure("바둑 19줄", &baduk_game(722));
    measure("윷놀이 4인", &yut_game());
}
