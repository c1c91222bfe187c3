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
//! cache miss is read under that lock too), so the cache is never behind the file. The cache is
//! a least-recently-used map bounded both in rooms ([`CACHED_ROOMS`]) and in bytes
//! ([`CACHED_BYTES`]), applied on every insert, so a flood of new rooms cannot grow the process.
//!
//! The file stays bounded too, however long a writer keeps writing:
//! - Checkpoints (copying the WAL back into the database file, with an `fsync`) run on a
//!   background thread, never inside a request: SQLite's automatic checkpoint would otherwise
//!   make whichever write crossed the threshold wait for the disk. A PASSIVE checkpoint copies
//!   what it can without waiting, but a WAL only starts over from its beginning when a checkpoint
//!   has caught up with a writer that pauses — and a busy server never pauses. So once the WAL
//!   holds about 16 MiB, the thread first catches up with PASSIVE checkpoints while writes go
//!   on (the bulk of the copying and the `fsync`), and only then takes the writer lock for one
//!   more PASSIVE checkpoint of the last few frames — a millisecond or so instead of the whole
//!   copy — after which the next write starts the WAL over. `journal_size_limit` trims the file
//!   when it does. Only if the file still passes [`WAL_TRUNCATE_AT`] (a reader held the WAL) does
//!   a TRUNCATE checkpoint run under the writer lock.
//! - Expired rooms (and their presence) are deleted every [`PURGE_EVERY`], a batch at a time.
//!   They are found by an index on `purge_after`, the expiry rounded up to [`PURGE_GRAIN_MS`],
//!   not on the exact expiry: every save moves a room's expiry, and an indexed column in an
//!   `UPDATE` rewrites its index entry, which doubled the pages (WAL frames) every action
//!   writes. `purge_after` is written only when it changes — about once an hour per room — so
//!   a save writes the one page that holds the row. A room is still gone for `load` at its
//!   exact expiry; its row goes at most one grain later.
//! - Presence entries of players no longer seated (they left or were kicked) are deleted when
//!   the room is saved, so join/leave cycles leave one entry per current player.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use madang_core::Millis;
use rusqlite::{Connection, OptionalExtension, params};

use crate::notify::Notifier;
use crate::store::{RoomStore, StoreError, StoredRoom};

/// A [`RoomStore`] in a single SQLite file.
#[derive(Debug)]
pub struct EmbeddedStore {
    shared: Arc<Shared>,
    reader: Mutex<Connection>,
    notifier: Notifier,
    wal: PathBuf,
    stop_background: Arc<AtomicBool>,
}

/// What the request path and the background thread share.
#[derive(Debug)]
struct Shared {
    conn: Mutex<Connection>,
    cache: Mutex<RoomCache>,
}

/// Most rooms kept in the cache (a miss costs one SQLite read).
pub const CACHED_ROOMS: usize = 10_000;

/// Most bytes of rooms kept in the cache (ids, bodies, presence, and a per-entry overhead).
pub const CACHED_BYTES: usize = 16 * 1024 * 1024;

/// How often the background thread runs a PASSIVE checkpoint. At the local server's top speed
/// (about 10,000 actions a second, one 4 KiB frame each) the WAL grows by 4 MiB in this time.
const WAL_CHECK_EVERY: Duration = Duration::from_millis(100);

/// Past this many frames (about 16 MiB of 4 KiB pages) the WAL is made to start over. Each
/// start-over holds the writer lock for one short checkpoint, most of it the `fsync`s: at
/// 10,000 actions a second that was a median 3.0 ms (at most 4.6 ms), about twice a second,
/// logged at debug as "WAL starts over".
const WAL_RESET_FRAMES: i64 = 4_000;

/// The unlocked catch-up stops once at most this many frames are left for the locked step.
const WAL_TAIL_FRAMES: i64 = 64;

/// Unlocked catch-up rounds before the locked step, at most.
const WAL_CATCH_UP_ROUNDS: usize = 8;

