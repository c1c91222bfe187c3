//! The server's clock: the one place handlers, the sweeper and the thinker read time from.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use madang_core::Millis;

/// The server's clock. Handlers read time only from here, so tests (and `MADANG_DEV=1` servers
/// built with the `dev` feature, through `POST /dev/clock`) can move time forward instead of
/// sleeping.
#[derive(Debug, Default)]
pub struct ServerClock {
    /// How far the dev clock was moved; never anything but 0 without the `dev` feature.
    offset_ms: AtomicU64,
}

impl ServerClock {
    /// Epoch milliseconds: the system time plus however far the clock was advanced.
    pub fn now(&self) -> Millis {
        let system = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as Millis)
            .unwrap_or(0);
        system.saturating_add(self.offset_ms.load(Ordering::Relaxed))
    }

    /// Moves the clock forward by `ms`; returns the new time.
    #[cfg(feature = "dev")]
    pub fn advance(&self, ms: Millis) -> Millis {
        // Saturating, never wrapping: the handler bounds each move ([`MAX_CLOCK_OFFSET_MS`]),
        // and a clock that wrapped would run every deadline backwards.
        let _ = self
            .offset_ms
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| {
                Some(o.saturating_add(ms))
            });
        self.now()
    }

    /// How far the clock has been advanced, in ms.
    #[cfg(feature = "dev")]
    pub fn offset(&self) -> Millis {
        self.offset_ms.load(Ordering::Relaxed)
    }

    /// Sets how far the clock is advanced: to the offset shared through the store, so that
    /// every process serving the store (several Lambda execution environments, the sweeper)
    /// reads the same time. The offset never goes back.
    #[cfg(feature = "dev")]
    pub fn set_offset(&self, ms: Millis) {
        self.offset_ms.fetch_max(ms, Ordering::Relaxed);
    }
}
