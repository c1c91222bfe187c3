//! Madang functions: the HTTP API and the timeout sweeper.
//!
//! One [`axum::Router`], built by [`router`] from an [`App`] (a [`RoomStore`], an announcer and
//! a [`ServerClock`]),
//! serves every environment: `lambda_http::run` on AWS Lambda (`bin/api`), `axum::serve` in the
//! local server (`bin/madang`), and the end-to-end tests on port 0.
//!
//! - [`announce`]: the port live delivery hears of saves and chat messages through.
//! - [`app`]: the shared state handed to every handler.
//! - [`api`]: the routes of the HTTP contract, one module per concern.
//! - [`clock`]: the [`ServerClock`] (moved by the dev clock in tests; a 바둑 game's clocks are `madang_core::baduk::Clock`).
//! - [`card`]: the link cards of share links — the page's Open Graph tags and the board as PNG.
//! - [`service`]: the one straight path of a request — load, catch up, apply, conditional save.
//! - [`error`]: [`ApiError`] and its RFC 9457 problem+json rendering.
//! - [`limits`]: per-client rate and long-poll limits, header size, JSON-only bodies.
//! - [`live`]: the live channel — `GET /live` locally, API Gateway's WebSocket API on AWS.
//! - [`metrics`]: CloudWatch Embedded Metric Format lines on stdout (Lambda; locally on demand).
//! - [`origin`]: the one parser of an origin that reaches a header (CSP, link cards, `Origin`).
//! - [`mod@serve`]: the bounded TCP serve loop of the local server and the tests (timeouts,
//!   connection cap, graceful shutdown).
//! - [`sweeper`]: fires overdue timeouts of rooms nobody is polling.
//! - [`telemetry`]: tracing setup (JSON on Lambda, human-readable locally).
//! - [`thinker`]: who makes computer players' moves, once per move, off the request path.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod announce;
pub mod api;
pub mod app;
pub mod card;
pub mod clock;
pub mod error;
pub mod limits;
pub mod live;
pub mod metrics;
pub mod origin;
pub mod push;
pub mod serve;
pub mod service;
pub mod sweeper;
pub mod telemetry;
pub mod thinker;

pub use api::router;
pub use app::App;
pub use clock::ServerClock;
pub use error::ApiError;
pub use madang_infra::{ChatStore, RoomStore};
pub use serve::{ServeConfig, serve, shutdown_signal};
