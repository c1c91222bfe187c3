//! Ruling B7 over HTTP: a 19×19 game driven to the move limit ends counted, and resumes past
//! the cap are refused with a stable code and a Korean message, as problem+json.

use madang_tests::games::walled_baduk_game;
use madang_tests::spawn_app;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE};
use serde_json::{Value, json};

/// The first moves of Little Go's longest record (Black fills the board row by row while White
/// passes), as actions and who sends them (0 black, 1 white).
fn long_record(n: usize) -> Vec<(usize, Value)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/fixtures/sgf/littlego/19x19/maximum-number-of-moves.sgf"
    );
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let record = madang_core::baduk::sgf::parse(&text).unwrap();
    record.moves[..n]
        .iter()
        .map(|m| {
            let who = usize::from(m.color == madang_core::baduk::Color::White);
            let action = match m.point {
                Some(p) => json!({"type": "place", "x": p.x, "y": p.y}),
                None => json!({"type": "pass"}),
            };
            (who, action)
        })
        .collect()
}

fn assert_problem(r: &madang_tests::Reply, code: &str, detail: &str) {
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.headers[CONTENT_TYPE], "application/problem+json");
    assert_eq!(r.body["code"], code);
    assert_eq!(r.body["detail"], detail);
}

#[tokio::test]
async fn b7_a_19x19_game_driven_to_the_move_limit_ends_counted_and_cannot_be_resumed() {
    let app = spawn_app().await;
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 19, "colorAssignment": "hostBlack"}),
            7,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    let players = [&black, &white];
    let mut last = Value::Null;
    for (who, action) in long_record(722) {
        last = app.act_ok(&room, players[who], action).await;
    }
    let state = &last["room"]["state"];
    assert_eq!(state["phase"], "scoring", "the 722nd move starts the count");
    assert_eq!(state["moveLimit"], 722);
    assert_eq!(state["moves"].as_array().unwrap().len(), 722);
    assert_eq!(
        state["scoringMarks"]["resumable"],
        json!({"black": false, "white": false})
    );
    let events = last["events"].as_array().unwrap();
    assert!(
        events.iter().any(|e| e["type"] == "moveLimitReached"),
        "{events:?}"
    );

    // The sizes of the view at the cap: plain, and as a browser gets it.
    let url = format!("{}/rooms/{room}", app.base);
    let plain = app
        .http
        .get(&url)
        .bearer_auth(&black.token)
        .send()
        .await
        .unwrap();
    assert!(plain.headers().get(CONTENT_ENCODING).is_none());
    let plain = plain.bytes().await.unwrap().len();
    let gzipped = app
        .http
        .get(&url)
        .bearer_auth(&black.token)
        .header(ACCEPT_ENCODING, "gzip, deflate, br")
        .send()
        .await
        .unwrap();
    assert_eq!(gzipped.headers()[CONTENT_ENCODING], "gzip");
    let gzipped = gzipped.bytes().await.unwrap().len();
    println!(
        "GET /rooms/{{id}} of a 19×19 game at the move limit (722 moves): {plain} B plain, {gzipped} B gzip"
    );
    assert!(gzipped * 4 < plain, "{gzipped} B gzipped of {plain} B");

    for who in [&black, &white] {
        let r = app.act(&room, who, json!({"type": "resumePlay"})).await;
        assert_problem(
            &r,
            "MOVE_LIMIT",
            "수 제한에 닿아 대국을 재개할 수 없어요. 사석을 정해 계가해 주세요.",
        );
        let r = app.act(&room, who, json!({"type": "pass"})).await;
        assert_eq!(r.body["code"], "WRONG_PHASE");
    }
    app.act_ok(&room, &black, json!({"type": "agreeScore"}))
        .await;
    let end = app
        .act_ok(&room, &white, json!({"type": "agreeScore"}))
        .await;
    assert_eq!(end["room"]["status"], "finished");
    let result = &end["room"]["state"]["result"];
    assert!(
        result["reason"] == "score" || result["reason"] == "jigo",
        "{result}"
    );
    assert!(result["score"]["black"]["total"].is_number(), "{result}");
}

#[tokio::test]
async fn b7_a_third_resume_by_the_same_player_is_refused_with_resume_limit() {
    let app = spawn_app().await;
    let (room, black, white) = walled_baduk_game(&app).await;
    // `walled_baduk_game` leaves the game in the scoring phase.
    for round in 0..2 {
        let r = app
            .act_ok(&room, &white, json!({"type": "resumePlay"}))
            .await;
        assert_eq!(r["room"]["state"]["resumesLeft"]["white"], 1 - round);
        app.act_ok(&room, &black, json!({"type": "pass"})).await;
        let again = app.act_ok(&room, &white, json!({"type": "pass"})).await;
        assert_eq!(again["room"]["state"]["phase"], "scoring");
    }
    let view = app.room(&room, Some(&white)).await;
    assert_eq!(
        view["state"]["scoringMarks"]["resumable"],
        json!({"black": true, "white": false})
    );
    let before = view["version"].clone();
    let r = app.act(&room, &white, json!({"type": "resumePlay"})).await;
    assert_problem(
        &r,
        "RESUME_LIMIT",
        "대국 재개는 한 사람이 한 판에 두 번까지예요. 사석을 정해 계가해 주세요.",
    );
    let after = app.room(&room, Some(&white)).await;
    assert_eq!(after["version"], before, "a refused resume changes nothing");
    assert_eq!(after["state"]["phase"], "scoring");
    // Black still has both of its own.
    let r = app
        .act_ok(&room, &black, json!({"type": "resumePlay"}))
        .await;
    assert_eq!(r["room"]["state"]["phase"], "playing");
}
