//! In-process change notification: one `watch` channel per room that someone is waiting on.
//!
//! A long-poll subscribes *before* it reads the room, so a save that lands between the read and
//! the wait still wakes it (the channel remembers the latest version).

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::watch;

/// Wakes the long-polls of a room when it is saved.
#[derive(Debug, Default)]
pub struct Notifier {
    channels: Mutex<HashMap<String, watch::Sender<u64>>>,
}

impl Notifier {
    /// A receiver that sees every version saved from now on.
    pub fn subscribe(&self, id: &str) -> watch::Receiver<u64> {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        channels
            .entry(id.to_owned())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Announces that room `id` is now at `version`.
    pub fn notify(&self, id: &str, version: u64) {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = channels.get(id) {
            tx.send_replace(version);
            // Nobody listens any more: forget the channel so the map only holds live waits.
            if tx.receiver_count() == 0 {
                channels.remove(id);
            }
        }
    }
}
