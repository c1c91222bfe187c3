//! Games against computer players, driven the way an app would: the human reads the room and
//! acts on their turn; a bot's move is announced as `deadlineAt`, and the test moves the dev
//! clock there instead of sleeping, then long-polls for the move (the server's thinker makes
//! it, off the request path).
//! The same drivers run on the embedded store (`api`), on DynamoDB (`dynamodb`) and through
//! the Lambda emulator (`lambda`).

use madang_core::room::BOT_THINK_MAX_MS;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::{Player, TestApp};

/// The host's lobby with `levels.len()` bots added, started.
pub async fn yut_room_with_bots(app: &TestApp, options: Value, levels: &[u8]) -> (String, Player) {
    let (room, host) = app.create("yut", options, 2201).await;
    for &level in levels {
        app.act_ok(&room, &host, json!({"type": "addBot", "level": level}))
            .await;
    }
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    (room, host)
}

/// Plays the room to its end as `human` would: reads it, acts when it is their turn (the first
/// legal move, or a throw), and otherwise moves the dev clock to the announced `deadlineAt` and
/// long-polls for the bot's move (made by the server's thinker, never by a read). Returns the final view and how
/// many bot actions were seen arriving.
pub async fn play_yut_against_bots(app: &TestApp, room: &str, human: &Player) -> (Value, u64) {
    let mut human_actions = 0;
    let first = app.room(room, Some(human)).await["version"]
        .as_u64()
        .unwrap();
    for _ in 0..5_000 {
        let view = app.room(room, Some(human)).await;
        if view["status"] == "finished" {
            // Every accepted change bumps the version by one: what the human did not do,
            // the bots did.
            let bot_actions = view["version"].as_u64().unwrap() - first - human_actions;
            return (view, bot_actions);
        }
        if view["state"]["currentPlayer"] == human.id.as_str() {
            let action = match view["state"]["phase"].as_str().unwrap() {
                "throw" => json!({"type": "THROW"}),
                _ => {
                    let m = &view["state"]["legalMoves"][0];
                    json!({"type": "MOVE", "throwIndex": m["throwIndex"], "from": m["from"]})
                }
            };
            app.act_ok(room, human, action).await;
            human_actions += 1;
        } else {
            // A bot holds the turn: the view says when its move comes, within a think time,
            // and the poll hint points just past it.
            let deadline = view["deadlineAt"]
                .as_u64()
                .expect("a bot's move is announced");
            let poll = view["pollAfterMs"].as_u64().unwrap();
            assert!(poll <= BOT_THINK_MAX_MS + 100, "{poll}");
            let current = player(&view, view["state"]["currentPlayer"].as_str().unwrap());
            assert_eq!(current["bot"], true, "{current}");
            let now = server_now(app).await;
            app.advance_clock(deadline.saturating_sub(now) + 1).await;
            // The move is searched off the request path and arrives as a new version.
            let version = view["version"].as_u64().unwrap();
            bot_move_after(app, room, human, version).await;
        }
    }
    panic!("the game did not end");
}

pub fn player<'v>(view: &'v Value, id: &str) -> &'v Value {
    view["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap()
}

