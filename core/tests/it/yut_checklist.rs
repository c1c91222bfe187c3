//! `spec/yut.md` §10, one named test per checklist item, the four worked examples of §5.5, the
//! remaining-distance table of §6, and the rulings Y1–Y15 (each test names its ruling).
//!
//! Positions that would take many random throws to reach are arranged with the state's test
//! helpers; the throws and moves themselves always go through `Yut::apply`.

use crate::support;

use madang_core::yut::{
    Action, BackdoFromDo, Event, FinishRule, Mode, Phase, Position, Ranking, StickModel, Throw,
    Toss, Yut, YutError, YutOptions, remaining_distance,
};
use madang_core::{Actor, Game, GameRng, OptionsError, RuleError};
use strum::VariantArray;
use support::{Table, lineup, node};

use Throw::{Backdo, Do, Gae, Geol, Mo, Yut as YutThrow};

fn options() -> YutOptions {
    YutOptions::default()
}

fn seat_to_move(t: &Table) -> usize {
    let p = t.current().unwrap();
    t.state.seat_of(&p).unwrap().into()
}

fn positions(path: &[u8]) -> Vec<Position> {
    path.iter().map(|&n| node(n)).collect()
}

fn moved(events: &[Event]) -> (Position, Position, Vec<Position>, u8) {
    events
        .iter()
        .find_map(|e| match e {
            Event::Moved {
                from,
                to,
                path,
                count,
                ..
            } => Some((*from, *to, path.clone(), *count)),
            _ => None,
        })
        .unwrap()
}

// §5.1 ─────────────────────────────────────────────────────────────────────────────────────────

#[test]
fn stick_frequencies_over_100000_seeded_throws_match_the_table_within_half_a_point() {
    let tables = [
        (
            StickModel::Realistic,
            [0.1152, 0.3456, 0.3456, 0.1296, 0.0256, 0.0384],
        ),
        (
            StickModel::Fair,
            [0.1875, 0.375, 0.25, 0.0625, 0.0625, 0.0625],
        ),
    ];
    for (stick_model, expected) in tables {
        let options = YutOptions {
            stick_model,
            ..options()
        };
        let mut rng = GameRng::seed_from_u64(2026);
        let mut counts = [0u32; 6];
        const N: u32 = 100_000;
        for _ in 0..N {
            let result = Toss::draw(&mut rng, &options).result().unwrap();
            counts[result as usize] += 1;
        }
        for (i, throw) in Throw::VARIANTS.iter().enumerate() {
            let freq = f64::from(counts[i]) / f64::from(N);
            assert!(
                (freq - expected[i]).abs() <= 0.005,
                "{stick_model:?} {throw:?}: {freq} vs {}",
                expected[i]
            );
        }
    }
}

#[test]
fn without_backdo_the_marked_stick_alone_reads_as_do() {
    let options = YutOptions {
        backdo: false,
        ..options()
    };
    let mut rng = GameRng::seed_from_u64(5);
    for _ in 0..10_000 {
        if let Toss::Landed { sticks, result } = Toss::draw(&mut rng, &options) {
            assert_ne!(result, Backdo);
            if sticks == [true, false, false, false] {
                assert_eq!(result, Do);
            }
        }
    }
}

// §5.5 example 1 and §10 "윷 → 모 → 걸" ─────────────────────────────────────────────────────────

#[test]
fn example_1_yut_mo_geol_stops_at_geol_and_finishes_a_piece_in_one_turn() {
    let mut t = Table::rigged(2, options(), &[Some(YutThrow), Some(Mo), Some(Geol)]);
    let me = seat_to_move(&t);
    let side = t.state.side_of(&t.p(me)).unwrap();

    t.throw(me);
    assert_eq!(t.state.phase(), Phase::Throw, "윷 throws again");
    t.throw(me);
    assert_eq!(t.state.phase(), Phase::Throw, "모 throws again");
    t.throw(me);
    assert_eq!(t.state.phase(), Phase::Move, "걸 stops throwing");
    assert_eq!(t.state.pending(), [YutThrow, Mo, Geol]);

    // Free order: 모 first, entering a new piece onto 5.
    let (from, to, path, _) = moved(&t.mv(me, 1, Position::Home));
    assert_eq!((from, to), (Position::Home, node(5)));
    assert_eq!(path, positions(&[1, 2, 3, 4, 5]));

    // 걸 from 5: it stopped on the corner, so the shortcut: 20 → 21 → 22.
    let (_, to, path, _) = moved(&t.use_throw(me, Geol, node(5)));
    assert_eq!(to, node(22));
    assert_eq!(path, positions(&[20, 21, 22]));

    // 윷 from 방: 27 → 28 → 0 → goal on the fourth step.
    let events = t.use_throw(me, YutThrow, node(22));
    let (_, to, path, _) = moved(&events);
    assert_eq!(to, Position::Goal);
    assert_eq!(path, [node(27), node(28), node(0), Position::Goal]);
    assert!(events.contains(&Event::FinishedPieces { side, count: 1 }));
    assert_eq!(t.state.sides()[usize::from(side)].finished_pieces(), 1);
    assert_ne!(t.current(), Some(t.p(me)), "the turn passed");
}

// §10: corners and 방 ──────────────────────────────────────────────────────────────────────────

#[test]
fn passing_mo_goes_straight_and_stopping_on_it_takes_the_shortcut() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(4), &[1, 2, 3, 4]);
    t.turn(0, &[Geol]);
    let (_, to, path, _) = moved(&t.mv(0, 0, node(4)));
    assert_eq!((to, path), (node(7), positions(&[5, 6, 7])));

    t.place(0, 0, node(5), &[1, 2, 3, 4, 5]);
    t.turn(0, &[Do]);
    assert_eq!(moved(&t.mv(0, 0, node(5))).1, node(20));
}

#[test]
fn example_2_bang_passed_from_21_goes_straight_to_23() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(20), &[1, 2, 3, 4, 5, 20]);
    t.turn(0, &[Geol]);
    let (_, to, path, _) = moved(&t.mv(0, 0, node(20)));
    assert_eq!((to, path), (node(23), positions(&[21, 22, 23])));
}

