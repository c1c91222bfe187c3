//! Test support for the live channel: the real `madang` binary on a loopback port, and a
//! WebSocket client that speaks the live protocol (`docs/DESIGN.md`, "Live channel").

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use std::future::Future;

use serde_json::{Value, json};
use std::io::BufRead;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::games::{random_place, seated_yut, yut_action};
use crate::{Player, TestApp};

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
/// `cargo build -p madang-functions --bins --features dev`) with `MADANG_DEV=1` on 127.0.0.1
/// port 0, on a fresh data directory.
pub async fn spawn_madang() -> Server {
    spawn_madang_with(&[]).await
}

/// [`spawn_madang`] with more environment variables (e.g. lifting the per-client limits for a
/// test that makes many rooms from one address).
pub async fn spawn_madang_with(env: &[(&str, &str)]) -> Server {
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
        .envs(env.iter().copied())
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
            http: crate::http_client(),
            embedded: None,
        },
    }
}

/// One live connection.
pub struct Live {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The receiver's own room view the last `version` frame carried (`None`: it carried only
    /// the version). Every one is checked against `GET /rooms/{id}`'s schema as it arrives.
    pub last_room: Option<Value>,
    /// `version` frames heard, and of them those that carried the room.
    pub versions_heard: u64,
    /// See [`Live::versions_heard`].
    pub rooms_heard: u64,
}

/// What the server sent, as the test sees it.
#[derive(Debug, PartialEq)]
pub enum Heard {
    /// `version`.
    Version(u64),
    /// `pong`.
    Pong,
    /// `chat`, with its message `M`.
    Chat(Value),
    /// `error` with its code.
    Error(String),
    /// The socket closed (with its close code, if any).
    Closed(Option<u16>),
}

impl Live {
    /// Connects to `url` (a view's `liveUrl`).
    pub async fn connect(url: &str) -> Live {
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Live::wrap(socket)
    }

