//! The rules page's house rules (`spec/yut-rules-page.md`, ruling Y16), one named test per rule,
//! each played through `Yut::apply` (and, for bots, through the room's play-out, as the server's thinker runs it) under the
//! `rulesPage` preset unless the test says otherwise.
//!
//! Positions that would take many random throws to reach are arranged with the state's test
//! helpers, as in `yut_checklist.rs`.

use crate::support;

use madang_core::room::{
    BOT_THINK_MAX_MS, BOT_THINK_MIN_MS, LobbyAction, Presence, Room, RoomAction, Status, TokenHash,
};
use madang_core::yut::{
    Action, Control, EndMode, Event, Mode, Phase, Position, Ruleset, Throw, Toss, Yut, YutError,
    YutOptions,
};
use madang_core::{Actor, Game, GameRng, Millis, PlayerId};
use strum::VariantArray;
use support::{Table, node};

use Throw::{Backdo, Do, Gae, Geol, Mo, Yut as YutThrow};

fn page() -> YutOptions {
    YutOptions::preset(Ruleset::RulesPage)
}

fn page_team() -> YutOptions {
    YutOptions {
        mode: Mode::Team,
        ..page()
    }
}

fn seat_to_move(t: &Table) -> usize {
    let p = t.current().unwrap();
    t.state.seat_of(&p).unwrap().into()
}

fn bonus_throws(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::BonusThrow { .. }))
        .count()
}

/// Fires the one timeout that is due by `until`, at its own deadline, the way the room's
/// catch-up does. Returns `None` when nothing is due.
fn fire_next(t: &mut Table, until: Millis) -> Option<Vec<Event>> {
    let due = Yut::deadline(&t.state).filter(|&d| d <= until)?;
    let player = t.current()?;
    let action = Yut::on_timeout(&t.state, &player, due)?;
    t.now = t.now.max(due);
    Some(
        Yut::apply(
            &mut t.state,
            Actor::Timeout(&player),
            &action,
            &mut t.rng,
            due,
        )
        .unwrap(),
    )
}

/// Fires every timeout due by `until`; returns the events and the times they fired at.
fn fire_due(t: &mut Table, until: Millis) -> Vec<(Millis, Event)> {
    let mut fired = Vec::new();
    for _ in 0..1_000 {
        let Some(at) = Yut::deadline(&t.state).filter(|&d| d <= until) else {
            break;
        };
        let Some(events) = fire_next(t, until) else {
            break;
        };
        fired.extend(events.into_iter().map(|e| (at, e)));
    }
    fired
}

/// Acts for `seat` at exactly `at`.
fn act_at(t: &mut Table, seat: usize, action: Action, at: Millis) -> Vec<Event> {
    let player = t.p(seat);
    t.now = at;
    Yut::apply(
        &mut t.state,
        Actor::Player(&player),
        &action,
        &mut t.rng,
        at,
    )
    .unwrap()
}

// Player counts ─────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_individual_games_seat_2_to_6_players_in_six_distinct_colors_and_shapes() {
    for n in 2..=6 {
        assert!(
            Yut::validate_options(&page(), Some(n)).is_ok(),
            "{n} players"
        );
    }
    assert_eq!(
        Yut::validate_options(&page(), Some(7)).unwrap_err().field,
        "mode"
    );
    assert_eq!(Yut::max_players(&page()), 6);

    let t = Table::new(6, page());
    assert_eq!(t.state.sides().len(), 6);
    let view = Yut::view(&t.state, None);
    let colors: std::collections::HashSet<_> = view.sides.iter().map(|s| s.color).collect();
    let shapes: std::collections::HashSet<_> = view.sides.iter().map(|s| s.shape).collect();
    assert_eq!((colors.len(), shapes.len()), (6, 6));
    assert_eq!(t.state.turn_order().count(), 6);
}

