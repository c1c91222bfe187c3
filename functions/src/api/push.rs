//! Web Push handlers (DESIGN "Slow 바둑 and 'your turn' notifications"): `GET /push`, and
//! `PUT`/`DELETE /rooms/{id}/push` for a player's browser, with their part of the OpenAPI
//! document. What is sent, when and to where: [`crate::push`].

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use madang_core::room::MAX_ENDPOINT_LEN;
use madang_infra::RoomStore;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::extract::{bearer, json_body};
use super::ids::RoomId;
use crate::app::App;
use crate::error::ApiError;
use crate::service::subscriptions::{self as service, Subscription};

fn body_of(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge,
        _ => ApiError::Unreadable {
            detail: "요청 본문을 읽을 수 없어요.",
            reason: rejection.body_text(),
        },
    })
}

/// `keys` of a subscription.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    p256dh: String,
    auth: String,
}

/// `PUT /rooms/{id}/push` body: `PushSubscription.toJSON()`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PutBody {
    endpoint: String,
    keys: Keys,
    /// Sent by browsers (mostly `null`); not kept.
    #[serde(default)]
    #[allow(dead_code)]
    expiration_time: Option<f64>,
}

/// `DELETE /rooms/{id}/push` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeleteBody {
    endpoint: String,
}

/// `GET /push`: `{"publicKey": P}`, the VAPID key to subscribe with, or 404 `PUSH_OFF`.
pub async fn key<S: RoomStore>(State(app): State<App<S>>) -> Result<Response, ApiError> {
    let push = app.push.get().ok_or(ApiError::PushOff)?;
    Ok(Json(json!({ "publicKey": push.public_key() })).into_response())
}

/// `PUT /rooms/{id}/push` (player's token): keeps the browser's subscription for the seat; 204.
pub async fn put<S: RoomStore>(
    State(app): State<App<S>>,
    id: RoomId,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    tracing::Span::current().record("action", "push");
    let request: PutBody = json_body(&body_of(body)?)?;
    let token = bearer(&headers)?.ok_or(ApiError::Unauthorized)?;
    let sub = Subscription {
        endpoint: request.endpoint,
        p256dh: request.keys.p256dh,
        auth: request.keys.auth,
    };
    service::subscribe(&app, &id, &token, sub).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `DELETE /rooms/{id}/push` (player's token) with `{"endpoint": URL}`: drops it; 204.
pub async fn delete<S: RoomStore>(
    State(app): State<App<S>>,
    id: RoomId,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    tracing::Span::current().record("action", "push");
    let request: DeleteBody = json_body(&body_of(body)?)?;
    let token = bearer(&headers)?.ok_or(ApiError::Unauthorized)?;
    service::unsubscribe(&app, &id, &token, &request.endpoint).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The push routes' operations in the OpenAPI document.
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
    let no_content = |description: &str| {
        let mut m = Map::new();
        m.insert("204".into(), json!({"description": description}));
        m
    };
    let body = |schema: &str| json!({"required": true, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}});
    Some(match (method, path) {
        ("get", "/push") => {
            let mut ok = Map::new();
            ok.insert("200".into(), json!({"description": "Push is on", "content": {"application/json": {"schema": {"type": "object", "additionalProperties": false, "required": ["publicKey"], "properties": {"publicKey": {"type": "string", "pattern": "^[A-Za-z0-9_-]{87}$", "description": "The deployment's VAPID public key (RFC 8292): base64url of the uncompressed P-256 point, the applicationServerKey to subscribe with"}}}}}}));
            json!({
                "summary": "The VAPID public key to subscribe to Web Push with; 404 PUSH_OFF where push is not configured",
                "responses": with(ok, &[404]),
            })
        }
        ("put", "/rooms/{id}/push") => json!({
            "summary": "Keep this browser's push subscription (PushSubscription.toJSON()) for the caller's seat: pushed when the seat is awaited with no connection open, and at the game's end (바둑 under the correspondence clock). At most 3 a seat: a fourth replaces the oldest; the same endpoint renews. An accepted change (the room's version grows).",
            "parameters": [room_id],
            "security": [{"bearer": []}],
            "requestBody": body("PushSubscription"),
            "responses": with(no_content("Kept"), &[400, 401, 404, 408, 413, 415, 422, 429, 431, 503]),
        }),
        ("delete", "/rooms/{id}/push") => json!({
            "summary": "Drop the caller's push subscription at this endpoint (none: nothing happens)",
            "parameters": [room_id],
            "security": [{"bearer": []}],
            "requestBody": body("PushUnsubscribe"),
            "responses": with(no_content("Dropped"), &[400, 401, 404, 408, 413, 415, 429, 431, 503]),
        }),
        _ => return None,
    })
}

/// The push schemas of the OpenAPI document.
pub(super) fn schemas() -> Map<String, Value> {
    let endpoint = json!({"type": "string", "maxLength": MAX_ENDPOINT_LEN, "description": "The push service's URL: https, on an allowed push service's host"});
    let value = json!({
        "PushSubscription": {"type": "object", "additionalProperties": false, "required": ["endpoint", "keys"], "properties": {
            "endpoint": endpoint,
            "keys": {"type": "object", "additionalProperties": false, "required": ["p256dh", "auth"], "properties": {
                "p256dh": {"type": "string", "description": "base64url P-256 public key of the browser"},
                "auth": {"type": "string", "description": "base64url 16-byte authentication secret"}
            }},
            "expirationTime": {"type": ["number", "null"], "description": "As browsers send it; not kept"}
        }},
        "PushUnsubscribe": {"type": "object", "additionalProperties": false, "required": ["endpoint"], "properties": {"endpoint": endpoint}}
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
