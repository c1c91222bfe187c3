//! Every end-to-end suite, in one test binary (`cargo test -p madang-tests --test e2e`): one
//! link against the AWS SDK instead of one per suite, and the suites' slow tests (which mostly
//! wait on the emulators and on child processes) overlap instead of queueing.
//!
//! - [`api`]: the HTTP API on the embedded store, through a real server on a loopback port;
//! - [`dynamodb`]: the same drivers on DynamoDB (dynalite), and what only DynamoDB does;
//! - [`lambda`]: the real `api`, `sweeper` and `live` binaries as AWS Lambda runs them, under
//!   the Runtime API emulator of `madang_tests::lambda`;
//! - [`live`]: the live channel over real sockets, against the real `madang` binary.
//!
//! Run one suite with its module path as the filter: `cargo test -p madang-tests --test e2e --
//! lambda::`. The `lambda` and `live` suites run the binaries of this build: build them first
//! (`cargo build -p madang-functions --bins --features dev`; `scripts/test` does). The
//! whole-game cost measurements are `#[ignore]`d here and run by `scripts/cost`. Where a new
//! test goes: `docs/contributing.md`, "Tests".
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

// Each suite is a directory with its root in `main.rs` (`tests/live.rs` is the library's).
#[path = "api/main.rs"]
mod api;
#[path = "dynamodb/main.rs"]
mod dynamodb;
#[path = "lambda/main.rs"]
mod lambda;
#[path = "live/main.rs"]
mod live;

// What every suite's modules reach as `crate::…`: the shared DynamoDB test client and a
// Lambda stack on a fresh table.
pub use lambda::stack;
pub use madang_infra::emulator::{dynalite, dynalite_client, dynalite_store};