#[test]
fn y16_team_games_are_2_against_2_or_3_against_3() {
    for n in [4, 6] {
        assert!(Yut::validate_options(&page_team(), Some(n)).is_ok());
    }
    for n in [2, 3, 5, 8] {
        assert_eq!(
            Yut::validate_options(&page_team(), Some(n))
                .unwrap_err()
                .field,
            "mode"
        );
    }
    let t = Table::new(6, page_team());
    let order: Vec<u8> = t
        .state
        .turn_order()
        .map(|p| t.state.side_of(p).unwrap())
        .collect();
    assert!(
        order.windows(2).all(|w| w[0] != w[1]),
        "teams alternate: {order:?}"
    );
    assert_eq!(order.len(), 6);
}

// Sticks ────────────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_stick_odds_are_those_of_the_page_3_6_4_1_1_1_in_16() {
    let expected = [3.0, 6.0, 4.0, 1.0, 1.0, 1.0].map(|n: f64| n / 16.0);
    let mut rng = GameRng::seed_from_u64(16);
    let mut counts = [0u32; 6];
    const N: u32 = 100_000;
    for _ in 0..N {
        let result = Toss::draw(&mut rng, &page()).result().unwrap();
        counts[result as usize] += 1;
    }
    for (i, throw) in Throw::VARIANTS.iter().enumerate() {
        let freq = f64::from(counts[i]) / f64::from(N);
        assert!(
            (freq - expected[i]).abs() <= 0.005,
            "{throw}: {freq} vs {}",
            expected[i]
        );
    }
}

// Capture bonus ─────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_capturing_with_yut_or_mo_gives_no_extra_throw() {
    for (throw, at) in [(YutThrow, 4), (Mo, 5)] {
        let mut t = Table::new(2, page());
        t.place(1, 0, node(at), &[1, 2, 3, 4, 5][..usize::from(at)]);
        t.turn(0, &[throw]);
        let events = t.mv(0, 0, Position::Home);
        assert!(events.iter().any(|e| matches!(e, Event::Captured { .. })));
        assert_eq!(bonus_throws(&events), 0, "{throw} captures without a bonus");
        assert_eq!(t.current(), Some(t.p(1)), "the turn passes");

        // Under yut.md the same capture earns one.
        let mut t = Table::new(2, YutOptions::default());
        t.place(1, 0, node(at), &[1, 2, 3, 4, 5][..usize::from(at)]);
        t.turn(0, &[throw]);
        assert_eq!(bonus_throws(&t.mv(0, 0, Position::Home)), 1);
    }
}

#[test]
fn y16_capturing_with_do_gae_geol_or_backdo_gives_one_extra_throw() {
    for (throw, from, trail) in [
        (Do, Position::Home, &[][..]),
        (Gae, Position::Home, &[][..]),
        (Geol, Position::Home, &[][..]),
        (Backdo, node(3), &[1, 2, 3][..]),
    ] {
        let mut t = Table::new(2, page());
        let target = if throw == Backdo {
            2
        } else {
            throw.steps() as u8
        };
        t.place(1, 0, node(target), &[target]);
        if let Position::Board(_) = from {
            t.place(0, 0, from, trail);
        }
        t.turn(0, &[throw]);
        let events = t.mv(0, 0, from);
        assert!(events.iter().any(|e| matches!(e, Event::Captured { .. })));
        assert_eq!(bonus_throws(&events), 1, "{throw}");
        assert_eq!((t.state.phase(), t.state.throws_owed()), (Phase::Throw, 1));
        assert_eq!(t.current(), Some(t.p(0)));
    }
}

#[test]
fn y16_capturing_a_stack_of_several_pieces_still_gives_one_extra_throw() {
    let mut t = Table::new(2, page());
    t.place(1, 0, node(2), &[1, 2]);
    t.place(1, 1, node(2), &[1, 2]);
    t.place(1, 2, node(2), &[1, 2]);
    t.turn(0, &[Gae]);
    let events = t.mv(0, 0, Position::Home);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Captured { count: 3, .. }))
    );
    assert_eq!(bonus_throws(&events), 1);
    assert_eq!(t.state.throws_owed(), 1);
}

