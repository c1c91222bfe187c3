//! The sweeper: fires the overdue timeouts of rooms nobody is looking at.
//!
//! Requests already catch up overdue timeouts lazily whenever they load a room; the sweeper
//! exists for the rooms nobody loads (everyone's phone is locked). It runs every minute as a
//! scheduled Lambda and every second in the local server. It uses the same conditional save as
//! a request, so when it races a player's action exactly one of them lands: if the player wins,
//! their request has already fired these timeouts itself, so the sweeper's lost write is simply
//! dropped — never retried blindly.

use madang_core::Millis;
use madang_core::room::RoomId;
use madang_infra::{RoomStore, StoreError};

use crate::announce::Announcer;
use crate::error::{ApiError, chain};
use crate::metrics::{self, Metric};
use crate::service::new_request_id;
use crate::service::save::{Target, transact};
use crate::thinker::Thinker;

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
    /// Rooms whose "time is low" push was due (Web Push, [`crate::push::reminder`]).
    pub reminded: usize,
    /// Rooms a player's request changed while the sweeper looked (their request did the work).
    pub lost_races: usize,
    /// Rooms that could not be read or written (logged; retried on the next sweep).
    pub errors: usize,
}

/// Fires the overdue timeouts of at most `limit` due rooms at `now`, and records the sweep's
/// lag ([`Metric::SweeperLag`], written only when more than a sweep late) on every sweep whose
/// query answered. A sweep whose query failed reports `visited: 0, errors: 1`; the Lambda
/// binary fails that invocation, so AWS counts the missed run.
///
/// Each room it changes is told to `announcer`, through the one save path. A room whose next
/// timeout is a computer player's move is handed to `thinker` (the sweeper never searches: on
/// AWS it is the backstop for a lost invocation of the bot function).
pub async fn sweep<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    thinker: &dyn Thinker,
    now: Millis,
    limit: usize,
) -> SweepReport {
    sweep_pushing(store, announcer, thinker, None, now, limit).await
}

/// [`sweep`], sending the Web Push the fired timeouts call for with `push` (a seat whose turn
/// came, the game's end: [`crate::push::notices`]).
pub async fn sweep_pushing<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    thinker: &dyn Thinker,
    push: Option<&crate::push::Push>,
    now: Millis,
    limit: usize,
) -> SweepReport {
    let mut lag = 0;
    let report = sweep_rooms(store, announcer, thinker, push, now, limit, &mut lag).await;
    if report.errors == 0 || report.visited > 0 {
        metrics::record(Metric::SweeperLag(std::time::Duration::from_millis(lag)));
    }
    metrics::flush();
    report
}

/// [`sweep`] itself; `lag` ends as how late the oldest overdue room it fired was.
async fn sweep_rooms<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    thinker: &dyn Thinker,
    push: Option<&crate::push::Push>,
    now: Millis,
    limit: usize,
    lag: &mut Millis,
) -> SweepReport {
    let mut report = SweepReport::default();
    let ids = match store.due_rooms(now, limit).await {
        Ok(ids) => ids,
        Err(e) => {
            tracing::error!(error = %chain(&e), "due-room query failed");
            report.errors += 1;
            return report;
        }
    };
    for id in ids {
        report.visited += 1;
        // Boxed: the save path's future is deep, and nesting it in this loop's future overflows
        // the compiler's layout recursion on the Lambda binary. One allocation per room.
        match Box::pin(sweep_room(store, announcer, thinker, push, &id, now)).await {
            Ok(Swept::Fired(n, overdue_since)) => {
                *lag = (*lag).max(now.saturating_sub(overdue_since.unwrap_or(now)));
                report.rooms_fired += 1;
                report.timeouts_fired += n;
                tracing::info!(room = %crate::api::ids::digest_of(&id), fired = n, "timeouts fired");
            }
            Ok(Swept::Reindexed) => report.reindexed += 1,
            Ok(Swept::Reminded) => report.reminded += 1,
            Ok(Swept::Nothing) => {}
            Ok(Swept::LostRace) => report.lost_races += 1,
            // Expired or deleted since the index listed it.
            Err(ApiError::RoomNotFound) => {}
            Err(e) => {
                report.errors += 1;
                tracing::warn!(room = %crate::api::ids::digest_of(&id), error = %chain(&e), "sweep of room failed");
            }
        }
    }
    report
}

enum Swept {
    /// Timeouts fired, and the due time that had passed.
    Fired(u64, Option<Millis>),
    Reindexed,
    /// The room's "time is low" push went out.
    Reminded,
    /// A player's save landed between the sweeper's load and its reindex (that save moved the
    /// index itself).
    LostRace,
    Nothing,
}

async fn sweep_room<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    thinker: &dyn Thinker,
    push: Option<&crate::push::Push>,
    id: &RoomId,
    now: Millis,
) -> Result<Swept, ApiError> {
    // The same save path as every request: if a player's request saves first, the sweeper's
    // attempt is redone on the fresh room, where that request has already fired these
    // timeouts — so it finds nothing to fire and writes nothing.
    let saved = transact(
        store,
        announcer,
        thinker,
        || now,
        Target::Load(id),
        new_request_id()?,
        |loaded, _, _| {
            Ok((
                loaded.room.version() - loaded.loaded_version,
                loaded.overdue_since(),
            ))
        },
    )
    .await?;
    if saved.outcome.0 > 0 {
        crate::service::push::deliver(store, announcer, push, &|| now, &saved.loaded, now).await;
        return Ok(Swept::Fired(saved.outcome.0, saved.outcome.1));
    }
    // Nothing fired; the "time is low" push may be due (its own save moves the index on).
    if crate::push::reminder(&saved.loaded.room, &saved.loaded.presence)
        .is_some_and(|(_, at)| at <= now)
    {
        crate::service::push::remind(store, announcer, push, &|| now, id, now).await?;
        return Ok(Swept::Reminded);
    }
    // Nothing was due yet: the index held an early time (stores index lazily, or a player
    // reconnected). Move it to the exact time so the room is not visited again before then.
    let loaded = saved.loaded;
    let exact = loaded.indexed_at();
    if exact == loaded.indexed_due() {
        return Ok(Swept::Nothing);
    }
    match store.reindex(id, loaded.loaded_version, exact).await {
        Ok(()) => Ok(Swept::Reindexed),
        Err(StoreError::VersionConflict { .. }) => Ok(Swept::LostRace),
        Err(e) => Err(e.into()),
    }
}
