//! The embedded store passes the store contract, and keeps what it answered across a reopen.

use std::sync::Arc;

use madang_core::room::RoomId;
use madang_infra::contract::{fresh_id, run, sample};
use madang_infra::embedded::PURGE_GRAIN_MS;
use madang_infra::{EmbeddedStore, RoomStore};

fn temp_db(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("madang-{}", fresh_id(tag)));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("rooms.sqlite3")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_store_keeps_the_room_store_contract() {
    let store = EmbeddedStore::open(&temp_db("contract")).unwrap();
    run(Arc::new(store), Some(EmbeddedStore::watched_rooms)).await;
}

#[tokio::test]
async fn a_saved_room_survives_reopening_the_file() {
    let path = temp_db("reopen");
    let id = fresh_id("reopen");
    {
        let store = EmbeddedStore::open(&path).unwrap();
        store.create(&sample(&id, 1, None)).await.unwrap();
        store
            .save_if_version(&sample(&id, 2, None), 1)
            .await
            .unwrap();
    }
    let store = EmbeddedStore::open(&path).unwrap();
    assert_eq!(store.load(&id, 0).await.unwrap().version, 2);
}

#[tokio::test]
async fn expired_rooms_are_deleted_with_their_presence() {
    let path = temp_db("purge");
    let store = EmbeddedStore::open(&path).unwrap();
    let gone = fresh_id("purge-gone");
    let kept = fresh_id("purge-kept");
    let mut old = sample(&gone, 1, None);
    old.expires_at = 1_000;
    store.create(&old).await.unwrap();
    let mut young = sample(&kept, 1, None);
    young.expires_at = u64::MAX / 4;
    store.create(&young).await.unwrap();
    // Gone for loads at once; the row goes once its purge grain has passed.
    assert!(store.load(&gone, 2_000).await.is_err());
    assert_eq!(store.purge_expired(2_000).unwrap(), 0);
    let later = PURGE_GRAIN_MS + 1;
    assert_eq!(store.purge_expired(later).unwrap(), 1);
    assert_eq!(store.purge_expired(later).unwrap(), 0);
    // Gone from the file too (the cache alone could hide it): reopen and look.
    drop(store);
    let store = EmbeddedStore::open(&path).unwrap();
    assert!(store.load(&gone, 0).await.is_err());
    assert!(store.load(&kept, 0).await.is_ok());
    assert!(store.touch(&gone, "p1", 3_000).await.is_err());
}

#[tokio::test]
async fn the_room_cache_stays_within_its_bound() {
    let store = EmbeddedStore::open(&temp_db("lru")).unwrap();
    let first = fresh_id("lru-first");
    store.create(&sample(&first, 1, None)).await.unwrap();
    let over = madang_infra::embedded::CACHED_ROOMS + 50;
    let mut zeroth = None;
    for i in 0..over {
        let id = fresh_id("lru");
        store.create(&sample(&id, 1, None)).await.unwrap();
        if i == 0 {
            zeroth = Some(id);
        }
        if i % 1_000 == 0 {
            // Keep the first room in use: least recently used is not least recently created.
            store.load(&first, 0).await.unwrap();
        }
        assert!(store.cached_rooms() <= madang_infra::embedded::CACHED_ROOMS);
    }
    assert_eq!(store.cached_rooms(), madang_infra::embedded::CACHED_ROOMS);
    // Every room still loads (evicted ones from the file), the first one without a miss.
    assert_eq!(
        store
            .load(zeroth.as_ref().unwrap(), 0)
            .await
            .unwrap()
            .version,
        1
    );
    assert_eq!(store.load(&first, 0).await.unwrap().version, 1);
}

/// Every save moves the room's expiry; if that rewrote an index entry as well, each action
/// would write two pages to the WAL instead of one (and the WAL would fill twice as fast).
#[tokio::test]
async fn a_save_writes_one_page() {
    const FRAME: u64 = 4096 + 24;
    const SAVES: u64 = 500;
    let store = EmbeddedStore::open(&temp_db("one-page")).unwrap();
    let id = fresh_id("one-page");
    let mut room = sample(&id, 1, None);
    store.create(&room).await.unwrap();
    let before = store.wal_bytes();
    for version in 2..2 + SAVES {
        room.version = version;
        room.expires_at += 1_000;
        store.save_if_version(&room, version - 1).await.unwrap();
    }
    let frames = (store.wal_bytes() - before) / FRAME;
    assert!(
        frames <= SAVES + SAVES / 10,
        "{SAVES} saves wrote {frames} WAL frames"
    );
}

