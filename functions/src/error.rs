//! One error type for the HTTP layer, rendered as RFC 9457 `application/problem+json` with a
//! stable `code` member and a Korean `detail`. Every failure of a request ends here, in one match.
//!
//! The table of codes: the edge's own codes are the constants of [`Problem`] below (status,
//! code and Korean text written once, in one line each); the room layer's, the games' and
//! chat's codes are core's (`RoomError::CODES`, `YutError::EVERY`, `BadukError::EVERY`,
//! `ChatError::EVERY`, `ReplayError::CODES`), each answered with the status [`ApiError::
//! status_and_code`] gives it. [`codes`] lists them all, and the OpenAPI document's code lists
//! are taken from it. problem+json is written only by [`problem_body`].

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use madang_core::baduk::BadukError;
use madang_core::chat::ChatError;
use madang_core::game::RuleError;
use madang_core::room::{ErrorKind, ReplayError, RoomError};
use madang_core::yut::YutError;
use madang_infra::{BoxError, StoreError};
use serde_json::{Value, json};

/// A code of the edge's own: its status, the code, and its Korean text. For the codes whose
/// answers carry text of their own (a parser's account, a wait in seconds) `detail` is the text
/// of the edge's generic answer with that code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The HTTP status.
    pub status: StatusCode,
    /// The stable code (the constant's name).
    pub code: &'static str,
    /// The Korean text.
    pub detail: &'static str,
}

