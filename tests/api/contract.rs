//! The contract of the specs, from outside: every field of the spec's State interfaces
//! (yut.md / baduk.md §8.1), results (§8.6) and events (§8.2), under the spec's names and shapes,
//! in the served views of every phase; the served `/openapi.json` is the generated document; and
//! the parser refuses what the document refuses (and accepts what it accepts).

use madang_tests::contract::{DOCUMENT, validator};
use madang_tests::games::{place, play_out, walled_baduk_game, yut_action};
use madang_tests::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A shape of the spec's TypeScript, as data: `"int"`, `"str"`, `"bool"`, `"num"`, `"any"`,
/// `{"null": s}` (`s | null`), `{"arr": s}`, `{"arrLen": [s, n]}`, `{"obj": {k: s}}` (every key
/// present), `{"rec": s}` (`Record<_, s>`), `{"enum": [..]}`, `{"any": [s, ..]}` (a union).
fn check(v: &Value, shape: &Value, at: &str) {
    if let Err(e) = shaped(v, shape, at) {
        panic!("{e}");
    }
}

fn shaped(v: &Value, shape: &Value, at: &str) -> Result<(), String> {
    let fail = || Err(format!("{at}: {v} is not {shape}"));
    let ensure = |ok: bool| if ok { Ok(()) } else { fail() };
    match shape {
        Value::String(t) => match t.as_str() {
            "int" => ensure(v.is_u64() || v.is_i64()),
            "num" => ensure(v.is_number()),
            "str" => ensure(v.is_string()),
            "bool" => ensure(v.is_boolean()),
            "any" => Ok(()),
            _ => fail(),
        },
        Value::Object(m) => {
            let Some((kind, inner)) = m.iter().next() else {
                return fail();
            };
            match kind.as_str() {
                "null" if v.is_null() => Ok(()),
                "null" => shaped(v, inner, at),
                "arr" => {
                    let Some(items) = v.as_array() else {
                        return fail();
                    };
                    for (i, item) in items.iter().enumerate() {
                        shaped(item, inner, &format!("{at}[{i}]"))?;
                    }
                    Ok(())
                }
                "arrLen" => {
                    let Some(items) = v.as_array() else {
                        return fail();
                    };
                    if Some(items.len() as u64) != inner[1].as_u64() {
                        return Err(format!("{at}: {} items, not {}", items.len(), inner[1]));
                    }
                    for (i, item) in items.iter().enumerate() {
                        shaped(item, &inner[0], &format!("{at}[{i}]"))?;
                    }
                    Ok(())
                }
                "obj" => {
                    let Some(o) = v.as_object() else {
                        return fail();
                    };
                    for (k, s) in inner.as_object().into_iter().flatten() {
                        let Some(field) = o.get(k) else {
                            return Err(format!("{at}.{k} is missing from {v}"));
                        };
                        shaped(field, s, &format!("{at}.{k}"))?;
                    }
                    Ok(())
                }
                "rec" => {
                    let Some(o) = v.as_object() else {
                        return fail();
                    };
                    for (k, item) in o {
                        shaped(item, inner, &format!("{at}.{k}"))?;
                    }
                    Ok(())
                }
                "enum" => ensure(inner.as_array().is_some_and(|a| a.contains(v))),
                "any" => {
                    let errors: Vec<String> = inner
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|s| shaped(v, s, at))
                        .filter_map(Result::err)
                        .collect();
                    if errors.len() < inner.as_array().map_or(0, Vec::len) {
                        Ok(())
                    } else {
                        Err(format!(
                            "{at}: {v} matches no alternative: {}",
                            errors.join("; ")
                        ))
                    }
                }
                _ => fail(),
            }
        }
        _ => fail(),
    }
}

fn throw_shape() -> Value {
    json!({"enum": ["do", "gae", "geol", "yut", "mo", "backdo"]})
}

