//! The stored form: postcard bytes that rebuild the whole state, small enough for one
//! DynamoDB item (≤ 1 KB for a 19×19 game at move 250, ≥ 20× smaller than naive JSON).

use madang_core::baduk::{Baduk, BadukAction, BadukOptions, BadukState, Color, Phase};
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

#[test]
fn a_19x19_game_at_move_250_is_stored_in_at_most_1_kb_and_20_times_smaller_than_naive_json() {
    let state = game(250);
    let bytes = postcard::to_allocvec(&state).unwrap();
    let naive = naive_json(&state);
    println!(
        "stored: {} bytes; naive JSON: {} bytes; ratio {:.0}×",
        bytes.len(),
        naive.len(),
        naive.len() as f64 / bytes.len() as f64
    );
    assert!(bytes.len() <= 1024, "{} bytes", bytes.len());
    assert!(naive.len() >= 20 * bytes.len());
    let decoded: BadukState = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(decoded, state);
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
    let moves = stored["moves"].as_array_mut().unwrap();
    // Play the first move's point again as the third move.
    let (lo, hi) = (moves[0].clone(), moves[1].clone());
    moves[4] = lo;
    moves[5] = hi;
    let err = serde_json::from_value::<BadukState>(stored.clone()).unwrap_err();
    assert!(err.to_string().contains("illegal"), "{err}");
    stored["moves"].as_array_mut().unwrap().pop();
    assert!(serde_json::from_value::<BadukState>(stored).is_err());
    let bytes = postcard::to_allocvec(&state).unwrap();
    assert!(postcard::from_bytes::<BadukState>(&bytes[..bytes.len() / 2]).is_err());
}
