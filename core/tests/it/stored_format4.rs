//! Rooms stored by the release before chat and computer players (stored format 4) still read,
//! with every field added since (formats 5 and 6) at its default,
//! play on and are saved back in the current format: a deployment upgraded in the middle of a
//! game keeps its rooms. The fixtures were written by that release's own code
//! (`fixtures/format4/SOURCE.md`).

use madang_core::baduk::{BadukAction, Phase};
use madang_core::chat::ChatSetting;
use madang_core::room::{
    AnyRoom, DecodeError, FORMAT, LobbyAction, OLDEST_FORMAT, Presence, RoomAction, Status,
};
use madang_core::yut::Mode;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/format4/{name}.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Decodes a fixture, checks it really is format 4, and that saving it writes the current
/// format, which reads back as the same room.
fn upgraded(name: &str) -> AnyRoom {
    let bytes = fixture(name);
    assert_eq!(bytes[0], 4, "{name} is a format-4 fixture");
    assert_eq!(OLDEST_FORMAT, 4);
    let room = AnyRoom::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let saved = room.encode();
    assert_eq!(saved[0], FORMAT);
    assert_eq!(AnyRoom::decode(&saved).unwrap(), room, "{name} round-trips");
    room
}

#[test]
fn a_format4_yut_lobby_reads_with_chat_on_and_no_bots_and_takes_a_bot() {
    let AnyRoom::Yut(mut room) = upgraded("yut_lobby") else {
        panic!("a 윷놀이 room")
    };
    assert_eq!(room.status(), Status::Lobby);
    assert_eq!(room.options.mode, Mode::Team);
    assert_eq!(room.options.chat, ChatSetting::On);
    let names: Vec<&str> = room.seats.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["호스트", "둘째"], "the kicked member is gone");
    assert!(room.seats.iter().all(|m| m.bot.is_none()));
    assert_eq!(room.barred.len(), 1, "the kick is still on record");

    // The features format 5 added work on the upgraded room.
    let host = room.host.clone();
    let version = room.version;
    room.act(
        &host,
        RoomAction::Lobby(LobbyAction::AddBot { level: None }),
        1_780_000_010_000,
    )
    .unwrap();
    assert_eq!(room.version, version + 1);
    assert_eq!(room.seats.len(), 3);
    assert!(room.seats[2].bot.is_some());
    let again = AnyRoom::decode(&AnyRoom::Yut(room.clone()).encode()).unwrap();
    assert_eq!(again, AnyRoom::Yut(room));
}

#[test]
fn a_format4_yut_game_plays_on_after_the_upgrade() {
    let AnyRoom::Yut(mut room) = upgraded("yut_playing") else {
        panic!("a 윷놀이 room")
    };
    assert_eq!(room.status(), Status::Playing);
    let presence = Presence::new();
    let version = room.version;
    // Nobody is connected: each due timeout plays a turn, as the sweeper would after the upgrade.
    for _ in 0..5 {
        let Some(at) = room.due_at(&presence) else {
            break;
        };
        room.play_out(at, &presence);
    }
    assert!(room.version > version, "the game went on");
}

#[test]
fn a_format4_baduk_game_reads_its_moves_and_takes_the_next() {
    let AnyRoom::Baduk(mut room) = upgraded("baduk_playing") else {
        panic!("a 바둑 room")
    };
    assert_eq!(room.options.board_size, 9);
    assert_eq!(room.options.chat, ChatSetting::On);
    let state = room.game.as_ref().unwrap();
    assert_eq!(state.moves().len(), 6);
    assert_eq!(state.phase(), Phase::Playing);
    // The seventh move, by whoever is to move: exactly one of the two may play it.
    let place = || RoomAction::Game(BadukAction::Place { x: 0, y: 0 });
    let players: Vec<_> = room.seats.iter().map(|m| m.id.clone()).collect();
    let played = players
        .iter()
        .filter(|p| room.act(p, place(), 1_780_000_100_000).is_ok())
        .count();
    assert_eq!(played, 1);
    assert_eq!(room.game.as_ref().unwrap().moves().len(), 7);
}

#[test]
fn a_format4_finished_baduk_game_reads_as_finished() {
    let AnyRoom::Baduk(room) = upgraded("baduk_finished") else {
        panic!("a 바둑 room")
    };
    assert_eq!(room.status(), Status::Finished);
}

#[test]
fn layouts_older_than_format4_are_refused_by_their_number() {
    let mut bytes = fixture("baduk_playing");
    bytes[0] = 3;
    assert!(matches!(
        AnyRoom::decode(&bytes),
        Err(DecodeError::Format { found: 3 })
    ));
    bytes[0] = FORMAT + 1;
    assert!(matches!(
        AnyRoom::decode(&bytes),
        Err(DecodeError::Format { .. })
    ));
}
