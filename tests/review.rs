//! The 바둑 review of a finished game over HTTP (DESIGN "Replay", `GET /rooms/{id}/review`):
//! drivers any suite runs against its server.

use std::time::Duration;

use serde_json::{Value, json};

use crate::TestApp;
use crate::games::random_place;

/// Plays a short seeded 9줄 game to its end (white resigns after `moves` stones); returns the
/// room and how many moves the game holds.
pub async fn finished_baduk_game(app: &TestApp, moves: usize) -> (String, usize) {
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            11,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    let mut draw = 3;
    for _ in 0..moves {
        let view = app.room(&room, Some(&black)).await;
        let me = if view["state"]["turn"] == "black" {
            &black
        } else {
            &white
        };
        let mine = app.room(&room, Some(me)).await;
        app.act_ok(&room, me, random_place(&mine["state"], &mut draw))
            .await;
    }
    app.act_ok(&room, &white, json!({"type": "resign"})).await;
    let view = app.room(&room, None).await;
    assert_eq!(view["status"], "finished");
    (room, moves)
}

/// Asks for the review until it is kept (200), checking every 202 on the way.
pub async fn poll_review(app: &TestApp, room: &str) -> Value {
    let path = format!("/rooms/{room}/review");
    for _ in 0..600 {
        let reply = app.get(&path, None).await;
        match reply.status.as_u16() {
            200 => return reply.body,
            202 => {
                assert_eq!(
                    reply.headers.get("retry-after").unwrap().to_str().unwrap(),
                    "2"
                );
                assert_eq!(
                    reply.body,
                    json!({"status": "computing", "retryAfterSecs": 2})
                );
            }
            other => panic!("review: {other} {}", reply.body),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the review of {room} was not kept within a minute");
}

/// A finished game's review: its shape, label, one lead a move, at most three swings largest
/// first, and the same kept body on a second request.
pub async fn check_a_finished_game_is_reviewed_once(app: &TestApp) {
    let (room, moves) = finished_baduk_game(app, 14).await;
    let review = poll_review(app, &room).await;
    assert_eq!(review["label"], "참고용");
    let leads = review["moves"].as_array().unwrap();
    assert_eq!(leads.len(), moves, "one lead a move");
    for (i, m) in leads.iter().enumerate() {
        assert_eq!(m["n"], i as u64 + 1);
        assert!(m["scoreLead"].as_f64().unwrap().abs() <= 81.0 + 10.0);
    }
    let swings = review["swings"].as_array().unwrap();
    assert!(!swings.is_empty() && swings.len() <= 3);
    let deltas: Vec<f64> = swings
        .iter()
        .map(|s| s["delta"].as_f64().unwrap().abs())
        .collect();
    assert!(deltas.windows(2).all(|w| w[0] >= w[1]), "{deltas:?}");
    for s in swings {
        let n = s["n"].as_u64().unwrap();
        assert!((1..=moves as u64).contains(&n));
    }
    let again = app.get(&format!("/rooms/{room}/review"), None).await;
    assert_eq!(again.status.as_u16(), 200);
    assert_eq!(
        again.body, review,
        "the kept review, not a second computation"
    );
}

/// What has no review: a 윷놀이 room (404 NOT_AVAILABLE), a 바둑 game still being played or a
/// lobby (422 NOT_FINISHED), an unknown room (404 ROOM_NOT_FOUND).
pub async fn check_what_has_no_review(app: &TestApp) {
    let (yut, _) = app.create("yut", json!({}), 5).await;
    let reply = app.get(&format!("/rooms/{yut}/review"), None).await;
    assert_eq!(reply.status.as_u16(), 404);
    assert_eq!(reply.body["code"], "NOT_AVAILABLE");

    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            5,
        )
        .await;
    let lobby = app.get(&format!("/rooms/{room}/review"), None).await;
    assert_eq!(lobby.status.as_u16(), 422);
    assert_eq!(lobby.body["code"], "NOT_FINISHED");
    app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    app.act_ok(&room, &black, json!({"type": "place", "x": 4, "y": 4}))
        .await;
    let playing = app.get(&format!("/rooms/{room}/review"), None).await;
    assert_eq!(playing.status.as_u16(), 422);
    assert_eq!(playing.body["code"], "NOT_FINISHED");
    assert!(playing.body["detail"].as_str().unwrap().contains("끝난 뒤"));

    let unknown = app.get("/rooms/AAAAAAAAAAAAAAAAAAAAAA/review", None).await;
    assert_eq!(unknown.status.as_u16(), 404);
    assert_eq!(unknown.body["code"], "ROOM_NOT_FOUND");
}