#[test]
fn bang_goes_straight_from_21_and_from_26_and_turns_home_when_departing() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(21), &[1, 2, 3, 4, 5, 20, 21]);
    t.place(0, 1, node(26), &[6, 7, 8, 9, 10, 25, 26]);
    t.place(0, 2, node(22), &[1, 2, 3, 4, 5, 20, 21, 22]);
    t.turn(0, &[Gae, Gae, Do]);
    assert_eq!(moved(&t.mv(0, 0, node(21))).1, node(23));
    assert_eq!(moved(&t.mv(0, 0, node(26))).1, node(27));
    assert_eq!(moved(&t.mv(0, 0, node(22))).1, node(27));
}

#[test]
fn jjimo_has_no_shortcut_even_after_stopping_there() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(15), &[15]);
    t.place(0, 1, node(14), &[14]);
    t.turn(0, &[Do, Geol]);
    assert_eq!(moved(&t.mv(0, 0, node(15))).1, node(16));
    let (_, to, path, _) = moved(&t.mv(0, 0, node(14)));
    assert_eq!((to, path), (node(17), positions(&[15, 16, 17])));
}

// §10: finishing ───────────────────────────────────────────────────────────────────────────────

#[test]
fn example_4_y2_under_pass_a_piece_stopping_on_chammeogi_is_lapped_and_capturable() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(28), &[1, 2, 3, 4, 5, 20, 21, 22, 27, 28]);
    t.place(1, 0, node(27), &[6, 7, 8, 9, 10, 25, 26, 22, 27]);
    t.turn(0, &[Do]);
    let events = t.mv(0, 0, node(28));
    assert_eq!(moved(&events).1, node(0));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::FinishedPieces { .. }))
    );
    assert!(
        t.state.sides()[0].pieces()[0].lapped(),
        "Y2: on 0 means lapped"
    );

    t.turn(1, &[Gae]);
    let events = t.mv(1, 0, node(27));
    assert!(events.contains(&Event::Captured {
        side: 1,
        victim_side: 0,
        at: madang_core::yut::Node::CHAMMEOGI,
        count: 1
    }));
    assert_eq!(t.at(0, 0), Position::Home);
}

#[test]
fn example_4_under_pass_the_next_do_from_chammeogi_finishes() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(0), &[18, 19, 0]);
    t.turn(0, &[Do]);
    let (_, to, path, _) = moved(&t.mv(0, 0, node(0)));
    assert_eq!((to, path), (Position::Goal, vec![Position::Goal]));
}

#[test]
fn under_reach_arriving_on_chammeogi_finishes_at_once() {
    let mut t = Table::new(
        2,
        YutOptions {
            finish_rule: FinishRule::Reach,
            ..options()
        },
    );
    t.place(0, 0, node(28), &[27, 28]);
    t.turn(0, &[Do]);
    let (_, to, path, _) = moved(&t.mv(0, 0, node(28)));
    assert_eq!((to, path), (Position::Goal, vec![Position::Goal]));
}

// §10: 빽도 ────────────────────────────────────────────────────────────────────────────────────

#[test]
fn backdo_returns_along_the_path_it_came() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(22), &[1, 2, 3, 4, 5, 20, 21, 22]);
    t.turn(0, &[Backdo]);
    assert_eq!(moved(&t.mv(0, 0, node(22))).1, node(21));

    let mut t = Table::new(2, options());
    t.place(0, 0, node(22), &[6, 7, 8, 9, 10, 25, 26, 22]);
    t.turn(0, &[Backdo]);
    assert_eq!(moved(&t.mv(0, 0, node(22))).1, node(26));
}

#[test]
fn a_piece_backed_onto_21_passes_bang_straight_with_gae() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(22), &[1, 2, 3, 4, 5, 20, 21, 22]);
    t.turn(0, &[Backdo, Gae]);
    t.use_throw(0, Backdo, node(22));
    let (_, to, path, _) = moved(&t.use_throw(0, Gae, node(21)));
    assert_eq!((to, path), (node(23), positions(&[22, 23])));
}

#[test]
fn backdo_on_do_under_chammeogi_goes_to_chammeogi_and_the_next_gae_finishes() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(1), &[1]);
    t.turn(0, &[Backdo, Gae]);
    assert_eq!(moved(&t.use_throw(0, Backdo, node(1))).1, node(0));
    assert!(t.state.sides()[0].pieces()[0].lapped());
    assert_eq!(moved(&t.use_throw(0, Gae, node(0))).1, Position::Goal);
}

#[test]
fn backdo_on_do_under_finish_finishes_at_once() {
    let options = YutOptions {
        backdo_from_do: BackdoFromDo::Finish,
        ..options()
    };
    let mut t = Table::new(2, options);
    t.place(0, 0, node(1), &[1]);
    t.turn(0, &[Backdo]);
    assert_eq!(moved(&t.mv(0, 0, node(1))).1, Position::Goal);
}

#[test]
fn y3_backdo_on_do_under_chammeogi_and_reach_finishes_at_once() {
    let options = YutOptions {
        finish_rule: FinishRule::Reach,
        ..options()
    };
    let mut t = Table::new(2, options);
    t.place(0, 0, node(1), &[1]);
    t.turn(0, &[Backdo]);
    assert_eq!(moved(&t.mv(0, 0, node(1))).1, Position::Goal);
}

#[test]
fn backdo_on_chammeogi_goes_back_to_where_it_came_from() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(0), &[22, 27, 28, 0]);
    t.place(0, 1, node(0), &[22, 27, 28, 0]);
    t.turn(0, &[Backdo]);
    let (_, to, _, count) = moved(&t.mv(0, 0, node(0)));
    assert_eq!((to, count), (node(28), 2));
}

#[test]
fn y4_backdo_without_a_record_steps_to_19_from_chammeogi_then_down_the_ring() {
    let mut t = Table::new(2, options());
    // After the 도-spot special case the trail restarts at [0].
    t.place(0, 0, node(0), &[0]);
    t.turn(0, &[Backdo, Backdo]);
    assert_eq!(moved(&t.mv(0, 0, node(0))).1, node(19));
    assert_eq!(
        t.state.sides()[0].pieces()[0].trail(),
        [madang_core::yut::Node::new(19).unwrap()]
    );
    assert_eq!(moved(&t.mv(0, 0, node(19))).1, node(18));
}

// §10: discarding ──────────────────────────────────────────────────────────────────────────────

