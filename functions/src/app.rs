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

/// The variable that caps the long-poll wait of a deployment, in seconds (`0`: short polls
/// only — every read answers at once).
pub const MAX_WAIT_VAR: &str = "MADANG_MAX_WAIT_SECS";

/// Limits of the deployment the router runs in.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Longest long-poll wait, in seconds. 25 locally; 20 at most on Lambda (API Gateway cuts at
    /// 30 s, and a DynamoDB poll loop needs headroom). `0` turns long-polls into short polls.
    pub max_wait_secs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_wait_secs: 25 }
    }
}

impl Limits {
    /// The limits with the wait cap of [`MAX_WAIT_VAR`] if it is set, never above `ceiling`
    /// (what the front door allows); `default` when unset. A value that is not a number is an
    /// error, not a silent default: a deployment that meant to turn long-polls off must not
    /// keep paying for them.
    pub fn from_env(default: u64, ceiling: u64) -> Result<Self, String> {
        let max_wait_secs = match std::env::var(MAX_WAIT_VAR) {
            Ok(v) => v.trim().parse::<u64>().map_err(|_| {
                format!("{MAX_WAIT_VAR} must be a whole number of seconds, not `{v}`")
            })?,
            Err(_) => default,
        };
        Ok(Limits {
            max_wait_secs: max_wait_secs.min(ceiling),
        })
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
}

impl<S> Clone for App<S> {
    fn clone(&self) -> Self {
        App {
            store: self.store.clone(),
            clock: self.clock.clone(),
            dev: self.dev,
            limits: self.limits,
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
        }
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
