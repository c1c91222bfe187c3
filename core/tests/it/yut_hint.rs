//! The yut hint (yut.md §9, `hints: true`): over random positions of random games, the player to
//! move is shown exactly the move the system would play for them on a timeout (by either
//! `timeoutPolicy`), and nobody else sees a hint.

use crate::support;

use madang_core::yut::{
    Action, BackdoFromDo, FinishRule, Mode, Phase, PlayerLimits, StickModel, TimeoutPolicy, Yut,
    YutOptions, YutState,
};
use madang_core::{Actor, Game, GameRng, PlayerId};
use proptest::prelude::*;
use strum::VariantArray;
use support::lineup;

fn arb_options() -> impl Strategy<Value = (YutOptions, usize)> {
    (
        any::<bool>(),
        0..5usize,
        2..=5u8,
        any::<bool>(),
        any::<bool>(),
        0..3usize,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(team, size, pieces, fair, backdo, from_do, reach, page_policy, page_limits)| {
                let base = YutOptions {
                    mode: if team { Mode::Team } else { Mode::Individual },
                    player_limits: if page_limits {
                        PlayerLimits::RulesPage
                    } else {
                        PlayerLimits::YutMd
                    },
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
                    backdo_from_do: BackdoFromDo::VARIANTS[from_do],
                    finish_rule: if reach {
                        FinishRule::Reach
                    } else {
                        FinishRule::Pass
                    },
                    timeout_policy: if page_policy {
                        TimeoutPolicy::RulesPage
                    } else {
                        TimeoutPolicy::YutMd
                    },
                    hints: true,
                    ..base
                };
                (options, players)
            },
        )
}

/// Checks the hint of every viewer in `state` against the timeout's choice.
fn check_hint(state: &YutState) -> Result<(), TestCaseError> {
    let Some(mover) = state.current_player().cloned() else {
        // Game over: nobody is to move, nobody has a hint.
        for p in state.players() {
            prop_assert!(state.view(Some(p)).hint.is_none());
        }
        return Ok(());
    };
    let hint = state.view(Some(&mover)).hint;
    let timeout = Yut::on_timeout(state, &mover, 0);
    match state.phase() {
        Phase::Throw => {
            prop_assert_eq!(hint, Some(None), "null while the player must throw");
            prop_assert_eq!(timeout, Some(Action::Throw));
        }
        Phase::Move => {
            let hint = hint.flatten();
            prop_assert!(hint.is_some(), "a hint in every move phase");
            let hint = hint.unwrap();
            prop_assert_eq!(
                timeout,
                Some(Action::Move {
                    throw_index: hint.throw_index,
                    from: hint.from,
                })
            );
            // It is one of the legal moves, with the same destination.
            let legal = state.legal_moves();
            prop_assert!(
                legal.iter().any(|m| m.throw_index == hint.throw_index
                    && m.from == hint.from
                    && m.to == hint.to),
                "hint {:?} not among {:?}",
                hint,
                legal
            );
        }
        Phase::Finished => {}
    }
    for p in state.players().iter().filter(|p| **p != mover) {
        prop_assert!(state.view(Some(p)).hint.is_none(), "{} sees a hint", p);
    }
    prop_assert!(state.view(None).hint.is_none(), "a spectator sees a hint");
    // In JSON: absent for everyone but the player to move.
    let other = state.players().iter().find(|p| **p != mover).unwrap();
    let json = serde_json::to_value(state.view(Some(other))).unwrap();
    prop_assert!(json.get("hint").is_none());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn the_hint_is_the_move_the_timeout_would_play_and_only_the_player_to_move_sees_it(
        (options, players) in arb_options(),
        seed in any::<u64>(),
        choices in proptest::collection::vec(any::<u32>(), 0..400),
    ) {
        let mut rng = GameRng::seed_from_u64(seed);
        let mut state = Yut::setup(&lineup(players), &options, &mut rng, 0).unwrap();
        let mut now = 0;
        for choice in choices {
            check_hint(&state)?;
            let Some(mover) = state.current_player().cloned() else { break };
            let action = match state.phase() {
                Phase::Throw => Action::Throw,
                Phase::Move => {
                    let moves = state.legal_moves();
                    let m = &moves[choice as usize % moves.len()];
                    Action::Move { throw_index: m.throw_index, from: m.from }
                }
                Phase::Finished => break,
            };
            now += 1_000;
            Yut::apply(&mut state, Actor::Player(&mover), &action, &mut rng, now).unwrap();
        }
        check_hint(&state)?;
    }
}

#[test]
fn without_hints_nobody_sees_one() {
    let options = YutOptions::default();
    let mut rng = GameRng::seed_from_u64(5);
    let mut state = Yut::setup(&lineup(2), &options, &mut rng, 0).unwrap();
    let mover: PlayerId = state.current_player().unwrap().clone();
    Yut::apply(
        &mut state,
        Actor::Player(&mover),
        &Action::Throw,
        &mut rng,
        1,
    )
    .unwrap();
    for p in state.players() {
        let json = serde_json::to_value(state.view(Some(p))).unwrap();
        assert!(json.get("hint").is_none(), "{p}: {}", json["hint"]);
    }
}
