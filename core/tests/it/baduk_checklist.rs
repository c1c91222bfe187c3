//! One test per item of `spec/baduk.md` §10, named as a sentence (rulings named where they apply).

use crate::baduk_common;

use baduk_common::{Table, ko_shape, options};
use madang_core::baduk::scoring::{self, score};
use madang_core::baduk::{
    Baduk, BadukAction, BadukError, BadukEvent, Board, ByColor, Color, EndReason, Phase, Point,
    handicap,
};
use madang_core::{Actor, Game, PlayerId, RuleError};

fn place(x: u8, y: u8) -> BadukAction {
    BadukAction::Place {
        x: i32::from(x),
        y: i32::from(y),
    }
}

// 1. 1점 따내기, 여러 연결 동시 따내기, 가장자리·귀에서 따내기.
#[test]
fn single_stones_several_chains_at_once_and_stones_on_the_edge_and_in_the_corner_are_captured() {
    // A single stone in the middle.
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.build(&[(3, 4), (5, 4), (4, 3)], &[(4, 4)]);
    let events = t.play_at(4, 5).unwrap();
    assert_eq!(t.at(4, 4), None);
    assert_eq!(t.state.position().captures(), ByColor::new(1, 0));
    assert!(events.contains(&BadukEvent::Captured {
        by: Color::Black,
        points: vec![Point::new(4, 4)],
    }));

    // Two white chains taken by one black stone on the top edge.
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    // White chains (1,0) and (3,0) on the top edge share the liberty (2,0).
    t.build(
        &[(0, 0), (1, 1), (3, 1), (4, 0)],
        &[(1, 0), (3, 0), (8, 8), (8, 7)],
    );
    assert_eq!(t.at(0, 0), Some(Color::Black));
    let events = t.play_at(2, 0).unwrap();
    assert_eq!((t.at(1, 0), t.at(3, 0)), (None, None));
    assert!(matches!(&events[0], BadukEvent::StonePlaced { captured, .. } if captured.len() == 2));

    // The corner: white (8,8) in atari from (7,8), taken at (8,7).
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.build(&[(7, 8)], &[(8, 8)]);
    t.play_at(8, 7).unwrap();
    assert_eq!(t.at(8, 8), None);
    assert_eq!(t.state.position().captures().black, 1);
}

// 2. 자충수 거부. 단, 놓는 순간 상대를 따내서 활로가 생기는 수는 합법.
#[test]
fn suicide_is_refused_but_a_stone_that_captures_to_gain_liberties_is_legal_b1() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.build(&[(1, 0), (0, 1)], &[(8, 8)]);
    t.play_at(7, 7).unwrap();
    assert_eq!(t.state.turn(), Color::White);
    let before = t.state.clone();
    let err = t.play_at(0, 0).unwrap_err();
    assert_eq!(
        (err.code(), err.to_string().as_str()),
        ("SUICIDE", "둘 곳의 활로가 없어 둘 수 없어요")
    );
    assert_eq!(t.state, before);

    // Black (1,0) and (0,1) each have the corner as their last liberty: white there captures.
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.build(&[(1, 0), (0, 1)], &[(2, 0), (1, 1)]);
    t.play_at(8, 8).unwrap();
    t.play_at(0, 2).unwrap();
    t.play_at(7, 7).unwrap();
    assert_eq!(t.state.turn(), Color::White);
    let events = t.play_at(0, 0).unwrap();
    assert!(matches!(&events[0], BadukEvent::StonePlaced { captured, .. } if captured.len() == 2));
    assert_eq!(t.at(0, 0), Some(Color::White));
}