#[test]
fn a_lone_backdo_with_no_piece_on_the_board_is_discarded_and_the_turn_passes() {
    let mut t = Table::rigged(2, options(), &[Some(Backdo)]);
    let me = seat_to_move(&t);
    let events = t.throw(me);
    assert!(events.contains(&Event::Discarded {
        throws: vec![Backdo]
    }));
    assert!(matches!(events.last(), Some(Event::TurnChanged { .. })));
    assert_ne!(t.current(), Some(t.p(me)));
    assert_eq!(t.state.phase(), Phase::Throw);
    assert!(t.state.pending().is_empty());
}

#[test]
fn backdo_waits_while_gae_enters_a_piece_and_then_moves_it() {
    let mut t = Table::new(2, options());
    t.turn(0, &[Backdo, Gae]);
    let legal = t.state.legal_moves();
    assert_eq!(legal.len(), 1, "only 개 can be used now");
    assert_eq!((legal[0].throw_index, legal[0].from), (1, Position::Home));
    t.mv(0, 1, Position::Home);
    assert_eq!(t.state.phase(), Phase::Move, "빽도 is usable now");
    assert_eq!(moved(&t.mv(0, 0, node(2))).1, node(1));
}

#[test]
fn results_left_unusable_after_a_move_are_discarded() {
    // 걸 finishes the only piece on the board; the remaining 빽도 then has nothing to move.
    let mut t = Table::new(2, options());
    t.place(0, 0, node(19), &[19]);
    t.turn(0, &[Geol, Backdo]);
    let events = t.mv(0, 0, node(19));
    assert!(events.contains(&Event::Discarded {
        throws: vec![Backdo]
    }));
    assert_eq!(t.current(), Some(t.p(1)));
}

// §10: stacking and capturing ──────────────────────────────────────────────────────────────────

#[test]
fn y5_stacked_pieces_move_together_and_finish_together() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(3), &[1, 2, 3]);
    t.turn(0, &[Geol, Do]);
    let events = t.use_throw(0, Geol, Position::Home);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Stacked { count: 2, .. }))
    );
    let (_, to, _, count) = moved(&t.use_throw(0, Do, node(3)));
    assert_eq!((to, count), (node(4), 2));
    assert_eq!((t.at(0, 0), t.at(0, 1)), (node(4), node(4)));

    t.place(0, 0, node(19), &[18, 19]);
    t.place(0, 1, node(19), &[18, 19]);
    t.turn(0, &[Gae]);
    let events = t.mv(0, 0, node(19));
    assert!(events.contains(&Event::FinishedPieces { side: 0, count: 2 }));
}

#[test]
fn a_captured_stack_goes_home_whole_and_earns_one_bonus_throw() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(4), &[1, 2, 3, 4]);
    t.place(0, 1, node(4), &[1, 2, 3, 4]);
    t.place(1, 0, node(2), &[1, 2]);
    t.turn(1, &[Gae]);
    let events = t.mv(1, 0, node(2));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Captured { count: 2, .. }))
    );
    let bonuses = events
        .iter()
        .filter(|e| matches!(e, Event::BonusThrow { .. }))
        .count();
    assert_eq!(bonuses, 1);
    assert_eq!(t.state.throws_owed(), 1);
    assert_eq!((t.at(0, 0), t.at(0, 1)), (Position::Home, Position::Home));
    assert!(t.state.sides()[0].pieces()[0].trail().is_empty());
}

#[test]
fn y5_a_merged_stack_keeps_the_trail_of_the_stack_that_moved() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(0), &[27, 28, 0]);
    t.place(0, 1, node(19), &[18, 19]);
    t.turn(0, &[Do, Backdo]);
    t.use_throw(0, Do, node(19));
    let (_, to, _, count) = moved(&t.use_throw(0, Backdo, node(0)));
    assert_eq!(
        (to, count),
        (node(19), 2),
        "빽도 undoes the last move, 19 → 0"
    );
}

#[test]
fn a_capture_returns_to_throwing_keeping_pending_results_and_a_bonus_yut_throws_again() {
    let mut t = Table::rigged(2, options(), &[Some(YutThrow), Some(Do)]);
    t.place(0, 0, node(2), &[1, 2]);
    t.turn(1, &[Gae, Geol]);
    t.mv(1, 0, Position::Home);
    assert_eq!(t.state.phase(), Phase::Throw);
    assert_eq!(t.state.pending(), [Geol]);
    assert_eq!(t.state.throws_owed(), 1);
    t.throw(1);
    assert_eq!(
        t.state.phase(),
        Phase::Throw,
        "윷 in the bonus throw throws again"
    );
    assert_eq!(t.state.pending(), [Geol, YutThrow]);
    t.throw(1);
    assert_eq!(t.state.phase(), Phase::Move);
    assert_eq!(t.state.pending(), [Geol, YutThrow, Do]);
}

#[test]
fn example_3_backdo_captures_earns_a_throw_and_the_capturer_then_takes_the_shortcut() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(6), &[1, 2, 3, 4, 5, 6]);
    t.place(1, 0, node(5), &[1, 2, 3, 4, 5]);
    t.turn(0, &[Backdo]);
    let events = t.mv(0, 0, node(6));
    assert_eq!(moved(&events).1, node(5));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Captured { victim_side: 1, .. }))
    );
    assert_eq!(t.state.phase(), Phase::Throw);
    assert_eq!(t.state.throws_owed(), 1);
    assert_eq!(t.at(1, 0), Position::Home);

    // A now stands on 모, so its next move starts on the shortcut.
    t.turn(0, &[Do]);
    assert_eq!(moved(&t.mv(0, 0, node(5))).1, node(20));
}

#[test]
fn without_backdo_capture_bonus_a_backdo_capture_earns_nothing() {
    let mut t = Table::new(
        2,
        YutOptions {
            backdo_capture_bonus: false,
            ..options()
        },
    );
    t.place(0, 0, node(6), &[1, 2, 3, 4, 5, 6]);
    t.place(1, 0, node(5), &[1, 2, 3, 4, 5]);
    t.turn(0, &[Backdo]);
    let events = t.mv(0, 0, node(6));
    assert!(events.iter().any(|e| matches!(e, Event::Captured { .. })));
    assert!(!events.iter().any(|e| matches!(e, Event::BonusThrow { .. })));
    assert_eq!(t.current(), Some(t.p(1)));
}