/// A file from before `purge_after` (its purge indexed the exact expiry) opens, keeps its
/// rooms, and purges them.
#[tokio::test]
async fn a_file_from_before_purge_after_is_migrated() {
    let path = temp_db("migrate");
    let id = fresh_id("migrate");
    {
        let old = rusqlite::Connection::open(&path).unwrap();
        old.execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE rooms (id TEXT PRIMARY KEY, version INTEGER NOT NULL,
                 body BLOB NOT NULL, due INTEGER, expires_at INTEGER NOT NULL) WITHOUT ROWID;
             CREATE INDEX rooms_due ON rooms (due) WHERE due IS NOT NULL;
             CREATE INDEX rooms_expiry ON rooms (expires_at);
             CREATE TABLE presence (room TEXT NOT NULL, player TEXT NOT NULL,
                 seen INTEGER NOT NULL, PRIMARY KEY (room, player)) WITHOUT ROWID;",
        )
        .unwrap();
        old.execute(
            "INSERT INTO rooms VALUES (?1, 3, x'00', NULL, 5000)",
            rusqlite::params![id.as_str()],
        )
        .unwrap();
    }
    let store = EmbeddedStore::open(&path).unwrap();
    assert_eq!(store.load(&id, 4_000).await.unwrap().version, 3);
    assert_eq!(store.purge_expired(5_000).unwrap(), 0);
    assert_eq!(store.purge_expired(PURGE_GRAIN_MS).unwrap(), 1);
    drop(store);
    // Opening a migrated file again is a no-op.
    EmbeddedStore::open(&path).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_store_keeps_the_chat_store_contract() {
    let store = EmbeddedStore::open(&temp_db("chat-contract")).unwrap();
    madang_infra::chat_contract::run(Arc::new(store)).await;
}

#[tokio::test]
async fn chat_goes_with_its_room() {
    use madang_infra::{ChatStore, StoreError, StoredChat};
    let path = temp_db("chat-purge");
    let store = EmbeddedStore::open(&path).unwrap();
    let gone = fresh_id("chat-gone");
    let mut old = sample(&gone, 1, None);
    old.expires_at = 1_000;
    store.create(&old).await.unwrap();
    let record = StoredChat {
        seq: 1,
        body: b"hi".to_vec(),
        expires_at: 1_000,
    };
    store.chat_append(&gone, &record).await.unwrap();
    assert_eq!(
        store.chat_after(&gone, 0, 10).await.unwrap(),
        vec![record.clone()]
    );
    assert_eq!(store.purge_expired(PURGE_GRAIN_MS + 1).unwrap(), 1);
    assert!(store.chat_after(&gone, 0, 10).await.unwrap().is_empty());
    assert_eq!(store.chat_latest(&gone).await.unwrap(), None);
    // No chat for a room that is not there: nothing stray outlives the purge.
    assert!(matches!(
        store.chat_append(&gone, &record).await,
        Err(StoreError::NotFound)
    ));
}

/// Group commit (`embedded/writer.rs`): saves that queue together share a transaction, and still
/// act as they would one after the other — of two saves over one version exactly one lands, the
/// other finds the winner — and every answered save is in the file after a reopen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_committed_together_act_as_one_after_the_other_and_stay() {
    const ROOMS: usize = 200;
    let path = temp_db("group-commit");
    let ids: Vec<RoomId> = (0..ROOMS).map(|_| fresh_id("group")).collect();
    let winners = {
        let store = Arc::new(EmbeddedStore::open(&path).unwrap());
        for id in &ids {
            store.create(&sample(id, 1, None)).await.unwrap();
        }
        // Two rival saves of every room over version 1, all sent at once: the writer takes
        // them in batches of whatever queued.
        let mut racing = Vec::new();
        for id in &ids {
            for rival in ["a", "b"] {
                let store = store.clone();
                let mut room = sample(id, 2, None);
                room.body = format!("{id} by {rival}").into_bytes();
                racing.push(tokio::spawn(async move {
                    let result = store.save_if_version(&room, 1).await;
                    (room, result)
                }));
            }
        }
        let mut winners = std::collections::HashMap::new();
        let mut losers = Vec::new();
        for task in racing {
            match task.await.unwrap() {
                (room, Ok(())) => assert!(
                    winners.insert(room.id.clone(), room.body).is_none(),
                    "two saves over one version both landed"
                ),
                (room, Err(madang_infra::StoreError::VersionConflict { current })) => {
                    losers.push((room.id, current.expect("the conflict carries the room")));
                }
                (_, Err(e)) => panic!("{e}"),
            }
        }
        assert_eq!(winners.len(), ROOMS);
        assert_eq!(losers.len(), ROOMS);
        for (id, current) in losers {
            assert_eq!(current.version, 2);
            assert_eq!(
                current.body, winners[&id],
                "the loser sees the winner's room"
            );
        }
        winners
    };
    // Reopened (the writer thread gone with the store): every answered save is in the file.
    let store = EmbeddedStore::open(&path).unwrap();
    for id in &ids {
        let room = store.load(id, 0).await.unwrap();
        assert_eq!((room.version, &room.body), (2, &winners[id.as_str()]));
    }
}

