//! The contract every [`ChatStore`] must keep, as a test suite any adapter runs against a real
//! instance: `madang_infra::chat_contract::run(Arc::new(store)).await`.
//!
//! Each check uses fresh room ids, so the suite can share a database with other tests.

// A test suite: failing loudly is its job.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use madang_core::Millis;
use madang_core::room::RoomId;

use crate::chat::{ChatStore, KEPT_RECORDS, StoredChat};
use crate::contract::{fresh_id, sample};
use crate::store::{RoomStore, StoreError};

/// A time in the future of every test run, so nothing the suite creates has expired.
const NOW: Millis = 4_000_000_000_000;
const EXPIRES: Millis = NOW + 86_400_000;

fn record(seq: u64) -> StoredChat {
    StoredChat {
        seq,
        body: format!("record {seq}").into_bytes(),
        // Whole seconds, as DynamoDB keeps them: every store returns it as written.
        expires_at: EXPIRES + seq * 1_000,
    }
}

/// A room (the embedded store keeps chat only for rooms that exist) with no chat yet.
async fn room<S: RoomStore>(store: &S, tag: &str) -> RoomId {
    let id = fresh_id(tag);
    store.create(&sample(&id, 1, None)).await.expect("create");
    id
}

/// Runs every check; panics with the name of the first one that fails.
pub async fn run<S: RoomStore + ChatStore>(store: Arc<S>) {
    a_room_without_chat_has_no_records(&*store).await;
    records_come_back_in_order_after_a_number(&*store).await;
    an_append_on_a_taken_number_is_a_conflict_and_changes_nothing(&*store).await;
    racing_appends_on_one_number_have_exactly_one_winner(store.clone()).await;
    only_the_newest_records_are_kept(&*store).await;
    chat_never_changes_the_room(&*store).await;
    every_record_comes_back_with_the_expiry_it_was_written_with(&*store).await;
    a_read_after_an_append_returned_sees_it(store.clone()).await;
}

/// What the live channel relies on when a post wakes a socket: once `chat_append` returned, any
/// read — on any connection the store reads with, while other appends go on — has the record.
/// Two rooms append at once; after each append its room's reader (another task) reads past the
/// last record it saw and must find the new one.
async fn a_read_after_an_append_returned_sees_it<S: RoomStore + ChatStore>(store: Arc<S>) {
    let mut rooms = tokio::task::JoinSet::new();
    for r in 0..2 {
        let store = store.clone();
        rooms.spawn(async move {
            let id = room(&*store, &format!("chat-read-{r}")).await;
            let (appended, mut woken) = tokio::sync::watch::channel(0u64);
            let reader = {
                let (store, id) = (store.clone(), id.clone());
                tokio::spawn(async move {
                    let mut read = 0;
                    while woken.changed().await.is_ok() {
                        let wanted = *woken.borrow_and_update();
                        let newest = store
                            .chat_after(&id, read, 100)
                            .await
                            .unwrap()
                            .last()
                            .map_or(read, |r| r.seq);
                        assert!(
                            newest >= wanted,
                            "a_read_after_an_append_returned_sees_it: read {newest}, appended {wanted}"
                        );
                        read = newest;
                    }
                })
            };
            for seq in 1..=150 {
                store.chat_append(&id, &record(seq)).await.unwrap();
                appended.send_replace(seq);
            }
            drop(appended);
            reader.await.unwrap();
        });
    }
    while let Some(done) = rooms.join_next().await {
        done.unwrap();
    }
}

async fn every_record_comes_back_with_the_expiry_it_was_written_with<S: RoomStore + ChatStore>(
    store: &S,
) {
    let id = room(store, "chat-expiry").await;
    // Expiries as the service writes them: never less than the record before.
    let records: Vec<StoredChat> = [EXPIRES, EXPIRES, EXPIRES + 3_600_000]
        .into_iter()
        .enumerate()
        .map(|(i, expires_at)| StoredChat {
            seq: i as u64 + 1,
            body: vec![i as u8],
            expires_at,
        })
        .collect();
    for record in &records {
        store.chat_append(&id, record).await.unwrap();
    }
    let name = "every_record_comes_back_with_the_expiry_it_was_written_with";
    assert_eq!(
        store.chat_after(&id, 0, 100).await.unwrap(),
        records,
        "{name}"
    );
    assert_eq!(
        store.chat_latest(&id).await.unwrap().map(|r| r.expires_at),
        Some(EXPIRES + 3_600_000),
        "{name}"
    );
}

