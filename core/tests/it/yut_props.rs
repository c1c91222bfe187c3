//! Property tests over random games and random option sets: the engine's invariants hold after
//! every action, whatever the options and whoever acts.

use crate::support;

use std::collections::HashSet;

use madang_core::yut::{
    Action, BackdoFromDo, EndMode, FinishRule, Mode, Node, OnLeave, Phase, PlayerLimits, Position,
    Ranking, StickModel, TimeoutPolicy, Yut, YutOptions, YutState,
};
use madang_core::{Actor, Game, GameRng, Millis, PlayerId};
use proptest::prelude::*;
use support::lineup;

fn arb_options() -> impl Strategy<Value = (YutOptions, usize)> {
    (
        (
            any::<bool>(),
            0..5usize,
            2..=5u8,
            any::<bool>(),
            any::<bool>(),
        ),
        (
            0..3usize,
            any::<bool>(),
            0..4usize,
            any::<bool>(),
            0..3usize,
        ),
        (0..5usize, any::<bool>(), any::<bool>(), any::<bool>()),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(
                (team, size, pieces, fair, backdo),
                (from_do, reach, nak, bonus, ranking),
                (seconds, yut_mo_bonus, cap, page_policy),
                (idle, timed, bot, page_limits),
            )| {
                let mode = if team { Mode::Team } else { Mode::Individual };
                let player_limits = if page_limits {
                    PlayerLimits::RulesPage
                } else {
                    PlayerLimits::YutMd
                };
                let base = YutOptions {
                    mode,
                    player_limits,
                    ..YutOptions::default()
                };
                let counts = base.player_counts();
                let players = counts[size % counts.len()];
                let options = YutOptions {
                    pieces,
                    stick_model: if fair {
                        StickModel::Fair
                    } else {
                        StickModel::Realistic
                    },
                    backdo,
                    backdo_from_do: [
                        BackdoFromDo::Chammeogi,
                        BackdoFromDo::Finish,
                        BackdoFromDo::Home,
                    ][from_do],
                    finish_rule: if reach {
                        FinishRule::Reach
                    } else {
                        FinishRule::Pass
                    },
                    nak_percent: YutOptions::NAK_PERCENTS[nak],
                    backdo_capture_bonus: bonus,
                    capture_bonus_on_yut_mo: yut_mo_bonus,
                    ranking: [Ranking::First, Ranking::All, Ranking::None][ranking],
                    turn_seconds: [Some(15), Some(20), Some(30), Some(60), None][seconds],
                    turn_cap_seconds: cap.then_some(90),
                    timeout_policy: if page_policy {
                        TimeoutPolicy::RulesPage
                    } else {
                        TimeoutPolicy::YutMd
                    },
                    idle_turns_to_auto: idle.then_some(3),
                    end_mode: if timed {
                        EndMode::Timed
                    } else {
                        EndMode::Finish
                    },
                    on_leave: if bot { OnLeave::Bot } else { OnLeave::Concede },
                    ..base
                };
                (options, players)
            },
        )
}

/// An action anyone might send, legal or not.
fn arb_probe() -> impl Strategy<Value = (usize, Action)> {
    let from = prop_oneof![
        Just(Position::Home),
        Just(Position::Goal),
        (0..29u8).prop_map(|n| Position::Board(Node::new(n).unwrap())),
    ];
    let action = prop_oneof![
        Just(Action::Throw),
        (0..4usize, from.clone())
            .prop_map(|(throw_index, from)| Action::Move { throw_index, from }),
        (0..4usize, from).prop_map(|(throw_index, from)| Action::Recommend { throw_index, from }),
        Just(Action::TakeControl),
    ];
    (0..9usize, action)
}

/// One step of a game: who acts and what, from the state and a random choice.
fn choose(state: &YutState, choice: u32) -> Option<(PlayerId, Action)> {
    let player = state.current_player()?.clone();
    // Now and then someone concedes (any player, on turn or not).
    if choice.is_multiple_of(97) {
        let seat = (choice / 97) as usize % state.players().len();
        let p = state.players()[seat].clone();
        if !state.has_conceded(&p)
            && state
                .side_of(&p)
                .is_some_and(|s| state.sides()[usize::from(s)].in_play())
        {
            return Some((p, Action::Concede));
        }
    }
    let action = match state.phase() {
        Phase::Throw => Action::Throw,
        Phase::Move => {
            let moves = state.legal_moves();
            let m = &moves[choice as usize % moves.len()];
            Action::Move {
                throw_index: m.throw_index,
                from: m.from,
            }
        }
        Phase::Finished => return None,
    };
    Some((player, action))
}

