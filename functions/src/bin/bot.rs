//! The bot function on AWS Lambda (`BotFunction`): makes the computer players' moves of one
//! room, invoked asynchronously by the `api` function (or the sweeper's backstop) with
//! `{"roomId": R}` ([`madang_functions::thinker::lambda`]); with `{"roomId": R, "review": true}`
//! it computes and keeps the room's 바둑 review instead (`GET /rooms/{id}/review`).
//!
//! It searches the move that comes next in that room and, rather than wait for its due time
//! (the visible think time, 0.8–2 s, which Lambda would bill at this function's memory), keeps
//! the choice with the room as its plan for that version and returns
//! ([`madang_functions::service::bots::keep`]). The plan lands like a person's timeout: in the
//! catch-up of whatever loads the room once it is due — a client's read at its `deadlineAt`, a
//! long-poll, an action, or the sweeper — through the one save path, and that save invokes
//! this function again for the move after it. A move already due when its search ends (a long
//! 19줄 search, a game nobody watches) is saved here at once, and the loop looks again, until
//! no computer player has a move to make, the move is kept, or the invocation's time is nearly
//! up (then the sweeper's backstop invokes it again). Its memory is sized for the engine
//! (docs/cost.md), not the `api` function's.
//!
//! Configuration (set by `template.yaml`): `MADANG_TABLE`, `MADANG_CHAT_TABLE`,
//! `MADANG_LIVE_ENDPOINT` (its moves are announced like any save), `MADANG_PUSH=on` (the
//! Web Push key kept in the table; `MADANG_VAPID_PRIVATE_KEY` wins when set) with
//! `MADANG_PUSH_HOSTS` and `MADANG_PUSH_CONTACT` (a move that makes a person's turn pushes it,
//! as the api function's saves do), and `MADANG_DEV=1` in builds with the `dev` feature
//! only.

use std::sync::Arc;
use std::time::Duration;

use lambda_runtime::{LambdaEvent, service_fn};
use madang_core::room::RoomId;
use madang_functions::App;
use madang_functions::live::aws::AwsAnnouncer;
use madang_functions::metrics;
use madang_functions::service::bots::{Kept, keep, land, search};
use madang_functions::telemetry::{self, LogFormat};
use madang_functions::thinker::NoThinker;
use madang_functions::thinker::lambda::BotEvent;
use madang_infra::dynamo::{self, DynamoStore};

/// Time kept in hand at the end of an invocation: a move is not started unless its search, its
/// wait and its save fit before the function's timeout.
const RESERVE: Duration = Duration::from_secs(10);

/// A move due sooner than this after its search is saved here (after a wait of at most this
/// long) rather than kept as a plan: a reader at `deadlineAt` must find the plan kept, so a
/// plan is only kept well ahead of its due time.
const KEEP_AHEAD_MS: u64 = 250;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    telemetry::init(LogFormat::Json);
    metrics::init_from_env(true);
    let table = std::env::var("MADANG_TABLE").map_err(|_| "MADANG_TABLE is not set")?;
    let dev = madang_functions::app::dev_from_env();
    let mut rooms = DynamoStore::new(dynamo::client_from_env().await, table);
    if let Ok(chat) = std::env::var("MADANG_CHAT_TABLE") {
        rooms = rooms.with_chat_table(chat);
    }
    // Web Push as the api function has it: a move that makes a person's turn pushes it.
    let push = madang_functions::push::Push::from_env_or_table(&rooms).await?;
    // Its moves are announced to the rooms' live connections, as a request's save is.
    let announcer = Arc::new(AwsAnnouncer::from_env(rooms.clone()).await);
    // Its own saves cue no thinker: the loop below looks at the room again itself.
    let app = App::new(Arc::new(rooms), announcer)
        .with_dev(dev)
        .with_thinker(Arc::new(NoThinker))
        .with_push(push);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<BotEvent>| {
        let app = app.clone();
        telemetry::set_request_id(Some(&event.context.request_id));
        let deadline = event.context.deadline;
        async move {
            let id = RoomId::parse(&event.payload.room_id)
                .ok_or("the event's roomId is not a room id")?;
            if event.payload.review {
                app.sync_clock().await?;
                let reviewed =
                    madang_functions::service::review::compute(&*app.store, &id, app.clock.now())
                        .await?;
                metrics::flush();
                return Ok(serde_json::json!({ "reviewed": reviewed }));
            }
            let played = play(&app, &id, deadline).await?;
            metrics::flush();
            Ok::<_, lambda_runtime::Error>(serde_json::to_value(played)?)
        }
    }))
    .await
}

/// What one invocation did.
#[derive(Debug, Default, serde::Serialize)]
struct Played {
    /// Moves saved here (they were due when their search ended).
    moves: u32,
    /// A move kept as the room's plan (`true`: the invocation ended with it).
    kept: bool,
}

/// Makes the room's computer players' moves that are due by the end of their search, until the
/// next one is kept as a plan, none is left to make, or time runs short.
async fn play(
    app: &App<DynamoStore>,
    id: &RoomId,
    deadline_ms: u64,
) -> Result<Played, lambda_runtime::Error> {
    let mut played = Played::default();
    let wall = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    };
    let time_left = || Duration::from_millis(deadline_ms.saturating_sub(wall()));
    while time_left() > RESERVE {
        app.sync_clock().await?;
        let Some(searched) = Box::pin(search(&*app.store, app.clock.now(), id, None)).await? else {
            break;
        };
        // Not worth waiting for (billed at this function's memory): keep it with the room, and
        // a catch-up after its `deadlineAt` lands it.
        let ahead = searched.due_at().saturating_sub(app.clock.now());
        if ahead >= KEEP_AHEAD_MS {
            match keep(&*app.store, id, &searched).await? {
                Kept::Kept => {
                    played.kept = true;
                    break;
                }
                // The room moved on during the search: look at it again.
                Kept::Stale => continue,
            }
        }
        until(app, searched.due_at(), Duration::from_millis(ahead)).await?;
        let clock = || app.clock.now();
        // Boxed: the save path's future is deep (see the sweeper).
        let push = app.push.get();
        if Box::pin(land(
            &*app.store,
            &*app.announcer,
            push.as_deref(),
            &clock,
            id,
            searched,
        ))
        .await?
        {
            played.moves += 1;
        }
    }
    Ok(played)
}

/// Waits until the server's clock reaches `at` (`wait` from now by this environment's clock).
/// With test support on, the dev clock shared through the table may jump meanwhile: it is read
/// again every tenth of a second.
async fn until(
    app: &App<DynamoStore>,
    at: u64,
    wait: Duration,
) -> Result<(), lambda_runtime::Error> {
    if !app.dev {
        tokio::time::sleep(wait).await;
        return Ok(());
    }
    while app.clock.now() < at {
        tokio::time::sleep(Duration::from_millis(100).min(wait)).await;
        app.sync_clock().await?;
    }
    Ok(())
}
