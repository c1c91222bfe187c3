//! Chat handlers (DESIGN "Chat"): `POST /rooms/{id}/chat`, `GET /rooms/{id}/chat?after=N` and
//! the host's `POST /rooms/{id}/chat/mute`, with their part of the OpenAPI document.
//!
//! Who may post:
//! - a player, with their bearer token: `{"text": S}` or `{"emote": E}`, `"to": "team"` for their
//!   team only (윷놀이 team mode; anywhere else 422 `NO_TEAM`);
//! - a spectator, without a token, naming themself: `{"name": N, "text"|"emote": …}` (N under the
//!   name rules). Their message goes to spectators only. Their rate is kept per address, and at
//!   most [`madang_core::chat::MAX_RATE_SENDERS`] senders are counted at once, so an anonymous
//!   gallery cannot grow a room's chat state.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use madang_core::PlayerId;
use madang_core::chat::MAX_TEXT_GRAPHEMES;
use madang_infra::{ChatStore, RoomStore};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::extract::{Client, bearer, json_body};
use super::ids::RoomId;
use crate::app::App;
use crate::error::ApiError;
use crate::service::chat::{self as service, ChatPost, Said};

/// The body, or why it could not be read (over the size limit → 413).
fn body_of(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge,
        _ => ApiError::Unreadable {
            detail: "요청 본문을 읽을 수 없어요.",
            reason: rejection.body_text(),
        },
    })
}

/// Names the request in its span (the room is recorded, as a digest, by [`RoomId`]'s extractor).
fn record_chat() {
    tracing::Span::current().record("action", "chat");
}

/// `to` of a post.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
enum To {
    Room,
    Team,
}

/// `POST /rooms/{id}/chat` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PostBody {
    text: Option<String>,
    emote: Option<String>,
    to: Option<To>,
    name: Option<String>,
}

impl PostBody {
    fn parse(self) -> Result<ChatPost, ApiError> {
        let said = match (self.text, self.emote) {
            (Some(text), None) => Said::Text(text),
            (None, Some(emote)) => Said::Emote(emote),
            _ => {
                return Err(ApiError::Malformed(
                    "text나 emote 가운데 하나만 보내 주세요.".into(),
                ));
            }
        };
        Ok(ChatPost {
            said,
            to_team: self.to == Some(To::Team),
            name: self.name,
        })
    }
}

/// `POST /rooms/{id}/chat`: 201 `{"seq": N}`.
pub async fn post<S: RoomStore + ChatStore>(
    State(app): State<App<S>>,
    id: RoomId,
    client: Client,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    record_chat();
    let request = json_body::<PostBody>(&body_of(body)?)?.parse()?;
    let token = bearer(&headers)?;
    let seq = service::post(
        &app,
        &id,
        token.as_ref(),
        client.key_for(id.as_str()),
        request,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(json!({ "seq": seq }))).into_response())
}

/// `GET /rooms/{id}/chat` query.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadQuery {
    #[serde(default, deserialize_with = "super::extract::whole_number")]
    after: Option<u64>,
}

/// `GET /rooms/{id}/chat?after=N`: `{"messages": [M…]}`, the newest message's `seq` as the ETag,
/// 304 when `If-None-Match` names it.
pub async fn get<S: RoomStore + ChatStore>(
    State(app): State<App<S>>,
    id: RoomId,
    query: Result<Query<ReadQuery>, QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    record_chat();
    let Query(query) = query.map_err(|e| ApiError::Unreadable {
        detail: "요청 주소의 쿼리를 읽을 수 없어요.",
        reason: e.body_text(),
    })?;
    let token = bearer(&headers)?;
    let (messages, tag) =
        service::read(&app, &id, token.as_ref(), query.after.unwrap_or(0)).await?;
    let etag =
        HeaderValue::from_str(&format!("\"{tag}\"")).unwrap_or(HeaderValue::from_static("\"0\""));
    let unchanged = etag
        .to_str()
        .is_ok_and(|tag| super::conditional::names(&headers, tag));
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let views: Vec<_> = messages.iter().map(|m| m.view()).collect();
        Json(json!({ "messages": views })).into_response()
    };
    response.headers_mut().insert(header::ETAG, etag);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// `POST /rooms/{id}/chat/mute` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MuteBody {
    player_id: String,
    muted: bool,
}

/// `POST /rooms/{id}/chat/mute` (host): 200 `{"muted": [playerId…]}`.
pub async fn mute<S: RoomStore + ChatStore>(
    State(app): State<App<S>>,
    id: RoomId,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    record_chat();
    let request: MuteBody = json_body(&body_of(body)?)?;
    let token = bearer(&headers)?.ok_or(ApiError::Unauthorized)?;
    let muted = service::mute(
        &app,
        &id,
        &token,
        PlayerId::new(request.player_id),
        request.muted,
    )
    .await?;
    Ok(Json(json!({ "muted": muted })).into_response())
}

