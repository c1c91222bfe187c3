//! `GET /games/{kind}`: a game's option schema, for clients to draw the room-creation screen
//! from the same lists validation uses.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use madang_core::baduk::BadukOptions;
use madang_core::chat::ChatRules;
use madang_core::room::GameKind;
use madang_core::schema::GameSchema;
use madang_core::yut::YutOptions;
use madang_infra::RoomStore;
use serde::Serialize;

use crate::app::App;
use crate::error::ApiError;

/// A game's schema with its chat rules beside the options (`chat`: the emotes and set phrases
/// `{"emote": E}` accepts, and the bounds).
#[derive(Serialize)]
struct WithChat {
    #[serde(flatten)]
    schema: GameSchema,
    chat: ChatRules,
}

/// `GET /games/{kind}`
pub async fn schema<S: RoomStore>(
    State(_app): State<App<S>>,
    Path(kind): Path<String>,
) -> Result<Response, ApiError> {
    let Some(kind) = GameKind::parse(&kind) else {
        return Err(ApiError::NotAvailable(
            "그런 게임은 없어요. yut 또는 baduk이에요.",
        ));
    };
    let schema = match kind {
        GameKind::Yut => YutOptions::schema(),
        GameKind::Baduk => BadukOptions::schema(),
    };
    let mut response = Json(WithChat {
        schema,
        chat: ChatRules::of(kind),
    })
    .into_response();
    // The schema changes only with a deployment.
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=300"),
    );
    Ok(response)
}
