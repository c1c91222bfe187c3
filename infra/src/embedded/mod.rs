//! The embedded store: one SQLite file, for the local server and the tests.
//!
//! Durability ([`Durability`]): the database runs in WAL mode. Every commit has been written to
//! the operating system before its answer goes, so killing the process (even with `kill -9`)
//! loses nothing that was answered, whatever the setting. By default (`synchronous=FULL`) the
//! WAL is also synced to the disk before a commit returns, so an operating-system crash or a
//! power cut loses nothing answered either. Under group commit that is one `fsync` per batch,
//! not per action (BENCHMARKS.md, "Durability: synchronous=FULL under group commit").
//! [`Durability::Normal`] skips it: the WAL is then synced only by the checkpoints (about every
//! 100 ms under writes), and a power cut can lose the commits since the last one.
//!
//! Saves and creates go through a writer thread that commits every one queued while its last
//! commit ran in one transaction (group commit, `writer`; each `UPDATE` still conditional on its
//! version, each answer sent after the `COMMIT`).
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
//!
//! One concept per file: this module holds the store itself (opening the file, the
//! [`RoomStore`] operations); [`cache`] the bounded LRU of rooms; [`checkpoint`] the WAL
//! checkpoints and the background thread; [`purge`] the deletion of expired rooms and its index;
//! `writer` the group commit of saves; `chat` the chat table.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use madang_core::Millis;
use madang_core::room::RoomId;
use rusqlite::{Connection, OptionalExtension, params};

pub mod cache;
mod chat;
pub mod checkpoint;
pub mod purge;
mod writer;

use self::cache::RoomCache;
pub use self::cache::{CACHED_BYTES, CACHED_ROOMS};
use self::checkpoint::WAL_SIZE_LIMIT;
pub use self::checkpoint::WAL_TRUNCATE_AT;
use self::purge::{MIGRATE_PURGE_AFTER, PURGE_BATCH, PURGE_INDEX, purge_after};
pub use self::purge::{PURGE_EVERY, PURGE_GRAIN_MS};
use self::writer::Writer;
use crate::notify::Notifier;
use crate::store::{KeptReview, REVIEW_CLAIM_STALE_MS, RoomStore, StoreError, StoredRoom};

