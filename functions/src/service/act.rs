//! Applying one lobby or game action for the holder of a token.

use madang_core::room::{Answer, Presence, Room, RoomId, TokenHash};
use madang_core::{Game, Millis, PlayerId, with_room};
use madang_infra::RoomStore;

use super::Acted;
use super::action::ActionRequest;
use super::events::{Events, render};
use super::new_request_id;
use super::save::{Target, transact};
use crate::api::events::Wire;
use crate::app::App;
use crate::error::ApiError;

/// An `Idempotency-Key` and the body it came with, hashed.
#[derive(Clone, Copy, Debug)]
pub struct Idempotency {
    /// Hash of the key.
    pub key: u32,
    /// Hash of the request body.
    pub body: u32,
}

/// What the work of one attempt decided.
enum Step {
    /// Applied (or replayed): version and events.
    Done {
        version: u64,
        events: Events,
        replayed: bool,
    },
    /// The caller's `expectedVersion` is stale.
    Stale,
}

/// Applies one action for the holder of `token`.
pub async fn act<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    token: &TokenHash,
    request: ActionRequest<'_>,
    idempotency: Option<Idempotency>,
) -> Result<Acted, ApiError> {
    // 한 판 더 opens another room; it is safe to repeat by construction (no key needed).
    if request.is_rematch() {
        return super::rematch::rematch(app, id, token).await;
    }
    let mut player = None;
    let saved = transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
        || app.clock.now(),
        Target::Load(id),
        new_request_id()?,
        |loaded, fired, now| {
            let who = loaded.authenticate(token).ok_or(ApiError::Unauthorized)?;
            loaded.see(&who, now);
            loaded.acted_by(&who);
            let presence = &loaded.presence;
            let step = with_room!(&mut loaded.room, r => {
                act_in(r, &who, &request, idempotency, fired, presence, now)
            })?;
            player = Some(who);
            Ok(step)
        },
    )
    .await?;
    super::push::deliver(
        &*app.store,
        &*app.announcer,
        app.push.get().as_deref(),
        &|| app.clock.now(),
        &saved.loaded,
        saved.now,
    )
    .await;
    let viewer = player.as_ref();
    let room = saved.loaded.view(viewer, saved.now)?;
    match saved.outcome {
        Step::Done {
            version,
            events,
            replayed,
        } => Ok(Acted {
            version,
            events,
            room,
            replayed,
        }),
        // The caller pinned the version they saw, and the room has moved on: their action may
        // no longer make sense. Tell them, with the room as it is now.
        Step::Stale => Err(ApiError::VersionConflict { room }),
    }
}

fn act_in<G: Game<Event: Wire>>(
    room: &mut Room<G>,
    player: &PlayerId,
    request: &ActionRequest<'_>,
    idempotency: Option<Idempotency>,
    fired: &Events,
    presence: &Presence,
    now: Millis,
) -> Result<Step, ApiError> {
    // A stored answer comes first, before any 409: a retry — or a racing twin — of a keyed
    // request that was accepted gets its first answer, whatever happened since: its version and
    // the room as it is now. Events are not kept (they can be long); the room shows what
    // happened (윷놀이 `state.log`, 바둑 `state.moves`).
    if let Some(Idempotency { key, body }) = idempotency
        && let Some(answer) = room.recall(player, key, body)?
    {
        return Ok(Step::Done {
            version: answer.version,
            events: Events::new(),
            replayed: true,
        });
    }
    if request
        .expected_version
        .is_some_and(|v| !v.is(room.version))
    {
        return Ok(Step::Stale);
    }
    let action = request.for_game::<G>()?;
    let acted = room.act(player, action, now)?;
    // What the action made due at once — an auto-played seat's turn — plays now, so the caller
    // sees it in this answer (nothing else can be due yet: every other deadline is in the future
    // after an accepted action). A computer player's move is the thinker's, never this
    // request's: the answer is not held for a search.
    let followed = room.catch_up(now, presence);
    let mut events = fired.clone();
    render(&acted, &mut events)?;
    render(&followed, &mut events)?;
    if let Some(Idempotency { key, body }) = idempotency {
        room.remember(Answer {
            player: player.clone(),
            key,
            body,
            version: room.version,
        });
    }
    Ok(Step::Done {
        version: room.version,
        events,
        replayed: false,
    })
}
