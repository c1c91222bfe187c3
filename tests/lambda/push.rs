//! Web Push through the real `api` and `sweeper` binaries under the Lambda emulator, configured
//! as the template configures them (`MADANG_PUSH=on` and no key: the functions generate it into
//! the table on first need and agree on it, so the key `GET /push` serves is the one the
//! sweeper and the bot function sign with), pushing to the loopback push service of
//! `madang_tests::push_service`: `yourTurn` from the API function, `timeLow` and `gameOver` from
//! scheduled runs of the sweeper, and `yourTurn` from the bot function after a computer player's
//! move.

use madang_tests::lambda::StackConfig;
use madang_tests::push_service::PushService;
use madang_tests::slow::DAY_MS;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::stack;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_game_pushes_through_lambda_your_turn_from_the_api_and_the_bot_time_low_and_game_over_from_the_sweeper()
 {
    let push_env = vec![
        ("MADANG_PUSH".to_owned(), "on".to_owned()),
        ("MADANG_PUSH_HOSTS".to_owned(), "127.0.0.1".to_owned()),
        (
            "MADANG_PUSH_CONTACT".to_owned(),
            "mailto:test@example.com".to_owned(),
        ),
    ];
    let config = StackConfig {
        api_environments: 2,
        env: push_env,
        ..StackConfig::default()
    };
    let stack = stack("l-push", config).await;
    let app = &stack.app;
    let key = app.get("/push", None).await.body["publicKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let service = PushService::start(&key);
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack",
                   "timeControl": {"kind": "correspondence", "daysPerMove": 1}}),
            5,
        )
        .await;
    let white = app.join(&room, "손자").await;
    for (who, name) in [(&white, "white"), (&black, "black")] {
        let r = app
            .send(
                Method::PUT,
                &format!("/rooms/{room}/push"),
                Some(&who.token),
                Some(service.subscription(name)),
            )
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{:?}", r.body);
    }
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    app.advance_clock(60_000).await;
    app.act_ok(&room, &black, json!({"type": "place", "x": 2, "y": 2}))
        .await;
    let got = service.wait_for("white", 1).await;
    assert_eq!(got[0]["payload"]["type"], "yourTurn", "{}", got[0]);

    // White never answers: the sweeper's runs push timeLow, then gameOver to both.
    app.advance_clock(DAY_MS - 3_600_000 + 60_000).await;
    let report = stack.sweep().await;
    assert_eq!(report["reminded"], 1, "{report}");
    let low = service.wait_for("white", 2).await;
    assert_eq!(low[1]["payload"]["type"], "timeLow");
    assert_eq!(low[1]["urgency"], "high");
    app.advance_clock(3_600_000).await;
    let report = stack.sweep().await;
    assert_eq!(report["timeoutsFired"], 1, "{report}");
    let over = service.wait_for("white", 3).await;
    assert_eq!(over[2]["payload"]["type"], "gameOver");
    assert_eq!(over[2]["payload"]["body"], "흑 시간승");
    let over = service.wait_for("black", 1).await;
    assert_eq!(over[0]["payload"]["type"], "gameOver");
    // Against a computer player: its move, searched by the bot function, pushes the person's
    // turn.
    let (bot_room, human) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack",
                   "timeControl": {"kind": "correspondence", "daysPerMove": 1}}),
            6,
        )
        .await;
    app.act_ok(&bot_room, &human, json!({"type": "addBot", "level": 1}))
        .await;
    let r = app
        .send(
            Method::PUT,
            &format!("/rooms/{bot_room}/push"),
            Some(&human.token),
            Some(service.subscription("human")),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{:?}", r.body);
    app.act_ok(&bot_room, &human, json!({"type": "start"}))
        .await;
    let moved = app
        .act_ok(&bot_room, &human, json!({"type": "place", "x": 2, "y": 2}))
        .await;
    // The bot function keeps its move as the room's plan (≥ 0.8 s of think ahead) and returns;
    // the person is away a minute (on the dev clock), so nobody reads the room at the move's
    // deadline: the sweeper lands the plan, and its save pushes the person's turn.
    stack.bots_done().await;
    app.advance_clock(60_000).await;
    let report = stack.sweep().await;
    assert_eq!(report["timeoutsFired"], 1, "{report}");
    let got = service.wait_for("human", 1).await;
    assert_eq!(got[0]["payload"]["type"], "yourTurn", "{}", got[0]);
    assert_eq!(got[0]["payload"]["roomId"], bot_room.as_str());
    assert_eq!(
        got[0]["payload"]["version"].as_u64().unwrap(),
        moved["version"].as_u64().unwrap() + 1
    );
    stack.bots_done().await;
    for push in service.received().await {
        assert!(push["ok"] == true, "verified and decrypted: {push}");
    }
}
