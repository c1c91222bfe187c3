//! The contract every [`RoomStore`] must keep, as a test suite any adapter runs against a real
//! instance: `madang_infra::contract::run(Arc::new(store)).await`.
//!
//! Each check uses fresh room ids, so the suite can share a database with other tests.

// A test suite: failing loudly is its job.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use madang_core::Millis;
use madang_core::room::RoomId;

use crate::store::{KeptReview, REVIEW_CLAIM_STALE_MS, RoomStore, StoreError, StoredRoom};

/// A time in the future of every test run, so nothing the suite creates has expired.
const NOW: Millis = 4_000_000_000_000;

/// A room id no other run uses.
pub fn fresh_id(tag: &str) -> RoomId {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // A room id's shape (22 characters): the tag's first 6 and a `-` (for reading a table by
    // eye, and for tests that pick rooms out by it), the clock and a counter.
    let tag: String = tag
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .chain(std::iter::repeat('_'))
        .take(6)
        .collect();
    let text = format!(
        "{tag}-{:011x}{:04x}",
        nanos & 0x0fff_ffff_ffff,
        N.fetch_add(1, Ordering::Relaxed) & 0xffff
    );
    RoomId::parse(&text).expect("a room id's shape")
}

/// A fresh id in the shape the HTTP edge accepts for a room (22 URL-safe base64 characters), for
/// fixtures stored directly and then reached over HTTP.
pub fn fresh_room_id() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    format!(
        "fx{:016x}{:04x}",
        nanos,
        N.fetch_add(1, Ordering::Relaxed) & 0xffff
    )
}

/// A room record for the checks.
pub fn sample(id: &RoomId, version: u64, due: Option<Millis>) -> StoredRoom {
    StoredRoom {
        id: id.to_string(),
        version,
        body: format!("body of {id} at {version}").into_bytes(),
        due,
        expires_at: NOW + 86_400_000,
        presence: BTreeMap::from([("p1".to_owned(), NOW)]),
        departed: Vec::new(),
        seen: None,
        indexed_due: None,
        plan: None,
    }
}

/// Runs every check; panics with the name of the first one that fails. `waiting` counts the
/// rooms the store's in-process long-polls wait on (the embedded store's
/// [`crate::EmbeddedStore::watched_rooms`]), so a check can save only once a waiter is proven
/// parked; `None` for a store whose long-poll polls (DynamoDB).
pub async fn run<S: RoomStore>(store: Arc<S>, waiting: Option<fn(&S) -> usize>) {
    create_then_load_returns_the_room(&*store).await;
    a_second_create_with_the_same_id_fails(&*store).await;
    loading_an_unknown_room_is_not_found(&*store).await;
    an_expired_room_reads_as_gone(&*store).await;
    a_save_on_the_loaded_version_lands(&*store).await;
    a_stale_save_is_a_version_conflict_and_changes_nothing(&*store).await;
    racing_saves_on_one_version_have_exactly_one_winner(store.clone()).await;
    due_rooms_lists_only_overdue_rooms_earliest_first(&*store).await;
    a_room_is_listed_by_its_due_time_however_it_moves(&*store).await;
    reindex_moves_the_due_time_without_a_new_version(&*store).await;
    a_plan_is_kept_for_its_version_until_the_next_save(&*store).await;
    racing_plan_and_save_leave_no_stale_plan(store.clone()).await;
    touch_records_presence_without_a_new_version(&*store).await;
    a_save_drops_exactly_the_departed_presence(&*store).await;
    a_save_sets_the_seen_presence_in_the_same_write(&*store).await;
    touch_never_moves_presence_back(&*store).await;
    wait_for_change_returns_at_once_when_already_newer(&*store).await;
    wait_for_change_times_out_when_nothing_changes(&*store).await;
    a_review_is_claimed_once_then_kept(&*store).await;
    racing_review_claims_have_exactly_one_winner(store.clone()).await;
    a_stale_review_claim_can_be_claimed_again(&*store).await;
    wait_for_change_wakes_when_the_room_is_saved(store, waiting).await;
}

