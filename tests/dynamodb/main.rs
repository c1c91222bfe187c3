//! End-to-end tests on DynamoDB: the real router over real HTTP, on [`DynamoStore`] against
//! dynalite, a real DynamoDB-compatible server that `./scripts/test` installs, starts on a free
//! loopback port and names in `MADANG_DYNALITE_ENDPOINT`. A missing endpoint fails every test
//! here: they must never pass by not running. Each test has a table of its own, so they run in
//! parallel.
//!
//! - this file: whole games and the 64-client race, with the very drivers the embedded-store
//!   suite (`api`) uses (`madang_tests::games`, `madang_tests::race`);
//! - [`chat`]: table talk on DynamoDB, with the shared chat drivers and the chat's units;
//! - [`sweeper_race`]: the sweeper racing a player, 1,000 times;
//! - [`push_key`]: the Web Push key kept in the table, one for racing cold starts;
//! - [`cost`]: item sizes and consumed units per action over whole games, printed and asserted
//!   (the figures of `docs/cost.md`).

mod chat;
mod cost;
mod exactly_once;
mod push_key;
mod sdk_retry;
mod slow;
mod sweeper_race;

use std::sync::Arc;

use madang_core::Millis;
use madang_infra::emulator::dynalite_store;
use madang_infra::{DynamoStore, RoomStore};
use madang_tests::games::{
    check_a_whole_four_player_team_yut_game, check_a_whole_nine_by_nine_baduk_game,
};
use madang_tests::race::{
    ACTIONS, Waiting, check_racing_clients_never_double_apply_for, long_races,
};
use madang_tests::spawn_app_on;

/// Far after every test run: a due-index query at this time lists every room with a due time.
const LATER: Millis = 4_000_000_000_000;

/// Nothing is left in the due index: every room of the table is over.
async fn assert_nothing_due(store: &DynamoStore) {
    let due = store.due_rooms(LATER, 100).await.unwrap();
    assert!(
        due.is_empty(),
        "finished rooms left in the due index: {due:?}"
    );
}

#[tokio::test]
async fn a_whole_four_player_team_yut_game_is_played_on_dynamodb() {
    let store = Arc::new(dynalite_store("yut-game").await);
    check_a_whole_four_player_team_yut_game(&spawn_app_on(store.clone()).await).await;
    assert_nothing_due(&store).await;
}

#[tokio::test]
async fn a_whole_nine_by_nine_baduk_game_is_played_through_scoring_on_dynamodb() {
    let store = Arc::new(dynalite_store("baduk-game").await);
    check_a_whole_nine_by_nine_baduk_game(&spawn_app_on(store.clone()).await).await;
    assert_nothing_due(&store).await;
}

#[tokio::test]
async fn a_four_seat_yut_game_with_three_bots_is_played_to_its_end_on_dynamodb() {
    let store = Arc::new(dynalite_store("yut-bots").await);
    madang_tests::bots::check_a_four_seat_yut_game_with_three_bots(
        &spawn_app_on(store.clone()).await,
    )
    .await;
}

#[tokio::test]
async fn a_nine_line_baduk_game_against_the_bot_ends_in_an_agreed_score_on_dynamodb() {
    let store = Arc::new(dynalite_store("baduk-bot").await);
    madang_tests::bots::check_a_nine_line_baduk_game_against_the_bot(
        &spawn_app_on(store.clone()).await,
    )
    .await;
    assert_nothing_due(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_racing_clients_never_double_apply_on_dynamodb() {
    let store = Arc::new(dynalite_store("race").await);
    // dynalite serves one request at a time, and the 64 clients make about 100 of them an
    // action: the whole race is the soak's (`madang_tests::race::long_races`).
    let actions = if long_races() { ACTIONS } else { 40 };
    let app = Arc::new(spawn_app_on(store).await);
    check_racing_clients_never_double_apply_for(app, actions, Waiting::LongPoll).await;
}

#[tokio::test]
async fn every_step_of_a_yut_game_replays_as_the_spectator_saw_it_on_dynamodb() {
    let store = Arc::new(dynalite_store("replay-yut").await);
    madang_tests::replay::check_a_yut_game_replays_as_it_was_seen(&spawn_app_on(store).await).await;
}

#[tokio::test]
async fn every_step_of_a_baduk_game_replays_as_the_spectator_saw_it_on_dynamodb() {
    let store = Arc::new(dynalite_store("replay-baduk").await);
    madang_tests::replay::check_a_baduk_game_replays_as_it_was_seen(&spawn_app_on(store).await)
        .await;
}

#[tokio::test]
async fn a_finished_baduk_game_is_reviewed_once_and_kept_on_dynamodb() {
    let store = Arc::new(dynalite_store("review").await);
    madang_tests::review::check_a_finished_game_is_reviewed_once(&spawn_app_on(store).await).await;
}