// 3. 단순 패: 따낸 직후 바로 되따기 거부, 다른 곳 한 수(팻감) 후 되따기 허용.
#[test]
fn an_immediate_ko_retake_is_refused_and_allowed_after_a_move_elsewhere_b2() {
    for ko_rule in ["positionalSuperko", "korean"] {
        let mut t = Table::new(&format!(r#"{{"boardSize": 9, "koRule": "{ko_rule}"}}"#));
        let (black, white) = ko_shape(0, 0, true);
        t.build(&black, &white);
        t.play_at(2, 1).unwrap(); // black takes the ko
        assert_eq!(t.at(1, 1), None);
        let before = t.state.clone();
        let err = t.play_at(1, 1).unwrap_err();
        assert_eq!(err, BadukError::Ko, "{ko_rule}");
        assert_eq!(
            err.to_string(),
            "패는 바로 되따낼 수 없어요. 다른 곳에 한 수 두고 오세요"
        );
        assert_eq!(t.state, before);
        t.play_at(7, 7).unwrap(); // white's ko threat
        t.play_at(7, 6).unwrap(); // black answers
        t.play_at(1, 1).unwrap(); // now white retakes
        assert_eq!((t.at(1, 1), t.at(2, 1)), (Some(Color::White), None));
    }
}

/// Three kos: ko 1 and ko 3 with white inside, ko 2 with black inside; black to move.
fn triple_ko(ko_rule: &str) -> Table {
    let mut t = Table::new(&format!(r#"{{"boardSize": 9, "koRule": "{ko_rule}"}}"#));
    let mut black = Vec::new();
    let mut white = Vec::new();
    for (ox, oy, white_inside) in [(0, 0, true), (5, 0, false), (0, 5, true)] {
        let (b, w) = ko_shape(ox, oy, white_inside);
        black.extend(b);
        white.extend(w);
    }
    black.push((7, 7)); // evens the counts so that black moves next
    t.build(&black, &white);
    assert_eq!(t.state.turn(), Color::Black);
    t
}

/// One round of the triple-ko cycle: six captures, each in a different ko than the last.
const CYCLE: [(u8, u8); 6] = [(2, 1), (6, 1), (2, 6), (1, 1), (7, 1), (1, 6)];

// 4. `positionalSuperko`: 삼패 순환에서 이전 배치를 재현하는 수가 거부되는지.
#[test]
fn positional_superko_refuses_the_move_that_completes_a_triple_ko_cycle() {
    let mut t = triple_ko("positionalSuperko");
    for &(x, y) in &CYCLE[..5] {
        t.play_at(x, y).unwrap();
    }
    let before = t.state.clone();
    let err = t.play_at(CYCLE[5].0, CYCLE[5].1).unwrap_err();
    assert_eq!(
        (err.code(), err.to_string().as_str()),
        ("SUPERKO", "같은 모양이 반복되어 둘 수 없어요")
    );
    assert_eq!(t.state, before);
}

// 5. `koRule=korean`: 같은 국면(배치+차례) 3회째에 무승부 종료.
#[test]
fn korean_ko_rule_ends_in_a_draw_when_a_situation_appears_the_third_time_b3() {
    let mut t = triple_ko("korean");
    for (i, &(x, y)) in CYCLE.iter().chain(CYCLE.iter()).enumerate() {
        assert_eq!(t.state.phase(), Phase::Playing, "move {i}");
        t.play_at(x, y).unwrap();
    }
    let result = Baduk::result(&t.state).expect("the third repetition ends the game");
    assert_eq!(
        (result.reason, result.winner),
        (EndReason::Repetition, None)
    );
    assert!(result.ranking.iter().all(|r| r.rank == 1));
}

// 6. 연속 2패스 → `scoring`. 패스-착수-패스는 진입 안 함.
#[test]
fn two_passes_in_a_row_start_scoring_but_pass_move_pass_does_not() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.pass().unwrap();
    t.play("E5").unwrap();
    t.pass().unwrap();
    assert_eq!(t.state.phase(), Phase::Playing);
    let events = t.pass().unwrap();
    assert_eq!(t.state.phase(), Phase::Scoring);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, BadukEvent::ScoringStarted { .. }))
    );
    assert_eq!(t.play("D4").unwrap_err(), BadukError::WrongPhase);
}