/// Waits for the bot's move after `version`, as `human` sees it. On the embedded store a
/// long-poll, which its notifier wakes at once. DynamoDB has no notifier: its long-poll reads
/// the room every 300 ms (`WAIT_STEP`), which over a 윷놀이 game's 150 bot moves is most of a
/// minute of the suite spent asleep; there the driver reads every 20 ms instead. Either way a
/// read never makes the move (the thinker does): these reads only watch for it.
async fn bot_move_after(app: &TestApp, room: &str, human: &Player, version: u64) -> Value {
    if app.embedded.is_some() {
        return app.room_after(room, Some(human), version).await;
    }
    for _ in 0..1_500 {
        let view = app.room(room, Some(human)).await;
        if view["version"].as_u64().unwrap() > version {
            return view;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("no bot move after version {version} within 30 s");
}

/// The server's clock (ms), dev offset included.
pub async fn server_now(app: &TestApp) -> u64 {
    app.get("/healthz", None).await.body["now"]
        .as_u64()
        .unwrap()
}

/// Plays a 바둑 room against its bot as a beginner would: pass on every turn, agree to the
/// marks whenever asked; the clock is moved to each announced bot move. Returns the final view
/// and how many bot actions were seen arriving (as [`play_yut_against_bots`] counts them).
pub async fn play_baduk_against_the_bot(app: &TestApp, room: &str, human: &Player) -> (Value, u64) {
    let mut human_actions = 0;
    let first = app.room(room, Some(human)).await["version"]
        .as_u64()
        .unwrap();
    for _ in 0..400 {
        let view = app.room(room, Some(human)).await;
        if view["status"] == "finished" {
            let bot_actions = view["version"].as_u64().unwrap() - first - human_actions;
            return (view, bot_actions);
        }
        let state = &view["state"];
        let me = human.id.as_str();
        let my_color = if state["players"]["black"] == me {
            "black"
        } else {
            "white"
        };
        match state["phase"].as_str().unwrap() {
            "playing" if state["turn"] == my_color => {
                app.act_ok(room, human, json!({"type": "pass"})).await;
                human_actions += 1;
                continue;
            }
            "scoring" if state["scoringMarks"]["agreed"][my_color] != true => {
                app.act_ok(room, human, json!({"type": "agreeScore"})).await;
                human_actions += 1;
                continue;
            }
            _ => {}
        }
        let deadline = view["deadlineAt"]
            .as_u64()
            .expect("the bot's move is announced");
        let now = server_now(app).await;
        app.advance_clock(deadline.saturating_sub(now) + 1).await;
        let version = view["version"].as_u64().unwrap();
        bot_move_after(app, room, human, version).await;
    }
    panic!("the game did not end");
}

/// A 4-seat 윷놀이 room, the host and three bots (levels 1–3), played to its end by the
/// host's reads and moves alone; a rematch keeps the bots. Returns the bots' actions.
pub async fn check_a_four_seat_yut_game_with_three_bots(app: &TestApp) -> u64 {
    let (room, host) = yut_room_with_bots(app, json!({}), &[1, 2, 3]).await;
    let (end, bot_actions) = play_yut_against_bots(app, &room, &host).await;
    assert_eq!(end["status"], "finished");
    assert!(bot_actions > 10, "{bot_actions}");
    assert!(!end["result"]["winners"].as_array().unwrap().is_empty());
    assert_eq!(end["deadlineAt"], Value::Null);
    // 한 판 더 keeps the bots.
    let again = app.act_ok(&room, &host, json!({"type": "rematch"})).await;
    let next = again["room"]["rematchRoomId"].as_str().unwrap().to_owned();
    let lobby = app.room(&next, Some(&host)).await;
    let bots: Vec<&Value> = lobby["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["bot"] == true)
        .collect();
    assert_eq!(bots.len(), 3);
    assert_eq!(lobby["hostId"], host.id.as_str());
    bot_actions
}

/// A 9줄 바둑 game against the level-1 bot (black), played to an agreed score. Returns the
/// bot's actions.
pub async fn check_a_nine_line_baduk_game_against_the_bot(app: &TestApp) -> u64 {
    let (room, host) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostWhite"}),
            2203,
        )
        .await;
    let schema = app.get("/games/baduk", None).await.body;
    assert_eq!(
        schema["bots"]["levels"][0],
        json!({"level": 1, "label": "입문"})
    );
    app.act_ok(&room, &host, json!({"type": "addBot", "level": 1}))
        .await;
    let started = app.act_ok(&room, &host, json!({"type": "start"})).await;
    // The bot plays black: its first move is due within a think time.
    assert!(started["room"]["deadlineAt"].as_u64().is_some());
    let (end, bot_actions) = play_baduk_against_the_bot(app, &room, &host).await;
    assert_eq!(end["result"]["reason"], "score", "{}", end["result"]);
    assert_eq!(end["result"]["winner"], "black");
    // Every bot move is in the record like anyone's.
    let sgf = app.get(&format!("/rooms/{room}/sgf"), None).await;
    assert_eq!(sgf.status, StatusCode::OK);
    // The bot played black's every move and agreed to the score.
    let moves = end["state"]["moves"].as_array().unwrap();
    let black = moves.iter().filter(|m| m["color"] == "black").count() as u64;
    assert!(
        bot_actions > black,
        "{bot_actions} bot actions, {black} black moves"
    );
    bot_actions
}
