//! `GET /openapi.json`: the OpenAPI 3.1 document, generated from the Rust types the API
//! serializes and parses (`schemars` on core's options, actions, views and results, and on the
//! wire forms of events in [`super::events`]), so it cannot drift from them. Paths follow
//! [`super::ROUTES`] (a test fails on a route left out), and the generated text is also
//! committed as `functions/openapi.json` for offline client generators (a test fails when that
//! copy is stale; `MADANG_WRITE_OPENAPI=1` rewrites it).
//!
//! Two contracts: request bodies are described as the parser reads them (missing keys take
//! defaults, unknown keys are refused); answers as the server writes them (every field present,
//! no other field: objects are closed with `additionalProperties: false`).

use std::sync::LazyLock;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use madang_core::baduk::{Baduk, BadukAction, BadukEvent, BadukOptions};
use madang_core::room::RoomView;
use madang_core::yut::{self, Yut, YutOptions};
use madang_infra::RoomStore;
use schemars::generate::{Contract, SchemaSettings};
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::events::RoomEventForm;
use super::requests::{MAX_NAME_CHARS, MAX_WAIT_SECS};
use crate::app::App;

/// The document, generated once per process.
static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    let mut text = serde_json::to_string_pretty(&openapi_document()).unwrap_or_default();
    text.push('\n');
    text
});

/// `GET /openapi.json`
pub async fn document<S: RoomStore>(_: axum::extract::State<App<S>>) -> Response {
    let mut response = DOCUMENT.as_str().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

// Schema-only request bodies for the two that `requests.rs` reads in two steps (`CreateBody`,
// `ActionBody`: the JSON first, then the game's options or action once the game is known):
// the same fields, with the game's own option and action types in place of raw JSON.
// (`JoinRoom` and `DevClock` are the parser's own structs.)

/// `POST /rooms` for a 윷놀이 room.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct CreateYutRoom {
    /// The game.
    #[schemars(extend("const" = "yut"))]
    game: String,
    /// The creator's display name, 1–20 characters after trimming.
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    name: String,
    /// The game's options; missing keys take the defaults of the chosen `ruleset`.
    #[serde(default)]
    options: Option<YutOptions>,
    /// `MADANG_DEV=1` only: seed the room's generator for a reproducible game.
    #[cfg(feature = "dev")]
    #[serde(default)]
    seed: Option<u64>,
}

/// `POST /rooms` for a 바둑 room.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct CreateBadukRoom {
    /// The game.
    #[schemars(extend("const" = "baduk"))]
    game: String,
    /// The creator's display name, 1–20 characters after trimming.
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    name: String,
    /// The game's options; missing keys take their defaults.
    #[serde(default)]
    options: Option<BadukOptions>,
    /// `MADANG_DEV=1` only: seed the room's generator for a reproducible game.
    #[cfg(feature = "dev")]
    #[serde(default)]
    seed: Option<u64>,
}

/// `POST /rooms` body: a 윷놀이 or a 바둑 room.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum CreateRoom {
    /// 윷놀이.
    Yut(CreateYutRoom),
    /// 바둑.
    Baduk(CreateBadukRoom),
}

/// One action: the lobby's, or the room's game's (one schema per `type`).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Action {
    /// Every room (the `type`s are listed by [`action_descriptions`]).
    Lobby(super::actions::LobbyActionSchema),
    /// 윷놀이 rooms.
    Yut(yut::Action),
    /// 바둑 rooms.
    Baduk(BadukAction),
}

/// The descriptions of `Action`'s branches, each naming its `type`s as the branch's own schema
/// lists them (so they cannot drift from the schemas, nor the parser).
fn action_descriptions(schemas: &mut Map<String, Value>) {
    let tags = |name: &str| {
        let listed: Vec<String> = super::actions::tags_of(&schemas[name])
            .iter()
            .map(|t| format!("`{t}`"))
            .collect();
        listed.join(", ")
    };
    let described = [
        ("LobbyAction", "The lobby's, in every room"),
        ("YutAction", "윷놀이 rooms"),
        ("BadukAction", "바둑 rooms"),
    ]
    .map(|(name, whose)| (name, format!("{whose}: {}.", tags(name))));
    if let Some(branches) = schemas
        .get_mut("Action")
        .and_then(|a| a["anyOf"].as_array_mut())
    {
        for branch in branches {
            let name = branch["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
                .unwrap_or_default()
                .to_owned();
            if let Some((_, text)) = described.iter().find(|(n, _)| *n == name) {
                branch["description"] = json!(text);
            }
        }
    }
}

/// `POST /rooms/{id}/actions` body.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ActionRequest {
    /// The version the client acted on; a stale one is refused with 409 and the current room.
    #[serde(default)]
    expected_version: Option<u64>,
    /// The action, tagged by `type`.
    action: Action,
}

