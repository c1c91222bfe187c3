//! 64 clients race to act on one room, each pinning the version it saw. Every version must be
//! accepted exactly once, nothing may be lost, and the final state must equal a replay of the
//! accepted actions through the engine. The driver lives in `madang_tests::race`, shared with
//! the DynamoDB suite.

use std::sync::Arc;

use madang_tests::race::{Waiting, check_racing_clients_never_double_apply};
use madang_tests::spawn_app;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_racing_clients_never_double_apply_and_the_log_replays_exactly() {
    check_racing_clients_never_double_apply(Arc::new(spawn_app().await), Waiting::LongPoll).await;
}