/// yut.md §8.1 `YutState` less `rng` (§8.3).
fn yut_state_shape() -> Value {
    let piece = json!({"obj": {
        "id": "int",
        "status": {"enum": ["home", "board", "done"]},
        "node": {"null": "int"},
        "lapped": "bool",
        "trail": {"arr": "int"},
    }});
    json!({"obj": {
        "options": {"obj": {}},
        "players": {"arr": "str"},
        "sideOf": {"rec": "int"},
        "sides": {"arr": {"obj": {
            "id": "int",
            "members": {"arr": "str"},
            "pieces": {"arr": piece},
            "finishedRank": {"null": "int"},
        }}},
        "turnOrder": {"arr": "str"},
        "turnIndex": "int",
        "phase": {"enum": ["throw", "move", "finished"]},
        "throwsOwed": "int",
        "pending": {"arr": throw_shape()},
        "lastThrow": {"null": {"obj": {
            "sticks": {"null": {"arrLen": ["bool", 4]}},
            "result": {"any": [throw_shape(), {"enum": ["nak"]}]},
        }}},
        "turnSeq": "int",
        "deadlineAt": {"null": "int"},
        "log": {"arr": yut_event_shape()},
    }})
}

/// yut.md §8.2 events (with the payloads the spec names).
fn yut_event_shape() -> Value {
    let pos = json!({"any": ["int", {"enum": ["home", "goal"]}]});
    json!({"any": [
        {"obj": {"type": {"enum": ["thrown"]}, "sticks": {"arrLen": ["bool", 4]}, "result": throw_shape()}},
        {"obj": {"type": {"enum": ["moved"]}, "side": "int", "from": pos, "to": pos, "path": {"arr": pos}, "count": "int"}},
        {"obj": {"type": {"enum": ["captured"]}, "victimSide": "int", "count": "int"}},
        {"obj": {"type": {"enum": ["finishedPieces"]}, "count": "int"}},
        {"obj": {"type": {"enum": ["discarded"]}, "throws": {"arr": throw_shape()}}},
        {"obj": {"type": {"enum": ["sideFinished"]}, "rank": "int"}},
        {"obj": {"type": {"enum": [
            "nak", "stacked", "turnChanged", "gameOver", "bonusThrow", "conceded", "away",
            "autoPlay", "replacedByBot", "timeUp"
        ]}}},
    ]})
}

/// yut.md §8.6 `YutResult` (`rank` is `null` only under `ranking: none`, ruling Y16).
fn yut_result_shape() -> Value {
    json!({"obj": {
        "ranking": {"arr": {"obj": {
            "rank": {"null": "int"},
            "players": {"arr": "str"},
            "side": "int",
            "finishedPieces": "int",
            "remainingDistance": "int",
        }}},
        "winners": {"arr": "str"},
        "summary": "str",
        "stats": {"obj": {
            "throws": {"obj": {"do": "int", "gae": "int", "geol": "int", "yut": "int", "mo": "int", "backdo": "int", "nak": "int"}},
            "captures": {"rec": "int"},
        }},
    }})
}

fn colors(s: Value) -> Value {
    json!({"obj": {"black": s, "white": s}})
}

fn pt() -> Value {
    json!({"obj": {"x": "int", "y": "int"}})
}

/// baduk.md §8.6 `BadukResult`.
fn baduk_result_shape(counted: bool) -> Value {
    let mut shape = json!({"obj": {
        "ranking": {"arr": {"obj": {"playerId": "str", "rank": {"enum": [1, 2]}}}},
        "winner": {"null": {"enum": ["black", "white"]}},
        "reason": {"enum": ["score", "jigo", "resign", "timeLoss", "drawAgreed", "repetition"]},
        "summaryKo": "str",
    }});
    if counted {
        shape["obj"]["score"] = json!({"obj": {
            "method": {"enum": ["territory", "area"]},
            "black": {"obj": {"territory": "num", "captures": "num", "stones": "num", "total": "num"}},
            "white": {"obj": {"territory": "num", "captures": "num", "stones": "num", "komi": "num", "handicapComp": "num", "total": "num"}},
            "margin": "num",
            "ownership": {"arr": {"enum": [0, 1, 2]}},
        }});
    }
    shape
}

