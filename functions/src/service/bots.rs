//! Computer players' moves: searched once per move, off the request path, and saved through
//! the one save path.
//!
//! A request's catch-up stops before a computer player's move ([`Room::catch_up`](madang_core::room::Room::catch_up)): the move is
//! a search (up to about a second for a 19줄 바둑 move), and a read, a long-poll, `/sgf` or a
//! live hello must answer at once from the stored room. The move is made by the deployment's
//! [`Thinker`](crate::thinker::Thinker) — a bounded pool of blocking threads locally, a function
//! of its own on AWS — which runs these steps for the room:
//!
//! 1. [`search`]: load the room, catch up the persons' timeouts as a request would, and if a
//!    computer player's move comes next, search it on a blocking thread ([`Room::choose`](madang_core::room::Room::choose)).
//!    The search starts as soon as the move is known, so it overlaps the visible think time;
//! 2. wait until the move is due (its `deadlineAt`) — or, on AWS, where the wait would be
//!    billed, [`keep`] the choice with the room as a plan for that version instead and stop;
//! 3. [`land`]: play the choice through [`transact`], only if its turn is still the room's next
//!    one (same player, level, due time and version: [`Room::play_choice`](madang_core::room::Room::play_choice)). If anyone's change
//!    landed meanwhile, the choice is dropped and the next round searches the fresh room. The
//!    choice is a pure function of the room at that version, so nothing is ever applied twice or
//!    on a position it was not made for. A kept plan lands the same way, in the catch-up of
//!    whatever loads the room once it is due (a reader at its `deadlineAt`, a long-poll, an
//!    action, the sweeper: [`Loaded::catch_up`](super::save::Loaded::catch_up)); of racing
//!    loaders, one conditional save wins and the others find the room moved on.
//!
//! Moves are timed with the process's monotonic clock (`core` has none) and recorded as
//! metrics only once the save that carries them has landed (`BotMoves::landed`), so
//! `BotMoves` equals the computer players' actions in the rooms' logs.

use std::time::{Duration, Instant};

use madang_core::room::{AnyBotChoice, Fired, MAX_TIMEOUTS_PER_CATCH_UP, RoomId};
use madang_core::{Millis, with_room};
use madang_infra::{RoomStore, StoreError};
use tokio::sync::Semaphore;

use super::new_request_id;
use super::save::{Loaded, Target, transact};
use crate::announce::Announcer;
use crate::error::ApiError;
use crate::thinker::NoThinker;

pub(super) mod landed;

use landed::{BotMove, BotMoves};

/// Computer players' moves, searched and not yet played: the move that comes next, and the
/// ones that fall due at the same moment behind it (a 윷놀이 game everyone left plays itself out
/// at once).
#[derive(Debug)]
pub struct Searched {
    /// In the order they are played; never empty.
    choices: Vec<AnyBotChoice>,
    /// How long the search of each took.
    took: Vec<Duration>,
}

impl Searched {
    /// When the first move is due: it is played then, not before.
    pub fn due_at(&self) -> Millis {
        self.choices.first().map_or(0, |c| c.turn().at)
    }
}

/// Searches the computer players' moves that come next in room `id`, if any do (`None`: none
/// does, the room is gone, or the move that comes next is kept as a plan already: it was
/// searched once, and a catch-up lands it). The search runs on a blocking thread, holding one
/// of `threads`' permits while it runs when given, never on the async runtime.
pub async fn search<S: RoomStore>(
    store: &S,
    now: Millis,
    id: &RoomId,
    threads: Option<&Semaphore>,
) -> Result<Option<Searched>, ApiError> {
    let stored = match store.load(id, now).await {
        Ok(stored) => stored,
        Err(StoreError::NotFound) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut loaded = Loaded::from_stored(stored).map_err(|e| ApiError::Internal(Box::new(e)))?;
    // As a request would: the persons' timeouts due before the move fire first.
    loaded.catch_up(now)?;
    // A kept plan was due (an invocation delivered late, with nobody reading): it is not this
    // copy's to save. Whoever saves the room next lands it — a reader, the sweeper — and that
    // save asks for the next search; searching past it here would only find its plan stale.
    if loaded.played_plan() {
        tracing::debug!(room = %crate::api::ids::digest_of(id), "a kept plan is due; its lander searches on");
        return Ok(None);
    }
    let Some(first) = loaded.bot_turn() else {
        return Ok(None);
    };
    // Searched once already (a second invocation for the same move): not again.
    if loaded.planned_at().is_some() {
        tracing::debug!(room = %crate::api::ids::digest_of(id), "the move is kept as a plan already");
        return Ok(None);
    }
    // Bounded: at most `MADANG_BOT_THREADS` searches at once in this process; the others wait
    // here, on the runtime, without holding a thread.
    let _permit = match threads {
        Some(threads) => Some(
            threads
                .acquire()
                .await
                .map_err(|e| ApiError::Internal(Box::new(e)))?,
        ),
        None => None,
    };
    let id = id.to_owned();
    let searched = tokio::task::spawn_blocking(move || {
        // The first move may be due later (the search overlaps its think time); the ones
        // behind it are searched only if they fall due by then too.
        let horizon = now.max(first.at);
        let Loaded {
            mut room, presence, ..
        } = loaded;
        let mut searched = Searched {
            choices: Vec::new(),
            took: Vec::new(),
        };
        for _ in 0..MAX_TIMEOUTS_PER_CATCH_UP {
            let turn = with_room!(&room, r => r.bot_turn(&presence));
            let Some(turn) = turn.filter(|t| t.at <= horizon) else {
                break;
            };
            let started = Instant::now();
            let Some(choice) = room.choose(&turn) else {
                break;
            };
            let took = started.elapsed();
            searched.took.push(took);
            // What the single-flight tests count: one line per search.
            tracing::debug!(
                room = %crate::api::ids::digest_of(&id),
                version = turn.version,
                took_us = took.as_micros() as u64,
                "searched a computer player's move"
            );
            // Played on the copy to find what comes after it.
            if room.play_choice(choice.clone(), &presence).is_none() {
                break;
            }
            searched.choices.push(choice);
            with_room!(&mut room, r => {
                r.catch_up(horizon, &presence);
            });
        }
        (!searched.choices.is_empty()).then_some(searched)
    })
    .await
    .map_err(|e| ApiError::Internal(Box::new(e)))?;
    Ok(searched)
}

/// What [`keep`] did with a searched move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// Kept with the room at the version it was searched for: a catch-up lands it when due.
    Kept,
    /// The room moved on (or is gone) since the search: the choice is stale, dropped.
    Stale,
}

