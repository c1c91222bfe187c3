//! The live channel on the Lambda path: the real `api`, `sweeper` and `live` binaries behind
//! the emulator's HTTP front door and its API Gateway WebSocket front, on dynalite. Listeners
//! hear whole games — the sweeper function's timeouts included — through `PostToConnection`
//! from several `api` environments; a connection that vanished without its `$disconnect` is
//! cleaned up by the first post that meets `410 Gone`.

use std::sync::Arc;

use madang_tests::lambda::{LambdaStack, StackConfig};
use madang_tests::live::{
    Heard, Live, listen_to_a_baduk_game_lost_on_time, listen_to_a_whole_yut_game, live_url,
};
use serde_json::json;

use madang_infra::emulator::{dynalite, dynalite_store};

async fn live_stack(tag: &str) -> LambdaStack {
    let store = Arc::new(dynalite_store(tag).await);
    LambdaStack::start(
        store,
        &dynalite(),
        StackConfig {
            api_environments: 3,
            live: true,
            ..StackConfig::default()
        },
    )
    .await
}

#[tokio::test]
async fn listeners_hear_whole_games_through_api_gateway_with_the_sweeper_functions_timeouts() {
    let stack = live_stack("live-games").await;
    let sweep = || async {
        stack.sweep().await;
    };
    listen_to_a_whole_yut_game(&stack.app, sweep).await;
    listen_to_a_baduk_game_lost_on_time(&stack.app, sweep, false).await;
    let (posted, _) = stack.live_posts();
    assert!(posted > 0);
}

