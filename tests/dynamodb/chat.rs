//! Table talk on DynamoDB (dynalite): the drivers of `madang_tests::chat`, shared with the
//! embedded suite, each on a table of its own.

use std::sync::Arc;

use madang_tests::chat::{
    check_chat_expires_with_the_room, check_chat_never_moves_the_version_under_pinned_actions,
    check_no_viewer_receives_a_message_outside_their_rights, check_team_chat_needs_a_team,
    check_the_poll, check_the_refusals, check_the_visibility_matrix,
};
use madang_tests::{TestApp, spawn_app_on};

use super::dynalite_store;

async fn app(tag: &str) -> TestApp {
    spawn_app_on(Arc::new(dynalite_store(tag).await)).await
}

#[tokio::test]
async fn each_viewer_sees_exactly_what_their_seat_allows_on_dynamodb() {
    check_the_visibility_matrix(&app("chat-matrix").await).await;
}

#[tokio::test]
async fn team_chat_outside_a_team_game_is_refused_on_dynamodb() {
    check_team_chat_needs_a_team(&app("chat-team").await).await;
}

#[tokio::test]
async fn no_viewer_of_a_random_room_receives_a_message_outside_their_rights_on_dynamodb() {
    check_no_viewer_receives_a_message_outside_their_rights(&app("chat-random").await, 8).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_during_pinned_actions_moves_no_version_on_dynamodb() {
    check_chat_never_moves_the_version_under_pinned_actions(&app("chat-race").await).await;
}

#[tokio::test]
async fn every_refusal_changes_nothing_on_dynamodb() {
    check_the_refusals(&app("chat-refusals").await).await;
}

#[tokio::test]
async fn the_poll_has_an_etag_and_304_on_dynamodb() {
    check_the_poll(&app("chat-poll").await).await;
}

#[tokio::test]
async fn chat_expires_with_its_room_on_dynamodb() {
    check_chat_expires_with_the_room(&app("chat-expiry").await).await;
}
