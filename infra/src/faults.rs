//! A store that fails on purpose, for tests: it wraps any [`RoomStore`] and, when told to, fails
//! the next load, fails the next save before it lands, or lets the next save land and then
//! loses its answer — optionally holding that answer while the test lets other writers act, as a
//! slow network would. This is what lies between a Lambda and DynamoDB, made repeatable.
//!
//! It wraps storage alone: live delivery is told by the service's announcer once a save lands,
//! not by the store, so no wrapper can lose it.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use madang_core::Millis;
use madang_core::room::RoomId;
use tokio::sync::oneshot;

use crate::store::{BoxError, RoomStore, StoreError, StoredRoom};

/// A pause between a save landing and its (lost) answer: the store says `landed`, then waits for
/// `resume` before it answers. Meanwhile the test can let other requests act.
#[derive(Debug)]
pub struct Hold {
    /// Fired once the save has landed.
    pub landed: oneshot::Sender<()>,
    /// Awaited before the answer is given.
    pub resume: oneshot::Receiver<()>,
}

/// A pair of ends for a [`Hold`]: the store's, and the test's.
pub fn hold() -> (Hold, HoldHandle) {
    let (landed_tx, landed_rx) = oneshot::channel();
    let (resume_tx, resume_rx) = oneshot::channel();
    (
        Hold {
            landed: landed_tx,
            resume: resume_rx,
        },
        HoldHandle {
            landed: landed_rx,
            resume: resume_tx,
        },
    )
}

/// The test's end of a [`Hold`].
#[derive(Debug)]
pub struct HoldHandle {
    /// Fires once the held save has landed.
    pub landed: oneshot::Receiver<()>,
    /// Send to let the store answer.
    pub resume: oneshot::Sender<()>,
}

/// One failure to inject.
#[derive(Debug)]
pub enum Fault {
    /// The next `load` fails as unavailable.
    FailLoad,
    /// The next save fails as unavailable before it reaches the store (nothing lands).
    FailSave,
    /// The next save lands; its answer is lost (the caller sees "unavailable").
    LoseAnswer(Option<Hold>),
    /// The next save waits before it reaches the store (`landed` fires when it is waiting), then
    /// goes on as usual: for letting another writer slip in between a load and its save.
    HoldBeforeSave(Hold),
    /// The next save lands; then, as when an SDK retries a write whose answer was lost and the
    /// retry meets a room that other writers moved on, the caller sees a conflict carrying the
    /// room as it is by then.
    LandThenConflict(Option<Hold>),
}

/// A [`RoomStore`] that injects the queued [`Fault`]s, one per matching call, in order.
#[derive(Debug)]
pub struct FaultyStore<S> {
    inner: S,
    loads: Mutex<VecDeque<Fault>>,
    saves: Mutex<VecDeque<Fault>>,
    landed: AtomicU64,
}

fn lost(what: &str) -> StoreError {
    StoreError::Unavailable(BoxError::from(format!("injected fault: {what}")))
}

