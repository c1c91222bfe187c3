//! A counting proxy in front of the DynamoDB emulator: it forwards every call unchanged and
//! counts the conditional writes the store refused, so a test can hold the functions' own
//! `ConflictsRedone` metric against what the store really did (and count writes of any kind).
//!
//! Counted: `UpdateItem` calls answered `ConditionalCheckFailedException` whose condition is the
//! version condition of a save or a reindex (`v = :expected…`). Not counted: presence writes
//! (`touch`, whose refusal means "already newer") and creates. Also counted, by item id: the
//! `GetItem` calls answered — so a test can wait until a long-poll has read a room and is
//! waiting on it ([`StoreProxy::wait_for_reads`]) instead of guessing how long that takes.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::dynamo_proxy::{Call, pass_on};

/// A running proxy.
pub struct StoreProxy {
    /// Where to point `AWS_ENDPOINT_URL_DYNAMODB`.
    pub url: String,
    refused: Arc<AtomicU64>,
    writes: Arc<AtomicU64>,
    reads: Reads,
}

/// `GetItem` calls answered, by the item's `id`; every count sent again on each change.
type Reads = Arc<tokio::sync::watch::Sender<HashMap<String, u64>>>;

impl StoreProxy {
    /// `GetItem` calls of item `id` answered so far.
    pub fn reads_of(&self, id: &str) -> u64 {
        self.reads.borrow().get(id).copied().unwrap_or(0)
    }

    /// Waits until `at_least` `GetItem` calls of item `id` have been answered (woken by each
    /// answer, not on a timer). A minute without them is a failure, not a hang.
    pub async fn wait_for_reads(&self, id: &str, at_least: u64) {
        let mut seen = self.reads.subscribe();
        let waited = tokio::time::timeout(
            Duration::from_secs(60),
            seen.wait_for(|reads| reads.get(id).copied().unwrap_or(0) >= at_least),
        )
        .await;
        assert!(
            waited.is_ok(),
            "{} of {at_least} reads of {id} in a minute",
            self.reads_of(id)
        );
    }

    /// Refused version-conditioned writes so far.
    pub fn refused_version_writes(&self) -> u64 {
        self.refused.load(Ordering::SeqCst)
    }

    /// Write calls (`PutItem`, `UpdateItem`, `DeleteItem`, batch and transaction writes) so far,
    /// refused or not.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::SeqCst)
    }
}

#[derive(Clone)]
struct Upstream {
    base: String,
    http: reqwest::Client,
    refused: Arc<AtomicU64>,
    writes: Arc<AtomicU64>,
    reads: Reads,
}

/// Starts a proxy to `upstream` (a DynamoDB endpoint URL) on a loopback port.
pub async fn start(upstream: &str) -> StoreProxy {
    let refused = Arc::new(AtomicU64::new(0));
    let writes = Arc::new(AtomicU64::new(0));
    let reads: Reads = Arc::new(tokio::sync::watch::Sender::new(HashMap::new()));
    let state = Upstream {
        base: upstream.trim_end_matches('/').to_owned(),
        http: reqwest::Client::new(),
        refused: refused.clone(),
        writes: writes.clone(),
        reads: reads.clone(),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let routes = Router::new().fallback(forward).with_state(state);
    tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    StoreProxy {
        url: format!("http://{addr}"),
        refused,
        writes,
        reads,
    }
}

async fn forward(State(up): State<Upstream>, request: Request) -> Response {
    let call = Call::read(request).await;
    let target = call.target();
    if [
        ".PutItem",
        ".UpdateItem",
        ".DeleteItem",
        ".BatchWriteItem",
        ".TransactWriteItems",
    ]
    .iter()
    .any(|op| target.ends_with(op))
    {
        up.writes.fetch_add(1, Ordering::SeqCst);
    }
    let Some(answer) = pass_on(&up.http, &up.base, &call, call.body.clone()).await else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    if answer.status == StatusCode::BAD_REQUEST
        && target.ends_with(".UpdateItem")
        && String::from_utf8_lossy(&answer.body).contains("ConditionalCheckFailedException")
    {
        let sent: Value = serde_json::from_slice(&call.body).unwrap_or(Value::Null);
        let condition = sent["ConditionExpression"].as_str().unwrap_or("");
        if condition.starts_with("v = :expected") {
            up.refused.fetch_add(1, Ordering::SeqCst);
        }
    }
    // Counted once the answer is in hand: the reader has the item as it was before anything
    // the test does next.
    if answer.status == StatusCode::OK && target.ends_with(".GetItem") {
        let sent: Value = serde_json::from_slice(&call.body).unwrap_or(Value::Null);
        if let Some(id) = sent["Key"]["id"]["S"].as_str() {
            up.reads
                .send_modify(|reads| *reads.entry(id.to_owned()).or_default() += 1);
        }
    }
    answer.into_response()
}