// Schema-only answers around the core views.

/// The answers around a room view, for one game.
macro_rules! answers {
    ($seated:ident, $acted:ident, $game:ty, $event:ty) => {
        /// The answer of `POST /rooms` and `POST /rooms/{id}/players`.
        #[derive(JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[allow(dead_code)]
        struct $seated {
            /// The room's id (`POST /rooms` only).
            #[serde(skip_serializing_if = "Option::is_none")]
            room_id: Option<String>,
            /// The new player's id.
            player_id: String,
            /// The bearer token, shown once.
            token: String,
            /// The room as the new player sees it.
            room: RoomView<'static, $game>,
        }

        /// The answer of `POST /rooms/{id}/actions`.
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct $acted {
            /// The room's version after the action.
            version: u64,
            /// What happened, in order: overdue timeouts fired first, then the action's own
            /// events, then what it made due at once (a bot's turn).
            events: Vec<RoomEventForm<'static, $event>>,
            /// The room as the caller now sees it.
            room: RoomView<'static, $game>,
        }
    };
}

answers!(YutSeated, YutActed, Yut, yut::Event);
answers!(BadukSeated, BadukActed, Baduk, BadukEvent);

fn generator(contract: Contract) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas/".into();
            s.contract = contract;
        })
        .into_generator()
}

/// Replaces every `$ref` to `from` by one to `to`.
fn rename_refs(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref")
                && r == from
            {
                *r = to.to_owned();
            }
            map.values_mut().for_each(|v| rename_refs(v, from, to));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_refs(v, from, to)),
        _ => {}
    }
}

/// The definition name a `$ref` schema points at.
fn ref_name(schema: &schemars::Schema) -> String {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
        .unwrap_or_default()
        .to_owned()
}

