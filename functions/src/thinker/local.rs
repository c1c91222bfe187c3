//! The local server's thinker ([`LocalThinker`], see [`super`]): one task per room with a move
//! to make, searches on a bounded pool of blocking threads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use madang_core::Millis;
use madang_core::room::RoomId;
use madang_infra::RoomStore;
use tokio::sync::{Notify, Semaphore};

use super::{Cue, Cued, Thinker};
use crate::announce::Announcer;
use crate::clock::ServerClock;
use crate::push::PushSlot;
use crate::service::bots::{land, search};

/// The default number of searches the local server runs at once.
pub const DEFAULT_BOT_THREADS: usize = 1;

/// How long a room's task waits for a move's due time before it looks at the clock again (a
/// cue wakes it earlier; the dev clock may jump meanwhile).
const RECHECK: Duration = Duration::from_secs(5);

/// How many failed rounds in a row a room's task takes before it gives the room up (the
/// sweeper cues it again within a second).
const MAX_FAILURES: u32 = 3;

/// The local server's thinker: one task per room with a move to make, searches on at most
/// `threads` blocking threads at once.
pub struct LocalThinker<S> {
    store: Arc<S>,
    /// Told of every move saved, as a request's save tells it.
    announcer: Arc<dyn Announcer>,
    clock: Arc<ServerClock>,
    threads: Arc<Semaphore>,
    /// Web Push: a move that makes a person's turn pushes it, as a person's move does.
    push: PushSlot,
    /// The rooms that have a task, each with the bell that wakes it.
    rooms: Rooms,
}

/// The rooms that have a task, each with its bell.
type Rooms = Arc<Mutex<HashMap<RoomId, Arc<Bell>>>>;

/// What a cue rings: wakes a waiting task, and tells a task about to stop that it may not.
#[derive(Debug, Default)]
struct Bell {
    wake: Notify,
    /// A cue came since the task's round began (set and read under the rooms' lock).
    rung: AtomicBool,
}

impl<S> std::fmt::Debug for LocalThinker<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalThinker")
            .field("threads", &self.threads)
            .field("rooms", &self.rooms)
            .finish_non_exhaustive()
    }
}

impl<S: RoomStore> LocalThinker<S> {
    /// A thinker over `store` running at most `threads` searches at once (at least one),
    /// telling `announcer` of the moves it saves.
    pub fn new(
        store: Arc<S>,
        announcer: Arc<dyn Announcer>,
        clock: Arc<ServerClock>,
        threads: usize,
    ) -> Self {
        LocalThinker {
            store,
            announcer,
            clock,
            threads: Arc::new(Semaphore::new(threads.max(1))),
            push: PushSlot::default(),
            rooms: Arc::default(),
        }
    }

    /// Pushes with the sender `push` holds once a move is saved (the app's own slot,
    /// [`crate::App::with_push`]).
    pub fn with_push(mut self, push: PushSlot) -> Self {
        self.push = push;
        self
    }

    /// `MADANG_BOT_THREADS` (default [`DEFAULT_BOT_THREADS`]).
    pub fn threads_from_env() -> Result<usize, String> {
        match std::env::var("MADANG_BOT_THREADS") {
            Err(_) => Ok(DEFAULT_BOT_THREADS),
            Ok(v) => match v.parse::<usize>() {
                Ok(n) if (1..=64).contains(&n) => Ok(n),
                _ => Err(format!("MADANG_BOT_THREADS must be 1..=64, not `{v}`")),
            },
        }
    }

    /// How many rooms have a task now (tests and benchmarks).
    pub fn busy_rooms(&self) -> usize {
        self.rooms.lock().map(|r| r.len()).unwrap_or(0)
    }
}

impl<S: RoomStore> Thinker for LocalThinker<S> {
    fn due<'a>(&'a self, id: &'a RoomId, _at: Millis, _cue: Cue) -> Cued<'a> {
        self.cue(id);
        Box::pin(std::future::ready(()))
    }

