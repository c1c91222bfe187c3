//! Whole 윷놀이 games through the API, with fixed seeds: every action through HTTP, chosen the
//! way a player's app would (throw when it's time, else one of the listed legal moves). The
//! drivers live in `madang_tests::games`, shared with the DynamoDB suite.

use madang_tests::games::{check_a_whole_four_player_team_yut_game, play_out, seated_yut};
use madang_tests::spawn_app;
use serde_json::json;

#[tokio::test]
async fn a_whole_two_player_game_is_played_over_http() {
    let app = spawn_app().await;
    let (room, players) = seated_yut(&app, json!({"turnSeconds": null}), 11, 2).await;
    let end = play_out(&app, &room, &players).await;
    let result = &end["result"];
    assert_eq!(result["winners"].as_array().unwrap().len(), 1);
    assert_eq!(result["ranking"][0]["rank"], 1);
    assert_eq!(result["ranking"][0]["finishedPieces"], 4);
    assert!(result["summary"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(end["deadlineAt"], json!(null));
}

#[tokio::test]
async fn a_whole_four_player_team_game_is_played_over_http() {
    check_a_whole_four_player_team_yut_game(&spawn_app().await).await;
}

#[tokio::test]
async fn a_whole_three_player_game_is_played_over_http() {
    let app = spawn_app().await;
    let (room, players) =
        seated_yut(&app, json!({"turnSeconds": null, "ranking": "all"}), 13, 3).await;
    let end = play_out(&app, &room, &players).await;
    let ranks: Vec<_> = end["result"]["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(
        ranks,
        [1, 2, 3],
        "ranking=all plays on until the last place is decided"
    );
}