/// A finished 9×9 shape: black wall on column D, white wall on column F, and a lone white
/// stone in black's area at B5.
fn walls_with_an_intruder() -> Table {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    let black: Vec<(u8, u8)> = (0..9).map(|y| (3, y)).collect();
    let mut white: Vec<(u8, u8)> = (0..9).map(|y| (5, y)).collect();
    white[8] = (1, 4);
    white.push((5, 8));
    t.build(&black, &white);
    t.pass().unwrap();
    t.pass().unwrap();
    t
}

// 7. 사석 토글 후 상대가 동의해 있던 상태가 해제되는지, 두 사람 동의 시 계가 확정.
#[test]
fn toggling_dead_stones_resets_an_earlier_agreement_and_two_agreements_finish_the_count() {
    let mut t = walls_with_an_intruder();
    assert_eq!(t.state.phase(), Phase::Scoring);
    let suggested = t.state.marks().unwrap().dead.clone();
    assert_eq!(
        suggested,
        vec![Point::new(1, 4).index(9) as u16],
        "the intruder is suggested dead"
    );
    t.act(Color::White, BadukAction::AgreeScore {}).unwrap();
    assert!(t.state.marks().unwrap().agreed.white);
    t.act(Color::Black, BadukAction::ToggleDead { x: 1, y: 4 })
        .unwrap();
    let marks = t.state.marks().unwrap();
    assert!(marks.dead.is_empty());
    assert_eq!(marks.agreed, ByColor::new(false, false));
    t.act(Color::Black, BadukAction::ToggleDead { x: 1, y: 4 })
        .unwrap();
    t.act(Color::Black, BadukAction::AgreeScore {}).unwrap();
    assert_eq!(t.state.phase(), Phase::Scoring);
    t.act(Color::White, BadukAction::AgreeScore {}).unwrap();
    let result = Baduk::result(&t.state).unwrap();
    let score = result.score.unwrap();
    // Black: 27 points left of the wall + 1 dead stone; white: 27 right of F + komi 6.5.
    assert_eq!((score.black.territory, score.black.captures), (27, 1));
    assert_eq!(score.white.total, 27.0 + 6.5);
    assert_eq!(result.winner, Some(Color::White));
    assert_eq!(result.summary_ko, "백 5집 반 승");
}

// 8. 이의 → 재개 후 첫 수 차례가 요청자의 상대인지, 재개 후 다시 2패스 시 재진입.
#[test]
fn resuming_gives_the_first_move_to_the_requesters_opponent_and_two_more_passes_reenter_scoring() {
    let mut t = walls_with_an_intruder();
    t.act(Color::White, BadukAction::ResumePlay {}).unwrap();
    assert_eq!(t.state.phase(), Phase::Playing);
    assert_eq!(t.state.turn(), Color::Black);
    assert!(t.state.marks().is_none());
    let mut t2 = walls_with_an_intruder();
    t2.act(Color::Black, BadukAction::ResumePlay {}).unwrap();
    assert_eq!(t2.state.turn(), Color::White);
    t2.play_at(1, 3).unwrap();
    t2.pass().unwrap();
    assert_eq!(t2.state.phase(), Phase::Playing);
    t2.pass().unwrap();
    assert_eq!(t2.state.phase(), Phase::Scoring);
}

