//! The bot against the rules engine: every move it returns is applied with [`Baduk::apply`].

use proptest::prelude::*;
use strum::VariantArray;

use super::*;
use crate::baduk::{Baduk, BadukOptions, Board};
use crate::{Actor, Game, Lineup, PlayerId};

fn ids() -> (PlayerId, PlayerId) {
    (PlayerId::new("p_black1"), PlayerId::new("p_white1"))
}

fn new_game(json: &str) -> (BadukState, GameRng) {
    let (a, b) = ids();
    let lineup = Lineup {
        players: vec![a.clone(), b],
        host: a,
    };
    let mut options: BadukOptions = serde_json::from_str(json).unwrap();
    options.color_assignment = crate::baduk::ColorAssignment::HostBlack;
    let mut rng = GameRng::seed_from_u64(7);
    let state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
    (state, rng)
}

fn act(state: &mut BadukState, color: Color, action: &BadukAction, rng: &mut GameRng) {
    let id = state.players().get(color).clone();
    let now = 1_000 * (state.moves().len() as u64 + 1);
    Baduk::apply(state, Actor::Player(&id), action, rng, now).unwrap_or_else(|e| {
        panic!(
            "{action:?} by {color:?} refused: {e}\n{:?}",
            state.position().board()
        )
    });
}

/// A 9×9 (or other) game whose board is `rows`, `to_move` to play, built by playing the stones
/// alternately (passes where one side has more). Each chain of the fixture must have a liberty.
fn fixture(rows: &[&str], to_move: Color, json: &str) -> (BadukState, GameRng) {
    let (mut state, mut rng) = new_game(json);
    let board = Board::from_rows(rows).unwrap();
    let size = board.size();
    let mut stones = [Vec::new(), Vec::new()];
    for i in 0..board.len() {
        if let Some(c) = board.get(i) {
            stones[c.index()].push(Point::from_index(i, size));
        }
    }
    let (mut b, mut w) = (stones[0].iter(), stones[1].iter());
    loop {
        let color = state.turn();
        let next = if color == Color::Black {
            b.next()
        } else {
            w.next()
        };
        match next {
            Some(p) => act(&mut state, color, &BotMove::Place(*p).action(), &mut rng),
            None if b.len() == 0 && w.len() == 0 => break,
            None => act(&mut state, color, &BadukAction::Pass {}, &mut rng),
        }
        if b.len() == 0 && w.len() == 0 {
            break;
        }
    }
    if state.turn() != to_move {
        let turn = state.turn();
        act(&mut state, turn, &BadukAction::Pass {}, &mut rng);
    }
    assert_eq!(
        state.position().board().cells(),
        board.cells(),
        "fixture captured something"
    );
    (state, rng)
}