// 빽도 ──────────────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_backdo_on_the_first_spot_sends_the_piece_home_and_breaks_the_stack_up() {
    let mut t = Table::new(2, page());
    t.place(0, 0, node(1), &[1]);
    t.place(0, 1, node(1), &[1]);
    t.place(1, 0, node(9), &[9]);
    t.turn(0, &[Backdo]);
    let events = t.mv(0, 0, node(1));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Moved {
            to: Position::Home,
            count: 2,
            ..
        }
    )));
    for piece in 0..2 {
        assert_eq!(t.at(0, piece), Position::Home);
        assert!(t.state.sides()[0].pieces()[piece].trail().is_empty());
    }
    // Waiting pieces enter one at a time again: the stack is gone.
    t.turn(0, &[Do]);
    t.mv(0, 0, Position::Home);
    assert_eq!(t.state.sides()[0].count_at(madang_core::yut::Node::DO), 1);
}

#[test]
fn y16_backdo_with_no_piece_on_the_board_is_skipped_unless_another_result_enters_one_first() {
    // Alone: discarded, the turn passes.
    let mut t = Table::rigged(2, page(), &[Some(Backdo)]);
    let me = seat_to_move(&t);
    let events = t.throw(me);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Discarded { throws } if throws == &[Backdo]))
    );
    assert_ne!(t.current(), Some(t.p(me)));

    // With 윷 thrown first: 윷 enters a piece, then 빽도 is used on it.
    let mut t = Table::rigged(2, page(), &[Some(YutThrow), Some(Backdo)]);
    let me = seat_to_move(&t);
    let side = t.state.side_of(&t.p(me)).unwrap();
    t.throw(me);
    t.throw(me);
    assert_eq!(t.state.pending(), [YutThrow, Backdo]);
    let moves = t.state.legal_moves();
    assert!(moves.iter().all(|m| m.throw_index == 0), "빽도 waits");
    t.use_throw(me, YutThrow, Position::Home);
    assert_eq!(t.state.phase(), Phase::Move, "빽도 is not discarded");
    t.use_throw(me, Backdo, node(4));
    assert_eq!(t.at(side, 0), node(3));
}

// Timers ────────────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_each_throw_and_each_move_has_20_seconds_by_default_and_30_or_60_can_be_chosen() {
    let t = Table::new(2, page());
    assert_eq!(Yut::deadline(&t.state), Some(20_000));
    for seconds in [30, 60] {
        let o = YutOptions {
            turn_seconds: Some(seconds),
            ..page()
        };
        assert!(o.validate(Some(2)).is_ok());
        let t = Table::new(2, o);
        assert_eq!(Yut::deadline(&t.state), Some(u64::from(seconds) * 1000));
    }
    // Each action restarts the clock for the next one.
    let mut t = Table::rigged(2, page(), &[Some(Gae)]);
    let me = seat_to_move(&t);
    act_at(&mut t, me, Action::Throw, 12_000);
    assert_eq!(Yut::deadline(&t.state), Some(32_000));
    // A timeout throws, or moves by the page's order.
    let fired = fire_due(&mut t, 32_000);
    assert!(
        fired
            .iter()
            .any(|(at, e)| *at == 32_000 && matches!(e, Event::Moved { .. }))
    );
}

