//! The embedded store's chat: one more table in the same SQLite file, written through the same
//! writer connection (a chat append takes microseconds under the lock) but never touching the
//! `rooms` table or its cache, so a message never changes a room's version.

use madang_core::room::RoomId;
use rusqlite::{Connection, params};

use super::{EmbeddedStore, int, uint, unavailable};
use crate::chat::{ChatStore, KEPT_RECORDS, StoredChat};
use crate::store::StoreError;

/// The chat table, created with the store's schema.
pub(super) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS chat (
        room TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body BLOB NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (room, seq)
    ) WITHOUT ROWID;
";

/// Deletes a room's chat; the purge calls it with every room it deletes.
pub(super) fn purge_room(conn: &Connection, room: &str) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM chat WHERE room = ?1")
        .and_then(|mut st| st.execute(params![room]))
        .map_err(unavailable)?;
    Ok(())
}

impl ChatStore for EmbeddedStore {
    async fn chat_latest(&self, room: &RoomId) -> Result<Option<StoredChat>, StoreError> {
        let room = room.as_str();
        let conn = self.conn();
        let mut rows = Self::chat_rows(
            &conn,
            "SELECT seq, body, expires_at FROM chat WHERE room = ?1 AND seq > ?2 ORDER BY seq DESC LIMIT ?3",
            room,
            0,
            1,
        )?;
        Ok(rows.pop())
    }

    async fn chat_append(&self, room: &RoomId, record: &StoredChat) -> Result<(), StoreError> {
        let room = room.as_str();
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(unavailable)?;
        // Only for a room that exists: a stray row would outlive every purge.
        let inserted = tx
            .prepare_cached(
                "INSERT INTO chat (room, seq, body, expires_at)
                 SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM rooms WHERE id = ?1)
                 ON CONFLICT (room, seq) DO NOTHING",
            )
            .and_then(|mut st| {
                st.execute(params![
                    room,
                    int(record.seq),
                    record.body,
                    int(record.expires_at)
                ])
            })
            .map_err(unavailable)?;
        if inserted == 0 {
            let room_exists = tx
                .prepare_cached("SELECT 1 FROM rooms WHERE id = ?1")
                .and_then(|mut st| st.exists(params![room]))
                .map_err(unavailable)?;
            return Err(if room_exists {
                StoreError::VersionConflict { current: None }
            } else {
                StoreError::NotFound
            });
        }
        if record.seq > KEPT_RECORDS {
            tx.prepare_cached("DELETE FROM chat WHERE room = ?1 AND seq <= ?2")
                .and_then(|mut st| st.execute(params![room, int(record.seq - KEPT_RECORDS)]))
                .map_err(unavailable)?;
        }
        tx.commit().map_err(unavailable)
    }

    async fn chat_after(
        &self,
        room: &RoomId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StoredChat>, StoreError> {
        let room = room.as_str();
        // The reader connection: a poll never waits for the writer lock (WAL readers see the
        // last commit).
        let conn = self.reader();
        let mut rows = Self::chat_rows(
            &conn,
            "SELECT seq, body, expires_at FROM chat WHERE room = ?1 AND seq > ?2 ORDER BY seq DESC LIMIT ?3",
            room,
            after,
            limit,
        )?;
        rows.reverse();
        Ok(rows)
    }
}

impl EmbeddedStore {
    fn chat_rows(
        conn: &Connection,
        sql: &str,
        room: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StoredChat>, StoreError> {
        conn.prepare_cached(sql)
            .and_then(|mut st| {
                st.query_map(params![room, int(after), int(limit as u64)], |r| {
                    Ok(StoredChat {
                        seq: uint(r.get(0)?),
                        body: r.get(1)?,
                        expires_at: uint(r.get(2)?),
                    })
                })?
                .collect()
            })
            .map_err(unavailable)
    }
}
