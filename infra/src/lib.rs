//! Madang infra: where rooms live between requests.
//!
//! - [`store`]: the [`RoomStore`] contract (conditional save on the version, due-room index,
//!   long-poll wait, presence) and [`StoreError`].
//! - [`dynamo`]: the DynamoDB store for production: one item per room, conditional writes, a
//!   lazy sparse due index, and table creation for emulators and tests.
//! - [`embedded`]: the single-file SQLite store the local server uses by default.
//! - [`chat`]: the [`ChatStore`] contract: a room's chat log, kept apart from the room record.
//! - `chat_contract` (feature `contract`): the test suite every `ChatStore` adapter must pass.
//! - [`live_registry`]: who watches a room live on AWS (API Gateway WebSocket connections),
//!   kept in the rooms table.
//! - [`notify`]: in-process change notification, so long-polls wake the moment a room changes.
//! - `contract` (feature `contract`): the test suite every `RoomStore` adapter must pass.
//! - `emulator` (feature `contract`): clients and stores on the DynamoDB emulators the tests
//!   run against (dynalite, moto).
//! - `faults` (feature `contract`): a store wrapper that loses answers and fails calls on
//!   purpose, for the exactly-once tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod chat;
#[cfg(feature = "contract")]
pub mod chat_contract;
#[cfg(feature = "contract")]
pub mod contract;
pub mod dynamo;
pub mod embedded;
#[cfg(feature = "contract")]
pub mod emulator;
#[cfg(feature = "contract")]
pub mod faults;
pub mod live_registry;
pub mod notify;
pub mod store;

pub use chat::{ChatStore, StoredChat};
pub use dynamo::DynamoStore;
pub use embedded::EmbeddedStore;
pub use store::{BoxError, KeptReview, REVIEW_CLAIM_STALE_MS, RoomStore, StoreError, StoredRoom};
