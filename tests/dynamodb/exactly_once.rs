//! Every action lands exactly once on DynamoDB (dynalite), with faults injected between the
//! router and the store (no background sweeper where faults are queued: its saves would
//! take them), and the idempotency cases over real HTTP.

use std::sync::Arc;

use madang_infra::faults::FaultyStore;
use madang_tests::exactly_once::*;
use madang_tests::{spawn_app_on, spawn_app_unswept};

use madang_infra::emulator::dynalite_store;

#[tokio::test]
async fn a_landed_save_whose_answer_was_lost_is_answered_once_on_dynamodb() {
    let store = Arc::new(FaultyStore::new(dynalite_store("lost-answer").await));
    let (app, _) = spawn_app_unswept(store.clone()).await;
    check_a_landed_save_whose_answer_was_lost_is_answered_once(&app, &store).await;
}

#[tokio::test]
async fn failed_loads_and_saves_change_nothing_on_dynamodb() {
    let store = Arc::new(FaultyStore::new(dynalite_store("faults").await));
    let (app, _) = spawn_app_unswept(store.clone()).await;
    check_failed_loads_and_saves_change_nothing_and_retries_converge(&app, &store).await;
}

#[tokio::test]
async fn keyed_answers_twins_and_lobby_hosts_hold_on_dynamodb() {
    let store = Arc::new(dynalite_store("idempotency").await);
    check_every_idempotency_case(&spawn_app_on(store).await).await;
}

#[tokio::test]
async fn presence_after_a_conflict_keeps_each_players_later_time_on_dynamodb() {
    let store = Arc::new(FaultyStore::new(dynalite_store("presence").await));
    let (app, _) = spawn_app_unswept(store.clone()).await;
    check_presence_after_a_conflict_keeps_the_later_time(&app, &store).await;
}