#[test]
fn an_opponent_on_a_spot_passed_over_is_not_captured() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(3), &[1, 2, 3]);
    t.place(1, 0, node(1), &[1]);
    t.turn(1, &[Geol]);
    let events = t.mv(1, 0, node(1));
    assert_eq!(moved(&events).1, node(4));
    assert!(!events.iter().any(|e| matches!(e, Event::Captured { .. })));
    assert_eq!(t.at(0, 0), node(3));
}

// §10: 낙 ──────────────────────────────────────────────────────────────────────────────────────

#[test]
fn y7_nak_voids_the_throw_keeps_the_earlier_yut_and_moves_on() {
    let options = YutOptions {
        nak_percent: 10,
        ..options()
    };
    let mut t = Table::rigged(2, options, &[Some(YutThrow), None]);
    let me = seat_to_move(&t);
    t.throw(me);
    let events = t.throw(me);
    assert_eq!(events[0], Event::Nak { player: t.p(me) });
    assert_eq!(t.state.phase(), Phase::Move);
    assert_eq!(t.state.pending(), [YutThrow]);
    assert_eq!(t.state.last_throw(), Some(Toss::Nak));
    let view = serde_json::to_value(Yut::view(&t.state, None)).unwrap();
    assert_eq!(
        view["lastThrow"],
        serde_json::json!({"sticks": null, "result": "nak"})
    );
}

// §10: teams ───────────────────────────────────────────────────────────────────────────────────

#[test]
fn y1_team_turns_alternate_starting_with_the_drawn_team() {
    let team = YutOptions {
        mode: Mode::Team,
        ..options()
    };
    let mut seen = [false; 2];
    for seed in 0..64 {
        let t = Table::with_seed(4, team.clone(), seed);
        let order: Vec<String> = t.state.turn_order().map(|p| p.to_string()).collect();
        // 청 = seats 0, 2; 홍 = seats 1, 3.
        if order == ["p0", "p1", "p2", "p3"] {
            seen[0] = true;
        } else {
            assert_eq!(order, ["p1", "p0", "p3", "p2"]);
            seen[1] = true;
        }
    }
    assert_eq!(seen, [true, true], "both teams get to start");
}

#[test]
fn y1_individual_turns_go_in_seat_order_from_the_drawn_seat() {
    for seed in 0..16 {
        let t = Table::with_seed(3, options(), seed);
        let order: Vec<String> = t.state.turn_order().map(|p| p.to_string()).collect();
        let first: usize = order[0][1..].parse().unwrap();
        let expected: Vec<String> = (0..3).map(|i| format!("p{}", (first + i) % 3)).collect();
        assert_eq!(order, expected);
    }
}

#[test]
fn in_a_four_player_team_game_blue_2_cannot_move_on_red_1s_turn() {
    let mut t = Table::new(
        4,
        YutOptions {
            mode: Mode::Team,
            ..options()
        },
    );
    t.turn(1, &[Do]);
    let err = t
        .act(
            2,
            Action::Move {
                throw_index: 0,
                from: Position::Home,
            },
        )
        .unwrap_err();
    assert_eq!(err, YutError::NotYourTurn);
    assert_eq!(err.code(), "NOT_YOUR_TURN");
    assert_eq!(err.to_string(), "지금은 다른 사람 차례예요.");
    // Team pieces are shared: 홍1 moves 홍's pieces (side 1).
    let events = t.mv(1, 0, Position::Home);
    assert_eq!(
        events[0],
        Event::Moved {
            side: 1,
            result: Do,
            from: Position::Home,
            to: node(1),
            path: vec![node(1)],
            count: 1
        }
    );
}

// §10: ranking ─────────────────────────────────────────────────────────────────────────────────

#[test]
fn y8_with_ranking_all_a_finished_side_leaves_the_rotation_and_play_goes_to_the_last() {
    let options = YutOptions {
        ranking: Ranking::All,
        pieces: 2,
        ..options()
    };
    let mut t = Table::new(3, options);
    for piece in 0..2 {
        t.place(0, piece, node(19), &[19]);
    }
    t.turn(0, &[Gae, Geol]);
    let events = t.mv(0, 0, node(19));
    assert!(events.contains(&Event::SideFinished { side: 0, rank: 1 }));
    assert!(
        events.contains(&Event::Discarded { throws: vec![Geol] }),
        "Y8"
    );
    assert_eq!(t.state.phase(), Phase::Throw);
    let order: Vec<String> = t.state.turn_order().map(|p| p.to_string()).collect();
    assert_eq!(order.len(), 2);
    assert!(!order.contains(&"p0".to_owned()));

    // Play on automatically; p0 never moves again and the game ends with a full ranking.
    let mut steps = 0;
    while Yut::result(&t.state).is_none() {
        let p = t.current().unwrap();
        assert_ne!(p.as_str(), "p0");
        let action = Yut::on_timeout(&t.state, &p, t.now).unwrap();
        t.act(t.state.seat_of(&p).unwrap().into(), action).unwrap();
        steps += 1;
        assert!(steps < 10_000);
    }
    let result = Yut::result(&t.state).unwrap();
    let ranks: Vec<u8> = result.ranking.iter().map(|s| s.rank.unwrap()).collect();
    assert_eq!(ranks, [1, 2, 3]);
    assert_eq!(result.ranking[0].side, 0);
    assert_eq!(result.ranking[1].finished_pieces, 2);
}

#[test]
fn with_ranking_first_the_game_ends_with_the_first_side_home() {
    let mut t = Table::new(
        3,
        YutOptions {
            pieces: 2,
            ..options()
        },
    );
    t.place(0, 0, node(19), &[19]);
    t.place(0, 1, Position::Goal, &[]);
    t.place(1, 0, node(22), &[22]);
    t.place(2, 0, node(3), &[3]);
    t.turn(0, &[Gae]);
    let events = t.mv(0, 0, node(19));
    assert!(events.contains(&Event::SideFinished { side: 0, rank: 1 }));
    assert!(matches!(events.last(), Some(Event::GameOver { .. })));
    let result = Yut::result(&t.state).unwrap();
    let order: Vec<(u8, u8, u32)> = result
        .ranking
        .iter()
        .map(|s| (s.rank.unwrap(), s.side, s.remaining_distance))
        .collect();
    // Side 1: 22 → 4 plus a waiting 12; side 2: 3 → 9 plus 12.
    assert_eq!(order, [(1, 0, 0), (2, 1, 16), (3, 2, 21)]);
    assert_eq!(result.winners, [t.p(0)]);
    assert_eq!(result.summary, "p0 승리! (2개 모두 남)");
    assert_eq!(Yut::active_players(&t.state), []);
    assert_eq!(Yut::deadline(&t.state), None);
}