#[test]
fn y16_after_90_seconds_from_the_start_of_a_turn_everything_left_in_it_is_auto_played() {
    let mut t = Table::rigged(2, page(), &[Some(YutThrow), Some(Mo), Some(Do)]);
    let me = seat_to_move(&t);
    let other = 1 - me;
    act_at(&mut t, me, Action::Throw, 15_000);
    act_at(&mut t, me, Action::Throw, 30_000);
    act_at(&mut t, me, Action::Throw, 45_000);
    assert_eq!(t.state.pending(), [YutThrow, Mo, Do]);
    act_at(
        &mut t,
        me,
        Action::Move {
            throw_index: 1,
            from: Position::Home,
        },
        60_000,
    );
    assert_eq!(Yut::deadline(&t.state), Some(80_000), "20 s per action");
    act_at(
        &mut t,
        me,
        Action::Move {
            throw_index: 1,
            from: node(5),
        },
        75_000,
    );
    assert_eq!(
        Yut::deadline(&t.state),
        Some(90_000),
        "the 90-second cap comes before the next 20 seconds"
    );
    assert_eq!(t.state.pending(), [YutThrow]);

    let fired = fire_due(&mut t, 95_000);
    assert!(fired.iter().all(|(at, _)| *at == 90_000), "{fired:?}");
    assert!(
        fired
            .iter()
            .any(|(_, e)| matches!(e, Event::TurnChanged { .. }))
    );
    assert!(t.state.pending().is_empty(), "the pending 윷 was played");
    assert_eq!(t.current(), Some(t.p(other)));
    assert_eq!(t.state.turn_started_at(), 90_000);
    assert_eq!(Yut::deadline(&t.state), Some(110_000));
}

#[test]
fn y16_the_auto_move_order_is_finish_then_capture_then_farthest_and_auto_moves_stack() {
    let auto = |t: &Table| Yut::on_timeout(&t.state, &t.p(0), 0).unwrap();
    let mv = |throw_index, from| Action::Move { throw_index, from };

    // Finishing first (with the most steps among the finishing moves), although 개 could capture.
    let mut t = Table::new(2, page());
    t.place(0, 0, node(19), &[16, 17, 18, 19]);
    t.place(0, 1, node(3), &[1, 2, 3]);
    t.place(1, 0, node(5), &[1, 2, 3, 4, 5]);
    t.turn(0, &[Gae, Mo]);
    assert_eq!(auto(&t), mv(1, node(19)));

    // Then capturing, by the farthest capturing move (모 from home rather than 개 from 3).
    let mut t = Table::new(2, page());
    t.place(0, 1, node(3), &[1, 2, 3]);
    t.place(1, 0, node(5), &[1, 2, 3, 4, 5]);
    t.turn(0, &[Gae, Mo]);
    assert_eq!(auto(&t), mv(1, Position::Home));

    // Then the farthest: most steps, then the destination nearest the goal — here entering
    // onto 3, which stacks like a manual move.
    let mut t = Table::new(2, page());
    t.place(0, 1, node(3), &[1, 2, 3]);
    t.turn(0, &[Do, Geol]);
    let action = auto(&t);
    assert_eq!(action, mv(1, Position::Home));
    let p0 = t.p(0);
    let events = Yut::apply(&mut t.state, Actor::Timeout(&p0), &action, &mut t.rng, 1).unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Stacked { count: 2, .. }))
    );

    // Most steps beats a nearer destination: 걸 from 4 to 7 rather than 도 from 4 onto the
    // corner 5, from where the shortcut is closer to the goal.
    let mut t = Table::new(2, page());
    t.place(0, 0, node(4), &[1, 2, 3, 4]);
    for piece in 1..4 {
        t.place(0, piece, Position::Goal, &[]);
    }
    t.turn(0, &[Do, Geol]);
    assert_eq!(auto(&t), mv(1, node(4)));
}

// Auto play ─────────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_three_turns_in_a_row_without_an_own_action_switch_the_seat_to_auto_play() {
    let mut t = Table::new(2, page());
    let first = t.current().unwrap();
    let mut ended_turns = 0;
    let mut switched = None;
    for _ in 0..500 {
        let on_turn = t.current().unwrap();
        let events = fire_next(&mut t, Millis::MAX).unwrap();
        if events
            .iter()
            .any(|e| matches!(e, Event::TurnChanged { .. }))
            && on_turn == first
        {
            ended_turns += 1;
        }
        if let Some(Event::AutoPlay { player, auto: true }) = events
            .iter()
            .find(|e| matches!(e, Event::AutoPlay { auto: true, .. }))
        {
            switched = Some((player.clone(), ended_turns));
            break;
        }
    }
    assert_eq!(switched, Some((first.clone(), 3)));
    assert_eq!(t.state.control(&first), Control::Auto);
    let view = Yut::view(&t.state, None);
    assert_eq!(view.control[&first], Control::Auto);

    // From now on their turns play themselves at once: the deadline is the turn's start.
    while t.current() != Some(first.clone()) {
        fire_next(&mut t, Millis::MAX).unwrap();
    }
    assert_eq!(Yut::deadline(&t.state), Some(t.state.turn_started_at()));
}

