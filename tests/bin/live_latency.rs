//! Live channel latency: from the moment one player's app sends an action to the moment another
//! app's live socket hears the new version. Prints p50/p99/max as a Markdown line.
//!
//! `live_latency local` starts the real `madang` binary (from the target directory) and measures
//! `GET /live`; `live_latency lambda` starts the Lambda path — the real `api` binary in three
//! execution environments and the `live` binary behind the emulator's HTTP front door and API
//! Gateway WebSocket front, on dynalite (`MADANG_DYNALITE_ENDPOINT`) — where the `version` frame
//! travels the production way: registry read, `PostToConnection`, the front's socket.
//! Build the binaries first: `cargo build -p madang-functions --bins --features dev`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use madang_infra::emulator;
use madang_tests::TestApp;
use madang_tests::games::yut_action;
use madang_tests::lambda::{LambdaStack, StackConfig};
use madang_tests::live::{Live, live_url, spawn_madang};
use serde_json::json;

const ROUNDS: usize = 300;

async fn lambda_stack() -> LambdaStack {
    let endpoint = emulator::dynalite();
    let store = Arc::new(emulator::dynalite_store("livelat").await);
    let config = StackConfig {
        api_environments: 3,
        live: true,
        ..StackConfig::default()
    };
    LambdaStack::start(store, &endpoint, config).await
}

/// Plays 윷놀이 turns (new games as they end); for each action, the time from sending it to the
/// other player's socket hearing its version. `actor_hears`: whether the acting player's own
/// socket is told of its change too (locally; on AWS an action is not posted to its actor).
async fn measure(app: &TestApp, actor_hears: bool) -> Vec<Duration> {
    let mut samples = Vec::new();
    while samples.len() < ROUNDS {
        let (room, host) = app.create("yut", json!({"turnSeconds": null}), 31).await;
        let guest = app.join(&room, "손님").await;
        let players = [host, guest];
        app.act_ok(&room, &players[0], json!({"type": "start"}))
            .await;
        let view = app.room(&room, None).await;
        let url = live_url(&view);
        let mut ears = Vec::new();
        for p in &players {
            let mut live = Live::watch(&url, &room, Some(&p.token), 0).await;
            live.versions_until(view["version"].as_u64().unwrap()).await;
            ears.push(live);
        }
        while samples.len() < ROUNDS {
            let view = app.room(&room, None).await;
            if view["status"] == "finished" {
                break;
            }
            let current = view["state"]["currentPlayer"].as_str().unwrap();
            let me = players.iter().position(|p| p.id == current).unwrap();
            let mine = app.room(&room, Some(&players[me])).await;
            let action = yut_action(&mine["state"]);
            let other = &mut ears[1 - me];
            let started = Instant::now();
            let acting = app.act_ok(&room, &players[me], action);
            let (reply, heard) = tokio::join!(acting, async {
                let v = other.version().await;
                (v, started.elapsed())
            });
            let version = reply["version"].as_u64().unwrap();
            let (mut v, mut at) = heard;
            while v < version {
                v = other.version().await;
                at = started.elapsed();
            }
            samples.push(at);
            // Locally the acting player's own socket hears it too; drain it. (On AWS it hears
            // only the other player's changes, drained by the loop above when roles swap.)
            if actor_hears {
                ears[me].versions_until(version).await;
            }
        }
    }
    samples
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let mut samples = match mode.as_str() {
        "local" => {
            let server = spawn_madang().await;
            measure(&server.app, true).await
        }
        "lambda" => {
            let stack = lambda_stack().await;
            measure(&stack.app, false).await
        }
        _ => panic!("usage: live_latency local|lambda"),
    };
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    println!(
        "| {mode} | {} | {} | {} | {} |",
        samples.len(),
        ms(at(0.5)),
        ms(at(0.99)),
        ms(*samples.last().unwrap())
    );
}