/// The chat routes' operations in the OpenAPI document.
pub(super) fn operation(
    method: &str,
    path: &str,
    problems: impl Fn(&[u16]) -> Map<String, Value>,
) -> Option<Value> {
    let room_id = json!({"$ref": "#/components/parameters/RoomId"});
    let with = |mut ok: Map<String, Value>, statuses: &[u16]| {
        ok.extend(problems(statuses));
        Value::Object(ok)
    };
    let answer = |code: &str, description: &str, schema: Value| {
        let mut m = Map::new();
        m.insert(
            code.into(),
            json!({"description": description, "content": {"application/json": {"schema": schema}}}),
        );
        m
    };
    let body = |schema: &str| json!({"required": true, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}});
    Some(match (method, path) {
        ("post", "/rooms/{id}/chat") => json!({
            "summary": "Say something: a player to the room (or, with to: team, to their team in a 윷놀이 team game); a spectator, without a token and with a name, to the other spectators only. Never changes the room's version.",
            "parameters": [room_id],
            "security": [{}, {"bearer": []}],
            "requestBody": body("ChatPost"),
            "responses": with(answer("201", "Accepted", json!({"type": "object", "additionalProperties": false, "required": ["seq"], "properties": {"seq": {"type": "integer", "minimum": 1}}})), &[400, 401, 403, 404, 408, 413, 415, 422, 429, 431, 503]),
        }),
        ("get", "/rooms/{id}/chat") => {
            let mut ok = answer(
                "200",
                "The messages the caller may see, oldest first",
                json!({"type": "object", "additionalProperties": false, "required": ["messages"], "properties": {"messages": {"type": "array", "items": {"$ref": "#/components/schemas/ChatMessage"}}}}),
            );
            let headers = json!({"ETag": {"schema": {"type": "string"}, "description": "\"N\": the seq of the newest message returned (or `after` when none)"}});
            ok["200"]["headers"] = headers.clone();
            ok.insert("304".into(), json!({"description": "If-None-Match names the newest message: nothing new", "headers": headers}));
            json!({
                "summary": "The room's chat as the caller may see it (players: room and own team; spectators: room and gallery), numbered above `after`",
                "parameters": [
                    room_id,
                    {"name": "after", "in": "query", "schema": {"type": "integer", "minimum": 0}, "description": "Only messages with a greater seq"},
                    {"name": "If-None-Match", "in": "header", "schema": {"type": "string"}, "description": "An ETag (\"seq\"); 304 when nothing newer"}
                ],
                "security": [{}, {"bearer": []}],
                "responses": with(ok, &[400, 401, 404, 408, 429, 431, 503]),
            })
        }
        ("post", "/rooms/{id}/chat/mute") => json!({
            "summary": "The host mutes or unmutes a member's chat",
            "parameters": [room_id],
            "security": [{"bearer": []}],
            "requestBody": body("ChatMute"),
            "responses": with(answer("200", "Who is muted now", json!({"type": "object", "additionalProperties": false, "required": ["muted"], "properties": {"muted": {"type": "array", "items": {"type": "string"}}}})), &[400, 401, 403, 404, 408, 413, 415, 422, 429, 431, 503]),
        }),
        _ => return None,
    })
}

/// The chat schemas of the OpenAPI document (the bodies the parsers above read and the message
/// [`madang_core::chat::MessageView`] writes).
pub(super) fn schemas() -> Map<String, Value> {
    let name = json!({"type": "string", "minLength": 1, "maxLength": madang_core::room::MAX_NAME_GRAPHEMES, "description": "Spectators only (no token): the name shown with the message"});
    let to = json!({"enum": ["room", "team"], "description": "team: the sender's team only (윷놀이 team mode); default room"});
    let text = json!({"type": "string", "minLength": 1, "maxLength": MAX_TEXT_GRAPHEMES, "description": "1–200 grapheme clusters; NFC; no control, format or bidi characters"});
    let emote = json!({"type": "string", "description": "One of GET /games/{kind}'s chat.emotes"});
    let value = json!({
        "ChatPost": {"oneOf": [
            {"type": "object", "additionalProperties": false, "required": ["text"], "properties": {"text": text, "to": to, "name": name}},
            {"type": "object", "additionalProperties": false, "required": ["emote"], "properties": {"emote": emote, "to": to, "name": name}}
        ]},
        "ChatMute": {"type": "object", "additionalProperties": false, "required": ["playerId", "muted"], "properties": {"playerId": {"type": "string"}, "muted": {"type": "boolean"}}},
        "ChatMessage": {
            "type": "object",
            "additionalProperties": false,
            "required": ["seq", "at", "from", "name", "to"],
            "properties": {
                "seq": {"type": "integer", "minimum": 1, "description": "The message's number in the room (numbers of messages the caller may not see are skipped)"},
                "at": {"type": "integer", "minimum": 0, "description": "When it was accepted (epoch ms)"},
                "from": {"type": ["string", "null"], "description": "The sender's playerId; null for a spectator"},
                "name": {"type": "string"},
                "to": {"enum": ["room", "team", "spectators"]},
                "text": {"type": "string"},
                "emote": {"type": "string"}
            },
            "oneOf": [{"required": ["text"]}, {"required": ["emote"]}]
        },
        "ChatRules": {
            "type": "object",
            "additionalProperties": false,
            "required": ["emotes", "maxTextGraphemes", "rateCount", "rateWindowMs", "keptMessages"],
            "properties": {
                "emotes": {"type": "array", "items": {"type": "string"}, "description": "What {\"emote\": E} accepts"},
                "maxTextGraphemes": {"type": "integer"},
                "rateCount": {"type": "integer", "description": "Messages one sender may post per rateWindowMs"},
                "rateWindowMs": {"type": "integer"},
                "keptMessages": {"type": "integer"}
            }
        }
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
