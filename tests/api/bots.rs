//! Computer players over HTTP: `addBot` in the lobby, and whole games in which the bots' moves
//! are made by the server's thinker (cued by saves, reads and the sweeper), with the dev clock
//! moved to each bot's due time (`deadlineAt`) instead of sleeping.

use std::sync::Arc;

use madang_core::room::BOT_THINK_MAX_MS;
use madang_functions::sweeper;
use madang_tests::bots::{
    check_a_four_seat_yut_game_with_three_bots, check_a_nine_line_baduk_game_against_the_bot,
    player, yut_room_with_bots,
};
use madang_tests::{Player, TestApp, embedded_store, spawn_app, spawn_app_unswept};
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn the_game_schema_lists_the_bot_levels_with_korean_labels() {
    let app = spawn_app().await;
    let yut = app.get("/games/yut", None).await.body;
    assert_eq!(
        yut["bots"]["levels"],
        json!([
            {"level": 1, "label": "입문"},
            {"level": 2, "label": "보통"},
            {"level": 3, "label": "고수"}
        ])
    );
}

#[tokio::test]
async fn the_host_adds_and_kicks_bots_and_nobody_else_may() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({}), 2202).await;
    let guest = app.join(&room, "손님").await;
    let added = app
        .act_ok(&room, &host, json!({"type": "addBot", "level": 2}))
        .await;
    let bot = added["events"][0]["playerId"].as_str().unwrap().to_owned();
    assert_eq!(added["events"][0]["type"], "botAdded");
    let seat = player(&added["room"], &bot).clone();
    assert_eq!(
        (&seat["name"], &seat["bot"], &seat["botLevel"]),
        (&json!("컴퓨터 1"), &json!(true), &json!(2))
    );
    assert_eq!(player(&added["room"], &host.id)["botLevel"], Value::Null);

    let refused = app.act(&room, &guest, json!({"type": "addBot"})).await;
    assert_eq!(
        (refused.status, refused.body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("NOT_HOST"))
    );
    let refused = app
        .act(&room, &host, json!({"type": "addBot", "level": 7}))
        .await;
    assert_eq!(
        (refused.status, refused.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("BAD_BOT_LEVEL"))
    );
    let refused = app
        .act(&room, &host, json!({"type": "start", "level": 1}))
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);

    let kicked = app
        .act_ok(&room, &host, json!({"type": "kick", "playerId": bot}))
        .await;
    assert_eq!(kicked["room"]["players"].as_array().unwrap().len(), 2);
    // Two people and two bots start a four-seat game.
    for _ in 0..2 {
        app.act_ok(&room, &host, json!({"type": "addBot"})).await;
    }
    let started = app.act_ok(&room, &host, json!({"type": "start"})).await;
    assert_eq!(started["room"]["status"], "playing");
    assert_eq!(
        started["room"]["state"]["turnOrder"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[tokio::test]
async fn a_four_seat_yut_game_with_three_bots_is_played_to_its_end_by_reads_and_the_sweeper() {
    let app = spawn_app().await;
    check_a_four_seat_yut_game_with_three_bots(&app).await;
}

/// Sixteen readers and two sweeps race on the bots' moves, again and again: the room ends up
/// exactly where one reader alone takes its twin (same seed, same human moves), so no bot
/// move was ever made twice.
#[tokio::test]
async fn racing_readers_and_the_sweeper_never_make_a_bot_move_twice() {
    let (app, inner) = spawn_app_unswept(Arc::new(embedded_store())).await;
    let app = Arc::new(app);
    // No turn timer: only the bot's moves are ever due.
    let options = json!({"turnSeconds": null});
    let (raced, human) = yut_room_with_bots(&app, options.clone(), &[3]).await;
    let (alone, twin) = yut_room_with_bots(&app, options, &[3]).await;
    for round in 0..6 {
        for (room, who) in [(&raced, &human), (&alone, &twin)] {
            // The human's whole turn.
            for _ in 0..20 {
                let view = app.room(room, Some(who)).await;
                if view["state"]["currentPlayer"] != who.id.as_str() {
                    break;
                }
                let action = match view["state"]["phase"].as_str().unwrap() {
                    "throw" => json!({"type": "THROW"}),
                    _ => {
                        let m = &view["state"]["legalMoves"][0];
                        json!({"type": "MOVE", "throwIndex": m["throwIndex"], "from": m["from"]})
                    }
                };
                app.act_ok(room, who, action).await;
            }
        }
        // Far enough for the bots' whole turns (each action a think time), well inside the
        // humans' presence window.
        app.advance_clock(20 * BOT_THINK_MAX_MS).await;
        let mut racers = tokio::task::JoinSet::new();
        for i in 0..18 {
            let (app, inner, room, human) =
                (app.clone(), inner.clone(), raced.clone(), human.clone());
            racers.spawn(async move {
                if i < 16 {
                    app.room(&room, Some(&human)).await["version"]
                        .as_u64()
                        .unwrap()
                } else {
                    let report = sweeper::sweep(
                        &*inner.store,
                        &*inner.announcer,
                        &*inner.thinker,
                        inner.clock.now(),
                        10,
                    )
                    .await;
                    assert_eq!(report.errors, 0);
                    0
                }
            });
        }
        let versions = racers.join_all().await;
        assert!(versions.iter().any(|&v| v > 0));
        // The bots' moves arrive as the thinker's saves: wait for each room's human turn.
        let a = settled(&app, &raced, &human).await;
        let b = settled(&app, &alone, &twin).await;
        assert_eq!(a["version"], b["version"], "round {round}");
        assert_eq!(a["state"]["sides"], b["state"]["sides"], "round {round}");
        assert_eq!(a["state"]["log"], b["state"]["log"], "round {round}");
        if a["status"] == "finished" {
            break;
        }
        assert_eq!(
            a["state"]["currentPlayer"],
            human.id.as_str(),
            "round {round}"
        );
    }
}

#[tokio::test]
async fn a_nine_line_baduk_game_against_the_bot_ends_in_an_agreed_score() {
    let app = spawn_app().await;
    check_a_nine_line_baduk_game_against_the_bot(&app).await;
}

/// The room once its computer players are done: finished, or `who`'s turn (long-polled).
async fn settled(app: &TestApp, room: &str, who: &Player) -> Value {
    let mut view = app.room(room, Some(who)).await;
    for _ in 0..200 {
        if view["status"] == "finished" || view["state"]["currentPlayer"] == who.id.as_str() {
            return view;
        }
        let version = view["version"].as_u64().unwrap();
        view = app.room_after(room, Some(who), version).await;
    }
    panic!("the bots did not finish their turn: {view}");
}