/// Closes every object schema that lists its properties: an answer with a field the types do
/// not have fails validation, so the document cannot silently fall behind the views.
fn close_objects(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            map.values_mut().for_each(close_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// Asks a generator for one type's schema (a `$ref` to its definition).
type SchemaFor = fn(&mut SchemaGenerator) -> schemars::Schema;

/// Definitions generated for `names` (the name each is to get, and a closure asking the
/// generator for it), renamed to those names.
fn definitions(contract: Contract, wanted: &[(&str, SchemaFor)]) -> Map<String, Value> {
    let mut generator = generator(contract);
    let renames: Vec<(String, String)> = wanted
        .iter()
        .map(|(name, make)| (ref_name(&make(&mut generator)), (*name).to_owned()))
        .collect();
    let mut defs = generator.take_definitions(true);
    for (from, to) in &renames {
        if from == to {
            continue;
        }
        if let Some(schema) = defs.remove(from) {
            defs.insert(to.clone(), schema);
        }
        as_value(&mut defs, |all| {
            rename_refs(
                all,
                &format!("#/components/schemas/{from}"),
                &format!("#/components/schemas/{to}"),
            )
        });
    }
    defs
}

/// The components generated from the types: answers (serialize contract) and request bodies
/// (deserialize contract). A request-side definition that differs from the answer-side one of
/// the same name (options: keys optional when sent, all present when shown) is kept as
/// `{name}Input`.
fn components() -> Map<String, Value> {
    let mut out = definitions(
        Contract::Serialize,
        &[
            ("YutRoom", |g| g.subschema_for::<RoomView<'static, Yut>>()),
            ("BadukRoom", |g| {
                g.subschema_for::<RoomView<'static, Baduk>>()
            }),
            ("YutSeated", |g| g.subschema_for::<YutSeated>()),
            ("BadukSeated", |g| g.subschema_for::<BadukSeated>()),
            ("YutActed", |g| g.subschema_for::<YutActed>()),
            ("BadukActed", |g| g.subschema_for::<BadukActed>()),
            ("YutRoomEvent", |g| {
                g.subschema_for::<RoomEventForm<'static, yut::Event>>()
            }),
            ("BadukRoomEvent", |g| {
                g.subschema_for::<RoomEventForm<'static, BadukEvent>>()
            }),
            ("Review", |g| {
                g.subschema_for::<madang_core::baduk::review::Review>()
            }),
        ],
    );
    as_value(&mut out, close_objects);
    let mut input = definitions(
        Contract::Deserialize,
        &[
            ("CreateRoom", |g| g.subschema_for::<CreateRoom>()),
            ("JoinRoom", |g| {
                g.subschema_for::<super::requests::JoinBody>()
            }),
            ("ActionRequest", |g| g.subschema_for::<ActionRequest>()),
            ("Action", |g| g.subschema_for::<Action>()),
            #[cfg(feature = "dev")]
            ("DevClock", |g| {
                g.subschema_for::<super::rooms::ClockRequest>()
            }),
        ],
    );
    let clashes: Vec<String> = input
        .iter()
        .filter(|(name, schema)| out.get(*name).is_some_and(|s| s != *schema))
        .map(|(name, _)| name.clone())
        .collect();
    for name in &clashes {
        if let Some(schema) = input.remove(name) {
            input.insert(format!("{name}Input"), schema);
        }
        as_value(&mut input, |all| {
            rename_refs(
                all,
                &format!("#/components/schemas/{name}"),
                &format!("#/components/schemas/{name}Input"),
            )
        });
    }
    for (name, schema) in input {
        out.entry(name).or_insert(schema);
    }
    for (room, game) in [("YutRoom", "yut"), ("BadukRoom", "baduk")] {
        if let Some(props) = out
            .get_mut(room)
            .and_then(|r| r.get_mut("properties"))
            .and_then(Value::as_object_mut)
        {
            props.insert("game".into(), json!({"const": game}));
            props.insert("liveUrl".into(), json!({"type": ["string", "null"], "format": "uri", "description": "The live channel (absolute ws:// or wss:// URL): a WebSocket announcing this room's new versions (DESIGN.md, \"Live channel\"); null where the deployment has none"}));
        }
        if let Some(required) = out
            .get_mut(room)
            .and_then(|r| r.get_mut("required"))
            .and_then(Value::as_array_mut)
        {
            required.push("liveUrl".into());
        }
    }
    for (room, replay) in [("YutRoom", "YutReplay"), ("BadukRoom", "BadukReplay")] {
        if let Some(mut schema) = out.get(room).cloned() {
            if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert("replay".into(), json!({
                    "type": "object",
                    "description": "The step shown (`at`) and how many steps the game has (`of`)",
                    "required": ["at", "of"],
                    "properties": {
                        "at": {"type": "integer", "minimum": 0},
                        "of": {"type": "integer", "minimum": 0},
                    },
                    "additionalProperties": false,
                }));
            }
            if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
                required.push("replay".into());
            }
            out.insert(replay.into(), schema);
        }
    }
    out
}

/// Runs `f` on `map` as a JSON value.
fn as_value(map: &mut Map<String, Value>, f: impl FnOnce(&mut Value)) {
    let mut value = Value::Object(std::mem::take(map));
    f(&mut value);
    if let Value::Object(back) = value {
        *map = back;
    }
}

/// A problem answer (RFC 9457) with the given codes.
fn problem(description: &str, codes: &[&str], room: bool) -> Value {
    let mut content = json!({"$ref": "#/components/schemas/Problem"});
    if room || !codes.is_empty() {
        let mut properties = Map::new();
        if !codes.is_empty() {
            properties.insert("code".into(), json!({"enum": codes}));
        }
        let mut extra = json!({"properties": properties});
        if room {
            extra["required"] = json!(["room"]);
        }
        content = json!({"allOf": [content, extra]});
    }
    json!({
        "description": description,
        "content": {"application/problem+json": {"schema": content}}
    })
}

/// The codes answered with `status`, from the table of codes ([`crate::error::codes`]).
/// `HTTP_ERROR` (the HTTP layer's answer with a status no code has) is in `Problem.code`, under
/// no status.
fn codes_of(status: u16) -> Vec<&'static str> {
    crate::error::codes()
        .into_iter()
        .filter(|(s, c)| s.as_u16() == status && *c != crate::error::HTTP_ERROR.code)
        .map(|(_, code)| code)
        .collect()
}

