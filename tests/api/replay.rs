//! Replay over HTTP on the embedded store (DESIGN "Replay"): the drivers of `tests/replay.rs`.

use madang_tests::replay::{
    check_a_baduk_game_replays_as_it_was_seen, check_a_yut_game_replays_as_it_was_seen,
};
use madang_tests::spawn_app;

#[tokio::test]
async fn every_step_of_a_yut_game_replays_as_the_spectator_saw_it() {
    check_a_yut_game_replays_as_it_was_seen(&spawn_app().await).await;
}

#[tokio::test]
async fn every_step_of_a_baduk_game_replays_as_the_spectator_saw_it() {
    check_a_baduk_game_replays_as_it_was_seen(&spawn_app().await).await;
}
