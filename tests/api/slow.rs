//! Slow 바둑 on the embedded store: a correspondence game over five simulated weeks, its
//! overdue move fired by the background sweeper with nobody looking, and — on a server with no
//! sweeper — by the catch-up of the first read (`madang_tests::slow`).

use std::sync::Arc;

use madang_tests::slow::{
    check_the_correspondence_options, check_the_slow_game_was_lost_on_time,
    slow_game_until_overdue, wait_for_the_store,
};
use madang_tests::{embedded_store, spawn_app, spawn_app_unswept};

#[tokio::test]
async fn the_correspondence_clock_is_offered_and_a_wrong_days_per_move_is_refused_by_name() {
    check_the_correspondence_options(&spawn_app().await).await;
}

#[tokio::test]
async fn a_slow_game_runs_five_weeks_and_the_sweeper_fires_its_overdue_move() {
    let app = spawn_app().await;
    let game = slow_game_until_overdue(&app).await;
    let store = app.embedded.clone().unwrap();
    let fired = wait_for_the_store(&*store, &game.room, game.version).await;
    assert_eq!(fired, game.version + 1, "one timeout, one version");
    check_the_slow_game_was_lost_on_time(&app, &game).await;
}

#[tokio::test]
async fn a_slow_games_overdue_move_fires_on_the_first_read_without_a_sweeper() {
    let (app, _) = spawn_app_unswept(Arc::new(embedded_store())).await;
    let game = slow_game_until_overdue(&app).await;
    check_the_slow_game_was_lost_on_time(&app, &game).await;
}
