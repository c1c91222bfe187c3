//! The sweeper: fires the overdue timeouts of rooms nobody is looking at.
//!
//! Requests already catch up overdue timeouts lazily whenever they load a room; the sweeper
//! exists for the rooms nobody loads (everyone's phone is locked). It runs every minute as a
//! scheduled Lambda and every second in the local server. It uses the same conditional save as
//! a request, so when it races a player's action exactly one of them lands: if the player wins,
//! their request has already fired these timeouts itself, so the sweeper's lost write is simply
//! dropped — never retried blindly.

use madang_core::Millis;
use madang_infra::{RoomStore, StoreError};

use crate::service::Loaded;

/// What one sweep did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepReport {
    /// Rooms the due index listed.
    pub visited: usize,
    /// Rooms in which timeouts fired and were saved.
    pub rooms_fired: usize,
    /// Timeouts fired in all.
    pub timeouts_fired: u64,
    /// Rooms whose indexed due time was early and was moved to the exact one.
    pub reindexed: usize,
    /// Rooms a player's request changed first (their request did the work).
    pub lost_races: usize,
    /// Rooms that could not be read or written (logged; retried on the next sweep).
    pub errors: usize,
}

/// Fires the overdue timeouts of at most `limit` due rooms at `now`.
pub async fn sweep<S: RoomStore>(store: &S, now: Millis, limit: usize) -> SweepReport {
    let mut report = SweepReport::default();
    let ids = match store.due_rooms(now, limit).await {
        Ok(ids) => ids,
        Err(e) => {
            tracing::error!(error = %e, "due-room query failed");
            report.errors += 1;
            return report;
        }
    };
    for id in ids {
        report.visited += 1;
        match sweep_room(store, &id, now).await {
            Ok(Swept::Fired(n)) => {
                report.rooms_fired += 1;
                report.timeouts_fired += n;
                tracing::info!(room_id = %id, fired = n, "timeouts fired");
            }
            Ok(Swept::Reindexed) => report.reindexed += 1,
            Ok(Swept::Nothing) => {}
            Err(StoreError::VersionConflict { .. }) => report.lost_races += 1,
            // Expired or deleted since the index listed it.
            Err(StoreError::NotFound) => {}
            Err(e) => {
                report.errors += 1;
                tracing::warn!(room_id = %id, error = %e, "sweep of room failed");
            }
        }
    }
    report
}

enum Swept {
    Fired(u64),
    Reindexed,
    Nothing,
}

async fn sweep_room<S: RoomStore>(store: &S, id: &str, now: Millis) -> Result<Swept, StoreError> {
    let mut loaded = Loaded::from_stored(store.load(id, now).await?)
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let before = loaded.room.version();
    let fired = loaded.catch_up(now);
    if fired > 0 {
        store.save_if_version(&loaded.to_stored(), before).await?;
        return Ok(Swept::Fired(fired));
    }
    // Nothing was due yet: the index held an early time (stores index lazily, or a player
    // reconnected). Move it to the exact time so the room is not visited again before then.
    let exact = loaded.due_at();
    if exact != loaded.stored.indexed_due {
        store.reindex(id, before, exact).await?;
        return Ok(Swept::Reindexed);
    }
    Ok(Swept::Nothing)
}
