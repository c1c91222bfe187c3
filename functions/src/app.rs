//! What every handler shares: the store, the announcer, the clock, and whether test support is
//! on.
//!
//! Test support (seeds, `POST /dev/clock`) is compiled only with the `dev` cargo feature, which
//! the test command turns on and no release build does (`template.yaml` builds without it).
//! Without the feature the route and the `seed` field do not exist and `MADANG_DEV` is never
//! read; with it, `MADANG_DEV=1` still has to turn it on at run time.

use std::sync::Arc;

#[cfg(feature = "dev")]
use madang_core::Millis;
use madang_infra::{RoomStore, StoreError};

use crate::announce::Announcer;
pub use crate::clock::ServerClock;
use crate::thinker::{DEFAULT_BOT_THREADS, LocalThinker, Thinker};

/// Whether `MADANG_DEV=1` asks for test support: read only in builds with the `dev` feature,
/// `false` in every other build whatever the environment says.
pub fn dev_from_env() -> bool {
    cfg!(feature = "dev") && std::env::var("MADANG_DEV").is_ok_and(|v| v == "1")
}

/// The furthest the dev clock may be moved ahead of the system clock, in all: 100 years.
/// `POST /dev/clock` refuses a move past it (422), so clock arithmetic never nears `u64::MAX`.
#[cfg(feature = "dev")]
pub const MAX_CLOCK_OFFSET_MS: Millis = 100 * 365 * 24 * 3_600_000;

/// Limits of the deployment the router runs in. The defaults are safe for a public deployment;
/// [`Limits::with_env`] reads the `MADANG_LIMIT_*` overrides (README, "Configuration") and
/// [`Limits::trusted`] lifts the per-client ones for tests. Enforced by [`crate::limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest long-poll wait, in seconds. 25 locally; 20 at most on Lambda (API Gateway cuts at
    /// 30 s, and a DynamoDB poll loop needs headroom). `0` turns long-polls into short polls.
    pub max_wait_secs: u64,
    /// Rooms one client address may create per minute (0: no limit).
    pub creates_per_minute: u32,
    /// Joins one client address may make per minute, over all rooms (0: no limit).
    pub joins_per_minute: u32,
    /// Long-polls one client address may hold open at once (0: no limit).
    pub polls_per_client: u32,
    /// Long-polls the process holds open at once, from everyone (0: no limit).
    pub polls_total: u32,
    /// The largest request header block accepted, in bytes (names, values and line ends).
    pub max_header_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_wait_secs: 25,
            creates_per_minute: 10,
            joins_per_minute: 30,
            polls_per_client: 8,
            polls_total: 2_000,
            max_header_bytes: 16 * 1024,
        }
    }
}

/// The state handed to every handler.
#[derive(Debug)]
pub struct App<S> {
    /// Where rooms live.
    pub store: Arc<S>,
    /// Who is told of every save and chat message that landed, for the live channel
    /// ([`crate::announce`]). Shared with the thinker, whose saves are announced too.
    pub announcer: Arc<dyn Announcer>,
    /// The server clock.
    pub clock: Arc<ServerClock>,
    /// `MADANG_DEV=1` in a build with the `dev` feature: seeds on create and `POST /dev/clock`
    /// are allowed. Always `false` without the feature ([`App::with_dev`]).
    pub dev: bool,
    /// Deployment limits.
    pub limits: Limits,
    /// The counters behind the limits (shared by every clone of the app, so by every request
    /// of one router).
    pub guard: Arc<crate::limits::Guard>,
    /// The live channel: `liveUrl`, and the local sockets' counters ([`crate::live`]).
    pub live: Arc<crate::live::state::Live>,
    /// Behind a CDN (`MADANG_ORIGIN_SECRET`): the secret every request must carry
    /// ([`crate::api::origin`]); `None` checks nothing.
    pub origin: Option<Arc<crate::api::origin::OriginSecret>>,
    /// Who makes computer players' moves, off the request path ([`crate::thinker`]).
    pub thinker: Arc<dyn Thinker>,
    /// Web Push, when the deployment has a VAPID key ([`crate::push`]); empty: push is off.
    /// Shared with the thinker, so computer players' moves push too.
    pub push: crate::push::PushSlot,
    /// The replays of the rooms asked about last ([`crate::service::replay`]).
    pub replays: Arc<crate::service::replay::Replays>,
}

