//! Property tests of the 바둑 engine's invariants over random action sequences (modest case
//! counts, so the suite stays fast in debug builds).

use madang_core::baduk::{Baduk, BadukAction, BadukOptions, BadukState, Color, Phase, Position};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};
use proptest::prelude::*;

fn start(size: u32, ko_rule: &str) -> (BadukState, GameRng, [PlayerId; 2]) {
    let players = [PlayerId::new("a"), PlayerId::new("b")];
    let lineup = Lineup {
        players: players.to_vec(),
        host: players[0].clone(),
    };
    let options: BadukOptions = serde_json::from_str(&format!(
        r#"{{"boardSize": {size}, "koRule": "{ko_rule}", "undo": "unlimited", "timeControl": {{"kind": "none"}}}}"#
    ))
    .unwrap();
    let mut rng = GameRng::seed_from_u64(3);
    let state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
    (state, rng, players)
}

/// Any action a client could send, with coordinates partly off the board.
fn action() -> impl Strategy<Value = BadukAction> {
    let coord = -1i32..10;
    prop_oneof![
        12 => (coord.clone(), coord.clone()).prop_map(|(x, y)| BadukAction::Place { x, y }),
        2 => Just(BadukAction::Pass {}),
        1 => (coord.clone(), coord.clone()).prop_map(|(x, y)| BadukAction::ToggleDead { x, y }),
        1 => (coord.clone(), coord).prop_map(|(x, y)| BadukAction::ToggleSeki { x, y }),
        1 => Just(BadukAction::AgreeScore {}),
        1 => Just(BadukAction::ResumePlay {}),
        1 => Just(BadukAction::RequestUndo {}),
        1 => any::<bool>().prop_map(|accept| BadukAction::RespondUndo { accept }),
        1 => Just(BadukAction::OfferDraw {}),
        1 => any::<bool>().prop_map(|accept| BadukAction::RespondDraw { accept }),
        1 => Just(BadukAction::CancelOffer {}),
        1 => Just(BadukAction::Timeout {}),
    ]
}

/// Who sends it: 0 and 1 the players (either may be out of turn), 2 a stranger; and whether
/// the system sends it for them.
fn step() -> impl Strategy<Value = (u8, bool, BadukAction)> {
    let who = prop_oneof![4 => Just(0u8), 4 => Just(1u8), 1 => Just(2u8)];
    (who, prop::bool::weighted(0.05), action())
}

fn stones_without_liberties(state: &BadukState) -> usize {
    let board = state.position().board();
    board
        .chains()
        .iter()
        .filter(|c| c.liberties.is_empty())
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_actions_keep_every_invariant(
        steps in prop::collection::vec(step(), 1..120),
        korean in any::<bool>(),
    ) {
        let (mut state, mut rng, players) = start(9, if korean { "korean" } else { "positionalSuperko" });
        let stranger = PlayerId::new("z");
        let mut now = 0;
        for (who, timeout, action) in steps {
            now += 700;
            let id = match who { 0 => &players[0], 1 => &players[1], _ => &stranger };
            let actor = if timeout { Actor::Timeout(id) } else { Actor::Player(id) };
            let before = state.clone();
            let rng_before = rng.clone();
            let mover = state.turn();
            let stones_before = [Color::Black, Color::White].map(|c| state.position().board().count(c));
            let captures_before = state.position().captures();
            match Baduk::apply(&mut state, actor, &action, &mut rng, now) {
                Err(_) => {
                    // A rejected action changes nothing, not even the generator.
                    prop_assert_eq!(&state, &before);
                    prop_assert_eq!(&rng, &rng_before);
                }
                Ok(_) => {
                    // No chain without liberties stays on the board.
                    prop_assert_eq!(stones_without_liberties(&state), 0);
                    if let BadukAction::Place { .. } = action
                        && state.moves().len() == before.moves().len() + 1
                    {
                        // Stones removed equal the captures counted.
                        let taken = state.position().captures().get(mover) - captures_before.get(mover);
                        let opponent = mover.opponent();
                        let board = state.position().board();
                        prop_assert_eq!(board.count(mover), stones_before[mover.index()] + 1);
                        prop_assert_eq!(board.count(opponent) + taken as usize, stones_before[opponent.index()]);
                    }
                }
            }
            // The stored form round-trips to the same state.
            let bytes = postcard::to_allocvec(&state).unwrap();
            let decoded: BadukState = postcard::from_bytes(&bytes).unwrap();
            prop_assert_eq!(&decoded, &state);
            // Views never contain hidden fields.
            for viewer in [Some(&players[0]), Some(&players[1]), None] {
                let text = serde_json::to_string(&Baduk::view(&state, viewer)).unwrap();
                for hidden in ["rng", "positionHistory", "situationCounts", "situations", "\"history\""] {
                    prop_assert!(!text.contains(hidden), "{} leaked", hidden);
                }
                let hinted = text.contains("illegalPoints");
                let to_move = state.phase() == Phase::Playing
                    && viewer == Some(state.players().get(state.turn()));
                prop_assert_eq!(hinted, to_move);
            }
            if state.phase() == Phase::Finished {
                break;
            }
        }
    }

    #[test]
    fn undo_then_replaying_the_same_moves_gives_the_identical_position(
        points in prop::collection::vec((0u8..9, 0u8..9), 2..80),
    ) {
        let (mut state, mut rng, _) = start(9, "positionalSuperko");
        let mut now = 0;
        for (x, y) in points {
            now += 500;
            let mover = state.players().get(state.turn()).clone();
            let place = BadukAction::Place { x: i32::from(x), y: i32::from(y) };
            if Baduk::apply(&mut state, Actor::Player(&mover), &place, &mut rng, now).is_err() {
                continue;
            }
        }
        prop_assume!(state.moves().len() >= 2 && state.phase() == Phase::Playing);
        let before = state.clone();
        let requester_color = state.turn();
        let requester = state.players().get(requester_color).clone();
        let other = state.players().get(requester_color.opponent()).clone();
        Baduk::apply(&mut state, Actor::Player(&requester), &BadukAction::RequestUndo {}, &mut rng, now).unwrap();
        Baduk::apply(&mut state, Actor::Player(&other), &BadukAction::RespondUndo { accept: true }, &mut rng, now).unwrap();
        let undone = &before.moves()[state.moves().len()..];
        prop_assert_eq!(undone.len(), 2);
        // The remaining position is exactly a fresh replay of the remaining moves.
        let fresh = Position::replay(state.options(), state.moves()).unwrap();
        prop_assert_eq!(state.position(), &fresh);
        for m in undone.iter().copied() {
            let p = m.point.unwrap();
            prop_assert_eq!(m.color, state.turn());
            let who = state.players().get(m.color).clone();
            Baduk::apply(&mut state, Actor::Player(&who), &BadukAction::Place { x: i32::from(p.x), y: i32::from(p.y) }, &mut rng, now).unwrap();
        }
        // Identical except what an undo deliberately keeps: the clocks and the undo count.
        prop_assert_eq!(state.position(), before.position());
        prop_assert_eq!(state.moves(), before.moves());
        prop_assert_eq!(
            (state.turn(), state.phase(), state.consecutive_passes(), state.marks(), state.draw()),
            (before.turn(), before.phase(), before.consecutive_passes(), before.marks(), before.draw())
        );
    }
}
