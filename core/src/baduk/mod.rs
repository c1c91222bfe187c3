//! 바둑 (`spec/baduk.md`): board, ko, passes, scoring, clocks, undo, draw offers, SGF.
//!
//! One file per concept, from the mechanics up:
//! - [`point`], [`color`]: the vocabulary (`Point {x, y}` with `y = 0` at the top, `Color`,
//!   `ByColor<T>`).
//! - [`zobrist`]: constant hash keys; [`board`]: stones, chains, liberties, captures, the hash.
//! - [`history`]: superko set, situation counts and the simple-ko shape, rebuilt from the moves.
//! - [`position`]: board + history + record under a ko rule; [`history`] also packs the stored
//!   move list (9 bits a move on 19×19).
//! - [`options`], [`handicap`], [`clock`]: rules and settings as plain data; [`limits`]: the
//!   move limit and the cap on resumes that make every game end (B7).
//! - [`scoring`]: dead-stone and seki suggestions, territory/area counts, ownership.
//! - [`state`]: [`BadukState`] and its compact stored form; [`result`]: how a game ended.
//! - [`action`], [`event`], [`error`], [`view`]: what goes in and out of the engine.
//! - [`engine`]: [`Baduk`], the [`crate::Game`] implementation; [`sgf`]: SGF export and import.
//! - [`review`]: the engine's score-lead curve of a finished game (`GET /rooms/{id}/review`).
//!
//! ```
//! use madang_core::baduk::{Baduk, BadukAction, BadukOptions};
//! use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};
//!
//! let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
//! let lineup = Lineup { players: vec![a.clone(), b.clone()], host: a.clone() };
//! let options: BadukOptions = serde_json::from_str(r#"{"boardSize": 9, "colorAssignment": "hostBlack"}"#).unwrap();
//! let mut rng = GameRng::seed_from_u64(1);
//! let mut state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
//! Baduk::apply(&mut state, Actor::Player(&a), &BadukAction::Place { x: 4, y: 4 }, &mut rng, 1_000).unwrap();
//! let err = Baduk::apply(&mut state, Actor::Player(&b), &BadukAction::Place { x: 4, y: 4 }, &mut rng, 2_000);
//! assert_eq!(err.unwrap_err().to_string(), "이미 돌이 놓인 곳이에요.");
//! ```

pub mod action;
pub mod board;
pub mod bot;
pub mod clock;
pub mod color;
pub mod engine;
pub mod error;
pub mod event;
pub mod handicap;
pub mod history;
pub mod limits;
pub mod options;
pub mod point;
pub mod position;
pub mod result;
pub mod review;
mod schema;
pub mod scoring;
pub mod sgf;
pub mod state;
pub mod summary;
pub mod view;
pub mod zobrist;

pub use action::BadukAction;
pub use board::Board;
pub use color::{ByColor, Color};
pub use engine::Baduk;
pub use error::BadukError;
pub use event::BadukEvent;
pub use options::{
    BadukOptions, ClockKind, ColorAssignment, KoRule, ScoringMethod, TimeControl, UndoAllowance,
};
pub use point::Point;
pub use position::{MoveRecord, Played, Position};
pub use result::{BadukResult, EndReason};
pub use scoring::Score;
pub use state::{BadukState, Phase};
pub use view::{BadukView, IllegalPoint, IllegalReason};