/// What the WAL file is trimmed to when it starts over after a spike. Above the usual high-water
/// mark ([`WAL_RESET_FRAMES`] plus a check's worth of writes), so that a WAL that starts over is
/// reused in place instead of truncated and grown again under the writer lock.
const WAL_SIZE_LIMIT: u64 = 32 * 1024 * 1024;

/// The safety net: past this file size (a long reader kept the WAL from starting over) the WAL
/// is emptied by a TRUNCATE checkpoint under the writer lock, which stalls writes for its length.
pub const WAL_TRUNCATE_AT: u64 = 48 * 1024 * 1024;

/// The grain of `purge_after`: expiry times are rounded up to it for the purge's index.
pub const PURGE_GRAIN_MS: Millis = 3_600_000;

/// The expiry rounded up to [`PURGE_GRAIN_MS`]: when the purge may delete the row.
fn purge_after(expires_at: Millis) -> Millis {
    expires_at
        .div_ceil(PURGE_GRAIN_MS)
        .saturating_mul(PURGE_GRAIN_MS)
}

/// How often expired rooms are deleted, and how many per transaction.
pub const PURGE_EVERY: Duration = Duration::from_secs(60);
const PURGE_BATCH: usize = 500;

const SCHEMA: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = 5000;
    CREATE TABLE IF NOT EXISTS rooms (
        id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        body BLOB NOT NULL,
        due INTEGER,
        expires_at INTEGER NOT NULL,
        purge_after INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS rooms_due ON rooms (due) WHERE due IS NOT NULL;
    CREATE TABLE IF NOT EXISTS presence (
        room TEXT NOT NULL,
        player TEXT NOT NULL,
        seen INTEGER NOT NULL,
        PRIMARY KEY (room, player)
    ) WITHOUT ROWID;
";

/// A file written before `purge_after` existed indexed the exact expiry; it gets the column
/// (rounded as [`purge_after`] rounds) and the new index instead.
const MIGRATE_PURGE_AFTER: &str = "
    ALTER TABLE rooms ADD COLUMN purge_after INTEGER NOT NULL DEFAULT 0;
    UPDATE rooms SET purge_after = ((expires_at + 3599999) / 3600000) * 3600000;
    DROP INDEX IF EXISTS rooms_expiry;
";

/// The purge's index, created once the column exists.
const PURGE_INDEX: &str = "CREATE INDEX IF NOT EXISTS rooms_purge ON rooms (purge_after);";

/// A least-recently-used cache of rooms, bounded in entries and in bytes.
#[derive(Debug, Default)]
struct RoomCache {
    rooms: HashMap<String, (StoredRoom, u64)>,
    /// Use tick → id, oldest first.
    order: BTreeMap<u64, String>,
    tick: u64,
    bytes: usize,
}

/// What a cached room costs, roughly: its bytes plus the map entries around them.
fn cost(room: &StoredRoom) -> usize {
    2 * room.id.len() + room.body.len() + room.presence.len() * 48 + 160
}

impl RoomCache {
    fn get(&mut self, id: &str) -> Option<&StoredRoom> {
        let (_, used) = self.rooms.get(id)?;
        let used = *used;
        self.tick += 1;
        let tick = self.tick;
        if let Some(key) = self.order.remove(&used) {
            self.order.insert(tick, key);
        }
        let entry = self.rooms.get_mut(id)?;
        entry.1 = tick;
        Some(&entry.0)
    }

    fn insert(&mut self, room: StoredRoom) {
        self.remove(&room.id);
        self.tick += 1;
        self.bytes += cost(&room);
        self.order.insert(self.tick, room.id.clone());
        self.rooms.insert(room.id.clone(), (room, self.tick));
        while self.rooms.len() > CACHED_ROOMS || self.bytes > CACHED_BYTES {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((evicted, _)) = self.rooms.remove(&oldest) {
                self.bytes -= cost(&evicted);
            }
        }
    }

    /// Changes a cached room in place (keeping the byte count right).
    fn update(&mut self, id: &str, change: impl FnOnce(&mut StoredRoom)) {
        if let Some((room, _)) = self.rooms.get_mut(id) {
            self.bytes -= cost(room);
            change(room);
            self.bytes += cost(room);
        }
    }

    /// The cached room's expiry, without counting as a use.
    fn expires_at(&self, id: &str) -> Option<Millis> {
        self.rooms.get(id).map(|(room, _)| room.expires_at)
    }

    fn remove(&mut self, id: &str) {
        if let Some((room, used)) = self.rooms.remove(id) {
            self.order.remove(&used);
            self.bytes -= cost(&room);
        }
    }

    fn len(&self) -> usize {
        self.rooms.len()
    }
}

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

fn system_now() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

impl Shared {
    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (statements are
        // atomic), so a poisoned lock is still safe to use.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn cache(&self) -> MutexGuard<'_, RoomCache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Deletes up to one batch of rooms expired at `now`, with their presence; returns how many.
    fn purge_batch(&self, now: Millis) -> Result<usize, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(unavailable)?;
        let ids: Vec<String> = tx
            // `purge_after` is never before the exact expiry, so every row found has expired.
            .prepare_cached("SELECT id FROM rooms WHERE purge_after <= ?1 LIMIT ?2")
            .and_then(|mut st| {
                st.query_map(params![int(now), int(PURGE_BATCH as u64)], |r| r.get(0))?
                    .collect()
            })
            .map_err(unavailable)?;
        for id in &ids {
            tx.execute("DELETE FROM presence WHERE room = ?1", params![id])
                .map_err(unavailable)?;
            tx.execute("DELETE FROM rooms WHERE id = ?1", params![id])
                .map_err(unavailable)?;
        }
        tx.commit().map_err(unavailable)?;
        let mut cache = self.cache();
        for id in &ids {
            cache.remove(id);
        }
        Ok(ids.len())
    }
}

/// What `PRAGMA wal_checkpoint` reports: frames in the WAL, and how many of them are copied back.
fn checkpoint(conn: &Connection, mode: &str) -> rusqlite::Result<(i64, i64)> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| {
        Ok((r.get(1)?, r.get(2)?))
    })
}

