//! The HTTP API on AWS Lambda: the same router as the local server, over DynamoDB.
//!
//! Configuration (set by `template.yaml`): `MADANG_TABLE`, the table name, and the `MADANG_LIMIT_*`
//! limits (README, "Configuration"). The SDK client is built once per cold start and shared by
//! every invocation the instance serves. Per-client limits count per instance (best effort; the
//! WAF rule of `docs/deploy.md` is the real per-address bound); API Gateway refuses header
//! blocks over 10 KB and bounds connections itself.

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
    let limits = Limits {
        max_wait_secs: MAX_WAIT_SECS,
        ..Limits::default()
    }
    .with_env()?;
    let app = App::new(store).with_limits(limits);
    lambda_http::run(router(app)).await
}
