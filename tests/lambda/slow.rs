//! Slow 바둑 through the real `api` and `sweeper` binaries under the Lambda emulator: the
//! correspondence game of `madang_tests::slow` over five simulated weeks (every environment
//! reads the dev clock from the table), its overdue move fired by one scheduled run of the
//! sweeper with nobody looking.

use madang_infra::RoomStore;
use madang_tests::lambda::StackConfig;
use madang_tests::slow::{check_the_slow_game_was_lost_on_time, slow_game_until_overdue};

use crate::stack;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_game_runs_five_weeks_through_lambda_and_the_sweeper_fires_its_overdue_move() {
    let stack = stack("l-slow", StackConfig::default()).await;
    let game = slow_game_until_overdue(&stack.app).await;
    let report = stack.sweep().await;
    assert_eq!(report["timeoutsFired"], 1, "{report}");
    let stored = stack
        .store
        .load(&madang_core::room::RoomId::parse(&game.room).unwrap(), 0)
        .await
        .unwrap();
    assert_eq!(stored.version, game.version + 1);
    check_the_slow_game_was_lost_on_time(&stack.app, &game).await;
}