/// baduk.md §8.1 `BadukState` less `rng`, `positionHistory`, `situationCounts` (§8.3).
fn baduk_state_shape(size: u64) -> Value {
    let color = json!({"enum": ["black", "white"]});
    json!({"obj": {
        "options": {"obj": {}},
        "size": {"enum": [9, 13, 19]},
        "board": {"arrLen": [{"enum": [0, 1, 2]}, size * size]},
        "players": colors(json!("str")),
        "turn": color,
        "phase": {"enum": ["playing", "scoring", "finished"]},
        "captures": colors(json!("int")),
        "consecutivePasses": "int",
        "moves": {"arr": {"any": [
            {"obj": {"kind": {"enum": ["place"]}, "color": color, "pt": pt(), "captured": {"arr": pt()}}},
            {"obj": {"kind": {"enum": ["pass"]}, "color": color}},
        ]}},
        "koPoint": {"null": pt()},
        "scoringMarks": {"null": {"obj": {
            "dead": {"arr": "int"},
            "seki": {"arr": "int"},
            "agreed": colors(json!("bool")),
            "startedAt": "int",
            "resumeRequestedBy": {"null": color},
        }}},
        "clock": {"obj": {
            "mainMs": colors(json!("int")),
            "periodsLeft": colors(json!("int")),
            "inByoyomi": colors(json!("bool")),
            "turnStartedAt": "int",
        }},
        "undo": {"obj": {
            "usedBy": colors(json!("int")),
            "pending": {"null": {"obj": {"by": color, "plies": {"enum": [1, 2]}}}},
        }},
        "draw": {"obj": {
            "pendingBy": {"null": color},
            "lastOfferMove": colors(json!({"null": "int"})),
        }},
        "result": "any",
    }})
}

/// baduk.md §8.2 events.
fn baduk_event_shape() -> Value {
    let color = json!({"enum": ["black", "white"]});
    json!({"any": [
        {"obj": {"type": {"enum": ["stonePlaced"]}, "color": color, "point": pt(), "captured": {"arr": pt()}}},
        {"obj": {"type": {"enum": ["captured"]}, "points": {"arr": pt()}}},
        {"obj": {"type": {"enum": ["pass"]}, "color": color}},
        {"obj": {"type": {"enum": ["atari"]}, "stones": {"arr": pt()}}},
        {"obj": {"type": {"enum": ["scoringStarted"]}, "dead": {"arr": pt()}, "seki": {"arr": pt()}}},
        {"obj": {"type": {"enum": ["marksChanged"]}, "dead": {"arr": pt()}, "seki": {"arr": pt()}}},
        {"obj": {"type": {"enum": ["playResumed"]}, "turn": color}},
        {"obj": {"type": {"enum": ["gameEnded"]}, "result": baduk_result_shape(false)}},
        {"obj": {"type": {"enum": [
            "scoreAgreed", "undoRequested", "undoAccepted", "undoDeclined", "drawOffered",
            "drawDeclined", "offerCancelled"
        ]}}},
    ]})
}

const HIDDEN: [&str; 4] = ["rng", "positionHistory", "situationCounts", "seed"];

fn check_hidden(state: &Value) {
    for key in HIDDEN {
        assert!(state.get(key).is_none(), "{key} is hidden (§8.3): {state}");
    }
}

fn check_yut_room(room: &Value, phase: &str) {
    let state = &room["state"];
    check(state, &yut_state_shape(), "state");
    check_hidden(state);
    assert_eq!(state["phase"], phase);
    assert_eq!(
        state["turnSeq"], room["version"],
        "turnSeq is the room version"
    );
    assert!(state["log"].as_array().unwrap().len() <= 12);
}

#[tokio::test]
async fn every_field_of_the_yut_spec_state_events_and_result_is_served_in_every_phase() {
    let app = spawn_app().await;
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 21).await;
    let lobby = app.room(&room, Some(&host)).await;
    assert_eq!(
        (lobby["status"].clone(), lobby["state"].clone()),
        (json!("lobby"), Value::Null)
    );
    let guest = app.join(&room, "영희").await;
    let players = [host.clone(), guest];
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let mut seen_events = 0;
    let mut phases = std::collections::BTreeSet::new();
    for _ in 0..40 {
        let view = app.room(&room, None).await;
        let phase = view["state"]["phase"].as_str().unwrap().to_owned();
        check_yut_room(&view, &phase);
        phases.insert(phase);
        let current = view["state"]["currentPlayer"].as_str().unwrap();
        let player = players.iter().find(|p| p.id == current).unwrap();
        let mine = app.room(&room, Some(player)).await;
        let acted = app.act_ok(&room, player, yut_action(&mine["state"])).await;
        for event in acted["events"].as_array().unwrap() {
            check(event, &yut_event_shape(), "event");
            seen_events += 1;
        }
        let log = acted["room"]["state"]["log"].as_array().unwrap();
        let events = acted["events"].as_array().unwrap();
        assert_eq!(
            &log[log.len() - events.len().min(log.len())..],
            &events[events.len().saturating_sub(log.len())..],
            "the log ends with the answer's events"
        );
    }
    assert!(phases.contains("throw") && phases.contains("move"));
    assert!(seen_events > 40);
    let end = play_out(&app, &room, &players).await;
    check_yut_room(&end, "finished");
    check(&end["result"], &yut_result_shape(), "result");
}

