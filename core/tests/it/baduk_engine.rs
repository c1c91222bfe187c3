//! Engine behaviour beyond the §10 checklist: requests, draw offers, error codes, clocks of
//! the other kinds, colour assignment, and the JSON shapes of views and results.

use crate::baduk_common;

use baduk_common::{Table, options};
use madang_core::baduk::{
    Baduk, BadukAction, BadukError, BadukEvent, BadukOptions, Color, EndReason, Phase,
};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId, RuleError};

#[test]
fn a_declined_draw_offer_may_be_repeated_only_after_five_own_moves() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.act(Color::Black, BadukAction::OfferDraw {}).unwrap();
    assert_eq!(
        t.act(Color::Black, BadukAction::OfferDraw {}).unwrap_err(),
        BadukError::RequestPending
    );
    t.act(Color::White, BadukAction::RespondDraw { accept: false })
        .unwrap();
    assert_eq!(
        t.act(Color::Black, BadukAction::OfferDraw {}).unwrap_err(),
        BadukError::DrawNotAllowed
    );
    for (i, label) in ["A1", "J9", "B1", "H9", "C1", "G9", "D1", "F9"]
        .iter()
        .enumerate()
    {
        t.play(label).unwrap();
        if i == 6 {
            // Four own moves so far.
            assert_eq!(
                t.act(Color::Black, BadukAction::OfferDraw {}).unwrap_err(),
                BadukError::DrawNotAllowed
            );
        }
    }
    t.play("E1").unwrap(); // the fifth
    t.act(Color::Black, BadukAction::OfferDraw {}).unwrap();
}

#[test]
fn moving_instead_of_answering_declines_pending_requests() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.play("E5").unwrap();
    t.act(Color::Black, BadukAction::RequestUndo {}).unwrap();
    t.act(Color::Black, BadukAction::OfferDraw {}).unwrap();
    let events = t.play("C3").unwrap();
    assert!(events.contains(&BadukEvent::UndoDeclined {
        by: Color::Black,
        auto: true
    }));
    assert!(events.contains(&BadukEvent::DrawDeclined {
        by: Color::Black,
        auto: true
    }));
    assert!(t.state.undo().pending.is_none() && t.state.draw().pending_by.is_none());
    assert_eq!(
        t.act(Color::White, BadukAction::RespondUndo { accept: true })
            .unwrap_err(),
        BadukError::NoPendingRequest
    );
    // An auto-declined offer counts as declined for the spacing.
    assert_eq!(
        t.act(Color::Black, BadukAction::OfferDraw {}).unwrap_err(),
        BadukError::DrawNotAllowed
    );
}

#[test]
fn an_accepted_draw_ends_the_game_with_both_players_first() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.act(Color::White, BadukAction::OfferDraw {}).unwrap();
    assert_eq!(
        t.act(Color::White, BadukAction::RespondDraw { accept: true })
            .unwrap_err(),
        BadukError::NoPendingRequest,
        "one cannot accept one's own offer"
    );
    t.act(Color::Black, BadukAction::RespondDraw { accept: true })
        .unwrap();
    let result = Baduk::result(&t.state).unwrap();
    assert_eq!(
        (result.reason, result.winner),
        (EndReason::DrawAgreed, None)
    );
    assert!(result.ranking.iter().all(|r| r.rank == 1));
    assert_eq!(result.summary_ko, "무승부 (합의)");
    let mut off = Table::new(r#"{"boardSize": 9, "drawOffer": false}"#);
    assert_eq!(
        off.act(Color::Black, BadukAction::OfferDraw {})
            .unwrap_err(),
        BadukError::DrawNotAllowed
    );
}

