//! The one save path. Every change to a room — creating it, a join, a lobby or game action, a
//! timeout caught up by a read, the sweeper's — goes through [`transact`]:
//!
//! load → catch up overdue timeouts → the request's work → conditional save → announce →
//! presence.
//!
//! Nothing here holds a lock or keeps a room in memory between requests: any number of Lambda
//! instances can serve the same room, because every save is conditional on the version that was
//! loaded. Of two racing requests exactly one save lands. The other sees a conflict and — by the
//! one policy of this module — redoes its work on the fresh room. Work that was pinned to a
//! version (`expectedVersion`) refuses itself on the fresh room with 409, *after* looking for its
//! own stored answer, so a racing twin of a keyed request is replayed, never refused.
//!
//! A save whose outcome is unknown (the store's answer was lost, or its retry met a room that
//! had moved on) is never simply redone: every save records its request's [`RequestId`] in the
//! room, and the next attempt first looks for it. Found, the earlier attempt landed and is the
//! answer; not found, it did not land and the work is done again. So an action lands exactly
//! once, whatever the network between the server and the store does.

use madang_core::room::{AnyRoom, BotTurn, DecodeError, PlanLanded, Presence, RequestId, RoomId};
use madang_core::{Millis, PlayerId, with_room};
use madang_infra::{RoomStore, StoreError, StoredRoom};

use super::events::{Events, rendered};
use crate::announce::{Announcer, Tell};
use crate::error::ApiError;
use crate::metrics::{self, Metric};
use crate::push::AtLoad;
use crate::thinker::{Cue, Thinker};

/// How often one request tries to save before it gives up (503 `ROOM_BUSY`: it was not applied).
const SAVE_ATTEMPTS: usize = 6;

/// A player's presence is written at most this often (polls in between cost no write).
pub const PRESENCE_WRITE_INTERVAL_MS: Millis = 15_000;

/// Why a stored room could not be read back as a [`Loaded`].
#[derive(Debug, thiserror::Error)]
pub enum FromStoredError {
    /// The room's bytes do not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The stored id is not a room id (every id is stored from a [`RoomId`]).
    #[error("stored room id is not a room id")]
    Id,
}

/// A room as loaded for one request, in one shape: the room, the version its save is conditional
/// on, and the presence that goes with it.
#[derive(Debug)]
pub struct Loaded {
    /// The room's id.
    pub id: RoomId,
    /// The decoded room; its version grows as the request changes it.
    pub room: AnyRoom,
    /// The version the room had when loaded: the condition of the save.
    pub loaded_version: u64,
    /// When each player was last seen: as stored, with whoever this request saw at its time.
    pub presence: Presence,
    /// What the store's due index held when the room was loaded (for lazy index writes).
    indexed_due: Option<Millis>,
    /// A presence write this request owes (the player was last written too long ago).
    touch: Option<(PlayerId, Millis)>,
    /// Not stored yet: the save is a create.
    new: bool,
    /// The due time that had passed when timeouts were last caught up (for the sweeper's lag).
    overdue_since: Option<Millis>,
    /// Who made this request's change, when a player did (an action): its live connections
    /// are not told of it, since the answer carries the new room ([`Loaded::acted_by`]).
    actor: Option<PlayerId>,
    /// As loaded, before any catch-up or work: the people the game awaited, and whether it was
    /// over (what Web Push compares the saved room with, [`crate::push::notices`]).
    pub at_load: AtLoad,
    /// The computer player's move kept with the loaded version by the bot function
    /// ([`super::bots::keep`]), as stored: played by [`Loaded::catch_up`] once due.
    plan: Option<Vec<u8>>,
    /// The kept plan the last [`Loaded::catch_up`] played, to be recorded once its save lands.
    planned: Option<PlanLanded>,
}