async fn a_review_is_claimed_once_then_kept<S: RoomStore>(store: &S) {
    let id = fresh_id("review");
    let expires = NOW + 86_400_000;
    assert_eq!(
        store.load_review(&id, NOW).await.unwrap(),
        None,
        "nothing kept at first"
    );
    assert!(
        store.claim_review(&id, NOW, expires).await.unwrap(),
        "the first claim wins"
    );
    assert_eq!(
        store.load_review(&id, NOW + 1).await.unwrap(),
        Some(KeptReview::Computing { since: NOW }),
        "a claimed review is being computed"
    );
    assert!(
        !store.claim_review(&id, NOW + 1_000, expires).await.unwrap(),
        "a fresh claim is not claimed again"
    );
    store
        .save_review(&id, r#"{"label":"참고용"}"#, expires)
        .await
        .unwrap();
    assert_eq!(
        store.load_review(&id, NOW + 2_000).await.unwrap(),
        Some(KeptReview::Done(r#"{"label":"참고용"}"#.to_owned())),
        "the review is kept"
    );
    assert!(
        !store
            .claim_review(&id, NOW + REVIEW_CLAIM_STALE_MS + 10_000, expires)
            .await
            .unwrap(),
        "a kept review is never claimed again"
    );
    assert_eq!(
        store.load_review(&id, expires + 1_000).await.unwrap(),
        None,
        "a review expires with its room"
    );
}

async fn racing_review_claims_have_exactly_one_winner<S: RoomStore>(store: Arc<S>) {
    let id = fresh_id("review-race");
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (store, id) = (store.clone(), id.clone());
        tasks.spawn(async move { store.claim_review(&id, NOW, NOW + 86_400_000).await });
    }
    let mut winners = 0;
    while let Some(claimed) = tasks.join_next().await {
        if claimed.unwrap().unwrap() {
            winners += 1;
        }
    }
    assert_eq!(winners, 1, "racing_review_claims_have_exactly_one_winner");
}

async fn a_stale_review_claim_can_be_claimed_again<S: RoomStore>(store: &S) {
    let id = fresh_id("review-stale");
    let expires = NOW + 86_400_000;
    assert!(store.claim_review(&id, NOW, expires).await.unwrap());
    assert!(
        !store
            .claim_review(&id, NOW + REVIEW_CLAIM_STALE_MS - 1, expires)
            .await
            .unwrap(),
        "a claim younger than 2 minutes holds"
    );
    let later = NOW + REVIEW_CLAIM_STALE_MS + 1;
    assert!(
        store.claim_review(&id, later, expires).await.unwrap(),
        "a_stale_review_claim_can_be_claimed_again"
    );
    assert_eq!(
        store.load_review(&id, later).await.unwrap(),
        Some(KeptReview::Computing { since: later })
    );
}

async fn create_then_load_returns_the_room<S: RoomStore>(store: &S) {
    let id = fresh_id("create");
    let room = sample(&id, 1, Some(NOW + 5_000));
    store.create(&room).await.expect("create");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        (
            loaded.version,
            &loaded.body,
            loaded.due,
            loaded.expires_at,
            &loaded.presence
        ),
        (1, &room.body, room.due, room.expires_at, &room.presence),
        "create_then_load_returns_the_room"
    );
}

async fn a_second_create_with_the_same_id_fails<S: RoomStore>(store: &S) {
    let id = fresh_id("dup");
    store.create(&sample(&id, 1, None)).await.expect("create");
    let again = store.create(&sample(&id, 7, None)).await;
    assert!(
        matches!(again, Err(StoreError::AlreadyExists)),
        "a_second_create_with_the_same_id_fails: {again:?}"
    );
    assert_eq!(store.load(&id, NOW).await.expect("load").version, 1);
}

async fn loading_an_unknown_room_is_not_found<S: RoomStore>(store: &S) {
    let got = store.load(&fresh_id("nobody"), NOW).await;
    assert!(
        matches!(got, Err(StoreError::NotFound)),
        "loading_an_unknown_room_is_not_found: {got:?}"
    );
}

async fn an_expired_room_reads_as_gone<S: RoomStore>(store: &S) {
    let id = fresh_id("expired");
    let mut room = sample(&id, 1, None);
    room.expires_at = NOW - 1;
    store.create(&room).await.expect("create");
    let got = store.load(&id, NOW).await;
    assert!(
        matches!(got, Err(StoreError::NotFound)),
        "an_expired_room_reads_as_gone: {got:?}"
    );
}

async fn a_plan_is_kept_for_its_version_until_the_next_save<S: RoomStore>(store: &S) {
    let id = fresh_id("plan");
    let created = sample(&id, 1, Some(NOW + 5));
    store.create(&created).await.expect("create");
    assert_eq!(store.load(&id, NOW).await.expect("load").plan, None);
    store.keep_plan(&id, 1, b"move A").await.expect("keep_plan");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(loaded.plan.as_deref(), Some(&b"move A"[..]));
    // Nothing else moved: not the version, the body, the due index nor presence.
    assert_eq!(
        (loaded.version, &loaded.body, loaded.due, &loaded.presence),
        (1, &created.body, created.due, &created.presence)
    );
    assert_eq!(
        store.peek(&id, NOW).await.expect("peek").plan.as_deref(),
        Some(&b"move A"[..])
    );
    // A plan for a version the room is not at is refused, and the kept one stays.
    assert!(matches!(
        store.keep_plan(&id, 2, b"move B").await,
        Err(StoreError::VersionConflict { .. })
    ));
    assert_eq!(
        store.load(&id, NOW).await.expect("load").plan.as_deref(),
        Some(&b"move A"[..])
    );
    // The next save drops it.
    store
        .save_if_version(&sample(&id, 2, None), 1)
        .await
        .expect("save");
    let saved = store.load(&id, NOW).await.expect("load");
    assert_eq!((saved.version, saved.plan), (2, None));
    assert!(matches!(
        store.keep_plan(&fresh_id("plan-gone"), 1, b"x").await,
        Err(StoreError::NotFound)
    ));
}

/// A plan kept while a save of the same version races it: whichever lands first, the room
/// never ends at the new version with the old version's plan.
async fn racing_plan_and_save_leave_no_stale_plan<S: RoomStore>(store: Arc<S>) {
    for _ in 0..5 {
        let id = fresh_id("plan-race");
        store.create(&sample(&id, 1, None)).await.expect("create");
        let (keeper, saver) = (store.clone(), store.clone());
        let (kid, sid) = (id.clone(), id.clone());
        let keep = tokio::spawn(async move { keeper.keep_plan(&kid, 1, b"plan").await });
        let save =
            tokio::spawn(async move { saver.save_if_version(&sample(&sid, 2, None), 1).await });
        let (kept, saved) = (keep.await.expect("join"), save.await.expect("join"));
        saved.expect("the save lands whatever the plan did");
        let loaded = store.load(&id, NOW).await.expect("load");
        // Kept before the save (the save dropped it) or refused after it.
        assert!(
            matches!(kept, Ok(()) | Err(StoreError::VersionConflict { .. })),
            "keep_plan: {kept:?}"
        );
        assert_eq!((loaded.version, loaded.plan), (2, None));
    }
}

async fn a_save_on_the_loaded_version_lands<S: RoomStore>(store: &S) {
    let id = fresh_id("save");
    store.create(&sample(&id, 1, None)).await.expect("create");
    let next = sample(&id, 2, Some(NOW + 1));
    store
        .save_if_version(&next, 1)
        .await
        .expect("a_save_on_the_loaded_version_lands");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        (loaded.version, loaded.body, loaded.due),
        (2, next.body, next.due)
    );
}

