//! Bad requests: each gets its status and stable code, and the room is exactly as it was.

use madang_tests::{Player, spawn_app};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

struct Case {
    name: &'static str,
    body: Body,
    token: Tok,
    status: StatusCode,
    code: &'static str,
}

enum Body {
    Raw(String),
    Json(Value),
}

enum Tok {
    None,
    Bogus,
    Host,
    Guest,
    ToMove,
    Waiting,
}

#[tokio::test]
async fn every_bad_request_gets_its_status_and_code_and_changes_nothing() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 7).await;
    let guest = app.join(&room, "손님").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let view = app.room(&room, None).await;
    let current = view["state"]["currentPlayer"].as_str().unwrap().to_owned();
    let (to_move, waiting): (Player, Player) = if current == host.id {
        (host.clone(), guest.clone())
    } else {
        (guest.clone(), host.clone())
    };
    let version = view["version"].as_u64().unwrap();

    let big = format!(
        "{{\"action\":{{\"type\":\"THROW\"}},\"pad\":\"{}\"}}",
        "x".repeat(20_000)
    );
    let cases = [
        Case {
            name: "not JSON",
            body: Body::Raw("{".into()),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "MALFORMED",
        },
        Case {
            name: "unknown request field",
            body: Body::Json(json!({"action": {"type": "THROW"}, "extra": 1})),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "MALFORMED",
        },
        Case {
            name: "no action",
            body: Body::Json(json!({})),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "MALFORMED",
        },
        Case {
            name: "unknown action type",
            body: Body::Json(json!({"action": {"type": "FLY"}})),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "BAD_ACTION",
        },
        Case {
            name: "unknown action field",
            body: Body::Json(json!({"action": {"type": "THROW", "power": 9}})),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "BAD_ACTION",
        },
        Case {
            name: "unknown lobby field",
            body: Body::Json(json!({"action": {"type": "start", "now": true}})),
            token: Tok::Host,
            status: StatusCode::BAD_REQUEST,
            code: "BAD_ACTION",
        },
        Case {
            name: "wrong payload type",
            body: Body::Json(
                json!({"action": {"type": "MOVE", "throwIndex": "0", "from": "home"}}),
            ),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "BAD_ACTION",
        },
        Case {
            name: "a key twice in the action",
            body: Body::Raw(r#"{"action":{"type":"THROW","type":"CONCEDE"}}"#.into()),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "MALFORMED",
        },
        Case {
            name: "a key twice deep in a refused action",
            body: Body::Raw(r#"{"action":{"type":"FLY","wings":{"a":1,"a":2}}}"#.into()),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "MALFORMED",
        },
        Case {
            name: "a key twice in the options",
            body: Body::Raw(
                r#"{"action":{"type":"setOptions","options":{"pieces":3,"pieces":4}}}"#.into(),
            ),
            token: Tok::Host,
            status: StatusCode::BAD_REQUEST,
            code: "MALFORMED",
        },
        Case {
            name: "options that are no object, on any action",
            body: Body::Json(json!({"action": {"type": "THROW", "options": [4]}})),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "MALFORMED",
        },
        Case {
            name: "another game's action",
            body: Body::Json(json!({"action": {"type": "place", "x": 3, "y": 3}})),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "BAD_ACTION",
        },
        Case {
            name: "an action that is no object",
            body: Body::Json(json!({"action": [1, 2]})),
            token: Tok::ToMove,
            status: StatusCode::BAD_REQUEST,
            code: "BAD_ACTION",
        },
        Case {
            name: "another game's options",
            body: Body::Json(
                json!({"action": {"type": "setOptions", "options": {"boardSize": 9}}}),
            ),
            token: Tok::Host,
            status: StatusCode::BAD_REQUEST,
            code: "BAD_ACTION",
        },
        Case {
            name: "no token",
            body: Body::Json(json!({"action": {"type": "THROW"}})),
            token: Tok::None,
            status: StatusCode::UNAUTHORIZED,
            code: "UNAUTHORIZED",
        },
        Case {
            name: "unknown token",
            body: Body::Json(json!({"action": {"type": "THROW"}})),
            token: Tok::Bogus,
            status: StatusCode::UNAUTHORIZED,
            code: "UNAUTHORIZED",
        },
        Case {
            name: "guest kicks",
            body: Body::Json(json!({"action": {"type": "kick", "playerId": host.id}})),
            token: Tok::Guest,
            status: StatusCode::FORBIDDEN,
            code: "NOT_HOST",
        },
        Case {
            name: "stale expectedVersion",
            body: Body::Json(json!({"expectedVersion": version - 1, "action": {"type": "THROW"}})),
            token: Tok::ToMove,
            status: StatusCode::CONFLICT,
            code: "VERSION_CONFLICT",
        },
        Case {
            name: "body over 16 KB",
            body: Body::Raw(big),
            token: Tok::ToMove,
            status: StatusCode::PAYLOAD_TOO_LARGE,
            code: "PAYLOAD_TOO_LARGE",
        },
        Case {
            name: "not your turn",
            body: Body::Json(json!({"action": {"type": "THROW"}})),
            token: Tok::Waiting,
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "NOT_YOUR_TURN",
        },
        Case {
            name: "move while throwing",
            body: Body::Json(json!({"action": {"type": "MOVE", "throwIndex": 0, "from": "home"}})),
            token: Tok::ToMove,
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "NOT_MOVE_PHASE",
        },
        Case {
            name: "options after start",
            body: Body::Json(json!({"action": {"type": "setOptions", "options": {"pieces": 3}}})),
            token: Tok::Host,
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "ALREADY_STARTED",
        },
    ];
    for case in cases {
        let mut request = app
            .http
            .request(Method::POST, format!("{}/rooms/{room}/actions", app.base));
        request = match case.token {
            Tok::None => request,
            Tok::Bogus => request.bearer_auth("not-a-token"),
            Tok::Host => request.bearer_auth(&host.token),
            Tok::Guest => request.bearer_auth(&guest.token),
            Tok::ToMove => request.bearer_auth(&to_move.token),
            Tok::Waiting => request.bearer_auth(&waiting.token),
        };
        request = match &case.body {
            Body::Raw(text) => request
                .header("content-type", "application/json")
                .body(text.clone()),
            Body::Json(v) => request.json(v),
        };
        let r = madang_tests::TestApp::reply(request.send().await.unwrap()).await;
        assert_eq!(r.status, case.status, "{}: {:?}", case.name, r.body);
        assert_eq!(r.body["code"], case.code, "{}: {:?}", case.name, r.body);
        assert_eq!(
            r.headers["content-type"], "application/problem+json",
            "{}",
            case.name
        );
        assert!(
            r.body["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{}: a message for people",
            case.name
        );
        if ["MALFORMED", "BAD_ACTION"].contains(&case.code) {
            // `detail` is for players: Korean, without the parser's English. What the parser
            // said goes to `reason`, for the developer who sent the request.
            let detail = r.body["detail"].as_str().unwrap();
            let rest = ["JSON", "options"]
                .iter()
                .fold(detail.to_owned(), |d, word| d.replace(word, ""));
            assert!(
                !rest.chars().any(|c| c.is_ascii_alphabetic()),
                "{}: detail {detail:?} holds more than Korean",
                case.name
            );
            if case.name != "options that are no object, on any action" {
                assert!(
                    r.body["reason"].as_str().is_some_and(|s| !s.is_empty()),
                    "{}: the parser's reason: {:?}",
                    case.name,
                    r.body
                );
            }
        }
        if case.status == StatusCode::CONFLICT {
            assert_eq!(
                r.body["room"]["version"], version,
                "409 carries the current room"
            );
        }
        assert_eq!(
            app.room(&room, None).await["version"],
            version,
            "{} changed the room",
            case.name
        );
    }
    let r = app.get("/rooms/nope", None).await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("ROOM_NOT_FOUND"))
    );
}

