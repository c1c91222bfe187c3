//! `GET /openapi.json`: the OpenAPI 3.1 document, maintained beside the routes
//! (`functions/openapi.json`). A test holds it against [`super::ROUTES`], so a route added
//! without documentation fails the build's tests.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use madang_infra::RoomStore;

use crate::app::App;

/// The OpenAPI document, as served.
pub const OPENAPI_JSON: &str = include_str!("../../openapi.json");

/// `GET /openapi.json`
pub async fn document<S: RoomStore>(_: axum::extract::State<App<S>>) -> Response {
    let mut response = OPENAPI_JSON.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ROUTES, web};

    #[test]
    fn every_route_is_in_the_openapi_document() {
        let doc: serde_json::Value = serde_json::from_str(OPENAPI_JSON).unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        // The web client's pages and files are not part of the JSON API.
        let api: Vec<_> = ROUTES
            .iter()
            .filter(|(_, path)| !web::PATHS.contains(path))
            .collect();
        for (method, path) in &api {
            assert!(
                doc["paths"][path][method].is_object(),
                "{method} {path} is missing from openapi.json"
            );
        }
        let documented: usize = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|p| p.as_object().unwrap().len())
            .sum();
        assert_eq!(
            documented,
            api.len(),
            "openapi.json documents a route the router does not have"
        );
    }
}
