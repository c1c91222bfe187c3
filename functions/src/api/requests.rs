//! Request bodies as they arrive, and their parsing into the service's typed inputs — once, at
//! the edge, before any work or retry: a game name becomes a [`GameKind`], options the game's
//! options type. An action is checked here and read by the room's game once the room is loaded
//! ([`super::actions`]).

use madang_core::Game;
use madang_core::room::{GameKind, digest32};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::error::ApiError;
use madang_core::room::player_name;

use crate::service::{Idempotency, NewRoom, RoomOptions};

/// The longest long-poll a client may ask for (`wait`, seconds); the server may cap it lower
/// (Lambda: 20).
pub const MAX_WAIT_SECS: u64 = 25;

/// Display names are 1–20 characters (after trimming).
pub const MAX_NAME_CHARS: u32 = 20;

/// `POST /rooms` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateBody<'a> {
    /// `"yut"` or `"baduk"`.
    pub game: String,
    /// The creator's display name.
    pub name: String,
    /// The game's options, as their text in the body (read once the game is known); missing
    /// fields take the game's defaults.
    #[serde(default, borrow)]
    pub options: Option<&'a RawValue>,
    /// `MADANG_DEV=1` only: seed the room's generator for a reproducible game. Without the
    /// `dev` feature there is no such field (`deny_unknown_fields` refuses it).
    #[cfg(feature = "dev")]
    #[serde(default)]
    pub seed: Option<u64>,
}

fn options_of<G: Game>(options: Option<&RawValue>) -> Result<G::Options, ApiError>
where
    G::Options: DeserializeOwned,
{
    match options {
        Some(raw) => super::strict::from_str(object(raw)?).map_err(|e| ApiError::Unreadable {
            detail: "options를 읽을 수 없어요.",
            reason: super::strict::message(&e),
        }),
        None => Ok(G::Options::default()),
    }
}

/// `options` as the object it must be: serde reads a struct from a positional array too
/// (`[2, true]`), which no client means and no schema allows.
fn object(options: &RawValue) -> Result<&str, ApiError> {
    match options.get() {
        text if text.starts_with('{') => Ok(text),
        _ => Err(ApiError::Malformed("options는 객체({…})여야 해요.".into())),
    }
}

impl CreateBody<'_> {
    /// The typed request.
    pub fn parse(self) -> Result<NewRoom, ApiError> {
        let kind = GameKind::parse(&self.game).ok_or(ApiError::from(crate::error::UNKNOWN_GAME))?;
        let options = match kind {
            GameKind::Yut => RoomOptions::Yut(options_of::<madang_core::yut::Yut>(self.options)?),
            GameKind::Baduk => {
                RoomOptions::Baduk(options_of::<madang_core::baduk::Baduk>(self.options)?)
            }
        };
        Ok(NewRoom {
            name: player_name(&self.name)?,
            options,
            #[cfg(feature = "dev")]
            seed: self.seed,
        })
    }
}

/// `POST /rooms/{id}/players` body (its schema is the OpenAPI document's `JoinRoom`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinBody {
    /// The joiner's display name, 1–20 characters after trimming.
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    pub name: String,
}

/// An `Idempotency-Key` with the raw body it came with, hashed for the room's ledger.
pub fn idempotency(key: Option<&str>, body: &[u8]) -> Option<Idempotency> {
    key.map(|key| Idempotency {
        key: digest32(key.as_bytes()),
        body: digest32(body),
    })
}