    fn review<'a>(&'a self, id: &'a RoomId) -> Cued<'a> {
        // On the same bounded pool as the searches: a review waits for a thread like a move.
        let (store, clock, threads) =
            (self.store.clone(), self.clock.clone(), self.threads.clone());
        let id = id.clone();
        tokio::spawn(async move {
            let Ok(_permit) = threads.acquire_owned().await else {
                return;
            };
            if let Err(e) = crate::service::review::compute(&*store, &id, clock.now()).await {
                tracing::warn!(
                    room = %crate::api::ids::digest_of(&id),
                    error = %crate::error::chain(&e),
                    "the review could not be computed"
                );
            }
        });
        Box::pin(std::future::ready(()))
    }
}

impl<S: RoomStore> LocalThinker<S> {
    fn cue(&self, id: &RoomId) {
        // The map's lock orders every cue against a task's decision to stop (see `run`): a cue
        // either finds the task and rings its bell, or comes after the task left and starts a
        // new one. So no move is ever left unmade, and no room ever has two tasks.
        let Ok(mut rooms) = self.rooms.lock() else {
            return;
        };
        if let Some(bell) = rooms.get(id) {
            bell.rung.store(true, Ordering::SeqCst);
            bell.wake.notify_one();
            return;
        }
        let bell = Arc::new(Bell::default());
        rooms.insert(id.clone(), bell.clone());
        drop(rooms);
        let task = RoomTask {
            store: self.store.clone(),
            announcer: self.announcer.clone(),
            clock: self.clock.clone(),
            threads: self.threads.clone(),
            push: self.push.clone(),
            rooms: self.rooms.clone(),
            id: id.clone(),
            bell,
        };
        tokio::spawn(task.run());
    }
}

/// The one task of one room.
struct RoomTask<S> {
    store: Arc<S>,
    announcer: Arc<dyn Announcer>,
    clock: Arc<ServerClock>,
    threads: Arc<Semaphore>,
    push: PushSlot,
    rooms: Rooms,
    id: RoomId,
    bell: Arc<Bell>,
}

impl<S: RoomStore> RoomTask<S> {
    async fn run(self) {
        let clock = || self.clock.now();
        let mut failures = 0;
        loop {
            // Cues from here on are news to this round's decision to stop.
            self.bell.rung.store(false, Ordering::SeqCst);
            let round = match search(&*self.store, clock(), &self.id, Some(&self.threads)).await {
                Ok(Some(searched)) => {
                    // The search ran as soon as the move was known; it lands when due.
                    self.until(searched.due_at()).await;
                    let push = self.push.get();
                    land(
                        &*self.store,
                        &*self.announcer,
                        push.as_deref(),
                        &clock,
                        &self.id,
                        searched,
                    )
                    .await
                    .map(Some)
                }
                Ok(None) => Ok(None),
                Err(e) => Err(e),
            };
            match round {
                Ok(Some(_)) => failures = 0,
                Ok(None) => {
                    if self.leave() {
                        return;
                    }
                }
                Err(e) => {
                    failures += 1;
                    tracing::warn!(
                        room = %crate::api::ids::digest_of(&self.id),
                        error = %crate::error::chain(&e),
                        failures,
                        "a computer player's move could not be made"
                    );
                    // The sweeper cues the room again within a second if it gives up here.
                    if failures >= MAX_FAILURES && self.leave() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(200 * u64::from(failures))).await;
                }
            }
        }
    }

    /// Waits until the server's clock reaches `at`. A cue wakes it early to look at the clock
    /// again: the dev clock may have jumped (a test's `POST /dev/clock`).
    async fn until(&self, at: Millis) {
        loop {
            let now = self.clock.now();
            if now >= at {
                return;
            }
            let wait = Duration::from_millis(at - now).min(RECHECK);
            let _ = tokio::time::timeout(wait, self.bell.wake.notified()).await;
        }
    }

    /// Removes the room's task, unless a cue rang during this round (it may be a change the
    /// round did not see: then one more round). Decided under the rooms' lock, which every cue
    /// takes too, so the next cue after this either sees the task or starts a new one.
    fn leave(&self) -> bool {
        let Ok(mut rooms) = self.rooms.lock() else {
            return true;
        };
        if self.bell.rung.load(Ordering::SeqCst) {
            return false;
        }
        rooms.remove(&self.id);
        true
    }
}
