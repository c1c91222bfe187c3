//! The embedded store passes the store contract, and keeps what it answered across a reopen.

use std::sync::Arc;

use madang_infra::contract::{fresh_id, run, sample};
use madang_infra::{EmbeddedStore, RoomStore};

fn temp_db(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("madang-{}", fresh_id(tag)));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("rooms.sqlite3")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_store_keeps_the_room_store_contract() {
    let store = EmbeddedStore::open(&temp_db("contract")).unwrap();
    run(Arc::new(store)).await;
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
