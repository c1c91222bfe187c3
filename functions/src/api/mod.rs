//! The routes of the HTTP contract (`docs/DESIGN.md`, "HTTP API contract").
//!
//! Routes are declared once, in the `routes!` macro below: the same list builds the router and
//! [`ROUTES`], which the tests hold against the OpenAPI document so a route can't go undocumented.

pub mod actions;
mod chat;
mod compress;
mod conditional;
pub mod events;
pub(crate) mod extract;
mod games;
pub mod ids;
mod openapi;
pub mod origin;
pub mod push;
pub mod requests;
mod rooms;
pub mod strict;
mod web;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::handler::Handler;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use madang_infra::{ChatStore, RoomStore};
use tracing::Instrument;

use crate::app::App;
use crate::error::{ApiError, Problem};
use crate::limits::Guard;
use crate::live::local as live;
use crate::metrics::RouteClass;
pub use extract::{Client, MAX_BODY_BYTES};
pub use ids::RoomId;
pub use openapi::openapi_document;
pub use web::PATHS as WEB_PATHS;

/// Declares the routes once: builds the router and the list of `(method, path)` pairs. Each
/// handler is [`Named`] by the route it is declared at.
macro_rules! routes {
    ($($(#[$cfg:meta])* $method:ident $path:literal => $module:ident::$handler:ident),* $(,)?) => {
        /// Every route of the API as `(method, path)`, in axum's path syntax.
        pub const ROUTES: &[(&str, &str)] = &[$($(#[$cfg])* (stringify!($method), $path)),*];

        fn routes<S: RoomStore + ChatStore>() -> Router<App<S>> {
            let router = Router::new();
            $(
                $(#[$cfg])*
                let router = router.route(
                    $path,
                    axum::routing::$method(Named::new($path, $module::$handler::<S>)),
                );
            )*
            router
        }
    };
}

routes! {
    post "/rooms" => rooms::create,
    get "/rooms/{id}" => rooms::get,
    post "/rooms/{id}/players" => rooms::join,
    post "/rooms/{id}/actions" => rooms::act,
    post "/rooms/{id}/chat" => chat::post,
    get "/rooms/{id}/chat" => chat::get,
    post "/rooms/{id}/chat/mute" => chat::mute,
    get "/rooms/{id}/sgf" => rooms::sgf,
    get "/rooms/{id}/at/{n}" => rooms::replay,
    get "/rooms/{id}/review" => rooms::review,
    get "/games/{kind}" => games::schema,
    get "/push" => push::key,
    put "/rooms/{id}/push" => push::put,
    delete "/rooms/{id}/push" => push::delete,
    get "/openapi.json" => openapi::document,
    get "/healthz" => rooms::healthz,
    // Test support: compiled only with the `dev` feature (a release build answers 404).
    #[cfg(feature = "dev")]
    post "/dev/clock" => rooms::dev_clock,
    get "/live" => live::socket,
    get "/" => web::index,
    get "/r/{id}" => web::room,
    get "/r/{id}/card.png" => web::card_png,
    get "/rules/{kind}" => web::rules,
    get "/manifest.webmanifest" => web::manifest,
    get "/app/{file}" => web::asset,
    get "/client/madang.js" => web::client,
    get "/sw.js" => web::service_worker,
}

/// The whole API over `app`'s store and clock, with the limits of `app.limits` (the counters of
/// `app.guard`, which the handlers take from too).
pub fn router<S: RoomStore + ChatStore>(app: App<S>) -> Router {
    let front = Front {
        guard: app.guard.clone(),
        origin: app.origin.clone(),
    };
    routes::<S>()
        .fallback(rooms::not_found)
        // One byte over the limit is enough to refuse: the body is never buffered beyond it.
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(front, edge))
        .with_state(app)
}

/// What [`edge`] checks a request's head with: the origin secret behind a CDN ([`origin`]), then
/// the guard's limits.
#[derive(Clone)]
struct Front {
    guard: Arc<Guard>,
    origin: Option<Arc<origin::OriginSecret>>,
}

/// What every request passes through, in one layer (each `from_fn` layer boxes a clone of the
/// inner router and its future per request, about 1.5 % of a `/healthz` each in a profile):
/// its tracing span (handlers fill in `room`, `action` and `version` as they learn them; it
/// closes with the status and the latency), behind a CDN the origin secret
/// ([`origin::OriginSecret::admit`]), the checks of the request's head
/// ([`Guard::admit_head`]; the per-route limits are taken in the handlers, from the typed
/// request), errors made problem+json ([`problems_only`]), JSON gzipped when the client accepts
/// it ([`compress`]), and the headers every answer carries ([`hardened`]).
///
/// The span names the route, not the path: a path holds a room id, and logs carry only its
/// digest (`room`, recorded by the [`RoomId`] extractor).
async fn edge(State(front): State<Front>, mut request: Request, next: Next) -> Response {
    let gzip = compress::negotiate(&request);
    let span = tracing::info_span!(
        "request",
        method = %request.method(),
        // The matched route, recorded by `Named` (none: no route matched).
        route = tracing::field::Empty,
        room = tracing::field::Empty,
        action = tracing::field::Empty,
        version = tracing::field::Empty,
    );
    let started = Instant::now();
    let response = async {
        // Behind a CDN, a request that did not come through it is refused before anything else.
        let from_edge = match &front.origin {
            Some(secret) => secret.admit(request.headers_mut()),
            None => Ok(()),
        };
        match from_edge.and_then(|()| front.guard.admit_head(&request)) {
            Ok(()) => problems_only(next.run(request).await),
            Err(refused) => refused.into_response(),
        }
    }
    .instrument(span.clone())
    .await;
    let mut response = compress::json(gzip, response).await;
    hardened(response.headers_mut());
    let latency_us = started.elapsed().as_micros() as u64;
    span.in_scope(|| tracing::info!(status = response.status().as_u16(), latency_us, "done"));
    let route = response
        .extensions()
        .get::<RouteClass>()
        .copied()
        .unwrap_or(RouteClass::Other);
    crate::metrics::request_done(route, response.status());
    response
}

/// A route's handler, named by the route it is declared at (`/rooms/{id}/actions`: never a raw
/// path, which holds a room id). Called only when the router matched that route, it records the
/// span's `route` and gives the answer its [`RouteClass`], which [`edge`] reads for the metrics.
///
/// Why a handler and not a layer: a `route_layer` of `middleware::from_fn` reading axum's
/// `MatchedPath` cost 5–6 µs of CPU an action (BENCHMARKS.md): the route wrapped in one more
/// boxed, cloned-per-request `Route`, the middleware's own boxed future and `Next`, and the
/// router writing `MatchedPath` into every request's extensions. Here the route is a constant
/// of the declaration and the answer's future is the handler's own, wrapped in place: nothing is
/// allocated or cloned per request.
#[derive(Clone, Copy)]
struct Named<H> {
    route: &'static str,
    handler: H,
}

impl<H> Named<H> {
    fn new(route: &'static str, handler: H) -> Self {
        Named { route, handler }
    }
}

impl<H, T, S> Handler<T, S> for Named<H>
where
    H: Handler<T, S>,
    // Every handler here is an `async fn` (or a closure in the tests), whose future axum boxes:
    // `Unpin`, so `Classed` polls it without pinning projections.
    H::Future: Unpin,
{
    type Future = Classed<H::Future>;

    fn call(self, request: Request, state: S) -> Self::Future {
        tracing::Span::current().record("route", self.route);
        let class = RouteClass::of(request.method(), self.route);
        Classed {
            answer: self.handler.call(request, state),
            class,
        }
    }
}

/// A handler's answer, given its [`RouteClass`] when it is ready.
struct Classed<F> {
    answer: F,
    class: RouteClass,
}

impl<F: Future<Output = Response> + Unpin> Future for Classed<F> {
    type Output = Response;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let class = self.class;
        Pin::new(&mut self.answer).poll(cx).map(|mut response| {
            response.extensions_mut().insert(class);
            response
        })
    }
}

/// The headers every answer carries: `nosniff` (a JSON or SGF answer is never sniffed into
/// HTML), and `Referrer-Policy: no-referrer` (a room's address is the capability to watch it;
/// it must not leave in a `Referer` to another site). CORS headers are none: the app is
/// same-origin, and a deployment that serves other origins configures them in front (the
/// template's `AllowedOrigins`).
fn hardened(headers: &mut axum::http::HeaderMap) {
    headers
        .entry(header::X_CONTENT_TYPE_OPTIONS)
        .or_insert(HeaderValue::from_static("nosniff"));
    headers
        .entry(header::REFERRER_POLICY)
        .or_insert(HeaderValue::from_static("no-referrer"));
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
    use crate::error::{
        HEADERS_TOO_LARGE, HTTP_ERROR, INTERNAL, MALFORMED, METHOD_NOT_ALLOWED, NO_SUCH_ROUTE,
        PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE,
    };
    // The status stays the layer's own (`HTTP_ERROR` and `INTERNAL` cover several).
    let Problem { code, detail, .. } = match status {
        StatusCode::BAD_REQUEST => MALFORMED,
        StatusCode::NOT_FOUND => NO_SUCH_ROUTE,
        StatusCode::METHOD_NOT_ALLOWED => METHOD_NOT_ALLOWED,
        StatusCode::PAYLOAD_TOO_LARGE => PAYLOAD_TOO_LARGE,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => UNSUPPORTED_MEDIA_TYPE,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => HEADERS_TOO_LARGE,
        s if s.is_server_error() => INTERNAL,
        _ => HTTP_ERROR,
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

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Method;
    use axum::routing::{MethodFilter, on};
    use tower::ServiceExt;

    use super::*;

    /// The class a request gets from the route it matched: every route of [`ROUTES`] with a
    /// stand-in handler, [`Named`] as the router names its own; `None` when no route matched.
    async fn class(method: Method, path: &str) -> Option<RouteClass> {
        let mut router = Router::new();
        for (method, route) in ROUTES {
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let filter = MethodFilter::try_from(method).unwrap();
            let stand_in = || async { StatusCode::NO_CONTENT };
            router = router.route(route, on(filter, Named::new(route, stand_in)));
        }
        let router = router.fallback(rooms::not_found);
        let request = Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap();
        let response = router.oneshot(request).await.unwrap();
        response.extensions().get::<RouteClass>().copied()
    }

    #[tokio::test]
    async fn requests_are_classed_by_the_route_they_matched() {
        let c = |method, path| class(method, path);
        assert_eq!(c(Method::POST, "/rooms").await, Some(RouteClass::Create));
        assert_eq!(
            c(Method::POST, "/rooms/abc/players").await,
            Some(RouteClass::Join)
        );
        assert_eq!(
            c(Method::POST, "/rooms/abc/actions").await,
            Some(RouteClass::Act)
        );
        assert_eq!(c(Method::GET, "/rooms/abc").await, Some(RouteClass::Read));
        assert_eq!(
            c(Method::GET, "/rooms/abc/sgf").await,
            Some(RouteClass::Read)
        );
        // Matched routes of another class, and requests no route takes (`edge` counts those
        // `Other`).
        assert_eq!(c(Method::GET, "/healthz").await, Some(RouteClass::Other));
        assert_eq!(
            c(Method::GET, "/rooms/abc/chat").await,
            Some(RouteClass::Other)
        );
        assert!(
            c(Method::GET, "/rooms")
                .await
                .is_none_or(|r| r == RouteClass::Other)
        );
        assert_eq!(c(Method::POST, "/rooms/abc/actions/x").await, None);
    }
}
