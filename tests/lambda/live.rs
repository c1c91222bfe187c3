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
