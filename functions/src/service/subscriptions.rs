//! A seat's Web Push subscriptions (DESIGN "Slow 바둑 and 'your turn' notifications"), kept and
//! dropped through the one save path; the pushes themselves are [`super::push`]'s.

use std::sync::Arc;

use madang_core::room::{PushSubscription, RoomId, TokenHash};
use madang_core::with_room;
use madang_infra::RoomStore;

use super::new_request_id;
use super::save::{Target, transact};
use crate::app::App;
use crate::error::ApiError;
use crate::push::{Push, check_subscription};

/// A browser's `PushSubscription.toJSON()`, as `PUT /rooms/{id}/push` reads it.
#[derive(Clone, Debug)]
pub struct Subscription {
    /// The push service's URL.
    pub endpoint: String,
    /// `keys.p256dh`.
    pub p256dh: String,
    /// `keys.auth`.
    pub auth: String,
}

fn push_of<S>(app: &App<S>) -> Result<Arc<Push>, ApiError> {
    app.push.get().ok_or(ApiError::PushOff)
}

/// Keeps `sub` for the seat of `token`'s holder (the same endpoint renewed; a fourth pushes out
/// the seat's oldest). Refused before anything is kept when the endpoint is not an allowed push
/// service's or the keys do not read.
pub async fn subscribe<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    token: &TokenHash,
    sub: Subscription,
) -> Result<(), ApiError> {
    let push = push_of(app)?;
    transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
        || app.clock.now(),
        Target::Load(id),
        new_request_id()?,
        |loaded, _, now| {
            let who = loaded.authenticate(token).ok_or(ApiError::Unauthorized)?;
            loaded.see(&who, now);
            let kept = PushSubscription {
                player: who,
                endpoint: sub.endpoint.clone(),
                p256dh: sub.p256dh.clone(),
                auth: sub.auth.clone(),
            };
            check_subscription(push.hosts(), &kept).map_err(|why| ApiError::Invalid {
                code: "INVALID_SUBSCRIPTION",
                message: why.to_owned(),
            })?;
            let same = with_room!(&loaded.room, r => r.push.contains(&kept));
            if !same {
                with_room!(&mut loaded.room, r => r.subscribe(kept.clone(), now));
            }
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Drops the subscription at `endpoint` of `token`'s holder (nothing to drop is no error).
pub async fn unsubscribe<S: RoomStore>(
    app: &App<S>,
    id: &RoomId,
    token: &TokenHash,
    endpoint: &str,
) -> Result<(), ApiError> {
    push_of(app)?;
    transact(
        &*app.store,
        &*app.announcer,
        &*app.thinker,
        || app.clock.now(),
        Target::Load(id),
        new_request_id()?,
        |loaded, _, now| {
            let who = loaded.authenticate(token).ok_or(ApiError::Unauthorized)?;
            loaded.see(&who, now);
            with_room!(&mut loaded.room, r => r.unsubscribe(&who, endpoint, now));
            Ok(())
        },
    )
    .await?;
    Ok(())
}
