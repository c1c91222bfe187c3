//! The stored form: postcard bytes that rebuild the whole state, small enough for one
//! DynamoDB item (moves bit-packed, 9 bits each on 19×19: the whole room ≤ 1 KB through move
//! 400, ≥ 20× smaller than naive JSON).
//!
//! The size table: `cargo test -p madang-core --test baduk_stored -- --nocapture`.

use madang_core::baduk::history::PackedMoves;
use madang_core::baduk::sgf;
use madang_core::baduk::{Baduk, BadukAction, BadukOptions, BadukState, Color, Phase, Played};
use madang_core::room::{AnyRoom, LobbyAction, Room, RoomAction, TokenHash};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};
use serde_json::json;

/// A 19×19 game of `moves` legal moves chosen by a fixed pseudo-random walk.
fn game(moves: usize) -> BadukState {
    let (a, b) = (PlayerId::new("p_7Hk2xQ"), PlayerId::new("p_Zr81mW"));
    let lineup = Lineup {
        players: vec![a.clone(), b.clone()],
        host: a.clone(),
    };
    let mut rng = GameRng::seed_from_u64(250);
    let mut state = Baduk::setup(
        &lineup,
        &BadukOptions::default(),
        &mut rng,
        1_700_000_000_000,
    )
    .unwrap();
    let mut now = 1_700_000_000_000;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    while state.moves().len() < moves {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let index = (seed % 361) as i32;
        now += 4_000;
        let mover = state.players().get(state.turn()).clone();
        let place = BadukAction::Place {
            x: index % 19,
            y: index / 19,
        };
        let _ = Baduk::apply(&mut state, Actor::Player(&mover), &place, &mut rng, now);
    }
    state
}

/// The naive JSON of spec §8.1: the state with its board, every move with its captures and the
/// position history as strings.
fn naive_json(state: &BadukState) -> String {
    let board = state.position().board();
    let mut replay = madang_core::baduk::Position::start(state.options());
    let mut history = vec![".".repeat(361)];
    for m in state.moves() {
        replay.apply(*m).unwrap();
        history.push(
            replay
                .board()
                .cells()
                .iter()
                .map(|c| match c {
                    None => '.',
                    Some(Color::Black) => 'b',
                    Some(Color::White) => 'w',
                })
                .collect(),
        );
    }
    json!({
        "options": state.options(),
        "size": 19,
        "board": board.cells().iter().map(|c| c.map_or(0, Color::cell)).collect::<Vec<_>>(),
        "players": state.players(),
        "turn": state.turn(),
        "phase": state.phase(),
        "captures": state.position().captures(),
        "consecutivePasses": state.consecutive_passes(),
        "moves": state.records(),
        "positionHistory": history,
        "situationCounts": {},
        "koPoint": null,
        "scoringMarks": null,
        "clock": state.clock(),
        "undo": state.undo(),
        "draw": state.draw(),
        "result": null,
    })
    .to_string()
}

/// The moves of Little Go's longest fixture: Black fills the board row by row while White passes,
/// 1,394 moves (Fuego's maximum) in its main line, all of which the engine replays.
fn longest_fixture() -> Vec<Played> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sgf/littlego/19x19/maximum-number-of-moves.sgf"
    );
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    sgf::parse(&text).unwrap().moves
}

/// A started 19×19 room (ids, names and tokens of production's sizes) with `moves` played
/// through [`Room::act`]; stops early (returning fewer) if a move is refused.
fn room_with(moves: &[Played]) -> (Room<madang_core::baduk::Baduk>, usize) {
    // Production ids: 22 base64url characters; player names of a few Hangul syllables.
    let id = "Q2hlb2xzdS1ZZW9uZ2hlZQ".to_owned();
    let options: BadukOptions =
        serde_json::from_value(json!({"boardSize": 19, "colorAssignment": "hostBlack"})).unwrap();
    let t0 = 1_700_000_000_000;
    let (mut room, black) = Room::<Baduk>::create(
        id,
        "흑돌철수".into(),
        TokenHash::of("a"),
        options,
        GameRng::new([3; 32], [4; 16]),
        t0,
    )
    .unwrap();
    let white = room
        .join("백돌영희".into(), TokenHash::of("b"), t0 + 1)
        .unwrap();
    let start = RoomAction::Lobby(LobbyAction::Start);
    room.act(&black, start, t0 + 2).unwrap();
    let mut now = t0 + 2;
    for (i, m) in moves.iter().enumerate() {
        now += 5_000;
        let who = if m.color == Color::Black {
            &black
        } else {
            &white
        };
        let action = match m.point {
            Some(p) => json!({"type": "place", "x": p.x, "y": p.y}),
            None => json!({"type": "pass"}),
        };
        let action = RoomAction::Game(serde_json::from_value(action).unwrap());
        if room.act(who, action, now).is_err() {
            return (room, i);
        }
    }
    (room, moves.len())
}