#[test]
fn y16_an_own_action_resets_the_idle_count() {
    let mut t = Table::new(2, page());
    let first = t.current().unwrap();
    let seat: usize = t.state.seat_of(&first).unwrap().into();
    // Two idle turns, then one where they throw themselves, then two more idle: still theirs.
    let mut own_turns = 0;
    for _ in 0..2_000 {
        if t.state.phase() == Phase::Finished || own_turns == 5 {
            break;
        }
        let on_turn = t.current().unwrap();
        let events = if on_turn == first && own_turns == 2 && t.state.phase() == Phase::Throw {
            let at = t.now;
            act_at(&mut t, seat, Action::Throw, at)
        } else {
            fire_next(&mut t, Millis::MAX).unwrap()
        };
        if on_turn == first
            && events
                .iter()
                .any(|e| matches!(e, Event::TurnChanged { .. }))
        {
            own_turns += 1;
        }
    }
    assert_eq!(own_turns, 5);
    assert_eq!(
        t.state.control(&first),
        Control::Player,
        "two idle turns after an active one are not three in a row"
    );
}

#[test]
fn y16_take_control_gives_the_seat_back_to_the_player() {
    let mut t = Table::new(2, page());
    let first = t.current().unwrap();
    let seat: usize = t.state.seat_of(&first).unwrap().into();
    let refused = t.act(seat, Action::TakeControl).unwrap_err();
    assert_eq!(refused, YutError::NotAutoPlaying);
    while t.state.control(&first) != Control::Auto {
        fire_next(&mut t, Millis::MAX).unwrap();
    }
    // Whoever is on turn, the player takes control back; their next turn waits for them.
    let at = t.now;
    let events = act_at(&mut t, seat, Action::TakeControl, at);
    assert_eq!(
        events[0],
        Event::AutoPlay {
            player: first.clone(),
            auto: false
        }
    );
    assert!(
        !t.state.is_away(&first),
        "an own action, so no longer away (Y15)"
    );
    assert_eq!(t.state.control(&first), Control::Player);
    while t.current() != Some(first.clone()) {
        fire_next(&mut t, Millis::MAX).unwrap();
    }
    assert_eq!(
        Yut::deadline(&t.state),
        Some(t.state.turn_started_at() + 20_000)
    );
}

// End modes ─────────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_finish_mode_ends_at_once_ignoring_remaining_results_and_ranks_only_the_winner() {
    let mut t = Table::new(3, page());
    for piece in 0..3 {
        t.place(1, piece, Position::Goal, &[]);
    }
    t.place(1, 3, node(19), &[18, 19]);
    t.place(2, 0, Position::Goal, &[]);
    t.turn(1, &[Gae, Mo]);
    let events = t.use_throw(1, Gae, node(19));
    assert!(matches!(events.last(), Some(Event::GameOver { .. })));
    assert_eq!(t.state.phase(), Phase::Finished);
    assert!(t.state.pending().is_empty(), "the 모 is ignored");
    let result = Yut::result(&t.state).unwrap();
    assert_eq!(result.winners, [t.p(1)]);
    let ranks: Vec<(u8, Option<u8>)> = result.ranking.iter().map(|s| (s.side, s.rank)).collect();
    assert_eq!(ranks, [(1, Some(1)), (2, None), (0, None)]);
}

