//! The DynamoDB store against two real DynamoDB-compatible servers, dynalite and moto, which
//! `./scripts/test` installs, starts on free loopback ports and names in `MADANG_DYNALITE_ENDPOINT`
//! and `MADANG_MOTO_ENDPOINT` (clients from `madang_infra::emulator`). Every check runs against both (they differ in what they implement;
//! see `docs/deploy.md`), each on a table of its own, so the tests run in parallel.

use std::collections::BTreeSet;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use madang_core::Millis;
use madang_core::room::RoomId;
use madang_infra::contract::{fresh_id, sample};
use madang_infra::dynamo::capacity::{CapacityMeter, CapacityReport};
use madang_infra::dynamo::ensure_table;
use madang_infra::dynamo::item::Item;
use madang_infra::emulator;
use madang_infra::{DynamoStore, RoomStore, StoreError, StoredRoom};

/// A time after every test run, so nothing here has expired.
const NOW: Millis = 4_000_000_000_000;

/// A metered store on a new table of its own.
async fn store(var: &str, tag: &str) -> (DynamoStore, Arc<CapacityMeter>) {
    let meter = Arc::new(CapacityMeter::new());
    (
        emulator::store(var, tag).await.with_meter(meter.clone()),
        meter,
    )
}

/// The room's item exactly as stored.
async fn raw(store: &DynamoStore, id: &RoomId) -> Item {
    store
        .client()
        .get_item()
        .table_name(store.table())
        .key("id", AttributeValue::S(id.to_string()))
        .consistent_read(true)
        .send()
        .await
        .expect("get_item")
        .item
        .expect("the item exists")
}

fn n(item: &Item, name: &str) -> Option<u64> {
    item.get(name)
        .map(|v| v.as_n().expect("a number").parse().expect("a u64"))
}

/// What the meter counted since `before`.
fn spent(meter: &CapacityMeter, before: &CapacityReport) -> CapacityReport {
    meter.report().since(before)
}

/// A room as the room layer would save it next: one version on, the given due time, and the
/// index as it was loaded.
fn next(loaded: &StoredRoom, due: Option<Millis>) -> StoredRoom {
    StoredRoom {
        version: loaded.version + 1,
        body: format!("body at {}", loaded.version + 1).into_bytes(),
        due,
        ..loaded.clone()
    }
}

