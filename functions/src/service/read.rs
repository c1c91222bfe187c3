//! Reading a room: its view (firing overdue timeouts first), a long-poll for the next version,
//! and a 바둑 room's SGF record.

use std::time::Duration;

use madang_core::room::{AnyRoom, TokenHash};
use madang_core::{Millis, PlayerId};
use madang_infra::{RoomStore, StoredRoom};
use serde_json::value::RawValue;

use super::new_request_id;
use super::save::{Saved, Target, transact};
use crate::app::App;
use crate::error::ApiError;

/// What a read returns.
#[derive(Debug)]
pub enum Read {
    /// The room as the viewer sees it.
    Fresh {
        /// Its version (the `ETag`).
        version: u64,
        /// The view.
        room: Box<RawValue>,
    },
    /// Nothing newer than what the client has (304).
    NotModified {
        /// The current version.
        version: u64,
    },
}

/// Loads the room (or takes one a long-poll just read), catches up its timeouts through the one
/// save path, and notes the viewer as seen.
async fn settle<S: RoomStore>(
    app: &App<S>,
    target: Target<'_>,
    token: Option<&TokenHash>,
) -> Result<Saved<Option<PlayerId>>, ApiError> {
    transact(
        &*app.store,
        || app.clock.now(),
        target,
        new_request_id()?,
        |loaded, _, now| {
            let viewer = match token {
                Some(token) => Some(loaded.authenticate(token).ok_or(ApiError::Unauthorized)?),
                None => None,
            };
            if let Some(player) = &viewer {
                loaded.see(player, now);
            }
            Ok(viewer)
        },
    )
    .await
}

/// Reads a room, firing overdue timeouts first. With `since`, waits up to `wait` for a version
/// newer than `since` — waking when the room is saved, or when its next timeout comes due so
/// the poller sees the timeout fire on time.
pub async fn read<S: RoomStore>(
    app: &App<S>,
    id: &str,
    token: Option<&TokenHash>,
    since: Option<u64>,
    wait: Duration,
) -> Result<Read, ApiError> {
    let until = tokio::time::Instant::now() + wait;
    let mut fetched: Option<StoredRoom> = None;
    loop {
        let target = match fetched.take() {
            Some(stored) => Target::Fetched(stored),
            None => Target::Load(id),
        };
        let Saved {
            loaded,
            outcome: viewer,
            now,
        } = settle(app, target, token).await?;
        let version = loaded.room.version();
        let Some(since) = since.filter(|since| version <= *since) else {
            return Ok(Read::Fresh {
                version,
                room: loaded.view(viewer.as_ref(), now)?,
            });
        };
        let remaining = until.saturating_duration_since(tokio::time::Instant::now());
        if remaining.is_zero() {
            return Ok(Read::NotModified { version });
        }
        // Wake for a save, or for the room's own next timeout, whichever comes first.
        let due_in = loaded
            .due_at()
            .map(|due: Millis| Duration::from_millis(due.saturating_sub(now) + 1));
        let nap = due_in.map_or(remaining, |d| d.min(remaining));
        fetched = app.store.wait_for_change(id, since, nap).await?;
    }
}

/// A 바둑 room's record as SGF.
pub async fn sgf<S: RoomStore>(app: &App<S>, id: &str) -> Result<String, ApiError> {
    let saved = settle(app, Target::Load(id), None).await?;
    match &saved.loaded.room {
        AnyRoom::Baduk(room) => Ok(madang_core::baduk::sgf::of_room(room)),
        AnyRoom::Yut(_) => Err(ApiError::NotAvailable("기보(SGF)는 바둑 방에만 있어요.")),
    }
}
