//! The rules page's house rules over HTTP (ruling Y16): whole games under the `rulesPage`
//! preset, the 90-second cap and auto play through the dev clock, a timed game, team
//! recommendations that never reach the other team, bots for leavers, and the option schemas of
//! `GET /games/{kind}` against validation.

use madang_core::baduk::BadukOptions;
use madang_core::schema::{PLAYERS, Values};
use madang_core::yut::YutOptions;
use madang_tests::{Player, TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

use madang_tests::games::play_out;

async fn seated(app: &TestApp, options: Value, seed: u64, n: usize) -> (String, Vec<Player>) {
    let (room, host) = app.create("yut", options, seed).await;
    let mut players = vec![host.clone()];
    for i in 1..n {
        players.push(app.join(&room, &format!("친구{i}")).await);
    }
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    (room, players)
}

/// What the player on turn would do in an app: throw when it's time, else the first listed move.
async fn next_action(app: &TestApp, room: &str, player: &Player) -> Value {
    let mine = app.room(room, Some(player)).await;
    match mine["state"]["phase"].as_str().unwrap() {
        "throw" => json!({"type": "THROW"}),
        "move" => {
            let m = &mine["state"]["legalMoves"][0];
            json!({"type": "MOVE", "throwIndex": m["throwIndex"], "from": m["from"]})
        }
        other => panic!("unexpected phase {other}"),
    }
}

/// Every player looks at the room, as their phones would: they all count as connected, so
/// only real deadlines fire while the test moves the clock.
async fn poll_all(app: &TestApp, room: &str, players: &[Player]) {
    for p in players {
        app.room(room, Some(p)).await;
    }
}

fn on_turn<'p>(view: &Value, players: &'p [Player]) -> Option<&'p Player> {
    let id = view["state"]["currentPlayer"].as_str()?;
    players.iter().find(|p| p.id == id)
}

// Whole games under the preset ──────────────────────────────────────────────────────────────────

