//! Over HTTP: the 윷놀이 hint (`hints: true`, `state.hint` for the player to move only) and the
//! auditable generator (`rngCommitment` from the start, `result.rngReveal` at the end).

use madang_tests::{Player, TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// SHA-256 of the revealed `seed ‖ salt`, hex.
fn commitment_of(reveal: &Value) -> String {
    let bytes: Vec<u8> = [&reveal["seed"], &reveal["salt"]]
        .iter()
        .flat_map(|hex| {
            let hex = hex.as_str().unwrap();
            (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(bytes.len(), 48, "a 32-byte seed and a 16-byte salt");
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn seated(
    app: &TestApp,
    game: &str,
    options: Value,
    seed: u64,
    n: usize,
) -> (String, Vec<Player>) {
    let (room, host) = app.create(game, options, seed).await;
    let mut players = vec![host];
    for i in 1..n {
        players.push(app.join(&room, &format!("친구{i}")).await);
    }
    (room, players)
}

#[tokio::test]
async fn hints_are_an_option_of_every_ruleset_and_show_in_the_rule_summary() {
    let app = spawn_app().await;
    let schema = app.get("/games/yut", None).await.body;
    let hints = schema["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["key"] == "hints")
        .expect("hints in the option schema");
    assert_eq!(hints["default"], json!(false));
    assert_eq!(hints["values"], json!({"oneOf": [false, true]}));
    for ruleset in ["yutMd", "rulesPage"] {
        let r = app
            .post(
                "/rooms",
                None,
                json!({"game": "yut", "name": "방장", "options": {"ruleset": ruleset, "hints": true}}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{ruleset}: {:?}", r.body);
        assert_eq!(r.body["room"]["options"]["hints"], true);
        let summary = r.body["room"]["ruleSummary"].as_str().unwrap();
        assert!(summary.ends_with("추천 수 힌트"), "{summary}");
    }
}

#[tokio::test]
async fn with_hints_only_the_player_to_move_sees_the_move_a_timeout_would_play() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, "yut", json!({"hints": true}), 11, 3).await;
    app.act_ok(&room, &players[0], json!({"type": "start"}))
        .await;
    let (mut hinted_moves, mut timed_out) = (0, 0);
    for step in 0..3_000 {
        let spectator = app.room(&room, None).await;
        if spectator["status"] == "finished" {
            break;
        }
        assert!(
            spectator["state"].get("hint").is_none(),
            "a spectator sees a hint"
        );
        let current = spectator["state"]["currentPlayer"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut mover_state = Value::Null;
        for p in &players {
            let state = app.room(&room, Some(p)).await["state"].clone();
            if p.id == current {
                mover_state = state;
            } else {
                assert!(state.get("hint").is_none(), "{} sees a hint: {state}", p.id);
            }
        }
        let hint = mover_state
            .get("hint")
            .expect("the player to move has a hint")
            .clone();
        let mover = players.iter().find(|p| p.id == current).unwrap();
        if mover_state["phase"] == "throw" {
            assert_eq!(hint, Value::Null, "null while the player must throw");
            app.act_ok(&room, mover, json!({"type": "THROW"})).await;
            continue;
        }
        // The hint is one of the legal moves, shaped like one.
        let legal = mover_state["legalMoves"].as_array().unwrap();
        assert!(
            legal.iter().any(|m| m["throwIndex"] == hint["throwIndex"]
                && m["from"] == hint["from"]
                && m["to"] == hint["to"]),
            "{hint} not among {legal:?}"
        );
        hinted_moves += 1;
        if step % 5 == 0 {
            // Let the 30 s timer run out: the system plays exactly the hinted move.
            let side = spectator["state"]["sideOf"][&current].clone();
            let at = |view: &Value, to: &Value| -> usize {
                let pieces = view["state"]["sides"][side.as_u64().unwrap() as usize]["pieces"]
                    .as_array()
                    .unwrap()
                    .clone();
                pieces
                    .iter()
                    .filter(|p| match to.as_str() {
                        Some("goal") => p["status"] == "done",
                        _ => p["node"] == *to,
                    })
                    .count()
            };
            let before = at(&spectator, &hint["to"]);
            let version = spectator["version"].as_u64().unwrap();
            app.advance_clock(31_000).await;
            let after = app.room(&room, None).await;
            assert_eq!(
                after["version"].as_u64().unwrap(),
                version + 1,
                "one timeout fired"
            );
            assert!(
                at(&after, &hint["to"]) > before,
                "the timeout moved to {}",
                hint["to"]
            );
            assert_ne!(after["state"]["pending"], spectator["state"]["pending"]);
            timed_out += 1;
        } else {
            let action =
                json!({"type": "MOVE", "throwIndex": hint["throwIndex"], "from": hint["from"]});
            let reply = app.act_ok(&room, mover, action).await;
            let moved = reply["events"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["type"] == "moved")
                .unwrap()
                .clone();
            assert_eq!((&moved["from"], &moved["to"]), (&hint["from"], &hint["to"]));
        }
    }
    assert_eq!(app.room(&room, None).await["status"], "finished");
    assert!(
        hinted_moves > 10 && timed_out > 0,
        "{hinted_moves} hinted moves, {timed_out} timeouts"
    );
}

#[tokio::test]
async fn the_commitment_shows_from_the_start_and_the_finished_game_reveals_its_seed_and_salt() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, "yut", json!({}), 5, 2).await;
    let lobby = app.room(&room, None).await;
    let commitment = lobby["rngCommitment"].as_str().unwrap().to_owned();
    assert_eq!(commitment.len(), 64);
    let started = app
        .act_ok(&room, &players[0], json!({"type": "start"}))
        .await;
    assert_eq!(started["room"]["rngCommitment"], commitment.as_str());
    assert_eq!(started["room"]["result"], Value::Null);
    let end = madang_tests::games::play_out(&app, &room, &players).await;
    assert_eq!(end["status"], "finished");
    assert_eq!(end["rngCommitment"], commitment.as_str());
    let reveal = &end["result"]["rngReveal"];
    assert_eq!(
        commitment_of(reveal),
        commitment,
        "the reveal matches the commitment"
    );
    assert!(reveal["words"].as_u64().unwrap() > 0);
    // The result's own fields are still there beside the reveal.
    assert!(end["result"]["summary"].is_string() && end["result"]["winners"].is_array());

    // A room created without a dev seed: the same contract.
    let r = app
        .post(
            "/rooms",
            None,
            json!({"game": "baduk", "name": "흑", "options": {"boardSize": 9}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let room = r.body["roomId"].as_str().unwrap().to_owned();
    let black_or_white = Player {
        id: r.body["playerId"].as_str().unwrap().into(),
        token: r.body["token"].as_str().unwrap().into(),
    };
    let commitment = r.body["room"]["rngCommitment"].as_str().unwrap().to_owned();
    app.join(&room, "백").await;
    let playing = app
        .act_ok(&room, &black_or_white, json!({"type": "start"}))
        .await;
    let text = playing.to_string();
    assert!(
        !text.contains("rngReveal") && !text.contains("\"seed\""),
        "{text}"
    );
    let end = app
        .act_ok(&room, &black_or_white, json!({"type": "resign"}))
        .await;
    assert_eq!(end["room"]["status"], "finished");
    assert_eq!(end["room"]["rngCommitment"], commitment.as_str());
    let reveal = &end["room"]["result"]["rngReveal"];
    assert_eq!(commitment_of(reveal), commitment);
    assert_eq!(reveal["words"], 2, "nigiri drew one number: two words");
}