/// The error answers of an operation, by status.
fn problems(statuses: &[u16]) -> Map<String, Value> {
    statuses
        .iter()
        .map(|&status| {
            let description = match status {
                400 => "Malformed request (MALFORMED, BAD_ACTION)",
                401 => "No valid bearer token",
                403 => "Not allowed for this player",
                404 => "No such room (or nothing of the kind)",
                409 => "`expectedVersion` is stale: `room` is the current room",
                413 => "Body over 16 KiB",
                422 => "Refused by validation, the lobby or the game's rules",
                503 => "The store is busy; retry (Retry-After)",
                _ => "Error",
            };
            let codes = codes_of(status);
            (
                status.to_string(),
                problem(description, &codes, status == 409),
            )
        })
        .collect()
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

fn one_of_games(yut: &str, baduk: &str) -> Value {
    json!({"oneOf": [
        {"$ref": format!("#/components/schemas/{yut}")},
        {"$ref": format!("#/components/schemas/{baduk}")}
    ]})
}

fn with_problems(mut responses: Map<String, Value>, statuses: &[u16]) -> Value {
    responses.extend(problems(statuses));
    Value::Object(responses)
}

/// One path item per route of [`super::ROUTES`].
fn operation(method: &str, path: &str) -> Option<Value> {
    let room_id = json!({"$ref": "#/components/parameters/RoomId"});
    let body = |schema: &str| json!({"required": true, "content": json_content(json!({"$ref": format!("#/components/schemas/{schema}")}))});
    let ok = |code: &str, description: &str, schema: Value| {
        let mut m = Map::new();
        m.insert(
            code.into(),
            json!({"description": description, "content": json_content(schema)}),
        );
        m
    };
    let op = match (method, path) {
        ("post", "/rooms") => json!({
            "summary": "Create a room; the creator is host in seat 0",
            "requestBody": body("CreateRoom"),
            "responses": with_problems(ok("201", "Created", one_of_games("YutSeated", "BadukSeated")), &[400, 408, 413, 415, 422, 429, 431, 503]),
        }),
        ("get", "/rooms/{id}") => {
            let mut responses = ok("200", "The room", one_of_games("YutRoom", "BadukRoom"));
            // Every read says when to read again, a 304 too (`Read::NotModified` carries it).
            let read_headers = json!({
                "ETag": {"schema": {"type": "string"}},
                "Retry-After": {
                    "description": "Seconds (rounded up) until the client should read the room again: the room's pollAfterMs",
                    "schema": {"type": "integer", "minimum": 1}
                }
            });
            responses["200"]["headers"] = read_headers.clone();
            responses.insert(
                "304".into(),
                json!({"description": "Nothing newer than `since` / If-None-Match", "headers": read_headers}),
            );
            json!({
                "summary": "The room as the caller sees it; long-poll with since/wait",
                "parameters": [
                    room_id,
                    {"name": "since", "in": "query", "schema": {"type": "integer", "minimum": 0}, "description": "Answer when the version is greater than this"},
                    {"name": "wait", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT_SECS}, "description": "Seconds to wait for a newer version (at most 25; the server may cap it lower: on Lambda the deployment's MADANG_MAX_WAIT_SECS, at most 20, 0 by default, so every read answers at once)"},
                    {"name": "If-None-Match", "in": "header", "schema": {"type": "string"}, "description": "An ETag (\"version\"); 304 when unchanged"}
                ],
                "security": [{}, {"bearer": []}],
                "responses": with_problems(responses, &[400, 401, 404, 408, 429, 431, 503]),
            })
        }
        ("post", "/rooms/{id}/players") => json!({
            "summary": "Join a lobby seat",
            "parameters": [room_id, {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string", "minLength": 32, "maxLength": 255}, "description": "A retry with the same key takes the same seat"}],
            "description": "A client that held a seat in this room before sends its token: a seat the host kicked cannot take another (403 KICKED). With an Idempotency-Key (32 characters or more of the client's own randomness) a retried join gets the seat, and the token, of its first attempt (Idempotent-Replayed: true).",
            "security": [{}, {"bearer": []}],
            "requestBody": body("JoinRoom"),
            "responses": with_problems(ok("201", "Joined", one_of_games("YutSeated", "BadukSeated")), &[400, 403, 404, 408, 409, 413, 415, 422, 429, 431, 503]),
        }),
        ("post", "/rooms/{id}/actions") => json!({
            "summary": "Apply one lobby or game action",
            "parameters": [
                room_id,
                {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string", "minLength": 1, "maxLength": 255}, "description": "A retry with the same key and body returns the first answer instead of acting twice"}
            ],
            "security": [{"bearer": []}],
            "requestBody": body("ActionRequest"),
            "responses": with_problems(ok("200", "Accepted", one_of_games("YutActed", "BadukActed")), &[400, 401, 403, 404, 408, 409, 413, 415, 422, 431, 503]),
        }),
        ("get", "/rooms/{id}/sgf") => json!({
            "summary": "A 바둑 room's game record as SGF (FF[4])",
            "parameters": [room_id],
            "responses": with_problems(
                {
                    let mut m = Map::new();
                    m.insert("200".into(), json!({"description": "SGF", "content": {"application/x-go-sgf": {"schema": {"type": "string"}}}}));
                    m
                },
                &[404, 503],
            ),
        }),
        ("get", "/rooms/{id}/at/{n}") => json!({
            "summary": "Replay: the room as a spectator saw it after the game's n-th step (0: the position at `start`), replayed from the stored room's log; a read only",
            "description": "A step is every change the game went through: an action, a timeout fired for a player, a computer player's move, a player leaving. Nothing hidden at that step is shown (the seed only in the result of the final step of a finished game). `replay.of` is how many steps the game has so far. 404 STEP_NOT_FOUND past the last step (or in a lobby), 404 REPLAY_NOT_KEPT for a game started before rooms kept a replay log.",
            "parameters": [room_id, {"name": "n", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 0}, "description": "The step, 0 to replay.of"}],
            "responses": with_problems(ok("200", "The room at that step", one_of_games("YutReplay", "BadukReplay")), &[404, 503]),
        }),
        ("get", "/rooms/{id}/review") => {
            let mut responses = ok(
                "200",
                "The review, computed once and kept",
                json!({"$ref": "#/components/schemas/Review"}),
            );
            responses.extend(ok(
                "202",
                "Being computed: ask again after Retry-After seconds",
                json!({"type": "object", "required": ["status", "retryAfterSecs"], "properties": {
                "status": {"const": "computing"},
                "retryAfterSecs": {"type": "integer", "minimum": 1},
            }, "additionalProperties": false}),
            ));
            responses["202"]["headers"] = json!({"Retry-After": {"description": "Seconds until the client should ask again", "schema": {"type": "integer", "minimum": 1}}});
            json!({
                "summary": "The 바둑 review of a finished game (참고용): black's score lead after every move and the three largest swings, computed once by the computer player's engine within a bounded budget and kept",
                "description": "`moves[k].scoreLead`: black's expected final margin in points after move n (komi included; negative: white leads), estimated by playouts. `swings`: at most three moves, largest |delta| first, delta the change in black's lead from the position before. The first request starts the computation (202 until it is kept). 404 NOT_AVAILABLE for a 윷놀이 room, 422 NOT_FINISHED while the game is being played (or in a lobby), 404 REPLAY_NOT_KEPT for a game started before rooms kept a replay log.",
                "parameters": [room_id],
                "responses": with_problems(responses, &[404, 422, 503]),
            })
        }
        ("get", "/games/{kind}") => json!({
            "summary": "A game's option schema: every option with its allowed values and default, the constraints between options (and the head count), and the presets — to draw the room-creation screen",
            "parameters": [{"name": "kind", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": with_problems(ok("200", "The schema", json!({"$ref": "#/components/schemas/GameSchema"})), &[404]),
        }),
        ("get", "/openapi.json") => json!({
            "summary": "This document",
            "responses": ok("200", "OpenAPI 3.1", json!({"type": "object"})),
        }),
        ("get", "/healthz") => json!({
            "summary": "Health: the build, the server's clock, and that the store answers (503 when it does not); never a write",
            "responses": with_problems(ok("200", "Up", json!({"type": "object", "required": ["status", "now", "version", "gitSha", "store"], "properties": {
                "status": {"const": "ok"},
                "now": {"type": "integer", "minimum": 0, "description": "The server's clock (epoch ms), the one deadlines are set by: a client's countdowns use it"},
                "version": {"type": "string", "description": "The server's version (the crate's)"},
                "gitSha": {"type": "string", "description": "The git commit the server was built from (`unknown` when built without git)"},
                "store": {"const": "ok", "description": "The store answered a read (a health check never writes)"},
            }, "additionalProperties": false})), &[503]),
        }),
        #[cfg(feature = "dev")]
        ("post", "/dev/clock") => json!({
            "summary": "Test support (builds with the `dev` feature and MADANG_DEV=1 only; 404 otherwise): move the server clock forward",
            "requestBody": body("DevClock"),
            "responses": with_problems(ok("200", "The new server time", json!({"type": "object", "required": ["now"], "properties": {"now": {"type": "integer", "minimum": 0}}, "additionalProperties": false})), &[400, 404, 413]),
        }),
        ("get", "/live") => json!({
            "summary": "The live channel (local server; on AWS the WebSocket API that `liveUrl` names): a WebSocket upgrade. Client → server JSON text frames {\"type\":\"hello\",\"roomId\":R,\"token\":T?,\"since\":V} (no token: a spectator; the token is never put in the URL) and {\"type\":\"ping\"}; server → client {\"type\":\"version\",\"version\":V}, {\"type\":\"pong\"}, {\"type\":\"chat\",\"message\":M}, and {\"type\":\"error\",\"code\":C} then a close (UNAUTHORIZED, ROOM_NOT_FOUND, BAD_MESSAGE, RATE_LIMITED)",
            "responses": with_problems({
                let mut m = Map::new();
                m.insert("101".into(), json!({"description": "Switching to the WebSocket protocol"}));
                m
            }, &[400, 404, 429]),
        }),
        _ => {
            return super::chat::operation(method, path, problems)
                .or_else(|| super::push::operation(method, path, problems));
        }
    };
    Some(op)
}

/// The option schema of `GET /games/{kind}` (core's `schema` module builds it by hand from the
/// constants validation uses).
fn game_schema_schemas() -> Value {
    json!({
        "GameSchema": {
            "type": "object",
            "additionalProperties": false,
            "required": ["game", "presets", "options", "constraints", "chat", "bots"],
            "properties": {
                "game": {"enum": ["yut", "baduk"]},
                "presets": {"type": "array", "description": "Named sets of options, the first choice a form offers", "items": {"type": "object", "additionalProperties": false, "required": ["name", "label", "help", "options"], "properties": {
                    "name": {"type": "string"},
                    "label": {"type": "string", "description": "Korean name (기본 규칙, 빠른 판, …)"},
                    "help": {"type": "string", "description": "One Korean line on what it is for"},
                    "options": {"type": "object"}
                }}},
                "options": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["key", "label", "help", "group", "advanced", "values", "valueLabels", "default"], "properties": {
                    "key": {"type": "string", "description": "As clients send it; nested keys dotted (timeControl.mainSec)"},
                    "label": {"type": "string", "description": "Short Korean label"},
                    "help": {"type": ["string", "null"], "description": "One more Korean line, where needed"},
                    "group": {"type": "string", "description": "Korean title of the option's group"},
                    "advanced": {"type": "boolean", "description": "Folded away by default"},
                    "values": {"$ref": "#/components/schemas/Values"},
                    "valueLabels": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Korean label of every enumerated value (and of null where a range allows it), keyed by the value itself for a string and by its JSON text otherwise (4, true, null)"},
                    "default": {"description": "The value a missing key takes (null: computed from other options)"}
                }}},
                "constraints": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["when", "then", "reportedAs", "reason"], "properties": {
                    "when": {"type": "object", "additionalProperties": {"type": "array"}, "description": "Applies when every key holds one of its listed values (empty: always)"},
                    "then": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Values"}, "description": "Each key (or `players`, the head count) must then hold one of these"},
                    "reportedAs": {"type": ["string", "null"], "description": "The INVALID_OPTIONS field an offence is reported under (null: the key itself)"},
                    "reason": {"type": "string", "description": "A whole Korean sentence"}
                }}},
                "throwOdds": {"type": "array", "description": "윷놀이 only: the chance of each result per stick model, with and without 빽도", "items": {"type": "object", "additionalProperties": false, "required": ["stickModel", "backdo", "odds"], "properties": {
                    "stickModel": {"$ref": "#/components/schemas/StickModel"},
                    "backdo": {"type": "boolean"},
                    "odds": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1}, "description": "Result (do … backdo) → probability"}
                }}},
                "chat": {"$ref": "#/components/schemas/ChatRules", "description": "Chat: the emotes and set phrases, and the bounds"},
                "bots": {"type": "object", "additionalProperties": false, "required": ["levels"], "description": "The computer players the host can seat with `addBot`, weakest first", "properties": {
                    "levels": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["level", "label"], "properties": {
                        "level": {"type": "integer", "minimum": 1, "description": "What `addBot` sends as `level`"},
                        "label": {"type": "string", "description": "Korean, e.g. 입문"}
                    }}}
                }}
            }
        },
        "Values": {
            "oneOf": [
                {"type": "object", "additionalProperties": false, "required": ["oneOf"], "properties": {"oneOf": {"type": "array"}}},
                {"type": "object", "additionalProperties": false, "required": ["range"], "properties": {"range": {"type": "object", "additionalProperties": false, "required": ["min", "max", "step", "orNull"], "properties": {"min": {"type": "number"}, "max": {"type": "number"}, "step": {"type": "number"}, "orNull": {"type": "boolean"}}}}}
            ]
        }
    })
}