impl Loaded {
    /// Decodes a stored room.
    pub fn from_stored(stored: StoredRoom) -> Result<Self, FromStoredError> {
        let id = RoomId::parse(&stored.id).ok_or(FromStoredError::Id)?;
        let room = AnyRoom::decode(&stored.body)?;
        let at_load = AtLoad::of(&room);
        let presence = stored
            .presence
            .into_iter()
            .map(|(p, t)| (PlayerId::new(p), t))
            .collect();
        Ok(Loaded {
            id,
            loaded_version: stored.version,
            room,
            presence,
            indexed_due: stored.indexed_due,
            touch: None,
            new: false,
            overdue_since: None,
            actor: None,
            at_load,
            plan: stored.plan,
            planned: None,
        })
    }

    /// A room that is not stored yet, with its creator seen at `now`.
    pub fn new_room(id: RoomId, room: AnyRoom, creator: PlayerId, now: Millis) -> Self {
        Loaded {
            id,
            loaded_version: 0,
            room,
            presence: [(creator, now)].into(),
            indexed_due: None,
            touch: None,
            new: true,
            overdue_since: None,
            actor: None,
            at_load: AtLoad {
                awaited: Vec::new(),
                over: true,
            },
            plan: None,
            planned: None,
        }
    }

    /// Records that `player` was seen at `now`: presence keeps the later time, and a write is
    /// owed only when the stored time is older than [`PRESENCE_WRITE_INTERVAL_MS`].
    pub fn see(&mut self, player: &PlayerId, now: Millis) {
        let last = self.presence.get(player).copied().unwrap_or(0);
        if now > last {
            self.presence.insert(player.clone(), now);
        }
        if !self.new && now.saturating_sub(last) >= PRESENCE_WRITE_INTERVAL_MS {
            self.touch = Some((player.clone(), now));
        }
    }

    /// Records that `player` made this request's change (a game or lobby action): its answer
    /// carries the new room, so the change is not posted to that player's live connections.
    /// Changes with no actor (a read's catch-up, the sweeper's) are posted to all.
    pub fn acted_by(&mut self, player: &PlayerId) {
        self.actor = Some(player.clone());
    }

    /// Fires every person's timeout due at `now`, and a computer player's move only if the bot
    /// function kept it with this version as a plan and it is due (never a search: that is the
    /// thinker's, [`super::bots`]); returns their events, rendered (each one a new version).
    pub fn catch_up(&mut self, now: Millis) -> Result<Events, ApiError> {
        self.overdue_since = self.due_at().filter(|due| *due <= now);
        self.planned = None;
        let presence = &self.presence;
        let plan = self.plan.as_deref();
        let (events, landed) = with_room!(&mut self.room, r => {
            let (events, landed) = r.catch_up_planned(now, presence, plan);
            (rendered(&events)?, landed)
        });
        if landed.is_some() {
            // Played: stale for the new version (the save drops it from the store too).
            self.plan = None;
            self.planned = landed;
        }
        Ok(events)
    }

    /// The computer player's move that comes next in the room, due or not.
    pub fn bot_turn(&self) -> Option<BotTurn> {
        with_room!(&self.room, r => r.bot_turn(&self.presence))
    }

    /// Whether the last [`Loaded::catch_up`] played a kept plan (the room's save lands it).
    pub fn played_plan(&self) -> bool {
        self.planned.is_some()
    }

    /// When the move the bot function kept as a plan is due, if one is kept for the room's next
    /// timeout (a catch-up then plays it).
    pub fn planned_at(&self) -> Option<Millis> {
        let plan = self.plan.as_deref()?;
        with_room!(&self.room, r => r.plan_due(plan, &self.presence))
    }

    /// When a request's catch-up would next fire something: the next timeout, unless it is a
    /// computer player's move not kept as a plan yet (which the thinker makes; a reader waits
    /// for its save or its plan instead).
    pub fn fires_at(&self) -> Option<Millis> {
        match self.bot_turn() {
            Some(_) => self.planned_at(),
            None => self.due_at(),
        }
    }