#[tokio::test]
async fn invalid_options_name_the_field_in_korean() {
    let app = spawn_app().await;
    let r = app
        .post(
            "/rooms",
            None,
            json!({"game": "yut", "name": "a", "options": {"pieces": 9}}),
        )
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("INVALID_OPTIONS"))
    );
    assert_eq!(r.body["field"], "pieces");
    let r = app
        .post(
            "/rooms",
            None,
            json!({"game": "yut", "name": "a", "options": {"colour": 1}}),
        )
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("MALFORMED"))
    );
    let r = app
        .post("/rooms", None, json!({"game": "chess", "name": "a"}))
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("UNKNOWN_GAME"))
    );
    let r = app
        .post("/rooms", None, json!({"game": "yut", "name": ""}))
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("INVALID_NAME"))
    );
}

async fn keyed(
    app: &madang_tests::TestApp,
    room: &str,
    who: &Player,
    key: &str,
    body: Value,
) -> madang_tests::Reply {
    let request = app
        .http
        .post(format!("{}/rooms/{room}/actions", app.base))
        .bearer_auth(&who.token)
        .header("idempotency-key", key)
        .json(&body);
    madang_tests::TestApp::reply(request.send().await.unwrap()).await
}

#[tokio::test]
async fn an_idempotency_key_retry_returns_the_first_answer_and_acts_once() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 3).await;
    let guest = app.join(&room, "손님").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let current = app.room(&room, None).await["state"]["currentPlayer"]
        .as_str()
        .unwrap()
        .to_owned();
    let thrower = if current == host.id { &host } else { &guest };

    let throw = json!({"action": {"type": "THROW"}});
    let first = keyed(&app, &room, thrower, "throw-1", throw.clone()).await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
    // The phone lost the answer and sends the same request again.
    let retry = keyed(&app, &room, thrower, "throw-1", throw).await;
    assert_eq!(retry.status, StatusCode::OK);
    assert_eq!(retry.headers["idempotent-replayed"], "true");
    assert_eq!(retry.body["version"], first.body["version"]);
    // The replay names the first answer's version; what happened is in the room's log: the
    // same sticks, not a second throw.
    assert_eq!(retry.body["events"], json!([]));
    let thrown = |events: &Value| {
        events
            .as_array()
            .unwrap()
            .iter()
            .rfind(|e| e["type"] == "thrown")
            .cloned()
    };
    assert_eq!(
        thrown(&retry.body["room"]["state"]["log"]),
        thrown(&first.body["events"]),
        "the same sticks, not a second throw"
    );
    assert_eq!(
        app.room(&room, None).await["version"],
        first.body["version"],
        "acted once"
    );

    let reused = keyed(
        &app,
        &room,
        thrower,
        "throw-1",
        json!({"action": {"type": "CONCEDE"}}),
    )
    .await;
    assert_eq!(reused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(reused.body["code"], "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(
        app.room(&room, None).await["version"],
        first.body["version"]
    );
}