    /// Connects with an `Origin` header (as a browser page would); `Err` with the status of a
    /// refused handshake.
    pub async fn connect_from(url: &str, origin: &str) -> Result<Live, u16> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = url.into_client_request().unwrap();
        request
            .headers_mut()
            .insert("origin", origin.parse().unwrap());
        match tokio_tungstenite::connect_async(request).await {
            Ok((socket, _)) => Ok(Live::wrap(socket)),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(e) => panic!("the handshake failed otherwise: {e}"),
        }
    }

    /// Connects, or the status of a refused handshake (`Err`).
    pub async fn try_connect(url: &str) -> Result<Live, u16> {
        match tokio_tungstenite::connect_async(url).await {
            Ok((socket, _)) => Ok(Live::wrap(socket)),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(e) => panic!("the handshake failed otherwise: {e}"),
        }
    }

    /// Connects from another loopback address (`127.0.0.2` and on): another client, as far as
    /// the server (or the emulated API Gateway) can tell.
    pub async fn connect_as(url: &str, ip: &str) -> Result<Live, u16> {
        let authority = url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .unwrap();
        let addr: std::net::SocketAddr = authority.parse().unwrap();
        let tcp = tokio::net::TcpSocket::new_v4().unwrap();
        tcp.bind(format!("{ip}:0").parse().unwrap()).unwrap();
        let stream = tcp.connect(addr).await.unwrap();
        match tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream)).await {
            Ok((socket, _)) => Ok(Live::wrap(socket)),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(e) => panic!("the handshake failed otherwise: {e}"),
        }
    }

    /// Connects through a socket with a tiny receive buffer: a client that, as long as the test
    /// does not read, takes almost nothing the server sends.
    pub async fn connect_slow_reader(url: &str) -> Live {
        let authority = url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .unwrap();
        let addr: std::net::SocketAddr = authority.parse().unwrap();
        let tcp = tokio::net::TcpSocket::new_v4().unwrap();
        tcp.set_recv_buffer_size(1024).unwrap();
        let stream = tcp.connect(addr).await.unwrap();
        let (socket, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream))
            .await
            .unwrap();
        Live::wrap(socket)
    }

    fn wrap(socket: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Live {
        Live {
            socket,
            last_room: None,
            versions_heard: 0,
            rooms_heard: 0,
        }
    }

    /// Says hello and waits until it was taken (its `ping` answered), whatever else comes
    /// first; the code of a refusal otherwise.
    pub async fn admitted(
        &mut self,
        room: &str,
        token: Option<&str>,
        since: u64,
    ) -> Result<(), String> {
        self.hello(room, token, since).await;
        self.send(r#"{"type":"ping"}"#).await;
        loop {
            match self.next().await {
                Heard::Pong => return Ok(()),
                Heard::Version(_) | Heard::Chat(_) => continue,
                Heard::Error(code) => return Err(code),
                Heard::Closed(c) => panic!("closed ({c:?}) without a word"),
            }
        }
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
                        Some("version") => {
                            let version = v["version"].as_u64().unwrap();
                            self.versions_heard += 1;
                            self.last_room = match v.get("room") {
                                Some(room) => {
                                    // The receiver's own view, exactly as the room's read renders it.
                                    crate::contract::check_room_view(room);
                                    assert_eq!(room["version"], version, "{text}");
                                    self.rooms_heard += 1;
                                    Some(room.clone())
                                }
                                None => None,
                            };
                            Heard::Version(version)
                        }
                        Some("pong") => Heard::Pong,
                        Some("chat") => Heard::Chat(v["message"].clone()),
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
                Heard::Pong | Heard::Chat(_) => continue,
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

    /// Sends `ping` and returns the chat messages heard before its `pong` (versions are
    /// skipped). The server passes on what was announced before a frame before it answers the
    /// frame, so once the `pong` is heard, every message posted before the `ping` went out has
    /// arrived if it was going to: a barrier, not a wait.
    pub async fn chats_until_pong(&mut self) -> Vec<Value> {
        self.send(r#"{"type":"ping"}"#).await;
        let mut chats = Vec::new();
        loop {
            match self.next().await {
                Heard::Pong => return chats,
                Heard::Chat(m) => chats.push(m),
                Heard::Version(_) => continue,
                other => panic!("expected chat or pong, heard {other:?}"),
            }
        }
    }

    /// Waits until the hello was taken (a ping answered after it): from then on every chat
    /// message the viewer may see is passed on.
    pub async fn ready(&mut self) {
        let early = self.chats_until_pong().await;
        assert!(early.is_empty(), "no chat replayed at hello: {early:?}");
    }

    /// The error code the server refuses with, then checks the socket closes.
    pub async fn refused(&mut self) -> String {
        let code = loop {
            match self.next().await {
                Heard::Error(code) => break code,
                Heard::Version(_) | Heard::Pong | Heard::Chat(_) => continue,
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

/// A view's `liveUrl`, checked to be a WebSocket URL of the live channel.
pub fn live_url(view: &Value) -> String {
    let url = view["liveUrl"].as_str().expect("a liveUrl in the view");
    assert!(url.starts_with("ws://") && url.ends_with("/live"), "{url}");
    url.to_owned()
}

/// Acts, then waits until the listener hears the version the action answered; returns the
/// versions heard on the way.
pub async fn act_and_hear(
    app: &TestApp,
    listener: &mut Live,
    room: &str,
    who: &Player,
    action: Value,
) -> (u64, Vec<u64>) {
    let reply = app.act_ok(room, who, action).await;
    let version = reply["version"].as_u64().unwrap();
    (version, listener.versions_until(version).await)
}

/// Announced versions never go back. (One may come twice: on AWS a hello racing a save is
/// told the version both by its own read and by the save's post. Delivery is a hint.)
fn never_back(versions: &[u64]) {
    assert!(
        versions.windows(2).all(|w| w[0] <= w[1]),
        "announced versions never go back: {versions:?}"
    );
}

/// A whole 윷놀이 game heard by a spectator that never polls: every action's version, and the
/// timeouts that `sweep` fires after the dev clock jumps past a turn (locally the server's own
/// sweeper does it, and `sweep` does nothing; on Lambda it runs the `sweeper` function).
pub async fn listen_to_a_whole_yut_game<F: Future<Output = ()>>(
    app: &TestApp,
    sweep: impl Fn() -> F,
) {
    let (room, players) = seated_yut(app, json!({"turnSeconds": 30}), 21, 2).await;
    let view = app.room(&room, None).await;
    let start = view["version"].as_u64().unwrap();
    // A spectator that never polls.
    let mut listener = Live::watch(&live_url(&view), &room, None, start - 1).await;
    assert_eq!(
        listener.version().await,
        start,
        "hello with an old `since`: told at once"
    );
    let mut heard = vec![start];
    let mut acted = Vec::new();
    let mut swept = 0;
    for step in 0..5_000 {
        let view = app.room(&room, None).await;
        if view["status"] == "finished" {
            let last = view["version"].as_u64().unwrap();
            assert_eq!(
                *heard.last().unwrap(),
                last,
                "the final version was announced"
            );
            break;
        }
        assert!(step < 4_999, "the game did not end");
        if step % 9 == 4 {
            // Nobody acts: the turn times out, and the local sweeper (not a read) fires it.
            let before = *heard.last().unwrap();
            app.advance_clock(31_000).await;
            sweep().await;
            let v = listener.version().await;
            assert!(v > before);
            heard.push(v);
            swept += 1;
            continue;
        }
        let current = view["state"]["currentPlayer"].as_str().unwrap();
        let player = players.iter().find(|p| p.id == current).unwrap();
        // Both players' apps read, as they would (it keeps them present).
        for p in &players {
            app.room(&room, Some(p)).await;
        }
        let mine = app.room(&room, Some(player)).await;
        let (version, on_the_way) = act_and_hear(
            app,
            &mut listener,
            &room,
            player,
            yut_action(&mine["state"]),
        )
        .await;
        acted.push(version);
        heard.extend(on_the_way);
    }
    never_back(&heard);
    for v in &acted {
        assert!(
            heard.contains(v),
            "the listener heard version {v}: {heard:?}"
        );
    }
    assert!(swept >= 3, "timeouts fired by the sweeper were announced");
}

/// A 바둑 game heard by a player's own listener from the lobby on, to its end on time: the
/// timeout `sweep` fires (see [`listen_to_a_whole_yut_game`]) ends it. `actor_told`: whether
/// the listener's player hears its own actions' changes (locally yes; on AWS an action is not
/// posted to its actor's connections, whose answer carries the room — then it must hear none
/// of them). Every change heard carries the player's own view of the room.
pub async fn listen_to_a_baduk_game_lost_on_time<F: Future<Output = ()>>(
    app: &TestApp,
    sweep: impl Fn() -> F,
    actor_told: bool,
) {
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack",
                   "timeControl": {"kind": "byoyomi", "mainSec": 0, "periodSec": 10, "periods": 1}}),
            5,
        )
        .await;
    let view = app.room(&room, None).await;
    let url = live_url(&view);
    // A player listening with their token, from the lobby on.
    let mut listener = Live::watch(
        &url,
        &room,
        Some(&black.token),
        view["version"].as_u64().unwrap(),
    )
    .await;
    let white = app.join(&room, "백").await;
    let mut heard = listener.versions_until(2).await;
    // Black's own changes: heard only where the actor is told.
    let mut own = Vec::new();
    let started = app.act_ok(&room, &black, json!({"type": "start"})).await;
    own.push(started["version"].as_u64().unwrap());
    let mut draw = 7;
    let mut acted = Vec::new();
    for i in 0..30 {
        let who = if i % 2 == 0 { &black } else { &white };
        if actor_told && let Some(&v) = own.last().filter(|v| !heard.contains(v)) {
            heard.extend(listener.versions_until(v).await);
        }
        let mine = app.room(&room, Some(who)).await;
        let action = random_place(&mine["state"], &mut draw);
        if i % 2 == 0 {
            let reply = app.act_ok(&room, who, action).await;
            own.push(reply["version"].as_u64().unwrap());
            continue;
        }
        let (version, on_the_way) = act_and_hear(app, &mut listener, &room, who, action).await;
        acted.push(version);
        heard.extend(on_the_way);
        let view = listener
            .last_room
            .as_ref()
            .expect("a change carries the listener's view");
        assert_eq!(view["version"], version);
        assert!(
            view["state"]["moves"].is_array(),
            "the player's own 바둑 view: {view}"
        );
    }
    assert!(listener.rooms_heard >= 15, "changes came with the room");
    for v in &own {
        assert_eq!(
            heard.contains(v),
            actor_told,
            "black's own change {v} heard by black's listener: {heard:?}"
        );
    }
    // Black (to move) lets the clock run out; the sweeper ends the game.
    let before = *heard.last().unwrap();
    app.advance_clock(11_000).await;
    sweep().await;
    let last = listener.version().await;
    assert!(last > before);
    heard.push(last);
    let end = app.room(&room, None).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert_eq!(
        end["version"].as_u64().unwrap(),
        last,
        "the timeout's version was announced"
    );
    never_back(&heard);
    for v in &acted {
        assert!(heard.contains(v), "heard {v}: {heard:?}");
    }
}