#[test]
fn undo_is_refused_when_off_used_up_or_without_an_own_move_b4() {
    let mut t = Table::new(r#"{"boardSize": 9, "undo": "off"}"#);
    t.play("E5").unwrap();
    let err = t
        .act(Color::Black, BadukAction::RequestUndo {})
        .unwrap_err();
    assert_eq!(err.code(), "UNDO_NOT_ALLOWED");

    let mut t = Table::new(r#"{"boardSize": 9, "undo": 1}"#);
    assert_eq!(
        t.act(Color::White, BadukAction::RequestUndo {})
            .unwrap_err(),
        BadukError::UndoNotAllowed
    );
    t.play("E5").unwrap();
    t.act(Color::Black, BadukAction::RequestUndo {}).unwrap();
    assert_eq!(
        t.state.undo().pending.unwrap().plies,
        1,
        "white has not replied yet"
    );
    t.act(Color::White, BadukAction::RespondUndo { accept: true })
        .unwrap();
    assert!(t.state.moves().is_empty());
    assert_eq!(t.state.turn(), Color::Black);
    t.play("E5").unwrap();
    assert_eq!(
        t.act(Color::Black, BadukAction::RequestUndo {})
            .unwrap_err(),
        BadukError::UndoNotAllowed
    );
}

#[test]
fn a_request_can_be_cancelled_only_by_its_sender() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.play("E5").unwrap();
    t.act(Color::Black, BadukAction::RequestUndo {}).unwrap();
    assert_eq!(
        t.act(Color::White, BadukAction::CancelOffer {})
            .unwrap_err(),
        BadukError::NoPendingRequest
    );
    t.act(Color::Black, BadukAction::CancelOffer {}).unwrap();
    assert!(t.state.undo().pending.is_none());
    t.act(Color::White, BadukAction::RespondDraw { accept: false })
        .unwrap_err();
}

#[test]
fn refusals_carry_their_codes_in_the_order_of_the_checks() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    let stranger = PlayerId::new("guest");
    let err = Baduk::apply(
        &mut t.state,
        Actor::Player(&stranger),
        &BadukAction::Pass {},
        &mut t.rng,
        t.now,
    )
    .unwrap_err();
    assert_eq!(err.code(), "NOT_A_PLAYER");
    assert_eq!(
        t.act(Color::White, BadukAction::Place { x: 0, y: 0 })
            .unwrap_err()
            .code(),
        "NOT_YOUR_TURN"
    );
    assert_eq!(
        t.act(Color::Black, BadukAction::Place { x: 9, y: 0 })
            .unwrap_err()
            .code(),
        "OFF_BOARD"
    );
    assert_eq!(
        t.act(Color::Black, BadukAction::Place { x: -1, y: 3 })
            .unwrap_err()
            .code(),
        "OFF_BOARD"
    );
    t.play("E5").unwrap();
    assert_eq!(t.play("E5").unwrap_err().code(), "OCCUPIED");
    assert_eq!(
        t.act(Color::White, BadukAction::AgreeScore {})
            .unwrap_err()
            .code(),
        "WRONG_PHASE"
    );
    assert_eq!(
        t.act(Color::White, BadukAction::ToggleDead { x: 4, y: 4 })
            .unwrap_err()
            .code(),
        "WRONG_PHASE"
    );
    t.pass().unwrap();
    t.pass().unwrap();
    assert_eq!(
        t.act(Color::White, BadukAction::ToggleDead { x: 0, y: 0 })
            .unwrap_err()
            .code(),
        "NO_STONE"
    );
    assert_eq!(
        t.act(Color::White, BadukAction::ToggleSeki { x: 4, y: 4 })
            .unwrap_err()
            .code(),
        "NOT_EMPTY"
    );
    assert_eq!(
        t.act(Color::White, BadukAction::RequestUndo {})
            .unwrap_err()
            .code(),
        "WRONG_PHASE"
    );
    t.act(Color::White, BadukAction::Resign {}).unwrap();
    assert_eq!(Baduk::result(&t.state).unwrap().summary_ko, "흑 불계승");
    assert_eq!(t.pass().unwrap_err().code(), "GAME_OVER");
    assert!(Baduk::active_players(&t.state).is_empty());
    assert_eq!(Baduk::deadline(&t.state), None);
}

#[test]
fn seki_marks_toggle_by_region_and_reset_agreement() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.play("E5").unwrap();
    t.pass().unwrap();
    t.pass().unwrap();
    t.act(Color::Black, BadukAction::AgreeScore {}).unwrap();
    t.act(Color::White, BadukAction::ToggleSeki { x: 8, y: 8 })
        .unwrap();
    let marks = t.state.marks().unwrap();
    assert_eq!(
        marks.seki,
        vec![0],
        "the region is named by its smallest index"
    );
    assert!(!marks.agreed.black);
    t.act(Color::Black, BadukAction::ToggleSeki { x: 0, y: 0 })
        .unwrap();
    assert!(t.state.marks().unwrap().seki.is_empty());
}