async fn a_stale_save_is_a_version_conflict_and_changes_nothing<S: RoomStore>(store: &S) {
    let id = fresh_id("stale");
    store.create(&sample(&id, 1, None)).await.expect("create");
    store
        .save_if_version(&sample(&id, 2, None), 1)
        .await
        .expect("save");
    let stale = store.save_if_version(&sample(&id, 2, Some(NOW)), 1).await;
    match stale {
        Err(StoreError::VersionConflict { current }) => {
            if let Some(current) = current {
                assert_eq!(current.version, 2, "the conflict carries the current room");
            }
        }
        other => panic!("a_stale_save_is_a_version_conflict_and_changes_nothing: {other:?}"),
    }
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!((loaded.version, loaded.due), (2, None));
}

async fn racing_saves_on_one_version_have_exactly_one_winner<S: RoomStore>(store: Arc<S>) {
    let id = fresh_id("race");
    store.create(&sample(&id, 1, None)).await.expect("create");
    let tasks: Vec<_> = (0..32)
        .map(|i| {
            let store = store.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let mut room = sample(&id, 2, None);
                room.body = format!("writer {i}").into_bytes();
                store.save_if_version(&room, 1).await.map(|()| room.body)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.expect("join") {
            Ok(body) => winners.push(body),
            Err(StoreError::VersionConflict { .. }) => {}
            Err(e) => panic!("racing_saves_on_one_version_have_exactly_one_winner: {e}"),
        }
    }
    assert_eq!(
        winners.len(),
        1,
        "racing_saves_on_one_version_have_exactly_one_winner"
    );
    assert_eq!(store.load(&id, NOW).await.expect("load").body, winners[0]);
}

async fn due_rooms_lists_only_overdue_rooms_earliest_first<S: RoomStore>(store: &S) {
    // Times far in the past of NOW but unique to this run, so rooms of other runs sharing the
    // database cannot interleave with them.
    let base = (SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0) as u64)
        * 4;
    let (late, early, future, never) = (
        fresh_id("due-late"),
        fresh_id("due-early"),
        fresh_id("due-future"),
        fresh_id("due-never"),
    );
    store
        .create(&sample(&late, 1, Some(base + 20)))
        .await
        .expect("create");
    store
        .create(&sample(&early, 1, Some(base + 10)))
        .await
        .expect("create");
    store
        .create(&sample(&future, 1, Some(base + 1_000_000)))
        .await
        .expect("create");
    store
        .create(&sample(&never, 1, None))
        .await
        .expect("create");
    let due = store.due_rooms(base + 30, 10_000).await.expect("due_rooms");
    let ours: Vec<_> = due
        .iter()
        .filter(|id| [&late, &early, &future, &never].contains(id))
        .collect();
    assert_eq!(
        ours,
        [&early, &late],
        "due_rooms_lists_only_overdue_rooms_earliest_first"
    );
    let one = store.due_rooms(base + 30, 1).await.expect("due_rooms");
    assert_eq!(one.len(), 1, "due_rooms respects the limit");
    // A save that clears the due time takes the room out of the index.
    store
        .save_if_version(&sample(&early, 2, None), 1)
        .await
        .expect("save");
    let due = store.due_rooms(base + 30, 10_000).await.expect("due_rooms");
    assert!(
        !due.contains(&early) && due.contains(&late),
        "a room without a due time is not listed"
    );
}

