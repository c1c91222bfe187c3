//! `GET /games/{kind}`: a game's option schema, for clients to draw the room-creation screen
//! from the same lists validation uses.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use madang_core::baduk::BadukOptions;
use madang_core::room::GameKind;
use madang_core::yut::YutOptions;
use madang_infra::RoomStore;

use crate::app::App;
use crate::error::ApiError;

/// `GET /games/{kind}`
pub async fn schema<S: RoomStore>(
    State(_app): State<App<S>>,
    Path(kind): Path<String>,
) -> Result<Response, ApiError> {
    let schema = match GameKind::parse(&kind) {
        Some(GameKind::Yut) => YutOptions::schema(),
        Some(GameKind::Baduk) => BadukOptions::schema(),
        None => {
            return Err(ApiError::NotAvailable(
                "그런 게임은 없어요. yut 또는 baduk이에요.",
            ));
        }
    };
    let mut response = Json(schema).into_response();
    // The schema changes only with a deployment.
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=300"),
    );
    Ok(response)
}
