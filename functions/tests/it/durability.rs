//! The local server loses nothing it answered: `kill -9` right after a 200, restart on the same
//! data directory, and every acknowledged change is there.

use std::process::Child;

use serde_json::{Value, json};

use crate::support;

struct Server {
    child: Child,
    base: String,
}

fn start(data: &std::path::Path) -> Server {
    let (child, base) = support::spawn_madang(data, &[]);
    Server { child, base }
}

#[tokio::test]
async fn a_kill_9_loses_nothing_that_was_answered() {
    let data = std::env::temp_dir().join(format!("madang-durability-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let http = reqwest::Client::new();
    let mut server = start(&data);
    let created: Value = http
        .post(format!("{}/rooms", server.base))
        .json(&json!({"game": "yut", "name": "a"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let room = created["roomId"].as_str().unwrap().to_owned();
    let token = created["token"].as_str().unwrap().to_owned();
    let mut answered = 0;
    for pieces in [2, 3, 4, 5].repeat(10) {
        let reply: Value = http
            .post(format!("{}/rooms/{room}/actions", server.base))
            .bearer_auth(&token)
            .json(&json!({"action": {"type": "setOptions", "options": {"pieces": pieces}}}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answered = reply["version"].as_u64().unwrap();
    }
    // SIGKILL: no shutdown hook, no flush.
    server.child.kill().unwrap();
    server.child.wait().unwrap();

    let mut again = start(&data);
    let view: Value = http
        .get(format!("{}/rooms/{room}", again.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(view["version"].as_u64().unwrap(), answered);
    assert_eq!(view["options"]["pieces"], 5);
    again.child.kill().unwrap();
    again.child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&data);
}
