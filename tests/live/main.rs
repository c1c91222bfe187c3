//! The live channel over real sockets, against the real `madang` binary (`GET /live`): a client
//! that only listens sees every version of whole games — timeouts fired by the sweeper included
//! — a dropped client catches up, spectators see versions, and bad tokens, bad frames and
//! floods are refused. Build the binaries first: `cargo build -p madang-functions --bins --features dev`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use madang_functions::live::{
    CONNECTIONS_PER_ROOM, FRAME_BURST, HELLOS_PER_CONNECTION, SPECTATORS_PER_ROOM,
};
use madang_tests::live::{
    Heard, Live, listen_to_a_baduk_game_lost_on_time, listen_to_a_whole_yut_game, live_url,
    spawn_madang, spawn_madang_with,
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
    listen_to_a_baduk_game_lost_on_time(&server.app, || async {}, true).await;
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
    let (room, host) = app.create("yut", json!({}), 4).await;
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

    // Hellos per connection are bounded. Each hello is from version 0, so the server answers it
    // with the room's version: proof it was taken, without a ping. The 17 frames stay inside
    // the frame burst (`FRAME_BURST`), so only their count is tested here, with no pacing.
    const _: () = assert!(HELLOS_PER_CONNECTION < FRAME_BURST);
    let mut chatty = Live::connect(&url).await;
    for _ in 0..HELLOS_PER_CONNECTION {
        chatty.hello(&room, None, 0).await;
        assert_eq!(chatty.next().await, Heard::Version(1));
    }
    chatty.hello(&room, None, 0).await;
    assert_eq!(chatty.refused().await, "RATE_LIMITED");

    // Connections per room are bounded: a few spectators, the rest the players'.
    let mut watchers = Vec::new();
    for _ in 0..SPECTATORS_PER_ROOM {
        let mut w = Live::connect(&url).await;
        w.admitted(&room, None, 1).await.unwrap();
        watchers.push(w);
    }
    let mut one_too_many = Live::watch(&url, &room, None, 1).await;
    assert_eq!(one_too_many.refused().await, "RATE_LIMITED");
    for _ in SPECTATORS_PER_ROOM..CONNECTIONS_PER_ROOM {
        let mut w = Live::connect(&url).await;
        w.admitted(&room, Some(&host.token), 1).await.unwrap();
        watchers.push(w);
    }
    let mut one_too_many = Live::watch(&url, &room, Some(&host.token), 1).await;
    assert_eq!(one_too_many.refused().await, "RATE_LIMITED");
    drop(watchers);
}

#[tokio::test]
async fn a_crowd_of_spectators_never_keeps_a_player_off_the_channel() {
    let server = spawn_madang().await;
    let app = &server.app;
    let (room, host) = app.create("yut", json!({}), 9).await;
    let guest = app.join(&room, "손님").await;
    let url = live_url(&app.room(&room, None).await);
    // 32 sockets without a token: only the gallery's few places are theirs.
    let mut gallery = Vec::new();
    let mut refused = 0;
    for _ in 0..CONNECTIONS_PER_ROOM {
        let mut w = Live::connect(&url).await;
        match w.admitted(&room, None, 2).await {
            Ok(()) => gallery.push(w),
            Err(code) => {
                assert_eq!(code, "RATE_LIMITED");
                refused += 1;
            }
        }
    }
    assert_eq!(gallery.len(), SPECTATORS_PER_ROOM);
    assert_eq!(refused, CONNECTIONS_PER_ROOM - SPECTATORS_PER_ROOM);
    // The players' own hellos are still taken, and they hear the room.
    let mut host_socket = Live::connect(&url).await;
    host_socket
        .admitted(&room, Some(&host.token), 2)
        .await
        .unwrap();
    let mut guest_socket = Live::connect(&url).await;
    guest_socket
        .admitted(&room, Some(&guest.token), 2)
        .await
        .unwrap();
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    assert_eq!(guest_socket.version().await, 3);
    // A spectator who becomes a player on the same socket (a join, then a hello with the new
    // token) moves from the gallery's places to the players'; the freed place is a spectator's.
    let mut switcher = gallery.pop().unwrap();
    switcher
        .admitted(&room, Some(&guest.token), 3)
        .await
        .unwrap();
    let mut next = Live::connect(&url).await;
    next.admitted(&room, None, 3).await.unwrap();
}