/// Keeps the first searched move with the room as its plan (conditional on the version it was
/// searched for; [`RoomStore::keep_plan`]), instead of waiting for its due time here: the
/// catch-up of whatever loads the room after `deadlineAt` plays it ([`Loaded::catch_up`]),
/// through the one save path. Only the first: the moves behind it follow from the room that
/// move makes, and are searched when its save cues the thinker again.
///
/// [`Loaded::catch_up`]: super::save::Loaded::catch_up
pub async fn keep<S: RoomStore>(
    store: &S,
    id: &RoomId,
    searched: &Searched,
) -> Result<Kept, ApiError> {
    let (Some(choice), Some(took)) = (searched.choices.first(), searched.took.first()) else {
        return Ok(Kept::Stale);
    };
    let plan = choice.plan(u64::try_from(took.as_micros()).unwrap_or(u64::MAX));
    match store.keep_plan(id, choice.turn().version, &plan).await {
        Ok(()) => {
            tracing::debug!(
                room = %crate::api::ids::digest_of(id),
                version = choice.turn().version,
                due = choice.turn().at,
                "kept a computer player's move as the room's plan"
            );
            Ok(Kept::Kept)
        }
        Err(StoreError::VersionConflict { .. } | StoreError::NotFound) => Ok(Kept::Stale),
        Err(e) => Err(e.into()),
    }
}

/// Plays searched moves through the one save path, each only if its turn is still the room's
/// next one; whether any landed. A landed move pushes as a person's does (`push`: the
/// deployment's sender, [`crate::push::notices`]): "your turn" to a person it leaves awaited
/// and away, the end to every away seat.
pub async fn land<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    push: Option<&crate::push::Push>,
    clock: &(impl Fn() -> Millis + Sync),
    id: &RoomId,
    searched: Searched,
) -> Result<bool, ApiError> {
    let Searched { choices, took } = searched;
    // The thinker's own saves cue no thinker: its loop looks at the room again at once.
    let saved = transact(
        store,
        announcer,
        &NoThinker,
        clock,
        Target::Load(id),
        new_request_id()?,
        |loaded, _, now| {
            let mut fired = Vec::new();
            for choice in &choices {
                let presence = &loaded.presence;
                // The room moved on (anyone's change landed meanwhile): the rest is stale.
                let Some(step) = loaded.room.play_choice(choice.clone(), presence) else {
                    break;
                };
                fired.push(step);
                // Whatever fell due behind the move, as a request's catch-up would.
                loaded.catch_up(now)?;
            }
            Ok(fired)
        },
    )
    .await?;
    if saved.outcome.is_empty() {
        tracing::debug!(room = %crate::api::ids::digest_of(id), "the room moved on during a search; searching again");
        return Ok(false);
    }
    super::push::deliver(store, announcer, push, clock, &saved.loaded, saved.now).await;
    let mut moves = BotMoves::default();
    for (fired, took) in saved.outcome.into_iter().zip(took) {
        if let Fired::Bot { fallback, .. } = fired {
            if fallback {
                // Core does no I/O: the why-log of an engine failure is written here.
                tracing::warn!(
                    room = %crate::api::ids::digest_of(id),
                    "a computer player's engine failed; it played the fallback (바둑: resigned)"
                );
            }
            moves.0.push(BotMove { took, fallback });
        }
    }
    moves.landed();
    Ok(true)
}