    /// When a long-poll should look at the room again by itself: when its catch-up would fire
    /// something ([`Loaded::fires_at`]), or when a computer player's move still to be planned
    /// falls due (its plan is kept by then, as a rule: the bot function keeps it well before).
    pub fn wakes_at(&self, now: Millis) -> Option<Millis> {
        match self.bot_turn() {
            Some(turn) => self
                .planned_at()
                .or_else(|| (turn.at > now).then_some(turn.at)),
            None => self.due_at(),
        }
    }

    /// When the room's next timeout fires if nobody shows up (what the sweeper indexes).
    pub fn due_at(&self) -> Option<Millis> {
        with_room!(&self.room, r => r.due_at(&self.presence))
    }

    /// What the sweeper's index holds: [`Loaded::due_at`], or earlier the time of the room's
    /// "time is low" push ([`crate::push::reminder`]).
    pub fn indexed_at(&self) -> Option<Millis> {
        let due = self.due_at();
        match crate::push::reminder(&self.room, &self.presence) {
            Some((_, at)) => Some(due.map_or(at, |d| d.min(at))),
            None => due,
        }
    }

    /// The due time that had already passed when [`Loaded::catch_up`] last ran (its timeouts
    /// fired then), if one had.
    pub fn overdue_since(&self) -> Option<Millis> {
        self.overdue_since
    }

    /// What the store's due index held when the room was loaded.
    pub fn indexed_due(&self) -> Option<Millis> {
        self.indexed_due
    }

    /// Whether this request owes a presence write (see [`Loaded::see`]).
    pub fn owes_presence(&self) -> bool {
        self.touch.is_some()
    }

    /// Whether this request changed the room.
    pub fn changed(&self) -> bool {
        self.new || self.room.version() != self.loaded_version
    }

    /// The record to save for the room as it is now. Its `departed` names the presence entries
    /// of players the room no longer seats (they left or were kicked), for the store to drop in
    /// the same write; the store itself never decodes the body.
    fn to_stored(&self) -> StoredRoom {
        let departed = with_room!(&self.room, r => {
            // A handful of seats: a scan beats building a set.
            let seated: Vec<&PlayerId> = r.present_ids().collect();
            self.presence
                .keys()
                .filter(|p| !seated.contains(p))
                .map(|p| p.as_str().to_owned())
                .collect()
        });
        StoredRoom {
            id: self.id.as_str().to_owned(),
            version: self.room.version(),
            body: self.room.encode(),
            due: self.indexed_at(),
            expires_at: self.room.expires_at(),
            presence: self
                .presence
                .iter()
                .map(|(p, t)| (p.as_str().to_owned(), *t))
                .collect(),
            // The presence this request owes goes with the save: one write, not two.
            seen: self
                .touch
                .as_ref()
                .map(|(p, at)| (p.as_str().to_owned(), *at)),
            departed,
            indexed_due: self.indexed_due,
            // A save drops the plan kept for the version it replaces.
            plan: None,
        }
    }

    fn decode(stored: StoredRoom) -> Result<Self, ApiError> {
        Loaded::from_stored(stored).map_err(|e| ApiError::Internal(Box::new(e)))
    }
}

/// Where a change starts from. (One lives per request, on the stack of its future: boxing the
/// larger variants would buy nothing but allocations.)
#[allow(clippy::large_enum_variant)]
pub enum Target<'a> {
    /// The room with this id, as stored now.
    Load(&'a RoomId),
    /// A room just read by a long-poll (saves a second read).
    Fetched(StoredRoom),
    /// A room that is not stored yet.
    New(Loaded),
}

/// A change that was saved (or needed no save), with what its work returned.
pub struct Saved<T> {
    /// The room as it now is.
    pub loaded: Loaded,
    /// What the work returned, from the attempt that landed.
    pub outcome: T,
    /// The time the work was done at.
    pub now: Millis,
}

