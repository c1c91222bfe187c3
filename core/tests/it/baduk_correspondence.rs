//! The correspondence clock of 바둑 (DESIGN "Slow 바둑 and 'your turn' notifications"):
//! `timeControl: {"kind": "correspondence", "daysPerMove": D}`, D in 1, 2, 3, 7. Each item of the
//! contract is one named test, played through the room as the server plays it (time is a
//! parameter: the days pass in `now`).

use madang_core::baduk::{
    Baduk, BadukAction, BadukOptions, ClockKind, Color, EndReason, Phase, TimeControl,
};
use madang_core::room::{
    AnyRoom, LobbyAction, PLAYING_TTL_MS, Presence, Room, RoomAction, Status, TokenHash,
};
use madang_core::{Game, GameRng, Millis, PlayerId};
use serde_json::json;

const DAY: Millis = 24 * 3600 * 1000;
const T0: Millis = 1_780_000_000_000;

fn options(days: u32) -> BadukOptions {
    serde_json::from_value(json!({
        "boardSize": 9,
        "colorAssignment": "hostBlack",
        "timeControl": {"kind": "correspondence", "daysPerMove": days},
    }))
    .unwrap()
}

/// A started room: black (the host) and white, the game begun at `T0`.
fn started(days: u32) -> (Room<Baduk>, PlayerId, PlayerId) {
    let (mut room, black) = Room::<Baduk>::create(
        "c0rresp0ndenceR00m0000".into(),
        "할아버지".into(),
        TokenHash::of("a"),
        options(days),
        GameRng::new([5; 32], [6; 16]),
        T0 - 2,
    )
    .unwrap();
    let white = room
        .join("손자".into(), TokenHash::of("b"), T0 - 1)
        .unwrap();
    room.act(&black, RoomAction::Lobby(LobbyAction::Start), T0)
        .unwrap();
    (room, black, white)
}

fn play(room: &mut Room<Baduk>, who: &PlayerId, action: serde_json::Value, now: Millis) {
    let action = RoomAction::Game(serde_json::from_value(action).unwrap());
    room.act(who, action, now).unwrap();
}

#[test]
fn correspondence_days_per_move_are_1_2_3_or_7_and_anything_else_is_refused_by_name() {
    for days in [1, 2, 3, 7] {
        assert!(Baduk::validate_options(&options(days), None).is_ok());
    }
    for days in [0, 4, 5, 14] {
        let e = Baduk::validate_options(&options(days), None).unwrap_err();
        assert_eq!(e.field, "timeControl.daysPerMove");
        assert!(e.message.contains("7일"), "{}", e.message);
    }
    let default: BadukOptions =
        serde_json::from_value(json!({"timeControl": {"kind": "correspondence"}})).unwrap();
    assert_eq!(
        default.time_control.days_per_move,
        TimeControl::DEFAULT_DAYS_PER_MOVE
    );
    assert_eq!(TimeControl::DEFAULT_DAYS_PER_MOVE, 1, "하루에 한 수");
}

#[test]
fn correspondence_each_move_has_its_days_afresh_and_the_timeout_fires_after_them() {
    let (mut room, black, white) = started(2);
    let nobody = Presence::new();
    // Black thinks for almost two days, white for a day and a half: neither loses time for
    // the next move, and nothing fires in between.
    play(
        &mut room,
        &black,
        json!({"type": "place", "x": 2, "y": 2}),
        T0 + 2 * DAY - 1,
    );
    assert!(room.catch_up(T0 + 3 * DAY, &nobody).is_empty());
    let white_moved = T0 + 2 * DAY - 1 + 3 * DAY / 2;
    play(
        &mut room,
        &white,
        json!({"type": "place", "x": 6, "y": 6}),
        white_moved,
    );
    let state = room.game.as_ref().unwrap();
    assert_eq!(state.clock().main_ms.black, 2 * DAY);
    assert_eq!(state.clock().main_ms.white, 2 * DAY);
    let deadline = white_moved + 2 * DAY;
    assert_eq!(Baduk::deadline(state), Some(deadline));
    assert_eq!(room.due_at(&nobody), Some(deadline));
    // A day later black has still not moved: nothing yet; just past two days, the timeout.
    assert!(room.catch_up(deadline - 1, &nobody).is_empty());
    let version = room.version;
    let fired = room.catch_up(deadline + 60_000, &nobody);
    assert!(!fired.is_empty());
    assert_eq!(room.version, version + 1);
    assert_eq!(room.status(), Status::Finished);
    let result = room.game.as_ref().unwrap().result().unwrap().clone();
    assert_eq!(result.reason, EndReason::TimeLoss);
    assert_eq!(result.winner, Some(Color::White));
    assert_eq!(
        room.updated_at, deadline,
        "the timeout fired at its own deadline"
    );
}