fn check_baduk_room(room: &Value, phase: &str) {
    let state = &room["state"];
    check(state, &baduk_state_shape(9), "state");
    check_hidden(state);
    assert_eq!(state["phase"], phase);
}

#[tokio::test]
async fn every_field_of_the_baduk_spec_state_events_and_result_is_served_in_every_phase() {
    let app = spawn_app().await;
    let (room, black, white) = walled_baduk_game(&app).await;
    // Scoring: the suggested marks are indices, agreement per colour.
    let scoring = app.room(&room, Some(&black)).await;
    check_baduk_room(&scoring, "scoring");
    let marks = &scoring["state"]["scoringMarks"];
    assert_eq!(
        marks["dead"],
        json!([4 * 9 + 1]),
        "the invader at (1,4), by index"
    );
    assert_eq!(marks["resumeRequestedBy"], Value::Null);
    // Back to play: marks gone; an undo request and a draw offer show in undo/draw.
    let resumed = app
        .act_ok(&room, &black, json!({"type": "resumePlay"}))
        .await;
    for event in resumed["events"].as_array().unwrap() {
        check(event, &baduk_event_shape(), "event");
    }
    check_baduk_room(&resumed["room"], "playing");
    assert_eq!(resumed["room"]["state"]["scoringMarks"], Value::Null);
    let placed = place(&app, &room, &white, 2, 2).await;
    for event in placed["events"].as_array().unwrap() {
        check(event, &baduk_event_shape(), "event");
    }
    let asked = app
        .act_ok(&room, &white, json!({"type": "requestUndo"}))
        .await;
    let state = &asked["room"]["state"];
    check_baduk_room(&asked["room"], "playing");
    assert_eq!(state["undo"]["pending"], json!({"by": "white", "plies": 1}));
    app.act_ok(
        &room,
        &black,
        json!({"type": "respondUndo", "accept": true}),
    )
    .await;
    let undone = app.room(&room, None).await;
    assert_eq!(
        undone["state"]["undo"]["usedBy"],
        json!({"black": 0, "white": 1})
    );
    let offered = app
        .act_ok(&room, &white, json!({"type": "offerDraw"}))
        .await;
    assert_eq!(offered["room"]["state"]["draw"]["pendingBy"], "white");
    let declined = app
        .act_ok(
            &room,
            &black,
            json!({"type": "respondDraw", "accept": false}),
        )
        .await;
    let draw = &declined["room"]["state"]["draw"];
    assert_eq!(draw["pendingBy"], Value::Null);
    assert!(draw["lastOfferMove"]["white"].is_u64());
    // A stone, two passes, agreement: finished with a counted result.
    place(&app, &room, &white, 2, 6).await;
    app.act_ok(&room, &black, json!({"type": "pass"})).await;
    app.act_ok(&room, &white, json!({"type": "pass"})).await;
    app.act_ok(&room, &white, json!({"type": "agreeScore"}))
        .await;
    let end = app
        .act_ok(&room, &black, json!({"type": "agreeScore"}))
        .await;
    for event in end["events"].as_array().unwrap() {
        check(event, &baduk_event_shape(), "event");
    }
    check_baduk_room(&end["room"], "finished");
    check(&end["room"]["result"], &baduk_result_shape(true), "result");
    // The room's result is the game's, with the generator's reveal beside its fields.
    let mut result = end["room"]["result"].clone();
    assert!(
        result
            .as_object_mut()
            .unwrap()
            .remove("rngReveal")
            .is_some()
    );
    assert_eq!(end["room"]["state"]["result"], result);
}

