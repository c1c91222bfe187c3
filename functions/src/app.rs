//! What every handler shares: the store, the clock, and whether test support is on.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use madang_core::Millis;
use madang_infra::{RoomStore, StoreError};

/// The server's clock. Handlers read time only from here, so tests (and `MADANG_DEV=1` servers,
/// through `POST /dev/clock`) can move time forward instead of sleeping.
#[derive(Debug, Default)]
pub struct Clock {
    offset_ms: AtomicU64,
}

impl Clock {
    /// Epoch milliseconds: the system time plus however far the clock was advanced.
    pub fn now(&self) -> Millis {
        let system = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as Millis)
            .unwrap_or(0);
        system + self.offset_ms.load(Ordering::Relaxed)
    }

    /// Moves the clock forward by `ms`; returns the new time.
    pub fn advance(&self, ms: Millis) -> Millis {
        self.offset_ms.fetch_add(ms, Ordering::Relaxed);
        self.now()
    }

    /// How far the clock has been advanced, in ms.
    pub fn offset(&self) -> Millis {
        self.offset_ms.load(Ordering::Relaxed)
    }

    /// Sets how far the clock is advanced: to the offset shared through the store, so that
    /// every process serving the store (several Lambda execution environments, the sweeper)
    /// reads the same time. The offset never goes back.
    pub fn set_offset(&self, ms: Millis) {
        self.offset_ms.fetch_max(ms, Ordering::Relaxed);
    }
}

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
    /// The server clock.
    pub clock: Arc<Clock>,
    /// `MADANG_DEV=1`: seeds on create and `POST /dev/clock` are allowed.
    pub dev: bool,
    /// Deployment limits.
    pub limits: Limits,
    /// The live channel: `liveUrl`, and the local sockets' counters ([`crate::live`]).
    pub live: Arc<crate::live::Live>,
}

impl<S> Clone for App<S> {
    fn clone(&self) -> Self {
        App {
            store: self.store.clone(),
            clock: self.clock.clone(),
            dev: self.dev,
            limits: self.limits,
            live: self.live.clone(),
        }
    }
}

impl<S> App<S> {
    /// An app over `store` with the system clock and test support off.
    pub fn new(store: Arc<S>) -> Self {
        App {
            store,
            clock: Arc::new(Clock::default()),
            dev: false,
            limits: Limits::default(),
            live: Arc::default(),
        }
    }

    /// Sets what `liveUrl` says and the local live sockets' bounds.
    pub fn with_live(mut self, live: crate::live::Live) -> Self {
        self.live = Arc::new(live);
        self
    }

    /// Turns `MADANG_DEV=1` test support on or off.
    pub fn with_dev(mut self, dev: bool) -> Self {
        self.dev = dev;
        self
    }

    /// Sets the deployment limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

impl<S: RoomStore> App<S> {
    /// Test support: takes the dev clock's offset from the store, when the store shares one
    /// (DynamoDB, where several processes serve the same rooms). Does nothing — and reads
    /// nothing — unless `MADANG_DEV=1` is on, so production pays no read for it.
    pub async fn sync_clock(&self) -> Result<(), StoreError> {
        if self.dev
            && let Some(offset) = self.store.clock_offset().await?
        {
            self.clock.set_offset(offset);
        }
        Ok(())
    }

    /// Test support: advances the dev clock by `ms` — in the store when it shares the clock,
    /// so every process sees the move — and returns the new time.
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
