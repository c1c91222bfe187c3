//! Table talk over HTTP on the embedded store, with the drivers of `madang_tests::chat` (shared
//! with the DynamoDB suite).

use madang_infra::{ChatStore, RoomStore};
use madang_tests::chat::{
    check_chat_expires_with_its_room_plus_a_grace, check_chat_expires_with_the_room,
    check_chat_never_moves_the_version_under_pinned_actions, check_mutes_go_with_their_members,
    check_no_viewer_receives_a_message_outside_their_rights, check_team_chat_needs_a_team,
    check_the_poll, check_the_refusals, check_the_visibility_matrix,
};
use madang_tests::spawn_app;

#[tokio::test]
async fn each_viewer_sees_exactly_what_their_seat_allows_before_during_and_after_a_team_game() {
    check_the_visibility_matrix(&spawn_app().await).await;
}

#[tokio::test]
async fn team_chat_outside_a_team_game_is_refused() {
    check_team_chat_needs_a_team(&spawn_app().await).await;
}

#[tokio::test]
async fn no_viewer_of_a_random_room_ever_receives_a_message_outside_their_rights() {
    check_no_viewer_receives_a_message_outside_their_rights(&spawn_app().await, 24).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_during_pinned_actions_moves_no_version_and_makes_no_conflict() {
    check_chat_never_moves_the_version_under_pinned_actions(&spawn_app().await).await;
}

#[tokio::test]
async fn every_refusal_is_a_coded_korean_problem_and_changes_nothing() {
    check_the_refusals(&spawn_app().await).await;
}

#[tokio::test]
async fn the_poll_returns_what_is_newer_with_an_etag_and_304() {
    check_the_poll(&spawn_app().await).await;
}

#[tokio::test]
async fn chat_expires_with_its_room_and_is_deleted_with_it() {
    let app = spawn_app().await;
    let room = check_chat_expires_with_the_room(&app).await;
    let store = app.embedded.as_ref().unwrap();
    assert_eq!(
        store
            .chat_after(&madang_core::room::RoomId::parse(&room).unwrap(), 0, 100)
            .await
            .unwrap()
            .len(),
        1
    );
    // The purge (every minute by the system clock) deletes the room and its chat together.
    store.purge_expired(u64::MAX / 4).unwrap();
    assert!(
        store
            .load(&madang_core::room::RoomId::parse(&room).unwrap(), 0)
            .await
            .is_err()
    );
    assert!(
        store
            .chat_after(&madang_core::room::RoomId::parse(&room).unwrap(), 0, 100)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn mutes_go_with_their_members_however_long_a_host_loops() {
    check_mutes_go_with_their_members(&spawn_app().await).await;
}

#[tokio::test]
async fn chat_expires_with_its_room_plus_a_grace_and_its_numbers_only_grow() {
    let app = spawn_app().await;
    let store = app.embedded.clone().unwrap();
    check_chat_expires_with_its_room_plus_a_grace(&app, &*store).await;
}