#[tokio::test]
async fn y16_a_six_player_individual_game_under_the_rules_page_preset_is_played_over_http() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, json!({"ruleset": "rulesPage"}), 61, 6).await;
    let start = app.room(&room, None).await;
    assert!(
        start["ruleSummary"]
            .as_str()
            .unwrap()
            .starts_with("개인전(2~6명) · 말 4개 · 고른 확률"),
        "{}",
        start["ruleSummary"]
    );
    assert_eq!(start["options"]["stickModel"], "fair");
    assert_eq!(start["state"]["deadlineAt"], start["deadlineAt"]);
    let looks: std::collections::HashSet<(String, String)> = start["state"]["sides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["color"].to_string(), s["shape"].to_string()))
        .collect();
    assert_eq!(looks.len(), 6, "six distinct colors and shapes");

    let end = play_out(&app, &room, &players).await;
    let ranking = end["result"]["ranking"].as_array().unwrap();
    assert_eq!(ranking.len(), 6);
    assert_eq!(ranking[0]["rank"], 1);
    assert_eq!(ranking[0]["finishedPieces"], 4);
    assert!(
        ranking[1..].iter().all(|s| s["rank"].is_null()),
        "only the winner is ranked"
    );
    assert_eq!(end["result"]["winners"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn y16_a_three_against_three_team_game_under_the_preset_is_played_over_http() {
    let app = spawn_app().await;
    let options = json!({"ruleset": "rulesPage", "mode": "team", "turnSeconds": 60});
    let (room, players) = seated(&app, options, 62, 6).await;
    let start = app.room(&room, None).await;
    assert!(
        start["ruleSummary"]
            .as_str()
            .unwrap()
            .starts_with("팀전(2:2·3:3)")
    );
    let order: Vec<&str> = start["state"]["turnOrder"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let team = |id: &str| start["state"]["sideOf"][id].as_u64().unwrap();
    assert!(
        order.windows(2).all(|w| team(w[0]) != team(w[1])),
        "teams alternate"
    );

    let end = play_out(&app, &room, &players).await;
    let winners = end["result"]["winners"].as_array().unwrap();
    assert_eq!(winners.len(), 3, "the whole team wins");
    let teams: std::collections::HashSet<u64> =
        winners.iter().map(|w| team(w.as_str().unwrap())).collect();
    assert_eq!(teams.len(), 1);
    assert!(end["result"]["ranking"][1]["rank"].is_null());
}

// Timers ────────────────────────────────────────────────────────────────────────────────────────

#[tokio::test]
async fn y16_ninety_seconds_after_a_turn_began_the_rest_of_it_is_auto_played() {
    let app = spawn_app().await;
    // 60 s per action, so only the 90-second cap can end the turn early.
    let options = json!({"ruleset": "rulesPage", "turnSeconds": 60});
    let (room, players) = seated(&app, options, 63, 2).await;
    let view = app.room(&room, None).await;
    let began = view["state"]["turnStartedAt"].as_u64().unwrap();
    let first = on_turn(&view, &players).unwrap().clone();
    assert_eq!(
        view["state"]["deadlineAt"].as_u64().unwrap(),
        began + 60_000
    );

    // The first throw after 55 s: the turn goes on (a result to move, or another throw).
    app.advance_clock(30_000).await;
    poll_all(&app, &room, &players).await;
    app.advance_clock(25_000).await;
    poll_all(&app, &room, &players).await;
    let reply = app.act_ok(&room, &first, json!({"type": "THROW"})).await;
    let room_now = &reply["room"];
    assert_eq!(
        room_now["state"]["currentPlayer"], first.id,
        "seed 63 leaves something to do in this turn"
    );
    assert_eq!(
        room_now["state"]["deadlineAt"].as_u64().unwrap(),
        began + 90_000,
        "the cap comes before another 60 s"
    );

    // At 91 s the rest of the turn has played itself, at the 90-second mark.
    app.advance_clock(36_000).await;
    let after = app.room(&room, Some(&first)).await;
    assert_ne!(after["state"]["currentPlayer"], first.id);
    assert_eq!(
        after["state"]["turnStartedAt"].as_u64().unwrap(),
        began + 90_000
    );
    assert_eq!(
        after["state"]["deadlineAt"].as_u64().unwrap(),
        began + 90_000 + 60_000
    );
    assert_eq!(after["state"]["pending"], json!([]));
}

#[tokio::test]
async fn y16_three_idle_turns_switch_a_seat_to_auto_play_and_take_control_gives_it_back() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, json!({"ruleset": "rulesPage"}), 64, 2).await;
    let idle = players[0].clone();
    let active = players[1].clone();
    // The active player plays their turns; the idle one's run out 20 s at a time.
    let mut auto = false;
    for _ in 0..400 {
        let view = app.room(&room, Some(&active)).await;
        if view["state"]["control"][&idle.id] == "auto" {
            auto = true;
            break;
        }
        match on_turn(&view, &players) {
            Some(p) if p.id == active.id => {
                let action = next_action(&app, &room, &active).await;
                app.act_ok(&room, &active, action).await;
            }
            Some(_) => app.advance_clock(20_000).await,
            None => panic!("the game ended before auto play"),
        }
    }
    assert!(auto, "the idle seat never switched to auto play");

    // Now the idle seat's turns play themselves at once: the active player always finds the
    // turn theirs again.
    for _ in 0..6 {
        let view = app.room(&room, Some(&active)).await;
        if view["status"] == "finished" {
            break;
        }
        assert_eq!(view["state"]["currentPlayer"], active.id);
        let action = next_action(&app, &room, &active).await;
        app.act_ok(&room, &active, action).await;
    }

    // [직접 하기]: control comes back, and the next turn waits for the player again.
    let reply = app
        .act_ok(&room, &idle, json!({"type": "TAKE_CONTROL"}))
        .await;
    assert!(
        reply["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "autoPlay" && e["auto"] == false)
    );
    assert_eq!(reply["room"]["state"]["control"][&idle.id], "player");
    for _ in 0..20 {
        let view = app.room(&room, Some(&active)).await;
        if view["state"]["currentPlayer"] == idle.id.as_str() {
            let began = view["state"]["turnStartedAt"].as_u64().unwrap();
            assert_eq!(
                view["state"]["deadlineAt"].as_u64().unwrap(),
                began + 20_000
            );
            return;
        }
        let action = next_action(&app, &room, &active).await;
        app.act_ok(&room, &active, action).await;
    }
    panic!("the player who took control back never got a turn");
}

// End modes ─────────────────────────────────────────────────────────────────────────────────────

#[tokio::test]
async fn y16_a_timed_game_ends_after_its_last_round_with_the_most_finished_pieces_winning() {
    let app = spawn_app().await;
    let options = json!({"ruleset": "rulesPage", "endMode": "timed", "turnSeconds": 60});
    let (room, players) = seated(&app, options, 65, 3).await;
    let start = app.room(&room, None).await;
    let time_up = start["state"]["timeUpAt"].as_u64().unwrap();
    assert_eq!(
        time_up,
        start["state"]["turnStartedAt"].as_u64().unwrap() + 30 * 60_000
    );
    assert!(
        start["ruleSummary"]
            .as_str()
            .unwrap()
            .contains("30분 시간제")
    );
    let first = start["state"]["turnOrder"][0].clone();

    // Everyone plays, one action every 55 s (the 90-second cap plays the rest of each turn),
    // until the game ends.
    let mut end = Value::Null;
    let mut time_up_seen = false;
    let mut round_began = 0;
    for _ in 0..200 {
        app.advance_clock(55_000).await;
        poll_all(&app, &room, &players).await;
        let view = app.room(&room, None).await;
        if view["status"] == "finished" {
            end = view;
            break;
        }
        if view["state"]["turnIndex"] == 0 {
            round_began = view["state"]["turnStartedAt"].as_u64().unwrap();
        }
        let player = on_turn(&view, &players).unwrap().clone();
        let action = next_action(&app, &room, &player).await;
        let reply = app.act_ok(&room, &player, action).await;
        if reply["room"]["status"] == "finished" {
            time_up_seen = reply["events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["type"] == "timeUp");
            end = reply["room"].clone();
            break;
        }
    }
    assert_eq!(end["status"], "finished", "the game did not end");
    assert!(
        time_up_seen
            || end["result"]["summary"]
                .as_str()
                .unwrap()
                .starts_with("시간 종료!"),
        "it ended by time"
    );
    assert_eq!(
        end["state"]["turnIndex"], 2,
        "it ended when the turn would pass back to {first}"
    );
    assert!(
        round_began < time_up,
        "the last round was the one in progress at the 30-minute mark"
    );
    let result = &end["result"];
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .starts_with("시간 종료!")
    );
    let ranking = result["ranking"].as_array().unwrap();
    let most = ranking
        .iter()
        .map(|s| s["finishedPieces"].as_u64().unwrap())
        .max();
    for standing in ranking {
        let leads = standing["finishedPieces"].as_u64() == most;
        assert_eq!(standing["rank"] == 1, leads, "{standing}");
    }
}

// Recommendations ───────────────────────────────────────────────────────────────────────────────

#[tokio::test]
async fn y16_a_recommendation_reaches_the_teammates_and_never_the_other_team_or_spectators() {
    let app = spawn_app().await;
    let options = json!({"ruleset": "rulesPage", "mode": "team", "turnSeconds": 60});
    let (room, players) = seated(&app, options, 66, 4).await;
    let team_of = |view: &Value, p: &Player| view["state"]["sideOf"][&p.id].as_u64().unwrap();

    // The player on turn throws until a move is awaited.
    let (mover, view) = loop {
        let view = app.room(&room, None).await;
        let mover = on_turn(&view, &players).unwrap().clone();
        let action = next_action(&app, &room, &mover).await;
        if action["type"] == "MOVE" {
            break (mover, view);
        }
        app.act_ok(&room, &mover, action).await;
    };
    let mate = players
        .iter()
        .find(|p| p.id != mover.id && team_of(&view, p) == team_of(&view, &mover))
        .unwrap()
        .clone();
    let rivals: Vec<Player> = players
        .iter()
        .filter(|p| team_of(&view, p) != team_of(&view, &mover))
        .cloned()
        .collect();
    let mine = app.room(&room, Some(&mover)).await;
    let suggestion = mine["state"]["legalMoves"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let recommend = json!({
        "type": "RECOMMEND", "throwIndex": suggestion["throwIndex"], "from": suggestion["from"]
    });

    // A rival cannot recommend, and the teammate's recommendation moves nothing.
    let refused = app.act(&room, &rivals[0], recommend.clone()).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused.body["code"], "CANNOT_RECOMMEND");
    let before = app.room(&room, None).await;
    let reply = app.act_ok(&room, &mate, recommend.clone()).await;
    assert_eq!(reply["events"][0]["type"], "recommended");
    assert_eq!(reply["events"][0]["to"], suggestion["to"]);
    let after = app.room(&room, None).await;
    assert_eq!(after["state"]["sides"], before["state"]["sides"]);
    assert_eq!(after["state"]["pending"], before["state"]["pending"]);

    let shown = |view: &Value| view["state"]["recommendations"].as_array().unwrap().clone();
    for p in [&mover, &mate] {
        let seen = shown(&app.room(&room, Some(p)).await);
        assert_eq!(seen.len(), 1, "{} sees it", p.id);
        assert_eq!(seen[0]["by"], mate.id);
        assert_eq!(seen[0]["to"], suggestion["to"]);
    }
    let mut leaks = vec![app.room(&room, None).await];
    for rival in &rivals {
        leaks.push(app.room(&room, Some(rival)).await);
    }
    for view in &leaks {
        assert!(shown(view).is_empty());
        assert!(
            !view
                .to_string()
                .contains(&format!("\"by\":\"{}\"", mate.id))
        );
    }

    // The player to move plays it as an ordinary MOVE; the other team then plays on, and
    // nothing it receives mentions the recommendation.
    let play =
        json!({"type": "MOVE", "throwIndex": suggestion["throwIndex"], "from": suggestion["from"]});
    app.act_ok(&room, &mover, play).await;
    for _ in 0..40 {
        let view = app.room(&room, None).await;
        let Some(player) = on_turn(&view, &players).cloned() else {
            break;
        };
        let action = next_action(&app, &room, &player).await;
        let reply = app.act_ok(&room, &player, action).await;
        if rivals.iter().any(|r| r.id == player.id) {
            let text = reply.to_string();
            assert!(!text.contains("recommended"), "{text}");
            assert!(shown(&reply["room"]).is_empty());
        }
    }
}

// Bots ──────────────────────────────────────────────────────────────────────────────────────────

#[tokio::test]
async fn y16_a_leaver_is_replaced_by_a_bot_that_plays_the_game_to_its_end() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, json!({"ruleset": "rulesPage"}), 67, 3).await;
    let leaver = players[1].clone();
    let start = app.room(&room, None).await;
    let order = start["state"]["turnOrder"].clone();

    let reply = app.act_ok(&room, &leaver, json!({"type": "leave"})).await;
    assert!(
        reply["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "replacedByBot" && e["player"] == leaver.id)
    );
    let view = app.room(&room, None).await;
    let seat = &view["players"][1];
    assert_eq!(
        (seat["bot"].clone(), seat["left"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(view["state"]["control"][&leaver.id], "bot");
    assert_eq!(view["state"]["turnOrder"], order, "same turn order");
    assert_eq!(view["state"]["conceded"][&leaver.id], false);

    // The others play; the bot's turns happen between theirs, until the game is over.
    let humans = [players[0].clone(), players[2].clone()];
    let mut end = Value::Null;
    for _ in 0..3_000 {
        let view = app.room(&room, None).await;
        if view["status"] == "finished" {
            end = view;
            break;
        }
        // The bot moves a think time after the last change: the clock is moved past it.
        let Some(player) = on_turn(&view, &humans).cloned() else {
            assert_eq!(view["players"][1]["bot"], true);
            app.advance_clock(madang_core::room::BOT_THINK_MAX_MS).await;
            continue;
        };
        let action = next_action(&app, &room, &player).await;
        app.act_ok(&room, &player, action).await;
    }
    assert_eq!(end["status"], "finished");
    assert_eq!(end["result"]["winners"].as_array().unwrap().len(), 1);
    assert!(end["players"][1]["bot"].as_bool().unwrap());
}

#[tokio::test]
async fn y16_a_game_everyone_left_is_finished_by_its_bots_through_polling_alone() {
    let app = spawn_app().await;
    let (room, players) = seated(&app, json!({"ruleset": "rulesPage"}), 68, 2).await;
    for p in &players {
        app.act_ok(&room, p, json!({"type": "leave"})).await;
    }
    // The bots' moves are the server's thinker's: a spectator's long-polls see them arrive.
    let mut view = app.room(&room, None).await;
    for _ in 0..20 {
        if view["status"] == "finished" {
            break;
        }
        let version = view["version"].as_u64().unwrap();
        view = app.room_after(&room, None, version).await;
    }
    assert_eq!(view["status"], "finished");
    assert_eq!(view["deadlineAt"], Value::Null);
    assert!(
        view["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["bot"] == true)
    );
}

// The option schemas ────────────────────────────────────────────────────────────────────────────

#[tokio::test]
async fn the_option_schema_of_each_game_is_served_and_agrees_with_validation() {
    let app = spawn_app().await;
    let yut = app.get("/games/yut", None).await;
    assert_eq!(yut.status, StatusCode::OK);
    // The served schema is the core's, with the chat rules (emotes, bounds) beside it.
    let without_chat = |body: &Value| {
        let mut body = body.clone();
        let chat = body.as_object_mut().unwrap().remove("chat").unwrap();
        assert!(!chat["emotes"].as_array().unwrap().is_empty());
        body
    };
    assert_eq!(
        without_chat(&yut.body),
        serde_json::to_value(YutOptions::schema()).unwrap()
    );
    let baduk = app.get("/games/baduk", None).await;
    assert_eq!(
        without_chat(&baduk.body),
        serde_json::to_value(BadukOptions::schema()).unwrap()
    );
    let unknown = app.get("/games/chess", None).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);

    for (game, schema) in [("yut", &yut.body), ("baduk", &baduk.body)] {
        // Every preset creates a room.
        for preset in schema["presets"].as_array().unwrap() {
            let r = app
                .post(
                    "/rooms",
                    None,
                    json!({"game": game, "name": "방장", "options": preset["options"]}),
                )
                .await;
            assert_eq!(r.status, StatusCode::CREATED, "{game} {}", preset["name"]);
        }
        // Each constraint broken alone is refused, naming the field the schema names.
        for constraint in schema["constraints"].as_array().unwrap() {
            let then = constraint["then"].as_object().unwrap();
            if then.contains_key(PLAYERS) {
                continue;
            }
            let mut options = json!({});
            for (key, values) in constraint["when"].as_object().unwrap() {
                set(&mut options, key, &values[0]);
            }
            let (key, allowed) = then.iter().next().unwrap();
            let allowed: Values = values_of(allowed);
            let option = schema["options"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["key"] == key.as_str())
                .unwrap();
            let Some(bad) = candidates(&values_of(&option["values"]))
                .into_iter()
                .find(|v| !allowed.contains(v))
            else {
                continue;
            };
            set(&mut options, key, &bad);
            let r = app
                .post(
                    "/rooms",
                    None,
                    json!({"game": game, "name": "방장", "options": options}),
                )
                .await;
            assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{options}");
            assert_eq!(r.body["code"], "INVALID_OPTIONS");
            let field = constraint["reportedAs"].as_str().unwrap_or(key);
            assert_eq!(r.body["field"], field, "{options}");
        }
    }
}

/// The schema's JSON `values` read back.
fn values_of(json: &Value) -> Values {
    if let Some(list) = json.get("oneOf") {
        return Values::OneOf(list.as_array().unwrap().clone());
    }
    let r = &json["range"];
    Values::Range {
        min: r["min"].as_f64().unwrap(),
        max: r["max"].as_f64().unwrap(),
        step: r["step"].as_f64().unwrap(),
        or_null: r["orNull"].as_bool().unwrap(),
    }
}

/// Values an option may take by itself, to find one a constraint forbids.
fn candidates(values: &Values) -> Vec<Value> {
    match values {
        Values::OneOf(list) => list.clone(),
        Values::Range { min, max, .. } => vec![json!(*min as i64), json!(*max as i64)],
    }
}

/// Sets a dotted key in an options object.
fn set(options: &mut Value, key: &str, value: &Value) {
    let parts: Vec<&str> = key.split('.').collect();
    let mut at = options;
    for part in &parts[..parts.len() - 1] {
        if at.get(*part).is_none() {
            at[*part] = json!({});
        }
        at = &mut at[*part];
    }
    at[parts[parts.len() - 1]] = value.clone();
}