/// One round of checkpointing (see the module docs): PASSIVE without the writer lock, and once
/// the WAL holds more than [`WAL_RESET_FRAMES`], the short tail under it so the WAL starts over.
fn checkpoint_round(
    shared: &Shared,
    checkpointer: &Connection,
    wal: &Path,
) -> rusqlite::Result<()> {
    if std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0) > WAL_TRUNCATE_AT {
        // The safety net (a reader kept the WAL from starting over): empty it outright.
        let conn = shared.conn();
        return conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    }
    let (mut frames, mut copied) = checkpoint(checkpointer, "PASSIVE")?;
    if frames < WAL_RESET_FRAMES {
        return Ok(());
    }
    // Catch up with the writer without stopping it, so what is left for the locked step is
    // what a few milliseconds of writes add.
    for _ in 0..WAL_CATCH_UP_ROUNDS {
        if frames - copied <= WAL_TAIL_FRAMES {
            break;
        }
        (frames, copied) = checkpoint(checkpointer, "PASSIVE")?;
    }
    // Under the writer lock the checkpoint copies the last frames and completes; the next write
    // then starts the WAL over from its beginning (and trims the file to `journal_size_limit`).
    // Every request that writes waits for this, so its length is logged.
    let writer = shared.conn();
    let locked = Instant::now();
    let (tail, _) = checkpoint(checkpointer, "PASSIVE")?;
    drop(writer);
    tracing::debug!(
        frames = tail,
        held_us = locked.elapsed().as_micros() as u64,
        "WAL starts over"
    );
    Ok(())
}