#[test]
fn y12_sides_tied_on_pieces_and_distance_share_a_rank() {
    let mut t = Table::new(
        4,
        YutOptions {
            pieces: 2,
            ..options()
        },
    );
    t.place(0, 0, node(19), &[19]);
    t.place(0, 1, Position::Goal, &[]);
    t.place(1, 0, node(3), &[3]);
    t.place(2, 0, node(8), &[8]);
    t.place(3, 0, node(1), &[1]);
    t.turn(0, &[Gae]);
    t.mv(0, 0, node(19));
    let result = Yut::result(&t.state).unwrap();
    let ranks: Vec<(u8, u8)> = result
        .ranking
        .iter()
        .map(|s| (s.rank.unwrap(), s.side))
        .collect();
    assert_eq!(ranks, [(1, 0), (2, 1), (2, 2), (4, 3)]);
}

#[test]
fn the_team_summary_names_the_winning_team() {
    let mut t = Table::new(
        4,
        YutOptions {
            mode: Mode::Team,
            ..options()
        },
    );
    for piece in 0..4 {
        t.place(0, piece, node(19), &[19]);
    }
    t.turn(2, &[Gae]);
    t.mv(2, 0, node(19));
    let result = Yut::result(&t.state).unwrap();
    assert_eq!(result.summary, "청팀 승리! (4개 모두 남)");
    assert_eq!(result.winners, [t.p(0), t.p(2)]);
    assert_eq!(result.ranking[1].players, [t.p(1), t.p(3)]);
}

#[test]
fn remaining_distance_table_matches_section_6() {
    // The spec's table, in the spec's order: (spot, steps to the goal under `pass`).
    #[rustfmt::skip]
    let table: [(u8, u32); 29] = [
        (1, 11), (2, 10), (3, 9), (4, 8), (5, 7), (6, 11), (7, 10), (8, 9), (9, 8), (10, 7),
        (11, 10), (12, 9), (13, 8), (14, 7), (15, 6), (16, 5), (17, 4), (18, 3), (19, 2),
        (0, 1), (20, 6), (21, 5), (22, 4), (23, 8), (24, 7), (25, 6), (26, 5), (27, 3), (28, 2),
    ];
    assert_eq!(remaining_distance(Position::Home, FinishRule::Pass), 12);
    assert_eq!(remaining_distance(Position::Goal, FinishRule::Pass), 0);
    for (n, d) in table {
        assert_eq!(remaining_distance(node(n), FinishRule::Pass), d, "spot {n}");
        assert_eq!(
            remaining_distance(node(n), FinishRule::Reach),
            d - 1,
            "spot {n}"
        );
    }
    assert_eq!(remaining_distance(Position::Home, FinishRule::Reach), 11);
}

// §10: timeouts, disconnection ─────────────────────────────────────────────────────────────────

#[test]
fn timeout_throws_in_the_throw_phase_and_picks_a_capture_in_the_move_phase() {
    let t = Table::new(2, options());
    let me = seat_to_move(&t);
    let p = t.p(me);
    assert_eq!(Yut::on_timeout(&t.state, &p, 0), Some(Action::Throw));
    let other = t.p(1 - me);
    assert_eq!(Yut::on_timeout(&t.state, &other, 0), None);

    let mut t = Table::new(2, options());
    t.place(0, 0, node(1), &[1]);
    t.place(0, 1, node(10), &[10]);
    t.place(1, 0, node(3), &[3]);
    t.turn(0, &[Do, Gae]);
    let action = Yut::on_timeout(&t.state, &t.p(0), 0).unwrap();
    assert_eq!(
        action,
        Action::Move {
            throw_index: 1,
            from: node(1)
        }
    );
    let p0 = t.p(0);
    let events = Yut::apply(&mut t.state, Actor::Timeout(&p0), &action, &mut t.rng, 5).unwrap();
    assert!(events.iter().any(|e| matches!(e, Event::Captured { .. })));
}

#[test]
fn y9_timeout_prefers_finishing_then_stacking_then_the_piece_farthest_behind_then_entering() {
    let auto = |t: &Table| Yut::on_timeout(&t.state, &t.p(0), 0).unwrap();
    let mv = |throw_index, from| Action::Move { throw_index, from };

    // (1) the biggest capture.
    let mut t = Table::new(3, options());
    t.place(1, 0, node(3), &[3]);
    t.place(2, 0, node(4), &[4]);
    t.place(2, 1, node(4), &[4]);
    t.turn(0, &[Geol, YutThrow]);
    assert_eq!(auto(&t), mv(1, Position::Home));

    // (2) finishing beats stacking.
    let mut t = Table::new(2, options());
    t.place(0, 0, node(19), &[19]);
    t.place(0, 1, node(2), &[2]);
    t.turn(0, &[Do, Gae]);
    assert_eq!(auto(&t), mv(1, node(19)));

    // (3) stacking, entering included, beats advancing.
    let mut t = Table::new(2, options());
    t.place(0, 0, node(2), &[1, 2]);
    t.turn(0, &[Gae]);
    assert_eq!(auto(&t), mv(0, Position::Home));

    // (4) the stack farthest behind (per-piece distance), then the biggest result, before (5).
    let mut t = Table::new(2, options());
    t.place(0, 0, node(20), &[20]);
    t.place(0, 1, node(2), &[1, 2]);
    t.place(0, 2, node(2), &[1, 2]);
    t.turn(0, &[Do, Geol]);
    assert_eq!(auto(&t), mv(1, node(2)));

    // (4) 빽도 counts −1 steps: a forward result on the same stack goes first.
    let mut t = Table::new(2, options());
    t.place(0, 0, node(7), &[6, 7]);
    t.turn(0, &[Backdo, Do]);
    assert_eq!(auto(&t), mv(1, node(7)));

    // (5) entering when nothing else is possible; ties by the smaller throw index.
    let mut t = Table::new(2, options());
    t.turn(0, &[Gae, Gae]);
    assert_eq!(auto(&t), mv(0, Position::Home));
}