/// Declares the edge's codes: `NAME = (STATUS, "Korean text");` gives the constant
/// [`Problem`] `NAME` with the code `"NAME"`, and lists it in [`PROBLEMS`].
macro_rules! problems {
    ($($(#[$doc:meta])* $name:ident = ($status:ident, $detail:expr);)*) => {
        $(
            $(#[$doc])*
            pub const $name: Problem = Problem {
                status: StatusCode::$status,
                code: stringify!($name),
                detail: $detail,
            };
        )*
        /// Every code of the edge's own, in the order written.
        pub const PROBLEMS: &[Problem] = &[$($name),*];
    };
}

problems! {
    /// A request the route cannot read.
    MALFORMED = (BAD_REQUEST, "요청을 읽을 수 없어요. 주소와 본문을 확인해 주세요.");
    /// A header that must appear once came more than once (the text names the header).
    DUPLICATE_HEADER = (BAD_REQUEST, "헤더는 한 번만 보내 주세요.");
    /// No bearer token, or one that belongs to nobody in this room.
    UNAUTHORIZED = (UNAUTHORIZED, "토큰이 없거나 올바르지 않아요.");
    /// Behind a CDN, a request that did not come through it (`api::origin`).
    EDGE_ONLY = (FORBIDDEN, "이 주소로는 직접 요청할 수 없어요. 서비스 주소로 접속해 주세요.");
    /// A browser page of another origin than the server's own opening the live channel.
    ORIGIN_NOT_ALLOWED = (FORBIDDEN, "이 페이지에서는 실시간 연결을 열 수 없어요.");
    /// No such room.
    ROOM_NOT_FOUND = (NOT_FOUND, "방을 찾을 수 없어요.");
    /// Not something this room has (the text says what).
    NOT_AVAILABLE = (NOT_FOUND, "이 방에는 없는 거예요.");
    /// No such route.
    NO_SUCH_ROUTE = (NOT_FOUND, "그런 주소는 없어요.");
    /// Web Push is not configured on this deployment.
    PUSH_OFF = (NOT_FOUND, "이 서버는 알림을 보내지 않아요.");
    /// A method the route does not have.
    METHOD_NOT_ALLOWED = (METHOD_NOT_ALLOWED, "이 주소에서는 그 메서드를 쓸 수 없어요.");
    /// The request took longer than the server allows.
    REQUEST_TIMEOUT = (REQUEST_TIMEOUT, "요청이 너무 오래 걸렸어요.");
    /// The caller's `expectedVersion` is stale, or the room changed under a racing request.
    VERSION_CONFLICT = (CONFLICT, "방이 그새 바뀌었어요. 최신 상태를 보고 다시 해 주세요.");
    /// A create found its room id taken.
    ROOM_EXISTS = (CONFLICT, "방이 이미 있어요.");
    /// The body is over the size limit.
    PAYLOAD_TOO_LARGE = (PAYLOAD_TOO_LARGE, "요청 본문이 너무 커요.");
    /// A body that is not JSON.
    UNSUPPORTED_MEDIA_TYPE = (UNSUPPORTED_MEDIA_TYPE, "본문은 Content-Type: application/json으로 보내 주세요.");
    /// `POST /rooms` for a game the server does not have.
    UNKNOWN_GAME = (UNPROCESSABLE_ENTITY, "game은 \"yut\" 또는 \"baduk\"이어야 해요.");
    /// A push subscription the server will not send to (the text says why).
    INVALID_SUBSCRIPTION = (UNPROCESSABLE_ENTITY, "알림을 보낼 수 없는 구독이에요.");
    /// Too many requests of one kind from one client address (the text gives the wait).
    RATE_LIMITED = (TOO_MANY_REQUESTS, "요청이 너무 잦아요. 잠시 뒤에 다시 해 주세요.");
    /// Too many long-polls open at once.
    TOO_MANY_POLLS = (TOO_MANY_REQUESTS, "기다리는 요청이 너무 많아요. 잠시 뒤에 다시 해 주세요.");
    /// A connection over its address's cap (`serve`).
    TOO_MANY_CONNECTIONS = (TOO_MANY_REQUESTS, "이 주소에서 연결이 너무 많아요. 잠시 뒤에 다시 해 주세요.");
    /// The request's header block is over the limit.
    HEADERS_TOO_LARGE = (REQUEST_HEADER_FIELDS_TOO_LARGE, "요청 헤더가 너무 커요.");
    /// An answer of the HTTP layer with a status no other code has.
    HTTP_ERROR = (BAD_REQUEST, "요청을 처리할 수 없어요.");
    /// A bug or corrupt data: logged with its cause, never shown.
    INTERNAL = (INTERNAL_SERVER_ERROR, "서버 오류가 났어요.");
    /// The store failed in a retryable way.
    STORE_UNAVAILABLE = (SERVICE_UNAVAILABLE, "잠시 후 다시 시도해 주세요.");
    /// The room kept changing under every attempt to save this request.
    ROOM_BUSY = (SERVICE_UNAVAILABLE, "방이 너무 자주 바뀌고 있어요. 잠시 후 다시 시도해 주세요.");
}

/// `POST /dev/clock` past the dev clock's range. Outside the table and compiled only with the
/// `dev` feature, like the route: a build without test support holds neither (scripts/test
/// looks for the code in the binaries that `cargo build --release` and `sam build` make).
#[cfg(feature = "dev")]
pub const CLOCK_OUT_OF_RANGE: Problem = Problem {
    status: StatusCode::UNPROCESSABLE_ENTITY,
    code: "CLOCK_OUT_OF_RANGE",
    detail: "시계는 모두 합해 100년까지만 앞으로 돌릴 수 있어요.",
};

/// The status a room-layer code of `kind` is answered with.
fn room_status(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Malformed => StatusCode::BAD_REQUEST,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::Illegal => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// The status a chat refusal is answered with.
fn chat_status(e: &ChatError) -> StatusCode {
    match e {
        ChatError::Muted => StatusCode::FORBIDDEN,
        ChatError::RateLimited { .. } | ChatError::GalleryFull { .. } => {
            StatusCode::TOO_MANY_REQUESTS
        }
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// Every (status, code) a problem can carry, once each, by status then code: the edge's table,
/// the room layer's, both games' rule codes (422), chat's and the replay's (404).
/// `CLOCK_OUT_OF_RANGE` only in a `dev` build. The OpenAPI document's lists come from here.
pub fn codes() -> Vec<(StatusCode, &'static str)> {
    #[cfg(feature = "dev")]
    let dev = [CLOCK_OUT_OF_RANGE];
    #[cfg(not(feature = "dev"))]
    let dev: [Problem; 0] = [];
    let mut all: Vec<(StatusCode, &'static str)> = PROBLEMS
        .iter()
        .chain(&dev)
        .map(|p| (p.status, p.code))
        .chain(
            RoomError::CODES
                .iter()
                .map(|(code, kind)| (room_status(*kind), *code)),
        )
        .chain(
            YutError::EVERY
                .iter()
                .map(RuleError::code)
                .chain(BadukError::EVERY.iter().map(RuleError::code))
                .map(|code| (StatusCode::UNPROCESSABLE_ENTITY, code)),
        )
        .chain(ChatError::EVERY.iter().map(|e| (chat_status(e), e.code())))
        .chain(
            ReplayError::CODES
                .iter()
                .map(|code| (StatusCode::NOT_FOUND, *code)),
        )
        .collect();
    all.sort_unstable_by_key(|(status, code)| (status.as_u16(), *code));
    all.dedup();
    all
}

/// The problem+json body of an answer with `status`, `code` and `detail` (RFC 9457, with the
/// stable `code`): the one place it is written.
pub fn problem_body(status: StatusCode, code: &str, detail: &str) -> Value {
    json!({
        "type": "about:blank",
        "title": status.canonical_reason().unwrap_or("Error"),
        "status": status.as_u16(),
        "code": code,
        "detail": detail,
    })
}

impl From<Problem> for ApiError {
    fn from(p: Problem) -> Self {
        ApiError::Http {
            status: p.status,
            code: p.code,
            detail: p.detail,
        }
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is not one this route reads (a Korean account of what is wrong).
    #[error("{0}")]
    Malformed(String),
    /// A body or query the parser refused: a Korean `detail` for people, and the parser's own
    /// words (English where they are serde's or axum's) in the problem's `reason`, for the
    /// developer who sent it.
    #[error("{detail}")]
    Unreadable {
        /// What could not be read, in Korean.
        detail: &'static str,
        /// The parser's account of why.
        reason: String,
    },
    /// The body is over the size limit.
    #[error("{}", PAYLOAD_TOO_LARGE.detail)]
    TooLarge,
    /// No bearer token, or one that belongs to nobody in this room.
    #[error("{}", UNAUTHORIZED.detail)]
    Unauthorized,
    /// No such room.
    #[error("{}", ROOM_NOT_FOUND.detail)]
    RoomNotFound,
    /// Not something this room has (an SGF of a 윷놀이 room).
    #[error("{0}")]
    NotAvailable(&'static str),
    /// No replay of that step: no such step (`STEP_NOT_FOUND`), or a game that keeps no log
    /// (`REPLAY_NOT_KEPT`: started before rooms kept one).
    #[error("{0}")]
    Replay(ReplayError),
    /// The caller's `expectedVersion` is stale, or the room changed under a racing request.
    /// `room` is the room as it is now, for the caller.
    #[error("{}", VERSION_CONFLICT.detail)]
    VersionConflict {
        /// The current room view, as JSON text.
        room: Box<serde_json::value::RawValue>,
    },
    /// The lobby or the game refused the action.
    #[error("{0}")]
    Room(#[from] RoomError),
    /// Chat refused the message or the mute (DESIGN "Chat").
    #[error("{0}")]
    Chat(#[from] ChatError),
    /// Input that is well-formed but not acceptable, answered 422 with a text of its own: the
    /// code is one of [`codes`]' at 422 (a test reads every use in the source).
    #[error("{message}")]
    Invalid {
        /// Stable code.
        code: &'static str,
        /// Korean message.
        message: String,
    },
    /// Too many requests of one kind from one client address (429, with `Retry-After`).
    #[error("요청이 너무 잦아요. {retry_after_secs}초 뒤에 다시 해 주세요.")]
    RateLimited {
        /// Seconds until the next request of this kind is accepted.
        retry_after_secs: u64,
    },
    /// Too many long-polls open at once, from this client or in total (429).
    #[error("{}", TOO_MANY_POLLS.detail)]
    TooManyPolls,
    /// The request's header block is over the limit (431).
    #[error("{}", HEADERS_TOO_LARGE.detail)]
    HeadersTooLarge,
    /// A body that is not JSON (415): only `application/json` (or `+json`) is read.
    #[error("{}", UNSUPPORTED_MEDIA_TYPE.detail)]
    UnsupportedMediaType,
    /// A header that must appear once came more than once.
    #[error("{header} {detail}", header = .0, detail = DUPLICATE_HEADER.detail)]
    DuplicateHeader(&'static str),
    /// The request took longer than the server allows (408).
    #[error("{}", REQUEST_TIMEOUT.detail)]
    Timeout,
    /// An answer of the HTTP layer itself (no such route, wrong method, undecodable path…),
    /// turned into problem+json by the router's last layer.
    #[error("{detail}")]
    Http {
        /// The status the layer chose.
        status: StatusCode,
        /// Stable code.
        code: &'static str,
        /// Korean message.
        detail: &'static str,
    },
    /// The store failed in a retryable way.
    #[error("{}", STORE_UNAVAILABLE.detail)]
    Unavailable(#[source] StoreError),
    /// The room kept changing under every attempt to save this request (it was never applied):
    /// try again.
    #[error("{}", ROOM_BUSY.detail)]
    Busy,
    /// Web Push is not configured on this deployment (404 `PUSH_OFF`).
    #[error("{}", PUSH_OFF.detail)]
    PushOff,
    /// A create found its room id taken (only a rematch, whose id is derived, expects this).
    #[error("{}", ROOM_EXISTS.detail)]
    RoomExists,
    /// A bug or corrupt data: logged with its cause, never shown.
    #[error("{}", INTERNAL.detail)]
    Internal(#[source] BoxError),
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::RoomNotFound,
            StoreError::AlreadyExists => ApiError::RoomExists,
            e @ StoreError::Unavailable(_) => ApiError::Unavailable(e),
            other => ApiError::Internal(Box::new(other)),
        }
    }
}

/// An error with its whole chain of causes, for the logs: `a: b: c`.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        source = cause.source();
    }
    out
}

impl ApiError {
    /// The HTTP status and the stable code.
    pub fn status_and_code(&self) -> (StatusCode, &'static str) {
        let p = |p: Problem| (p.status, p.code);
        match self {
            ApiError::Malformed(_) | ApiError::Unreadable { .. } => p(MALFORMED),
            ApiError::TooLarge => p(PAYLOAD_TOO_LARGE),
            ApiError::Unauthorized => p(UNAUTHORIZED),
            ApiError::RoomNotFound => p(ROOM_NOT_FOUND),
            ApiError::NotAvailable(_) => p(NOT_AVAILABLE),
            ApiError::Replay(e) => (StatusCode::NOT_FOUND, e.code()),
            ApiError::VersionConflict { .. } => p(VERSION_CONFLICT),
            ApiError::Room(e) => (room_status(e.kind()), e.code()),
            ApiError::Invalid { code, .. } => (StatusCode::UNPROCESSABLE_ENTITY, code),
            ApiError::Chat(e) => (chat_status(e), e.code()),
            ApiError::RateLimited { .. } => p(RATE_LIMITED),
            ApiError::TooManyPolls => p(TOO_MANY_POLLS),
            ApiError::HeadersTooLarge => p(HEADERS_TOO_LARGE),
            ApiError::UnsupportedMediaType => p(UNSUPPORTED_MEDIA_TYPE),
            ApiError::DuplicateHeader(_) => p(DUPLICATE_HEADER),
            ApiError::Timeout => p(REQUEST_TIMEOUT),
            ApiError::Http { status, code, .. } => (*status, code),
            ApiError::Unavailable(_) => p(STORE_UNAVAILABLE),
            ApiError::Busy => p(ROOM_BUSY),
            ApiError::RoomExists => p(ROOM_EXISTS),
            ApiError::PushOff => p(PUSH_OFF),
            ApiError::Internal(_) => p(INTERNAL),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        crate::metrics::refused(&self);
        match &self {
            ApiError::Internal(_) | ApiError::Unavailable(_) | ApiError::Busy => {
                tracing::error!(code, error = %chain(&self), "request failed")
            }
            _ => tracing::debug!(code, detail = %self, "request refused"),
        }
        let mut body = problem_body(status, code, &self.to_string());
        match &self {
            // The rare path: parse the pre-rendered view back to embed it (it was rendered by
            // serde_json a moment ago, so it parses).
            ApiError::VersionConflict { room } => {
                if let Ok(room) = serde_json::from_str::<Value>(room.get()) {
                    body["room"] = room;
                }
            }
            ApiError::Room(RoomError::InvalidOptions(e)) => body["field"] = json!(e.field),
            ApiError::Room(RoomError::BadAction(reason)) | ApiError::Unreadable { reason, .. }
                if !reason.is_empty() =>
            {
                body["reason"] = json!(reason)
            }
            _ => {}
        }
        let mut response = (status, axum::Json(body)).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        let retry_after = match self {
            ApiError::RateLimited { retry_after_secs } => Some(retry_after_secs.max(1)),
            ApiError::Chat(
                ChatError::RateLimited { retry_after_ms }
                | ChatError::GalleryFull { retry_after_ms },
            ) => Some(retry_after_ms.div_ceil(1000).max(1)),
            ApiError::TooManyPolls | ApiError::Unavailable(_) => Some(1),
            _ => None,
        };
        if let Some(secs) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code an `ApiError::Invalid` is built with in this crate's source is one the table
    /// answers with 422, so the OpenAPI document lists it.
    #[test]
    fn every_invalid_code_is_in_the_table_at_422() {
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        let mut sources = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut sources,
        );
        let table = codes();
        let mut seen = 0;
        for source in &sources {
            for (at, _) in source.match_indices("ApiError::Invalid {") {
                let rest: String = source[at..].chars().take(120).collect();
                let Some(code) = rest
                    .split_once("code: \"")
                    .and_then(|(_, r)| r.split_once('"'))
                    .map(|(code, _)| code)
                else {
                    continue;
                };
                seen += 1;
                assert!(
                    table.contains(&(StatusCode::UNPROCESSABLE_ENTITY, code)),
                    "ApiError::Invalid with {code}, which the table does not answer with 422"
                );
            }
        }
        assert!(seen >= 2, "the uses were found ({seen})");
    }
}
