//! The scheduled sweeper on AWS Lambda: every minute (EventBridge Scheduler, `template.yaml`),
//! fire the overdue timeouts of rooms nobody is polling, and log what was fired.

use std::sync::Arc;

use lambda_runtime::{LambdaEvent, service_fn};
use madang_functions::Clock;
use madang_functions::sweeper::{SweepReport, sweep};
use madang_functions::telemetry::{self, LogFormat};
use madang_infra::dynamo::{self, DynamoStore};
use serde_json::Value;

/// Rooms one run may visit: bounds the run's time and cost (the rest waits a minute; their
/// players' own requests catch them up meanwhile anyway).
const ROOMS_PER_RUN: usize = 500;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    telemetry::init(LogFormat::Json);
    let table = std::env::var("MADANG_TABLE").map_err(|_| "MADANG_TABLE is not set")?;
    let store = Arc::new(DynamoStore::new(dynamo::client_from_env().await, table));
    let clock = Arc::new(Clock::default());
    lambda_runtime::run(service_fn(move |_event: LambdaEvent<Value>| {
        let (store, clock) = (store.clone(), clock.clone());
        async move {
            let report: SweepReport = sweep(&*store, clock.now(), ROOMS_PER_RUN).await;
            tracing::info!(?report, "sweep done");
            Ok::<_, lambda_runtime::Error>(report)
        }
    }))
    .await
}