#[test]
fn fischer_and_untimed_games_have_their_own_deadlines() {
    let mut t = Table::new(
        r#"{"boardSize": 9, "timeControl": {"kind": "fischer", "mainSec": 60, "incSec": 5}}"#,
    );
    let start = t.state.clock().turn_started_at;
    assert_eq!(Baduk::deadline(&t.state), Some(start + 60_000));
    t.play("E5").unwrap();
    assert_eq!(t.state.clock().main_ms.black, 60_000 - 1_000 + 5_000);
    let mut t =
        Table::new(r#"{"boardSize": 9, "timeControl": {"kind": "none"}, "idleLimitSec": 300}"#);
    let start = t.state.clock().turn_started_at;
    assert_eq!(Baduk::deadline(&t.state), Some(start + 300_000));
    t.now = start + 300_001;
    assert_eq!(t.play("E5").unwrap_err(), BadukError::TimeExpired);
}

#[test]
fn exactly_two_players_are_seated_and_colours_follow_the_assignment() {
    let o = BadukOptions::default();
    assert_eq!(Baduk::max_players(&o), 2);
    assert!(Baduk::validate_options(&o, None).is_ok());
    assert_eq!(
        Baduk::validate_options(&o, Some(3)).unwrap_err().field,
        "players"
    );
    assert!(Baduk::validate_options(&o, Some(2)).is_ok());
    let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
    let lineup = Lineup {
        players: vec![a.clone(), b.clone()],
        host: a.clone(),
    };
    let mut rng = GameRng::seed_from_u64(1);
    let white = options(r#"{"colorAssignment": "hostWhite"}"#);
    let s = Baduk::setup(&lineup, &white, &mut rng, 0).unwrap();
    assert_eq!((&s.players().black, &s.players().white), (&b, &a));
    let lonely = Lineup {
        players: vec![a.clone()],
        host: a.clone(),
    };
    assert!(Baduk::setup(&lonely, &o, &mut rng, 0).is_err());
    let absent_host = Lineup {
        players: vec![a.clone(), b.clone()],
        host: PlayerId::new("c"),
    };
    assert_eq!(
        Baduk::setup(&absent_host, &white, &mut rng, 0)
            .unwrap_err()
            .field,
        "colorAssignment"
    );
}

#[test]
fn a_stone_that_leaves_an_opponent_chain_one_liberty_raises_an_atari_hint() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.build(&[(4, 3), (3, 4)], &[(4, 4)]);
    let events = t.play_at(5, 4).unwrap();
    assert!(events.contains(&BadukEvent::Atari {
        color: Color::White,
        stones: vec![madang_core::baduk::Point::new(4, 4)],
    }));
    let view = serde_json::to_value(Baduk::view(&t.state, Some(&t.white))).unwrap();
    assert_eq!(view["atariWarnings"], serde_json::json!([{"x": 4, "y": 4}]));
    let mut quiet = Table::new(r#"{"boardSize": 9, "atariWarning": false}"#);
    quiet.build(&[(4, 3), (3, 4)], &[(4, 4)]);
    let events = quiet.play_at(5, 4).unwrap();
    assert!(!events.iter().any(|e| matches!(e, BadukEvent::Atari { .. })));
}

#[test]
fn integer_komi_can_end_in_jigo() {
    let mut t = Table::new(r#"{"boardSize": 9, "komi": 0}"#);
    t.pass().unwrap();
    t.pass().unwrap();
    t.act(Color::Black, BadukAction::AgreeScore {}).unwrap();
    t.act(Color::White, BadukAction::AgreeScore {}).unwrap();
    let result = Baduk::result(&t.state).unwrap();
    assert_eq!((result.reason, result.winner), (EndReason::Jigo, None));
    assert_eq!(result.summary_ko, "빅 (무승부)");
}

#[test]
fn views_and_results_have_the_spec_json_shapes() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.play("E5").unwrap();
    let view = serde_json::to_value(Baduk::view(&t.state, None)).unwrap();
    assert_eq!(view["board"][4 * 9 + 4], 1);
    assert_eq!(view["players"]["black"], "hana");
    assert_eq!(
        view["captures"],
        serde_json::json!({"black": 0, "white": 0})
    );
    assert_eq!(
        view["moves"][0],
        serde_json::json!({"kind": "place", "color": "black", "pt": {"x": 4, "y": 4}, "captured": []})
    );
    assert_eq!(view["phase"], "playing");
    assert!(view["deadlineAt"].is_u64());
    assert_eq!(
        view["clock"]["periodsLeft"],
        serde_json::json!({"black": 3, "white": 3})
    );
    t.pass().unwrap();
    t.pass().unwrap();
    let view = serde_json::to_value(Baduk::view(&t.state, None)).unwrap();
    assert_eq!(view["scoringMarks"]["preview"]["method"], "territory");
    t.act(Color::Black, BadukAction::AgreeScore {}).unwrap();
    t.act(Color::White, BadukAction::AgreeScore {}).unwrap();
    assert_eq!(t.state.phase(), Phase::Finished);
    let result = serde_json::to_value(Baduk::result(&t.state).unwrap()).unwrap();
    assert_eq!(
        result["ranking"][0],
        serde_json::json!({"playerId": "hana", "rank": 1})
    );
    assert_eq!(result["winner"], "black");
    assert_eq!(result["reason"], "score");
    let score = &result["score"];
    assert_eq!(score["black"]["territory"], 80);
    assert_eq!(score["white"]["komi"], 6.5);
    assert_eq!(score["white"]["handicapComp"], 0);
    assert_eq!(score["margin"], 73.5);
    assert_eq!(score["ownership"].as_array().unwrap().len(), 81);
    assert_eq!(result["summaryKo"], "흑 73집 반 승");
}