impl<S: RoomStore> FaultyStore<S> {
    /// Wraps `inner`; no faults queued.
    pub fn new(inner: S) -> Self {
        FaultyStore {
            inner,
            loads: Mutex::default(),
            saves: Mutex::default(),
            landed: AtomicU64::new(0),
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Queues a fault for the next matching call (`FailLoad` for loads, the others for saves).
    pub fn inject(&self, fault: Fault) {
        let queue = match fault {
            Fault::FailLoad => &self.loads,
            _ => &self.saves,
        };
        queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push_back(fault);
    }

    /// How many saves (creates included) reached the store and landed.
    pub fn landed_saves(&self) -> u64 {
        self.landed.load(Ordering::SeqCst)
    }

    fn next(queue: &Mutex<VecDeque<Fault>>) -> Option<Fault> {
        queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop_front()
    }

    async fn after_landing(
        &self,
        id: &str,
        now: Millis,
        fault: Option<Fault>,
    ) -> Result<(), StoreError> {
        self.landed.fetch_add(1, Ordering::SeqCst);
        let (hold, conflict) = match fault {
            None => return Ok(()),
            Some(Fault::LoseAnswer(hold)) => (hold, false),
            Some(Fault::LandThenConflict(hold)) => (hold, true),
            Some(Fault::FailLoad | Fault::FailSave | Fault::HoldBeforeSave(_)) => return Ok(()),
        };
        if let Some(hold) = hold {
            let _ = hold.landed.send(());
            // A test that never resumes must not hang the server forever.
            let _ = tokio::time::timeout(Duration::from_secs(30), hold.resume).await;
        }
        if conflict {
            // The record's id went in as a `RoomId` (its text is all `StoredRoom` keeps).
            let id = RoomId::parse(id).ok_or(StoreError::NotFound)?;
            let current = self.inner.load(&id, now).await?;
            return Err(StoreError::VersionConflict {
                current: Some(Box::new(current)),
            });
        }
        Err(lost("the answer of a landed save was lost"))
    }
}

impl<S: RoomStore> RoomStore for FaultyStore<S> {
    async fn create(&self, room: &StoredRoom) -> Result<(), StoreError> {
        let fault = Self::next(&self.saves);
        if matches!(fault, Some(Fault::FailSave)) {
            return Err(lost("create failed before landing"));
        }
        self.inner.create(room).await?;
        self.after_landing(&room.id, 0, fault).await
    }

    async fn load(&self, id: &RoomId, now: Millis) -> Result<StoredRoom, StoreError> {
        if Self::next(&self.loads).is_some() {
            return Err(lost("load failed"));
        }
        self.inner.load(id, now).await
    }

    async fn save_if_version(&self, room: &StoredRoom, expected: u64) -> Result<(), StoreError> {
        let fault = match Self::next(&self.saves) {
            Some(Fault::FailSave) => return Err(lost("save failed before landing")),
            Some(Fault::HoldBeforeSave(hold)) => {
                let _ = hold.landed.send(());
                let _ = tokio::time::timeout(Duration::from_secs(30), hold.resume).await;
                None
            }
            other => other,
        };
        self.inner.save_if_version(room, expected).await?;
        self.after_landing(&room.id, 0, fault).await
    }

    async fn keep_plan(&self, id: &RoomId, expected: u64, plan: &[u8]) -> Result<(), StoreError> {
        self.inner.keep_plan(id, expected, plan).await
    }

    async fn due_rooms(&self, now: Millis, limit: usize) -> Result<Vec<RoomId>, StoreError> {
        self.inner.due_rooms(now, limit).await
    }

    async fn reindex(
        &self,
        id: &RoomId,
        expected: u64,
        due: Option<Millis>,
    ) -> Result<(), StoreError> {
        self.inner.reindex(id, expected, due).await
    }

    async fn wait_for_change(
        &self,
        id: &RoomId,
        after: u64,
        timeout: Duration,
    ) -> Result<Option<StoredRoom>, StoreError> {
        self.inner.wait_for_change(id, after, timeout).await
    }

    async fn touch(&self, id: &RoomId, player: &str, now: Millis) -> Result<(), StoreError> {
        self.inner.touch(id, player, now).await
    }

    async fn load_review(
        &self,
        id: &RoomId,
        now: Millis,
    ) -> Result<Option<crate::KeptReview>, StoreError> {
        self.inner.load_review(id, now).await
    }

    async fn claim_review(
        &self,
        id: &RoomId,
        now: Millis,
        expires_at: Millis,
    ) -> Result<bool, StoreError> {
        self.inner.claim_review(id, now, expires_at).await
    }

    async fn save_review(
        &self,
        id: &RoomId,
        review: &str,
        expires_at: Millis,
    ) -> Result<(), StoreError> {
        self.inner.save_review(id, review, expires_at).await
    }
}

/// Chat passes straight through: the faults are the room store's.
impl<S: crate::chat::ChatStore> crate::chat::ChatStore for FaultyStore<S> {
    async fn chat_latest(&self, room: &RoomId) -> Result<Option<crate::StoredChat>, StoreError> {
        self.inner.chat_latest(room).await
    }

    async fn chat_append(
        &self,
        room: &RoomId,
        record: &crate::StoredChat,
    ) -> Result<(), StoreError> {
        self.inner.chat_append(room, record).await
    }

    async fn chat_after(
        &self,
        room: &RoomId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<crate::StoredChat>, StoreError> {
        self.inner.chat_after(room, after, limit).await
    }
}
