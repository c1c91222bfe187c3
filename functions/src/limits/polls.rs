//! Open long-polls, per client and in total.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use super::Client;

/// Open long-polls, per client and in total.
#[derive(Debug)]
pub struct PollCount {
    per_client: u32,
    total_cap: u32,
    total: AtomicU32,
    clients: Mutex<HashMap<Client, u32>>,
}

/// One open long-poll; its slot frees when dropped (the answer has been produced).
#[derive(Debug)]
pub struct PollSlot {
    count: Arc<PollCount>,
    client: Client,
}

impl PollCount {
    /// Counters allowing `per_client` polls per client and `total_cap` in all (0: no cap).
    pub fn new(per_client: u32, total_cap: u32) -> Self {
        PollCount {
            per_client,
            total_cap,
            total: AtomicU32::new(0),
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// A slot for one more poll of `client`, if both caps allow it.
    pub fn open(self: &Arc<Self>, client: Client) -> Option<PollSlot> {
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        let total = self.total.load(Ordering::Relaxed);
        if self.total_cap != 0 && total >= self.total_cap {
            return None;
        }
        let mine = clients.entry(client).or_insert(0);
        if self.per_client != 0 && *mine >= self.per_client {
            return None;
        }
        *mine += 1;
        self.total.store(total + 1, Ordering::Relaxed);
        Some(PollSlot {
            count: self.clone(),
            client,
        })
    }
}

impl Drop for PollSlot {
    fn drop(&mut self) {
        let mut clients = self.count.clients.lock().unwrap_or_else(|e| e.into_inner());
        self.count.total.fetch_sub(1, Ordering::Relaxed);
        if let Some(n) = clients.get_mut(&self.client) {
            *n -= 1;
            // Only clients with an open poll stay in the map: it is bounded by the total.
            if *n == 0 {
                clients.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_slots_free_on_drop_and_forget_idle_clients() {
        let count = Arc::new(PollCount::new(2, 3));
        let a = Client(Some("10.0.0.1".parse().unwrap()));
        let b = Client(Some("10.0.0.2".parse().unwrap()));
        let s1 = count.open(a).unwrap();
        let _s2 = count.open(a).unwrap();
        assert!(count.open(a).is_none(), "per-client cap");
        let _s3 = count.open(b).unwrap();
        assert!(count.open(b).is_none(), "total cap");
        drop(s1);
        assert!(count.open(b).is_some());
        drop(_s3);
        assert_eq!(count.clients.lock().unwrap().len(), 1);
    }
}