/// The index may run early (a lazy store lists a room before it is due, and the sweeper finds
/// nothing to fire), never late: after any save, the room is listed by its new due time.
async fn a_room_is_listed_by_its_due_time_however_it_moves<S: RoomStore>(store: &S) {
    let base = (SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0) as u64)
        * 4
        + 1;
    let id = fresh_id("due-moves");
    store
        .create(&sample(&id, 1, Some(base + 100)))
        .await
        .expect("create");
    for (version, due) in [(2, Some(base + 200)), (3, Some(base + 50)), (4, None)] {
        let loaded = store.load(&id, NOW).await.expect("load");
        let next = StoredRoom {
            version,
            due,
            ..loaded
        };
        store
            .save_if_version(&next, version - 1)
            .await
            .expect("save");
        let listed = store
            .due_rooms(due.unwrap_or(base + 1_000), 10_000)
            .await
            .expect("due_rooms")
            .contains(&id);
        assert_eq!(
            listed,
            due.is_some(),
            "a_room_is_listed_by_its_due_time_however_it_moves: version {version}, due {due:?}"
        );
    }
}

async fn reindex_moves_the_due_time_without_a_new_version<S: RoomStore>(store: &S) {
    let id = fresh_id("reindex");
    store
        .create(&sample(&id, 3, Some(NOW - 5)))
        .await
        .expect("create");
    store
        .reindex(&id, 3, Some(NOW + 60_000))
        .await
        .expect("reindex");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        loaded.version, 3,
        "reindex_moves_the_due_time_without_a_new_version"
    );
    assert!(
        !store
            .due_rooms(NOW, 10_000)
            .await
            .expect("due")
            .contains(&id)
    );
    let stale = store.reindex(&id, 2, Some(NOW)).await;
    assert!(
        matches!(stale, Err(StoreError::VersionConflict { .. })),
        "a stale reindex is refused: {stale:?}"
    );
}

