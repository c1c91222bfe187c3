//! Polling: ETag / If-None-Match, long-polls that wake the moment someone acts, and timeouts that
//! fire with nobody polling.

use std::time::{Duration, Instant};

use madang_core::room::PRESENCE_WINDOW_MS;
use madang_core::yut::DISCONNECT_GRACE;
use madang_infra::RoomStore;
use madang_tests::spawn_app;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn an_unchanged_room_answers_304_to_its_etag() {
    let app = spawn_app().await;
    let (room, _) = app.create("yut", json!({}), 1).await;
    let r = app.get(&format!("/rooms/{room}"), None).await;
    let etag = r.headers["etag"].to_str().unwrap().to_owned();
    assert_eq!(etag, "\"1\"");
    let again = app
        .http
        .get(format!("{}/rooms/{room}", app.base))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    app.join(&room, "b").await;
    let changed = app
        .http
        .get(format!("{}/rooms/{room}", app.base))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_long_poll_wakes_when_another_client_acts() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({}), 1).await;
    let url = format!("{}/rooms/{room}?since=1&wait=20", app.base);
    let http = app.http.clone();
    let started = Instant::now();
    let poll = tokio::spawn(async move { http.get(url).send().await.unwrap() });
    // No guessing how long the poll takes to arrive: wait until it is parked on the room (the
    // store's notifier holds its watch), so the change below comes while it waits.
    let store = app.embedded.clone().unwrap();
    tokio::time::timeout(Duration::from_secs(60), async {
        while store.watched_rooms() == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the poll never parked on the room");
    app.join(&room, "b").await;
    let response = poll.await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // A poll that slept through the change would answer it only at the end of its 20 s wait:
    // 10 s is a margin between the two outcomes, not a speed.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "woke on the change, not at the end of the wait"
    );
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["version"], 2);
    drop(host);
}

#[tokio::test]
async fn a_long_poll_with_nothing_new_ends_in_304() {
    let app = spawn_app().await;
    let (room, _) = app.create("yut", json!({}), 1).await;
    let r = app
        .get(&format!("/rooms/{room}?since=1&wait=1"), None)
        .await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
    let r = app
        .get(&format!("/rooms/{room}?since=0&wait=1"), None)
        .await;
    assert_eq!(r.status, StatusCode::OK, "already newer: answers at once");
}

#[tokio::test]
async fn a_timeout_fires_through_the_dev_clock_with_nobody_polling() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({"turnSeconds": 15}), 5).await;
    app.join(&room, "b").await;
    let started = app.act_ok(&room, &host, json!({"type": "start"})).await;
    let version = started["version"].as_u64().unwrap();
    app.advance_clock(16_000).await;
    // Look in the store directly: a request would catch the timeout up itself. The store's own
    // change signal wakes this at the sweeper's save; the minute is only there to turn a
    // sweeper that never fires into a failure instead of a hang.
    let store = app.embedded.clone().unwrap();
    let fired = store
        .wait_for_change(
            &madang_core::room::RoomId::parse(&room).unwrap(),
            version,
            Duration::from_secs(60),
        )
        .await
        .unwrap();
    assert!(fired.is_some(), "the sweeper fired the overdue throw");
    let view = app.room(&room, None).await;
    assert!(
        view["state"]["lastThrow"].is_object(),
        "the auto-throw happened: {}",
        view["state"]
    );
}

#[tokio::test]
async fn a_disconnected_players_turn_is_auto_played_after_the_grace_period() {
    // Time moves on the dev clock only. The server's clock is the system's plus the dev offset,
    // so the real time the requests take counts too, and only ever forward: each step leaves it
    // a margin no request takes (15 s before the presence window ends; anything past the grace
    // period after it), so no reading depends on how fast the machine is.
    let app = spawn_app().await;
    // No turn limit at all: only the disconnect handling can move the game on.
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 5).await;
    let guest = app.join(&room, "b").await;
    let started = app.act_ok(&room, &host, json!({"type": "start"})).await;
    let version = started["version"].as_u64().unwrap();
    assert_eq!(
        started["room"]["deadlineAt"],
        json!(null),
        "connected, unlimited: no deadline"
    );

    // Nobody is heard from for 30 s of the 45 s presence window: still connected, nothing fires.
    app.advance_clock(PRESENCE_WINDOW_MS - 15_000).await;
    let view = app.room(&room, None).await;
    assert_eq!(view["version"].as_u64().unwrap(), version);
    assert!(
        view["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["connected"] == true)
    );

    // Past the presence window plus the grace period, the player to move is auto-played.
    app.advance_clock(15_000 + DISCONNECT_GRACE + 1_000).await;
    let view = app.room(&room, None).await;
    assert!(
        view["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["connected"] == false)
    );
    assert!(
        view["version"].as_u64().unwrap() > version,
        "the absent player's throw was made for them"
    );
    assert!(view["state"]["lastThrow"].is_object());

    // Coming back (any request with a token) shows the current room at once and lifts the grace.
    let back = app.room(&room, Some(&guest)).await;
    assert_eq!(back["players"][1]["connected"], true);
}
