//! In-process change notification: one `watch` channel per room that someone is waiting on.
//!
//! A long-poll subscribes *before* it reads the room, so a save that lands between the read and
//! the wait still wakes it (the channel remembers the latest version). The map holds only rooms
//! somebody is waiting on right now: the last [`Subscription`] of a room to go removes its
//! channel, whether or not the room ever changed again.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use tokio::sync::watch;

/// Wakes the long-polls of a room when it is saved.
#[derive(Debug, Default)]
pub struct Notifier {
    channels: Mutex<HashMap<String, watch::Sender<u64>>>,
}

/// One waiter's receiver; dropping it frees the room's channel if nobody else waits.
#[derive(Debug)]
pub struct Subscription<'a> {
    notifier: &'a Notifier,
    id: String,
    rx: Option<watch::Receiver<u64>>,
}

impl Subscription<'_> {
    /// Waits for the next version saved after the last one seen; `Err` if the channel went.
    pub async fn changed(&mut self) -> Result<(), watch::error::RecvError> {
        match self.rx.as_mut() {
            Some(rx) => rx.changed().await,
            None => std::future::pending().await,
        }
    }
}

impl Subscription<'_> {
    /// The latest version announced since the channel was made (0: none yet), marked seen.
    pub fn latest(&mut self) -> u64 {
        self.rx.as_mut().map_or(0, |rx| *rx.borrow_and_update())
    }
}

impl Drop for Subscription<'_> {
    fn drop(&mut self) {
        let mut channels = self.notifier.channels();
        // Drop our receiver under the lock, so a subscriber arriving now either sees the
        // channel gone or keeps it alive.
        drop(self.rx.take());
        if channels
            .get(&self.id)
            .is_some_and(|tx| tx.receiver_count() == 0)
        {
            channels.remove(&self.id);
        }
    }
}

impl Notifier {
    fn channels(&self) -> MutexGuard<'_, HashMap<String, watch::Sender<u64>>> {
        self.channels.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A subscription that sees every version saved from now on.
    pub fn subscribe(&self, id: &str) -> Subscription<'_> {
        let rx = self
            .channels()
            .entry(id.to_owned())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe();
        Subscription {
            notifier: self,
            id: id.to_owned(),
            rx: Some(rx),
        }
    }

    /// Announces that room `id` is now at `version`.
    pub fn notify(&self, id: &str, version: u64) {
        if let Some(tx) = self.channels().get(id) {
            tx.send_replace(version);
        }
    }

    /// How many rooms have someone waiting.
    pub fn len(&self) -> usize {
        self.channels().len()
    }

    /// Whether nobody waits on any room.
    pub fn is_empty(&self) -> bool {
        self.channels().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_last_waiter_to_go_frees_the_channel() {
        let notifier = Notifier::default();
        let a = notifier.subscribe("r");
        let mut b = notifier.subscribe("r");
        assert_eq!(notifier.len(), 1);
        drop(a);
        assert_eq!(notifier.len(), 1);
        notifier.notify("r", 3);
        b.changed().await.unwrap();
        drop(b);
        // The room never changes again, and still nothing is left behind.
        assert!(notifier.is_empty());
        notifier.notify("r", 4);
        assert!(notifier.is_empty());
    }
}