/// A [`RoomStore`] in a single SQLite file.
#[derive(Debug)]
pub struct EmbeddedStore {
    shared: Arc<Shared>,
    reader: Mutex<Connection>,
    writer: Writer,
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

const SCHEMA: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA busy_timeout = 5000;
    CREATE TABLE IF NOT EXISTS rooms (
        id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        body BLOB NOT NULL,
        due INTEGER,
        expires_at INTEGER NOT NULL,
        purge_after INTEGER NOT NULL,
        plan BLOB
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS rooms_due ON rooms (due) WHERE due IS NOT NULL;
    CREATE TABLE IF NOT EXISTS presence (
        room TEXT NOT NULL,
        player TEXT NOT NULL,
        seen INTEGER NOT NULL,
        PRIMARY KEY (room, player)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS reviews (
        room TEXT PRIMARY KEY,
        body TEXT,
        claimed_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
";

/// How far a commit goes before it is answered: SQLite's `synchronous` in WAL mode, set on the
/// connection that writes (the local server reads it from `MADANG_SYNCHRONOUS`, docs/operate.md,
/// "Durability").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous=FULL`: the WAL is synced to the disk before a commit returns. Nothing that
    /// was answered is lost to a crash of the process, of the operating system, or to a power
    /// cut.
    #[default]
    Full,
    /// `synchronous=NORMAL`: a commit returns once the operating system has it; the WAL is
    /// synced at each checkpoint. A crashed process loses nothing; an operating-system crash or
    /// a power cut can lose the commits since the last checkpoint (about the last 100 ms under
    /// writes), never half of one.
    Normal,
}

impl Durability {
    /// `full` or `normal` (any case), as `MADANG_SYNCHRONOUS` spells them.
    pub fn parse(value: &str) -> Result<Self, String> {
        match value.to_ascii_lowercase().as_str() {
            "full" => Ok(Durability::Full),
            "normal" => Ok(Durability::Normal),
            _ => Err(format!(
                "MADANG_SYNCHRONOUS must be `full` or `normal`, not `{value}`"
            )),
        }
    }

    fn pragma(self) -> &'static str {
        match self {
            Durability::Full => "PRAGMA synchronous = FULL;",
            Durability::Normal => "PRAGMA synchronous = NORMAL;",
        }
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

impl Shared {
    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (statements are
        // atomic), so a poisoned lock is still safe to use.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn cache(&self) -> MutexGuard<'_, RoomCache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl EmbeddedStore {
    /// Opens (creating if needed) the store in the file at `path`, with the default
    /// [`Durability`].
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with(path, Durability::default())
    }

    /// Opens (creating if needed) the store in the file at `path`, its commits as durable as
    /// `durability` says.
    pub fn open_with(path: &Path, durability: Durability) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(unavailable)?;
        conn.execute_batch(SCHEMA).map_err(unavailable)?;
        conn.execute_batch(durability.pragma())
            .map_err(unavailable)?;
        conn.execute_batch(chat::SCHEMA).map_err(unavailable)?;
        let has_purge_after = conn
            .prepare("SELECT 1 FROM pragma_table_info('rooms') WHERE name = 'purge_after'")
            .and_then(|mut st| st.exists([]))
            .map_err(unavailable)?;
        if !has_purge_after {
            conn.execute_batch(MIGRATE_PURGE_AFTER)
                .map_err(unavailable)?;
        }
        conn.execute_batch(PURGE_INDEX).map_err(unavailable)?;
        // A file written before plans were kept (`keep_plan`) gets the column, empty.
        let has_plan = conn
            .prepare("SELECT 1 FROM pragma_table_info('rooms') WHERE name = 'plan'")
            .and_then(|mut st| st.exists([]))
            .map_err(unavailable)?;
        if !has_plan {
            conn.execute_batch("ALTER TABLE rooms ADD COLUMN plan BLOB;")
                .map_err(unavailable)?;
        }
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
            .spawn(move || checkpoint::background(thread_shared, checkpointer, thread_wal, stop))
            .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
        let writer =
            Writer::start(shared.clone()).map_err(|e| StoreError::Unavailable(Box::new(e)))?;
        Ok(EmbeddedStore {
            shared,
            reader: Mutex::new(reader),
            writer,
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
            .prepare_cached("SELECT version, body, due, expires_at, plan FROM rooms WHERE id = ?1")
            .and_then(|mut st| {
                st.query_row(params![id], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, Vec<u8>>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, Option<Vec<u8>>>(4)?,
                    ))
                })
                .optional()
            })
            .map_err(unavailable)?;
        let Some((version, body, due, expires_at, plan)) = row else {
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
            seen: None,
            indexed_due: due,
            plan,
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
        "UPDATE rooms SET version = ?2, body = ?3, due = ?4, expires_at = ?5, purge_after = ?7,
             plan = NULL
         WHERE id = ?1 AND version = ?6"
    } else {
        "UPDATE rooms SET version = ?2, body = ?3, due = ?4, expires_at = ?5, plan = NULL
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
    async fn create(&self, room: &StoredRoom) -> Result<(), StoreError> {
        // Through the writer thread too, committed with the saves queued meanwhile: one `fsync`
        // for the batch ([`writer`]).
        let (done, answer) = tokio::sync::oneshot::channel();
        self.writer
            .submit(writer::Save {
                room: room.clone(),
                expected: None,
                done,
            })
            .await?;
        if !answer.await.map_err(|_| writer::stopped())?? {
            return Err(StoreError::AlreadyExists);
        }
        self.notifier.notify(&room.id, room.version);
        Ok(())
    }

    async fn load(&self, id: &RoomId, now: Millis) -> Result<StoredRoom, StoreError> {
        let id = id.as_str();
        match self.read(id)? {
            Some(room) if room.expires_at > now => Ok(room),
            _ => Err(StoreError::NotFound),
        }
    }

    async fn save_if_version(&self, room: &StoredRoom, expected: u64) -> Result<(), StoreError> {
        // Through the writer thread, committed with whatever other saves queued meanwhile
        // (group commit, [`writer`]); the answer comes once the batch's `COMMIT` returned.
        let (done, answer) = tokio::sync::oneshot::channel();
        self.writer
            .submit(writer::Save {
                room: room.clone(),
                expected: Some(expected),
                done,
            })
            .await?;
        let landed = answer.await.map_err(|_| writer::stopped())??;
        if !landed {
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

    async fn due_rooms(&self, now: Millis, limit: usize) -> Result<Vec<RoomId>, StoreError> {
        let conn = self.reader();
        let mut st = conn
            .prepare_cached(
                "SELECT id FROM rooms WHERE due IS NOT NULL AND due <= ?1 ORDER BY due LIMIT ?2",
            )
            .map_err(unavailable)?;
        let ids: Vec<String> = st
            .query_map(params![int(now), int(limit as u64)], |r| {
                r.get::<_, String>(0)
            })
            .and_then(|rows| rows.collect())
            .map_err(unavailable)?;
        // Every stored id went in as a `RoomId`.
        Ok(ids.iter().filter_map(|id| RoomId::parse(id)).collect())
    }

    async fn reindex(
        &self,
        id: &RoomId,
        expected: u64,
        due: Option<Millis>,
    ) -> Result<(), StoreError> {
        let id = id.as_str();
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

    async fn keep_plan(&self, id: &RoomId, expected: u64, plan: &[u8]) -> Result<(), StoreError> {
        let id = id.as_str();
        // Under the writer lock, like `reindex`: the cache follows before any later write.
        let conn = self.conn();
        let updated = conn
            .execute(
                "UPDATE rooms SET plan = ?3 WHERE id = ?1 AND version = ?2",
                params![id, int(expected), plan],
            )
            .map_err(unavailable)?;
        if updated == 0 {
            let exists = conn
                .prepare_cached("SELECT 1 FROM rooms WHERE id = ?1")
                .and_then(|mut st| st.exists(params![id]))
                .map_err(unavailable)?;
            return Err(if exists {
                StoreError::VersionConflict { current: None }
            } else {
                StoreError::NotFound
            });
        }
        self.update_cached(id, |cached| cached.plan = Some(plan.to_vec()));
        Ok(())
    }

    async fn wait_for_change(
        &self,
        id: &RoomId,
        after: u64,
        timeout: Duration,
    ) -> Result<Option<StoredRoom>, StoreError> {
        let id = id.as_str();
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

    async fn load_review(
        &self,
        id: &RoomId,
        now: Millis,
    ) -> Result<Option<KeptReview>, StoreError> {
        let id = id.as_str();
        let row: Option<(Option<String>, i64)> = self
            .conn()
            .query_row(
                "SELECT body, claimed_at FROM reviews WHERE room = ?1 AND expires_at > ?2",
                params![id, int(now)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(unavailable)?;
        Ok(row.map(|(body, since)| match body {
            Some(body) => KeptReview::Done(body),
            None => KeptReview::Computing { since: uint(since) },
        }))
    }

    async fn claim_review(
        &self,
        id: &RoomId,
        now: Millis,
        expires_at: Millis,
    ) -> Result<bool, StoreError> {
        let id = id.as_str();
        // One conditional statement: a new row, or a row that expired, or a stale claim.
        let changed = self
            .conn()
            .execute(
                "INSERT INTO reviews (room, body, claimed_at, expires_at) VALUES (?1, NULL, ?2, ?3)
                 ON CONFLICT (room) DO UPDATE SET body = NULL, claimed_at = excluded.claimed_at,
                     expires_at = excluded.expires_at
                 WHERE reviews.expires_at <= ?2
                    OR (reviews.body IS NULL AND reviews.claimed_at <= ?4)",
                params![
                    id,
                    int(now),
                    int(expires_at),
                    int(now.saturating_sub(REVIEW_CLAIM_STALE_MS))
                ],
            )
            .map_err(unavailable)?;
        Ok(changed == 1)
    }

    async fn save_review(
        &self,
        id: &RoomId,
        review: &str,
        expires_at: Millis,
    ) -> Result<(), StoreError> {
        let id = id.as_str();
        self.conn()
            .execute(
                "INSERT INTO reviews (room, body, claimed_at, expires_at) VALUES (?1, ?2, 0, ?3)
                 ON CONFLICT (room) DO UPDATE SET body = excluded.body,
                     expires_at = excluded.expires_at",
                params![id, review, int(expires_at)],
            )
            .map_err(unavailable)?;
        Ok(())
    }

    async fn touch(&self, id: &RoomId, player: &str, now: Millis) -> Result<(), StoreError> {
        let id = id.as_str();
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