/// Loads (or takes) the room, catches up its overdue timeouts, runs `work` on it, and saves the
/// result if anything changed — conditional on the loaded version, recording `request` in the
/// room. On a conflict the work is redone on the fresh room; a save whose outcome was unknown is
/// looked for in the room before anything is redone. `work` gets the catch-up's events and the
/// time; it must leave the room untouched when it fails (the engines guarantee that), and it may
/// run several times, so it must not do I/O.
///
/// Once a save has landed, `announcer` is told (the live channel: [`crate::announce`]). A room
/// left with a computer player's move to make is handed to `thinker` (`cue`), since the
/// catch-up never makes that move itself.
pub async fn transact<S, T, W>(
    store: &S,
    announcer: &dyn Announcer,
    thinker: &dyn Thinker,
    clock: impl Fn() -> Millis,
    target: Target<'_>,
    request: RequestId,
    mut work: W,
) -> Result<Saved<T>, ApiError>
where
    S: RoomStore,
    W: FnMut(&mut Loaded, &Events, Millis) -> Result<T, ApiError>,
{
    let (id, mut next) = match target {
        Target::Load(id) => (id.clone(), None),
        Target::Fetched(stored) => {
            let loaded = Loaded::decode(stored)?;
            (loaded.id.clone(), Some(loaded))
        }
        Target::New(loaded) => (loaded.id.clone(), Some(loaded)),
    };
    // Who acted in the attempt that may have landed (its connections are not told).
    let mut actor = None;
    // The outcome of the last attempt whose save was sent but not confirmed, and the versions
    // that save would add.
    let mut unconfirmed: Option<(T, u64)> = None;
    let mut last_failure = None;
    for _ in 0..SAVE_ATTEMPTS {
        let now = clock();
        let mut loaded = match next.take() {
            Some(loaded) => loaded,
            None => match timed(Metric::StoreLoad, store.load(&id, now)).await {
                Ok(stored) => Loaded::decode(stored)?,
                // A create whose answer was lost and that did not land: nothing to find.
                Err(StoreError::NotFound) if unconfirmed.is_some() => {
                    return Err(last_failure.map_or(ApiError::RoomNotFound, ApiError::Unavailable));
                }
                Err(e) => return Err(e.into()),
            },
        };
        if let Some((outcome, added)) = unconfirmed.take()
            && with_room!(&loaded.room, r => r.ledger.landed(request))
        {
            metrics::record(Metric::ActionsApplied(added));
            // The earlier attempt landed after all: that is the answer, and nothing is redone.
            tracing::info!(room = %crate::api::ids::digest_of(&id), "an unconfirmed save had landed");
            loaded.actor = actor;
            announce(announcer, &loaded, now).await;
            owe_presence(store, &mut loaded).await;
            cue(thinker, &loaded, Cue::Saved).await;
            return Ok(Saved {
                loaded,
                outcome,
                now,
            });
        }
        let fired = loaded.catch_up(now)?;
        let outcome = work(&mut loaded, &fired, now)?;
        actor.clone_from(&loaded.actor);
        if !loaded.changed() {
            owe_presence(store, &mut loaded).await;
            cue(thinker, &loaded, Cue::Seen).await;
            return Ok(Saved {
                loaded,
                outcome,
                now,
            });
        }
        with_room!(&mut loaded.room, r => r.ledger.record(request));
        let stored = loaded.to_stored();
        let saved = if loaded.new {
            timed(Metric::StoreSave, store.create(&stored)).await
        } else {
            timed(
                Metric::StoreSave,
                store.save_if_version(&stored, loaded.loaded_version),
            )
            .await
        };
        let added = stored.version - loaded.loaded_version;
        match saved {
            Ok(()) => {
                metrics::record(Metric::ActionsApplied(added));
                if let Some(planned) = loaded.planned.take() {
                    super::bots::landed::landed_plan(id.as_str(), planned);
                }
                loaded.loaded_version = loaded.room.version();
                loaded.indexed_due = stored.due.or(loaded.indexed_due);
                loaded.new = false;
                // The save wrote the presence owed (`StoredRoom::seen`), or the player left.
                loaded.touch = None;
                // Live watchers: this process's sockets, or API Gateway connections; bounded,
                // never fails the answer (`Announcer::saved`). Told only now that the save has
                // landed, so a watcher that reads the room at once finds this version.
                announce(announcer, &loaded, now).await;
                owe_presence(store, &mut loaded).await;
                cue(thinker, &loaded, Cue::Saved).await;
                return Ok(Saved {
                    loaded,
                    outcome,
                    now,
                });
            }
            // Someone else's change landed first — or ours did, and the store's retry of it met
            // a room that had moved on. The room the store handed back (or the next load) tells.
            Err(StoreError::VersionConflict { current }) => {
                metrics::record(Metric::ConflictRedone);
                unconfirmed = Some((outcome, added));
                next = current.map(|c| Loaded::decode(*c)).transpose()?;
            }
            // The write may or may not have landed: load the room again to find out.
            Err(e @ StoreError::Unavailable(_)) => {
                tracing::warn!(room = %crate::api::ids::digest_of(&id), error = %crate::error::chain(&e), "save outcome unknown");
                unconfirmed = Some((outcome, added));
                last_failure = Some(e);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(last_failure.map_or(ApiError::Busy, ApiError::Unavailable))
}

/// Tells the room's live watchers of its change ([`Announcer::saved`]): each viewer its own
/// view of the room as saved (rendered once per distinct viewer, when the announcer asks), so
/// that its app need not read the room back — except the actor's connections,
/// which get nothing (the action's answer carries the room). A player the room no longer seats
/// gets the version alone (its read will tell it it is out).
async fn announce(announcer: &dyn Announcer, loaded: &Loaded, now: Millis) {
    let tell = |player: Option<&str>| -> Tell {
        let viewer = player.map(PlayerId::new);
        if let Some(viewer) = &viewer {
            if loaded.actor.as_ref() == Some(viewer) {
                return Tell::Nothing;
            }
            let seated = with_room!(&loaded.room, r => r.present_ids().any(|p| p == viewer));
            if !seated {
                return Tell::Version;
            }
        }
        match loaded.view(viewer.as_ref(), now) {
            Ok(view) => Tell::View(view.get().to_owned()),
            Err(_) => Tell::Version,
        }
    };
    announcer
        .saved(loaded.id.as_str(), loaded.room.version(), &tell)
        .await;
}

/// Hands the room to the thinker if a computer player's move comes next in it: `Saved` when
/// this request's change landed (on AWS only such a change invokes the bot function, so one
/// move is searched once), `Seen` when it only looked (locally a cheap wake-up; on AWS a
/// backstop for a lost invocation, [`crate::thinker`]).
async fn cue(thinker: &dyn Thinker, loaded: &Loaded, cue: Cue) {
    if let Some(turn) = loaded.bot_turn() {
        thinker.due(&loaded.id, turn.at, cue).await;
    }
}

/// Awaits a store call and records how long it took as `metric`.
async fn timed<R>(metric: fn(std::time::Duration) -> Metric, call: impl Future<Output = R>) -> R {
    let started = std::time::Instant::now();
    let result = call.await;
    metrics::record(metric(started.elapsed()));
    result
}

/// Writes the presence the request owes. A failure is logged, not returned: the request itself
/// succeeded, and the next poll writes it again.
async fn owe_presence<S: RoomStore>(store: &S, loaded: &mut Loaded) {
    if let Some((player, now)) = loaded.touch.take()
        && let Err(e) = store.touch(&loaded.id, player.as_str(), now).await
    {
        tracing::warn!(room = %crate::api::ids::digest_of(&loaded.id), error = %crate::error::chain(&e), "presence write failed");
    }
}