#[test]
fn the_top_level_answer_to_an_atari_is_to_capture() {
    // White's three stones in the middle have one liberty, G5 (x 6, y 4); extended there they
    // would have three, so black takes them now.
    let rows = [
        ".........",
        ".........",
        "......O..",
        "...XXX...",
        "..XOOO...",
        "...XXX...",
        ".........",
        "..O......",
        ".........",
    ];
    let (state, mut rng) = fixture(&rows, Color::Black, r#"{"boardSize": 9}"#);
    for level in [2, 4] {
        let mv = choose_move(&state, level, &mut rng).unwrap();
        assert_eq!(mv, BotMove::Place(Point::new(6, 4)), "level {level}");
    }
}

#[test]
fn a_group_in_atari_is_saved_when_it_can_be() {
    // Black's two stones (D5-E5) have one liberty at F5 (x 5, y 4); extending there gives
    // three liberties.
    let rows = [
        ".........",
        ".........",
        ".........",
        "...OO....",
        "..OXX....",
        "...OO....",
        ".........",
        ".........",
        ".........",
    ];
    let (state, mut rng) = fixture(&rows, Color::Black, r#"{"boardSize": 9}"#);
    for level in [2, 4] {
        let mv = choose_move(&state, level, &mut rng).unwrap();
        assert_eq!(mv, BotMove::Place(Point::new(5, 4)), "level {level}");
    }
}

#[test]
fn the_same_seed_gives_the_same_move_and_another_seed_may_not() {
    let (state, _) = new_game(r#"{"boardSize": 9}"#);
    let a = choose_move(&state, 3, &mut GameRng::seed_from_u64(5)).unwrap();
    let b = choose_move(&state, 3, &mut GameRng::seed_from_u64(5)).unwrap();
    assert_eq!(a, b);
    // And exactly one word pair of the room's stream is used.
    let mut used = GameRng::seed_from_u64(5);
    let _ = choose_move(&state, 1, &mut used).unwrap();
    let mut fresh = GameRng::seed_from_u64(5);
    fresh.next_u64();
    assert_eq!(used.next_u64(), fresh.next_u64());
}

/// A finished 9×9 game: black's territory on the left, white's on the right, a dead white stone
/// at C5 (x 2, y 4) inside black's.
const FINISHED: [&str; 9] = [
    "...XO....",
    "...XO....",
    "...XO....",
    "...XO....",
    "..OXO....",
    "...XO....",
    "...XO....",
    "...XO....",
    "...XO....",
];

#[test]
fn the_bot_passes_when_the_opponent_passed_and_the_game_is_decided() {
    // Black has 27 + 1 points on the left, white 36 + 6.5 on the right: white wins.
    let (mut state, mut rng) = fixture(&FINISHED, Color::Black, r#"{"boardSize": 9}"#);
    act(&mut state, Color::Black, &BadukAction::Pass {}, &mut rng);
    // White to move after black's pass: nothing is left to gain on the board.
    assert_eq!(state.turn(), Color::White);
    for level in [1, 4] {
        assert_eq!(
            choose_move(&state, level, &mut rng).unwrap(),
            BotMove::Pass,
            "level {level}"
        );
    }
}

#[test]
fn in_the_scoring_phase_the_bot_counts_the_lone_stone_dead() {
    let (mut state, mut rng) = fixture(&FINISHED, Color::Black, r#"{"boardSize": 9}"#);
    act(&mut state, Color::Black, &BadukAction::Pass {}, &mut rng);
    act(&mut state, Color::White, &BadukAction::Pass {}, &mut rng);
    assert_eq!(state.phase(), Phase::Scoring);
    let dead = Point::new(2, 4).index(9);
    // Whatever the suggestion was, take it off and let each side's bot act until both agree.
    if state.marks().unwrap().dead_indices().contains(&dead) {
        act(
            &mut state,
            Color::White,
            &BadukAction::ToggleDead { x: 2, y: 4 },
            &mut rng,
        );
    }
    assert!(!state.marks().unwrap().dead_indices().contains(&dead));
    let mut steps = 0;
    while state.phase() == Phase::Scoring {
        steps += 1;
        assert!(steps < 10, "no agreement after {steps} actions");
        for &color in Color::VARIANTS {
            if let Some(m) = scoring_move(&state, color, 3, &mut rng).unwrap() {
                assert_ne!(m, ScoringMove::ResumePlay);
                act(&mut state, color, &m.action(), &mut rng);
                break;
            }
        }
    }
    let result = state.result().unwrap();
    let score = result.score.as_ref().unwrap();
    // Black: 27 territory (C5 point included) + 1 capture; white: 36 + 6.5.
    assert_eq!((score.black.territory, score.black.captures), (27, 1));
    assert_eq!(result.winner, Some(Color::White));
}

#[test]
fn an_early_pass_is_not_answered_with_a_pass() {
    // White would win the count on komi at once, but the game has barely begun.
    let (mut state, mut rng) = new_game(r#"{"boardSize": 9}"#);
    act(
        &mut state,
        Color::Black,
        &BotMove::Place(Point::new(4, 4)).action(),
        &mut rng,
    );
    act(
        &mut state,
        Color::White,
        &BotMove::Place(Point::new(2, 2)).action(),
        &mut rng,
    );
    act(&mut state, Color::Black, &BadukAction::Pass {}, &mut rng);
    assert!(matches!(
        choose_move(&state, 2, &mut rng).unwrap(),
        BotMove::Place(_)
    ));
}

#[test]
fn wrong_phase_and_unknown_level_are_errors() {
    let (state, mut rng) = new_game(r#"{"boardSize": 9}"#);
    assert_eq!(
        choose_move(&state, 0, &mut rng),
        Err(BotError::UnknownLevel(0))
    );
    assert_eq!(
        scoring_move(&state, Color::Black, 1, &mut rng),
        Err(BotError::WrongPhase)
    );
    let levels: Vec<u8> = LEVELS.iter().map(|l| l.level).collect();
    assert_eq!(levels, (1..=LEVELS.len() as u8).collect::<Vec<_>>());
    assert_eq!(LEVELS[0].label, "입문");
    assert!(level_info(DEFAULT_LEVEL).is_some());
}

#[test]
fn two_bots_finish_a_9x9_game_and_agree_on_the_count() {
    let (mut state, mut rng) = new_game(r#"{"boardSize": 9}"#);
    let mut actions = 0;
    while state.phase() != Phase::Finished {
        actions += 1;
        assert!(actions < 400, "the game did not end");
        match state.phase() {
            Phase::Playing => {
                let color = state.turn();
                let mv = choose_move(&state, 1, &mut rng).unwrap();
                act(&mut state, color, &mv.action(), &mut rng);
            }
            _ => {
                let color = Color::VARIANTS
                    .iter()
                    .copied()
                    .find(|&c| !state.marks().unwrap().agreed.get(c))
                    .unwrap();
                let m = scoring_move(&state, color, 1, &mut rng).unwrap().unwrap();
                act(&mut state, color, &m.action(), &mut rng);
            }
        }
    }
    assert!(state.result().is_some());
}

/// A random walk of `len` legal moves (passes when 50 tries find none; play resumes when that
/// ends play).
fn random_prefix(state: &mut BadukState, rng: &mut GameRng, len: usize, mut seed: u64) {
    let size = i32::from(state.options().size());
    for _ in 0..len {
        if state.phase() != Phase::Playing {
            break; // scored with no resume left (B7): the prefix ends here
        }
        let color = state.turn();
        let id = state.players().get(color).clone();
        let placed = (0..50).any(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed % (size * size) as u64) as i32;
            let place = BadukAction::Place {
                x: i % size,
                y: i / size,
            };
            Baduk::apply(state, Actor::Player(&id), &place, rng, 0).is_ok()
        });
        if !placed {
            // At the same instant as the placements: a clock that ran between them (as `act`'s
            // does) could run out on a long prefix, and this is a test of legality, not of time.
            let at_zero = |state: &mut BadukState, rng: &mut GameRng, action: &BadukAction| {
                Baduk::apply(state, Actor::Player(&id), action, rng, 0)
                    .unwrap_or_else(|e| panic!("{action:?} by {color:?} refused: {e}"));
            };
            at_zero(state, rng, &BadukAction::Pass {});
            if state.phase() == Phase::Scoring && state.can_resume(color) {
                at_zero(state, rng, &BadukAction::ResumePlay {});
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]

    /// Whatever the position (random games on every size, with handicap and either ko rule),
    /// every move the bot returns is accepted by the rules engine.
    #[test]
    fn the_bot_never_plays_an_illegal_move(
        size_ix in 0usize..3,
        handicap_ix in 0usize..4,
        korean in any::<bool>(),
        area in any::<bool>(),
        len in 0usize..250,
        seed in 1u64..u64::MAX,
    ) {
        let size: u8 = [9, 13, 19][size_ix];
        let handicap = [0, 2, 3, 5][handicap_ix];
        let json = format!(
            r#"{{"boardSize": {size}, "handicap": {handicap}, "koRule": "{}", "scoring": "{}"}}"#,
            if korean { "korean" } else { "positionalSuperko" },
            if area { "area" } else { "territory" },
        );
        let (mut state, mut rng) = new_game(&json);
        random_prefix(&mut state, &mut rng, len.min(usize::from(size) * usize::from(size)), seed);
        for _ in 0..3 {
            if state.phase() != Phase::Playing {
                break;
            }
            let color = state.turn();
            let mv = choose_move(&state, 1, &mut rng).unwrap();
            let id = state.players().get(color).clone();
            let applied = Baduk::apply(&mut state, Actor::Player(&id), &mv.action(), &mut rng, 0);
            prop_assert!(applied.is_ok(), "{mv:?} refused: {applied:?}");
        }
    }
}
