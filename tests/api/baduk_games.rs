//! 바둑 through the API: a whole 9×9 game (play, two passes, dead-stone marking, agreement, result
//! and the SGF record; the driver lives in `madang_tests::games`, shared with the DynamoDB suite),
//! a disputed count, and refused moves.

use madang_tests::games::{check_a_whole_nine_by_nine_baduk_game, place, walled_baduk_game};
use madang_tests::spawn_app;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_whole_nine_by_nine_game_is_played_marked_agreed_and_recorded() {
    check_a_whole_nine_by_nine_baduk_game(&spawn_app().await).await;
}

#[tokio::test]
async fn a_disputed_count_resumes_play_with_the_requesters_opponent_to_move() {
    let app = spawn_app().await;
    let (room, black, white) = walled_baduk_game(&app).await;
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
    // The view lists the point with the code the action was refused with.
    let mover = app.room(&room, Some(&white)).await;
    assert!(
        mover["state"]["illegalPoints"]
            .as_array()
            .unwrap()
            .contains(&json!({"x": 0, "y": 0, "reason": "SUICIDE"}))
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
