//! Every game record in `tests/fixtures/sgf` (copied from Little Go and KataGo, see their
//! `SOURCE.md`) goes through the SGF importer and, when it is playable under these rules, is
//! replayed move by move through the engine. Records that state a verdict are asserted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use strum::VariantArray;

use madang_core::baduk::sgf::{self, SgfRecord};
use madang_core::baduk::{
    Baduk, BadukAction, BadukOptions, BadukState, ClockKind, Color, KoRule, Phase, Point, Position,
    handicap, scoring,
};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId, RuleError};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf")
}

fn sgf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sgf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sgf") {
            out.push(path);
        }
    }
}

fn read(relative: &str) -> SgfRecord {
    let text =
        String::from_utf8_lossy(&std::fs::read(fixtures().join(relative)).unwrap()).into_owned();
    sgf::parse(&text).unwrap()
}

/// What happened to one record.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    /// Not readable as SGF.
    Unreadable,
    /// Not playable under these rules, for the reason given.
    Skipped(&'static str),
    /// Replayed; the final phase.
    Replayed(Phase),
    /// Move `n` (0-based) was refused with this code.
    Refused(usize, &'static str),
}

/// Why a record cannot be played by the engine, if it cannot.
fn unplayable(r: &SgfRecord) -> Option<&'static str> {
    if ![9, 13, 19].contains(&r.size) {
        return Some("board size other than 9, 13 or 19");
    }
    if !r.white_setup.is_empty() || r.later_setup {
        return Some("setup stones (the engine only places fixed handicap stones)");
    }
    let mut setup = r.black_setup.clone();
    setup.sort();
    let mut table = handicap::points(r.size as u8, r.handicap);
    table.sort();
    if setup != table {
        return Some("black setup stones that are not the fixed handicap placement");
    }
    None
}

/// Options for replaying `r` with `ko_rule`: its size, handicap and komi (the default komi when
/// the record's is outside §2's range), no clock pressure.
fn replay_options(r: &SgfRecord, ko_rule: KoRule) -> BadukOptions {
    let mut options = r.options();
    options.ko_rule = ko_rule;
    options.time_control.kind = ClockKind::None;
    if let Err(e) = options.validate() {
        assert_eq!(
            e.field, "komi",
            "only an out-of-range komi is tolerated: {e}"
        );
        options.komi = None;
    }
    options
}

fn replay(r: &SgfRecord, ko_rule: KoRule) -> (BadukState, Verdict) {
    let options = replay_options(r, ko_rule);
    let (b, w) = (PlayerId::new("black"), PlayerId::new("white"));
    let lineup = Lineup {
        players: vec![b.clone(), w.clone()],
        host: b.clone(),
    };
    let mut rng = GameRng::seed_from_u64(0);
    let options = BadukOptions {
        color_assignment: madang_core::baduk::ColorAssignment::HostBlack,
        ..options
    };
    let mut state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
    for (i, m) in r.moves.iter().enumerate() {
        let player = if m.color == Color::Black { &b } else { &w };
        let action = match m.point {
            Some(p) => BadukAction::Place {
                x: i32::from(p.x),
                y: i32::from(p.y),
            },
            None => BadukAction::Pass {},
        };
        let now = 1_000 * (i as u64 + 1);
        if let Err(e) = Baduk::apply(&mut state, Actor::Player(player), &action, &mut rng, now) {
            return (state, Verdict::Refused(i, e.code()));
        }
    }
    let phase = state.phase();
    (state, Verdict::Replayed(phase))
}

fn verdicts() -> BTreeMap<String, Verdict> {
    let mut files = Vec::new();
    sgf_files(&fixtures(), &mut files);
    let mut out = BTreeMap::new();
    for path in files {
        let name = path
            .strip_prefix(fixtures())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let verdict = match sgf::parse(&text) {
            Err(_) => Verdict::Unreadable,
            Ok(r) => match unplayable(&r) {
                Some(reason) => Verdict::Skipped(reason),
                None => replay(&r, KoRule::PositionalSuperko).1,
            },
        };
        out.insert(name, verdict);
    }
    out
}