#[test]
fn y16_a_timed_game_ends_after_the_round_in_progress_at_30_minutes_with_joint_winners() {
    let options = YutOptions {
        end_mode: EndMode::Timed,
        ..page()
    };
    let mut t = Table::new(3, options);
    assert_eq!(t.state.time_up_at(), Some(30 * 60_000));
    let order: Vec<PlayerId> = t.state.turn_order().cloned().collect();
    let side = |p: &PlayerId| t.state.side_of(p).unwrap();
    let (a, b, c) = (side(&order[0]), side(&order[1]), side(&order[2]));
    for piece in 0..3 {
        t.place(a, piece, Position::Goal, &[]);
        t.place(c, piece, Position::Goal, &[]);
    }
    t.place(b, 0, Position::Goal, &[]);

    // The first player's turn begins before the time is up and ends after it: the round
    // goes on, everyone gets their turn, and the game ends when the turn would come back.
    t.now = 30 * 60_000 - 1_000;
    t.state.debug_set_turn(&order[0], &[]);
    let mut ended = Vec::new();
    for _ in 0..200 {
        let Some(on_turn) = t.current() else { break };
        let action = Yut::on_timeout(&t.state, &on_turn, t.now).unwrap();
        t.now += 1_000;
        let events = Yut::apply(
            &mut t.state,
            Actor::Player(&on_turn),
            &action,
            &mut t.rng,
            t.now,
        )
        .unwrap();
        if events.iter().any(|e| {
            matches!(
                e,
                Event::TurnChanged { .. } | Event::TimeUp | Event::GameOver { .. }
            )
        }) {
            ended.push(on_turn.clone());
        }
        if events.iter().any(|e| matches!(e, Event::TimeUp)) {
            assert!(matches!(events.last(), Some(Event::GameOver { .. })));
        }
    }
    assert_eq!(ended, order, "one last full round, then the end");
    assert_eq!(t.state.phase(), Phase::Finished);
    assert_eq!(
        t.state.turn_index(),
        2,
        "the last turn shown is the round's last"
    );

    let result = Yut::result(&t.state).unwrap();
    let most = result.ranking.iter().map(|s| s.finished_pieces).max();
    let leaders: Vec<u8> = result
        .ranking
        .iter()
        .filter(|s| Some(s.finished_pieces) == most)
        .map(|s| s.side)
        .collect();
    let winners: Vec<u8> = result
        .ranking
        .iter()
        .filter(|s| s.rank == Some(1))
        .map(|s| s.side)
        .collect();
    assert_eq!(winners, leaders, "the most finished pieces win, together");
    assert!(winners.len() >= 2, "a tie is a joint win: {result:?}");
    assert!(result.summary.contains("공동 승리"), "{}", result.summary);
}

