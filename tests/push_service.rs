//! The loopback Web Push service of the push tests: `tests/push_service.py`, run with the
//! Python of the test command's venv (`.cache/venv`, where `scripts/lib.sh` installs the pinned
//! `http-ece`). It checks every push as a real service does (VAPID ES256 JWT, `aud`, `exp`, the
//! key of `GET /push`) and decrypts it with `http_ece`, an implementation independent of the
//! server's; the tests read what it received.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running push service; stopped when dropped.
pub struct PushService {
    child: Child,
    pub port: u16,
    /// The subscriptions' keys (`keys.p256dh`, `keys.auth`).
    pub p256dh: String,
    pub auth: String,
}

/// The venv's Python: `.cache/venv/bin/python` at the workspace root.
pub fn python() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join(".cache/venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run the tests through ./scripts/test (it installs http-ece there)",
        python.display()
    );
    python
}

impl PushService {
    /// Starts it, expecting pushes signed with the VAPID public key `key`.
    pub fn start(key: &str) -> PushService {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("push_service.py");
        let mut child = Command::new(python())
            .arg(script)
            .args(["--key", key])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let hello: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("push service said {line:?}: {e}"));
        PushService {
            child,
            port: hello["port"].as_u64().unwrap() as u16,
            p256dh: hello["p256dh"].as_str().unwrap().to_owned(),
            auth: hello["auth"].as_str().unwrap().to_owned(),
        }
    }

    /// The endpoint URL of the subscription `name` (a name starting with `gone` answers 410).
    pub fn endpoint(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/push/{name}", self.port)
    }

    /// `PushSubscription.toJSON()` of the subscription `name`, as a browser sends it.
    pub fn subscription(&self, name: &str) -> Value {
        json!({
            "endpoint": self.endpoint(name),
            "expirationTime": null,
            "keys": {"p256dh": self.p256dh, "auth": self.auth},
        })
    }

    /// Every push received so far, oldest first.
    pub async fn received(&self) -> Vec<Value> {
        let url = format!("http://127.0.0.1:{}/received", self.port);
        let body: Value = reqwest::get(url).await.unwrap().json().await.unwrap();
        body.as_array().unwrap().clone()
    }

    /// The pushes received at the subscription `name`.
    pub async fn received_at(&self, name: &str) -> Vec<Value> {
        let path = format!("/push/{name}");
        self.received()
            .await
            .into_iter()
            .filter(|r| r["path"] == path.as_str())
            .collect()
    }

    /// Waits (up to 20 s) until the subscription `name` has received `count` pushes.
    pub async fn wait_for(&self, name: &str, count: usize) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let got = self.received_at(name).await;
            if got.len() >= count {
                return got;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{name}: {} of {count} pushes; all: {:?}",
                got.len(),
                self.received().await
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for PushService {
    fn drop(&mut self) {
        // Our own child, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
