//! Handlers: each one parses its input, calls the service, and shapes the answer.

use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use madang_core::baduk::{Baduk, Color};
use madang_core::room::Room;
use madang_core::room::TokenHash;
use madang_core::{Millis, PlayerId, with_room};
use madang_infra::RoomStore;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::json;
use serde_json::value::RawValue;

use super::extract::{bearer, idempotency_key, json_body};
use crate::app::App;
use crate::error::ApiError;
use crate::service::{
    self, ActionRequest, CreateRequest, Loaded, PRESENCE_WRITE_INTERVAL_MS, Read,
};

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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinRequest {
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
    since: Option<u64>,
    wait: Option<u64>,
}

/// `GET /rooms/{id}`, optionally `?since=V&wait=S`.
///
/// Every answer says when to poll again: `Retry-After` (whole seconds, rounded up) and, in the
/// body, the room's `pollAfterMs` ([`Room::poll_after`]). A short poll that finds nothing new
/// is answered from one eventually consistent read and nothing else ([`not_modified_quickly`]).
pub async fn get<S: RoomStore>(
    State(app): State<App<S>>,
    Path(id): Path<String>,
    query: Result<Query<PollQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    record("room_id", id.as_str());
    let Query(query) = query.map_err(|e| ApiError::Malformed(e.body_text()))?;
    let token = bearer(&headers)?;
    let wait = Duration::from_secs(query.wait.unwrap_or(0).min(app.limits.max_wait_secs));
    let if_none_match = headers.get(header::IF_NONE_MATCH).map(|v| v.as_bytes());
    // What the client already has, if this read must answer at once: a short poll.
    let known = match (query.since, if_none_match) {
        (Some(since), _) if wait.is_zero() => Some(since),
        (None, Some(tag)) => version_of_tag(tag),
        _ => None,
    };
    if let Some(known) = known
        && let Some(response) = not_modified_quickly(&app, &id, token.as_ref(), known).await?
    {
        return Ok(response);
    }
    let read = service::read(&app, &id, token.as_ref(), query.since, wait).await?;
    let (version, room) = match read {
        Read::Fresh { version, room } => (version, Some(room)),
        Read::NotModified { version } => (version, None),
    };
    record("version", version);
    let tag = etag(version);
    let unchanged = if_none_match.is_some_and(|v| v == tag.as_bytes());
    let poll_after = room.as_deref().and_then(poll_after_of);
    let mut response = match room {
        Some(room) if !unchanged => Json(room).into_response(),
        _ => StatusCode::NOT_MODIFIED.into_response(),
    };
    polled(&mut response, tag, poll_after);
    Ok(response)
}

/// The version an `If-None-Match` tag names (`"V"`), if it names one.
fn version_of_tag(tag: &[u8]) -> Option<u64> {
    std::str::from_utf8(tag.strip_prefix(b"\"")?.strip_suffix(b"\"")?)
        .ok()?
        .parse()
        .ok()
}

/// The headers of every read: the version, no caching by intermediaries, when to poll again.
fn polled(response: &mut Response, tag: HeaderValue, poll_after: Option<Millis>) {
    let headers = response.headers_mut();
    headers.insert(header::ETAG, tag);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Some(ms) = poll_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(ms.div_ceil(1000)));
    }
}

/// The `pollAfterMs` of a rendered room view.
fn poll_after_of(view: &RawValue) -> Option<Millis> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct PollAfter {
        poll_after_ms: Millis,
    }
    serde_json::from_str::<PollAfter>(view.get())
        .ok()
        .map(|p| p.poll_after_ms)
}

/// The short poll's 304, from the cheapest read there is (eventually consistent, half a unit on
/// DynamoDB) and no other store call — when that is the whole truth: the room is still at the
/// version the client has, no timeout is due (the full read would fire it), and the caller's
/// presence needs no write yet. Otherwise `None`, and the full read answers. A read that lags a
/// save answers 304 a moment too long; the client's next poll sees the change.
async fn not_modified_quickly<S: RoomStore>(
    app: &App<S>,
    id: &str,
    token: Option<&TokenHash>,
    known: u64,
) -> Result<Option<Response>, ApiError> {
    let now = app.clock.now();
    let stored = app.store.peek(id, now).await?;
    if stored.version != known {
        return Ok(None);
    }
    let mut loaded = Loaded::from_stored(stored).map_err(|e| ApiError::Internal(e.to_string()))?;
    let viewer = match token {
        Some(token) => Some(
            with_room!(&loaded.room, r => r.authenticate(token).cloned())
                .ok_or(ApiError::Unauthorized)?,
        ),
        None => None,
    };
    if let Some(player) = &viewer {
        let last = loaded.stored.presence.get(player.as_str()).copied();
        if now.saturating_sub(last.unwrap_or(0)) >= PRESENCE_WRITE_INTERVAL_MS {
            return Ok(None);
        }
        loaded.presence.insert(player.clone(), now);
    }
    if loaded.due_at().is_some_and(|due| due <= now) {
        return Ok(None);
    }
    let poll_after =
        with_room!(&loaded.room, r => r.poll_after(viewer.as_ref(), &loaded.presence, now));
    record("version", known);
    let mut response = StatusCode::NOT_MODIFIED.into_response();
    polled(&mut response, etag(known), Some(poll_after));
    Ok(Some(response))
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ClockRequest {
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
    let now = app.advance_clock(request.advance_ms).await?;
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