const SETUP: Verdict =
    Verdict::Skipped("setup stones (the engine only places fixed handicap stones)");
const SIZE: Verdict = Verdict::Skipped("board size other than 9, 13 or 19");
const NOT_HANDICAP: Verdict =
    Verdict::Skipped("black setup stones that are not the fixed handicap placement");
const PLAYING: Verdict = Verdict::Replayed(Phase::Playing);

#[test]
fn every_fixture_is_replayed_or_refused_or_skipped_for_a_stated_reason() {
    use Verdict::*;
    let expected: BTreeMap<&str, Verdict> = [
        ("katago-tests/cornermoves.sgf", PLAYING),
        // Fox-style: HA[2] with AB in a node of its own (the fixed placement), KM[325] out of
        // range (the default komi is used instead).
        ("katago-tests/foxlike.sgf", PLAYING),
        ("katago-tests/humanslbigdiff.sgf", PLAYING),
        ("katago-tests/sampletest/sampletest7x7.sgf", SIZE),
        ("katago-tests/sampletest/sampletest9x9.sgf", SETUP),
        // Several game trees: the main line of the first is replayed.
        ("katago-tests/sampletest2/messy.sgf", PLAYING),
        // Cut off without its closing parenthesis; read leniently.
        ("littlego/19x19/Fuego vs. Fuego.sgf", PLAYING),
        (
            "littlego/19x19/handicap-7-komi-0-with-pass-moves.sgf",
            PLAYING,
        ),
        ("littlego/19x19/markup.sgf", PLAYING),
        // B7: the 722nd move reaches the move limit and starts the scoring phase.
        (
            "littlego/19x19/maximum-number-of-moves.sgf",
            Refused(722, "WRONG_PHASE"),
        ),
        ("littlego/25x25/25x25_single_black_move.sgf", SIZE),
        ("littlego/7x7/play-b-b7-for-superko.sgf", SIZE),
        ("littlego/7x7/seki-9b.sgf", SIZE),
        // Two passes end play; a third pass is not a move of the scoring phase.
        ("littlego/9x9/2-passes.sgf", Replayed(Phase::Scoring)),
        ("littlego/9x9/3-passes.sgf", Refused(2, "WRONG_PHASE")),
        ("littlego/9x9/4-passes.sgf", Refused(2, "WRONG_PHASE")),
        ("littlego/9x9/5-passes.sgf", Refused(2, "WRONG_PHASE")),
        ("littlego/9x9/9x9_1.sgf", PLAYING),
        ("littlego/9x9/9x9_2.sgf", PLAYING),
        ("littlego/9x9/Anonymous vs. Fuego 1.sgf", PLAYING),
        ("littlego/9x9/annotations.sgf", PLAYING),
        ("littlego/9x9/game_050.sgf", PLAYING),
        ("littlego/9x9/gameinfo.sgf", NOT_HANDICAP),
        ("littlego/9x9/illegal-board-setup-test.sgf", SETUP),
        ("littlego/9x9/node-tree-view.sgf", SETUP),
        // White moves twice in a row at move 45.
        (
            "littlego/9x9/non-alternating-play.sgf",
            Refused(44, "NOT_YOUR_TURN"),
        ),
        ("littlego/9x9/seki-9b.sgf", SIZE),
        ("littlego/9x9/setup-variations.sgf", SETUP),
        ("littlego/Famous games/Blood-vomiting game.sgf", PLAYING),
        ("littlego/Famous games/Ear-reddening game.sgf", PLAYING),
        (
            "littlego/Famous games/Lee's Broken Ladder Game.sgf",
            PLAYING,
        ),
        (
            "littlego/Illegal games/encoding-detection-fails.sgf",
            Unreadable,
        ),
        ("littlego/Illegal games/encoding-multiple.sgf", PLAYING),
        // An unknown CA, no moves and no closing parenthesis: an empty game.
        ("littlego/Illegal games/encoding-unsupported.sgf", PLAYING),
        // W[hd] on black's stone.
        (
            "littlego/Illegal games/illegal-move.sgf",
            Refused(15, "OCCUPIED"),
        ),
        ("littlego/Illegal games/illegal-setup.sgf", SETUP),
        ("littlego/Illegal games/not-an-sgf-file.sgf", Unreadable),
        (
            "littlego/Illegal games/not-enough-handicap-stones.sgf",
            NOT_HANDICAP,
        ),
        ("littlego/Illegal games/positional-superko.sgf", SIZE),
        ("littlego/Illegal games/setup-after-first-move.sgf", SETUP),
        (
            "littlego/Illegal games/setup-before-handicap-setup.sgf",
            NOT_HANDICAP,
        ),
        // PL after the first move is ignored: the moves themselves alternate.
        (
            "littlego/Illegal games/setup-player-after-first-move.sgf",
            PLAYING,
        ),
        (
            "littlego/Illegal games/situational-superko.sgf",
            Refused(23, "SUPERKO"),
        ),
        ("littlego/Illegal games/suicide.sgf", Refused(3, "SUICIDE")),
        (
            "littlego/Illegal games/too-many-moves.sgf",
            Refused(722, "WRONG_PHASE"),
        ),
    ]
    .into_iter()
    .collect();
    let actual = verdicts();
    let names: Vec<&str> = actual.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        expected.keys().copied().collect::<Vec<_>>(),
        "every fixture is listed"
    );
    let wrong: Vec<String> = actual
        .iter()
        .filter(|(name, verdict)| *verdict != &expected[name.as_str()])
        .map(|(name, verdict)| format!("{name}: {verdict:?}"))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_suicide_record_is_refused_at_its_last_move_and_the_game_is_unchanged_b1() {
    let r = read("littlego/Illegal games/suicide.sgf");
    assert_eq!(r.size, 19, "no SZ means 19 lines");
    let (state, verdict) = replay(&r, KoRule::PositionalSuperko);
    assert_eq!(verdict, Verdict::Refused(3, "SUICIDE"));
    assert_eq!(state.moves(), &r.moves[..3]);
    assert_eq!(state.position().board().at(Point::new(0, 0)), None);
}