#[test]
fn a_disconnected_player_is_auto_played_after_the_grace_and_sees_the_current_view_on_return() {
    let mut t = Table::new(2, options());
    assert_eq!(Yut::disconnect_grace(&t.state), Some(5_000));
    let me = seat_to_move(&t);
    let p = t.p(me);
    // The room fires the timeout early once the grace has passed; the engine answers the same.
    let action = Yut::on_timeout(&t.state, &p, 5_000).unwrap();
    Yut::apply(&mut t.state, Actor::Timeout(&p), &action, &mut t.rng, 5_000).unwrap();
    assert!(t.state.last_throw().is_some());
    // On return the player gets the view of the state as it is now.
    let view = serde_json::to_value(Yut::view(&t.state, Some(&p))).unwrap();
    assert_eq!(
        view["lastThrow"],
        serde_json::to_value(Yut::view(&t.state, None).last_throw).unwrap()
    );
}

#[test]
fn deadlines_are_now_plus_turn_seconds_and_none_without_a_limit() {
    let mut t = Table::new(2, options());
    assert_eq!(Yut::deadline(&t.state), Some(30_000));
    let me = seat_to_move(&t);
    t.throw(me);
    assert_eq!(Yut::deadline(&t.state), Some(t.now + 30_000));

    let t = Table::new(
        2,
        YutOptions {
            turn_seconds: None,
            ..options()
        },
    );
    assert_eq!(Yut::deadline(&t.state), None);
}

#[test]
fn y15_three_timeouts_in_a_row_mark_a_player_away_until_their_own_action() {
    let mut t = Table::new(
        2,
        YutOptions {
            pieces: 2,
            ..options()
        },
    );
    let p0 = t.p(0);
    let mut away_events = Vec::new();
    for round in 0..3u64 {
        t.turn(0, &[]);
        let events = Yut::apply(
            &mut t.state,
            Actor::Timeout(&p0),
            &Action::Throw,
            &mut t.rng,
            round,
        )
        .unwrap();
        away_events.extend(
            events
                .into_iter()
                .filter(|e| matches!(e, Event::Away { .. })),
        );
        assert_eq!(t.state.is_away(&p0), round == 2);
    }
    assert_eq!(
        away_events,
        [Event::Away {
            player: p0.clone(),
            away: true
        }]
    );
    let view = serde_json::to_value(Yut::view(&t.state, None)).unwrap();
    assert_eq!(view["away"]["p0"], true);

    t.turn(0, &[]);
    let events = t.throw(0);
    assert!(events.contains(&Event::Away {
        player: p0.clone(),
        away: false
    }));
    assert!(!t.state.is_away(&p0));
}

// §10: information, determinism, options ───────────────────────────────────────────────────────

fn keys(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push(k.to_lowercase());
                keys(v, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

#[test]
fn the_view_json_has_no_rng_seed_or_next_result() {
    let mut t = Table::new(2, options());
    let me = seat_to_move(&t);
    t.throw(me);
    for viewer in [None, Some(t.p(0)), Some(t.p(1))] {
        let view = serde_json::to_value(Yut::view(&t.state, viewer.as_ref())).unwrap();
        let mut all = Vec::new();
        keys(&view, &mut all);
        for k in &all {
            assert!(
                !k.contains("rng") && !k.contains("seed") && !k.contains("next"),
                "{k}"
            );
        }
        let top: Vec<&str> = view
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert!(top.contains(&"sides") && top.contains(&"pending"));
    }
    // Only the player to move gets legalMoves.
    let to_move = t.current().unwrap();
    let other = if to_move == t.p(0) { t.p(1) } else { t.p(0) };
    assert!(Yut::view(&t.state, Some(&to_move)).legal_moves.is_some());
    assert!(Yut::view(&t.state, Some(&other)).legal_moves.is_none());
    assert!(Yut::view(&t.state, None).legal_moves.is_none());
}

fn autoplay(
    seed: u64,
    players: usize,
    options: &YutOptions,
) -> (madang_core::yut::YutState, Vec<Event>) {
    let mut rng = GameRng::seed_from_u64(seed);
    let mut state = Yut::setup(&lineup(players), options, &mut rng, 0).unwrap();
    let mut log = Vec::new();
    let mut now = 0;
    while let Some(p) = state.current_player().cloned() {
        now += 500;
        let action = Yut::on_timeout(&state, &p, now).unwrap();
        log.extend(Yut::apply(&mut state, Actor::Player(&p), &action, &mut rng, now).unwrap());
    }
    (state, log)
}

#[test]
fn the_same_seed_and_actions_replay_to_the_same_state() {
    let options = YutOptions {
        nak_percent: 5,
        ranking: Ranking::All,
        ..options()
    };
    let (a, log_a) = autoplay(99, 4, &options);
    let (b, log_b) = autoplay(99, 4, &options);
    assert_eq!(a, b);
    assert_eq!(log_a, log_b);
    assert_eq!(
        postcard::to_allocvec(&a).unwrap(),
        postcard::to_allocvec(&b).unwrap()
    );
    let (c, _) = autoplay(100, 4, &options);
    assert_ne!(a, c);
}

#[test]
fn options_refuse_five_individual_players_and_five_team_players() {
    let mut rng = GameRng::seed_from_u64(0);
    let individual = Yut::setup(&lineup(5), &options(), &mut rng, 0).unwrap_err();
    assert_eq!(
        individual,
        OptionsError::new("mode", "개인전은 2~4명만 할 수 있어요.")
    );
    let team = YutOptions {
        mode: Mode::Team,
        ..options()
    };
    let err = Yut::validate_options(&team, Some(5)).unwrap_err();
    assert_eq!(err.field, "mode");
    assert_eq!(err.message, "팀전은 4·6·8명만 할 수 있어요.");
    let err = Yut::validate_options(&team, Some(2)).unwrap_err();
    assert_eq!(err.message, "2명은 개인전(1:1)으로만 할 수 있어요.");
    assert_eq!(Yut::max_players(&options()), 4);
    assert_eq!(Yut::max_players(&team), 8);
}

// Rulings not covered above ────────────────────────────────────────────────────────────────────

#[test]
fn y6_entering_uses_the_lowest_waiting_piece() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(7), &[7]);
    t.turn(0, &[Do]);
    t.mv(0, 0, Position::Home);
    assert_eq!(t.at(0, 1), node(1));
    assert_eq!((t.at(0, 2), t.at(0, 3)), (Position::Home, Position::Home));
}

