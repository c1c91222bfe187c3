//! Handlers: each one parses its input, calls the service, and shapes the answer.

use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use madang_core::{Millis, PlayerId};
use madang_infra::RoomStore;
use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;

use super::actions::ActionBody;
use super::extract::{Client, bearer, idempotency_key, json_body};
use super::ids::{RoomId, digest_of};
use super::requests::{CreateBody, JoinBody, idempotency};
use crate::app::App;
use crate::error::ApiError;
use crate::live::ViewUrl;
use crate::service::{self, Read};
use madang_core::room::{Version, bar_of, player_name};

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

fn record(field: &'static str, value: impl tracing::Value) {
    tracing::Span::current().record(field, value);
}

fn etag(version: u64) -> HeaderValue {
    HeaderValue::from_str(&format!("\"{version}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// `POST /rooms`
pub async fn create<S: RoomStore>(
    State(app): State<App<S>>,
    client: Client,
    live: ViewUrl,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    app.guard.create(client)?;
    let body = body_of(body)?;
    let request = json_body::<CreateBody>(&body)?.parse()?;
    let seated = Box::pin(service::create_room(&app, request)).await?;
    record("room", digest_of(&seated.room_id).as_str());
    let body = SeatedBody {
        room_id: Some(&seated.room_id),
        player_id: &seated.player_id,
        token: &seated.token,
        room: &live.room(&seated.room),
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
    events: &'a [Box<RawValue>],
    room: &'a RawValue,
}

/// `POST /rooms/{id}/players`
pub async fn join<S: RoomStore>(
    State(app): State<App<S>>,
    id: RoomId,
    client: Client,
    headers: HeaderMap,
    live: ViewUrl,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    app.guard.join(client)?;
    let request: JoinBody = json_body(&body_of(body)?)?;
    let name = player_name(&request.name)?;
    // A client that held a seat here before sends its token: if that seat was kicked, the
    // join is refused (the bar is on the seat's token, not on the address).
    let prior = bearer(&headers)?.map_or(0, |token| bar_of(&token));
    let key = idempotency_key(&headers)?;
    let (seated, replayed) = Box::pin(service::join_room(&app, &id, name, prior, key)).await?;
    let body = SeatedBody {
        room_id: None,
        player_id: &seated.player_id,
        token: &seated.token,
        room: &live.room(&seated.room),
    };
    let mut response = (StatusCode::CREATED, Json(body)).into_response();
    if replayed {
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// Long-poll parameters of `GET /rooms/{id}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollQuery {
    #[serde(default, deserialize_with = "super::extract::version")]
    since: Option<Version>,
    #[serde(default, deserialize_with = "super::extract::whole_number")]
    wait: Option<u64>,
}

/// `GET /rooms/{id}`, optionally `?since=V&wait=S`.
///
/// Every answer says when to poll again: `Retry-After` (whole seconds, rounded up) and, in the
/// body, the room's `pollAfterMs` ([`madang_core::room::Room::poll_after`]), on a 304 too. A
/// short poll that finds nothing new is answered from one eventually consistent read and nothing
/// else ([`service::read`]).
pub async fn get<S: RoomStore>(
    State(app): State<App<S>>,
    id: RoomId,
    client: Client,
    query: Result<Query<PollQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    live: ViewUrl,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::Unreadable {
        detail: "요청 주소의 쿼리를 읽을 수 없어요.",
        reason: e.body_text(),
    })?;
    let token = bearer(&headers)?;
    // The document allows at most 25 seconds; the parser refuses what it refuses.
    if query
        .wait
        .is_some_and(|w| w > super::requests::MAX_WAIT_SECS)
    {
        return Err(ApiError::Malformed(format!(
            "wait는 0~{}초여야 해요.",
            super::requests::MAX_WAIT_SECS
        )));
    }
    let wait = Duration::from_secs(query.wait.unwrap_or(0).min(app.limits.max_wait_secs));
    // A read that may be held open takes a slot, decided from the query as decoded above (the
    // one the read uses): held until the answer is made.
    let _slot = match query.since {
        Some(_) if !wait.is_zero() => Some(app.guard.poll(client)?),
        _ => None,
    };
    let tagged = super::conditional::only_tag(&headers).and_then(version_of_tag);
    let read = Box::pin(service::read(
        &app,
        &id,
        token.as_ref(),
        query.since,
        tagged,
        wait,
    ))
    .await?;
    let (version, room, poll_after) = match read {
        Read::Fresh {
            version,
            room,
            poll_after,
        } => (version, Some(room), poll_after),
        Read::NotModified {
            version,
            poll_after,
        } => (version, None, poll_after),
    };
    record("version", version);
    let tag = etag(version);
    let unchanged = tag
        .to_str()
        .is_ok_and(|tag| super::conditional::names(&headers, tag));
    let mut response = match room {
        Some(room) if !unchanged => Json(live.room(&room)).into_response(),
        _ => StatusCode::NOT_MODIFIED.into_response(),
    };
    polled(&mut response, tag, poll_after);
    Ok(response)
}

/// The version an `If-None-Match` tag names (`"V"`), if it names one.
fn version_of_tag(tag: &str) -> Option<Version> {
    tag.strip_prefix('"')?.strip_suffix('"')?.parse().ok()
}

/// The headers of every read: the version, no caching by intermediaries, when to poll again.
fn polled(response: &mut Response, tag: HeaderValue, poll_after: Millis) {
    let headers = response.headers_mut();
    headers.insert(header::ETAG, tag);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::RETRY_AFTER,
        HeaderValue::from(poll_after.div_ceil(1000)),
    );
}

/// `POST /rooms/{id}/actions`
pub async fn act<S: RoomStore>(
    State(app): State<App<S>>,
    id: RoomId,
    headers: HeaderMap,
    live: ViewUrl,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body_of(body)?;
    let request = json_body::<ActionBody>(&body)?.parse()?;
    let token = bearer(&headers)?.ok_or(ApiError::Unauthorized)?;
    let key = idempotency(idempotency_key(&headers)?, &body);
    record("action", &*request.kind);
    // The service's future holds the room (several KB) across its awaits: on the heap it is
    // written once, instead of copied again by every layer the handler's future passes through
    // (that copying was a tenth of an action's CPU).
    let acted = Box::pin(service::act(&app, &id, &token, request, key))
        .await
        .map_err(|e| live.conflict(e))?;
    record("version", acted.version);
    let body = ActedBody {
        version: acted.version,
        events: &acted.events,
        room: &live.room(&acted.room),
    };
    let mut response = Json(body).into_response();
    if acted.replayed {
        crate::metrics::record(crate::metrics::Metric::IdempotentReplay);
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// `GET /rooms/{id}/sgf`
pub async fn sgf<S: RoomStore>(
    State(app): State<App<S>>,
    id: RoomId,
) -> Result<Response, ApiError> {
    let text = service::sgf(&app, &id).await?;
    // An attachment: a browser saves the record rather than rendering it in the app's origin.
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"madang-{id}.sgf\""))
        .map_err(|e| ApiError::Internal(Box::new(e)))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-go-sgf; charset=utf-8"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// `GET /rooms/{id}/at/{n}`: the room after step `n` of its game (DESIGN "Replay"), with
/// `replay: {at, of}` and the `liveUrl` every room view carries. A read only: answered from the
/// stored room, never saved.
pub async fn replay<S: RoomStore>(
    State(app): State<App<S>>,
    path: Result<axum::extract::Path<(String, String)>, axum::extract::rejection::PathRejection>,
    live: ViewUrl,
) -> Result<Response, ApiError> {
    let axum::extract::Path((id, n)) = path.map_err(|_| ApiError::RoomNotFound)?;
    let id = super::ids::RoomId::parse(&id).ok_or(ApiError::RoomNotFound)?;
    tracing::Span::current().record("room", id.digest().as_str());
    // Only plain digits name a step ("+1", "01x", a step past u64 name none).
    let n: u64 = n
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| n.parse().ok())
        .flatten()
        .ok_or(ApiError::Replay(
            madang_core::room::ReplayError::StepNotFound {
                at: u64::MAX,
                of: 0,
            },
        ))?;
    let room = service::replay::at(&*app.store, &app.replays, app.clock.now(), &id, n).await?;
    Ok(Json(live.room(&room)).into_response())
}

/// `GET /rooms/{id}/review`: the 바둑 review of a finished game (DESIGN "Replay"): 200 with the
/// kept review, or 202 with `Retry-After` while it is computed (the first request starts it).
pub async fn review<S: RoomStore>(
    State(app): State<App<S>>,
    path: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
) -> Result<Response, ApiError> {
    let axum::extract::Path(id) = path.map_err(|_| ApiError::RoomNotFound)?;
    let id = RoomId::parse(&id).ok_or(ApiError::RoomNotFound)?;
    tracing::Span::current().record("room", id.digest().as_str());
    match service::review::get(&*app.store, &*app.thinker, app.clock.now(), &id).await? {
        service::review::Answer::Done(body) => Ok((
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response()),
        service::review::Answer::Computing => {
            let secs = service::review::RETRY_AFTER_SECS;
            Ok((
                StatusCode::ACCEPTED,
                [(header::RETRY_AFTER, HeaderValue::from(secs))],
                Json(json!({"status": "computing", "retryAfterSecs": secs})),
            )
                .into_response())
        }
    }
}

/// `GET /healthz`: the build, the server's clock, and that the store answers (else 503
/// problem+json, as any request the store fails). Never a write: one read of an id no room has
/// (on DynamoDB an eventually consistent `GetItem`, half a read unit).
pub async fn healthz<S: RoomStore>(State(app): State<App<S>>) -> Result<Response, ApiError> {
    // `now` is the clock deadlines are set by (the dev clock under MADANG_DEV=1): clients show
    // countdowns from it, to the millisecond, where the `Date` header has whole seconds.
    let now = app.clock.now();
    match app
        .store
        .peek(&madang_core::room::RoomId::unmade(), now)
        .await
    {
        Ok(_) | Err(madang_infra::StoreError::NotFound) => {}
        Err(e) => return Err(ApiError::Unavailable(e)),
    }
    Ok(Json(json!({
        "status": "ok",
        "now": now,
        "version": env!("CARGO_PKG_VERSION"),
        "gitSha": env!("MADANG_GIT_SHA"),
        "store": "ok",
    }))
    .into_response())
}

/// `POST /dev/clock` body (its schema is the OpenAPI document's `DevClock`).
#[cfg(feature = "dev")]
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct ClockRequest {
    /// How far to move the server clock, in milliseconds.
    advance_ms: u64,
}

/// `POST /dev/clock` (only in a `dev` build, with `MADANG_DEV=1`): moves the server clock forward.
#[cfg(feature = "dev")]
pub async fn dev_clock<S: RoomStore>(
    State(app): State<App<S>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    if !app.dev {
        return Ok(not_found().await);
    }
    let request: ClockRequest = json_body(&body_of(body)?)?;
    // Checked: the whole offset stays within 100 years, so no clock arithmetic nears overflow.
    if app
        .clock
        .offset()
        .checked_add(request.advance_ms)
        .is_none_or(|total| total > crate::app::MAX_CLOCK_OFFSET_MS)
    {
        return Err(crate::error::CLOCK_OUT_OF_RANGE.into());
    }
    let now = app.advance_clock(request.advance_ms).await?;
    Ok(Json(json!({ "now": now })).into_response())
}

/// Any path the API does not have.
pub async fn not_found() -> Response {
    crate::error::NO_SUCH_ROUTE.into_response()
}
