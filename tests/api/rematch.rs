//! 한 판 더 over real HTTP: one new lobby with the same players, seats, host and options (바둑
//! colours swapped), old tokens working in it, announced to everyone — once, however many ask.

use std::sync::Arc;

use madang_tests::spawn_app;
use reqwest::StatusCode;
use serde_json::{Value, json};

use madang_tests::{Player, TestApp};

async fn finished_yut(app: &TestApp) -> (String, Player, Player) {
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 11).await;
    let guest = app.join(&room, "손님").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    app.act_ok(&room, &guest, json!({"type": "CONCEDE"})).await;
    assert_eq!(app.room(&room, None).await["status"], "finished");
    (room, host, guest)
}

#[tokio::test]
async fn a_rematch_opens_one_lobby_with_the_same_players_and_tokens() {
    let app = spawn_app().await;
    let (room, host, guest) = finished_yut(&app).await;
    let old = app.room(&room, None).await;
    assert_eq!(old["rematchRoomId"], Value::Null);

    let asked = app.act_ok(&room, &guest, json!({"type": "rematch"})).await;
    let new_id = asked["room"]["rematchRoomId"].as_str().unwrap().to_owned();
    assert_eq!(
        asked["events"],
        json!([{"type": "rematchCreated", "roomId": new_id}])
    );
    // Everyone polling the finished room sees where to go, spectators included.
    assert_eq!(
        app.room(&room, None).await["rematchRoomId"],
        new_id.as_str()
    );

    // The old tokens work in the new lobby: same ids, seats, host and options.
    let lobby = app.room(&new_id, Some(&host)).await;
    assert_eq!(lobby["status"], "lobby");
    assert_eq!(lobby["you"], host.id.as_str());
    assert_eq!(lobby["hostId"], host.id.as_str());
    assert_eq!(lobby["options"], old["options"]);
    let ids = |view: &Value| -> Vec<Value> {
        view["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].clone())
            .collect()
    };
    assert_eq!(ids(&lobby), ids(&old));
    assert_eq!(
        app.room(&new_id, Some(&guest)).await["you"],
        guest.id.as_str()
    );
    assert_ne!(
        lobby["rngCommitment"], old["rngCommitment"],
        "a fresh generator"
    );

    // Asking again, by anyone, changes nothing and names the same lobby.
    let again = app.act_ok(&room, &host, json!({"type": "rematch"})).await;
    assert_eq!(again["room"]["rematchRoomId"], new_id.as_str());
    assert_eq!(again["events"], json!([]));
    assert_eq!(again["version"], asked["version"]);

    // It is an ordinary lobby: a player may leave, the host starts with who is left.
    let third = app.join(&new_id, "셋째").await;
    app.act_ok(&new_id, &third, json!({"type": "leave"})).await;
    app.act_ok(&new_id, &host, json!({"type": "start"})).await;
    assert_eq!(app.room(&new_id, None).await["status"], "playing");
}

#[tokio::test]
async fn a_baduk_rematch_swaps_fixed_colours() {
    let app = spawn_app().await;
    let (room, host) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            12,
        )
        .await;
    let guest = app.join(&room, "백").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let started = app.room(&room, None).await;
    assert_eq!(started["state"]["players"]["black"], host.id.as_str());
    app.act_ok(&room, &guest, json!({"type": "resign"})).await;

    let asked = app.act_ok(&room, &host, json!({"type": "rematch"})).await;
    let new_id = asked["room"]["rematchRoomId"].as_str().unwrap().to_owned();
    let lobby = app.room(&new_id, Some(&guest)).await;
    assert_eq!(lobby["options"]["colorAssignment"], "hostWhite");
    app.act_ok(&new_id, &host, json!({"type": "start"})).await;
    let again = app.room(&new_id, None).await;
    assert_eq!(again["state"]["players"]["white"], host.id.as_str());
    assert_eq!(again["state"]["players"]["black"], guest.id.as_str());
}

#[tokio::test]
async fn racing_rematch_requests_create_one_lobby() {
    let app = Arc::new(spawn_app().await);
    let (room, host, guest) = finished_yut(&app).await;
    let asks: Vec<_> = (0..8)
        .map(|i| {
            let who = if i % 2 == 0 {
                host.clone()
            } else {
                guest.clone()
            };
            let (app, room) = (app.clone(), room.clone());
            tokio::spawn(async move { app.act(&room, &who, json!({"type": "rematch"})).await })
        })
        .collect();
    let mut ids = Vec::new();
    let mut created = 0;
    for ask in asks {
        let r = ask.await.unwrap();
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        ids.push(r.body["room"]["rematchRoomId"].clone());
        created += r.body["events"].as_array().unwrap().len();
    }
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
    assert_eq!(created, 1, "one rematchCreated in all");
    let lobby = app.room(ids[0].as_str().unwrap(), Some(&guest)).await;
    assert_eq!(lobby["version"], 1, "created once, never overwritten");
    assert_eq!(lobby["players"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_rematch_needs_a_finished_game_and_a_player() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({}), 13).await;
    let r = app.act(&room, &host, json!({"type": "rematch"})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.body["code"], "NOT_FINISHED");
    let r = app
        .act(&room, &host, json!({"type": "rematch", "x": 1}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.body["code"], "BAD_ACTION");
    let spectator = Player {
        id: "nobody".into(),
        token: "not-a-token".into(),
    };
    let (done, _, _) = finished_yut(&app).await;
    let r = app.act(&done, &spectator, json!({"type": "rematch"})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.room(&done, None).await["rematchRoomId"], Value::Null);
}
