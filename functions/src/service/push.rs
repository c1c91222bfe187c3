//! Web Push for the rooms (DESIGN "Slow 바둑 and 'your turn' notifications"): the pushes a saved
//! change calls for, sent after it ([`deliver`]), all at once within one bound — a subscription
//! the push service says is gone forgotten, a push that failed counted (`PushFailures`). A seat's
//! subscriptions are kept and dropped by [`super::subscriptions`].

use std::sync::Arc;

use futures_util::stream::{FuturesUnordered, StreamExt as _};
use madang_core::room::{PushSubscription, RoomId};
use madang_core::{Millis, with_room};
use madang_infra::RoomStore;

use super::new_request_id;
use super::save::{Loaded, Target, transact};
use crate::announce::Announcer;
use crate::error::ApiError;
use crate::metrics::{self, Metric};
use crate::push::{Delivery, Notice, PUSH_BOUND, Push, notices};
use crate::thinker::NoThinker;

/// Sends the pushes `loaded` — a room as a change just saved it — calls for ([`notices`]), and
/// forgets the subscriptions their push services say are gone. Never fails the change: a push
/// that fails is logged and counted (and the next one tries again). All of them go at once,
/// within [`PUSH_BOUND`] together. Forgetting a subscription is a save, told to `announcer`.
pub async fn deliver<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    push: Option<&Push>,
    clock: &(impl Fn() -> Millis + Sync),
    loaded: &Loaded,
    now: Millis,
) {
    let Some(push) = push else {
        return;
    };
    let notices = notices(&loaded.room, &loaded.presence, &loaded.at_load, now);
    if notices.is_empty() {
        return;
    }
    let gone = send_all(push, loaded, &notices).await;
    if !gone.is_empty() {
        forget(store, announcer, clock, &loaded.id, &gone).await;
    }
}

/// The sweeper's part when a room's "time is low" push is due ([`crate::push::reminder`]): marks
/// the deadline reminded (once: a racing sweep finds it marked and sends nothing), then pushes
/// `timeLow` to the away seats awaited.
pub async fn remind<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    push: Option<&Push>,
    clock: &(impl Fn() -> Millis + Sync),
    id: &RoomId,
    now: Millis,
) -> Result<(), ApiError> {
    let mut due = None;
    let saved = transact(
        store,
        announcer,
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
    let loaded = &saved.loaded;
    let notices = crate::push::time_low_notices(&loaded.room, &loaded.presence, deadline, now);
    let gone = send_all(push, &saved.loaded, &notices).await;
    if !gone.is_empty() {
        forget(store, announcer, clock, id, &gone).await;
    }
    Ok(())
}

/// Sends every notice to every subscription of its seat, all at once (a seat has up to three
/// subscriptions; a game's end goes to each away seat), and waits for their push services'
/// answers [`PUSH_BOUND`] at most, together: a push service that stalls holds the answer that
/// long, never longer, and the others' pushes are not behind it. Returns the endpoints to
/// forget (gone at their push service, or refused here). A push that failed or was still
/// unanswered at the bound is counted ([`Metric::PushFailed`]).
async fn send_all(push: &Push, loaded: &Loaded, notices: &[Notice]) -> Vec<String> {
    let digest = crate::api::ids::digest_of(&loaded.id);
    let mut sends = FuturesUnordered::new();
    for notice in notices {
        let Ok(payload) = serde_json::to_vec(&notice.payload) else {
            continue;
        };
        // Korean titles and a result line: far under the bound, which a push service's 4 KB
        // needs.
        if payload.len() > crate::push::MAX_PAYLOAD_BYTES {
            tracing::warn!(room = %digest, bytes = payload.len(), "push payload too large");
            continue;
        }
        let payload: Arc<[u8]> = payload.into();
        let subs: Vec<PushSubscription> = with_room!(&loaded.room, r => {
            r.subscriptions_of(&notice.player).cloned().collect()
        });
        for sub in subs {
            let payload = payload.clone();
            sends.push(async move {
                let delivery = push.send(&sub, &payload, notice.ttl, notice.urgency).await;
                (sub.endpoint, delivery)
            });
        }
    }
    let until = tokio::time::Instant::now() + PUSH_BOUND;
    let mut gone = Vec::new();
    while let Ok(Some((endpoint, delivery))) = tokio::time::timeout_at(until, sends.next()).await {
        match delivery {
            Delivery::Sent => tracing::debug!(room = %digest, "push sent"),
            Delivery::Gone => gone.push(endpoint),
            Delivery::Refused(why) => {
                tracing::warn!(room = %digest, why, "push refused");
                gone.push(endpoint);
            }
            Delivery::Failed(why) => {
                metrics::record(Metric::PushFailed);
                tracing::warn!(room = %digest, why, "push failed");
            }
        }
    }
    // Still unanswered at the bound: given up (dropping them closes their connections).
    if !sends.is_empty() {
        tracing::warn!(room = %digest, pushes = sends.len(), "push timed out");
        for _ in 0..sends.len() {
            metrics::record(Metric::PushFailed);
        }
    }
    gone
}

/// Removes the subscriptions at `endpoints` from the room (their push service dropped them).
async fn forget<S: RoomStore>(
    store: &S,
    announcer: &dyn Announcer,
    clock: &(impl Fn() -> Millis + Sync),
    id: &RoomId,
    endpoints: &[String],
) {
    let Ok(request) = new_request_id() else {
        return;
    };
    let forgot = transact(
        store,
        announcer,
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
