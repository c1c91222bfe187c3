//! Ruling B7: every 바둑 game ends. Each player resumes play from the scoring phase at most
//! twice, and the move that reaches the move limit (twice the points of the board, passes
//! counted) starts a scoring phase that cannot be resumed, so the game is counted as it stands.

use crate::baduk_common;

use baduk_common::Table;
use madang_core::baduk::limits::{RESUMES_PER_PLAYER, move_limit};
use madang_core::baduk::{
    Baduk, BadukAction, BadukError, BadukEvent, BadukState, Color, EndReason, Phase,
};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};
use proptest::prelude::*;

/// Plays random legal stones (a pass when a few hundred tries find none) until the game holds
/// `moves` moves or leaves play; resumes play after two passes while the mover may.
fn play_randomly(t: &mut Table, moves: usize, seed: &mut u64) -> Vec<BadukEvent> {
    let size = i32::from(t.state.options().size());
    let mut last = Vec::new();
    while t.state.moves().len() < moves && t.state.phase() == Phase::Playing {
        let placed = (0..300).find_map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            let index = (*seed % (size * size) as u64) as i32;
            let turn = t.state.turn();
            t.act(
                turn,
                BadukAction::Place {
                    x: index % size,
                    y: index / size,
                },
            )
            .ok()
        });
        last = match placed {
            Some(events) => events,
            None => t.pass().unwrap(),
        };
        if t.state.phase() == Phase::Scoring && !t.state.at_move_limit() {
            let turn = t.state.turn();
            if t.state.can_resume(turn) {
                t.act(turn, BadukAction::ResumePlay {}).unwrap();
            }
        }
    }
    last
}

#[test]
fn b7_each_player_may_resume_play_twice_and_is_then_refused_with_resume_limit() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    for round in 0..2 * RESUMES_PER_PLAYER {
        t.pass().unwrap();
        t.pass().unwrap();
        assert_eq!(t.state.phase(), Phase::Scoring);
        // Black and White take turns to dispute.
        let by = if round % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        assert!(t.state.can_resume(by));
        let view = Baduk::view(&t.state, None);
        let marks = view.scoring_marks.as_ref().unwrap();
        assert!(*marks.resumable.get(by));
        t.act(by, BadukAction::ResumePlay {}).unwrap();
        assert_eq!(t.state.phase(), Phase::Playing);
        assert_eq!(t.state.turn(), by.opponent());
    }
    assert_eq!(t.state.resumes().black, RESUMES_PER_PLAYER);
    assert_eq!(t.state.resumes().white, RESUMES_PER_PLAYER);
    t.pass().unwrap();
    t.pass().unwrap();
    let before = t.state.clone();
    for color in [Color::Black, Color::White] {
        let err = t.act(color, BadukAction::ResumePlay {}).unwrap_err();
        assert_eq!(err, BadukError::ResumeLimit);
        assert_eq!(madang_core::RuleError::code(&err), "RESUME_LIMIT");
        assert_eq!(
            err.to_string(),
            "대국 재개는 한 사람이 한 판에 두 번까지예요. 사석을 정해 계가해 주세요."
        );
    }
    assert_eq!(t.state, before, "a refused resume changes nothing");
    let view = Baduk::view(&t.state, None);
    assert_eq!(view.resumes_left.black, 0);
    assert_eq!(view.resumes_left.white, 0);
    let marks = view.scoring_marks.unwrap();
    assert!(!marks.resumable.black && !marks.resumable.white);
    // The count is still reached the usual way.
    t.act(Color::Black, BadukAction::AgreeScore {}).unwrap();
    t.act(Color::White, BadukAction::AgreeScore {}).unwrap();
    assert_eq!(t.state.phase(), Phase::Finished);
}

#[test]
fn b7_one_players_resumes_do_not_use_up_the_others() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    for _ in 0..RESUMES_PER_PLAYER {
        t.pass().unwrap();
        t.pass().unwrap();
        t.act(Color::White, BadukAction::ResumePlay {}).unwrap();
    }
    t.pass().unwrap();
    t.pass().unwrap();
    assert_eq!(
        t.act(Color::White, BadukAction::ResumePlay {}),
        Err(BadukError::ResumeLimit)
    );
    t.act(Color::Black, BadukAction::ResumePlay {}).unwrap();
    assert_eq!(t.state.phase(), Phase::Playing);
}