// Recommendations ───────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_a_teammate_recommends_a_move_seen_by_the_team_only_and_nothing_moves() {
    let mut t = Table::new(4, page_team());
    let mover = t.current().unwrap();
    let mover_seat: usize = t.state.seat_of(&mover).unwrap().into();
    let side = t.state.side_of(&mover).unwrap();
    let mate: usize = (mover_seat + 2) % 4;
    let rival: usize = (mover_seat + 1) % 4;
    let recommend = Action::Recommend {
        throw_index: 1,
        from: Position::Home,
    };

    // Not while throwing.
    assert_eq!(t.act(mate, recommend), Err(YutError::NotMovePhase));
    assert!(Yut::view(&t.state, Some(&t.p(mate))).legal_moves.is_none());
    t.turn(mover_seat, &[Do, Geol]);
    // The teammate picks among the moves of the player to move: they see the same legalMoves;
    // the other team and spectators do not.
    let moves = Yut::view(&t.state, Some(&mover)).legal_moves;
    assert!(moves.as_ref().is_some_and(|m| !m.is_empty()));
    assert_eq!(Yut::view(&t.state, Some(&t.p(mate))).legal_moves, moves);
    for viewer in [Some(t.p(rival)), Some(t.p((rival + 2) % 4)), None] {
        assert!(Yut::view(&t.state, viewer.as_ref()).legal_moves.is_none());
    }
    let before = t.state.clone();
    let events = t.act(mate, recommend).unwrap();
    assert_eq!(
        events,
        [Event::Recommended {
            player: t.p(mate),
            throw_index: 1,
            from: Position::Home,
            to: node(3),
        }]
    );
    assert_eq!(t.state.pending(), before.pending(), "nothing moved");
    assert_eq!(t.state.sides(), before.sides());
    assert_eq!(t.current(), Some(mover.clone()));

    for viewer in [mover_seat, mate] {
        let view = Yut::view(&t.state, Some(&t.p(viewer)));
        assert_eq!(view.recommendations.len(), 1);
        assert_eq!(view.recommendations[0].by, t.p(mate));
        assert_eq!(view.recommendations[0].to, node(3));
    }
    for viewer in [Some(t.p(rival)), Some(t.p((rival + 2) % 4)), None] {
        let view = serde_json::to_value(Yut::view(&t.state, viewer.as_ref())).unwrap();
        assert_eq!(view["recommendations"], serde_json::json!([]));
        assert!(
            !view.to_string().contains("recommended"),
            "the recommendation stays out of the public log: {view}"
        );
        assert!(
            !view
                .to_string()
                .contains(&format!("\"by\":\"{}\"", t.p(mate)))
        );
    }

    // Refused: the other team, the player to move, a move that cannot be made.
    assert_eq!(t.act(rival, recommend), Err(YutError::CannotRecommend));
    assert_eq!(t.act(mover_seat, recommend), Err(YutError::CannotRecommend));
    let impossible = Action::Recommend {
        throw_index: 0,
        from: node(7),
    };
    assert_eq!(t.act(mate, impossible), Err(YutError::IllegalMove));

    // The player to move plays it with an ordinary MOVE; the recommendation is then gone.
    t.mv(mover_seat, 1, Position::Home);
    assert_eq!(t.at(side, 0), node(3));
    assert!(t.state.recommendations().is_empty());
}

#[test]
fn y16_individual_games_have_no_recommendations() {
    let mut t = Table::new(3, page());
    let me = seat_to_move(&t);
    t.turn(me, &[Do]);
    let other = (me + 1) % 3;
    let action = Action::Recommend {
        throw_index: 0,
        from: Position::Home,
    };
    assert_eq!(t.act(other, action), Err(YutError::CannotRecommend));
}

// Bots ──────────────────────────────────────────────────────────────────────────────────────────

#[test]
fn y16_a_leaver_is_replaced_by_a_bot_on_the_same_seat_team_and_turn_order() {
    let mut t = Table::new(4, page_team());
    let order: Vec<PlayerId> = t.state.turn_order().cloned().collect();
    let leaver = t.current().unwrap();
    let side = t.state.side_of(&leaver);
    let events = Yut::leave(&mut t.state, &leaver, &mut t.rng, 7_000).unwrap();
    assert_eq!(
        events,
        [Event::ReplacedByBot {
            player: leaver.clone()
        }]
    );
    assert!(Yut::is_bot(&t.state, &leaver));
    assert_eq!(t.state.control(&leaver), Control::Bot);
    assert_eq!(t.state.turn_order().cloned().collect::<Vec<_>>(), order);
    assert_eq!(t.state.side_of(&leaver), side);
    assert!(!t.state.has_conceded(&leaver));
    assert_eq!(
        Yut::deadline(&t.state),
        Some(7_000),
        "a bot on turn plays at once"
    );
    // The bot plays its whole turn with the auto-move policy, then the next player waits.
    fire_due(&mut t, 7_000);
    assert_ne!(t.current(), Some(leaver.clone()));
    assert_eq!(Yut::deadline(&t.state), Some(27_000));

    // Under yut.md, leaving concedes.
    let mut t = Table::new(2, YutOptions::default());
    let p = t.p(0);
    let events = Yut::leave(&mut t.state, &p, &mut t.rng, 1).unwrap();
    assert!(events.iter().any(|e| matches!(e, Event::Conceded { .. })));
    assert_eq!(t.state.phase(), Phase::Finished);
}

