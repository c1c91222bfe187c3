//! Lobby life over HTTP: create, join, seats, host hand-over, start, tokens.

use std::time::{SystemTime, UNIX_EPOCH};

use madang_tests::spawn_app;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn creating_a_room_returns_a_token_once_and_the_host_seat() {
    let app = spawn_app().await;
    let r = app
        .post("/rooms", None, json!({"game": "yut", "name": "철수"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let room = &r.body["room"];
    assert_eq!(room["status"], "lobby");
    assert_eq!(room["version"], 1);
    assert_eq!(room["hostId"], r.body["playerId"]);
    assert_eq!(room["you"], r.body["playerId"]);
    assert_eq!(room["players"][0]["name"], "철수");
    assert!(
        r.body["token"].as_str().unwrap().len() >= 22,
        "at least 128 random bits"
    );
    assert!(room["ruleSummary"].as_str().is_some_and(|s| !s.is_empty()));
    // The token is never shown again, to anyone.
    let id = r.body["roomId"].as_str().unwrap();
    let again = app
        .get(&format!("/rooms/{id}"), r.body["token"].as_str())
        .await;
    assert!(
        !again
            .body
            .to_string()
            .contains(r.body["token"].as_str().unwrap())
    );
}

#[tokio::test]
async fn friends_join_by_link_and_the_host_arranges_seats_then_starts() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({"mode": "team"}), 1).await;
    let b = app.join(&room, "영희").await;
    let c = app.join(&room, "민수").await;
    let d = app.join(&room, "지수").await;
    let view = app.room(&room, Some(&b)).await;
    assert_eq!(view["you"], b.id.as_str());
    let teams: Vec<_> = view["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["team"].clone())
        .collect();
    assert_eq!(
        teams,
        [json!(0), json!(1), json!(0), json!(1)],
        "seat parity: 0,2 청 / 1,3 홍"
    );
    // Swap 민수 into seat 1 (team 홍 → 청 for 영희).
    app.act_ok(
        &room,
        &host,
        json!({"type": "moveSeat", "playerId": c.id, "seat": 1}),
    )
    .await;
    let view = app.room(&room, None).await;
    assert_eq!(view["players"][1]["id"], c.id.as_str());
    assert_eq!(view["players"][2]["id"], b.id.as_str());
    let started = app.act_ok(&room, &host, json!({"type": "start"})).await;
    assert_eq!(started["room"]["status"], "playing");
    assert!(
        started["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "started")
    );
    let r = app
        .post(
            &format!("/rooms/{room}/players"),
            None,
            json!({"name": "늦은 사람"}),
        )
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("ALREADY_STARTED"))
    );
    drop(d);
}

#[tokio::test]
async fn a_full_lobby_refuses_one_more() {
    let app = spawn_app().await;
    let (room, _) = app.create("baduk", json!({"boardSize": 9}), 1).await;
    app.join(&room, "상대").await;
    let r = app
        .post(
            &format!("/rooms/{room}/players"),
            None,
            json!({"name": "셋째"}),
        )
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("ROOM_FULL"))
    );
}

#[tokio::test]
async fn the_host_leaving_hands_the_room_to_the_next_seat_and_kicked_tokens_stop_working() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({}), 1).await;
    let b = app.join(&room, "b").await;
    let c = app.join(&room, "c").await;
    app.act_ok(&room, &host, json!({"type": "kick", "playerId": c.id}))
        .await;
    let r = app.get(&format!("/rooms/{room}"), Some(&c.token)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let left = app.act_ok(&room, &host, json!({"type": "leave"})).await;
    assert_eq!(left["room"]["hostId"], b.id.as_str());
    let view = app.room(&room, Some(&b)).await;
    assert_eq!(view["players"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_spectator_sees_the_room_without_a_token_and_without_secrets() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({}), 1).await;
    app.join(&room, "b").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let view = app.room(&room, None).await;
    assert_eq!(view["you"], json!(null));
    assert_eq!(view["status"], "playing");
    // The commitment is the one thing about the generator a running game shows.
    assert_eq!(view["rngCommitment"].as_str().map(str::len), Some(64));
    let mut rest = view.clone();
    rest.as_object_mut().unwrap().remove("rngCommitment");
    let text = rest.to_string();
    for hidden in ["rng", "seed", "token", "legalMoves"] {
        assert!(
            !text.contains(hidden),
            "{hidden} leaked into the spectator view"
        );
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test]
async fn health_and_openapi_are_served() {
    let app = spawn_app().await;
    let before = now_ms();
    let r = app.get("/healthz", None).await;
    assert_eq!(
        (r.status, r.body["status"].as_str()),
        (StatusCode::OK, Some("ok"))
    );
    // The server's clock, for countdowns: between our readings before and after the request.
    let now = r.body["now"].as_u64().unwrap();
    assert!(
        (before..=now_ms()).contains(&now),
        "{now} not in [{before}, now]"
    );
    // The build and the store's reachability.
    assert_eq!(r.body["version"], env!("CARGO_PKG_VERSION"));
    let sha = r.body["gitSha"].as_str().unwrap();
    assert!(
        sha == "unknown" || (sha.len() >= 7 && sha.chars().all(|c| c.is_ascii_hexdigit())),
        "{sha}"
    );
    assert_eq!(r.body["store"], "ok");
    let r = app.get("/openapi.json", None).await;
    assert_eq!(r.status, StatusCode::OK);
    // The web client's pages and files are not part of the JSON API's document.
    for (method, path) in madang_functions::api::ROUTES
        .iter()
        .filter(|(_, path)| !madang_functions::api::WEB_PATHS.contains(path))
    {
        assert!(
            r.body["paths"][path][method].is_object(),
            "{method} {path} undocumented"
        );
    }
    let r = app.get("/no/such/route", None).await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("NO_SUCH_ROUTE"))
    );
}