// 9. 6.4 예시 국면에서 `territory`/`area` 점수가 39 : 36.5, 45 : 43.5로 계산.
#[test]
fn the_worked_example_counts_39_to_36_5_by_territory_and_45_to_43_5_by_area() {
    let rows = [
        "....XO...",
        "....XO...",
        "....XO...",
        "....XO...",
        ".O..XO...",
        "....XO...",
        "....XO...",
        "....XO...",
        "....XO...",
    ];
    let board = Board::from_rows(&rows).unwrap();
    let dead = [Point::from_label("B5", 9).unwrap().index(9)];
    assert_eq!(dead, [4 * 9 + 1]);
    let captures = ByColor::new(2, 3);
    let territory = score(
        &board,
        &dead,
        &[],
        captures,
        &options(r#"{"boardSize": 9}"#),
    );
    assert_eq!((territory.black.total, territory.white.total), (39.0, 36.5));
    assert_eq!(territory.black.territory, 36);
    assert_eq!(territory.margin, 2.5);
    assert_eq!(territory.summary_ko(), "흑 2집 반 승");
    let area = score(
        &board,
        &dead,
        &[],
        captures,
        &options(r#"{"boardSize": 9, "scoring": "area"}"#),
    );
    assert_eq!((area.black.total, area.white.total), (45.0, 43.5));
    assert_eq!(area.summary_ko(), "흑 1.5점 승");
    assert_eq!(
        area.ownership[4 * 9 + 1],
        1,
        "the dead stone's point is black's"
    );
    assert_eq!(area.ownership.iter().filter(|&&o| o == 2).count(), 36);
}

// 10. 빅 영역: `territory`에서 빅 안 눈이 집으로 안 세어지고, `area`에서 세어짐.
#[test]
fn seki_eyes_are_not_territory_when_counting_territory_but_count_as_area() {
    // The seki of the Little Go fixture `seki-9b` (7×7): black's eye a7, white's eye e7,
    // the shared liberty c7.
    let board = Board::from_rows(&[
        ".X.W.WX", "XXXWWWX", "WWWXXXX", "..WW...", ".......", ".......", ".......",
    ])
    .unwrap();
    let dead = scoring::suggest_dead(&board);
    assert!(dead.is_empty(), "nothing in a seki is dead: {dead:?}");
    let seki = scoring::suggest_seki(&board, &dead);
    assert_eq!(seki, vec![0, 4], "both eyes are suggested as seki");
    let territory = score(
        &board,
        &dead,
        &seki,
        ByColor::default(),
        &options(r#"{"komi": 0}"#),
    );
    let unmarked = score(
        &board,
        &dead,
        &[],
        ByColor::default(),
        &options(r#"{"komi": 0}"#),
    );
    assert_eq!(unmarked.black.territory - territory.black.territory, 1);
    assert_eq!(unmarked.white.territory - territory.white.territory, 1);
    assert_eq!(territory.ownership[0], 0);
    let area = score(
        &board,
        &dead,
        &seki,
        ByColor::default(),
        &options(r#"{"komi": 0, "scoring": "area"}"#),
    );
    assert_eq!(area.black.territory, unmarked.black.territory);
    assert_eq!(area.ownership[0], 1);
    assert_eq!(area.ownership[4], 2);
}

// 11. 접바둑 N=2~9 배치가 표와 일치, 백이 먼저 둠, 덤 0.5, `area`에서 백 +N 보정.
#[test]
fn handicap_stones_follow_the_table_for_every_n_and_size_white_moves_first_komi_is_half_and_area_adds_n_b5()
 {
    let expected = |size: u8, n: u32| -> Vec<&'static str> {
        let four19 = ["Q16", "D4", "Q4", "D16"];
        let four13 = ["K10", "D4", "K4", "D10"];
        let four9 = ["G7", "C3", "G3", "C7"];
        let (four, center, sides, tops): (&[&str], &str, [&str; 2], [&str; 2]) = match size {
            19 => (&four19, "K10", ["D10", "Q10"], ["K4", "K16"]),
            13 => (&four13, "G7", ["D7", "K7"], ["G4", "G10"]),
            _ => (&four9, "E5", ["", ""], ["", ""]),
        };
        let mut v: Vec<&str> = four[..n.min(4) as usize].to_vec();
        match n {
            5 => v.push(center),
            6 => v.extend(sides),
            7 => {
                v.extend(sides);
                v.push(center);
            }
            8 => {
                v.extend(sides);
                v.extend(tops);
            }
            9 => {
                v.extend(sides);
                v.extend(tops);
                v.push(center);
            }
            _ => {}
        }
        v
    };
    for (size, max) in [(9u8, 5u32), (13, 9), (19, 9)] {
        for n in 2..=max {
            let t = Table::new(&format!(r#"{{"boardSize": {size}, "handicap": {n}}}"#));
            let board = t.state.position().board();
            let mut want: Vec<Point> = expected(size, n)
                .iter()
                .map(|l| Point::from_label(l, size).unwrap())
                .collect();
            want.sort();
            let mut have: Vec<Point> = (0..board.len())
                .filter(|&i| board.get(i) == Some(Color::Black))
                .map(|i| Point::from_index(i, size))
                .collect();
            have.sort();
            assert_eq!(have, want, "{size} lines, {n} stones");
            assert_eq!(handicap::labels(size, n).len(), n as usize);
            assert_eq!(board.count(Color::White), 0);
            assert_eq!(
                t.state.turn(),
                Color::White,
                "white moves first with handicap"
            );
            assert_eq!(t.state.options().komi_halves(), 1, "komi 0.5");
            let area = options(&format!(
                r#"{{"boardSize": {size}, "handicap": {n}, "scoring": "area"}}"#
            ));
            assert_eq!(area.handicap_comp(), n);
            let s = score(board, &[], &[], ByColor::default(), &area);
            assert_eq!(s.white.handicap_comp, n);
            assert_eq!(s.white.total, f64::from(n) + 0.5);
        }
    }
    // The spec's table differs from GTP's: 3 stones on 19 lines add Q4, not D16.
    assert_eq!(handicap::labels(19, 3), ["Q16", "D4", "Q4"]);
}

// 12. 초읽기: 기본 시간 소진 후 30초 안에 두면 회차 유지, 넘기면 회차 감소, 마지막 회차 초과 시
//     시간패, 그 뒤 도착 착수 거부.
#[test]
fn byoyomi_keeps_a_period_used_in_time_loses_one_when_overrun_and_the_last_overrun_loses_on_time() {
    let mut t = Table::new(r#"{"boardSize": 9, "timeControl": {"mainSec": 60}}"#);
    let start = t.state.clock().turn_started_at;
    // Black spends 60 s of main time and 20 s of the first period.
    t.now = start + 80_000 - 1_000;
    t.play("E5").unwrap();
    let clock = t.state.clock();
    assert_eq!(
        (
            clock.main_ms.black,
            clock.periods_left.black,
            clock.in_byoyomi.black
        ),
        (0, 3, true)
    );
    t.play("C3").unwrap();
    // Black overruns one period: 45 s into byoyomi.
    let started = t.state.clock().turn_started_at;
    t.now = started + 45_000 - 1_000;
    t.play("G7").unwrap();
    assert_eq!(t.state.clock().periods_left.black, 2);
    t.play("C7").unwrap();
    // Black's deadline is two periods away; a move after it is refused, the timeout loses.
    let deadline = Baduk::deadline(&t.state).unwrap();
    assert_eq!(deadline, t.state.clock().turn_started_at + 60_000);
    t.now = deadline;
    let before = t.state.clone();
    assert_eq!(t.play("G3").unwrap_err(), BadukError::TimeExpired);
    assert_eq!(t.state, before);
    let result = t.timeout(Color::Black).unwrap();
    assert!(matches!(&result[..], [BadukEvent::GameEnded { .. }]));
    let result = Baduk::result(&t.state).unwrap();
    assert_eq!(
        (result.reason, result.winner),
        (EndReason::TimeLoss, Some(Color::White))
    );
    assert_eq!(result.summary_ko, "백 시간승");
    assert_eq!(t.play("G3").unwrap_err(), BadukError::GameOver);
}

// 13. `scoring` 단계 시간 초과 → 미응답자 자동 동의 후 계가.
#[test]
fn a_scoring_timeout_agrees_for_the_silent_players_and_counts_the_marks() {
    let mut t = walls_with_an_intruder();
    let deadline = Baduk::deadline(&t.state).unwrap();
    assert_eq!(deadline, t.state.marks().unwrap().started_at + 180_000);
    t.act(Color::Black, BadukAction::AgreeScore {}).unwrap();
    assert_eq!(Baduk::active_players(&t.state), vec![t.white.clone()]);
    assert_eq!(Baduk::on_timeout(&t.state, &t.black, deadline), None);
    t.now = deadline;
    t.timeout(Color::White).unwrap();
    let result = Baduk::result(&t.state).unwrap();
    assert_eq!(result.reason, EndReason::Score);
    assert_eq!(
        result.score.unwrap().black.captures,
        1,
        "the suggested dead stone counted"
    );

    // Neither answers: both time out, the marks stand; with no marks every stone lives.
    let mut t = walls_with_an_intruder();
    t.act(Color::Black, BadukAction::ToggleDead { x: 1, y: 4 })
        .unwrap();
    assert!(t.state.marks().unwrap().dead.is_empty());
    t.timeout(Color::Black).unwrap();
    t.timeout(Color::White).unwrap();
    let score = Baduk::result(&t.state).unwrap().score.unwrap();
    assert_eq!((score.black.captures, score.white.stones), (0, 10));
}

// 14. 연결 끊김 유예 후 시간패, 재접속 시 유예 해제.
#[test]
fn a_disconnected_player_loses_on_time_after_the_grace_and_acting_again_clears_it() {
    let mut t = Table::new(r#"{"boardSize": 9, "disconnectGraceSec": 60}"#);
    assert_eq!(Baduk::disconnect_grace(&t.state), Some(60_000));
    // Black reconnects in time and moves: nothing is awaited from black any more.
    t.play("E5").unwrap();
    assert_eq!(Baduk::on_timeout(&t.state, &t.black, t.now), None);
    // White stays away past the grace: the room fires white's timeout early.
    t.now += 60_000;
    assert_eq!(
        Baduk::on_timeout(&t.state, &t.white, t.now),
        Some(BadukAction::Timeout {})
    );
    t.timeout(Color::White).unwrap();
    let result = Baduk::result(&t.state).unwrap();
    assert_eq!(
        (result.reason, result.winner),
        (EndReason::TimeLoss, Some(Color::Black))
    );
    assert_eq!(Baduk::disconnect_grace(&t.state), None);
    // A player cannot send the system's action.
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    assert_eq!(
        t.act(Color::Black, BadukAction::Timeout {}).unwrap_err(),
        BadukError::TimeoutOnly
    );
}

// 15. 무르기 수락 시 따낸 돌이 복원되고 포로 수·슈퍼코 이력이 재생으로 정확히 복원.
#[test]
fn an_accepted_undo_restores_captured_stones_the_capture_count_and_the_superko_history_b4() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    t.build(&[(3, 4), (5, 4), (4, 3)], &[(4, 4)]);
    let before_capture = t.state.clone();
    t.play_at(4, 5).unwrap(); // black captures (4,4)
    t.play_at(8, 8).unwrap(); // white replies
    assert_eq!(t.state.position().captures().black, 1);
    let positions = t.state.position().history().positions();
    t.act(Color::Black, BadukAction::RequestUndo {}).unwrap();
    assert_eq!(t.state.undo().pending.unwrap().plies, 2);
    t.act(Color::White, BadukAction::RespondUndo { accept: true })
        .unwrap();
    assert_eq!(t.at(4, 4), Some(Color::White));
    assert_eq!(t.state.position().captures().black, 0);
    assert_eq!(t.state.turn(), Color::Black);
    assert_eq!(t.state.position(), before_capture.position());
    assert_eq!(t.state.position().history().positions(), positions - 2);
    assert_eq!(t.state.undo().used.black, 1);
    // The undone positions are forgotten: replaying the same moves is legal again.
    t.play_at(4, 5).unwrap();
    t.play_at(8, 8).unwrap();
    assert_eq!(t.state.position().captures().black, 1);
    // Clocks are not rewound.
    assert!(t.state.clock().main_ms.black < before_capture.clock().main_ms.black);
}

// 16. 정보 누출: view에 `rng`, `positionHistory`, `situationCounts`가 없는지. 관전자 view에
//     `illegalPoints`/`atariWarnings` 없음.
#[test]
fn views_never_contain_hidden_fields_and_only_the_player_to_move_gets_hints() {
    let mut t = Table::new(r#"{"boardSize": 9}"#);
    let (black, white) = ko_shape(0, 0, true);
    t.build(&black, &white);
    t.play_at(2, 1).unwrap(); // black takes the ko: white may not retake at (1,1)
    let to_move = serde_json::to_value(Baduk::view(&t.state, Some(&t.white))).unwrap();
    let waiting = serde_json::to_value(Baduk::view(&t.state, Some(&t.black))).unwrap();
    let spectator = serde_json::to_value(Baduk::view(&t.state, None)).unwrap();
    for v in [&to_move, &waiting, &spectator] {
        let text = v.to_string();
        for hidden in [
            "rng",
            "positionHistory",
            "situationCounts",
            "situations",
            "history",
            "seed",
        ] {
            assert!(!text.contains(hidden), "{hidden} leaked");
        }
        assert_eq!(v["board"].as_array().unwrap().len(), 81);
        assert_eq!(v["turn"], "white");
    }
    let illegal = to_move["illegalPoints"].as_array().unwrap();
    assert!(
        illegal.contains(&serde_json::json!({"x": 1, "y": 1, "reason": "KO"})),
        "the ko point, with its reason: {illegal:?}"
    );
    assert!(to_move.get("atariWarnings").is_some());
    for v in [&waiting, &spectator] {
        assert!(v.get("illegalPoints").is_none() && v.get("atariWarnings").is_none());
    }
    // Same public content for everyone.
    assert_eq!(waiting, spectator);
}

// 17. 리플레이 결정성: 같은 시드·액션 로그 → 같은 결과.
#[test]
fn the_same_seed_and_action_log_give_the_same_game() {
    let run = |seed: u64| {
        let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
        let lineup = madang_core::Lineup {
            players: vec![a.clone(), b.clone()],
            host: a.clone(),
        };
        let mut rng = madang_core::GameRng::seed_from_u64(seed);
        let nigiri = options(r#"{"boardSize": 9, "colorAssignment": "nigiri"}"#);
        let mut s = Baduk::setup(&lineup, &nigiri, &mut rng, 0).unwrap();
        let mut now = 0;
        let mut log = Vec::new();
        for i in 0..60usize {
            now += 1_500;
            let mover = s.players().get(s.turn()).clone();
            // The first legal point from a moving start, else a pass.
            let played = (0..81).map(|k| (i * 29 + k * 7) % 81).find_map(|p| {
                let action = place((p % 9) as u8, (p / 9) as u8);
                Baduk::apply(&mut s, Actor::Player(&mover), &action, &mut rng, now)
                    .ok()
                    .map(|_| action)
            });
            let action = played.unwrap_or(BadukAction::Pass {});
            if action == (BadukAction::Pass {}) {
                Baduk::apply(&mut s, Actor::Player(&mover), &action, &mut rng, now).unwrap();
            }
            log.push(action);
        }
        (s, log, rng)
    };
    let (a, log_a, rng_a) = run(7);
    let (b, log_b, rng_b) = run(7);
    assert_eq!(log_a, log_b);
    assert_eq!(a, b);
    assert_eq!(rng_a, rng_b);
    assert_eq!(
        postcard::to_allocvec(&a).unwrap(),
        postcard::to_allocvec(&b).unwrap()
    );
    // Nigiri drew the colours from the seed; some seed gives the other assignment.
    let colors = |seed| run(seed).0.players().black.clone();
    assert!((0..8).any(|seed| colors(seed) != colors(7)));
}
