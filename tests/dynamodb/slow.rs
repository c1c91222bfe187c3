//! Slow 바둑 on DynamoDB (dynalite): the correspondence game of `madang_tests::slow` over five
//! simulated weeks, its overdue move fired by the sweeper through the due index, and the
//! room's TTL attribute kept ahead of its deadline all along.

use std::sync::Arc;

use madang_infra::RoomStore;
use madang_infra::emulator::dynalite_store;
use madang_tests::slow::{
    check_the_slow_game_was_lost_on_time, slow_game_until_overdue, wait_for_the_store,
};
use madang_tests::spawn_app_on;

#[tokio::test]
async fn a_slow_game_runs_five_weeks_on_dynamodb_and_the_sweeper_fires_its_overdue_move() {
    let store = Arc::new(dynalite_store("slow").await);
    let app = spawn_app_on(store.clone()).await;
    let game = slow_game_until_overdue(&app).await;
    let stored = store
        .load(&madang_core::room::RoomId::parse(&game.room).unwrap(), 0)
        .await
        .unwrap();
    // Overdue and not yet fired, or fired already: either way the item outlives its deadline.
    if let Some(due) = stored.due {
        assert!(stored.expires_at > due, "{} ≤ {due}", stored.expires_at);
    }
    let fired = wait_for_the_store(&*store, &game.room, game.version).await;
    assert_eq!(fired, game.version + 1);
    check_the_slow_game_was_lost_on_time(&app, &game).await;
    super::assert_nothing_due(&store).await;
}
