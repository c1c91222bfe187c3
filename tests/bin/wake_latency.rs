//! Long-poll wake latency: how long after a client sends an action does another client, already
//! long-polling the room, hold the new room? Prints the distribution as a Markdown line.
//!
//! `wake_latency http://127.0.0.1:PORT` (scripts/bench-http runs it against the local server),
//! `wake_latency init` for the `api` binary's init and first requests under the emulator, or
//! `wake_latency lambda` to start the Lambda path itself — the real `api` binary in four execution
//! environments behind the Runtime API emulator, on dynalite (`MADANG_DYNALITE_ENDPOINT`) — and
//! report, besides the wake latency, each environment's init (spawn → first `invocation/next`)
//! and its first and later invocations' durations.
//!
//! The action is sent a varying 5–300 ms after the poll starts, so that on a store that re-reads
//! at a fixed step (DynamoDB) the samples cover every phase of the step.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use madang_infra::emulator;
use madang_tests::lambda::{LambdaStack, StackConfig};
use serde_json::{Value, json};

const ROUNDS: usize = 500;

async fn lambda_stack(environments: usize) -> LambdaStack {
    let endpoint = emulator::dynalite();
    let store = Arc::new(emulator::dynalite_store("wake").await);
    let config = StackConfig {
        api_environments: environments,
        ..StackConfig::default()
    };
    LambdaStack::start(store, &endpoint, config).await
}

/// `wake_latency init`: one fresh `api` environment, ten times: its init, then the first and
/// second of each kind of request (one that touches no table, one that reads the table).
async fn init_report() {
    let mut rows = Vec::new();
    for _ in 0..10 {
        let stack = lambda_stack(1).await;
        let http = reqwest::Client::new();
        let mut times = Vec::new();
        for path in ["/healthz", "/healthz", "/rooms/nope", "/rooms/nope"] {
            let started = Instant::now();
            http.get(format!("{}{path}", stack.base()))
                .send()
                .await
                .unwrap();
            times.push(started.elapsed());
        }
        rows.push((stack.api_timings()[0].init.unwrap(), times));
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    println!(
        "api init (spawn → first invocation/next), median of 10: {}",
        ms(median(rows.iter().map(|r| r.0).collect()))
    );
    for (i, what) in [
        "first GET /healthz",
        "second GET /healthz",
        "first GET /rooms/{id} (a table read)",
        "second GET /rooms/{id}",
    ]
    .iter()
    .enumerate()
    {
        println!(
            "{what}: median {} (front door to answer)",
            ms(median(rows.iter().map(|r| r.1[i]).collect()))
        );
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let target = std::env::args()
        .nth(1)
        .expect("usage: wake_latency BASE_URL | lambda");
    let stack = match target.as_str() {
        "lambda" => Some(lambda_stack(4).await),
        "init" => return init_report().await,
        _ => None,
    };
    let base = stack
        .as_ref()
        .map_or(target.clone(), |s| s.base().to_owned());
    let http = reqwest::Client::new();
    let created: Value = http
        .post(format!("{base}/rooms"))
        .json(&json!({"game": "yut", "name": "wake"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let room = created["roomId"].as_str().unwrap().to_owned();
    let token = created["token"].as_str().unwrap().to_owned();
    let mut version = created["room"]["version"].as_u64().unwrap();
    let mut samples = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS {
        let poll = {
            let (http, url) = (
                http.clone(),
                format!("{base}/rooms/{room}?since={version}&wait=20"),
            );
            tokio::spawn(async move {
                let r = http.get(url).send().await.unwrap();
                let at = Instant::now();
                let body: Value = r.json().await.unwrap();
                (at, body["version"].as_u64().unwrap())
            })
        };
        // Let the poll reach the server and start waiting. A benchmark, not a test: the delay
        // varies from 5 to 300 ms on purpose, so the action falls anywhere in the DynamoDB
        // store's 300 ms re-read step and the figures cover the whole spread of wake times.
        tokio::time::sleep(Duration::from_millis(5 + (round as u64 * 37) % 296)).await;
        let sent = Instant::now();
        let acted: Value = http
            .post(format!("{base}/rooms/{room}/actions"))
            .bearer_auth(&token)
            .json(&json!({"action": {"type": "setOptions", "options": {"pieces": 4}}}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let (woke, seen) = poll.await.unwrap();
        version = acted["version"].as_u64().unwrap();
        assert_eq!(seen, version, "the poll returned the new version");
        samples.push(woke.duration_since(sent));
    }
    samples.sort();
    let pct = |p: f64| samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)];
    println!(
        "long-poll wake latency over {ROUNDS} rounds (action sent → poller holds the new room): p50 {:?}, p99 {:?}, max {:?}",
        pct(0.50),
        pct(0.99),
        samples[samples.len() - 1]
    );
    if let Some(stack) = stack {
        for (env, t) in stack.api_timings().iter().enumerate() {
            let mut later = t.invocations[1..].to_vec();
            later.sort();
            println!(
                "api environment {env}: init {}, first invocation {}, later invocations p50 {} ({} of them)",
                t.init.map_or("-".into(), ms),
                t.invocations.first().copied().map_or("-".into(), ms),
                later.get(later.len() / 2).copied().map_or("-".into(), ms),
                later.len()
            );
        }
    }
}
