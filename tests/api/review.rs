//! The 바둑 review over HTTP on the embedded store (DESIGN "Replay"): the drivers of
//! `tests/review.rs`.

use madang_tests::review::{check_a_finished_game_is_reviewed_once, check_what_has_no_review};
use madang_tests::spawn_app;

#[tokio::test]
async fn a_finished_baduk_game_is_reviewed_once_and_kept() {
    check_a_finished_game_is_reviewed_once(&spawn_app().await).await;
}

#[tokio::test]
async fn a_yut_room_an_unfinished_game_and_an_unknown_room_have_no_review() {
    check_what_has_no_review(&spawn_app().await).await;
}