/// The background thread: checkpoints and the periodic purge of expired rooms.
fn background(shared: Arc<Shared>, checkpointer: Connection, wal: PathBuf, stop: Arc<AtomicBool>) {
    let mut last_purge = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(WAL_CHECK_EVERY);
        if let Err(e) = checkpoint_round(&shared, &checkpointer, &wal) {
            tracing::warn!(error = %e, "WAL checkpoint failed");
        }
        if last_purge.elapsed() >= PURGE_EVERY {
            last_purge = Instant::now();
            let now = system_now();
            loop {
                match shared.purge_batch(now) {
                    Ok(n) if n == PURGE_BATCH && !stop.load(Ordering::Relaxed) => continue,
                    Ok(_) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "purging expired rooms failed");
                        break;
                    }
                }
            }
        }
    }
}

impl EmbeddedStore {
    /// Opens (creating if needed) the store in the file at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(unavailable)?;
        conn.execute_batch(SCHEMA).map_err(unavailable)?;
        let has_purge_after = conn
            .prepare("SELECT 1 FROM pragma_table_info('rooms') WHERE name = 'purge_after'")
            .and_then(|mut st| st.exists([]))
            .map_err(unavailable)?;
        if !has_purge_after {
            conn.execute_batch(MIGRATE_PURGE_AFTER)
                .map_err(unavailable)?;
        }
        conn.execute_batch(PURGE_INDEX).map_err(unavailable)?;
        conn.execute_batch(&format!(
            "PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = {WAL_SIZE_LIMIT};"
        ))
        .map_err(unavailable)?;
        let reader = Connection::open(path).map_err(unavailable)?;
        reader
            .execute_batch("PRAGMA busy_timeout = 5000;")
            .map_err(unavailable)?;
        let checkpointer = Connection::open(path).map_err(unavailable)?;
        checkpointer
            .execute_batch(&format!("PRAGMA journal_size_limit = {WAL_SIZE_LIMIT};"))
            .map_err(unavailable)?;
        let mut wal = OsString::from(path.as_os_str());
        wal.push("-wal");
        let wal = PathBuf::from(wal);
        let shared = Arc::new(Shared {
            conn: Mutex::new(conn),
            cache: Mutex::new(RoomCache::default()),
        });
        let stop_background = Arc::new(AtomicBool::new(false));
        let (thread_shared, thread_wal, stop) =
            (shared.clone(), wal.clone(), stop_background.clone());
        std::thread::Builder::new()
            .name("madang-checkpoint".into())
            .spawn(move || background(thread_shared, checkpointer, thread_wal, stop))
            .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
        Ok(EmbeddedStore {
            shared,
            reader: Mutex::new(reader),
            notifier: Notifier::default(),
            wal,
            stop_background,
        })
    }

    /// Deletes every room expired at `now` (the background thread does this every
    /// [`PURGE_EVERY`] by the system clock); returns how many went.
    pub fn purge_expired(&self, now: Millis) -> Result<usize, StoreError> {
        let mut total = 0;
        loop {
            let n = self.shared.purge_batch(now)?;
            total += n;
            if n < PURGE_BATCH {
                return Ok(total);
            }
        }
    }

    /// The WAL file's size in bytes now (0 when there is none).
    pub fn wal_bytes(&self) -> u64 {
        std::fs::metadata(&self.wal).map(|m| m.len()).unwrap_or(0)
    }

    /// How many rooms the cache holds now.
    pub fn cached_rooms(&self) -> usize {
        self.shared.cache().len()
    }

    /// Rooms waiting in the notifier (rooms someone is long-polling right now).
    pub fn watched_rooms(&self) -> usize {
        self.notifier.len()
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.shared.conn()
    }

    fn cache(&self) -> MutexGuard<'_, RoomCache> {
        self.shared.cache()
    }

    /// Applies `change` to the cached room, if it is cached. Called with the writer lock held,
    /// right after the write committed, so cache updates happen in commit order.
    fn update_cached(&self, id: &str, change: impl FnOnce(&mut StoredRoom)) {
        self.cache().update(id, change);
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
        self.cache().insert(room.clone());
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
            departed: Vec::new(),
            indexed_due: due,
        }))
    }
}

