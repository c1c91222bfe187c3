//! The routes of the HTTP contract (`docs/DESIGN.md`, "HTTP API contract").
//!
//! Routes are declared once, in the `routes!` macro below: the same list builds the router and
//! [`ROUTES`], which the tests hold against the OpenAPI document so a route can't go undocumented.

mod extract;
mod games;
mod openapi;
mod rooms;
mod web;

use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::middleware::{self, Next};
use axum::response::Response;
use madang_core::room::Room;
use madang_infra::RoomStore;
use tracing::Instrument;

use crate::app::App;
pub use extract::MAX_BODY_BYTES;
pub use openapi::OPENAPI_JSON;
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
    get "/" => web::index,
    get "/r/{id}" => web::room,
    get "/app/{file}" => web::asset,
    get "/client/madang.js" => web::client,
}

/// The whole API over `app`'s store and clock.
pub fn router<S: RoomStore>(app: App<S>) -> Router {
    routes::<S>()
        .fallback(rooms::not_found)
        // One byte over the limit is enough to refuse: the body is never buffered beyond it.
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(trace_request))
        .with_state(app)
}

/// One span per request. Handlers fill in `room_id`, `action` and `version` as they learn them;
/// the span closes with the status and the latency.
async fn trace_request(request: Request, next: Next) -> Response {
    let span = tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        room_id = tracing::field::Empty,
        action = tracing::field::Empty,
        version = tracing::field::Empty,
    );
    let started = Instant::now();
    let response = next.run(request).instrument(span.clone()).await;
    let latency_us = started.elapsed().as_micros() as u64;
    span.in_scope(|| tracing::info!(status = response.status().as_u16(), latency_us, "done"));
    response
}

/// The SGF record of a 바둑 room, with the players' names.
pub fn sgf_of(room: &Room<madang_core::baduk::Baduk>) -> String {
    rooms::sgf_of(room)
}
