//! Web Push for the rooms (DESIGN "Slow 바둑 and 'your turn' notifications"): a seat's
//! subscriptions kept and dropped through the one save path, and the pushes a saved change calls
//! for sent after it ([`deliver`]) — a subscription the push service says is gone forgotten.

use madang_core::room::{PushSubscription, TokenHash};
use madang_core::{Millis, with_room};
use madang_infra::RoomStore;

use super::new_request_id;
use super::save::{Loaded, Target, transact};
use crate::app::App;
use crate::error::ApiError;
use crate::push::{Delivery, Push, check_subscription, notices};
use crate::thinker::NoThinker;

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

fn push_of<S>(app: &App<S>) -> Result<&Push, ApiError> {
    app.push.as_deref().ok_or(ApiError::PushOff)
}

/// Keeps `sub` for the seat of `token`'s holder (the same endpoint renewed; a fourth pushes out
/// the seat's oldest). Refused before anything is kept when the endpoint is not an allowed push
/// service's or the keys do not read.
pub async fn subscribe<S: RoomStore>(
    app: &App<S>,
    id: &str,
    token: &TokenHash,
    sub: Subscription,
) -> Result<(), ApiError> {
    let push = push_of(app)?;
    transact(
        &*app.store,
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
    id: &str,
    token: &TokenHash,
    endpoint: &str,
) -> Result<(), ApiError> {
    push_of(app)?;
    transact(
        &*app.store,
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

/// Sends the pushes `loaded` — a room as a change just saved it — calls for ([`notices`]), and
/// forgets the subscriptions their push services say are gone. Never fails the change: a push
/// that fails is logged (and the next one tries again).
pub async fn deliver<S: RoomStore>(
    store: &S,
    push: Option<&Push>,
    clock: &(impl Fn() -> Millis + Sync),
    loaded: &Loaded,
    now: Millis,
) {
    let Some(push) = push else {
        return;
    };
    let notices = notices(loaded, now);
    if notices.is_empty() {
        return;
    }
    let mut gone: Vec<String> = Vec::new();
    for notice in &notices {
        send_notice(push, loaded, notice, &mut gone).await;
    }
    if !gone.is_empty() {
        forget(store, clock, &loaded.id, &gone).await;
    }
}

/// The sweeper's part when a room's "time is low" push is due ([`crate::push::reminder`]): marks
/// the deadline reminded (once: a racing sweep finds it marked and sends nothing), then pushes
/// `timeLow` to the away seats awaited.
pub async fn remind<S: RoomStore>(
    store: &S,
    push: Option<&Push>,
    clock: &(impl Fn() -> Millis + Sync),
    id: &str,
    now: Millis,
) -> Result<(), ApiError> {
    let mut due = None;
    let saved = transact(
        store,
        &NoThinker,
        clock,
        Target::Load(id),
        new_request_id()?,
        |loaded, _, now| {
            due = None;
            if let Some((deadline, at)) = crate::push::reminder(&loaded.room, &loaded.presence)
                && at <= now
            {
                with_room!(&mut loaded.room, r => r.remind(deadline, now));
                due = Some(deadline);
            }
            Ok(())
        },
    )
    .await?;
    let (Some(push), Some(deadline)) = (push, due) else {
        return Ok(());
    };
    let mut gone = Vec::new();
    for notice in crate::push::time_low_notices(&saved.loaded, deadline, now) {
        send_notice(push, &saved.loaded, &notice, &mut gone).await;
    }
    if !gone.is_empty() {
        forget(store, clock, id, &gone).await;
    }
    Ok(())
}

/// Sends one notice to every subscription of its seat; the gone ones are added to `gone`.
async fn send_notice(
    push: &Push,
    loaded: &Loaded,
    notice: &crate::push::Notice,
    gone: &mut Vec<String>,
) {
    let Ok(payload) = serde_json::to_vec(&notice.payload) else {
        return;
    };
    // Korean titles and a result line: far under the bound, which a push service's 4 KB needs.
    if payload.len() > crate::push::MAX_PAYLOAD_BYTES {
        tracing::warn!(room = %crate::api::ids::digest_of(&loaded.id), bytes = payload.len(), "push payload too large");
        return;
    }
    let subs: Vec<PushSubscription> = with_room!(&loaded.room, r => {
        r.subscriptions_of(&notice.player).cloned().collect()
    });
    for sub in &subs {
        match push.send(sub, &payload, notice.ttl, notice.urgency).await {
            Delivery::Sent => {
                tracing::debug!(room = %crate::api::ids::digest_of(&loaded.id), "push sent")
            }
            Delivery::Gone => gone.push(sub.endpoint.clone()),
            Delivery::Refused(why) => {
                tracing::warn!(room = %crate::api::ids::digest_of(&loaded.id), why, "push refused");
                gone.push(sub.endpoint.clone());
            }
            Delivery::Failed(why) => {
                tracing::warn!(room = %crate::api::ids::digest_of(&loaded.id), why, "push failed");
            }
        }
    }
}

/// Removes the subscriptions at `endpoints` from the room (their push service dropped them).
async fn forget<S: RoomStore>(
    store: &S,
    clock: &(impl Fn() -> Millis + Sync),
    id: &str,
    endpoints: &[String],
) {
    let Ok(request) = new_request_id() else {
        return;
    };
    let forgot = transact(
        store,
        &NoThinker,
        clock,
        Target::Load(id),
        request,
        |loaded, _, now| {
            for endpoint in endpoints {
                with_room!(&mut loaded.room, r => r.forget_endpoint(endpoint, now));
            }
            Ok(())
        },
    )
    .await;
    if let Err(e) = forgot {
        tracing::warn!(room = %crate::api::ids::digest_of(id), error = %e, "forgetting a gone push subscription failed");
    }
}