async fn a_room_without_chat_has_no_records<S: RoomStore + ChatStore>(store: &S) {
    let id = room(store, "chat-empty").await;
    assert_eq!(
        store.chat_latest(&id).await.unwrap(),
        None,
        "a_room_without_chat_has_no_records"
    );
    assert!(store.chat_after(&id, 0, 100).await.unwrap().is_empty());
}

async fn records_come_back_in_order_after_a_number<S: RoomStore + ChatStore>(store: &S) {
    let id = room(store, "chat-order").await;
    for seq in 1..=3 {
        store.chat_append(&id, &record(seq)).await.unwrap();
    }
    let name = "records_come_back_in_order_after_a_number";
    assert_eq!(
        store.chat_latest(&id).await.unwrap(),
        Some(record(3)),
        "{name}"
    );
    assert_eq!(
        store.chat_after(&id, 0, 100).await.unwrap(),
        vec![record(1), record(2), record(3)],
        "{name}"
    );
    assert_eq!(
        store.chat_after(&id, 1, 100).await.unwrap(),
        vec![record(2), record(3)],
        "{name}"
    );
    // A limit keeps the newest.
    assert_eq!(
        store.chat_after(&id, 0, 2).await.unwrap(),
        vec![record(2), record(3)],
        "{name}"
    );
    assert!(
        store.chat_after(&id, 3, 100).await.unwrap().is_empty(),
        "{name}"
    );
}

async fn an_append_on_a_taken_number_is_a_conflict_and_changes_nothing<S: RoomStore + ChatStore>(
    store: &S,
) {
    let id = room(store, "chat-taken").await;
    store.chat_append(&id, &record(1)).await.unwrap();
    let other = StoredChat {
        seq: 1,
        body: b"someone else".to_vec(),
        expires_at: EXPIRES + 9_000,
    };
    let refused = store.chat_append(&id, &other).await;
    assert!(
        matches!(refused, Err(StoreError::VersionConflict { .. })),
        "an_append_on_a_taken_number_is_a_conflict_and_changes_nothing: {refused:?}"
    );
    assert_eq!(
        store.chat_after(&id, 0, 100).await.unwrap(),
        vec![record(1)]
    );
}

async fn racing_appends_on_one_number_have_exactly_one_winner<S: RoomStore + ChatStore>(
    store: Arc<S>,
) {
    let id = room(&*store, "chat-race").await;
    let mut tasks = tokio::task::JoinSet::new();
    for writer in 0..8u8 {
        let (store, id) = (store.clone(), id.clone());
        tasks.spawn(async move {
            let mine = StoredChat {
                seq: 1,
                body: vec![writer],
                expires_at: EXPIRES,
            };
            store.chat_append(&id, &mine).await.map(|()| writer)
        });
    }
    let mut winners = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined.unwrap() {
            Ok(writer) => winners.push(writer),
            Err(StoreError::VersionConflict { .. }) => {}
            Err(e) => panic!("racing_appends_on_one_number_have_exactly_one_winner: {e}"),
        }
    }
    assert_eq!(
        winners.len(),
        1,
        "racing_appends_on_one_number_have_exactly_one_winner"
    );
    let stored = store.chat_after(&id, 0, 100).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].body, vec![winners[0]]);
}

async fn only_the_newest_records_are_kept<S: RoomStore + ChatStore>(store: &S) {
    let id = room(store, "chat-kept").await;
    let total = KEPT_RECORDS + 5;
    for seq in 1..=total {
        store.chat_append(&id, &record(seq)).await.unwrap();
    }
    // Ask for more than are kept, from the very start: only the newest KEPT_RECORDS exist.
    let kept = store.chat_after(&id, 0, 1_000).await.unwrap();
    let seqs: Vec<u64> = kept.iter().map(|r| r.seq).collect();
    let expected: Vec<u64> = (total - KEPT_RECORDS + 1..=total).collect();
    assert_eq!(seqs, expected, "only_the_newest_records_are_kept");
    assert_eq!(store.chat_latest(&id).await.unwrap(), Some(record(total)));
}

async fn chat_never_changes_the_room<S: RoomStore + ChatStore>(store: &S) {
    let id = room(store, "chat-room").await;
    let before = store.load(&id, NOW).await.unwrap();
    store.chat_append(&id, &record(1)).await.unwrap();
    store.chat_append(&id, &record(2)).await.unwrap();
    let after = store.load(&id, NOW).await.unwrap();
    assert_eq!(
        (after.version, &after.body, after.due, after.expires_at),
        (before.version, &before.body, before.due, before.expires_at),
        "chat_never_changes_the_room"
    );
    // And a save on the version loaded before the chat still lands: no conflict from chat.
    store
        .save_if_version(&sample(&id, 2, None), before.version)
        .await
        .expect("chat_never_changes_the_room: the save on the loaded version lands");
}
