//! Whole 윷놀이 games through the API, with fixed seeds: every action through HTTP, chosen the
//! way a player's app would (throw when it's time, else one of the listed legal moves).

use madang_tests::{Player, TestApp, spawn_app};
use serde_json::{Value, json};

/// Plays until the game is over; returns the final room. Checks on the way that each accepted
/// action bumps the version by exactly one.
pub async fn play_out(app: &TestApp, room: &str, players: &[Player]) -> Value {
    let mut version = app.room(room, None).await["version"].as_u64().unwrap();
    for _ in 0..5_000 {
        let view = app.room(room, None).await;
        if view["status"] == "finished" {
            return view;
        }
        let current = view["state"]["currentPlayer"].as_str().unwrap();
        let player = players.iter().find(|p| p.id == current).unwrap();
        let mine = app.room(room, Some(player)).await;
        let action = match mine["state"]["phase"].as_str().unwrap() {
            "throw" => json!({"type": "THROW"}),
            "move" => {
                let m = &mine["state"]["legalMoves"][0];
                json!({"type": "MOVE", "throwIndex": m["throwIndex"], "from": m["from"]})
            }
            other => panic!("unexpected phase {other}"),
        };
        let reply = app.act_ok(room, player, action).await;
        let now = reply["version"].as_u64().unwrap();
        assert_eq!(now, version + 1, "one accepted action, one version");
        version = now;
    }
    panic!("the game did not end in 5,000 actions");
}

async fn seated(app: &TestApp, options: Value, seed: u64, n: usize) -> (String, Vec<Player>) {
    let (room, host) = app.create("yut", options, seed).await;
    let mut players = vec![host.clone()];
    for i in 1..n {
        players.push(app.join(&room, &format!("친구{i}")).await);
    }
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    (room, players)
}

#[tokio::test]
async fn a_whole_two_player_game_is_played_over_http() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, json!({"turnSeconds": null}), 11, 2).await;
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
    let app = spawn_app().await;
    let (room, players) = seated(&app, json!({"mode": "team", "turnSeconds": null}), 12, 4).await;
    let end = play_out(&app, &room, &players).await;
    let winners = end["result"]["winners"].as_array().unwrap();
    assert_eq!(winners.len(), 2, "the whole winning team wins");
    let teams: Vec<_> = end["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| winners.contains(&p["id"]))
        .map(|p| p["team"].clone())
        .collect();
    assert_eq!(teams[0], teams[1], "winners are teammates");
}

#[tokio::test]
async fn a_whole_three_player_game_is_played_over_http() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, json!({"turnSeconds": null, "ranking": "all"}), 13, 3).await;
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