/// Each check, once against dynalite and once against moto.
macro_rules! on_both_emulators {
    ($(#[doc = $doc:literal])* async fn $name:ident($var:ident: &str) $body:block) => {
        mod $name {
            $(#[doc = $doc])*
            async fn check($var: &str) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn dynalite() {
                check(madang_infra::emulator::DYNALITE).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn moto() {
                check(madang_infra::emulator::MOTO).await
            }
        }
    };
}

on_both_emulators! {
    /// The whole store contract, with a meter attached (so every call also asks for consumed
    /// capacity, which the emulators must accept).
    async fn the_dynamo_store_keeps_the_room_store_contract(var: &str) {
        let (store, meter) = super::store(var, "contract").await;
        madang_infra::contract::run(std::sync::Arc::new(store), None).await;
        let report = meter.report();
        assert!(report.reads > 0 && report.writes > 0, "{report:?}");
        assert!(report.read_units > 0.0 && report.write_units > 0.0, "{report:?}");
    }
}

on_both_emulators! {
    /// Short names, TTL in seconds, presence as a map, and the index key only while due.
    async fn the_item_on_the_wire_has_the_documented_layout(var: &str) {
        use super::*;
        let (store, _) = store(var, "layout").await;
        let id = fresh_id("layout");
        let mut room = sample(&id, 1, Some(NOW + 5_000));
        room.expires_at = NOW + 86_400_500;
        store.create(&room).await.unwrap();
        let item = raw(&store, &id).await;
        let names: BTreeSet<_> = item.keys().map(String::as_str).collect();
        assert_eq!(names, BTreeSet::from(["id", "v", "b", "x", "p", "d", "s", "w"]));
        assert_eq!(n(&item, "v"), Some(1));
        assert_eq!(item["b"].as_b().unwrap().as_ref(), room.body.as_slice());
        assert_eq!(n(&item, "x"), Some((NOW + 86_401_000) / 1000), "seconds, rounded up");
        assert_eq!(n(&item, "d"), Some(NOW + 5_000));
        let shard: u64 = item["s"].as_s().unwrap().parse().unwrap();
        assert!(shard < 8);
        assert_eq!(
            item["p"].as_m().unwrap()["p1"],
            AttributeValue::N(NOW.to_string())
        );

        let loaded = store.load(&id, NOW).await.unwrap();
        assert_eq!(loaded.indexed_due, Some(NOW + 5_000));
        assert_eq!(loaded.expires_at, NOW + 86_401_000, "expiry is kept to the second");
        store.save_if_version(&next(&loaded, None), 1).await.unwrap();
        let item = raw(&store, &id).await;
        assert!(!item.contains_key("d") && !item.contains_key("s"), "left the sparse index");
        assert!(item.contains_key("p"), "a save leaves presence alone");
    }
}

on_both_emulators! {
    /// A save whose due time moves later leaves the (earlier) entry alone: no index write.
    async fn a_due_time_moving_later_is_not_reindexed(var: &str) {
        use super::*;
        let (store, meter) = store(var, "later").await;
        let id = fresh_id("later");
        store.create(&sample(&id, 1, Some(NOW + 1_000))).await.unwrap();
        let loaded = store.load(&id, NOW).await.unwrap();
        let before = meter.report();
        store.save_if_version(&next(&loaded, Some(NOW + 9_000)), 1).await.unwrap();
        assert_eq!(spent(&meter, &before).index_write_units, 0);
        assert_eq!(n(&raw(&store, &id).await, "d"), Some(NOW + 1_000));
        // The sweeper comes early: the room is listed at its old, earlier time.
        assert_eq!(store.due_rooms(NOW + 1_000, 10).await.unwrap(), [id]);
    }
}

on_both_emulators! {
    /// A save whose due time comes earlier moves the entry (delete + put: two index writes).
    async fn a_due_time_coming_earlier_is_reindexed(var: &str) {
        use super::*;
        let (store, meter) = store(var, "earlier").await;
        let id = fresh_id("earlier");
        store.create(&sample(&id, 1, Some(NOW + 9_000))).await.unwrap();
        let loaded = store.load(&id, NOW).await.unwrap();
        let before = meter.report();
        store.save_if_version(&next(&loaded, Some(NOW + 1_000)), 1).await.unwrap();
        assert_eq!(spent(&meter, &before).index_write_units, 2);
        assert_eq!(n(&raw(&store, &id).await, "d"), Some(NOW + 1_000));
        assert_eq!(store.due_rooms(NOW + 1_000, 10).await.unwrap(), [id]);
    }
}

on_both_emulators! {
    /// A room that is not indexed gets an entry as soon as it has a due time (one index write),
    /// and loses it when nothing is due any more (one index write).
    async fn a_due_time_appearing_indexes_and_vanishing_unindexes(var: &str) {
        use super::*;
        let (store, meter) = store(var, "appear").await;
        let id = fresh_id("appear");
        store.create(&sample(&id, 1, None)).await.unwrap();
        let before = meter.report();
        let loaded = store.load(&id, NOW).await.unwrap();
        store.save_if_version(&next(&loaded, Some(NOW + 3_000)), 1).await.unwrap();
        assert_eq!(spent(&meter, &before).index_write_units, 1);
        assert_eq!(store.due_rooms(NOW + 3_000, 10).await.unwrap(), vec![id.clone()]);

        let before = meter.report();
        let loaded = store.load(&id, NOW).await.unwrap();
        store.save_if_version(&next(&loaded, None), 2).await.unwrap();
        assert_eq!(spent(&meter, &before).index_write_units, 1);
        assert!(store.due_rooms(u64::MAX / 2, 10).await.unwrap().is_empty());
        assert!(!raw(&store, &id).await.contains_key("d"));
    }
}

on_both_emulators! {
    /// What the sweeper does after visiting too early: `reindex` to the exact time moves the
    /// entry later without a new version, and the room is listed again only when really due.
    async fn the_sweepers_reindex_moves_an_early_entry_to_the_exact_time(var: &str) {
        use super::*;
        let (store, meter) = store(var, "sweep").await;
        let id = fresh_id("sweep");
        store.create(&sample(&id, 1, Some(NOW + 1_000))).await.unwrap();
        let loaded = store.load(&id, NOW).await.unwrap();
        store.save_if_version(&next(&loaded, Some(NOW + 60_000)), 1).await.unwrap();

        assert_eq!(store.due_rooms(NOW + 1_000, 10).await.unwrap(), vec![id.clone()]);
        let visited = store.load(&id, NOW + 1_000).await.unwrap();
        let before = meter.report();
        store.reindex(&id, visited.version, Some(NOW + 60_000)).await.unwrap();
        assert_eq!(spent(&meter, &before).index_write_units, 2);
        // Again to the same time: the entry does not move, and costs no index write.
        let before = meter.report();
        store.reindex(&id, visited.version, Some(NOW + 60_000)).await.unwrap();
        assert_eq!(spent(&meter, &before).index_write_units, 0);

        assert!(store.due_rooms(NOW + 59_999, 10).await.unwrap().is_empty());
        assert_eq!(store.due_rooms(NOW + 60_000, 10).await.unwrap(), vec![id.clone()]);
        let after = store.load(&id, NOW).await.unwrap();
        assert_eq!((after.version, after.indexed_due), (2, Some(NOW + 60_000)));
    }
}

on_both_emulators! {
    /// A reindex landing between a load and a save may have moved the entry later than the
    /// save's new due time; the save must then move it back rather than let the sweeper miss
    /// the room.
    async fn a_save_after_a_racing_reindex_never_leaves_the_entry_late(var: &str) {
        use super::*;
        let (store, _) = store(var, "race").await;
        let id = fresh_id("race");
        store.create(&sample(&id, 1, Some(NOW + 1_000))).await.unwrap();
        let loaded = store.load(&id, NOW).await.unwrap();
        store.reindex(&id, 1, Some(NOW + 50_000)).await.unwrap();
        // Planned against the loaded entry (NOW + 1000, earlier): would have been left alone.
        store.save_if_version(&next(&loaded, Some(NOW + 20_000)), 1).await.unwrap();
        let item = raw(&store, &id).await;
        assert_eq!((n(&item, "v"), n(&item, "d")), (Some(2), Some(NOW + 20_000)));
        assert_eq!(store.due_rooms(NOW + 20_000, 10).await.unwrap(), [id]);
    }
}

on_both_emulators! {
    /// A conflict carries the room as it now is. moto returns it with the failed write
    /// (`ALL_OLD`), so no read is spent; dynalite ignores `ALL_OLD`, so the store reads it.
    async fn a_conflict_carries_the_current_room(var: &str) {
        use super::*;
        let (store, meter) = store(var, "conflict").await;
        let id = fresh_id("conflict");
        store.create(&sample(&id, 1, None)).await.unwrap();
        let loaded = store.load(&id, NOW).await.unwrap();
        store.save_if_version(&next(&loaded, None), 1).await.unwrap();
        let before = meter.report();
        let stale = store.save_if_version(&next(&loaded, Some(NOW)), 1).await;
        let Err(StoreError::VersionConflict { current: Some(current) }) = stale else {
            panic!("expected a conflict with the current room: {stale:?}");
        };
        assert_eq!((current.version, current.body.as_slice()), (2, &b"body at 2"[..]));
        assert_eq!(current.presence, loaded.presence);
        let spent = spent(&meter, &before);
        assert_eq!(spent.conditional_failures, 1);
        let expected_reads = if var.contains("MOTO") { 0 } else { 1 };
        assert_eq!(spent.reads, expected_reads, "{var}: {spent:?}");
    }
}

on_both_emulators! {
    /// Writes to a room that does not exist are refused, and create no stray item.
    async fn writes_to_a_missing_room_are_not_found(var: &str) {
        use super::*;
        let (store, _) = store(var, "missing").await;
        let id = fresh_id("missing");
        let save = store.save_if_version(&sample(&id, 2, Some(NOW)), 1).await;
        assert!(matches!(save, Err(StoreError::NotFound)), "{save:?}");
        let touch = store.touch(&id, "p1", NOW).await;
        assert!(matches!(touch, Err(StoreError::NotFound)), "{touch:?}");
        let reindex = store.reindex(&id, 1, Some(NOW)).await;
        assert!(matches!(reindex, Err(StoreError::VersionConflict { .. })), "{reindex:?}");
        let wait = store.wait_for_change(&id, 0, std::time::Duration::ZERO).await;
        assert!(matches!(wait, Err(StoreError::NotFound)), "{wait:?}");
        assert!(matches!(store.load(&id, NOW).await, Err(StoreError::NotFound)));
    }
}

on_both_emulators! {
    /// Player ids are map keys behind a name placeholder, so any characters work.
    async fn presence_takes_player_ids_with_any_characters(var: &str) {
        use super::*;
        let (store, _) = store(var, "presence").await;
        let id = fresh_id("presence");
        store.create(&sample(&id, 1, None)).await.unwrap();
        for player in ["a.b", "x[0]", "#p", ":v", "플레이어"] {
            store.touch(&id, player, NOW + 1).await.unwrap();
        }
        let presence = store.load(&id, NOW).await.unwrap().presence;
        assert_eq!(presence.len(), 6, "{presence:?}");
        assert_eq!(presence.get("x[0]"), Some(&(NOW + 1)));
    }
}

on_both_emulators! {
    /// The sweep is bounded: at most `limit` ids across all shards, the earliest ones.
    async fn due_rooms_merges_the_shards_earliest_first(var: &str) {
        use super::*;
        let (store, _) = store(var, "shards").await;
        let mut rooms = Vec::new();
        for i in 0..24_u64 {
            let id = fresh_id(&format!("shard{i}"));
            // Due times in an order unrelated to the creation order.
            let due = NOW + (i * 7) % 24;
            store.create(&sample(&id, 1, Some(due))).await.unwrap();
            rooms.push((due, id));
        }
        rooms.sort();
        let all: Vec<_> = rooms.iter().map(|(_, id)| id.clone()).collect();
        assert_eq!(store.due_rooms(NOW + 100, 1_000).await.unwrap(), all);
        assert_eq!(store.due_rooms(NOW + 100, 5).await.unwrap(), all[..5]);
        assert_eq!(store.due_rooms(NOW + 9, 1_000).await.unwrap(), all[..10]);
        assert!(store.due_rooms(NOW + 100, 0).await.unwrap().is_empty());
    }
}

on_both_emulators! {
    /// Running `ensure_table` on a table that exists changes nothing and succeeds.
    async fn ensure_table_is_idempotent(var: &str) {
        use super::*;
        let (store, _) = store(var, "ensure").await;
        ensure_table(store.client(), store.table()).await.unwrap();
        let id = fresh_id("ensure");
        store.create(&sample(&id, 1, None)).await.unwrap();
        ensure_table(store.client(), store.table()).await.unwrap();
        assert_eq!(store.load(&id, NOW).await.unwrap().version, 1);
    }
}

on_both_emulators! {
    /// A write whose answer was lost (a timeout after DynamoDB applied it) is retried by the SDK
    /// and then fails its own condition. The store must recognise its own write and succeed:
    /// a conflict would make the caller reload and apply the action a second time.
    async fn a_retried_write_that_already_landed_succeeds(var: &str) {
        use super::*;
        let (store, _) = store(var, "retry").await;
        let id = fresh_id("retry");
        let room = sample(&id, 1, Some(NOW + 1_000));
        // The SDK resends the very same request (same stamp) when an answer is lost.
        store.create_stamped(&room, 11).await.unwrap();
        store.create_stamped(&room, 11).await.expect("the same create again is its own write");
        // Another create of an identical room is someone else's: the id is taken.
        assert!(matches!(store.create(&room).await, Err(StoreError::AlreadyExists)));

        let loaded = store.load(&id, NOW).await.unwrap();
        let saved = next(&loaded, Some(NOW + 5_000));
        store.save_stamped(&saved, 1, 12).await.unwrap();
        store.save_stamped(&saved, 1, 12).await.expect("the same save again is its own write");
        // A rival acting on the same version may compute a byte-identical room (the game's
        // generator is deterministic): it must still get its conflict, or two clients would
        // both be told their action landed.
        let identical = store.save_if_version(&saved, 1).await;
        assert!(matches!(identical, Err(StoreError::VersionConflict { .. })), "{identical:?}");
        let mut rival = saved.clone();
        rival.body = b"a rival's room".to_vec();
        let conflict = store.save_if_version(&rival, 1).await;
        assert!(matches!(conflict, Err(StoreError::VersionConflict { .. })), "{conflict:?}");
        assert_eq!(store.load(&id, NOW).await.unwrap().body, saved.body);
    }
}

on_both_emulators! {
    /// The lazy index over a whole game, with time simulated: 60 actions 5 s apart, each pushing
    /// the room's next timeout to 60 s after it, and a sweeper every minute that reindexes a
    /// room it visits too early to the exact time. The index moves once per sweep interval, not
    /// once per action: 1 (create) + 5 × 2 (reindexes, at minutes 1 to 5) + 1 (game over) = 12
    /// index write units, 0.2 per action, where moving the entry on every save would cost 2.
    ///
    /// In general: units per action ≈ 2 / (actions per sweep visit), plus 2 per game for the
    /// entry's creation and removal; slower games (fewer actions a minute) cost more per action.
    async fn a_whole_game_moves_the_lazy_index_once_a_minute_not_once_an_action(var: &str) {
        use super::*;
        const TURN: Millis = 5_000;
        const DEADLINE: Millis = 60_000;
        const SWEEP: Millis = 60_000;
        let (store, meter) = store(var, "game").await;
        let id = fresh_id("game");
        let start = NOW;
        let before = meter.report();
        store.create(&sample(&id, 1, Some(start + DEADLINE))).await.unwrap();
        let mut exact_due = start + DEADLINE;
        let mut next_sweep = start + SWEEP;
        let actions = 60;
        for action in 1..=actions {
            let now = start + action * TURN;
            // The sweeper's ticks up to now: it lists the room whenever its entry has come,
            // finds nothing to fire (every action came before its timeout) and reindexes.
            while next_sweep <= now {
                for due_id in store.due_rooms(next_sweep, 100).await.unwrap() {
                    let visited = store.load(&due_id, next_sweep).await.unwrap();
                    assert!(exact_due > next_sweep, "the simulated game never times out");
                    store.reindex(&due_id, visited.version, Some(exact_due)).await.unwrap();
                }
                next_sweep += SWEEP;
            }
            let loaded = store.load(&id, now).await.unwrap();
            let last = action == actions;
            exact_due = now + DEADLINE;
            let due = if last { None } else { Some(exact_due) };
            store.save_if_version(&next(&loaded, due), loaded.version).await.unwrap();
        }
        let spent = spent(&meter, &before);
        assert_eq!(spent.index_write_units, 1 + 5 * 2 + 1, "{spent:?}");
        assert!(spent.index_write_units as f64 / actions as f64 <= 0.2);
        assert!(store.due_rooms(u64::MAX / 2, 10).await.unwrap().is_empty());
    }
}

on_both_emulators! {
    /// The whole chat contract, on the chat table `ensure_table` creates beside the rooms table.
    async fn the_dynamo_store_keeps_the_chat_store_contract(var: &str) {
        let (store, meter) = super::store(var, "chat-contract").await;
        madang_infra::chat_contract::run(std::sync::Arc::new(store)).await;
        let report = meter.report();
        assert!(report.reads > 0 && report.writes > 0, "{report:?}");
    }
}

on_both_emulators! {
    /// A chat record is one item of the chat table — room, number, bytes, and the TTL in seconds
    /// of the expiry it was given — and the rooms table gains nothing.
    async fn a_chat_record_is_one_item_with_its_ttl(var: &str) {
        use super::*;
        use madang_infra::{ChatStore, StoredChat};
        let (store, _) = store(var, "chat-layout").await;
        let id = fresh_id("chat-layout");
        store.create(&sample(&id, 1, None)).await.unwrap();
        let before = raw(&store, &id).await;
        let record = StoredChat { seq: 1, body: b"hello".to_vec(), expires_at: NOW + 1_500 };
        store.chat_append(&id, &record).await.unwrap();
        let item = store
            .client()
            .get_item()
            .table_name(store.chat_table())
            .key("r", AttributeValue::S(id.to_string()))
            .key("q", AttributeValue::N("1".into()))
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .item
            .expect("the chat item exists");
        let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
        names.sort_unstable();
        // The body, the keys, the expiry, and the write stamp by which a resent append
        // recognises its own record.
        assert_eq!(names, ["b", "q", "r", "w", "x"]);
        assert_eq!(n(&item, "x"), Some((NOW + 1_500).div_ceil(1000)));
        assert!(n(&item, "w").is_some(), "a numeric write stamp");
        assert_eq!(item["b"].as_b().unwrap().as_ref(), b"hello");
        assert_eq!(raw(&store, &id).await, before, "the room's item is untouched");
    }
}
