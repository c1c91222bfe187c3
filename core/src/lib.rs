//! Madang core: the pure heart of the game-room server.
//!
//! Nothing here does I/O, reads a clock or spawns a task: time arrives as `now` (epoch ms) and
//! randomness as a [`GameRng`] that the caller stores with the room.
//!
//! - [`chat`]: table talk beside the room: texts, emotes, who sees what, the rate, mutes.
//! - [`game`]: the [`Game`] contract every engine implements (options, setup, apply, view,
//!   deadline, timeouts, result) and the shared vocabulary (`PlayerId`, `Actor`, `Millis`).
//! - [`rng`]: the seeded, serializable ChaCha generator.
//! - [`room`]: the room around a game: lobby, seats, version, catch-up of timeouts, views.
//! - [`schema`]: option schemas, for clients to draw the room-creation screen.
//! - [`yut`]: 윷놀이 (`spec/yut.md`).
//! - [`baduk`]: 바둑 (`spec/baduk.md`).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod baduk;
pub mod chat;
pub mod chat_setting;
pub mod game;
pub mod rng;
pub mod room;
pub mod schema;
pub mod yut;

pub use game::{
    Actor, BotError, BotLevel, Game, Lineup, Millis, OptionsError, PlayerId, RuleError,
};
pub use rng::GameRng;