async fn touch_records_presence_without_a_new_version<S: RoomStore>(store: &S) {
    let id = fresh_id("touch");
    store.create(&sample(&id, 1, None)).await.expect("create");
    store.touch(&id, "p2", NOW + 10).await.expect("touch");
    store.touch(&id, "p1", NOW + 20).await.expect("touch");
    store
        .save_if_version(&sample(&id, 2, None), 1)
        .await
        .expect("save keeps presence");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        loaded.version, 2,
        "touch_records_presence_without_a_new_version"
    );
    assert_eq!(loaded.presence.get("p1"), Some(&(NOW + 20)));
    assert_eq!(loaded.presence.get("p2"), Some(&(NOW + 10)));
}

async fn touch_never_moves_presence_back<S: RoomStore>(store: &S) {
    let id = fresh_id("touch-back");
    store.create(&sample(&id, 1, None)).await.expect("create");
    store.touch(&id, "p2", NOW + 20).await.expect("touch");
    // A slower request of the same player finishing last: accepted, but changes nothing.
    store
        .touch(&id, "p2", NOW + 5)
        .await
        .expect("an older touch is no error");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        loaded.presence.get("p2"),
        Some(&(NOW + 20)),
        "touch_never_moves_presence_back"
    );
    let missing = store.touch(&fresh_id("touch-none"), "p1", NOW).await;
    assert!(
        matches!(missing, Err(StoreError::NotFound)),
        "touch_never_moves_presence_back: a missing room is NotFound: {missing:?}"
    );
}

/// A save drops the presence entries it names as departed — in the same write, exactly those —
/// and naming an entry that is not there is no error.
async fn a_save_drops_exactly_the_departed_presence<S: RoomStore>(store: &S) {
    let id = fresh_id("departed");
    store.create(&sample(&id, 1, None)).await.expect("create");
    for player in ["p2", "p3", "p.4 x"] {
        store.touch(&id, player, NOW + 10).await.expect("touch");
    }
    let mut next = sample(&id, 2, None);
    next.departed = vec![
        "p2".to_owned(),
        "p.4 x".to_owned(),
        "never-there".to_owned(),
    ];
    store
        .save_if_version(&next, 1)
        .await
        .expect("a_save_drops_exactly_the_departed_presence: save");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        (loaded.version, &loaded.presence),
        (
            2,
            &BTreeMap::from([("p1".to_owned(), NOW), ("p3".to_owned(), NOW + 10)])
        ),
        "a_save_drops_exactly_the_departed_presence"
    );
    // A refused save drops nothing.
    let mut stale = sample(&id, 3, None);
    stale.departed = vec!["p3".to_owned()];
    let refused = store.save_if_version(&stale, 1).await;
    assert!(
        matches!(refused, Err(StoreError::VersionConflict { .. })),
        "a_save_drops_exactly_the_departed_presence: stale save {refused:?}"
    );
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        loaded.presence.get("p3"),
        Some(&(NOW + 10)),
        "a_save_drops_exactly_the_departed_presence: a refused save keeps presence"
    );
}