#[test]
fn correspondence_a_late_move_is_refused_as_the_clock_ran_out() {
    let (mut room, black, _white) = started(1);
    let action = RoomAction::Game(BadukAction::Place { x: 4, y: 4 });
    // A request arriving after the day fires the timeout first (the save path catches up), so
    // the move itself finds the game over.
    room.catch_up(T0 + DAY + 1, &Presence::new());
    assert!(room.act(&black, action, T0 + DAY + 1).is_err());
    assert_eq!(
        room.game.as_ref().unwrap().result().unwrap().reason,
        EndReason::TimeLoss
    );
}

#[test]
fn correspondence_a_player_away_for_days_is_never_forfeited_by_the_disconnect_grace() {
    let (room, black, _white) = started(3);
    let state = room.game.as_ref().unwrap();
    assert_eq!(Baduk::disconnect_grace(state), None);
    // Black was last seen at the start and has been away since: only the clock decides.
    let presence: Presence = [(black.clone(), T0)].into();
    assert_eq!(room.due_at(&presence), Some(T0 + 3 * DAY));
    assert_eq!(
        room.deadline_at(&presence, T0 + DAY),
        Some(T0 + 3 * DAY),
        "shown to players as the clock's deadline"
    );
    // A fast clock still has its grace.
    let fast: BadukOptions = serde_json::from_value(json!({"boardSize": 9})).unwrap();
    let fast_state = Baduk::setup(
        &madang_core::Lineup {
            players: vec![black.clone(), PlayerId::new("w")],
            host: black,
        },
        &fast,
        &mut GameRng::seed_from_u64(0),
        T0,
    )
    .unwrap();
    assert!(Baduk::disconnect_grace(&fast_state).is_some());
}

#[test]
fn correspondence_the_dead_stone_agreement_waits_the_days_of_a_move() {
    let (mut room, black, white) = started(7);
    play(&mut room, &black, json!({"type": "pass"}), T0 + DAY);
    play(&mut room, &white, json!({"type": "pass"}), T0 + 2 * DAY);
    let state = room.game.as_ref().unwrap();
    assert_eq!(state.phase(), Phase::Scoring);
    assert_eq!(Baduk::deadline(state), Some(T0 + 2 * DAY + 7 * DAY));
    assert!(room.catch_up(T0 + 8 * DAY, &Presence::new()).is_empty());
}

#[test]
fn correspondence_a_running_slow_game_is_never_expired_and_its_expiry_stays_bounded() {
    // The longest a running room waits for its next change is one move (7 days at most) plus the
    // sweeper's minute; the room is kept 30 days past its last change, so it never expires while
    // the game runs, and never lives more than 30 days past its last change.
    let most = *BadukOptions::DAYS_PER_MOVE.iter().max().unwrap();
    assert!(u64::from(most) * DAY < PLAYING_TTL_MS);
    let (mut room, black, white) = started(most);
    let nobody = Presence::new();
    let mut now = T0;
    for (i, (x, y)) in [(2, 2), (6, 6), (2, 6), (6, 2)].into_iter().enumerate() {
        let deadline = room.due_at(&nobody).unwrap();
        assert!(
            room.expires_at() > deadline,
            "move {i}: expiry after the deadline"
        );
        assert_eq!(room.expires_at(), room.updated_at + PLAYING_TTL_MS);
        // Each player takes all but an hour of their week.
        now = deadline - 3_600_000;
        let who = if i % 2 == 0 { &black } else { &white };
        play(
            &mut room,
            who,
            json!({"type": "place", "x": x, "y": y}),
            now,
        );
    }
    assert!(now - T0 > 27 * DAY, "four moves took almost four weeks");
    assert_eq!(room.status(), Status::Playing);
    let deadline = room.due_at(&nobody).unwrap();
    assert!(room.expires_at() > deadline);
    // Nobody moves again: the sweeper's catch-up ends the game, then the finished room's TTL.
    room.catch_up(deadline + 1, &nobody);
    assert_eq!(room.status(), Status::Finished);
    assert_eq!(
        room.expires_at(),
        deadline + madang_core::room::FINISHED_TTL_MS
    );
}