impl<S> Clone for App<S> {
    fn clone(&self) -> Self {
        App {
            store: self.store.clone(),
            announcer: self.announcer.clone(),
            clock: self.clock.clone(),
            dev: self.dev,
            limits: self.limits,
            guard: self.guard.clone(),
            live: self.live.clone(),
            origin: self.origin.clone(),
            thinker: self.thinker.clone(),
            push: self.push.clone(),
            replays: self.replays.clone(),
        }
    }
}

impl<S: RoomStore> App<S> {
    /// An app over `store` whose changes are told to `announcer`, with the system clock, test
    /// support off, and computer players' moves made in this process on one blocking thread
    /// ([`LocalThinker`]).
    pub fn new(store: Arc<S>, announcer: Arc<dyn Announcer>) -> Self {
        let clock = Arc::new(ServerClock::default());
        let push = crate::push::PushSlot::default();
        let thinker = LocalThinker::new(
            store.clone(),
            announcer.clone(),
            clock.clone(),
            DEFAULT_BOT_THREADS,
        )
        .with_push(push.clone());
        App {
            store,
            announcer,
            clock,
            dev: false,
            limits: Limits::default(),
            guard: Arc::new(crate::limits::Guard::new(Limits::default())),
            live: Arc::default(),
            origin: None,
            thinker: Arc::new(thinker),
            push,
            replays: Arc::default(),
        }
    }

    /// Computer players' moves made in this process, at most `threads` searches at once.
    pub fn with_bot_threads(mut self, threads: usize) -> Self {
        self.thinker = Arc::new(
            LocalThinker::new(
                self.store.clone(),
                self.announcer.clone(),
                self.clock.clone(),
                threads,
            )
            .with_push(self.push.clone()),
        );
        self
    }
}

impl<S> App<S> {
    /// Hands computer players' moves to `thinker` (on AWS, the bot function).
    pub fn with_thinker(mut self, thinker: Arc<dyn Thinker>) -> Self {
        self.thinker = thinker;
        self
    }

    /// Refuses every request that does not carry `secret` in the edge's origin header
    /// ([`crate::api::origin`]); `None` (no CDN in front) checks nothing.
    pub fn with_origin(mut self, secret: Option<crate::api::origin::OriginSecret>) -> Self {
        self.origin = secret.map(Arc::new);
        self
    }

    /// Sets what `liveUrl` says and the local live sockets' bounds.
    pub fn with_live(mut self, live: crate::live::state::Live) -> Self {
        self.live = Arc::new(live);
        self
    }

    /// Turns `MADANG_DEV=1` test support on or off (it stays off in a build without the `dev`
    /// feature).
    pub fn with_dev(mut self, dev: bool) -> Self {
        self.dev = dev && cfg!(feature = "dev");
        self
    }

    /// Turns Web Push on with `push` (`None`: off, `GET /push` answers 404 `PUSH_OFF`). The
    /// slot is shared: every clone of this app, and its local thinker, push with it.
    pub fn with_push(self, push: Option<crate::push::Push>) -> Self {
        self.push.set(push.map(Arc::new));
        self
    }

    /// Sets the deployment limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self.guard = Arc::new(crate::limits::Guard::new(limits));
        self
    }
}

impl<S: RoomStore> App<S> {
    /// Test support: takes the dev clock's offset from the store, when the store shares one
    /// (DynamoDB, where several processes serve the same rooms). Does nothing — and reads
    /// nothing — unless `MADANG_DEV=1` is on, so production pays no read for it (and a build
    /// without the `dev` feature has no code for it at all).
    pub async fn sync_clock(&self) -> Result<(), StoreError> {
        #[cfg(feature = "dev")]
        if self.dev
            && let Some(offset) = self.store.clock_offset().await?
        {
            self.clock.set_offset(offset);
        }
        Ok(())
    }

    /// Test support: advances the dev clock by `ms` — in the store when it shares the clock,
    /// so every process sees the move — and returns the new time.
    #[cfg(feature = "dev")]
    pub async fn advance_clock(&self, ms: Millis) -> Result<Millis, StoreError> {
        match self.store.advance_clock(ms).await? {
            Some(offset) => {
                self.clock.set_offset(offset);
                Ok(self.clock.now())
            }
            None => Ok(self.clock.advance(ms)),
        }
    }
}
