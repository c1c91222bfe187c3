//! The embedded store's cache of rooms as last written: least recently used first out, bounded
//! both in rooms ([`CACHED_ROOMS`]) and in bytes ([`CACHED_BYTES`]), applied on every insert, so
//! a flood of new rooms cannot grow the process. The store keeps it current under its writer
//! lock (module docs of [`super`]).

use std::num::NonZeroUsize;

use lru::LruCache;
use madang_core::Millis;

use crate::store::StoredRoom;

/// Most rooms kept in the cache (a miss costs one SQLite read).
pub const CACHED_ROOMS: usize = 10_000;

/// Most bytes of rooms kept in the cache (ids, bodies, presence, and a per-entry overhead).
pub const CACHED_BYTES: usize = 16 * 1024 * 1024;

/// [`CACHED_ROOMS`] as the LRU's capacity.
const CAPACITY: NonZeroUsize = match NonZeroUsize::new(CACHED_ROOMS) {
    Some(n) => n,
    None => panic!("CACHED_ROOMS must not be 0"),
};

/// A least-recently-used cache of rooms, bounded in entries (the LRU's capacity) and in bytes
/// (evicting from the old end after each insert).
#[derive(Debug)]
pub(super) struct RoomCache {
    rooms: LruCache<String, StoredRoom>,
    bytes: usize,
}

impl Default for RoomCache {
    fn default() -> Self {
        RoomCache {
            rooms: LruCache::new(CAPACITY),
            bytes: 0,
        }
    }
}

/// What a cached room costs, roughly: its bytes plus the map entries around them.
fn cost(room: &StoredRoom) -> usize {
    2 * room.id.len()
        + room.body.len()
        + room.plan.as_ref().map_or(0, Vec::len)
        + room.presence.len() * 48
        + 160
}

impl RoomCache {
    /// The cached room, counted as a use.
    pub(super) fn get(&mut self, id: &str) -> Option<&StoredRoom> {
        self.rooms.get(id)
    }

    /// Caches `room` (in place of any older copy), evicting the least recently used rooms
    /// while either bound is passed.
    pub(super) fn insert(&mut self, room: StoredRoom) {
        self.remove(&room.id);
        self.bytes += cost(&room);
        // At capacity the LRU hands back the room it evicted to make space.
        if let Some((_, evicted)) = self.rooms.push(room.id.clone(), room) {
            self.bytes -= cost(&evicted);
        }
        while self.bytes > CACHED_BYTES {
            let Some((_, evicted)) = self.rooms.pop_lru() else {
                break;
            };
            self.bytes -= cost(&evicted);
        }
    }

    /// Changes a cached room in place (keeping the byte count right), without counting as a
    /// use.
    pub(super) fn update(&mut self, id: &str, change: impl FnOnce(&mut StoredRoom)) {
        if let Some(room) = self.rooms.peek_mut(id) {
            self.bytes -= cost(room);
            change(room);
            self.bytes += cost(room);
        }
    }

    /// The cached room's expiry, without counting as a use.
    pub(super) fn expires_at(&self, id: &str) -> Option<Millis> {
        self.rooms.peek(id).map(|room| room.expires_at)
    }

    /// Drops the room from the cache.
    pub(super) fn remove(&mut self, id: &str) {
        if let Some(room) = self.rooms.pop(id) {
            self.bytes -= cost(&room);
        }
    }

    /// How many rooms are cached.
    pub(super) fn len(&self) -> usize {
        self.rooms.len()
    }
}