#[test]
fn the_situational_superko_record_is_refused_by_positional_superko_but_not_by_korean_rules() {
    let r = read("littlego/Illegal games/situational-superko.sgf");
    assert_eq!(
        replay(&r, KoRule::PositionalSuperko).1,
        Verdict::Refused(23, "SUPERKO")
    );
    // Not a simple ko (B2), and no situation has appeared three times (B3).
    assert_eq!(replay(&r, KoRule::Korean).1, PLAYING);
}

/// Mechanics-level options for a record on a size the engine does not offer (7, 11 lines):
/// [`Position`] plays any size up to 19.
fn any_size(r: &SgfRecord, ko_rule: KoRule) -> BadukOptions {
    BadukOptions {
        board_size: r.size,
        ko_rule,
        ..BadukOptions::default()
    }
}

#[test]
fn the_positional_superko_record_on_11_lines_is_illegal_only_under_positional_superko() {
    let r = read("littlego/Illegal games/positional-superko.sgf");
    assert_eq!(r.size, 11);
    let refused = Position::replay(&any_size(&r, KoRule::PositionalSuperko), &r.moves).err();
    assert_eq!(refused, Some((22, madang_core::baduk::BadukError::Superko)));
    assert!(Position::replay(&any_size(&r, KoRule::Korean), &r.moves).is_ok());
}

#[test]
fn black_at_b7_after_the_7x7_record_is_refused_by_positional_superko() {
    let r = read("littlego/7x7/play-b-b7-for-superko.sgf");
    let b7 = Point::from_label("B7", 7).unwrap();
    let position = Position::replay(&any_size(&r, KoRule::PositionalSuperko), &r.moves).unwrap();
    let err = position.check(Color::Black, b7).unwrap_err();
    assert_eq!(err.code(), "SUPERKO");
    // Under the korean rule it is neither a simple ko nor a repetition end by itself.
    let position = Position::replay(&any_size(&r, KoRule::Korean), &r.moves).unwrap();
    assert_eq!(position.check(Color::Black, b7), Ok(()));
}