/// A 19×19 game of `moves` moves past the middle game: random legal points, and a pass when a
/// few hundred tries find none (a full board leaves few), as long games end.
fn long_game(moves: usize) -> Vec<Played> {
    let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
    let lineup = Lineup {
        players: vec![a.clone(), b],
        host: a,
    };
    let mut rng = GameRng::seed_from_u64(400);
    let options: BadukOptions =
        serde_json::from_value(json!({"colorAssignment": "hostBlack"})).unwrap();
    let mut state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut now = 0;
    while state.moves().len() < moves {
        let mover = state.players().get(state.turn()).clone();
        now += 1_000;
        let placed = (0..300).any(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let index = (seed % 361) as i32;
            let place = BadukAction::Place {
                x: index % 19,
                y: index / 19,
            };
            Baduk::apply(&mut state, Actor::Player(&mover), &place, &mut rng, now).is_ok()
        });
        if !placed {
            // A pass; should it end play (two in a row), resume and go on.
            Baduk::apply(
                &mut state,
                Actor::Player(&mover),
                &BadukAction::Pass {},
                &mut rng,
                now,
            )
            .unwrap();
            if state.phase() == Phase::Scoring {
                let other = state.players().get(state.turn()).clone();
                Baduk::apply(
                    &mut state,
                    Actor::Player(&other),
                    &BadukAction::ResumePlay {},
                    &mut rng,
                    now,
                )
                .unwrap();
            }
        }
    }
    state.moves().to_vec()
}

#[test]
fn a_19x19_room_stays_within_1_kb_through_move_400_with_9_bits_a_move_and_its_replay_log_adds_2_bytes_a_move()
 {
    let fixture = longest_fixture();
    let random = long_game(400);
    println!(
        "\n| moves | moves (packed bytes) | stored state (bytes) | stored room without its replay log (bytes) | replay log (bytes) | stored room (bytes) |"
    );
    println!("|---|---|---|---|---|---|");
    for (label, moves) in [
        ("250", &random[..250]),
        ("300", &random[..300]),
        ("400", &random[..]),
        (
            "722 (the fixture's first 722: the move limit, B7)",
            &fixture[..722],
        ),
    ] {
        let (room, played) = room_with(moves);
        assert_eq!(played, moves.len(), "{label}: every move replays");
        let state = room.game.clone().unwrap();
        let packed = PackedMoves::pack(state.moves(), 19, Color::Black);
        let stored = postcard::to_allocvec(&state).unwrap();
        let encoded = AnyRoom::from(room.clone()).encode();
        let unlogged = AnyRoom::from(Room {
            replay: None,
            ..room.clone()
        })
        .encode();
        let log = room.game_log().unwrap();
        println!(
            "| {label} | {} | {} | {} | {} | {} |",
            packed.byte_len(),
            stored.len(),
            unlogged.len(),
            log.byte_len(),
            encoded.len()
        );
        // The replay log (DESIGN "Replay") repeats no move: a stone of the player on turn is
        // its time alone (two bytes); the stones are the packed list's.
        assert_eq!(log.byte_len(), 2 * played, "{label}");
        // 9 bits a move, plus one code for each time play resumed with the side that passed.
        assert!(packed.byte_len() >= (played * 9).div_ceil(8), "{label}");
        assert!(packed.byte_len() <= (played * 9).div_ceil(8) + 4, "{label}");
        if played <= 400 {
            assert!(unlogged.len() <= 1024, "{label}: {} bytes", unlogged.len());
        }
        let AnyRoom::Baduk(back) = AnyRoom::decode(&encoded).unwrap() else {
            panic!("{label}: decoded as another game");
        };
        assert_eq!(
            back, room,
            "{label}: the stored room rebuilds the same room"
        );
    }
    assert_eq!(fixture.len(), 1394, "the fixture's main line");
    // B7: the 722nd move starts the scoring phase (its marks stored with the room), and the
    // record takes no move past it.
    let (room, played) = room_with(&fixture);
    assert_eq!(played, 722, "the move limit of 19×19");
    let state = room.game.clone().unwrap();
    assert_eq!(state.phase(), Phase::Scoring);
    println!(
        "(at 722 the scoring phase holds {} stones marked dead)",
        state.marks().map_or(0, |m| m.dead.len())
    );
}