#[tokio::test]
async fn the_baduk_ko_point_is_served_while_a_ko_is_open() {
    let app = spawn_app().await;
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack", "koRule": "korean"}),
            3,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    // Black (1,0) (0,1) (1,2) (2,1)… white (2,0) (3,1) (2,2), then white takes at (1,1).
    for (b, w) in [
        ((1, 0), (2, 0)),
        ((0, 1), (3, 1)),
        ((1, 2), (2, 2)),
        ((2, 1), (8, 8)),
    ] {
        place(&app, &room, &black, b.0, b.1).await;
        place(&app, &room, &white, w.0, w.1).await;
    }
    place(&app, &room, &black, 7, 7).await;
    let taken = place(&app, &room, &white, 1, 1).await;
    assert_eq!(taken["room"]["state"]["koPoint"], json!({"x": 2, "y": 1}));
    check_baduk_room(&taken["room"], "playing");
}

#[tokio::test]
async fn the_served_openapi_json_is_the_generated_document_and_holds_every_state_field() {
    let app = spawn_app().await;
    let served = app.get("/openapi.json", None).await;
    assert_eq!(served.status, StatusCode::OK);
    assert_eq!(served.body, *DOCUMENT);
    let schemas = &DOCUMENT["components"]["schemas"];
    for (name, fields) in [
        (
            "YutView",
            &[
                "options",
                "players",
                "sideOf",
                "sides",
                "turnOrder",
                "turnIndex",
                "phase",
                "throwsOwed",
                "pending",
                "lastThrow",
                "turnSeq",
                "deadlineAt",
                "log",
            ][..],
        ),
        (
            "BadukView",
            &[
                "options",
                "size",
                "board",
                "players",
                "turn",
                "phase",
                "captures",
                "consecutivePasses",
                "moves",
                "koPoint",
                "scoringMarks",
                "clock",
                "undo",
                "draw",
                "result",
            ][..],
        ),
    ] {
        for field in fields {
            assert!(
                schemas[name]["properties"][field].is_object(),
                "{name}.{field} missing"
            );
            assert!(
                schemas[name]["required"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(field))
            );
        }
    }
}

#[test]
fn the_generated_schemas_refuse_an_extra_field_and_a_missing_one() {
    let room = validator(&json!({"$ref": "#/components/schemas/YutRoom"}));
    let lobby = json!({
        "roomId": "r", "game": "yut", "version": 1, "status": "lobby", "hostId": "p1",
        "options": madang_core::yut::YutOptions::default(), "ruleSummary": "개인전",
        "players": [], "you": null, "deadlineAt": null, "state": null, "result": null,
        "rngCommitment": "00", "rematchRoomId": null, "pollAfterMs": 1000, "liveUrl": null
    });
    assert!(
        room.is_valid(&lobby),
        "{:?}",
        room.iter_errors(&lobby)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    );
    let mut extra = lobby.clone();
    extra["scoring"] = json!({});
    assert!(
        !room.is_valid(&extra),
        "a field the types do not have is refused"
    );
    let mut missing = lobby.clone();
    missing.as_object_mut().unwrap().remove("version");
    assert!(!room.is_valid(&missing), "a missing field is refused");
    let mut wrong_game = lobby;
    wrong_game["game"] = json!("baduk");
    assert!(!room.is_valid(&wrong_game));
}

async fn poll(app: &TestApp, room: &str, query: &str) -> StatusCode {
    app.get(&format!("/rooms/{room}?{query}"), None)
        .await
        .status
}

