//! Reading a room: its view (firing overdue timeouts first), a long-poll for the next version,
//! and a 바둑 room's SGF record.
//!
//! A short poll that finds nothing new is answered from the cheapest read the store has
//! ([`RoomStore::peek`]: eventually consistent, half a unit on DynamoDB) and no other store
//! call, when that read is the whole truth (see `unchanged` below).

use std::time::Duration;

use madang_core::room::{AnyRoom, RoomId, TokenHash, Version};
use madang_core::{Millis, PlayerId};
use madang_infra::{RoomStore, StoredRoom};
use serde_json::value::RawValue;

use super::new_request_id;
use super::save::{Loaded, Saved, Target, transact};
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
        /// When to read again, in ms: the view's `pollAfterMs` ([`Room::poll_after`]).
        ///
        /// [`Room::poll_after`]: madang_core::room::Room::poll_after
        poll_after: Millis,
    },
    /// Nothing newer than what the client has (304).
    NotModified {
        /// The current version.
        version: u64,
        /// When to read again, in ms, as the view would say (`Retry-After`).
        poll_after: Millis,
    },
}

impl Loaded {
    /// How long `viewer` should wait before reading the room again ([`Room::poll_after`]).
    ///
    /// [`Room::poll_after`]: madang_core::room::Room::poll_after
    pub fn poll_after(&self, viewer: Option<&PlayerId>, now: Millis) -> Millis {
        madang_core::with_room!(&self.room, r => r.poll_after(viewer, &self.presence, now))
    }
}

/// Loads the room (or takes one a long-poll just read), catches up its timeouts through the one
/// save path, and notes the viewer as seen.
async fn settle<S: RoomStore>(
    app: &App<S>,
    target: Target<'_>,
    token: Option<&TokenHash>,
) -> Result<Saved<Option<PlayerId>>, ApiError> {
    let saved = transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
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
    .await?;
    // A read that fired a timeout may have ended the game or passed the turn.
    super::push::deliver(
        &*app.store,
        &*app.announcer,
        app.push.get().as_deref(),
        &|| app.clock.now(),
        &saved.loaded,
        saved.now,
    )
    .await;
    Ok(saved)
}

/// The short poll's 304 from one [`RoomStore::peek`], when that is the whole truth: the room is
/// still at the version the client has, no timeout is due (the full read would fire it), and the
/// viewer's presence owes no write yet (a reader whose write is due takes the full path, which
/// makes it). Otherwise `None`, and the full read answers. A peek that lags a save answers 304 a
/// moment too long; the client's next poll sees the change.
async fn unchanged<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    token: Option<&TokenHash>,
    known: Version,
) -> Result<Option<Read>, ApiError> {
    let now = app.clock.now();
    let stored = app.store.peek(id, now).await?;
    if !known.is(stored.version) {
        return Ok(None);
    }
    let mut loaded = Loaded::from_stored(stored).map_err(|e| ApiError::Internal(Box::new(e)))?;
    let viewer = match token {
        Some(token) => Some(loaded.authenticate(token).ok_or(ApiError::Unauthorized)?),
        None => None,
    };
    if let Some(player) = &viewer {
        loaded.see(player, now);
        if loaded.owes_presence() {
            return Ok(None);
        }
    }
    // A person's timeout due, or a computer player's move kept as a plan: the full read fires
    // it. (A computer player's move with no plan kept is not the read's to make; its save will
    // be a new version.)
    if loaded.fires_at().is_some_and(|due| due <= now) {
        return Ok(None);
    }
    Ok(Some(Read::NotModified {
        version: known.get(),
        poll_after: loaded.poll_after(viewer.as_ref(), now),
    }))
}

/// Reads a room, firing overdue timeouts first. With `since`, waits up to `wait` for a version
/// newer than `since` — waking when the room is saved, or when its next timeout comes due so
/// the poller sees the timeout fire on time. `if_none_match` is the version the client's
/// `If-None-Match` names, if any: with it (or with `since` and no wait) a room still at that
/// version is answered [`Read::NotModified`] from a [`RoomStore::peek`] when that is safe.
pub async fn read<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    token: Option<&TokenHash>,
    since: Option<Version>,
    if_none_match: Option<Version>,
    wait: Duration,
) -> Result<Read, ApiError> {
    // What the client already has, if this read must answer at once: a short poll.
    let known = match (since, if_none_match) {
        (Some(since), _) if wait.is_zero() => Some(since),
        (None, Some(tag)) => Some(tag),
        _ => None,
    };
    if let Some(known) = known
        && let Some(read) = unchanged(app, id, token, known).await?
    {
        return Ok(read);
    }
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
        let Some(since) = since.map(Version::get).filter(|since| version <= *since) else {
            return Ok(Read::Fresh {
                version,
                room: loaded.view(viewer.as_ref(), now)?,
                poll_after: loaded.poll_after(viewer.as_ref(), now),
            });
        };
        let remaining = until.saturating_duration_since(tokio::time::Instant::now());
        if remaining.is_zero() {
            return Ok(Read::NotModified {
                version,
                poll_after: loaded.poll_after(viewer.as_ref(), now),
            });
        }
        // Wake for a save, or for the room's own next timeout, whichever comes first. A
        // computer player's move is never the reader's to search: it wakes at the move's due
        // time to play the plan the bot function kept, and a move due with no plan kept only
        // waits for the save.
        let due_in = loaded
            .wakes_at(now)
            .map(|due: Millis| Duration::from_millis(due.saturating_sub(now) + 1));
        let nap = due_in.map_or(remaining, |d| d.min(remaining));
        fetched = app.store.wait_for_change(id, since, nap).await?;
    }
}

/// A room as a spectator's read finds it (overdue timeouts fired, as that read fires them), and
/// the time it was read at: what the link cards of `/r/{id}` are made from
/// ([`crate::card`], which draws only the spectator's view).
pub async fn spectate<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
) -> Result<(Loaded, Millis), ApiError> {
    let saved = settle(app, Target::Load(id), None).await?;
    Ok((saved.loaded, saved.now))
}

/// A 바둑 room's record as SGF.
pub async fn sgf<S: RoomStore>(app: &App<S>, id: &RoomId) -> Result<String, ApiError> {
    let saved = settle(app, Target::Load(id), None).await?;
    match &saved.loaded.room {
        AnyRoom::Baduk(room) => Ok(madang_core::baduk::sgf::of_room(room)),
        AnyRoom::Yut(_) => Err(ApiError::NotAvailable("기보(SGF)는 바둑 방에만 있어요.")),
    }
}
