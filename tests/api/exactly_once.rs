//! Every action lands exactly once on the embedded store, with faults injected between the
//! router and the store (no background sweeper where faults are queued: its saves would
//! take them) (`madang_tests::exactly_once` has the checks).

use std::sync::Arc;

use madang_infra::faults::FaultyStore;
use madang_tests::exactly_once::*;
use madang_tests::{embedded_store, spawn_app, spawn_app_unswept};

#[tokio::test]
async fn a_landed_save_whose_answer_was_lost_is_answered_once_and_never_redone() {
    let store = Arc::new(FaultyStore::new(embedded_store()));
    let (app, _) = spawn_app_unswept(store.clone()).await;
    check_a_landed_save_whose_answer_was_lost_is_answered_once(&app, &store).await;
}

#[tokio::test]
async fn failed_loads_and_saves_change_nothing_and_a_keyed_retry_converges() {
    let store = Arc::new(FaultyStore::new(embedded_store()));
    let (app, _) = spawn_app_unswept(store.clone()).await;
    check_failed_loads_and_saves_change_nothing_and_retries_converge(&app, &store).await;
}

#[tokio::test]
async fn a_players_keyed_answers_outlive_other_players_keyed_requests() {
    check_keyed_answers_are_kept_per_player(&spawn_app().await).await;
}

#[tokio::test]
async fn keys_k1_k1_k2_k3_k4_k1_replay_k1_both_times() {
    check_a_players_fourth_key_back_is_still_replayed(&spawn_app().await).await;
}

#[tokio::test]
async fn keyed_twins_pinned_to_one_version_get_an_answer_and_its_replay_never_a_409() {
    check_keyed_twins_pinned_to_one_version_get_one_answer(&spawn_app().await, 30).await;
}

#[tokio::test]
async fn a_lobby_everyone_left_gets_the_next_joiner_as_its_host() {
    check_a_lobby_everyone_left_gets_the_next_joiner_as_host(&spawn_app().await).await;
}

#[tokio::test]
async fn presence_after_a_conflict_keeps_each_players_later_time() {
    let store = Arc::new(FaultyStore::new(embedded_store()));
    let (app, _) = spawn_app_unswept(store.clone()).await;
    check_presence_after_a_conflict_keeps_the_later_time(&app, &store).await;
}