fn started_room(options: YutOptions, n: usize) -> (Room<Yut>, Vec<PlayerId>) {
    let (mut room, host) = Room::<Yut>::create(
        "r".into(),
        "방장".into(),
        TokenHash::of("t0"),
        options,
        GameRng::seed_from_u64(6),
        0,
    )
    .unwrap();
    let mut players = vec![host.clone()];
    for i in 1..n {
        let token = TokenHash::of(&format!("t{i}"));
        players.push(room.join(format!("친구{i}"), token, 0).unwrap());
    }
    room.act(&host, RoomAction::Lobby(LobbyAction::Start), 0)
        .unwrap();
    (room, players)
}

#[test]
fn y16_a_game_left_to_bots_finishes_through_the_rooms_play_out_alone() {
    let (mut room, players) = started_room(page(), 3);
    for p in &players {
        room.act(p, RoomAction::Lobby(LobbyAction::Leave), 1_000)
            .unwrap();
    }
    let view = room.view(None, &Presence::new(), 1_000);
    assert!(view.players.iter().all(|p| p.bot && p.left));
    let mut calls = 0;
    while room.status() == Status::Playing {
        calls += 1;
        assert!(calls < 100, "play-out does not finish the game");
        let fired = room.play_out(1_000, &Presence::new());
        assert!(!fired.is_empty(), "every call makes progress");
    }
    let result = Yut::result(room.game.as_ref().unwrap()).unwrap();
    assert_eq!(result.winners.len(), 1);
    assert_eq!(room.due_at(&Presence::new()), None);
}

#[test]
fn y16_a_leaver_in_a_running_game_with_a_human_left_is_played_by_the_bot_between_human_turns() {
    let (mut room, players) = started_room(page(), 2);
    let (leaver, stayer) = (&players[0], &players[1]);
    room.act(leaver, RoomAction::Lobby(LobbyAction::Leave), 500)
        .unwrap();
    let mut presence = Presence::new();
    let mut now = 500;
    for _ in 0..5_000 {
        if room.status() == Status::Finished {
            break;
        }
        // The bot moves a think time after the room last changed, never sooner.
        let before = room.version;
        room.play_out(now + BOT_THINK_MIN_MS - 1, &presence);
        assert_eq!(room.version, before, "no bot move before its think time");
        // Each of its actions (a throw, a move) takes a think time of its own.
        for _ in 0..50 {
            let state = room.game.as_ref().unwrap();
            if state.current_player().is_none_or(|p| p == stayer) {
                break;
            }
            now += BOT_THINK_MAX_MS;
            presence.insert(stayer.clone(), now);
            room.play_out(now, &presence);
        }
        let state = room.game.as_ref().unwrap();
        let Some(on_turn) = state.current_player().cloned() else {
            break;
        };
        assert_eq!(
            &on_turn, stayer,
            "the bot never holds the turn past its think time"
        );
        let action = Yut::on_timeout(state, &on_turn, now).unwrap();
        now += 1_000;
        presence.insert(stayer.clone(), now);
        room.act(stayer, RoomAction::Game(action), now).unwrap();
        room.play_out(now, &presence);
    }
    assert_eq!(room.status(), Status::Finished);
    let bot_seat = room.view(None, &presence, now).players[0].clone();
    assert!(bot_seat.bot && bot_seat.left);
}

#[test]
fn y16_a_six_player_game_under_the_preset_keeps_its_stored_state_small() {
    let mut t = Table::new(6, page());
    let mut largest = 0;
    for _ in 0..20_000 {
        largest = largest.max(postcard::to_allocvec(&t.state).unwrap().len());
        if fire_next(&mut t, Millis::MAX).is_none() {
            break;
        }
    }
    assert_eq!(t.state.phase(), Phase::Finished);
    assert!(largest <= 600, "{largest} bytes");
}
