//! A whole 9×9 바둑 game through the API: play, two passes, dead-stone marking, agreement, result
//! and the SGF record.

use madang_tests::{Player, TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn place(app: &TestApp, room: &str, who: &Player, x: u32, y: u32) -> Value {
    app.act_ok(room, who, json!({"type": "place", "x": x, "y": y}))
        .await
}

/// Host is black. Black walls off column E (x=4), white column F (x=5); white then invades at
/// B5 (x=1, y=4) and both pass: the §6.4-like position.
async fn walled_game(app: &TestApp) -> (String, Player, Player) {
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            9,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    let view = app.room(&room, None).await;
    assert_eq!(view["state"]["players"]["black"], black.id.as_str());
    assert_eq!(view["state"]["turn"], "black");
    for y in 0..9 {
        place(app, &room, &black, 4, y).await;
        place(app, &room, &white, 5, y).await;
    }
    app.act_ok(&room, &black, json!({"type": "pass"})).await;
    place(app, &room, &white, 1, 4).await;
    app.act_ok(&room, &black, json!({"type": "pass"})).await;
    let passed = app.act_ok(&room, &white, json!({"type": "pass"})).await;
    assert_eq!(
        passed["room"]["state"]["phase"], "scoring",
        "two passes in a row start scoring"
    );
    (room, black, white)
}

fn dead_points(view: &Value) -> Vec<Value> {
    view["state"]["scoring"]["dead"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_whole_nine_by_nine_game_is_played_marked_agreed_and_recorded() {
    let app = spawn_app().await;
    let (room, black, white) = walled_game(&app).await;
    let view = app.room(&room, None).await;
    assert!(
        dead_points(&view).contains(&json!({"x": 1, "y": 4})),
        "the lone invader is suggested dead: {}",
        view["state"]["scoring"]
    );
    // Black agrees; white toggles the stone alive, which clears both agreements…
    let agreed = app
        .act_ok(&room, &black, json!({"type": "agreeScore"}))
        .await;
    assert_eq!(agreed["room"]["state"]["scoring"]["agreed"]["black"], true);
    let toggled = app
        .act_ok(&room, &white, json!({"type": "toggleDead", "x": 1, "y": 4}))
        .await;
    assert_eq!(
        toggled["room"]["state"]["scoring"]["agreed"],
        json!({"black": false, "white": false})
    );
    assert!(!dead_points(&toggled["room"]).contains(&json!({"x": 1, "y": 4})));
    // …then marks it dead again, and both agree.
    app.act_ok(&room, &white, json!({"type": "toggleDead", "x": 1, "y": 4}))
        .await;
    app.act_ok(&room, &white, json!({"type": "agreeScore"}))
        .await;
    let end = app
        .act_ok(&room, &black, json!({"type": "agreeScore"}))
        .await["room"]
        .clone();
    assert_eq!(end["status"], "finished");
    let result = &end["result"];
    assert_eq!(result["winner"], "black");
    assert_eq!(result["reason"], "score");
    // Black: 36 points of territory + 1 dead stone; white: 27 + 6.5 komi.
    assert_eq!(result["score"]["black"]["total"], 37.0);
    assert_eq!(result["score"]["white"]["total"], 33.5);
    assert_eq!(result["summaryKo"], "흑 3집 반 승");

    let sgf = app
        .http
        .get(format!("{}/rooms/{room}/sgf", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(sgf.status(), StatusCode::OK);
    let text = sgf.text().await.unwrap();
    for part in [
        "FF[4]",
        "GM[1]",
        "SZ[9]",
        "KM[6.5]",
        "PB[방장]",
        "PW[백]",
        ";B[ea]",
        ";W[fa]",
        "RE[B+3.5]",
    ] {
        assert!(text.contains(part), "{part} missing from {text}");
    }
}

#[tokio::test]
async fn a_disputed_count_resumes_play_with_the_requesters_opponent_to_move() {
    let app = spawn_app().await;
    let (room, black, white) = walled_game(&app).await;
    let resumed = app
        .act_ok(&room, &white, json!({"type": "resumePlay"}))
        .await;
    assert_eq!(resumed["room"]["state"]["phase"], "playing");
    assert_eq!(resumed["room"]["state"]["turn"], "black");
    app.act_ok(&room, &black, json!({"type": "pass"})).await;
    let again = app.act_ok(&room, &white, json!({"type": "pass"})).await;
    assert_eq!(
        again["room"]["state"]["phase"], "scoring",
        "two more passes: scoring again"
    );
}

#[tokio::test]
async fn illegal_moves_are_refused_with_the_rules_code_and_only_the_mover_sees_hints() {
    let app = spawn_app().await;
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            1,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    place(&app, &room, &black, 0, 1).await;
    let r = app
        .act(&room, &white, json!({"type": "place", "x": 0, "y": 1}))
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("OCCUPIED"))
    );
    place(&app, &room, &white, 8, 8).await;
    place(&app, &room, &black, 1, 0).await;
    // White at the corner A9 (0,0) has no liberty and captures nothing: suicide.
    let r = app
        .act(&room, &white, json!({"type": "place", "x": 0, "y": 0}))
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("SUICIDE"))
    );
    let mover = app.room(&room, Some(&white)).await;
    assert!(
        mover["state"]["illegalPoints"]
            .as_array()
            .unwrap()
            .contains(&json!({"x": 0, "y": 0}))
    );
    let other = app.room(&room, Some(&black)).await;
    let spectator = app.room(&room, None).await;
    for view in [other, spectator] {
        assert!(
            view["state"].get("illegalPoints").is_none()
                && view["state"].get("atariWarnings").is_none()
        );
    }
    let r = app
        .act(&room, &black, json!({"type": "place", "x": 3, "y": 3}))
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("NOT_YOUR_TURN"))
    );
}
