//! The embedded store: one SQLite file, for the local server and the tests.
//!
//! Durability: the database runs in WAL mode with `synchronous=NORMAL`. A commit has been written
//! to the operating system before `save_if_version` returns, so killing the process (even with
//! `kill -9`) loses nothing that was answered; only a power cut can lose the last commits, which
//! is the right trade for a laptop server (an `fsync` per action would cap it at disk speed).
//!
//! Connections: one writer behind a mutex (SQLite allows one writer at a time anyway), and one
//! reader for the sweeper's due-room query, so a sweep never queues behind writes (WAL readers see
//! the last commit and never block the writer). Every statement takes microseconds, well within
//! what may run on an async worker without `spawn_blocking`.
//!
//! Loads are served from an in-process cache of the rooms as last written: this process is the
//! file's only writer, and every write updates the cache while it still holds the writer lock (a
//! cache miss is read under that lock too), so the cache is never behind the file.
//!
//! Checkpoints (copying the WAL back into the database file, with an `fsync`) run on a background
//! thread of their own, never inside a request: SQLite's automatic checkpoint would otherwise make
//! whichever write crossed the threshold wait for the disk.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use madang_core::Millis;
use rusqlite::{Connection, OptionalExtension, params};

use crate::notify::Notifier;
use crate::store::{RoomStore, StoreError, StoredRoom};

/// A [`RoomStore`] in a single SQLite file.
#[derive(Debug)]
pub struct EmbeddedStore {
    conn: Mutex<Connection>,
    cache: Mutex<HashMap<String, StoredRoom>>,
    reader: Mutex<Connection>,
    notifier: Notifier,
    stop_checkpoints: Arc<AtomicBool>,
}

/// Rooms kept in the cache; past this it starts over (a miss costs one SQLite read).
const CACHED_ROOMS: usize = 10_000;

/// How often the background thread checkpoints the WAL.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

const SCHEMA: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = 5000;
    CREATE TABLE IF NOT EXISTS rooms (
        id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        body BLOB NOT NULL,
        due INTEGER,
        expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS rooms_due ON rooms (due) WHERE due IS NOT NULL;
    CREATE TABLE IF NOT EXISTS presence (
        room TEXT NOT NULL,
        player TEXT NOT NULL,
        seen INTEGER NOT NULL,
        PRIMARY KEY (room, player)
    ) WITHOUT ROWID;
";

fn unavailable(e: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}

/// SQLite integers are signed; times and versions are far below `i64::MAX`.
fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn uint(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

impl EmbeddedStore {
    /// Opens (creating if needed) the store in the file at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(unavailable)?;
        conn.execute_batch(SCHEMA).map_err(unavailable)?;
        conn.execute_batch("PRAGMA wal_autocheckpoint = 0;")
            .map_err(unavailable)?;
        let reader = Connection::open(path).map_err(unavailable)?;
        reader
            .execute_batch("PRAGMA busy_timeout = 5000;")
            .map_err(unavailable)?;
        let stop_checkpoints = Arc::new(AtomicBool::new(false));
        let checkpointer = Connection::open(path).map_err(unavailable)?;
        let stop = stop_checkpoints.clone();
        std::thread::Builder::new()
            .name("madang-checkpoint".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(CHECKPOINT_EVERY);
                    // PASSIVE: copy what it can without waiting for readers or the writer.
                    if let Err(e) = checkpointer.execute_batch("PRAGMA wal_checkpoint(PASSIVE);") {
                        tracing::warn!(error = %e, "WAL checkpoint failed");
                    }
                }
            })
            .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
        Ok(EmbeddedStore {
            conn: Mutex::new(conn),
            cache: Mutex::new(HashMap::new()),
            reader: Mutex::new(reader),
            notifier: Notifier::default(),
            stop_checkpoints,
        })
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (statements are
        // atomic), so a poisoned lock is still safe to use.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn cache(&self) -> MutexGuard<'_, HashMap<String, StoredRoom>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `change` to the cached room, if it is cached. Called with the writer lock held,
    /// right after the write committed, so cache updates happen in commit order.
    fn update_cached(&self, id: &str, change: impl FnOnce(&mut StoredRoom)) {
        if let Some(room) = self.cache().get_mut(id) {
            change(room);
        }
    }

    /// The room as last written: from the cache, or read from the file and cached.
    fn read(&self, id: &str) -> Result<Option<StoredRoom>, StoreError> {
        if let Some(room) = self.cache().get(id) {
            return Ok(Some(room.clone()));
        }
        // A miss is read under the writer lock, so no write can commit between the read and
        // the caching (which would leave an older room in the cache).
        let conn = self.conn();
        let Some(room) = Self::read_file(&conn, id)? else {
            return Ok(None);
        };
        let mut cache = self.cache();
        if cache.len() >= CACHED_ROOMS {
            cache.clear();
        }
        cache.insert(id.to_owned(), room.clone());
        Ok(Some(room))
    }

    fn read_file(conn: &Connection, id: &str) -> Result<Option<StoredRoom>, StoreError> {
        let row = conn
            .prepare_cached("SELECT version, body, due, expires_at FROM rooms WHERE id = ?1")
            .and_then(|mut st| {
                st.query_row(params![id], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, Vec<u8>>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                })
                .optional()
            })
            .map_err(unavailable)?;
        let Some((version, body, due, expires_at)) = row else {
            return Ok(None);
        };
        let presence = conn
            .prepare_cached("SELECT player, seen FROM presence WHERE room = ?1")
            .and_then(|mut st| {
                st.query_map(params![id], |r| {
                    Ok((r.get::<_, String>(0)?, uint(r.get(1)?)))
                })?
                .collect::<Result<BTreeMap<_, _>, _>>()
            })
            .map_err(unavailable)?;
        let due = due.map(uint);
        Ok(Some(StoredRoom {
            id: id.to_owned(),
            version: uint(version),
            body,
            due,
            expires_at: uint(expires_at),
            presence,
            indexed_due: due,
        }))
    }
}

