//! Long-poll wake latency: how long after a client sends an action does another client, already
//! long-polling the room, hold the new room? Prints the distribution as a Markdown line.
//!
//! `wake_latency http://127.0.0.1:PORT` (scripts/bench-http runs it against the local server).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

const ROUNDS: usize = 500;

#[tokio::main]
async fn main() {
    let base = std::env::args()
        .nth(1)
        .expect("usage: wake_latency BASE_URL");
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
    for _ in 0..ROUNDS {
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
        // Let the poll reach the server and start waiting.
        tokio::time::sleep(Duration::from_millis(5)).await;
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
}
