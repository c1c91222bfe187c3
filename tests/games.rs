//! Whole games driven over HTTP, shared by every suite (the embedded store in `api`, DynamoDB in
//! `dynamodb`): each suite calls the same driver on its own server, so both stores are held to
//! the very same games and checks.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::{Player, TestApp};

/// The action a 윷놀이 player's app would send from the player's own view of the state: throw
/// when it is time to throw, else the first of the listed legal moves.
pub fn yut_action(state: &Value) -> Value {
    match state["phase"].as_str() {
        Some("throw") => json!({"type": "THROW"}),
        Some("move") => {
            let m = &state["legalMoves"][0];
            json!({"type": "MOVE", "throwIndex": m["throwIndex"], "from": m["from"]})
        }
        other => panic!("no action in phase {other:?}: {state}"),
    }
}

/// Plays 윷놀이 until the game is over; returns the final room. Checks on the way that each
/// accepted action bumps the version by exactly one.
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
        let reply = app.act_ok(room, player, yut_action(&mine["state"])).await;
        let now = reply["version"].as_u64().unwrap();
        assert_eq!(now, version + 1, "one accepted action, one version");
        version = now;
    }
    panic!("the game did not end in 5,000 actions");
}

/// A started 윷놀이 room with `n` players (the host first).
pub async fn seated_yut(
    app: &TestApp,
    options: Value,
    seed: u64,
    n: usize,
) -> (String, Vec<Player>) {
    let (room, host) = app.create("yut", options, seed).await;
    let mut players = vec![host.clone()];
    for i in 1..n {
        players.push(app.join(&room, &format!("친구{i}")).await);
    }
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    (room, players)
}

/// A whole four-player team game of 윷놀이, played to the end: the whole winning team wins.
pub async fn check_a_whole_four_player_team_yut_game(app: &TestApp) {
    let (room, players) =
        seated_yut(app, json!({"mode": "team", "turnSeconds": null}), 12, 4).await;
    let end = play_out(app, &room, &players).await;
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
    assert_eq!(end["deadlineAt"], json!(null));
}

/// Places a stone and insists it was accepted.
pub async fn place(app: &TestApp, room: &str, who: &Player, x: u32, y: u32) -> Value {
    app.act_ok(room, who, json!({"type": "place", "x": x, "y": y}))
        .await
}

/// A 9×9 바둑 game up to scoring. Host is black. Black walls off column E (x=4), white column F
/// (x=5); white then invades at B5 (x=1, y=4) and both pass: the §6.4-like position.
pub async fn walled_baduk_game(app: &TestApp) -> (String, Player, Player) {
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

/// A `place` on an empty point the view's `state` does not list as illegal, picked by a fixed
/// linear congruential generator advanced in `draw`, so a simulated game is the same every run.
pub fn random_place(state: &Value, draw: &mut u64) -> Value {
    let board = state["board"].as_array().unwrap();
    let size = (board.len() as f64).sqrt() as u64;
    let illegal = state["illegalPoints"].as_array().unwrap();
    let open: Vec<(u64, u64)> = board
        .iter()
        .enumerate()
        .filter(|(_, cell)| cell.as_u64() == Some(0))
        .map(|(i, _)| (i as u64 % size, i as u64 / size))
        .filter(|(x, y)| !illegal.iter().any(|p| p["x"] == *x && p["y"] == *y))
        .collect();
    assert!(!open.is_empty(), "no legal point left");
    *draw = draw
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let (x, y) = open[(*draw >> 33) as usize % open.len()];
    json!({"type": "place", "x": x, "y": y})
}

/// The stones marked dead in a room view, as board indices (`y * size + x`).
pub fn dead_points(view: &Value) -> Vec<Value> {
    view["state"]["scoringMarks"]["dead"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// A whole 9×9 바둑 game: play, two passes, dead-stone marking (toggled back and forth),
/// agreement, the counted result, and the SGF record.
pub async fn check_a_whole_nine_by_nine_baduk_game(app: &TestApp) {
    let (room, black, white) = walled_baduk_game(app).await;
    let view = app.room(&room, None).await;
    assert!(
        dead_points(&view).contains(&json!(4 * 9 + 1)),
        "the lone invader is suggested dead: {}",
        view["state"]["scoringMarks"]
    );
    // Black agrees; white toggles the stone alive, which clears both agreements…
    let agreed = app
        .act_ok(&room, &black, json!({"type": "agreeScore"}))
        .await;
    assert_eq!(
        agreed["room"]["state"]["scoringMarks"]["agreed"]["black"],
        true
    );
    let toggled = app
        .act_ok(&room, &white, json!({"type": "toggleDead", "x": 1, "y": 4}))
        .await;
    assert_eq!(
        toggled["room"]["state"]["scoringMarks"]["agreed"],
        json!({"black": false, "white": false})
    );
    assert!(!dead_points(&toggled["room"]).contains(&json!(4 * 9 + 1)));
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
