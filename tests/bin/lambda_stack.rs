//! The Lambda path as a server a browser can use: the real `api`, `sweeper` and `live` binaries
//! behind the emulator's HTTP front door and API Gateway WebSocket front, on a fresh table on
//! dynalite (`MADANG_DYNALITE_ENDPOINT`), with test support on (`MADANG_DEV=1`: seeds, the dev
//! clock). The front door serves the web app as the HTTP API does on AWS, and every view's
//! `liveUrl` names the WebSocket front: another port, so another origin, as the WebSocket API is
//! on AWS. The browser tests (tests/web/live_cross_origin.test.js) use it.
//!
//! Prints `lambda stack listening on http://127.0.0.1:PORT` once every environment has finished
//! its init, then serves until its standard input closes (the parent is gone) or SIGTERM, and
//! stops every function it started. Build the binaries first:
//! `cargo build -p madang-functions --bins --features dev`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::sync::Arc;

use madang_infra::DynamoStore;
use madang_infra::contract::fresh_id;
use madang_infra::dynamo::{ensure_table, sdk_config};
use madang_tests::lambda::{LambdaStack, StackConfig};

#[tokio::main]
async fn main() {
    let endpoint = std::env::var("MADANG_DYNALITE_ENDPOINT").expect(
        "lambda_stack needs MADANG_DYNALITE_ENDPOINT (a running dynalite; scripts/test starts one)",
    );
    let config = sdk_config()
        .endpoint_url(&endpoint)
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "test", "test", None, None, "static",
        ))
        .load()
        .await;
    let client = aws_sdk_dynamodb::Client::new(&config);
    let table = format!("madang-{}", fresh_id("browser"));
    ensure_table(&client, &table).await.unwrap();
    let store = Arc::new(DynamoStore::new(client, table));
    let stack = LambdaStack::start(
        store,
        &endpoint,
        StackConfig {
            api_environments: 2,
            live: true,
            ..StackConfig::default()
        },
    )
    .await;
    println!("lambda stack listening on {}", stack.base());
    let stdin_closed = tokio::task::spawn_blocking(|| {
        let mut sink = [0u8; 64];
        let mut stdin = std::io::stdin();
        while stdin.read(&mut sink).is_ok_and(|n| n > 0) {}
    });
    let mut term =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).unwrap();
    tokio::select! {
        _ = stdin_closed => {}
        _ = term.recv() => {}
    }
    eprintln!("lambda stack stopping; logs in {}", stack.logs().display());
    // Dropping the stack stops the functions' processes.
    drop(stack);
}