#[test]
fn y10_an_individual_concession_takes_the_side_out_and_ranks_it_last() {
    let mut t = Table::new(3, options());
    t.place(1, 0, node(7), &[7]);
    t.turn(1, &[Do]);
    let events = t.act(1, Action::Concede).unwrap();
    assert_eq!(
        events[0],
        Event::Conceded {
            player: t.p(1),
            side: 1,
            side_out: true
        }
    );
    assert!(
        matches!(events.last(), Some(Event::TurnChanged { .. })),
        "its turn ended"
    );
    assert_eq!(t.at(1, 0), Position::Home, "its pieces left the board");
    assert!(!t.state.turn_order().any(|p| p.as_str() == "p1"));
    assert_eq!(t.act(1, Action::Concede), Err(YutError::AlreadyOut));

    // The next concession leaves one side: it wins, and the earlier concession ranks last.
    let events = t.act(2, Action::Concede).unwrap();
    assert!(matches!(events.last(), Some(Event::GameOver { .. })));
    let result = Yut::result(&t.state).unwrap();
    let order: Vec<(u8, u8)> = result
        .ranking
        .iter()
        .map(|s| (s.rank.unwrap(), s.side))
        .collect();
    assert_eq!(order, [(1, 0), (2, 2), (3, 1)]);
    assert_eq!(result.summary, "p0 승리! (상대 기권)");
    assert_eq!(t.act(0, Action::Throw), Err(YutError::GameOver));
}

#[test]
fn y10_a_team_loses_only_when_all_its_members_concede() {
    let mut t = Table::new(
        4,
        YutOptions {
            mode: Mode::Team,
            ..options()
        },
    );
    let events = t.act(1, Action::Concede).unwrap();
    assert_eq!(
        events,
        [Event::Conceded {
            player: t.p(1),
            side: 1,
            side_out: false
        }]
    );
    assert!(Yut::result(&t.state).is_none());
    let events = t.act(3, Action::Concede).unwrap();
    assert!(matches!(events.last(), Some(Event::GameOver { .. })));
    let result = Yut::result(&t.state).unwrap();
    assert_eq!(result.winners, [t.p(0), t.p(2)]);
    assert_eq!(result.summary, "청팀 승리! (상대 기권)");
}

#[test]
fn y11_errors_come_in_the_order_of_the_checks() {
    let mut t = Table::new(3, options());
    t.turn(0, &[Gae]);
    let stranger = madang_core::PlayerId::new("stranger");
    let before = (t.state.clone(), t.rng.clone());
    let err = Yut::apply(
        &mut t.state,
        Actor::Player(&stranger),
        &Action::Throw,
        &mut t.rng,
        0,
    );
    assert_eq!(err.unwrap_err().code(), "NOT_A_PLAYER");
    let cases = [
        (1, Action::Throw, YutError::NotYourTurn),
        (0, Action::Throw, YutError::NotThrowPhase),
        (
            0,
            Action::Move {
                throw_index: 1,
                from: Position::Home,
            },
            YutError::BadThrowIndex,
        ),
        (
            0,
            Action::Move {
                throw_index: 0,
                from: node(9),
            },
            YutError::IllegalMove,
        ),
        (
            0,
            Action::Move {
                throw_index: 0,
                from: Position::Goal,
            },
            YutError::IllegalMove,
        ),
    ];
    for (seat, action, expected) in cases {
        assert_eq!(t.act(seat, action), Err(expected), "{action:?}");
        assert_eq!(
            (&t.state, &t.rng),
            (&before.0, &before.1),
            "nothing changed"
        );
    }
    t.turn(0, &[]);
    let err = t
        .act(
            0,
            Action::Move {
                throw_index: 0,
                from: Position::Home,
            },
        )
        .unwrap_err();
    assert_eq!(
        (err.code(), err.to_string().as_str()),
        (
            "NOT_MOVE_PHASE",
            "지금은 말을 움직일 차례가 아니에요. 먼저 윷을 던져 주세요."
        )
    );
    let err = t.act(1, Action::Throw).unwrap_err();
    assert_eq!(err.to_string(), "지금은 다른 사람 차례예요.");
    t.turn(0, &[Backdo, Gae]);
    let err = t
        .act(
            0,
            Action::Move {
                throw_index: 0,
                from: Position::Home,
            },
        )
        .unwrap_err();
    assert_eq!(
        (err.code(), err.to_string().as_str()),
        ("ILLEGAL_MOVE", "그 말은 움직일 수 없어요.")
    );
}

#[test]
fn y11_throwing_in_the_move_phase_is_refused_with_the_spec_message() {
    let mut t = Table::new(2, options());
    t.turn(0, &[Gae]);
    let err = t.act(0, Action::Throw).unwrap_err();
    assert_eq!(err.code(), "NOT_THROW_PHASE");
    assert_eq!(err.to_string(), "지금은 윷을 던질 차례가 아니에요.");
}

#[test]
fn y13_legal_moves_list_each_pending_result_with_captures_and_finishes() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(19), &[19]);
    t.place(1, 0, node(2), &[2]);
    t.turn(0, &[Gae, Gae]);
    let view = serde_json::to_value(Yut::view(&t.state, Some(&t.p(0)))).unwrap();
    assert_eq!(
        view["legalMoves"],
        serde_json::json!([
            {"throwIndex": 0, "from": 19, "to": "goal", "captures": 0, "finishes": true, "path": [0, "goal"]},
            {"throwIndex": 0, "from": "home", "to": 2, "captures": 1, "finishes": false, "path": [1, 2]},
            {"throwIndex": 1, "from": 19, "to": "goal", "captures": 0, "finishes": true, "path": [0, "goal"]},
            {"throwIndex": 1, "from": "home", "to": 2, "captures": 1, "finishes": false, "path": [1, 2]},
        ])
    );
}