/// The conditional `UPDATE` of a save: how many rows it changed (0 when the version moved on).
fn update_row(
    conn: &Connection,
    room: &StoredRoom,
    expected: u64,
    grain_moves: bool,
) -> Result<usize, StoreError> {
    let sql = if grain_moves {
        "UPDATE rooms SET version = ?2, body = ?3, due = ?4, expires_at = ?5, purge_after = ?7
         WHERE id = ?1 AND version = ?6"
    } else {
        "UPDATE rooms SET version = ?2, body = ?3, due = ?4, expires_at = ?5
         WHERE id = ?1 AND version = ?6"
    };
    conn.prepare_cached(sql)
        .and_then(|mut st| {
            let (id, version, body, due) =
                (&room.id, int(room.version), &room.body, room.due.map(int));
            let (expires, expected) = (int(room.expires_at), int(expected));
            if grain_moves {
                let purge = int(purge_after(room.expires_at));
                st.execute(params![id, version, body, due, expires, expected, purge])
            } else {
                st.execute(params![id, version, body, due, expires, expected])
            }
        })
        .map_err(unavailable)
}

impl Drop for EmbeddedStore {
    fn drop(&mut self) {
        self.stop_background.store(true, Ordering::Relaxed);
    }
}

impl RoomStore for EmbeddedStore {
    fn notifier(&self) -> Option<&Notifier> {
        Some(&self.notifier)
    }

    async fn create(&self, room: &StoredRoom) -> Result<(), StoreError> {
        {
            let mut conn = self.conn();
            // Never cached before it exists; a stale miss of this id is impossible.
            let tx = conn.transaction().map_err(unavailable)?;
            let inserted = tx
                .execute(
                    "INSERT INTO rooms (id, version, body, due, expires_at, purge_after)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                     ON CONFLICT (id) DO NOTHING",
                    params![
                        room.id,
                        int(room.version),
                        room.body,
                        room.due.map(int),
                        int(room.expires_at),
                        int(purge_after(room.expires_at))
                    ],
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
            self.cache().insert(stored);
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
        let mut conn = self.conn();
        // `purge_after` is indexed, so it is set only when its grain changes (the cache, current
        // under the writer lock, holds the expiry as stored; a miss writes it to be safe).
        let grain_moves = self
            .cache()
            .expires_at(&room.id)
            .is_none_or(|stored| purge_after(stored) != purge_after(room.expires_at));
        let updated = if room.departed.is_empty() {
            // One statement commits on its own: a BEGIN and a COMMIT around it would be two
            // more statements parsed and run on every action.
            update_row(&conn, room, expected, grain_moves)?
        } else {
            // The room and the presence it drops: one transaction, all or nothing. Presence
            // is never written by a save, only pruned of the players the service found no
            // longer seated.
            let tx = conn.transaction().map_err(unavailable)?;
            let updated = update_row(&tx, room, expected, grain_moves)?;
            if updated == 1 {
                for player in &room.departed {
                    tx.prepare_cached("DELETE FROM presence WHERE room = ?1 AND player = ?2")
                        .and_then(|mut st| st.execute(params![room.id, player]))
                        .map_err(unavailable)?;
                }
                tx.commit().map_err(unavailable)?;
            }
            // Otherwise nothing was written, and the transaction rolls back as it goes.
            updated
        };
        if updated == 1 {
            self.update_cached(&room.id, |cached| {
                cached.version = room.version;
                cached.body.clone_from(&room.body);
                cached.due = room.due;
                cached.indexed_due = room.due;
                cached.expires_at = room.expires_at;
                for player in &room.departed {
                    cached.presence.remove(player);
                }
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
        // Only for a room that exists: a stray row would outlive every purge.
        let changed = conn
            .prepare_cached(
                "INSERT INTO presence (room, player, seen)
                 SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM rooms WHERE id = ?1)
                 ON CONFLICT (room, player) DO UPDATE SET seen = max(seen, excluded.seen)",
            )
            .and_then(|mut st| st.execute(params![id, player, int(now)]))
            .map_err(unavailable)?;
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        self.update_cached(id, |cached| {
            let seen = cached.presence.entry(player.to_owned()).or_insert(now);
            *seen = (*seen).max(now);
        });
        Ok(())
    }
}