#[tokio::test]
async fn the_parser_refuses_what_the_document_refuses_and_reads_whole_numbers_as_integers() {
    let app = spawn_app().await;
    let (room, host) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            5,
        )
        .await;
    let white = app.join(&room, "백").await;
    assert_eq!(poll(&app, &room, "wait=26").await, StatusCode::BAD_REQUEST);
    assert_eq!(poll(&app, &room, "wait=0").await, StatusCode::OK);
    assert_eq!(
        poll(&app, &room, "since=4235030.0&wait=0.0").await,
        StatusCode::NOT_MODIFIED
    );
    assert_eq!(
        poll(&app, &room, "since=1.5").await,
        StatusCode::BAD_REQUEST
    );
    let long = app
        .post(
            "/rooms",
            None,
            json!({"game": "yut", "name": "가".repeat(21)}),
        )
        .await;
    assert_eq!(long.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(long.body["code"], "INVALID_NAME");
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let version = app.room(&room, None).await["version"].as_u64().unwrap();
    let placed = app
        .post(
            &format!("/rooms/{room}/actions"),
            Some(&host.token),
            json!({"expectedVersion": version as f64, "action": {"type": "place", "x": 4.0, "y": 4.0}}),
        )
        .await;
    assert_eq!(placed.status, StatusCode::OK, "{}", placed.body);
    assert_eq!(placed.body["room"]["state"]["board"][4 * 9 + 4], 1);
    let fractional = app
        .post(
            &format!("/rooms/{room}/actions"),
            Some(&white.token),
            json!({"action": {"type": "place", "x": 4.5, "y": 4}}),
        )
        .await;
    assert_eq!(fractional.status, StatusCode::BAD_REQUEST);
}

/// The lobby's actions, one list ([`madang_functions::api::actions::lobby_types`], read from
/// the `LobbyAction` schema): each action of this table is accepted by the server's parser
/// exactly when the served document's `POST /rooms/{id}/actions` body schema accepts it, and
/// the table has an accepted action of every lobby `type` (a new type needs its line here).
#[test]
fn the_document_accepts_every_lobby_action_the_parser_accepts_and_refuses_the_rest() {
    use madang_functions::api::actions::{lobby_types, parse_action};
    use madang_functions::service::SentAction;
    let body = validator(
        &DOCUMENT["paths"]["/rooms/{id}/actions"]["post"]["requestBody"]["content"]["application/json"]
            ["schema"],
    );
    let actions = [
        json!({"type": "setOptions", "options": {}}),
        json!({"type": "setOptions", "options": {"mode": "team"}}),
        json!({"type": "moveSeat", "playerId": "p2", "seat": 1}),
        json!({"type": "start"}),
        json!({"type": "leave"}),
        json!({"type": "kick", "playerId": "p2"}),
        json!({"type": "unkick", "playerId": "p2"}),
        json!({"type": "rematch"}),
        json!({"type": "addBot"}),
        json!({"type": "addBot", "level": 2}),
        // Refused by both.
        json!({"type": "setOptions"}),
        json!({"type": "setOptions", "options": 5}),
        json!({"type": "moveSeat", "playerId": "p2"}),
        json!({"type": "moveSeat", "seat": 1}),
        json!({"type": "start", "now": true}),
        json!({"type": "leave", "playerId": "p2"}),
        json!({"type": "kick"}),
        json!({"type": "unkick", "seat": 0}),
        json!({"type": "rematch", "level": 1}),
        json!({"type": "addBot", "level": "강"}),
        json!({"type": "addBot", "level": -1}),
        json!({"type": "sit"}),
    ];
    let mut accepted_types = std::collections::BTreeSet::new();
    for action in &actions {
        let parsed = matches!(
            parse_action(&action.to_string()),
            Ok((_, SentAction::Lobby(Ok(_))))
        );
        let documented = body.is_valid(&json!({ "action": action }));
        assert_eq!(
            parsed,
            documented,
            "{action}: the parser {} it, the document {} it",
            if parsed { "accepts" } else { "refuses" },
            if documented { "accepts" } else { "refuses" },
        );
        if parsed {
            accepted_types.insert(action["type"].as_str().unwrap().to_owned());
        }
    }
    let listed: std::collections::BTreeSet<String> = lobby_types().iter().cloned().collect();
    assert_eq!(
        accepted_types, listed,
        "an accepted action of every lobby type"
    );
    // The descriptions come from the same list.
    let lobby = &DOCUMENT["components"]["schemas"]["Action"]["anyOf"][0];
    assert_eq!(lobby["$ref"], "#/components/schemas/LobbyAction");
    for kind in lobby_types() {
        let named = format!("`{kind}`");
        assert!(
            lobby["description"].as_str().unwrap().contains(&named),
            "the Action description names {named}"
        );
    }
}