#[test]
fn the_seki_record_is_suggested_as_seki_and_its_eyes_are_not_territory() {
    for name in ["littlego/7x7/seki-9b.sgf", "littlego/9x9/seki-9b.sgf"] {
        let r = read(name);
        let position =
            Position::replay(&any_size(&r, KoRule::PositionalSuperko), &r.moves).unwrap();
        let board = position.board();
        let dead = scoring::suggest_dead(board);
        assert!(dead.is_empty(), "{name}: {dead:?}");
        let seki = scoring::suggest_seki(board, &dead);
        let a7 = Point::from_label("A7", 7).unwrap().index(7);
        let e7 = Point::from_label("E7", 7).unwrap().index(7);
        assert_eq!(seki, vec![a7, e7], "{name}");
        let options = |json: &str| -> BadukOptions { serde_json::from_str(json).unwrap() };
        let territory = scoring::score(
            board,
            &dead,
            &seki,
            position.captures(),
            &options(r#"{"komi": 0}"#),
        );
        assert_eq!(
            territory.ownership[a7], 0,
            "a seki eye is nobody's territory"
        );
        let area = scoring::score(
            board,
            &dead,
            &seki,
            position.captures(),
            &options(r#"{"komi": 0, "scoring": "area"}"#),
        );
        assert_eq!((area.ownership[a7], area.ownership[e7]), (1, 2));
    }
}

/// Passes twice from the end of a replayed record, then both players agree to the suggested
/// marks: the engine's count of the final position.
fn count_by_suggestion(mut state: BadukState) -> madang_core::baduk::BadukResult {
    let mut rng = GameRng::seed_from_u64(0);
    let mut now = state.clock().turn_started_at;
    for _ in 0..2 {
        let player = state.players().get(state.turn()).clone();
        now += 1_000;
        Baduk::apply(
            &mut state,
            Actor::Player(&player),
            &BadukAction::Pass {},
            &mut rng,
            now,
        )
        .unwrap();
    }
    assert_eq!(state.phase(), Phase::Scoring);
    for &color in Color::VARIANTS {
        let player = state.players().get(color).clone();
        Baduk::apply(
            &mut state,
            Actor::Player(&player),
            &BadukAction::AgreeScore {},
            &mut rng,
            now,
        )
        .unwrap();
    }
    Baduk::result(&state).unwrap()
}

#[test]
fn the_ear_reddening_game_counts_to_black_by_two_points_as_recorded() {
    let r = read("littlego/Famous games/Ear-reddening game.sgf");
    assert_eq!((r.result.as_deref(), r.komi), (Some("B+2"), Some(0.0)));
    let (state, verdict) = replay(&r, KoRule::PositionalSuperko);
    assert_eq!(verdict, PLAYING);
    assert_eq!(state.moves().len(), 325);
    let result = count_by_suggestion(state);
    assert_eq!(result.winner, Some(Color::Black));
    assert_eq!(result.score.unwrap().margin, 2.0);
    assert_eq!(result.summary_ko, "흑 2집 승");
}

#[test]
fn the_handicap_record_uses_the_fixed_placement_and_white_moves_first() {
    let r = read("littlego/19x19/handicap-7-komi-0-with-pass-moves.sgf");
    assert_eq!(r.handicap, 7);
    assert_eq!(r.moves[0].color, Color::White);
    let (state, verdict) = replay(&r, KoRule::PositionalSuperko);
    assert_eq!(verdict, PLAYING);
    // Black answers twice (I2, K2), then passes.
    assert_eq!(state.position().board().count(Color::Black), 7 + 2);
}

#[test]
fn exported_games_import_back_with_the_same_setup_and_moves() {
    let mut files = Vec::new();
    sgf_files(&fixtures(), &mut files);
    let mut checked = 0;
    for path in files {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let Ok(r) = sgf::parse(&text) else { continue };
        if unplayable(&r).is_some() {
            continue;
        }
        let (state, _) = replay(&r, KoRule::PositionalSuperko);
        let exported = sgf::export(&state, "흑 [black]", "백\\white", "2026-11-29");
        let back = sgf::parse(&exported).unwrap();
        assert_eq!(back.moves, state.moves(), "{}", path.display());
        assert_eq!((back.size, back.handicap), (r.size, r.handicap));
        assert_eq!(back.black_name.as_deref(), Some("흑 [black]"));
        assert_eq!(back.white_name.as_deref(), Some("백\\white"));
        let mut setup = back.black_setup.clone();
        setup.sort();
        let mut table = handicap::points(r.size as u8, r.handicap);
        table.sort();
        assert_eq!(setup, table);
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
}

#[test]
fn a_finished_game_exports_its_result() {
    let r = read("littlego/Famous games/Ear-reddening game.sgf");
    let (state, _) = replay(&r, KoRule::PositionalSuperko);
    let mut finished = state.clone();
    let mut rng = GameRng::seed_from_u64(0);
    let loser = finished.players().get(finished.turn()).clone();
    let now = finished.clock().turn_started_at;
    Baduk::apply(
        &mut finished,
        Actor::Player(&loser),
        &BadukAction::Resign {},
        &mut rng,
        now,
    )
    .unwrap();
    let text = sgf::export(&finished, "Shusaku", "Gennan", "1846-09-11");
    assert!(text.starts_with("(;FF[4]GM[1]"));
    for part in [
        "SZ[19]",
        "KM[0]",
        "RU[Korean]",
        "PB[Shusaku]",
        "PW[Gennan]",
        "DT[1846-09-11]",
        "RE[B+R]",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    let counted = count_by_suggestion(state);
    assert_eq!(counted.reason, madang_core::baduk::EndReason::Score);
}

#[test]
fn toggling_a_suggested_dead_stone_in_a_finished_pro_game_revives_only_its_group() {
    let r = read("littlego/Famous games/Ear-reddening game.sgf");
    let (mut state, _) = replay(&r, KoRule::PositionalSuperko);
    let mut rng = GameRng::seed_from_u64(0);
    let now = state.clock().turn_started_at + 1_000;
    for _ in 0..2 {
        let player = state.players().get(state.turn()).clone();
        Baduk::apply(
            &mut state,
            Actor::Player(&player),
            &BadukAction::Pass {},
            &mut rng,
            now,
        )
        .unwrap();
    }
    let suggested = state.marks().unwrap().dead.clone();
    assert_eq!(suggested.len(), 12);
    // The white stone at index 66 is joined to 104 and 105 through black's empty points.
    let black = state.players().black.clone();
    let toggle = BadukAction::ToggleDead {
        x: 66 % 19,
        y: 66 / 19,
    };
    Baduk::apply(&mut state, Actor::Player(&black), &toggle, &mut rng, now).unwrap();
    let after = &state.marks().unwrap().dead;
    let revived: Vec<u16> = suggested
        .iter()
        .copied()
        .filter(|d| !after.contains(d))
        .collect();
    assert_eq!(revived, vec![66, 104, 105]);
    Baduk::apply(&mut state, Actor::Player(&black), &toggle, &mut rng, now).unwrap();
    assert_eq!(state.marks().unwrap().dead, suggested);
}

#[test]
fn records_won_by_resignation_replay_completely_and_export_the_same_result() {
    for name in [
        "littlego/Famous games/Blood-vomiting game.sgf",
        "littlego/Famous games/Lee's Broken Ladder Game.sgf",
        "littlego/9x9/game_050.sgf",
    ] {
        let r = read(name);
        let recorded = r.result.clone().unwrap();
        let winner = if recorded.starts_with('B') {
            Color::Black
        } else {
            Color::White
        };
        assert!(recorded.ends_with("+R"), "{name}: {recorded}");
        let (mut state, verdict) = replay(&r, KoRule::PositionalSuperko);
        assert_eq!(verdict, PLAYING, "{name}");
        assert_eq!(state.moves().len(), r.moves.len());
        let loser = state.players().get(winner.opponent()).clone();
        let now = state.clock().turn_started_at;
        let mut rng = GameRng::seed_from_u64(0);
        Baduk::apply(
            &mut state,
            Actor::Player(&loser),
            &BadukAction::Resign {},
            &mut rng,
            now,
        )
        .unwrap();
        let exported = sgf::parse(&sgf::export(&state, "", "", "")).unwrap();
        assert_eq!(
            exported.result.as_deref(),
            Some(recorded.as_str()),
            "{name}"
        );
    }
}
