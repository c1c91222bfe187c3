//! Test support for the live channel: the real `madang` binary on a loopback port, and a
//! WebSocket client that speaks the live protocol (`docs/DESIGN.md`, "Live channel").

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::io::BufRead;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::TestApp;

/// The real local server, killed when dropped.
pub struct Server {
    child: Child,
    /// The API's base URL, and a client for it.
    pub app: TestApp,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the real `madang` binary (from the target directory, built by
/// `cargo build -p madang-functions --bins`) with `MADANG_DEV=1` on 127.0.0.1 port 0, on a fresh
/// data directory.
pub async fn spawn_madang() -> Server {
    let data = std::env::temp_dir().join(format!(
        "madang-live-{}",
        madang_infra::contract::fresh_id("live")
    ));
    std::fs::create_dir_all(&data).unwrap();
    let mut child = Command::new(crate::lambda::binary("madang"))
        .env("MADANG_ADDR", "127.0.0.1:0")
        .env("MADANG_DATA", &data)
        .env("MADANG_DEV", "1")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The server prints one line once it listens (blocking here for that moment is fine).
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("madang listening on ")
        .unwrap()
        .to_owned();
    Server {
        child,
        app: TestApp {
            base,
            http: reqwest::Client::new(),
            embedded: None,
        },
    }
}

/// One live connection.
pub struct Live {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// What the server sent, as the test sees it.
#[derive(Debug, PartialEq)]
pub enum Heard {
    /// `version`.
    Version(u64),
    /// `pong`.
    Pong,
    /// `error` with its code.
    Error(String),
    /// The socket closed (with its close code, if any).
    Closed(Option<u16>),
}

impl Live {
    /// Connects to `url` (a view's `liveUrl`).
    pub async fn connect(url: &str) -> Live {
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Live { socket }
    }

    /// Connects and says hello.
    pub async fn watch(url: &str, room: &str, token: Option<&str>, since: u64) -> Live {
        let mut live = Live::connect(url).await;
        live.hello(room, token, since).await;
        live
    }

    /// Sends a text frame.
    pub async fn send(&mut self, text: &str) {
        self.socket
            .send(Message::Text(text.to_owned().into()))
            .await
            .unwrap();
    }

    /// Sends `hello`.
    pub async fn hello(&mut self, room: &str, token: Option<&str>, since: u64) {
        let mut hello = json!({"type": "hello", "roomId": room, "since": since});
        if let Some(token) = token {
            hello["token"] = json!(token);
        }
        self.send(&hello.to_string()).await;
    }

    /// The next thing the server says (a minute at most: a server that says nothing is a
    /// failure, not a hang).
    pub async fn next(&mut self) -> Heard {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(60), self.socket.next())
                .await
                .expect("the server said nothing for a minute");
            match frame {
                Some(Ok(Message::Text(text))) => {
                    let v: Value = serde_json::from_str(&text).unwrap();
                    return match v["type"].as_str() {
                        Some("version") => Heard::Version(v["version"].as_u64().unwrap()),
                        Some("pong") => Heard::Pong,
                        Some("error") => Heard::Error(v["code"].as_str().unwrap().to_owned()),
                        other => panic!("unexpected frame {other:?}: {text}"),
                    };
                }
                Some(Ok(Message::Close(frame))) => {
                    return Heard::Closed(frame.map(|f| u16::from(f.code)));
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Heard::Closed(None),
            }
        }
    }

    /// The next version announced (panics on anything else but `pong`).
    pub async fn version(&mut self) -> u64 {
        loop {
            match self.next().await {
                Heard::Version(v) => return v,
                Heard::Pong => continue,
                other => panic!("expected a version, heard {other:?}"),
            }
        }
    }

    /// Versions announced until one at least `target`; returns them all.
    pub async fn versions_until(&mut self, target: u64) -> Vec<u64> {
        let mut heard = Vec::new();
        loop {
            let v = self.version().await;
            heard.push(v);
            if v >= target {
                return heard;
            }
        }
    }

    /// The error code the server refuses with, then checks the socket closes.
    pub async fn refused(&mut self) -> String {
        let code = loop {
            match self.next().await {
                Heard::Error(code) => break code,
                Heard::Version(_) | Heard::Pong => continue,
                Heard::Closed(c) => panic!("closed ({c:?}) without an error frame"),
            }
        };
        assert!(
            matches!(self.next().await, Heard::Closed(_)),
            "an error frame is followed by a close"
        );
        code
    }
}
