//! The HTTP API on AWS Lambda: the same router as the local server, over DynamoDB.
//!
//! Configuration (set by `template.yaml`):
//! - `MADANG_TABLE`: the table name.
//! - `MADANG_MAX_WAIT_SECS`: the deployment's cap on a long-poll's wait, at most 20 (`0`: short
//!   polls only; every read answers at once).
//! - the `MADANG_LIMIT_*` per-client limits (README, "Configuration"). They count per instance
//!   (best effort; the WAF rule of `docs/deploy.md` is the real per-address bound); API Gateway
//!   refuses header blocks over 10 KB and bounds connections itself.
//! - `MADANG_LIVE_ENDPOINT`: the live channel's WebSocket API stage URL (posts to its
//!   connections after every save; `liveUrl` in every view). Unset: no live channel.
//! - `MADANG_PUSH=on` (`WebPush: On`): Web Push, with the deployment's VAPID key kept in the
//!   table (made on first need; `MADANG_VAPID_PRIVATE_KEY` wins when set).
//! - `MADANG_BOT_FUNCTION`: the bot function (`BotFunction`), invoked asynchronously when a
//!   save makes a computer player's move due ([`madang_functions::thinker::lambda`]).
//! - `MADANG_DEV=1` (builds with the `dev` feature only): test support, as on the local server
//!   (seeds, `POST /dev/clock`), with the clock offset shared by every execution environment
//!   through the table. Never set by the template.
//!
//! Init does all the work that does not depend on a request, so the first request of a fresh
//! execution environment is as fast as the next: the SDK client is built (once per cold start,
//! shared by every invocation the instance serves), its credentials and endpoint resolved and a
//! connection to DynamoDB opened (one eventually consistent read, half a unit per cold start: of
//! the Web Push key's item when push is on, else of a key that does not exist), and the router
//! built — all before the runtime asks for the first event.

use std::sync::Arc;
use std::time::Instant;

use lambda_http::{Request, RequestExt, service_fn};
use madang_functions::app::Limits;
use madang_functions::live::aws::{self, AwsAnnouncer};
use madang_functions::live::{Live, LiveUrl};
use madang_functions::metrics;
use madang_functions::push::Push;
use madang_functions::telemetry::{self, LogFormat};
use madang_functions::thinker::lambda::LambdaThinker;
use madang_functions::{App, RoomStore, router};
use madang_infra::dynamo::{self, DynamoStore};
use tower::ServiceExt;

/// API Gateway's HTTP API cuts a request at 30 s; the function's timeout is 28 s and a DynamoDB
/// long-poll needs a few seconds of headroom for its last read and the answer.
const MAX_WAIT_SECS: u64 = 20;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let started = Instant::now();
    telemetry::init(LogFormat::Json);
    // EMF metric lines on stdout (`MADANG_STAGE`, set by the template, is their `Stage`).
    metrics::init_from_env(true);
    let table = std::env::var("MADANG_TABLE").map_err(|_| "MADANG_TABLE is not set")?;
    let dev = madang_functions::app::dev_from_env();
    let limits = Limits {
        max_wait_secs: MAX_WAIT_SECS,
        ..Limits::default()
    }
    .with_env()?;
    let mut rooms = DynamoStore::new(dynamo::client_from_env().await, table);
    // The chat table (template.yaml's ChatTable); by default named after the rooms table.
    if let Ok(chat) = std::env::var("MADANG_CHAT_TABLE") {
        rooms = rooms.with_chat_table(chat);
    }
    // Web Push: MADANG_VAPID_PRIVATE_KEY when set; with MADANG_PUSH=on (WebPush On), the key
    // kept in the table, made by the first function that needs it. Its read (half a unit, once
    // per execution environment) also warms the client, as the read below does otherwise; a
    // failure fails the init, which Lambda retries at the next request.
    let push = Push::from_env_or_table(&rooms).await?;
    let announcer = Arc::new(AwsAnnouncer::from_env(rooms.clone()).await);
    let store = Arc::new(rooms);
    let live_url = std::env::var(aws::ENDPOINT_VAR)
        .ok()
        .and_then(|endpoint| aws::live_url(&endpoint))
        .map_or(LiveUrl::Off, LiveUrl::Fixed);
    // Warm the client: a read of a room that cannot exist resolves credentials and the endpoint
    // and leaves a connection (TLS on AWS) in the pool. A failure here is not fatal: the first
    // request will try again and report what is wrong.
    if !Push::kept_in_table()
        && let Err(e) = store.peek(&madang_core::room::RoomId::unmade(), 0).await
        && !matches!(e, madang_infra::StoreError::NotFound)
    {
        tracing::warn!(error = %e, "warm-up read failed");
    }
    // Behind CloudFront on the HTTP API (template.yaml sets it only then): refuse whatever did
    // not come through the distribution.
    let origin = madang_functions::api::origin::OriginSecret::from_env()?;
    let mut app = App::new(store, announcer)
        .with_dev(dev)
        .with_limits(limits)
        .with_origin(origin)
        .with_live(Live::new(live_url, 0))
        .with_push(push);
    // Computer players' moves are the bot function's (`MADANG_BOT_FUNCTION`): a save that makes
    // one due invokes it asynchronously. Without it (a deployment that has none), this
    // environment would search in-process, after its answers, on one blocking thread.
    if let Some(thinker) = LambdaThinker::from_env(app.clock.clone()).await {
        app = app.with_thinker(Arc::new(thinker));
    }
    let routes = router(app.clone());
    tracing::info!(
        init_us = started.elapsed().as_micros() as u64,
        dev,
        max_wait_secs = limits.max_wait_secs,
        "api ready"
    );
    lambda_http::run(service_fn(move |request: Request| {
        let (app, routes) = (app.clone(), routes.clone());
        // Every log and metric line of this invocation carries its request id.
        let id = request.lambda_context_ref().map(|c| c.request_id.clone());
        telemetry::set_request_id(id.as_deref());
        async move {
            // Test support only: every environment reads the shared dev clock before serving.
            if let Err(e) = app.sync_clock().await {
                tracing::warn!(error = %e, "dev clock not read");
            }
            routes.oneshot(request).await
        }
    }))
    .await
}