#[test]
fn correspondence_the_stored_room_keeps_its_days_and_the_rematch_carries_the_clock() {
    let (mut room, black, _white) = started(3);
    let any = AnyRoom::Baduk(room.clone());
    let back = AnyRoom::decode(&any.encode()).unwrap();
    assert_eq!(back, any);
    let AnyRoom::Baduk(back) = back else {
        unreachable!()
    };
    assert_eq!(back.options.time_control.kind, ClockKind::Correspondence);
    assert_eq!(back.options.time_control.days_per_move, 3);
    play(&mut room, &black, json!({"type": "resign"}), T0 + DAY);
    let rematch = room
        .rematch_lobby(
            "rematchR00m00000000000".into(),
            &black,
            GameRng::seed_from_u64(1),
            T0 + DAY,
        )
        .unwrap();
    assert_eq!(rematch.options.time_control, room.options.time_control);
}

#[test]
fn correspondence_a_room_stored_before_the_clock_existed_reads_one_day_per_move() {
    let path = format!(
        "{}/tests/fixtures/format4/baduk_playing.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    let AnyRoom::Baduk(room) = AnyRoom::decode(&std::fs::read(path).unwrap()).unwrap() else {
        panic!("a 바둑 room")
    };
    assert_eq!(room.options.time_control.days_per_move, 1);
    assert_ne!(room.options.time_control.kind, ClockKind::Correspondence);
}

#[test]
fn correspondence_reads_in_the_rule_line_the_schema_and_sgf() {
    let (room, ..) = started(2);
    let view = serde_json::to_value(room.view(None, &Presence::new(), T0)).unwrap();
    let text = view.to_string();
    assert!(text.contains("느린 대국(한 수에 2일)"), "{text}");
    let schema = BadukOptions::schema();
    let slow = schema.presets.iter().find(|p| p.name == "slow").unwrap();
    assert_eq!(slow.label, "느린 대국");
    assert!(slow.help.contains("하루에 한 수"));
    assert_eq!(slow.options["timeControl"]["kind"], "correspondence");
    assert_eq!(slow.options["timeControl"]["daysPerMove"], 1);
    let days = schema.option("timeControl.daysPerMove").unwrap();
    assert_eq!(days.value_label(&json!(7)), Some("일주일"));
    let kind = schema.option("timeControl.kind").unwrap();
    assert!(
        kind.value_label(&json!("correspondence"))
            .unwrap()
            .contains("느린 대국")
    );
    let sgf = madang_core::baduk::sgf::of_room(&room);
    assert!(sgf.contains("OT[2 days per move]"), "{sgf}");
    assert!(!sgf.contains("TM["), "no main time to write: {sgf}");
}

#[test]
fn push_subscriptions_are_three_a_seat_renewed_by_endpoint_and_follow_the_rematch() {
    use madang_core::room::{MAX_PUSH_PER_SEAT, PushSubscription};
    let (mut room, black, white) = started(1);
    let sub = |player: &PlayerId, n: u32| PushSubscription {
        player: player.clone(),
        endpoint: format!("https://fcm.googleapis.com/fcm/send/{n}"),
        p256dh: "k".into(),
        auth: "a".into(),
    };
    let version = room.version;
    for n in 0..5 {
        room.subscribe(sub(&black, n), T0 + 1);
    }
    room.subscribe(sub(&black, 4), T0 + 1);
    room.subscribe(sub(&white, 9), T0 + 1);
    assert_eq!(room.version, version + 7, "each one an accepted change");
    let mine: Vec<&str> = room
        .subscriptions_of(&black)
        .map(|s| s.endpoint.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(mine.len(), MAX_PUSH_PER_SEAT);
    assert_eq!(
        mine,
        ["2", "3", "4"],
        "the oldest go first; renewing moves none"
    );
    assert!(
        !room.unsubscribe(&white, &sub(&black, 2).endpoint, T0 + 2),
        "not white's"
    );
    assert!(room.unsubscribe(&black, &sub(&black, 2).endpoint, T0 + 2));
    assert!(room.forget_endpoint(&sub(&white, 9).endpoint, T0 + 2));
    assert_eq!(room.awaited_people(), std::slice::from_ref(&black));
    let any = AnyRoom::Baduk(room.clone());
    assert_eq!(AnyRoom::decode(&any.encode()).unwrap(), any);
    play(&mut room, &black, json!({"type": "resign"}), T0 + 3);
    assert!(room.awaited_people().is_empty());
    let rematch = room
        .rematch_lobby(
            "rematchR00m00000000000".into(),
            &black,
            GameRng::seed_from_u64(1),
            T0 + 4,
        )
        .unwrap();
    assert_eq!(rematch.push, room.push);
    // The view shows none of it.
    let view = serde_json::to_string(&room.view(Some(&black), &Presence::new(), T0 + 5)).unwrap();
    assert!(!view.contains("fcm.googleapis.com"));
}
