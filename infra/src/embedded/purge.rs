//! The deletion of expired rooms (with their presence and chat), a batch at a time, found by the
//! index on `purge_after`: the expiry rounded up to [`PURGE_GRAIN_MS`], so that a save, which
//! moves the expiry, rewrites that index entry only about once an hour (module docs of
//! [`super`]).

use std::time::Duration;

use madang_core::Millis;
use rusqlite::params;

use super::{Shared, chat, int, unavailable};
use crate::store::StoreError;

/// The grain of `purge_after`: expiry times are rounded up to it for the purge's index.
pub const PURGE_GRAIN_MS: Millis = 3_600_000;

/// The expiry rounded up to [`PURGE_GRAIN_MS`]: when the purge may delete the row.
pub(super) fn purge_after(expires_at: Millis) -> Millis {
    expires_at
        .div_ceil(PURGE_GRAIN_MS)
        .saturating_mul(PURGE_GRAIN_MS)
}

/// How often expired rooms are deleted, and how many per transaction.
pub const PURGE_EVERY: Duration = Duration::from_secs(60);
pub(super) const PURGE_BATCH: usize = 500;

/// A file written before `purge_after` existed indexed the exact expiry; it gets the column
/// (rounded as [`purge_after`] rounds) and the new index instead.
pub(super) const MIGRATE_PURGE_AFTER: &str = "
    ALTER TABLE rooms ADD COLUMN purge_after INTEGER NOT NULL DEFAULT 0;
    UPDATE rooms SET purge_after = ((expires_at + 3599999) / 3600000) * 3600000;
    DROP INDEX IF EXISTS rooms_expiry;
";

/// The purge's index, created once the column exists.
pub(super) const PURGE_INDEX: &str =
    "CREATE INDEX IF NOT EXISTS rooms_purge ON rooms (purge_after);";

impl Shared {
    /// Deletes up to one batch of rooms expired at `now`, with their presence; returns how many.
    pub(super) fn purge_batch(&self, now: Millis) -> Result<usize, StoreError> {
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
            tx.execute("DELETE FROM reviews WHERE room = ?1", params![id])
                .map_err(unavailable)?;
            tx.execute("DELETE FROM presence WHERE room = ?1", params![id])
                .map_err(unavailable)?;
            chat::purge_room(&tx, id)?;
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