#[tokio::test]
async fn one_address_holds_no_more_sockets_than_its_connection_cap() {
    let cap = 4;
    let server = spawn_madang_with(&[("MADANG_MAX_CONNECTIONS_PER_CLIENT", "4")]).await;
    let app = &server.app;
    let (room, _host) = app.create("yut", json!({}), 10).await;
    let url = live_url(&app.room(&room, None).await);
    // Sockets from 127.0.0.1 until the address's cap refuses one (the suite's own HTTP
    // connections from the same address count too).
    let mut open = Vec::new();
    let mut refused = None;
    for _ in 0..3 * cap {
        match Live::try_connect(&url).await {
            Ok(mut socket) => {
                socket.admitted(&room, None, 1).await.unwrap();
                open.push(socket);
            }
            Err(status) => {
                refused = Some(status);
                break;
            }
        }
    }
    assert_eq!(refused, Some(429), "{} sockets were taken", open.len());
    assert!(
        open.len() <= cap,
        "{} sockets for a cap of {cap}",
        open.len()
    );
    // A socket that closes gives its place back.
    drop(open.pop());
    let mut again = loop {
        if let Ok(socket) = Live::try_connect(&url).await {
            break socket;
        }
        // Until the server has seen the close (a condition, polled).
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    again.admitted(&room, None, 1).await.unwrap();
}

#[tokio::test]
async fn a_client_that_does_not_read_is_dropped_after_the_send_timeout() {
    let server = spawn_madang_with(&[("MADANG_LIVE_SEND_TIMEOUT_MS", "300")]).await;
    let app = &server.app;
    let (room, host) = app.create("yut", json!({"turnSeconds": 30}), 11).await;
    let url = live_url(&app.room(&room, None).await);
    let mut stalled = Live::connect_slow_reader(&url).await;
    stalled.admitted(&room, None, 1).await.unwrap();
    // The others of the gallery read everything.
    let mut readers = tokio::task::JoinSet::new();
    for _ in 1..SPECTATORS_PER_ROOM {
        let mut w = Live::connect(&url).await;
        w.admitted(&room, None, 1).await.unwrap();
        readers.spawn(async move { while !matches!(w.next().await, Heard::Closed(_)) {} });
    }
    // Changes, each announced with the spectator's view of the room, until the server gives
    // the stalled client up: once its sends wait (its buffers are full) it is dropped after the
    // send timeout, and its gallery place is free again. A new spectator is tried after every
    // few changes (a condition, not a time); a few thousand changes at most.
    let mut last = 1;
    let mut changes = 0;
    loop {
        for _ in 0..25 {
            let seconds = if changes % 2 == 0 { 60 } else { 30 };
            let reply = app
                .act_ok(
                    &room,
                    &host,
                    json!({"type": "setOptions", "options": {"turnSeconds": seconds}}),
                )
                .await;
            last = reply["version"].as_u64().unwrap();
            changes += 1;
        }
        let mut w = Live::connect(&url).await;
        if w.admitted(&room, None, last).await.is_ok() {
            break;
        }
        assert!(
            changes < 6_000,
            "the client that does not read still holds its place after {changes} changes"
        );
    }
    // What the stalled client gets now is what was in flight, then the end: never the last
    // versions.
    let mut heard = Vec::new();
    loop {
        match stalled.next().await {
            Heard::Version(v) if v < last => heard.push(v),
            Heard::Version(v) => {
                panic!("the stalled client heard version {v} of {last}: never dropped")
            }
            Heard::Closed(_) => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(
        heard.last().is_none_or(|v| *v < last),
        "the stalled client was dropped before the end: heard {} versions, the last {:?}, of {last}",
        heard.len(),
        heard.last()
    );
}

#[tokio::test]
async fn a_page_of_another_origin_cannot_open_the_channel() {
    let server = spawn_madang().await;
    let app = &server.app;
    let (room, _host) = app.create("yut", json!({}), 12).await;
    let url = live_url(&app.room(&room, None).await);
    let own = url.replace("ws://", "http://").replace("/live", "");
    assert_eq!(
        Live::connect_from(&url, "https://evil.example").await.err(),
        Some(403)
    );
    // The server's own pages may, and so may a client that is not a browser (no Origin).
    Live::connect_from(&url, &own)
        .await
        .unwrap()
        .admitted(&room, None, 1)
        .await
        .unwrap();
    Live::connect(&url)
        .await
        .admitted(&room, None, 1)
        .await
        .unwrap();
    // Origins the operator names may too.
    let server = spawn_madang_with(&[(
        "MADANG_ALLOWED_ORIGINS",
        "https://app.example, https://other.example",
    )])
    .await;
    let app = &server.app;
    let (room, _host) = app.create("yut", json!({}), 13).await;
    let url = live_url(&app.room(&room, None).await);
    Live::connect_from(&url, "https://app.example")
        .await
        .unwrap()
        .admitted(&room, None, 1)
        .await
        .unwrap();
    assert_eq!(
        Live::connect_from(&url, "https://evil.example").await.err(),
        Some(403)
    );
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

#[tokio::test]
async fn chat_reaches_exactly_the_sockets_whose_viewer_may_see_it_in_a_team_game() {
    let server = spawn_madang().await;
    madang_tests::live_chat::check_the_visibility_matrix_over_sockets(&server.app).await;
}

#[tokio::test]
async fn departed_and_kicked_members_sockets_hear_no_more_chat() {
    let server = spawn_madang().await;
    madang_tests::live_chat::check_departed_and_kicked_sockets_hear_no_more_chat(&server.app).await;
}

#[tokio::test]
async fn players_who_leave_a_running_or_finished_game_hear_no_more_chat() {
    let server = spawn_madang().await;
    madang_tests::live_chat::check_players_who_leave_a_game_hear_no_more_chat(&server.app).await;
}

/// Random rooms (윷놀이 individual and team, 바둑; lobby or playing; senders among the players
/// and the gallery, to the room or the team): no viewer ever receives a message outside its
/// rights, by socket or by poll, and every message it may see arrives by both. A bounded number
/// of cases (each a room with its sockets on one server), so the run stays near half a minute.
#[test]
fn no_viewer_receives_a_message_outside_its_rights_by_socket_or_by_poll() {
    use madang_tests::live_chat::{RandomRoom, check_a_random_room};
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let runtime = tokio::runtime::Runtime::new().unwrap();
    // Many rooms from one address: the per-client creation and join budgets are lifted.
    let server = runtime.block_on(madang_tests::live::spawn_madang_with(&[
        ("MADANG_LIMIT_CREATES_PER_MIN", "0"),
        ("MADANG_LIMIT_JOINS_PER_MIN", "0"),
    ]));
    let rooms = (
        0u8..3,
        0usize..3,
        any::<bool>(),
        proptest::collection::vec((0usize..7, any::<bool>()), 1..8),
    )
        .prop_map(|(game, size, start, messages)| RandomRoom {
            game,
            size,
            start,
            messages,
        });
    let mut runner = TestRunner::new(Config {
        cases: 24,
        max_shrink_iters: 32,
        failure_persistence: None,
        ..Config::default()
    });
    let seed = std::sync::atomic::AtomicU64::new(200);
    let sent = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&rooms, |case| {
            let seed = seed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let n = runtime.block_on(check_a_random_room(&server.app, &case, seed));
            sent.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
    assert!(sent.into_inner() >= 24, "every case sent messages");
}