#[tokio::test]
async fn a_vanished_connection_is_forgotten_at_the_first_410_and_refusals_close() {
    let stack = live_stack("live-gone").await;
    let app = &stack.app;
    let (room, host) = app.create("yut", json!({}), 8).await;
    let url = live_url(&app.room(&room, None).await);
    assert!(
        url.starts_with("ws://127.0.0.1:"),
        "the stage URL as ws://: {url}"
    );

    let mut listener = Live::watch(&url, &room, Some(&host.token), 1).await;
    listener.send(r#"{"type":"ping"}"#).await;
    assert_eq!(listener.next().await, Heard::Pong);
    app.join(&room, "친구").await;
    assert_eq!(listener.version().await, 2);
    assert_eq!(stack.store.live_watchers(&room).await.unwrap().len(), 1);

    // The connection goes without API Gateway running $disconnect: its registration stays...
    stack.vanish_live_connections();
    assert!(matches!(listener.next().await, Heard::Closed(_)));
    assert_eq!(stack.store.live_watchers(&room).await.unwrap().len(), 1);
    // ...until the next change posts to it, meets 410 Gone, and deletes it.
    app.join(&room, "또 친구").await;
    assert_eq!(stack.live_posts().1, 1, "one post met 410 Gone");
    assert!(stack.store.live_watchers(&room).await.unwrap().is_empty());

    // A clean close runs $disconnect, which removes the registration.
    let mut spectator = Live::watch(&url, &room, None, 0).await;
    assert_eq!(spectator.version().await, 3);
    assert_eq!(stack.store.live_watchers(&room).await.unwrap().len(), 1);
    drop(spectator);
    // Once the front has run the $disconnect (the function answered it), the registration is
    // gone: waited on as an event, not guessed as a time.
    stack.wait_for_disconnects(1).await;
    assert!(
        stack.store.live_watchers(&room).await.unwrap().is_empty(),
        "the $disconnect removed the registration"
    );
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    assert_eq!(stack.live_posts().1, 1, "nothing left to meet 410");

    // Refusals: a bad token, an unknown room, a bad frame, too many hellos.
    let mut bad = Live::watch(&url, &room, Some("nope"), 0).await;
    assert_eq!(bad.refused().await, "UNAUTHORIZED");
    let mut unknown = Live::watch(&url, "AAAAAAAAAAAAAAAAAAAAAA", None, 0).await;
    assert_eq!(unknown.refused().await, "ROOM_NOT_FOUND");
    let mut garbled = Live::connect(&url).await;
    garbled.send("{").await;
    assert_eq!(garbled.refused().await, "BAD_MESSAGE");
    let mut chatty = Live::connect(&url).await;
    for _ in 0..16 {
        chatty.hello(&room, None, 3).await;
        chatty.send(r#"{"type":"ping"}"#).await;
        loop {
            match chatty.next().await {
                Heard::Pong => break,
                Heard::Version(_) => continue,
                other => panic!("{other:?}"),
            }
        }
    }
    chatty.hello(&room, None, 3).await;
    assert_eq!(chatty.refused().await, "RATE_LIMITED");
}

#[tokio::test]
async fn a_team_message_reaches_the_teammates_connection_and_not_the_other_teams() {
    let stack = live_stack("live-chat").await;
    madang_tests::live_chat::check_a_team_message_reaches_the_teammate_only(&stack.app).await;
}

#[tokio::test]
async fn players_who_leave_a_running_or_finished_game_hear_no_more_chat_through_api_gateway() {
    let stack = live_stack("live-leave").await;
    madang_tests::live_chat::check_players_who_leave_a_game_hear_no_more_chat(&stack.app).await;
}

#[tokio::test]
async fn a_connection_that_floods_is_closed_and_spectators_take_only_their_places() {
    use madang_infra::live_registry::{FRAMES_PER_WINDOW, MAX_SPECTATORS_PER_ROOM};
    let stack = live_stack("live-bounds").await;
    let app = &stack.app;
    let (room, host) = app.create("yut", json!({}), 14).await;
    let url = live_url(&app.room(&room, None).await);

    // Frames are counted per connection, across the function's environments: a flood of pings
    // is answered up to the bound, then RATE_LIMITED and a close. The dev clock is moved to the
    // start of a counting window first, so the whole flood falls in one.
    let now = app
        .post("/dev/clock", None, json!({"advanceMs": 0}))
        .await
        .body["now"]
        .as_u64()
        .unwrap();
    let window = madang_infra::live_registry::FRAME_WINDOW_MS;
    app.advance_clock(window - now % window + 1).await;
    let mut flood = Live::connect(&url).await;
    flood.admitted(&room, None, 1).await.unwrap();
    let mut pongs = 0;
    for _ in 0..FRAMES_PER_WINDOW + 5 {
        flood.send(r#"{"type":"ping"}"#).await;
    }
    let code = loop {
        match flood.next().await {
            Heard::Pong => pongs += 1,
            Heard::Version(_) => {}
            Heard::Error(code) => break code,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(code, "RATE_LIMITED");
    assert_eq!(
        pongs,
        FRAMES_PER_WINDOW - 2,
        "the hello and its ping counted too"
    );
    assert!(matches!(flood.next().await, Heard::Closed(_)));
    stack.wait_for_disconnects(1).await;

    // Spectators, each from an address of their own: a few places, and the players keep theirs.
    let mut gallery = Vec::new();
    for i in 0..MAX_SPECTATORS_PER_ROOM {
        let mut w = Live::connect_as(&url, &format!("127.0.0.{}", 10 + i))
            .await
            .unwrap();
        w.admitted(&room, None, 1).await.unwrap();
        gallery.push(w);
    }
    let mut one_more = Live::connect_as(&url, "127.0.0.30").await.unwrap();
    assert_eq!(
        one_more.admitted(&room, None, 1).await,
        Err("RATE_LIMITED".into())
    );
    let mut player = Live::connect_as(&url, "127.0.0.31").await.unwrap();
    player.admitted(&room, Some(&host.token), 1).await.unwrap();
    assert_eq!(
        stack.store.live_watchers(&room).await.unwrap().len(),
        MAX_SPECTATORS_PER_ROOM as usize + 1
    );
    // A spectator that goes frees its place for the next one.
    drop(gallery.pop());
    stack.wait_for_disconnects(3).await;
    let mut next = Live::connect_as(&url, "127.0.0.32").await.unwrap();
    next.admitted(&room, None, 1).await.unwrap();
}

#[tokio::test]
async fn one_client_registers_only_a_few_connections_and_other_origins_are_refused() {
    use madang_infra::live_registry::MAX_PER_CLIENT;
    let stack = LambdaStack::start(
        Arc::new(dynalite_store("live-client").await),
        &dynalite(),
        StackConfig {
            api_environments: 1,
            live: true,
            live_env: vec![("MADANG_APP_ORIGIN".into(), "https://madang.example".into())],
            ..StackConfig::default()
        },
    )
    .await;
    let app = &stack.app;
    let (room, host) = app.create("yut", json!({}), 15).await;
    let (other_room, other_host) = app.create("baduk", json!({}), 16).await;
    let url = live_url(&app.room(&room, None).await);

    // One address: its registered connections are bounded over all rooms, a player's too.
    let mut mine = Vec::new();
    for i in 0..MAX_PER_CLIENT {
        let mut w = Live::connect_as(&url, "127.0.0.40").await.unwrap();
        let (which, token) = if i % 2 == 0 {
            (&room, &host.token)
        } else {
            (&other_room, &other_host.token)
        };
        w.admitted(which, Some(token), 1).await.unwrap();
        mine.push(w);
    }
    let mut over = Live::connect_as(&url, "127.0.0.40").await.unwrap();
    assert_eq!(
        over.admitted(&room, Some(&host.token), 1).await,
        Err("RATE_LIMITED".into())
    );
    stack.wait_for_disconnects(1).await;
    // Another address is another client; and one that closes gives its place back.
    let mut elsewhere = Live::connect_as(&url, "127.0.0.41").await.unwrap();
    elsewhere.admitted(&room, None, 1).await.unwrap();
    drop(mine.pop());
    stack.wait_for_disconnects(2).await;
    let mut again = Live::connect_as(&url, "127.0.0.40").await.unwrap();
    again.admitted(&room, None, 1).await.unwrap();

    // Pages of another origin cannot open the channel; the app's own can, and so can a client
    // that is no browser.
    assert_eq!(
        Live::connect_from(&url, "https://evil.example").await.err(),
        Some(403)
    );
    let mut own = Live::connect_from(&url, "https://madang.example")
        .await
        .unwrap();
    own.admitted(&room, None, 1).await.unwrap();
}
