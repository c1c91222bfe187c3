//! Replay (DESIGN "Replay"): a game's room as a spectator saw it after any step, answered from
//! the stored room alone — a read that never saves, fires no timeout and moves no clock.
//!
//! The room is replayed through the engines from its log ([`madang_core::room::Replay`]),
//! from the nearest checkpoint. The replays of the last few rooms asked about are kept in this
//! process ([`Replays`]), so stepping through a 722-move game costs at most
//! [`CHECKPOINT_EVERY`](madang_core::room::CHECKPOINT_EVERY) engine steps a request once its checkpoints are made; a game in
//! progress keeps its checkpoints as its log grows. On Lambda, where a request may land on
//! another instance, a miss is one replay up to the step asked for (measured in
//! `BENCHMARKS.md`).

use std::sync::Mutex;

use madang_core::baduk::Baduk;
use madang_core::room::{AnyRoom, Replay, ReplayError, Room, RoomId};
use madang_core::yut::Yut;
use madang_core::{Game, Millis};
use madang_infra::RoomStore;
use serde_json::value::RawValue;

use crate::error::ApiError;

/// How many rooms' replays a process keeps.
pub const KEPT_REPLAYS: usize = 8;

/// A replay of either game. (Kept a few at a time and moved in and out of the cache whole, so
/// the larger variant stays unboxed, as `AnyRoom`'s does.)
#[allow(clippy::large_enum_variant)]
enum AnyReplay {
    Yut(Replay<Yut>),
    Baduk(Replay<Baduk>),
}

/// The replays of the rooms asked about last, most recent first.
#[derive(Default)]
pub struct Replays {
    kept: Mutex<Vec<(String, AnyReplay)>>,
}

impl std::fmt::Debug for Replays {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replays").finish_non_exhaustive()
    }
}

impl Replays {
    /// Takes the kept replay of room `id` out (so no lock is held while it replays).
    fn take(&self, id: &str) -> Option<AnyReplay> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let at = kept.iter().position(|(k, _)| k == id)?;
        Some(kept.remove(at).1)
    }

    /// Puts a replay back, as the most recent, forgetting the oldest past [`KEPT_REPLAYS`].
    fn put(&self, id: &str, replay: AnyReplay) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(k, _)| k != id);
        kept.insert(0, (id.to_owned(), replay));
        kept.truncate(KEPT_REPLAYS);
    }
}

/// The spectator's view of the room after step `n` of its game, with `"replay":{"at":n,"of":N}`,
/// read from `store` at `now`; the replay is kept in `replays` for the next step asked.
pub async fn at<S: RoomStore>(
    store: &S,
    replays: &Replays,
    now: Millis,
    id: &RoomId,
    n: u64,
) -> Result<Box<RawValue>, ApiError> {
    let stored = store.load(id, now).await?;
    let room = AnyRoom::decode(&stored.body).map_err(|e| ApiError::Internal(Box::new(e)))?;
    let kept = replays.take(id.as_str());
    match room {
        AnyRoom::Yut(room) => {
            let kept = match kept {
                Some(AnyReplay::Yut(r)) => Some(r),
                _ => None,
            };
            let (view, replay) = step(&room, kept, n)?;
            replays.put(id.as_str(), AnyReplay::Yut(replay));
            Ok(view)
        }
        AnyRoom::Baduk(room) => {
            let kept = match kept {
                Some(AnyReplay::Baduk(r)) => Some(r),
                _ => None,
            };
            let (view, replay) = step(&room, kept, n)?;
            replays.put(id.as_str(), AnyReplay::Baduk(replay));
            Ok(view)
        }
    }
}

/// Replays `room` to step `n`, from `kept` when it is this room's (brought up to its log).
fn step<G: Game>(
    room: &Room<G>,
    kept: Option<Replay<G>>,
    n: u64,
) -> Result<(Box<RawValue>, Replay<G>), ApiError> {
    let mut replay = match kept {
        Some(mut replay) => {
            replay.extend(room).map_err(refused)?;
            replay
        }
        None => Replay::new(room).map_err(refused)?,
    };
    let then = replay.at(n).map_err(refused)?;
    let presence = then.replay_presence();
    let view = super::view_json(&then, None, &presence, then.updated_at)?;
    let of = replay.steps();
    let text = view.get().trim_end();
    let open = text
        .strip_suffix('}')
        .ok_or_else(|| ApiError::Internal("a room view is an object".into()))?;
    let body = format!("{open},\"replay\":{{\"at\":{n},\"of\":{of}}}}}");
    let view = RawValue::from_string(body).map_err(|e| ApiError::Internal(Box::new(e)))?;
    Ok((view, replay))
}

fn refused(e: ReplayError) -> ApiError {
    match e {
        ReplayError::Broken(step) => {
            ApiError::Internal(format!("the replay log does not replay at step {step}").into())
        }
        e => ApiError::Replay(e),
    }
}
