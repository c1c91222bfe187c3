//! One error type for the HTTP layer, rendered as RFC 9457 `application/problem+json` with a
//! stable `code` member and a Korean `detail`. Every failure of a request ends here, in one match.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use madang_core::chat::ChatError;
use madang_core::room::{ErrorKind, ReplayError, RoomError};
use madang_infra::{BoxError, StoreError};
use serde_json::{Value, json};

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
    #[error("요청 본문이 너무 커요.")]
    TooLarge,
    /// No bearer token, or one that belongs to nobody in this room.
    #[error("토큰이 없거나 올바르지 않아요.")]
    Unauthorized,
    /// No such room.
    #[error("방을 찾을 수 없어요.")]
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
    #[error("방이 그새 바뀌었어요. 최신 상태를 보고 다시 해 주세요.")]
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
    /// Input that is well-formed but not acceptable (a name too long, a seed without dev mode).
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
    #[error("기다리는 요청이 너무 많아요. 잠시 뒤에 다시 해 주세요.")]
    TooManyPolls,
    /// The request's header block is over the limit (431).
    #[error("요청 헤더가 너무 커요.")]
    HeadersTooLarge,
    /// A body that is not JSON (415): only `application/json` (or `+json`) is read.
    #[error("본문은 Content-Type: application/json으로 보내 주세요.")]
    UnsupportedMediaType,
    /// A header that must appear once came more than once.
    #[error("{0} 헤더는 한 번만 보내 주세요.")]
    DuplicateHeader(&'static str),
    /// The request took longer than the server allows (408).
    #[error("요청이 너무 오래 걸렸어요.")]
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
    #[error("잠시 후 다시 시도해 주세요.")]
    Unavailable(#[source] StoreError),
    /// The room kept changing under every attempt to save this request (it was never applied):
    /// try again.
    #[error("방이 너무 자주 바뀌고 있어요. 잠시 후 다시 시도해 주세요.")]
    Busy,
    /// Web Push is not configured on this deployment (404 `PUSH_OFF`).
    #[error("이 서버는 알림을 보내지 않아요.")]
    PushOff,
    /// A create found its room id taken (only a rematch, whose id is derived, expects this).
    #[error("방이 이미 있어요.")]
    RoomExists,
    /// A bug or corrupt data: logged with its cause, never shown.
    #[error("서버 오류가 났어요.")]
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
        match self {
            ApiError::Malformed(_) | ApiError::Unreadable { .. } => {
                (StatusCode::BAD_REQUEST, "MALFORMED")
            }
            ApiError::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE"),
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, "UNAUTHORIZED"),
            ApiError::RoomNotFound => (StatusCode::NOT_FOUND, "ROOM_NOT_FOUND"),
            ApiError::NotAvailable(_) => (StatusCode::NOT_FOUND, "NOT_AVAILABLE"),
            ApiError::Replay(e) => (StatusCode::NOT_FOUND, e.code()),
            ApiError::VersionConflict { .. } => (StatusCode::CONFLICT, "VERSION_CONFLICT"),
            ApiError::Room(e) => (
                match e.kind() {
                    ErrorKind::Malformed => StatusCode::BAD_REQUEST,
                    ErrorKind::Forbidden => StatusCode::FORBIDDEN,
                    ErrorKind::Illegal => StatusCode::UNPROCESSABLE_ENTITY,
                },
                e.code(),
            ),
            ApiError::Invalid { code, .. } => (StatusCode::UNPROCESSABLE_ENTITY, code),
            ApiError::Chat(e) => (
                match e {
                    ChatError::Muted => StatusCode::FORBIDDEN,
                    ChatError::RateLimited { .. } | ChatError::GalleryFull { .. } => {
                        StatusCode::TOO_MANY_REQUESTS
                    }
                    _ => StatusCode::UNPROCESSABLE_ENTITY,
                },
                e.code(),
            ),
            ApiError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED"),
            ApiError::TooManyPolls => (StatusCode::TOO_MANY_REQUESTS, "TOO_MANY_POLLS"),
            ApiError::HeadersTooLarge => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "HEADERS_TOO_LARGE",
            ),
            ApiError::UnsupportedMediaType => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE")
            }
            ApiError::DuplicateHeader(_) => (StatusCode::BAD_REQUEST, "DUPLICATE_HEADER"),
            ApiError::Timeout => (StatusCode::REQUEST_TIMEOUT, "REQUEST_TIMEOUT"),
            ApiError::Http { status, code, .. } => (*status, code),
            ApiError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "STORE_UNAVAILABLE"),
            ApiError::Busy => (StatusCode::SERVICE_UNAVAILABLE, "ROOM_BUSY"),
            ApiError::RoomExists => (StatusCode::CONFLICT, "ROOM_EXISTS"),
            ApiError::PushOff => (StatusCode::NOT_FOUND, "PUSH_OFF"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL"),
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
        let mut body = json!({
            "type": "about:blank",
            "title": status.canonical_reason().unwrap_or("Error"),
            "status": status.as_u16(),
            "code": code,
            "detail": self.to_string(),
        });
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