#[test]
fn y13_a_legal_move_lists_its_path_through_the_shortcuts_and_back() {
    // From the corner 모 (5) the way turns inward (§5.2); 빽도 steps back along the trail.
    let mut t = Table::new(2, options());
    t.place(0, 0, node(5), &[1, 2, 3, 4, 5]);
    t.turn(0, &[Geol, Backdo]);
    let view = serde_json::to_value(Yut::view(&t.state, Some(&t.p(0)))).unwrap();
    let paths: Vec<_> = view["legalMoves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["from"] == 5)
        .map(|m| (m["to"].clone(), m["path"].clone()))
        .collect();
    assert_eq!(
        paths,
        [
            (serde_json::json!(22), serde_json::json!([20, 21, 22])),
            (serde_json::json!(4), serde_json::json!([4])),
        ]
    );
}

#[test]
fn y14_stats_count_capturing_moves_per_side_and_throws_by_result() {
    let mut t = Table::new(2, options());
    t.place(0, 0, node(4), &[4]);
    t.place(0, 1, node(4), &[4]);
    t.place(1, 0, node(2), &[2]);
    for piece in 1..4 {
        t.place(1, piece, Position::Goal, &[]);
    }
    t.turn(1, &[Gae, Geol]);
    t.mv(1, 0, node(2));
    t.place(1, 0, node(19), &[19]);
    t.turn(1, &[Gae]);
    t.mv(1, 0, node(19));
    let result = Yut::result(&t.state).unwrap();
    let json = serde_json::to_value(&result.stats).unwrap();
    assert_eq!(json["captures"], serde_json::json!({"0": 0, "1": 1}));
    assert_eq!(
        json["throws"],
        serde_json::json!({"do": 0, "gae": 0, "geol": 0, "yut": 0, "mo": 0, "backdo": 0, "nak": 0})
    );
}

// Stored form ──────────────────────────────────────────────────────────────────────────────────

#[test]
fn a_state_round_trips_through_postcard_and_json_and_stays_small() {
    let options = YutOptions {
        nak_percent: 5,
        ..options()
    };
    let mut rng = GameRng::seed_from_u64(8);
    let mut state = Yut::setup(&lineup(4), &options, &mut rng, 0).unwrap();
    let mut largest = 0;
    for step in 0..400 {
        let Some(p) = state.current_player().cloned() else {
            break;
        };
        let action = Yut::on_timeout(&state, &p, step).unwrap();
        Yut::apply(&mut state, Actor::Player(&p), &action, &mut rng, step).unwrap();
        let bytes = postcard::to_allocvec(&state).unwrap();
        largest = largest.max(bytes.len());
        let back: madang_core::yut::YutState = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, state);
        let json = serde_json::to_string(&state).unwrap();
        let back: madang_core::yut::YutState = serde_json::from_str(&json).unwrap();
        assert_eq!(back, state);
    }
    assert!(largest < 400, "a 4-player state took {largest} bytes");
}

#[test]
fn another_player_conceding_does_not_restart_the_clock_of_the_player_on_turn() {
    let mut t = Table::new(3, options());
    t.turn(0, &[]);
    let deadline = Yut::deadline(&t.state);
    t.act(2, Action::Concede).unwrap();
    assert_eq!(Yut::deadline(&t.state), deadline);
    assert_eq!(t.current(), Some(t.p(0)));
}

#[test]
fn the_view_json_matches_its_snapshot_and_holds_nothing_hidden() {
    let mut t = Table::new(
        2,
        YutOptions {
            pieces: 2,
            ..options()
        },
    );
    let me = seat_to_move(&t);
    assert_eq!(me, 1, "seed 1 draws p1 to start");
    t.place(0, 0, node(3), &[1, 2, 3]);
    let events = t.throw(me);
    assert_eq!(
        serde_json::to_value(&events).unwrap(),
        serde_json::json!([
            {"type": "thrown", "player": "p1", "sticks": [true, true, true, true], "result": "yut"}
        ])
    );
    let view = serde_json::to_value(Yut::view(&t.state, Some(&t.p(1)))).unwrap();
    let home = serde_json::json!({"status": "home", "node": null, "lapped": false, "trail": []});
    let piece = |id: u8, base: &serde_json::Value| {
        let mut p = base.clone();
        p["id"] = id.into();
        p
    };
    assert_eq!(
        view,
        serde_json::json!({
            "options": {
                "ruleset": "yutMd", "mode": "individual", "playerLimits": "yutMd", "pieces": 2,
                "stickModel": "realistic", "backdo": true, "backdoFromDo": "chammeogi",
                "finishRule": "pass", "nakPercent": 0, "backdoCaptureBonus": true,
                "captureBonusOnYutMo": true, "ranking": "first", "turnSeconds": 30,
                "turnCapSeconds": null, "timeoutPolicy": "yutMd", "idleTurnsToAuto": null,
                "endMode": "finish", "onLeave": "concede", "hints": false, "chat": "on"
            },
            "players": ["p0", "p1"],
            "sideOf": {"p0": 0, "p1": 1},
            "sides": [
                {
                    "id": 0, "name": "p0", "members": ["p0"], "color": "red", "shape": "circle",
                    "pieces": [
                        {"id": 0, "status": "board", "node": 3, "lapped": false, "trail": [1, 2, 3]},
                        piece(1, &home),
                    ],
                    "finishedRank": null, "conceded": false, "remainingDistance": 21
                },
                {
                    "id": 1, "name": "p1", "members": ["p1"], "color": "blue",
                    "shape": "triangle",
                    "pieces": [piece(0, &home), piece(1, &home)],
                    "finishedRank": null, "conceded": false, "remainingDistance": 24
                }
            ],
            "turnOrder": ["p1", "p0"],
            "turnIndex": 0,
            "currentPlayer": "p1",
            "phase": "throw",
            "throwsOwed": 1,
            "pending": ["yut"],
            "lastThrow": {"sticks": [true, true, true, true], "result": "yut"},
            "turnSeq": 0,
            "deadlineAt": 31_000,
            "log": [
                {"type": "thrown", "player": "p1", "sticks": [true, true, true, true], "result": "yut"}
            ],
            "away": {"p0": false, "p1": false},
            "conceded": {"p0": false, "p1": false},
            "control": {"p0": "player", "p1": "player"},
            "turnStartedAt": 0,
            "timeUpAt": null,
            "recommendations": [],
            "legalMoves": []
        })
    );
}
