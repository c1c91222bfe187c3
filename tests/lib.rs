//! Test support for the end-to-end suites: a real server on a loopback port, a small client
//! that speaks the API the way an app would, and the game drivers both suites share.
//!
//! - [`chat`]: table talk — who sees what, random rooms, chat racing pinned actions, refusals,
//!   expiry — shared by the embedded and DynamoDB suites.
//! - [`games`]: whole 윷놀이 and 바둑 games played over HTTP, with their checks.
//! - [`race`]: 64 clients racing on one room, checked against a replay of the accepted log.
//! - [`exactly_once`]: lost answers, failed loads and saves, keyed retries and twins — every
//!   action lands exactly once.
//! - [`lambda`]: a Lambda Runtime API emulator running the real `api` and `sweeper` binaries.
//! - [`live`]: the real `madang` binary and a client of its live channel.
//! - [`store_proxy`]: a proxy in front of the DynamoDB emulator that counts refused writes.
//! - [`table_json`]: a table to DynamoDB JSON and back (the restore procedure's tool).
//! - [`overdue`]: the room with an overdue turn both sweeper races start from.
//! - [`push_service`]: the loopback Web Push service (`push_service.py`) that checks and decrypts.
//! - [`slow`]: slow 바둑 (the correspondence clock) over simulated weeks, on every store.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

pub mod bots;
pub mod chat;
pub mod contract;
#[path = "lambda/dynamo_proxy.rs"]
pub mod dynamo_proxy;
pub mod exactly_once;
pub mod games;
#[path = "lambda/emulator.rs"]
pub mod lambda;
pub mod live;
pub mod live_chat;
pub mod overdue;
pub mod push_service;
pub mod race;
pub mod replay;
pub mod review;
pub mod slow;
#[path = "lambda/store_proxy.rs"]
pub mod store_proxy;
pub mod table_json;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use madang_functions::announce::{Announcer, LocalAnnouncer, NoAnnouncer};
use madang_functions::app::Limits;
use madang_functions::{App, ChatStore, RoomStore, ServeConfig, router, sweeper};
use madang_infra::contract::fresh_id;
use madang_infra::faults::FaultyStore;
use madang_infra::{DynamoStore, EmbeddedStore};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A running server.
pub struct TestApp {
    pub base: String,
    pub http: reqwest::Client,
    /// The embedded store behind the server, when it is one (to look without a request).
    pub embedded: Option<Arc<EmbeddedStore>>,
}

/// A reply: status, headers and JSON body (Null when there is none).
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

/// A seated player: id and token.
#[derive(Clone, Debug)]
pub struct Player {
    pub id: String,
    pub token: String,
}

/// The HTTP client of the suites: one connection pool, whose idle connections are dropped well
/// before the server's idle timeout closes them ([`ServeConfig::header_timeout`], 10 s).
///
/// Why: a server may close an idle keep-alive connection at any moment, and a request sent on it
/// just then fails with "connection closed before message completed" (hyper's
/// `IncompleteMessage`) — a race every HTTP/1.1 client must avoid; browsers retry, reqwest does
/// not. With reqwest's default (90 s idle), the 64-client race, whose pool holds dozens of
/// connections, some unused for 10 s, lost it now and then on a loaded machine. The client's
/// idle timer starts after the server's (when it has read the answer), so half the server's
/// timeout leaves seconds of margin.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(ServeConfig::default().header_timeout / 2)
        .build()
        .unwrap()
}

/// An embedded store in a fresh temp directory.
pub fn embedded_store() -> EmbeddedStore {
    let dir = std::env::temp_dir().join(format!("madang-e2e-{}", fresh_id("app")));
    std::fs::create_dir_all(&dir).unwrap();
    EmbeddedStore::open(&dir.join("madang.sqlite3")).unwrap()
}

/// A store the suites serve from, with the announcer a server over it uses, as `madang` picks
/// it: the in-process one when every save of the store is made in this process (the embedded
/// store, wrapped in faults or not), nobody otherwise (DynamoDB: other processes save too).
pub trait Served: RoomStore + ChatStore {
    /// A fresh announcer for one app over this store.
    fn announcer() -> Arc<dyn Announcer>;
}

impl Served for EmbeddedStore {
    fn announcer() -> Arc<dyn Announcer> {
        Arc::new(LocalAnnouncer::default())
    }
}

impl Served for DynamoStore {
    fn announcer() -> Arc<dyn Announcer> {
        Arc::new(NoAnnouncer)
    }
}

impl<S: Served> Served for FaultyStore<S> {
    fn announcer() -> Arc<dyn Announcer> {
        S::announcer()
    }
}

/// An app over `store` with the announcer its server uses ([`Served`]).
pub fn app_on<S: Served>(store: Arc<S>) -> App<S> {
    App::new(store, S::announcer())
}

/// Starts the API on an embedded store in a fresh temp directory, with `MADANG_DEV` test
/// support and the background sweeper, on 127.0.0.1 port 0.
pub async fn spawn_app() -> TestApp {
    let store = Arc::new(embedded_store());
    TestApp {
        embedded: Some(store.clone()),
        ..spawn_app_on(store).await
    }
}