/// Group commit's failure path: when one statement of a batch fails, the whole batch rolls back
/// — none of its saves lands, in the file or in the cache — and every save in it is answered
/// `Unavailable` (a 503 the client retries), while the batches around it land as usual. The
/// failure is injected from outside: a trigger that aborts the `UPDATE` of the "poison" rooms.
/// The writer is held on the file's write lock while the saves queue, so they meet in a batch.
/// Where the writer's first batch ends is up to the threads, so rounds run until one had both a
/// batch that landed and company in the poisoned batch; every round is checked the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_with_a_failing_save_lands_none_of_its_saves_and_answers_each_unavailable() {
    let path = temp_db("group-commit-fault");
    let store = Arc::new(EmbeddedStore::open(&path).unwrap());
    let outside = rusqlite::Connection::open(&path).unwrap();
    outside
        .execute_batch(
            "CREATE TRIGGER poison BEFORE UPDATE ON rooms WHEN NEW.id LIKE 'poison-%'
             BEGIN SELECT RAISE(ABORT, 'injected fault'); END;",
        )
        .unwrap();
    let mut landed = Vec::new();
    let mut refused = Vec::new();
    let mut mixed = false;
    for _ in 0..20 {
        let (round_landed, round_refused) = poisoned_round(&store, &outside).await;
        mixed |= !round_landed.is_empty() && round_refused.len() > 1;
        landed.extend(round_landed);
        refused.extend(round_refused);
        if mixed {
            break;
        }
    }
    assert!(
        mixed,
        "in 20 rounds, never a batch that landed beside a poisoned batch with company"
    );

    // The writer goes on after a failed batch: a refused save, sent again, lands.
    let retried = refused
        .iter()
        .find(|id| !id.as_str().starts_with("poison-"))
        .unwrap()
        .clone();
    store
        .save_if_version(&sample(&retried, 2, None), 1)
        .await
        .unwrap();
    drop(store);
    let store = EmbeddedStore::open(&path).unwrap();
    for id in &landed {
        assert_eq!(store.load(id, 0).await.unwrap().version, 2, "{id}");
    }
    for id in refused.iter().filter(|id| **id != retried) {
        assert_eq!(store.load(id, 0).await.unwrap().version, 1, "{id}");
    }
    assert_eq!(store.load(&retried, 0).await.unwrap().version, 2);
}

/// One round: 32 fresh rooms and a poisoned one, saved over version 1 while `outside` holds the
/// write lock, the poisoned save queued last. Checks the round's answers against the store and
/// returns the rooms whose save landed and those refused.
async fn poisoned_round(
    store: &Arc<EmbeddedStore>,
    outside: &rusqlite::Connection,
) -> (Vec<RoomId>, Vec<RoomId>) {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Waker};

    type Saving = Pin<Box<dyn Future<Output = Result<(), madang_infra::StoreError>> + Send>>;

    let poison = fresh_id("poison");
    let ids: Vec<RoomId> = (0..32)
        .map(|_| fresh_id("batch"))
        .chain([poison.clone()])
        .collect();
    for id in &ids {
        store.create(&sample(id, 1, None)).await.unwrap();
    }
    // Hold the write lock: the writer's `BEGIN IMMEDIATE` waits (busy timeout 5 s) with
    // whatever batch it took, and every save after that queues for the next batch.
    outside.execute_batch("BEGIN IMMEDIATE").unwrap();
    // Each save queues itself on its first poll (before its first await), so polling each once
    // puts all of them in the writer's queue in this order.
    let mut saving: Vec<(RoomId, Saving)> = Vec::new();
    for id in &ids {
        let store = store.clone();
        let room = sample(id, 2, None);
        saving.push((
            id.clone(),
            Box::pin(async move { store.save_if_version(&room, 1).await }),
        ));
    }
    let mut cx = Context::from_waker(Waker::noop());
    for (_, save) in &mut saving {
        assert!(save.as_mut().poll(&mut cx).is_pending());
    }
    outside.execute_batch("COMMIT").unwrap();

    let mut landed = Vec::new();
    let mut refused = Vec::new();
    for (id, save) in saving {
        match save.await {
            Ok(()) => landed.push(id),
            Err(madang_infra::StoreError::Unavailable(_)) => refused.push(id),
            Err(e) => panic!("{id}: {e}"),
        }
    }
    assert!(refused.contains(&poison), "the poisoned save never lands");
    // What the store serves (its cache) agrees: a refused save changed nothing.
    for (ids, version) in [(&landed, 2), (&refused, 1)] {
        for id in ids {
            assert_eq!(store.load(id, 0).await.unwrap().version, version, "{id}");
        }
    }
    (landed, refused)
}
