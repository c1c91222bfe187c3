//! The live channel over real sockets, against the real `madang` binary (`GET /live`): a client
//! that only listens sees every version of whole games — timeouts fired by the sweeper included
//! — a dropped client catches up, spectators see versions, and bad tokens, bad frames and
//! floods are refused. Build the binaries first: `cargo build -p madang-functions --bins --features dev`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use madang_tests::live::{
    Heard, Live, listen_to_a_baduk_game_lost_on_time, listen_to_a_whole_yut_game, live_url,
    spawn_madang,
};
use serde_json::json;

#[tokio::test]
async fn a_listener_sees_every_version_of_a_whole_yut_game_with_sweeper_timeouts() {
    let server = spawn_madang().await;
    listen_to_a_whole_yut_game(&server.app, || async {}).await;
}

#[tokio::test]
async fn a_listener_sees_every_version_of_a_baduk_game_lost_on_time_by_the_sweeper() {
    let server = spawn_madang().await;
    listen_to_a_baduk_game_lost_on_time(&server.app, || async {}).await;
}

#[tokio::test]
async fn a_dropped_listener_catches_up_on_hello_and_spectators_hear_joins() {
    let server = spawn_madang().await;
    let app = &server.app;
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 3).await;
    let view = app.room(&room, None).await;
    let url = live_url(&view);
    let mut spectator = Live::watch(&url, &room, None, 1).await;
    let mut player = Live::watch(&url, &room, Some(&host.token), 1).await;
    let friend = app.join(&room, "친구").await;
    assert_eq!(spectator.version().await, 2, "a join is announced");
    assert_eq!(player.version().await, 2);
    // The player's phone drops; the room moves on meanwhile.
    drop(player);
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    assert_eq!(spectator.version().await, 3);
    let current = app.room(&room, None).await;
    let who = if current["state"]["currentPlayer"] == host.id.as_str() {
        &host
    } else {
        &friend
    };
    app.act_ok(&room, who, json!({"type": "THROW"})).await;
    assert_eq!(spectator.version().await, 4);
    // Back: hello with the last version it saw, and it is told where the room is at once.
    let mut back = Live::watch(&url, &room, Some(&host.token), 2).await;
    assert_eq!(back.version().await, 4);
    // A client already up to date hears nothing until the next change; a ping is answered.
    let mut current_client = Live::watch(&url, &room, None, 4).await;
    current_client.send(r#"{"type":"ping"}"#).await;
    assert_eq!(current_client.next().await, Heard::Pong);
    // A leave is announced too.
    app.act_ok(&room, &friend, json!({"type": "leave"})).await;
    assert_eq!(current_client.version().await, 5);
    assert_eq!(back.version().await, 5);
}

#[tokio::test]
async fn bad_tokens_unknown_rooms_bad_frames_and_floods_are_refused() {
    let server = spawn_madang().await;
    let app = &server.app;
    let (room, _host) = app.create("yut", json!({}), 4).await;
    let url = live_url(&app.room(&room, None).await);

    let mut bad_token = Live::watch(&url, &room, Some("not-a-token"), 0).await;
    assert_eq!(bad_token.refused().await, "UNAUTHORIZED");

    let mut unknown = Live::watch(&url, "AAAAAAAAAAAAAAAAAAAAAA", None, 0).await;
    assert_eq!(unknown.refused().await, "ROOM_NOT_FOUND");

    for frame in [
        "not json",
        r#"{"type":"hello"}"#,
        r#"{"type":"shout","roomId":"x"}"#,
        r#"{"type":"hello","roomId":"x","since":-1}"#,
    ] {
        let mut bad = Live::connect(&url).await;
        bad.send(frame).await;
        assert_eq!(bad.refused().await, "BAD_MESSAGE", "{frame}");
    }

    // A frame over the size limit closes the socket.
    let mut huge = Live::connect(&url).await;
    huge.send(&format!(
        r#"{{"type":"ping","pad":"{}"}}"#,
        "x".repeat(4096)
    ))
    .await;
    assert!(matches!(huge.next().await, Heard::Closed(_)));

    // A flood of pings: the burst is answered, then RATE_LIMITED and a close.
    let mut flood = Live::watch(&url, &room, None, 1).await;
    for _ in 0..100 {
        flood.send(r#"{"type":"ping"}"#).await;
    }
    assert_eq!(flood.refused().await, "RATE_LIMITED");

    // Hellos per connection are bounded (paced under the frame rate: only their count is
    // tested here).
    let mut chatty = Live::connect(&url).await;
    for _ in 0..16 {
        chatty.hello(&room, None, 1).await;
        chatty.send(r#"{"type":"ping"}"#).await;
        assert_eq!(chatty.next().await, Heard::Pong);
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    chatty.hello(&room, None, 1).await;
    assert_eq!(chatty.refused().await, "RATE_LIMITED");

    // Connections per room are bounded.
    let mut watchers = Vec::new();
    for _ in 0..32 {
        let mut w = Live::watch(&url, &room, None, 1).await;
        w.send(r#"{"type":"ping"}"#).await;
        assert_eq!(w.next().await, Heard::Pong);
        watchers.push(w);
    }
    let mut one_too_many = Live::watch(&url, &room, None, 1).await;
    assert_eq!(one_too_many.refused().await, "RATE_LIMITED");
    drop(watchers);
}

#[tokio::test]
async fn a_socket_does_not_outlive_its_room() {
    let server = spawn_madang().await;
    let app = &server.app;
    let (room, _host) = app.create("yut", json!({}), 6).await;
    let url = live_url(&app.room(&room, None).await);
    let mut listener = Live::watch(&url, &room, None, 1).await;
    // Far past any room's lifetime on the dev clock: the room is gone, and so is the socket.
    app.advance_clock(30 * 24 * 60 * 60 * 1000).await;
    assert_eq!(listener.refused().await, "ROOM_NOT_FOUND");
}