/// A save sets the presence entry of the player it saw ([`StoredRoom::seen`]) in the same write,
/// leaving the others as they are; a refused save sets nothing, and a player who departed in
/// the save is removed, not seen.
async fn a_save_sets_the_seen_presence_in_the_same_write<S: RoomStore>(store: &S) {
    let id = fresh_id("seen");
    store.create(&sample(&id, 1, None)).await.expect("create");
    store.touch(&id, "p2", NOW + 10).await.expect("touch");
    let mut next = sample(&id, 2, None);
    next.seen = Some(("p.3 x".to_owned(), NOW + 30));
    store
        .save_if_version(&next, 1)
        .await
        .expect("a_save_sets_the_seen_presence_in_the_same_write: save");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        (loaded.version, &loaded.presence),
        (
            2,
            &BTreeMap::from([
                ("p1".to_owned(), NOW),
                ("p2".to_owned(), NOW + 10),
                ("p.3 x".to_owned(), NOW + 30)
            ])
        ),
        "a_save_sets_the_seen_presence_in_the_same_write"
    );
    let mut stale = sample(&id, 3, None);
    stale.seen = Some(("p1".to_owned(), NOW + 50));
    let refused = store.save_if_version(&stale, 1).await;
    assert!(
        matches!(refused, Err(StoreError::VersionConflict { .. })),
        "a_save_sets_the_seen_presence_in_the_same_write: stale save {refused:?}"
    );
    let mut leaving = sample(&id, 3, None);
    leaving.seen = Some(("p2".to_owned(), NOW + 60));
    leaving.departed = vec!["p2".to_owned()];
    store
        .save_if_version(&leaving, 2)
        .await
        .expect("a_save_sets_the_seen_presence_in_the_same_write: a leaving save");
    let loaded = store.load(&id, NOW).await.expect("load");
    assert_eq!(
        &loaded.presence,
        &BTreeMap::from([("p1".to_owned(), NOW), ("p.3 x".to_owned(), NOW + 30)]),
        "a_save_sets_the_seen_presence_in_the_same_write: a refused save sets nothing, a departed player is not seen"
    );
}

async fn wait_for_change_returns_at_once_when_already_newer<S: RoomStore>(store: &S) {
    let id = fresh_id("wait-now");
    store.create(&sample(&id, 4, None)).await.expect("create");
    let got = store
        .wait_for_change(&id, 3, Duration::from_secs(10))
        .await
        .expect("wait");
    assert_eq!(
        got.map(|r| r.version),
        Some(4),
        "wait_for_change_returns_at_once_when_already_newer"
    );
}

async fn wait_for_change_times_out_when_nothing_changes<S: RoomStore>(store: &S) {
    let id = fresh_id("wait-timeout");
    store.create(&sample(&id, 1, None)).await.expect("create");
    let got = store
        .wait_for_change(&id, 1, Duration::from_millis(300))
        .await
        .expect("wait");
    assert_eq!(got, None, "wait_for_change_times_out_when_nothing_changes");
}

async fn wait_for_change_wakes_when_the_room_is_saved<S: RoomStore>(
    store: Arc<S>,
    waiting: Option<fn(&S) -> usize>,
) {
    let id = fresh_id("wait-wake");
    store.create(&sample(&id, 1, None)).await.expect("create");
    let waiter = {
        let store = store.clone();
        let id = id.clone();
        tokio::spawn(async move { store.wait_for_change(&id, 1, Duration::from_secs(20)).await })
    };
    match waiting {
        // The save comes only once the waiter is proven parked: the store's notifier holds its
        // watch of the room (the checks run one at a time, so no other room is watched).
        Some(waiting) => {
            tokio::time::timeout(Duration::from_secs(60), async {
                while waiting(&store) == 0 {
                    tokio::task::yield_now().await;
                }
            })
            .await
            .expect("the waiter never watched the room");
        }
        // A store that polls (DynamoDB) shows no parked waiter. Its first read comes at once,
        // so a tenth of a second later it is most likely between reads; if not, the save is
        // seen by that first read, which is a change after version 1 all the same.
        None => tokio::time::sleep(Duration::from_millis(100)).await,
    }
    store
        .save_if_version(&sample(&id, 2, None), 1)
        .await
        .expect("save");
    let got = waiter.await.expect("join").expect("wait");
    assert_eq!(
        got.map(|r| r.version),
        Some(2),
        "wait_for_change_wakes_when_the_room_is_saved"
    );
}