/// The whole OpenAPI 3.1 document.
pub fn openapi_document() -> Value {
    let mut schemas = components();
    if let Value::Object(extra) = game_schema_schemas() {
        schemas.extend(extra);
    }
    schemas.extend(super::chat::schemas());
    schemas.extend(super::push::schemas());
    action_descriptions(&mut schemas);
    let all_codes: Vec<&str> = {
        let mut codes: Vec<&str> = crate::error::codes().into_iter().map(|(_, c)| c).collect();
        codes.sort_unstable();
        codes.dedup();
        codes
    };
    schemas.insert(
        "Problem".into(),
        json!({
            "description": "RFC 9457 problem (application/problem+json); changes nothing on the server",
            "type": "object",
            "additionalProperties": false,
            "required": ["type", "title", "status", "code", "detail"],
            "properties": {
                "type": {"type": "string"},
                "title": {"type": "string"},
                "status": {"type": "integer", "minimum": 400, "maximum": 599},
                "code": {"enum": all_codes, "description": "Stable machine code"},
                "detail": {"type": "string", "description": "Korean message for players"},
                "field": {"type": "string", "description": "INVALID_OPTIONS: the offending option key"},
                "reason": {"type": "string", "description": "MALFORMED, BAD_ACTION: what the parser refused, in its own words (often English), for the developer who sent it; `detail` is for players"},
                "room": {"description": "409: the current room as the caller sees it", "oneOf": [
                    {"$ref": "#/components/schemas/YutRoom"},
                    {"$ref": "#/components/schemas/BadukRoom"}
                ]}
            }
        }),
    );
    let mut paths = Map::new();
    for (method, path) in super::ROUTES {
        let item = paths.entry((*path).to_owned()).or_insert_with(|| json!({}));
        if let Some(op) = operation(method, path) {
            item[*method] = op;
        }
    }
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "Madang game-room API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Rooms for 윷놀이 and 바둑: create, join by link, play by polling or long-polling. Every accepted change bumps the room's version by one; actions may pin the version they saw (expectedVersion) and get 409 with the current room when it is stale. Errors are RFC 9457 problem+json with a stable `code` and a Korean `detail`. Generated from the server's types: `state` is the game's view (yut.md / baduk.md §8.1 less hidden fields, plus documented additions), `result` its §8.6 result, `events` its §8.2 events. Integers may be sent as numbers with a zero fraction (4.0)."
        },
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "The token returned once by POST /rooms or POST /rooms/{id}/players"}},
            "parameters": {"RoomId": {"name": "id", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{22}$"}, "description": "22 characters of URL-safe base64; anything else is 404 ROOM_NOT_FOUND"}},
            "schemas": schemas
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ROUTES, web};
    use crate::error::ApiError;

    /// The committed copy for offline client generators.
    const COMMITTED: &str = include_str!("../../openapi.json");

    /// The table of codes and the document agree: every code of the table is in the
    /// document's `Problem.code`, every code the document names anywhere is in the table, and
    /// each operation's answer with status S lists only codes the table answers with S.
    #[test]
    fn the_openapi_error_codes_are_the_table_of_codes() {
        use std::collections::BTreeSet;
        let doc = openapi_document();
        let table = crate::error::codes();
        let in_table: BTreeSet<&str> = table.iter().map(|(_, c)| *c).collect();
        let problem: BTreeSet<&str> = doc["components"]["schemas"]["Problem"]["properties"]["code"]
            ["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(problem, in_table, "Problem.code against the table");
        let mut listed = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                for (status, answer) in op["responses"].as_object().into_iter().flatten() {
                    let schema = &answer["content"]["application/problem+json"]["schema"];
                    let Some(all_of) = schema["allOf"].as_array() else {
                        continue;
                    };
                    for code in all_of
                        .iter()
                        .filter_map(|s| s["properties"]["code"]["enum"].as_array())
                        .flatten()
                    {
                        let code = code.as_str().unwrap();
                        assert!(
                            table
                                .iter()
                                .any(|(s, c)| *c == code && s.as_str() == status),
                            "{method} {path}: {status} lists {code}, which the table does not answer with {status}"
                        );
                        listed.insert(code);
                    }
                }
            }
        }
        assert!(listed.is_subset(&in_table));
        // Each code the edge declares is answered the way the table says.
        for p in crate::error::PROBLEMS {
            let (status, code) = ApiError::from(*p).status_and_code();
            assert_eq!((status, code), (p.status, p.code));
        }
    }

    #[test]
    fn every_route_is_in_the_openapi_document_and_nothing_else() {
        let doc = openapi_document();
        assert_eq!(doc["openapi"], "3.1.0");
        // The web client's pages and files are not part of the JSON API.
        let api: Vec<_> = ROUTES
            .iter()
            .filter(|(_, path)| !web::PATHS.contains(path))
            .collect();
        for (method, path) in &api {
            assert!(
                doc["paths"][path][method].is_object(),
                "{method} {path} is missing from the OpenAPI document"
            );
        }
        let documented: usize = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|p| p.as_object().unwrap().len())
            .sum();
        assert_eq!(
            documented,
            api.len(),
            "openapi.json documents a route the router does not have"
        );
    }

    #[test]
    fn every_reference_resolves() {
        let doc = openapi_document();
        let text = doc.to_string();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for part in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
            let name = &part[..part.find('"').unwrap()];
            assert!(schemas.contains_key(name), "dangling $ref to {name}");
        }
    }

    /// The document a release build serves: the generated one less the test support of the
    /// `dev` feature (its route, its body, the `seed` fields, its problem code). The committed
    /// copy is this one,
    /// the contract production clients see.
    fn release_document() -> String {
        let mut doc = openapi_document();
        if let Some(paths) = doc["paths"].as_object_mut() {
            paths.shift_remove("/dev/clock");
        }
        let schemas = doc["components"]["schemas"].as_object_mut().unwrap();
        schemas.shift_remove("DevClock");
        fn drop_dev_seeds(value: &mut Value) {
            match value {
                Value::Object(map) => {
                    if map.get("seed").is_some_and(|s| {
                        s["description"]
                            .as_str()
                            .is_some_and(|d| d.starts_with("`MADANG_DEV=1` only"))
                    }) {
                        map.shift_remove("seed");
                    }
                    map.values_mut().for_each(drop_dev_seeds);
                }
                Value::Array(items) => {
                    items.retain(|item| item != "CLOCK_OUT_OF_RANGE");
                    items.iter_mut().for_each(drop_dev_seeds);
                }
                _ => {}
            }
        }
        drop_dev_seeds(&mut doc);
        let mut text = serde_json::to_string_pretty(&doc).unwrap();
        text.push('\n');
        text
    }

    #[test]
    fn the_committed_openapi_json_is_the_generated_document() {
        let release = release_document();
        if std::env::var_os("MADANG_WRITE_OPENAPI").is_some() {
            std::fs::write(
                concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json"),
                &release,
            )
            .unwrap();
            return;
        }
        // Without the `dev` feature the served document is the release one itself.
        #[cfg(not(feature = "dev"))]
        assert_eq!(release, DOCUMENT.as_str());
        assert!(
            COMMITTED == release,
            "functions/openapi.json is stale: run `MADANG_WRITE_OPENAPI=1 cargo test -p madang-functions openapi` and commit it"
        );
    }
}
