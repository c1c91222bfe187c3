//! The reference web client (issue 12): `GET /` and `GET /r/{id}` serve the app's page, `GET
//! /app/{file}` its stylesheet and modules, `GET /client/madang.js` the client library of
//! `clients/js/`. Every file is embedded in the binary, so any deployment (local server or
//! Lambda) serves the same app with nothing beside it. These routes are not part of the JSON API
//! and are left out of the OpenAPI document ([`PATHS`]).

use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use madang_infra::RoomStore;

use crate::app::App;
use crate::error::ApiError;

/// The paths of the web client's routes, which the OpenAPI document leaves out.
pub const PATHS: &[&str] = &["/", "/r/{id}", "/app/{file}", "/client/madang.js"];

const INDEX_HTML: &str = include_str!("../../../web/index.html");
const CLIENT_JS: &str = include_str!("../../../clients/js/src/madang.js");

/// The app's files under `/app/`, with their media types.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../../web/style.css"),
    ),
    ("app.js", JS, include_str!("../../../web/app.js")),
    ("lobby.js", JS, include_str!("../../../web/lobby.js")),
    ("yut.js", JS, include_str!("../../../web/yut.js")),
    ("baduk.js", JS, include_str!("../../../web/baduk.js")),
    ("ui.js", JS, include_str!("../../../web/ui.js")),
];

const JS: &str = "text/javascript; charset=utf-8";

/// Only the API on the same origin; nothing from anywhere else.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
                   connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

fn file(media_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
    // Revalidate every load: the files change with a deployment, and they are small.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn page() -> Response {
    let mut response = file("text/html; charset=utf-8", INDEX_HTML);
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    response
}

/// `GET /`: the lobby.
pub async fn index<S: RoomStore>(State(_app): State<App<S>>) -> Response {
    page()
}

/// `GET /r/{id}`: a room's share link; the app reads the id from the address.
pub async fn room<S: RoomStore>(State(_app): State<App<S>>, Path(_id): Path<String>) -> Response {
    page()
}

/// `GET /client/madang.js`: the client library, as `clients/js/src/madang.js`.
pub async fn client<S: RoomStore>(State(_app): State<App<S>>) -> Response {
    file(JS, CLIENT_JS)
}

/// `GET /app/{file}`: the app's stylesheet and modules.
pub async fn asset<S: RoomStore>(
    State(_app): State<App<S>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, media_type, body)| file(media_type, body))
        .ok_or(ApiError::NotAvailable("그런 파일은 없어요."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_loads_only_embedded_modules() {
        for (name, _, _) in ASSETS {
            assert!(
                INDEX_HTML.contains(&format!("/app/{name}"))
                    || ASSETS
                        .iter()
                        .any(|(_, _, b)| b.contains(&format!("./{name}"))),
                "{name} is embedded but nothing loads it"
            );
        }
        assert!(
            !INDEX_HTML.contains("https://"),
            "no CDN: the page loads only its own files"
        );
    }
}