#[test]
fn b7_the_move_that_reaches_the_limit_starts_a_scoring_phase_that_cannot_be_resumed() {
    let mut t = Table::new(r#"{"boardSize": 9, "timeControl": {"kind": "none"}}"#);
    let limit = move_limit(t.state.options());
    assert_eq!(limit, 162);
    let mut seed = 0x2545_f491_4f6c_dd1d;
    let events = play_randomly(&mut t, limit, &mut seed);
    assert_eq!(
        t.state.moves().len(),
        limit,
        "random play reaches the limit"
    );
    assert!(t.state.at_move_limit());
    assert_eq!(t.state.phase(), Phase::Scoring);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, BadukEvent::MoveLimitReached { moves: 162 }))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, BadukEvent::ScoringStarted { .. }))
    );
    let view = Baduk::view(&t.state, None);
    assert_eq!(view.move_limit, 162);
    let marks = view.scoring_marks.unwrap();
    assert!(!marks.resumable.black && !marks.resumable.white);
    let before = t.state.clone();
    for color in [Color::Black, Color::White] {
        let err = t.act(color, BadukAction::ResumePlay {}).unwrap_err();
        assert_eq!(madang_core::RuleError::code(&err), "MOVE_LIMIT");
        assert_eq!(
            err.to_string(),
            "수 제한에 닿아 대국을 재개할 수 없어요. 사석을 정해 계가해 주세요."
        );
        assert_eq!(
            t.act(color, BadukAction::Pass {}),
            Err(BadukError::WrongPhase)
        );
    }
    assert_eq!(t.state, before, "refused actions change nothing");
    // Nobody agrees: at the scoring deadline the marks as they stand are counted.
    t.now += 300_000;
    t.timeout(Color::Black).unwrap();
    t.timeout(Color::White).unwrap();
    assert_eq!(t.state.phase(), Phase::Finished);
    let result = t.state.result().unwrap();
    assert!(matches!(result.reason, EndReason::Score | EndReason::Jigo));
    assert!(result.score.is_some(), "counted as it stands");
}

#[test]
fn b7_resumes_and_the_limit_survive_the_stored_form() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.pass().unwrap();
    t.pass().unwrap();
    t.act(Color::Black, BadukAction::ResumePlay {}).unwrap();
    let bytes = postcard::to_allocvec(&t.state).unwrap();
    let back: BadukState = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(back, t.state);
    assert_eq!(back.resumes().black, 1);
}

fn start() -> (BadukState, GameRng, [PlayerId; 2]) {
    let players = [PlayerId::new("a"), PlayerId::new("b")];
    let lineup = Lineup {
        players: players.to_vec(),
        host: players[0].clone(),
    };
    let options = baduk_common::options(
        r#"{"boardSize": 9, "undo": "unlimited", "timeControl": {"kind": "none"}}"#,
    );
    let mut rng = GameRng::seed_from_u64(7);
    let state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
    (state, rng, players)
}

/// What a player bent on never ending could send: mostly passes and resumes, some stones, an
/// undo now and then.
fn stubborn_action() -> impl Strategy<Value = BadukAction> {
    prop_oneof![
        6 => (0i32..9, 0i32..9).prop_map(|(x, y)| BadukAction::Place { x, y }),
        4 => Just(BadukAction::Pass {}),
        4 => Just(BadukAction::ResumePlay {}),
        1 => Just(BadukAction::RequestUndo {}),
        1 => Just(BadukAction::RespondUndo { accept: true }),
        1 => (0i32..9, 0i32..9).prop_map(|(x, y)| BadukAction::ToggleDead { x, y }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// B7 as an invariant: whatever the players send, the record never holds more than the
    /// move limit, nobody resumes more than twice, play never goes on at the limit, and once
    /// play cannot go on the system's timeouts end the game.
    #[test]
    fn b7_no_sequence_of_actions_outgrows_the_limits(
        steps in prop::collection::vec((any::<bool>(), stubborn_action()), 1..700),
    ) {
        let (mut state, mut rng, players) = start();
        let limit = move_limit(state.options());
        let mut now = 0;
        for (second, action) in steps {
            now += 500;
            let id = &players[usize::from(second)];
            let _ = Baduk::apply(&mut state, Actor::Player(id), &action, &mut rng, now);
            prop_assert!(state.moves().len() <= limit);
            prop_assert!(state.resumes().black <= RESUMES_PER_PLAYER);
            prop_assert!(state.resumes().white <= RESUMES_PER_PLAYER);
            if state.at_move_limit() {
                prop_assert_ne!(state.phase(), Phase::Playing);
            }
        }
        // However it stands, the system ends it: a time loss in play, the marks as they stand
        // in scoring.
        now += 3_600_000;
        for _ in 0..2 {
            for id in Baduk::active_players(&state) {
                if let Some(action) = Baduk::on_timeout(&state, &id, now) {
                    Baduk::apply(&mut state, Actor::Timeout(&id), &action, &mut rng, now).unwrap();
                }
            }
        }
        prop_assert_eq!(state.phase(), Phase::Finished);
    }
}
