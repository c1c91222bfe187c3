//! Handlers: each one parses its input, calls the service, and shapes the answer.

use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use madang_core::Millis;
use madang_core::PlayerId;
use madang_core::baduk::{Baduk, Color};
use madang_core::room::Room;
use madang_infra::RoomStore;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::json;
use serde_json::value::RawValue;

use super::extract::{bearer, idempotency_key, json_body};
use crate::app::App;
use crate::error::ApiError;
use crate::service::{self, ActionRequest, CreateRequest, Read};

/// The body, or why it could not be read (over the size limit → 413).
fn body_of(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::TooLarge,
        _ => ApiError::Malformed(rejection.body_text()),
    })
}

fn record(field: &'static str, value: impl tracing::Value) {
    tracing::Span::current().record(field, value);
}

fn etag(version: u64) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{version}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// `POST /rooms`
pub async fn create<S: RoomStore>(
    State(app): State<App<S>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: CreateRequest = json_body(&body_of(body)?)?;
    let seated = service::create_room(&app, request).await?;
    record("room_id", seated.room_id.as_str());
    let body = SeatedBody {
        room_id: Some(&seated.room_id),
        player_id: &seated.player_id,
        token: &seated.token,
        room: &seated.room,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// The answer of `POST /rooms` and `POST /rooms/{id}/players`. Answers are written straight from
/// these structs, with the pre-rendered room view embedded as it is.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SeatedBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    room_id: Option<&'a str>,
    player_id: &'a PlayerId,
    token: &'a str,
    room: &'a RawValue,
}

/// The answer of `POST /rooms/{id}/actions`.
#[derive(Serialize)]
struct ActedBody<'a> {
    version: u64,
    events: &'a Value,
    room: &'a RawValue,
}

/// `POST /rooms/{id}/players` body (its schema is the OpenAPI document's `JoinRoom`).
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct JoinRequest {
    /// The joiner's display name, 1–20 characters after trimming.
    #[schemars(length(min = 1, max = super::openapi::MAX_NAME_CHARS))]
    name: String,
}

/// `POST /rooms/{id}/players`
pub async fn join<S: RoomStore>(
    State(app): State<App<S>>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    record("room_id", id.as_str());
    let request: JoinRequest = json_body(&body_of(body)?)?;
    let seated = service::join_room(&app, &id, &request.name).await?;
    let body = SeatedBody {
        room_id: None,
        player_id: &seated.player_id,
        token: &seated.token,
        room: &seated.room,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// Long-poll parameters of `GET /rooms/{id}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollQuery {
    #[serde(default, deserialize_with = "super::extract::whole_number")]
    since: Option<u64>,
    #[serde(default, deserialize_with = "super::extract::whole_number")]
    wait: Option<u64>,
}

/// `GET /rooms/{id}`, optionally `?since=V&wait=S`.
pub async fn get<S: RoomStore>(
    State(app): State<App<S>>,
    Path(id): Path<String>,
    query: Result<Query<PollQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    record("room_id", id.as_str());
    let Query(query) = query.map_err(|e| ApiError::Malformed(e.body_text()))?;
    let token = bearer(&headers)?;
    // The document allows at most 25 seconds; the parser refuses what it refuses.
    if query
        .wait
        .is_some_and(|w| w > super::openapi::MAX_WAIT_SECS)
    {
        return Err(ApiError::Malformed(format!(
            "wait는 0~{}초여야 해요.",
            super::openapi::MAX_WAIT_SECS
        )));
    }
    let wait = Duration::from_secs(query.wait.unwrap_or(0).min(app.limits.max_wait_secs));
    let read = service::read(&app, &id, token.as_ref(), query.since, wait).await?;
    let (version, room) = match read {
        Read::Fresh { version, room } => (version, Some(room)),
        Read::NotModified { version } => (version, None),
    };
    record("version", version);
    let tag = etag(version);
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == tag.as_bytes());
    let mut response = match room {
        Some(room) if !unchanged => Json(room).into_response(),
        _ => StatusCode::NOT_MODIFIED.into_response(),
    };
    response.headers_mut().insert(header::ETAG, tag);
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// `POST /rooms/{id}/actions`
pub async fn act<S: RoomStore>(
    State(app): State<App<S>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    record("room_id", id.as_str());
    let body = body_of(body)?;
    let request: ActionRequest = json_body(&body)?;
    let token = bearer(&headers)?.ok_or(ApiError::Unauthorized)?;
    let key = idempotency_key(&headers)?;
    let acted = service::act(&app, &id, &token, request, key.map(|k| (k, &body[..]))).await?;
    record("action", acted.kind.as_str());
    record("version", acted.version);
    let body = ActedBody {
        version: acted.version,
        events: &acted.events,
        room: &acted.room,
    };
    let mut response = Json(body).into_response();
    if acted.replayed {
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// `GET /rooms/{id}/sgf`
pub async fn sgf<S: RoomStore>(
    State(app): State<App<S>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    record("room_id", id.as_str());
    let text = service::sgf(&app, &id).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/x-go-sgf; charset=utf-8")],
        text,
    )
        .into_response())
}

/// The SGF record of a 바둑 room (empty game record before the game starts).
pub fn sgf_of(room: &Room<Baduk>) -> String {
    match &room.game {
        Some(state) => {
            let name = |color: Color| {
                let id = state.players().get(color);
                room.member(id).map_or(id.as_str(), |m| m.name.as_str())
            };
            let date = date_of(room.created_at);
            madang_core::baduk::sgf::export(state, name(Color::Black), name(Color::White), &date)
        }
        None => String::from("(;FF[4]GM[1])"),
    }
}

/// `YYYY-MM-DD` of an epoch-ms time (UTC), for the SGF `DT` property.
fn date_of(ms: Millis) -> String {
    // Civil-from-days (Howard Hinnant's algorithm): no date crate needed for one field.
    let days = (ms / 86_400_000) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `GET /healthz`
pub async fn healthz<S: RoomStore>(State(_app): State<App<S>>) -> Response {
    Json(json!({ "status": "ok" })).into_response()
}

/// `POST /dev/clock` body (its schema is the OpenAPI document's `DevClock`).
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct ClockRequest {
    /// How far to move the server clock, in milliseconds.
    advance_ms: u64,
}

/// `POST /dev/clock` (only with `MADANG_DEV=1`): moves the server clock forward.
pub async fn dev_clock<S: RoomStore>(
    State(app): State<App<S>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    if !app.dev {
        return Ok(not_found().await);
    }
    let request: ClockRequest = json_body(&body_of(body)?)?;
    let now = app.clock.advance(request.advance_ms);
    Ok(Json(json!({ "now": now })).into_response())
}

/// Any path the API does not have.
pub async fn not_found() -> Response {
    let mut response = (
        StatusCode::NOT_FOUND,
        Json(json!({
            "type": "about:blank",
            "title": "Not Found",
            "status": 404,
            "code": "NO_SUCH_ROUTE",
            "detail": "그런 주소는 없어요.",
        })),
    )
        .into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::date_of;

    #[test]
    fn dates_are_civil_utc_days() {
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(date_of(1_795_990_000_000), "2026-11-29");
        assert_eq!(date_of(951_782_400_000), "2000-02-29");
    }
}
