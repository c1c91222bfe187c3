//! Per-client budgets of requests per minute (GCRA).
//!
//! Memory stays bounded under address spoofing or a botnet: each table holds at most
//! [`MAX_TRACKED_CLIENTS`] addresses; when full, addresses whose budget has refilled are
//! forgotten (they are indistinguishable from new ones), and if every slot is still busy the
//! newcomers share one overflow budget rather than growing the table.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Client;

/// The most client addresses a rate table remembers.
pub const MAX_TRACKED_CLIENTS: usize = 65_536;

const MINUTE: Duration = Duration::from_secs(60);

/// A per-client budget of `per_minute` requests, refilled continuously (GCRA: one timestamp per
/// client, a burst of the whole minute's budget at most).
#[derive(Debug)]
pub struct RateTable {
    per_minute: u32,
    clients: Mutex<HashMap<Client, Instant>>,
    overflow: Mutex<Option<Instant>>,
}

impl RateTable {
    /// A table allowing `per_minute` requests per client (0: unlimited).
    pub fn new(per_minute: u32) -> Self {
        RateTable {
            per_minute,
            clients: Mutex::new(HashMap::new()),
            overflow: Mutex::new(None),
        }
    }

    /// Takes one request from `client`'s budget, or says how long until there is one.
    pub fn take(&self, client: Client, now: Instant) -> Result<(), Duration> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let interval = MINUTE / self.per_minute;
        // The budget is full when the theoretical arrival time is at or before now; each
        // request moves it on by one interval; a request is refused when that would put it
        // more than a minute ahead.
        let step = |tat: &mut Instant| -> Result<(), Duration> {
            let start = (*tat).max(now);
            let next = start + interval;
            if next > now + MINUTE {
                return Err(next - (now + MINUTE));
            }
            *tat = next;
            Ok(())
        };
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tat) = clients.get_mut(&client) {
            return step(tat);
        }
        if clients.len() >= MAX_TRACKED_CLIENTS {
            clients.retain(|_, tat| *tat > now);
        }
        if clients.len() >= MAX_TRACKED_CLIENTS {
            drop(clients);
            let mut overflow = self.overflow.lock().unwrap_or_else(|e| e.into_inner());
            return step(overflow.get_or_insert(now));
        }
        let mut tat = now;
        let taken = step(&mut tat);
        clients.insert(client, tat);
        taken
    }

    /// How many clients the table remembers (for tests of its bound).
    pub fn tracked(&self) -> usize {
        self.clients.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    #[test]
    fn a_budget_allows_its_burst_then_refills_one_interval_at_a_time() {
        let table = RateTable::new(10);
        let t0 = Instant::now();
        let ip = Client(Some("10.0.0.1".parse().unwrap()));
        for _ in 0..10 {
            assert_eq!(table.take(ip, t0), Ok(()));
        }
        let wait = table.take(ip, t0).unwrap_err();
        assert_eq!(wait, Duration::from_secs(6));
        assert!(table.take(ip, t0 + Duration::from_secs(5)).is_err());
        assert_eq!(table.take(ip, t0 + Duration::from_secs(6)), Ok(()));
        // Another address has its own budget.
        assert_eq!(
            table.take(Client(Some("10.0.0.2".parse().unwrap())), t0),
            Ok(())
        );
    }

    #[test]
    fn the_table_stays_bounded_under_many_addresses() {
        let table = RateTable::new(1);
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED_CLIENTS as u32 + 100) {
            let ip = IpAddr::V4(std::net::Ipv4Addr::from(i));
            let _ = table.take(Client(Some(ip)), t0);
        }
        assert_eq!(table.tracked(), MAX_TRACKED_CLIENTS);
        // The overflow shares one budget: the newcomers after the first are refused.
        let late = Client(Some(IpAddr::V4(std::net::Ipv4Addr::from(u32::MAX))));
        assert!(table.take(late, t0).is_err());
        // A minute later every budget has refilled: the table is swept and newcomers tracked.
        assert_eq!(table.take(late, t0 + MINUTE), Ok(()));
        assert_eq!(table.tracked(), 1);
    }
}
