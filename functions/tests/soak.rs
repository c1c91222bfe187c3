//! Soak tests: the bounds of the local server under long, heavy load, over real HTTP against the
//! real `madang` binary. Too long for the default test run (about a minute each on two cores),
//! so they build only with the `soak` feature: `scripts/soak` runs them and prints the figures
//! that BENCHMARKS.md keeps ("Soak").
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

#[path = "it/support.rs"]
mod support;
use support::{Server, start_server};

/// The `madang` binary on a fresh data directory of this suite's.
fn start(name: &str, env: &[(&str, &str)]) -> Server {
    start_server("soak", name, env)
}

/// The limits a load test needs: one address plays every client.
const TRUSTED: &[(&str, &str)] = &[
    ("MADANG_LIMIT_CREATES_PER_MIN", "0"),
    ("MADANG_LIMIT_JOINS_PER_MIN", "0"),
    ("MADANG_LIMIT_POLLS_PER_CLIENT", "0"),
];

async fn create(http: &reqwest::Client, base: &str) -> reqwest::Response {
    http.post(format!("{base}/rooms"))
        .json(&json!({"game": "yut", "name": "방장"}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn thirty_seconds_of_sustained_writes_keep_the_wal_under_64_mib() {
    let server = start("wal", TRUSTED);
    let wal = server.data.join("madang.sqlite3-wal");
    let http = reqwest::Client::new();
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let mut clients = Vec::new();
    for _ in 0..16 {
        let (http, base, stop, writes) = (
            http.clone(),
            server.base.clone(),
            stop.clone(),
            writes.clone(),
        );
        clients.push(tokio::spawn(async move {
            let created: Value = create(&http, &base).await.json().await.unwrap();
            let room = created["roomId"].as_str().unwrap().to_owned();
            let token = created["token"].as_str().unwrap().to_owned();
            let mut pieces = 2;
            while !stop.load(Ordering::Relaxed) {
                pieces = pieces % 5 + 1;
                let r = http
                    .post(format!("{base}/rooms/{room}/actions"))
                    .bearer_auth(&token)
                    .json(&json!({"action": {"type": "setOptions", "options": {"pieces": pieces.max(2)}}}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), StatusCode::OK);
                writes.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let started = Instant::now();
    let mut largest = 0;
    // A soak test (`scripts/soak`, out of the default run): 30 s of writes is what it is about,
    // and the WAL's size is sampled along the way.
    while started.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        largest = largest.max(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
    }
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.await.unwrap();
    }
    let writes = writes.load(Ordering::Relaxed);
    eprintln!(
        "{writes} writes in 30 s; largest WAL {} KiB",
        largest / 1024
    );
    assert!(writes > 2_000, "the load must be real: {writes} writes");
    assert!(largest < 64 * 1024 * 1024, "WAL reached {largest} bytes");
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// The bound the 50,000-room test holds the process to: the room cache (≤ 16 MiB), SQLite's page
/// cache, the runtime and the allocator's slack.
const RSS_BOUND_MIB: u64 = 96;

#[tokio::test]
async fn fifty_thousand_created_rooms_keep_rss_bounded() {
    let server = start("rss", TRUSTED);
    let http = reqwest::Client::new();
    let next = Arc::new(AtomicU64::new(0));
    let mut clients = Vec::new();
    for _ in 0..32 {
        let (http, base, next) = (http.clone(), server.base.clone(), next.clone());
        clients.push(tokio::spawn(async move {
            while next.fetch_add(1, Ordering::Relaxed) < 50_000 {
                let r = create(&http, &base).await;
                assert_eq!(r.status(), StatusCode::CREATED);
            }
        }));
    }
    for c in clients {
        c.await.unwrap();
    }
    let rss = rss_kib(server.child.id());
    eprintln!("RSS after 50,000 rooms: {} MiB", rss / 1024);
    assert!(rss < RSS_BOUND_MIB * 1024, "RSS {rss} KiB");
}