#[test]
fn a_19x19_game_at_move_250_is_20_times_smaller_than_naive_json() {
    let state = game(250);
    let bytes = postcard::to_allocvec(&state).unwrap();
    let naive = naive_json(&state);
    println!(
        "stored: {} bytes; naive JSON: {} bytes; ratio {:.0}×",
        bytes.len(),
        naive.len(),
        naive.len() as f64 / bytes.len() as f64
    );
    assert!(naive.len() >= 20 * bytes.len());
    let decoded: BadukState = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(decoded, state);
}

#[test]
fn a_room_of_an_older_stored_format_is_refused_by_its_number() {
    let (room, _) = room_with(game(20).moves());
    let mut bytes = AnyRoom::from(room).encode();
    assert_eq!(bytes[0], madang_core::room::FORMAT);
    bytes[0] = 2;
    let err = AnyRoom::decode(&bytes).unwrap_err().to_string();
    assert!(err.contains("format 2") && err.contains("older"), "{err}");
    bytes[0] = madang_core::room::FORMAT + 1;
    assert!(AnyRoom::decode(&bytes).is_err());
    // Bytes after the room are refused, not ignored.
    bytes[0] = madang_core::room::FORMAT;
    bytes.push(0);
    assert!(AnyRoom::decode(&bytes).is_err(), "trailing data is refused");
}

#[test]
fn every_phase_round_trips_through_postcard() {
    let mut state = game(40);
    let mut rng = GameRng::seed_from_u64(0);
    let (black, white) = (state.players().black.clone(), state.players().white.clone());
    let now = state.clock().turn_started_at + 1_000;
    let act = |s: &mut BadukState, p: &PlayerId, a: BadukAction, rng: &mut GameRng| {
        Baduk::apply(s, Actor::Player(p), &a, rng, now).unwrap();
        let decoded: BadukState =
            postcard::from_bytes(&postcard::to_allocvec(&*s).unwrap()).unwrap();
        assert_eq!(&decoded, s);
    };
    let first = state.players().get(state.turn()).clone();
    let second = if first == black {
        white.clone()
    } else {
        black.clone()
    };
    act(&mut state, &first, BadukAction::OfferDraw {}, &mut rng);
    act(
        &mut state,
        &second,
        BadukAction::RespondDraw { accept: false },
        &mut rng,
    );
    act(&mut state, &first, BadukAction::RequestUndo {}, &mut rng);
    act(&mut state, &first, BadukAction::Pass {}, &mut rng);
    act(&mut state, &second, BadukAction::Pass {}, &mut rng);
    assert_eq!(state.phase(), Phase::Scoring);
    act(&mut state, &black, BadukAction::AgreeScore {}, &mut rng);
    act(&mut state, &white, BadukAction::AgreeScore {}, &mut rng);
    assert_eq!(state.phase(), Phase::Finished);
    assert!(
        state.result().unwrap().score.is_some(),
        "the count is rebuilt on decode"
    );
}

#[test]
fn a_stored_state_with_an_illegal_or_malformed_move_is_refused_on_decode() {
    let state = game(10);
    let mut stored = serde_json::to_value(&state).unwrap();
    // Play the first move's point again as the third move.
    let mut moves = state.moves().to_vec();
    moves[2].point = moves[0].point;
    stored["moves"] = serde_json::to_value(PackedMoves::pack(&moves, 19, Color::Black)).unwrap();
    let err = serde_json::from_value::<BadukState>(stored.clone()).unwrap_err();
    assert!(err.to_string().contains("illegal"), "{err}");
    stored["moves"]["bits"].as_array_mut().unwrap().pop();
    let err = serde_json::from_value::<BadukState>(stored).unwrap_err();
    assert!(err.to_string().contains("malformed"), "{err}");
    let bytes = postcard::to_allocvec(&state).unwrap();
    assert!(postcard::from_bytes::<BadukState>(&bytes[..bytes.len() / 2]).is_err());
}
