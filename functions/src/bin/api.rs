//! The HTTP API on AWS Lambda: the same router as the local server, over DynamoDB.
//!
//! Configuration (set by `template.yaml`): `MADANG_TABLE`, the table name. The SDK client is built
//! once per cold start and shared by every invocation the instance serves.

use std::sync::Arc;

use madang_functions::app::Limits;
use madang_functions::telemetry::{self, LogFormat};
use madang_functions::{App, router};
use madang_infra::dynamo::{self, DynamoStore};

/// API Gateway's HTTP API cuts a request at 30 s; the function's timeout is 28 s and a DynamoDB
/// long-poll needs a few seconds of headroom for its last read and the answer.
const MAX_WAIT_SECS: u64 = 20;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    telemetry::init(LogFormat::Json);
    let table = std::env::var("MADANG_TABLE").map_err(|_| "MADANG_TABLE is not set")?;
    let store = Arc::new(DynamoStore::new(dynamo::client_from_env().await, table));
    let app = App::new(store).with_limits(Limits {
        max_wait_secs: MAX_WAIT_SECS,
    });
    lambda_http::run(router(app)).await
}
