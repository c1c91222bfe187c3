//! The scheduled sweeper on AWS Lambda: every minute (EventBridge Scheduler, `template.yaml`),
//! fire the overdue timeouts of rooms nobody is polling, and log what was fired.
//!
//! With `MADANG_DEV=1` in a build with the `dev` feature (test support, never in the template) it
//! reads the dev clock shared through the table before each sweep, so it sweeps at the same time
//! the API environments see.

use std::sync::Arc;

use lambda_runtime::{LambdaEvent, service_fn};
use madang_functions::App;
use madang_functions::live::aws::AwsAnnouncer;
use madang_functions::metrics;
use madang_functions::sweeper::{SweepReport, sweep_pushing};
use madang_functions::telemetry::{self, LogFormat};
use madang_functions::thinker::lambda::LambdaThinker;
use madang_infra::dynamo::{self, DynamoStore};
use serde_json::Value;

/// Rooms one run may visit: bounds the run's time and cost (the rest waits a minute; their
/// players' own requests catch them up meanwhile anyway).
const ROOMS_PER_RUN: usize = 500;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    telemetry::init(LogFormat::Json);
    metrics::init_from_env(true);
    let table = std::env::var("MADANG_TABLE").map_err(|_| "MADANG_TABLE is not set")?;
    let dev = madang_functions::app::dev_from_env();
    // Timeouts it fires are announced to the rooms' live connections (MADANG_LIVE_ENDPOINT).
    let rooms = DynamoStore::new(dynamo::client_from_env().await, table);
    // Web Push (its timeouts pass turns and end games): the key as the api function reads it,
    // once per execution environment.
    let push = madang_functions::push::Push::from_env_or_table(&rooms).await?;
    let announcer = Arc::new(AwsAnnouncer::from_env(rooms.clone()).await);
    let mut app = App::new(Arc::new(rooms), announcer)
        .with_dev(dev)
        .with_push(push);
    // The backstop of a lost bot-function invocation: a computer player's move long overdue is
    // handed to the bot function again (the sweeper never searches itself).
    if let Some(thinker) = LambdaThinker::from_env(app.clock.clone()).await {
        app = app.with_thinker(Arc::new(thinker));
    }
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Value>| {
        let app = app.clone();
        telemetry::set_request_id(Some(&event.context.request_id));
        async move {
            app.sync_clock().await?;
            // Writes the sweep's metrics (SweeperLag, when late) as it ends.
            let report: SweepReport = sweep_pushing(
                &*app.store,
                &*app.announcer,
                &*app.thinker,
                app.push.get().as_deref(),
                app.clock.now(),
                ROOMS_PER_RUN,
            )
            .await;
            tracing::info!(?report, "sweep done");
            // A run whose due-room query failed swept nothing: a missed run. It fails the
            // invocation, so AWS counts it (`Errors`, FunctionErrorsAlarm) with no metric of ours.
            if report.visited == 0 && report.errors > 0 {
                return Err("the due-room query failed: nothing was swept".into());
            }
            Ok::<_, lambda_runtime::Error>(report)
        }
    }))
    .await
}
