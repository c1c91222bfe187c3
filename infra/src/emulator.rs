//! Test support (feature `contract`): the one way every test reaches a DynamoDB emulator.
//!
//! `./scripts/test` installs dynalite and moto, starts them on free loopback ports and names
//! them in [`DYNALITE`] and [`MOTO`]. A client here is configured as the store's own
//! ([`sdk_config`]: retries and timeouts) with dummy static credentials and a fixed region, so
//! no test ever looks for real AWS credentials. A missing variable fails the test that needs
//! it, with how to start the emulators: a DynamoDB test must never pass by not running.
// Test support: a failure here is the calling test's failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{Credentials, Region};

use crate::contract::fresh_id;
use crate::dynamo::{DynamoStore, ensure_table, sdk_config};

/// The variable naming dynalite's endpoint (`http://127.0.0.1:PORT`).
pub const DYNALITE: &str = "MADANG_DYNALITE_ENDPOINT";
/// The variable naming moto's endpoint.
pub const MOTO: &str = "MADANG_MOTO_ENDPOINT";

/// The endpoint that `var` names. Panics when it is not set.
pub fn endpoint(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set. The DynamoDB tests need the emulators that ./scripts/test \
             installs and starts: run ./scripts/test (or start dynalite and moto as it does and \
             set {DYNALITE} and {MOTO})"
        )
    })
}

/// A client of the emulator at `endpoint`.
pub async fn client_at(endpoint: &str) -> Client {
    let config = sdk_config()
        .endpoint_url(endpoint)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "static"))
        .load()
        .await;
    Client::new(&config)
}

/// A client of the emulator that `var` names. Panics when it is not set.
pub async fn client(var: &str) -> Client {
    client_at(&endpoint(var)).await
}

/// A store on a new table of its own (named after `tag`) on the emulator that `var` names, so
/// tests can run in parallel.
pub async fn store(var: &str, tag: &str) -> DynamoStore {
    let client = client(var).await;
    let table = format!("madang-{}", fresh_id(tag));
    ensure_table(&client, &table).await.expect("ensure_table");
    DynamoStore::new(client, table)
}

/// dynalite's endpoint. Panics when [`DYNALITE`] is not set.
pub fn dynalite() -> String {
    endpoint(DYNALITE)
}

/// A client of dynalite. Panics when [`DYNALITE`] is not set.
pub async fn dynalite_client() -> Client {
    client(DYNALITE).await
}

/// A store on a new table of its own on dynalite. Panics when [`DYNALITE`] is not set.
pub async fn dynalite_store(tag: &str) -> DynamoStore {
    store(DYNALITE, tag).await
}