impl Drop for EmbeddedStore {
    fn drop(&mut self) {
        self.stop_checkpoints.store(true, Ordering::Relaxed);
    }
}

impl RoomStore for EmbeddedStore {
    async fn create(&self, room: &StoredRoom) -> Result<(), StoreError> {
        {
            let mut conn = self.conn();
            // Never cached before it exists; a stale miss of this id is impossible.
            let tx = conn.transaction().map_err(unavailable)?;
            let inserted = tx
                .execute(
                    "INSERT INTO rooms (id, version, body, due, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (id) DO NOTHING",
                    params![room.id, int(room.version), room.body, room.due.map(int), int(room.expires_at)],
                )
                .map_err(unavailable)?;
            if inserted == 0 {
                return Err(StoreError::AlreadyExists);
            }
            for (player, seen) in &room.presence {
                tx.execute(
                    "INSERT OR REPLACE INTO presence (room, player, seen) VALUES (?1, ?2, ?3)",
                    params![room.id, player, int(*seen)],
                )
                .map_err(unavailable)?;
            }
            tx.commit().map_err(unavailable)?;
            let mut stored = room.clone();
            stored.indexed_due = room.due;
            self.cache().insert(room.id.clone(), stored);
        }
        self.notifier.notify(&room.id, room.version);
        Ok(())
    }

    async fn load(&self, id: &str, now: Millis) -> Result<StoredRoom, StoreError> {
        match self.read(id)? {
            Some(room) if room.expires_at > now => Ok(room),
            _ => Err(StoreError::NotFound),
        }
    }

    async fn save_if_version(&self, room: &StoredRoom, expected: u64) -> Result<(), StoreError> {
        let conn = self.conn();
        let updated = conn
            .prepare_cached(
                "UPDATE rooms SET version = ?2, body = ?3, due = ?4, expires_at = ?5
                 WHERE id = ?1 AND version = ?6",
            )
            .and_then(|mut st| {
                st.execute(params![
                    room.id,
                    int(room.version),
                    room.body,
                    room.due.map(int),
                    int(room.expires_at),
                    int(expected)
                ])
            })
            .map_err(unavailable)?;
        if updated == 1 {
            // Presence stays as cached: saves never write it.
            self.update_cached(&room.id, |cached| {
                cached.version = room.version;
                cached.body.clone_from(&room.body);
                cached.due = room.due;
                cached.indexed_due = room.due;
                cached.expires_at = room.expires_at;
            });
        }
        drop(conn);
        if updated == 0 {
            return Err(match self.read(&room.id)? {
                Some(current) => StoreError::VersionConflict {
                    current: Some(Box::new(current)),
                },
                None => StoreError::NotFound,
            });
        }
        self.notifier.notify(&room.id, room.version);
        Ok(())
    }

    async fn due_rooms(&self, now: Millis, limit: usize) -> Result<Vec<String>, StoreError> {
        let conn = self.reader();
        let mut st = conn
            .prepare_cached(
                "SELECT id FROM rooms WHERE due IS NOT NULL AND due <= ?1 ORDER BY due LIMIT ?2",
            )
            .map_err(unavailable)?;
        st.query_map(params![int(now), int(limit as u64)], |r| {
            r.get::<_, String>(0)
        })
        .and_then(|rows| rows.collect())
        .map_err(unavailable)
    }

    async fn reindex(
        &self,
        id: &str,
        expected: u64,
        due: Option<Millis>,
    ) -> Result<(), StoreError> {
        let conn = self.conn();
        let updated = conn
            .execute(
                "UPDATE rooms SET due = ?3 WHERE id = ?1 AND version = ?2",
                params![id, int(expected), due.map(int)],
            )
            .map_err(unavailable)?;
        if updated == 0 {
            return Err(StoreError::VersionConflict { current: None });
        }
        self.update_cached(id, |cached| {
            cached.due = due;
            cached.indexed_due = due;
        });
        Ok(())
    }

    async fn wait_for_change(
        &self,
        id: &str,
        after: u64,
        timeout: Duration,
    ) -> Result<Option<StoredRoom>, StoreError> {
        // Subscribe first, read second: a save landing in between still wakes us.
        let mut rx = self.notifier.subscribe(id);
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match self.read(id)? {
                Some(room) if room.version > after => return Ok(Some(room)),
                Some(_) => {}
                None => return Err(StoreError::NotFound),
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => continue,
                // Timed out, or the notifier went away: nothing changed in time.
                Ok(Err(_)) | Err(_) => return Ok(None),
            }
        }
    }

    async fn touch(&self, id: &str, player: &str, now: Millis) -> Result<(), StoreError> {
        let conn = self.conn();
        conn.prepare_cached(
            "INSERT INTO presence (room, player, seen) VALUES (?1, ?2, ?3)
                 ON CONFLICT (room, player) DO UPDATE SET seen = max(seen, excluded.seen)",
        )
        .and_then(|mut st| st.execute(params![id, player, int(now)]))
        .map_err(unavailable)?;
        self.update_cached(id, |cached| {
            let seen = cached.presence.entry(player.to_owned()).or_insert(now);
            *seen = (*seen).max(now);
        });
        Ok(())
    }
}