fn check_invariants(state: &YutState) {
    let options = state.options();
    let mut owners: Vec<Option<usize>> = vec![None; 29];
    for (side_id, side) in state.sides().iter().enumerate() {
        assert_eq!(
            side.pieces().len(),
            usize::from(options.pieces),
            "piece count conserved"
        );
        for piece in side.pieces() {
            match piece.position() {
                Position::Board(n) => {
                    let owner = &mut owners[usize::from(n.index())];
                    assert!(owner.is_none_or(|o| o == side_id), "two sides on spot {n}");
                    *owner = Some(side_id);
                    assert_eq!(
                        piece.trail().last(),
                        Some(&n),
                        "the trail ends where the piece is"
                    );
                    // Pieces on one spot form one stack with one trail.
                    for other in side
                        .pieces()
                        .iter()
                        .filter(|p| p.position() == piece.position())
                    {
                        assert_eq!(other.trail(), piece.trail());
                    }
                }
                Position::Home | Position::Goal => assert!(piece.trail().is_empty()),
            }
        }
    }
    match state.phase() {
        Phase::Move => assert!(!state.legal_moves().is_empty(), "the move phase has a move"),
        Phase::Throw => assert!(state.throws_owed() > 0),
        Phase::Finished => assert!(Yut::result(state).is_some()),
    }
}

fn keys_of(value: &serde_json::Value, out: &mut HashSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.insert(k.to_lowercase());
                keys_of(v, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| keys_of(v, out)),
        _ => {}
    }
}

/// Who acted (and whether as a timeout), what, and when.
type Log = Vec<(PlayerId, bool, Action, Millis)>;

fn play(
    options: &YutOptions,
    players: usize,
    seed: u64,
    choices: &[u32],
    probes: &[(usize, Action)],
) -> (YutState, GameRng, Log) {
    let mut rng = GameRng::seed_from_u64(seed);
    let mut state = Yut::setup(&lineup(players), options, &mut rng, 0).unwrap();
    let stranger = PlayerId::new("stranger");
    let mut log = Vec::new();
    let mut now = 0;
    for (step, &choice) in choices.iter().enumerate() {
        check_invariants(&state);

        // A probe: legal or not, a refused action must change nothing.
        let (seat, action) = &probes[step % probes.len()];
        let who = state
            .players()
            .get(*seat)
            .cloned()
            .unwrap_or_else(|| stranger.clone());
        let (mut s, mut r) = (state.clone(), rng.clone());
        if Yut::apply(&mut s, Actor::Player(&who), action, &mut r, now).is_err() {
            assert_eq!(s, state, "a refused action changed the state");
            assert_eq!(r, rng, "a refused action drew from the generator");
        }

        // Every listed legal move applies.
        if let Some(p) = state.current_player() {
            for m in state.legal_moves() {
                let mut s = state.clone();
                let action = Action::Move {
                    throw_index: m.throw_index,
                    from: m.from,
                };
                Yut::apply(&mut s, Actor::Player(p), &action, &mut rng.clone(), now).unwrap();
            }
        }

        // Views: never the generator.
        for viewer in [None, state.current_player()] {
            let json = serde_json::to_value(Yut::view(&state, viewer)).unwrap();
            let mut keys = HashSet::new();
            keys_of(&json, &mut keys);
            assert!(
                keys.iter()
                    .all(|k| !k.contains("rng") && !k.contains("seed"))
            );
        }

        let Some((player, action)) = choose(&state, choice) else {
            break;
        };
        now += 700;
        let timeout = choice.is_multiple_of(5);
        let actor = if timeout {
            Actor::Timeout(&player)
        } else {
            Actor::Player(&player)
        };
        Yut::apply(&mut state, actor, &action, &mut rng, now).unwrap();
        log.push((player, timeout, action, now));
    }
    check_invariants(&state);
    (state, rng, log)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant_and_replay_identically(
        (options, players) in arb_options(),
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u32>(), 50..400),
        probes in prop::collection::vec(arb_probe(), 1..16),
    ) {
        let (state, rng, log) = play(&options, players, seed, &choices, &probes);

        // Same seed and the same actions give the same state and generator, bit for bit.
        let mut replay_rng = GameRng::seed_from_u64(seed);
        let mut replay = Yut::setup(&lineup(players), &options, &mut replay_rng, 0).unwrap();
        for (player, timeout, action, now) in &log {
            let actor = if *timeout { Actor::Timeout(player) } else { Actor::Player(player) };
            Yut::apply(&mut replay, actor, action, &mut replay_rng, *now).unwrap();
        }
        prop_assert_eq!(&replay, &state);
        prop_assert_eq!(&replay_rng, &rng);

        // The stored form round-trips and stays small.
        let bytes = postcard::to_allocvec(&state).unwrap();
        prop_assert!(bytes.len() < 1024, "{} bytes", bytes.len());
        let back: YutState = postcard::from_bytes(&bytes).unwrap();
        prop_assert_eq!(&back, &state);
        let back: YutState = serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
        prop_assert_eq!(&back, &state);
    }

    #[test]
    fn two_runs_of_the_same_seed_and_choices_encode_identically(
        (options, players) in arb_options(),
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u32>(), 1..300),
    ) {
        let run = || {
            let mut rng = GameRng::seed_from_u64(seed);
            let mut state = Yut::setup(&lineup(players), &options, &mut rng, 0).unwrap();
            for (i, &choice) in choices.iter().enumerate() {
                let Some((p, action)) = choose(&state, choice) else { break };
                let actor = if choice.is_multiple_of(3) { Actor::Timeout(&p) } else { Actor::Player(&p) };
                Yut::apply(&mut state, actor, &action, &mut rng, i as u64).unwrap();
            }
            (postcard::to_allocvec(&state).unwrap(), rng)
        };
        prop_assert_eq!(run(), run());
    }
}
