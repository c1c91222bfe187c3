//! The routes of the HTTP contract (`docs/DESIGN.md`, "HTTP API contract").
//!
//! Routes are declared once, in the `routes!` macro below: the same list builds the router and
//! [`ROUTES`], which the tests hold against the OpenAPI document so a route can't go undocumented.

mod extract;
mod games;
mod openapi;
pub mod requests;
mod rooms;
mod web;

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use madang_infra::RoomStore;
use tracing::Instrument;

use crate::app::App;
use crate::error::ApiError;
use crate::limits::Guard;
use crate::live::local as live;
pub use extract::{Client, MAX_BODY_BYTES};
pub use openapi::openapi_document;
pub use web::PATHS as WEB_PATHS;

/// Declares the routes once: builds the router and the list of `(method, path)` pairs.
macro_rules! routes {
    ($($method:ident $path:literal => $module:ident::$handler:ident),* $(,)?) => {
        /// Every route of the API as `(method, path)`, in axum's path syntax.
        pub const ROUTES: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        fn routes<S: RoomStore>() -> Router<App<S>> {
            Router::new()$(.route($path, axum::routing::$method($module::$handler::<S>)))*
        }
    };
}

routes! {
    post "/rooms" => rooms::create,
    get "/rooms/{id}" => rooms::get,
    post "/rooms/{id}/players" => rooms::join,
    post "/rooms/{id}/actions" => rooms::act,
    get "/rooms/{id}/sgf" => rooms::sgf,
    get "/games/{kind}" => games::schema,
    get "/openapi.json" => openapi::document,
    get "/healthz" => rooms::healthz,
    post "/dev/clock" => rooms::dev_clock,
    get "/live" => live::socket,
    get "/" => web::index,
    get "/r/{id}" => web::room,
    get "/app/{file}" => web::asset,
    get "/client/madang.js" => web::client,
}

/// The whole API over `app`'s store and clock, with the limits of `app.limits` (fresh counters
/// per router).
pub fn router<S: RoomStore>(app: App<S>) -> Router {
    let guard = Arc::new(Guard::new(app.limits));
    routes::<S>()
        .fallback(rooms::not_found)
        // One byte over the limit is enough to refuse: the body is never buffered beyond it.
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(guard, edge))
        .with_state(app)
}

/// What every request passes through, in one layer (each `from_fn` layer boxes a clone of the
/// inner router and its future per request, about 1.5 % of a `/healthz` each in a profile):
/// its tracing span (handlers fill in `room_id`, `action` and `version` as they learn them; it
/// closes with the status and the latency), the limits ([`Guard::admit`]), and errors made
/// problem+json ([`problems_only`]).
async fn edge(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let span = tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        room_id = tracing::field::Empty,
        action = tracing::field::Empty,
        version = tracing::field::Empty,
    );
    let started = Instant::now();
    let route = crate::metrics::RouteClass::of(request.method(), request.uri().path());
    let response = async {
        match guard.admit(&request) {
            Ok(poll_slot) => {
                let response = problems_only(next.run(request).await);
                drop(poll_slot);
                response
            }
            Err(refused) => refused.into_response(),
        }
    }
    .instrument(span.clone())
    .await;
    let latency_us = started.elapsed().as_micros() as u64;
    span.in_scope(|| tracing::info!(status = response.status().as_u16(), latency_us, "done"));
    crate::metrics::request_done(route, response.status());
    response
}

/// Turns every error the HTTP layer answers by itself — 405 from the method router, 400 from a
/// path that is not UTF-8 once decoded, an extractor's plain-text rejection — into problem+json
/// with a stable code, keeping its status and headers (`Allow` on a 405). The handlers' own
/// errors already are problem+json and pass untouched.
fn problems_only(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let problem = HeaderValue::from_static("application/problem+json");
    if response.headers().get(header::CONTENT_TYPE) == Some(&problem) {
        return response;
    }
    let (code, detail) = match status {
        StatusCode::BAD_REQUEST => (
            "MALFORMED",
            "요청을 읽을 수 없어요. 주소와 본문을 확인해 주세요.",
        ),
        StatusCode::NOT_FOUND => ("NO_SUCH_ROUTE", "그런 주소는 없어요."),
        StatusCode::METHOD_NOT_ALLOWED => (
            "METHOD_NOT_ALLOWED",
            "이 주소에서는 그 메서드를 쓸 수 없어요.",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => ("PAYLOAD_TOO_LARGE", "요청 본문이 너무 커요."),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => (
            "UNSUPPORTED_MEDIA_TYPE",
            "본문은 Content-Type: application/json으로 보내 주세요.",
        ),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            ("HEADERS_TOO_LARGE", "요청 헤더가 너무 커요.")
        }
        s if s.is_server_error() => ("INTERNAL", "서버 오류가 났어요."),
        _ => ("HTTP_ERROR", "요청을 처리할 수 없어요."),
    };
    let (mut parts, _) = response.into_parts();
    let answer = ApiError::Http {
        status,
        code,
        detail,
    }
    .into_response();
    let (answer_parts, body) = answer.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.extend(answer_parts.headers);
    Response::from_parts(parts, body)
}
