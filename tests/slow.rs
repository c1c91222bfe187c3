//! Slow 바둑 over simulated weeks (DESIGN "Slow 바둑 and 'your turn' notifications"), shared by
//! every suite: the embedded store (`api::slow`), DynamoDB (`dynamodb::slow`) and the Lambda
//! binaries (`lambda::slow`). Time moves on the dev clock (`POST /dev/clock`) only.
//!
//! [`slow_game_until_overdue`] plays a correspondence game (seven days a move) for five weeks —
//! longer than the 30 days a running room is kept past its last change — and leaves black's
//! move overdue with nobody looking; the suite then lets its sweeper (or a read's catch-up) fire
//! it, and [`check_the_slow_game_was_lost_on_time`] reads the result and the rematch.

use std::time::{Duration, Instant};

use madang_infra::RoomStore;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::{Player, TestApp};

/// Days a move in the slow game.
pub const DAYS_PER_MOVE: u64 = 7;
/// One day in milliseconds.
pub const DAY_MS: u64 = 24 * 3600 * 1000;

/// A slow game whose next timeout is overdue.
pub struct SlowGame {
    pub room: String,
    pub black: Player,
    pub white: Player,
    /// The room's version before the timeout fired.
    pub version: u64,
}

/// The options of the slow game.
pub fn slow_options() -> Value {
    json!({
        "boardSize": 9,
        "colorAssignment": "hostBlack",
        "timeControl": {"kind": "correspondence", "daysPerMove": DAYS_PER_MOVE},
    })
}

/// The schema offers the clock and the 느린 대국 preset, and a wrong `daysPerMove` is refused by
/// name with a Korean sentence.
pub async fn check_the_correspondence_options(app: &TestApp) {
    let schema = app.get("/games/baduk", None).await.body;
    let slow = schema["presets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "slow")
        .expect("the 느린 대국 preset");
    assert_eq!(slow["label"], "느린 대국");
    assert_eq!(slow["options"]["timeControl"]["kind"], "correspondence");
    assert_eq!(slow["options"]["timeControl"]["daysPerMove"], 1);
    let days = schema["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["key"] == "timeControl.daysPerMove")
        .expect("the daysPerMove option");
    assert_eq!(days["values"]["oneOf"], json!([1, 2, 3, 7]));
    assert_eq!(days["valueLabels"]["1"], "하루");
    for bad in [5, 0, 4] {
        let r = app
            .post(
                "/rooms",
                None,
                json!({"game": "baduk", "name": "방장", "options": {
                    "timeControl": {"kind": "correspondence", "daysPerMove": bad}}}),
            )
            .await;
        assert_eq!(
            (r.status, r.body["code"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("INVALID_OPTIONS")),
            "{bad}: {:?}",
            r.body
        );
        assert_eq!(r.body["field"], "timeControl.daysPerMove", "{bad}");
    }
}

/// Plays the slow game for five simulated weeks, each player taking six days and 23 hours of
/// their seven, checking the clock as players see it; then moves the clock past black's
/// deadline without loading the room.
pub async fn slow_game_until_overdue(app: &TestApp) -> SlowGame {
    let (room, black) = app.create("baduk", slow_options(), 11).await;
    let white = app.join(&room, "손자").await;
    let started = app.act_ok(&room, &black, json!({"type": "start"})).await;
    let view = &started["room"];
    assert!(
        view["ruleSummary"]
            .as_str()
            .unwrap()
            .contains("느린 대국(한 수에 7일)"),
        "{}",
        view["ruleSummary"]
    );
    let clock = &view["state"]["clock"];
    assert_eq!(clock["kind"], "correspondence");
    assert_eq!(clock["mainMs"]["black"], DAYS_PER_MOVE * DAY_MS);
    let almost = DAYS_PER_MOVE * DAY_MS - 3_600_000;
    let moves = [(2, 2), (6, 6), (2, 6), (6, 2), (4, 4), (4, 2)];
    for (i, (x, y)) in moves.into_iter().enumerate() {
        let who = if i % 2 == 0 { &black } else { &white };
        app.advance_clock(almost).await;
        // Nobody has looked for almost a week: the room is there, the move still on time.
        let view = app.room(&room, Some(who)).await;
        assert_eq!(view["status"], "playing", "move {i}");
        let clock = &view["state"]["clock"];
        let deadline = view["deadlineAt"].as_u64().unwrap();
        assert_eq!(
            deadline,
            clock["turnStartedAt"].as_u64().unwrap() + DAYS_PER_MOVE * DAY_MS,
            "move {i}: the deadline is the clock's, no disconnect grace"
        );
        let moved = app
            .act_ok(&room, who, json!({"type": "place", "x": x, "y": y}))
            .await;
        let clock = &moved["room"]["state"]["clock"];
        assert_eq!(
            clock["mainMs"]["black"],
            DAYS_PER_MOVE * DAY_MS,
            "the days do not add up"
        );
    }
    // Six moves of almost a week each: 41 days, past the 30 a running room is kept unchanged.
    let view = app.room(&room, None).await;
    assert_eq!(view["status"], "playing");
    let version = view["version"].as_u64().unwrap();
    let sgf = app
        .http
        .get(format!("{}/rooms/{room}/sgf", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(sgf.status(), StatusCode::OK);
    let text = sgf.text().await.unwrap();
    assert!(text.contains("OT[7 days per move]"), "{text}");
    // Black never moves again.
    app.advance_clock(DAYS_PER_MOVE * DAY_MS + 60_000).await;
    SlowGame {
        room,
        black,
        white,
        version,
    }
}

/// Waits (up to 20 s) until the stored room has a version after `after`, without a request: the
/// sweeper's work, seen in the store.
pub async fn wait_for_the_store<S: RoomStore>(store: &S, room: &str, after: u64) -> u64 {
    let room = &madang_core::room::RoomId::parse(room).expect("a room id");
    let start = Instant::now();
    loop {
        // Far in the future: an expiry check at the real time must not hide the room.
        let stored = store.load(room, 0).await.unwrap();
        if stored.version > after {
            return stored.version;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the sweeper did not fire the overdue move of {room}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The slow game ended on time (white wins), is kept as a finished room, and its rematch keeps
/// the correspondence clock.
pub async fn check_the_slow_game_was_lost_on_time(app: &TestApp, game: &SlowGame) {
    let view = app.room(&game.room, Some(&game.white)).await;
    assert_eq!(view["status"], "finished", "{}", view["state"]);
    assert_eq!(view["version"].as_u64().unwrap(), game.version + 1);
    let result = &view["state"]["result"];
    assert_eq!(result["reason"], "timeLoss", "{result}");
    assert_eq!(result["winner"], "white");
    let asked = app
        .act_ok(&game.room, &game.black, json!({"type": "rematch"}))
        .await;
    let rematch = asked["room"]["rematchRoomId"].as_str().unwrap().to_owned();
    let lobby = app.room(&rematch, Some(&game.black)).await;
    assert_eq!(
        lobby["options"]["timeControl"],
        json!({"kind": "correspondence", "mainSec": null, "periodSec": 30, "periods": 3,
               "incSec": 10, "daysPerMove": DAYS_PER_MOVE}),
    );
}
