//! The review of a finished 바둑 game (DESIGN "Replay", `GET /rooms/{id}/review`): black's
//! score lead after every move and the three largest swings, computed once by the bot engine
//! ([`madang_core::baduk::review`]) off the request path and kept by the store.
//!
//! The first request for a finished game claims the computation (a conditional write: one
//! claim wins however many ask at once) and hands it to the deployment's thinker
//! ([`crate::thinker::Thinker::review`]): locally the bounded pool of blocking threads, on AWS
//! the bot function. Until the review is kept, every request is answered 202 with
//! `Retry-After`; a claim whose computation died is claimed again after
//! [`REVIEW_CLAIM_STALE_MS`].

use madang_core::baduk::{Baduk, review};
use madang_core::room::{AnyRoom, ReplayError, Room, RoomId};
use madang_core::{Game, Millis};
use madang_infra::{KeptReview, REVIEW_CLAIM_STALE_MS, RoomStore, StoreError};

use crate::error::ApiError;
use crate::thinker::Thinker;

/// The seconds a client waits before asking again while the review is computed.
pub const RETRY_AFTER_SECS: u64 = 2;

/// What `GET /rooms/{id}/review` answers.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// The kept review, its JSON text (200).
    Done(String),
    /// Being computed (202 with `Retry-After`).
    Computing,
}

/// The review of room `id`, or that it is being computed (claiming and starting it if nobody
/// has).
/// Read from `store` at `now`; `thinker` computes a review claimed here.
pub async fn get<S: RoomStore>(
    store: &S,
    thinker: &dyn Thinker,
    now: Millis,
    id: &RoomId,
) -> Result<Answer, ApiError> {
    let stored = store.load(id, now).await?;
    let room = AnyRoom::decode(&stored.body).map_err(|e| ApiError::Internal(Box::new(e)))?;
    let AnyRoom::Baduk(room) = room else {
        return Err(ApiError::NotAvailable("복기는 바둑에만 있어요."));
    };
    reviewable(&room)?;
    match store.load_review(id, now).await? {
        Some(KeptReview::Done(body)) => return Ok(Answer::Done(body)),
        Some(KeptReview::Computing { since })
            if now < since.saturating_add(REVIEW_CLAIM_STALE_MS) =>
        {
            return Ok(Answer::Computing);
        }
        _ => {}
    }
    if store.claim_review(id, now, stored.expires_at).await? {
        thinker.review(id).await;
    }
    Ok(Answer::Computing)
}

/// Whether the room's game can be reviewed: over, and its log kept.
fn reviewable(room: &Room<Baduk>) -> Result<(), ApiError> {
    let over = room
        .game
        .as_ref()
        .is_some_and(|state| Baduk::result(state).is_some());
    if !over {
        return Err(ApiError::Invalid {
            code: "NOT_FINISHED",
            message: "복기는 대국이 끝난 뒤에 볼 수 있어요.".to_owned(),
        });
    }
    if room.replay.is_none() {
        return Err(ApiError::Replay(ReplayError::NotKept));
    }
    Ok(())
}

/// The review's seed: from the room's id, so the same game always gets the same review.
fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Computes room `id`'s review and keeps it: what the thinker runs (on a blocking thread
/// locally, in the bot function on AWS). `Ok(false)` when there is nothing to review (no
/// such room, not a finished 바둑 game with its log).
pub async fn compute<S: RoomStore>(
    store: &S,
    id: &RoomId,
    now: Millis,
) -> Result<bool, StoreError> {
    let stored = match store.load(id, now).await {
        Ok(stored) => stored,
        Err(StoreError::NotFound) => return Ok(false),
        Err(e) => return Err(e),
    };
    let room = AnyRoom::decode(&stored.body).map_err(|e| StoreError::Corrupt(Box::new(e)))?;
    let AnyRoom::Baduk(room) = room else {
        return Ok(false);
    };
    if reviewable(&room).is_err() {
        return Ok(false);
    }
    let Some(state) = room.game.as_ref() else {
        return Ok(false);
    };
    let options = state.options().clone();
    let moves = state.moves().to_vec();
    let seed = seed_of(id.as_str());
    // The search is CPU work of seconds: never on an async worker.
    let computed = tokio::task::spawn_blocking(move || review::review(&options, &moves, seed))
        .await
        .map_err(|e| StoreError::Corrupt(Box::new(e)))?
        .map_err(|(i, e)| StoreError::Corrupt(format!("move {i} does not replay: {e}").into()))?;
    let body = serde_json::to_string(&computed).map_err(|e| StoreError::Corrupt(Box::new(e)))?;
    store.save_review(id, &body, stored.expires_at).await?;
    Ok(true)
}