/// The limits the suites run under: the public defaults without the per-client ones, since
/// every test client is 127.0.0.1 (the abuse suite checks the defaults themselves).
pub fn test_limits() -> Limits {
    Limits::default().trusted()
}

/// Starts the API over any store (the DynamoDB suites use this), with a background sweeper
/// every 100 ms.
pub async fn spawn_app_on<S: Served>(store: Arc<S>) -> TestApp {
    spawn_app_from(app_on(store).with_dev(true).with_limits(test_limits())).await
}

/// Starts `app` (built by the caller: Web Push on, say) with a background sweeper every 100 ms
/// that pushes as the server's does.
pub async fn spawn_app_from<S: RoomStore + ChatStore>(app: App<S>) -> TestApp {
    let sweeping = app.clone();
    tokio::spawn(async move {
        loop {
            // The server's schedule, not a wait of a test: `madang` sweeps on a timer too (every
            // 250 ms). Tests wait for what the sweeper does (a store change), and move time on
            // the dev clock.
            tokio::time::sleep(Duration::from_millis(100)).await;
            sweeper::sweep_pushing(
                &*sweeping.store,
                &*sweeping.announcer,
                &*sweeping.thinker,
                sweeping.push.get().as_deref(),
                sweeping.clock.now(),
                100,
            )
            .await;
        }
    });
    serve(app).await
}

/// Starts the API over any store without a background sweeper, and hands back the [`App`] (its
/// clock, to sweep at chosen moments). For measurements: a sweeper polling in the background
/// would mix its reads into every figure; the caller runs `sweeper::sweep` itself instead.
pub async fn spawn_app_unswept<S: Served>(store: Arc<S>) -> (TestApp, App<S>) {
    let app = app_on(store).with_dev(true).with_limits(test_limits());
    (serve(app.clone()).await, app)
}

/// Serves `app` on 127.0.0.1 port 0 with the library's serve loop — the one `madang` runs, with
/// its timeouts and connection cap — until the test's runtime ends.
async fn serve<S: RoomStore + ChatStore>(app: App<S>) -> TestApp {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let config = ServeConfig {
        // The 64-client races open more connections at once than a phone ever would.
        max_connections: 4_096,
        max_connections_per_client: 4_096,
        ..ServeConfig::default()
    };
    tokio::spawn(async move {
        madang_functions::serve(router(app), listener, config, std::future::pending())
            .await
            .unwrap()
    });
    TestApp {
        base: format!("http://{addr}"),
        http: http_client(),
        embedded: None,
    }
}

impl TestApp {
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let method_name = method.as_str().to_ascii_lowercase();
        let method_name = method_name.as_str();
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let reply = Self::reply(request.send().await.unwrap()).await;
        // Every answer of the end-to-end suites is held against the generated OpenAPI document.
        contract::check_answer(method_name, path, &reply);
        reply
    }

    pub async fn reply(response: reqwest::Response) -> Reply {
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.unwrap();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.send(reqwest::Method::GET, path, token, None).await
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Reply {
        self.send(reqwest::Method::POST, path, token, Some(body))
            .await
    }

    /// Creates a room with a fixed seed; returns its id and the host.
    pub async fn create(&self, game: &str, options: Value, seed: u64) -> (String, Player) {
        let r = self
            .post(
                "/rooms",
                None,
                json!({"game": game, "name": "방장", "options": options, "seed": seed}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        let host = Player {
            id: r.body["playerId"].as_str().unwrap().into(),
            token: r.body["token"].as_str().unwrap().into(),
        };
        (r.body["roomId"].as_str().unwrap().into(), host)
    }

    pub async fn join(&self, room: &str, name: &str) -> Player {
        let r = self
            .post(
                &format!("/rooms/{room}/players"),
                None,
                json!({"name": name}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        Player {
            id: r.body["playerId"].as_str().unwrap().into(),
            token: r.body["token"].as_str().unwrap().into(),
        }
    }

    pub async fn act(&self, room: &str, who: &Player, action: Value) -> Reply {
        self.post(
            &format!("/rooms/{room}/actions"),
            Some(&who.token),
            json!({"action": action}),
        )
        .await
    }

    /// Acts and insists it was accepted.
    pub async fn act_ok(&self, room: &str, who: &Player, action: Value) -> Value {
        let r = self.act(room, who, action.clone()).await;
        assert_eq!(r.status, StatusCode::OK, "{action} → {:?}", r.body);
        r.body
    }

    pub async fn room(&self, room: &str, who: Option<&Player>) -> Value {
        let r = self
            .get(&format!("/rooms/{room}"), who.map(|p| p.token.as_str()))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        r.body
    }

    /// Long-polls the room for a version after `since` (up to 10 s): how a client waits for a
    /// computer player's move, which arrives as a save of the thinker's, never inside a read.
    pub async fn room_after(&self, room: &str, who: Option<&Player>, since: u64) -> Value {
        let r = self
            .get(
                &format!("/rooms/{room}?since={since}&wait=10"),
                who.map(|p| p.token.as_str()),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        r.body
    }

    pub async fn advance_clock(&self, ms: u64) {
        let r = self
            .post("/dev/clock", None, json!({"advanceMs": ms}))
            .await;
        assert_eq!(r.status, StatusCode::OK);
    }
}
