//! The live channel on AWS Lambda: API Gateway's WebSocket API (`$connect`, `$default`,
//! `$disconnect`) on this one function (`madang_functions::live::aws`).
//!
//! Configuration (set by `template.yaml`):
//! - `MADANG_TABLE`: the rooms table (connections are registered in it).
//! - `MADANG_LIVE_ENDPOINT`: the WebSocket API's stage URL, to post to its connections.
//! - `MADANG_APP_ORIGIN`, `MADANG_ALLOWED_ORIGINS`: the origins whose pages may open the channel
//!   (the app's own, and the operator's comma-separated list; `*`: any). A handshake without an
//!   `Origin` (not a browser) is always let in.
//! - `MADANG_DEV=1` (builds with the `dev` feature only): test support (the dev clock shared
//!   through the table). Never set by the template.

use std::sync::Arc;

use lambda_runtime::{LambdaEvent, service_fn};
use madang_functions::App;
use madang_functions::live::Live;
use madang_functions::live::aws::{self, AwsAnnouncer, WsEvent};
use madang_functions::metrics;
use madang_functions::telemetry::{self, LogFormat};
use madang_infra::dynamo::{self, DynamoStore};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    telemetry::init(LogFormat::Json);
    metrics::init_from_env(true);
    let table = std::env::var("MADANG_TABLE").map_err(|_| "MADANG_TABLE is not set")?;
    let dev = madang_functions::app::dev_from_env();
    let store = DynamoStore::new(dynamo::client_from_env().await, table);
    let announcer = Arc::new(AwsAnnouncer::from_env(store.clone()).await);
    if !announcer.is_live() {
        return Err(format!("{} is not set", aws::ENDPOINT_VAR).into());
    }
    // Which pages may open the channel: the app's own origin (MADANG_APP_ORIGIN) and the
    // operator's (MADANG_ALLOWED_ORIGINS).
    let app = App::new(Arc::new(store), announcer.clone())
        .with_dev(dev)
        .with_live(Live::from_env()?);
    tracing::info!(dev, "live ready");
    lambda_runtime::run(service_fn(move |event: LambdaEvent<WsEvent>| {
        let (app, announcer) = (app.clone(), announcer.clone());
        telemetry::set_request_id(Some(&event.context.request_id));
        async move {
            if let Err(e) = app.sync_clock().await {
                tracing::warn!(error = %e, "dev clock not read");
            }
            let answer = aws::handle(&app, &announcer, event.payload).await;
            // The invocation's metrics (its posts), in one EMF line with its request id.
            metrics::flush();
            Ok::<_, lambda_runtime::Error>(answer)
        }
    }))
    .await
}
