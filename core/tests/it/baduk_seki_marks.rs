//! The seki and dead-stone toggles name regions the way the suggestion does (§5.5, §5.6): seki
//! regions are the empty regions once the stones marked dead are lifted, each named by its
//! smallest index, so every suggested mark can be toggled off and on again.

use crate::baduk_common;

use baduk_common::Table;
use madang_core::baduk::{BadukAction, BadukError, Color, Phase};

/// 13×13: a black ring around (8,9)–(8,10) with a white stone inside at (8,9), wrapped by a
/// white wall that leaves black one outside liberty, the dame at (10,9). The white stone is in
/// atari and suggested dead; with it lifted, the ring's eye {(8,9), (8,10)} is a seki candidate
/// whose smallest point is (8,9) — the very stone marked dead.
fn ring_with_a_dead_stone_in_its_eye() -> Table {
    let mut t = Table::new(r#"{"boardSize": 13}"#);
    let black = [
        (7, 8),
        (8, 8),
        (9, 8),
        (7, 9),
        (9, 9),
        (7, 10),
        (9, 10),
        (7, 11),
        (8, 11),
        (9, 11),
    ];
    let mut white: Vec<(u8, u8)> = (7..=12).map(|y| (6, y)).collect();
    white.extend([(7, 7), (8, 7), (9, 7), (7, 12), (8, 12), (9, 12)]);
    white.extend([(10, 7), (10, 8), (10, 10), (10, 11), (10, 12)]);
    white.extend([(11, 8), (11, 9), (11, 10)]);
    white.push((8, 9));
    t.build(&black, &white);
    t.pass().unwrap();
    t.pass().unwrap();
    assert_eq!(t.state.phase(), Phase::Scoring);
    t
}

const fn index(x: u16, y: u16) -> u16 {
    y * 13 + x
}

fn toggle_seki(t: &mut Table, color: Color, x: i32, y: i32) -> Result<(), BadukError> {
    t.act(color, BadukAction::ToggleSeki { x, y }).map(|_| ())
}

fn marks(t: &Table) -> (Vec<u16>, Vec<u16>) {
    let m = t.state.marks().unwrap();
    (m.dead.clone(), m.seki.clone())
}

#[test]
fn thirteen_by_thirteen_seki_suggested_on_a_dead_stone_toggles_off_from_either_point() {
    let mut t = ring_with_a_dead_stone_in_its_eye();
    let (dead, seki) = marks(&t);
    assert_eq!(
        dead,
        [index(8, 9)],
        "the white stone inside is suggested dead"
    );
    assert_eq!(seki, [index(8, 9)], "its region, lifted, is suggested seki");

    // Tapping the empty point of the same region takes the mark off (it used to add a second).
    toggle_seki(&mut t, Color::Black, 8, 10).unwrap();
    assert_eq!(marks(&t).1, Vec::<u16>::new());
    toggle_seki(&mut t, Color::White, 8, 10).unwrap();
    assert_eq!(
        marks(&t).1,
        [index(8, 9)],
        "the same representative as the suggestion"
    );
    // The dead stone's point is part of the region too (it used to be NOT_EMPTY).
    toggle_seki(&mut t, Color::Black, 8, 9).unwrap();
    assert_eq!(marks(&t).1, Vec::<u16>::new());
    toggle_seki(&mut t, Color::Black, 8, 9).unwrap();
    assert_eq!(marks(&t).1, [index(8, 9)]);
    // A live stone is still not an empty point.
    assert_eq!(
        toggle_seki(&mut t, Color::Black, 7, 9),
        Err(BadukError::NotEmpty)
    );

    // Bringing the white stone back to life shrinks the region to (8,10): the mark follows it,
    // and a tap there takes it off.
    t.act(Color::White, BadukAction::ToggleDead { x: 8, y: 9 })
        .unwrap();
    assert_eq!(marks(&t), (vec![], vec![index(8, 10)]));
    assert_eq!(
        toggle_seki(&mut t, Color::White, 8, 9),
        Err(BadukError::NotEmpty)
    );
    toggle_seki(&mut t, Color::White, 8, 10).unwrap();
    assert_eq!(marks(&t), (vec![], vec![]));
    // Marked dead again, the region grows back and a mark on it is named by (8,9) again.
    t.act(Color::Black, BadukAction::ToggleDead { x: 8, y: 9 })
        .unwrap();
    toggle_seki(&mut t, Color::Black, 8, 10).unwrap();
    assert_eq!(marks(&t), (vec![index(8, 9)], vec![index(8, 9)]));
}

#[test]
fn the_players_can_agree_on_the_suggested_marks_and_on_marks_they_changed() {
    let mut t = ring_with_a_dead_stone_in_its_eye();
    toggle_seki(&mut t, Color::Black, 8, 10).unwrap();
    toggle_seki(&mut t, Color::White, 8, 9).unwrap();
    t.act(Color::Black, BadukAction::AgreeScore {}).unwrap();
    t.act(Color::White, BadukAction::AgreeScore {}).unwrap();
    assert_eq!(t.state.phase(), Phase::Finished);
    assert_eq!(marks(&t), (vec![index(8, 9)], vec![index(8, 9)]));
}
