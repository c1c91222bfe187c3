//! A DynamoDB fault matrix against the real binaries: the `api` and `live` functions under the
//! Lambda emulator reach dynalite through a [`FaultProxy`] that injects, into the calls of one
//! [`Target`] at a time, each [`Fault`]: throttling (`ProvisionedThroughputExceededException`,
//! `ThrottlingException`), `InternalServerError`, a stall longer than the SDK's attempt timeout
//! (the call then lands late), and lost answers (the call is applied, then its connection is cut
//! mid-answer, or a 500 is answered instead of the real answer).
//!
//! Targets: **loads** (`GetItem` of a room), **saves** (`UpdateItem`/`PutItem` of a room: the
//! version-conditioned save, the presence touch), **chat** (every call on the chat table) and
//! the **live registry** (items `#live#…`, `#conn#…`, `#client#…`). One test per target loops
//! over the faults (a cell each), on a fresh room per cell. Injection is seeded (the same calls
//! fail every run) and every cell asserts that faults were injected.
//!
//! What each cell shows, with the client behaving as the JS client does (every action carries an
//! `Idempotency-Key` and is retried with it after a 503; a chat post is not retried):
//! - every answer is a success or a clean 503: `application/problem+json`, a stable `code`
//!   (`STORE_UNAVAILABLE` or `ROOM_BUSY`), a `Retry-After` — never a 500, never past the
//!   function's timeout;
//! - nothing is applied twice: after faults are off the room's version grew by exactly the
//!   number of distinct actions, and its move list is exactly the stones sent, in order; a chat
//!   message is in the log at most once;
//! - nothing answered is lost: every answered stone is in the move list, every answered chat
//!   message in `GET /rooms/{id}/chat?after=0`.
//!
//! And the live registry when every registry call's first answer is lost (the call applied, the
//! SDK resending it): nothing applied twice, nothing left behind — the room's registry holds
//! exactly the open connections, the client's count is theirs, and once every socket closed the
//! counts are back to 0 and no connection item is left.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use madang_tests::dynamo_proxy::{Call, pass_on};
use madang_tests::lambda::{LambdaStack, StackConfig};
use madang_tests::live::{Heard, Live};
use madang_tests::{Player, Reply, TestApp};
use serde_json::{Value, json};

use super::metrics::dynamo_error;
use crate::{dynalite, dynalite_store};

/// What the proxy injects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// `ProvisionedThroughputExceededException` (400).
    Throughput,
    /// `ThrottlingException` (400).
    Throttling,
    /// `InternalServerError` (500).
    Internal,
    /// The call is held longer than the SDK's attempt timeout (3 s), then forwarded: it lands
    /// after the SDK gave up on it (and perhaps after its retry landed).
    Stall,
    /// The call is applied, then the connection is cut before the answer is complete.
    LostCut,
    /// The call is applied, then `InternalServerError` is answered instead.
    Lost500,
}

const FAULTS: [Fault; 6] = [
    Fault::Throughput,
    Fault::Throttling,
    Fault::Internal,
    Fault::Stall,
    Fault::LostCut,
    Fault::Lost500,
];

/// How long a stalled call is held: past the SDK's 3 s attempt timeout.
const STALL: Duration = Duration::from_millis(3_500);
/// Stalls per cell at most (each costs a request ~3 s).
const MAX_STALLS: u64 = 2;

/// Which calls a fault hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// `GetItem` of a room.
    Load,
    /// `UpdateItem`, `PutItem` or `TransactWriteItems` of a room.
    Save,
    /// Any call on the chat table.
    Chat,
    /// Any call on a live registry item (`#live#`, `#conn#`, `#client#`).
    Live,
}

/// The room id an item of the rooms table has in a call's body (`Key` or `Item`).
fn item_id(sent: &Value) -> Option<&str> {
    sent["Key"]["id"]["S"]
        .as_str()
        .or_else(|| sent["Item"]["id"]["S"].as_str())
}

fn matches(target: Target, operation: &str, sent: &Value) -> bool {
    let chat = sent["TableName"]
        .as_str()
        .is_some_and(|t| t.ends_with("-chat"));
    let id = item_id(sent);
    let room = !chat && id.is_some_and(|id| !id.starts_with('#'));
    match target {
        Target::Load => room && operation == "GetItem",
        Target::Save => {
            room && matches!(operation, "UpdateItem" | "PutItem" | "TransactWriteItems")
        }
        Target::Chat => chat,
        Target::Live => {
            !chat
                && id.is_some_and(|id| {
                    ["#live#", "#conn#", "#client#"]
                        .iter()
                        .any(|p| id.starts_with(p))
                })
        }
    }
}

#[derive(Default)]
struct Cell {
    on: Option<(Target, Fault)>,
    /// The seeded generator (xorshift64).
    rng: u64,
    /// Matching calls seen, and answered with a fault.
    seen: u64,
    injected: u64,
    stalls: u64,
    /// Instead of the seeded draw: the fault hits every call's first attempt, and never a
    /// resend (so no call runs out of attempts: with a lost answer, every call is applied, its
    /// first answer lost and its resend answered).
    first_attempts: bool,
}

impl Cell {
    fn draw(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        x
    }

    /// Whether this matching call gets the fault: about 70 % of them (runs of four failures in
    /// a row happen, which exhaust the SDK's four attempts: the client gets a 503), a stall
    /// every third call, at most [`MAX_STALLS`] times.
    /// `attempt`: the SDK's attempt number (`amz-sdk-request: attempt=N`).
    fn decide(&mut self, attempt: u64) -> Option<Fault> {
        let (_, fault) = self.on?;
        self.seen += 1;
        let roll = self.draw() % 100;
        let hit = match fault {
            _ if self.first_attempts => attempt <= 1,
            Fault::Stall => self.stalls < MAX_STALLS && self.seen % 3 == 2,
            _ => roll < 70,
        };
        if !hit {
            return None;
        }
        self.injected += 1;
        if fault == Fault::Stall {
            self.stalls += 1;
        }
        Some(fault)
    }
}

/// A proxy in front of dynalite that injects one cell's fault at a time.
struct FaultProxy {
    url: String,
    cell: Arc<Mutex<Cell>>,
}

impl FaultProxy {
    async fn start(upstream: &str) -> FaultProxy {
        let cell = Arc::new(Mutex::new(Cell::default()));
        let state = Upstream {
            base: upstream.trim_end_matches('/').to_owned(),
            http: reqwest::Client::new(),
            cell: cell.clone(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let routes = Router::new().fallback(forward).with_state(state);
        tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
        FaultProxy {
            url: format!("http://{addr}"),
            cell,
        }
    }

    /// Switches `fault` on for `target`'s calls, with a generator seeded for this cell.
    fn set(&self, target: Target, fault: Fault) {
        let seed = 0x9e37_79b9_7f4a_7c15 ^ ((target as u64) << 8 | fault as u64);
        *self.cell.lock().unwrap() = Cell {
            on: Some((target, fault)),
            rng: seed,
            ..Cell::default()
        };
    }

    /// Switches `fault` on for the first attempt of every one of `target`'s calls.
    fn set_first_attempts(&self, target: Target, fault: Fault) {
        *self.cell.lock().unwrap() = Cell {
            on: Some((target, fault)),
            first_attempts: true,
            ..Cell::default()
        };
    }

    /// Switches faults off; the calls the cell saw and those it failed.
    fn off(&self) -> (u64, u64) {
        let mut cell = self.cell.lock().unwrap();
        cell.on = None;
        (cell.seen, cell.injected)
    }
}

#[derive(Clone)]
struct Upstream {
    base: String,
    http: reqwest::Client,
    cell: Arc<Mutex<Cell>>,
}

async fn forward(State(up): State<Upstream>, request: Request) -> Response {
    let call = Call::read(request).await;
    let operation = call.operation().to_owned();
    let operation = operation.as_str();
    let attempt = call
        .parts
        .headers
        .get("amz-sdk-request")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').find_map(|p| p.trim().strip_prefix("attempt=")))
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(1);
    let sent: Value = serde_json::from_slice(&call.body).unwrap_or(Value::Null);
    let fault = {
        let mut cell = up.cell.lock().unwrap();
        match cell.on {
            Some((t, _)) if matches(t, operation, &sent) => cell.decide(attempt),
            _ => None,
        }
    };
    match fault {
        Some(Fault::Throughput) => {
            return dynamo_error(
                StatusCode::BAD_REQUEST,
                "ProvisionedThroughputExceededException",
                "The level of configured provisioned throughput for the table was exceeded.",
            );
        }
        Some(Fault::Throttling) => {
            return dynamo_error(
                StatusCode::BAD_REQUEST,
                "ThrottlingException",
                "Rate of requests exceeds the allowed throughput.",
            );
        }
        Some(Fault::Internal) => {
            return dynamo_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalServerError",
                "Internal server error",
            );
        }
        _ => {}
    }
    // Forwarded in a task of its own: a stalled call still lands after its caller hung up.
    let sent = tokio::spawn(async move {
        if fault == Some(Fault::Stall) {
            tokio::time::sleep(STALL).await;
        }
        match pass_on(&up.http, &up.base, &call, call.body.clone()).await {
            Some(answer) => answer.into_response(),
            None => StatusCode::BAD_GATEWAY.into_response(),
        }
    });
    let answer = sent.await.unwrap();
    match fault {
        Some(Fault::LostCut) => {
            // Headers, then a body that fails: the connection is cut mid-answer.
            let cut = futures_util::stream::once(async {
                Err::<Bytes, std::io::Error>(std::io::Error::other("connection cut"))
            });
            let mut response = Response::new(Body::from_stream(cut));
            response.headers_mut().insert(
                "content-type",
                "application/x-amz-json-1.0".parse().unwrap(),
            );
            response
        }
        Some(Fault::Lost500) => dynamo_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerError",
            "Internal server error",
        ),
        _ => answer,
    }
}

/// The function's timeout (template.yaml): no answer may take longer.
const FUNCTION_TIMEOUT: Duration = Duration::from_secs(28);

/// What one cell saw of the answers.
#[derive(Debug, Default)]
struct Seen {
    ok: u64,
    unavailable: u64,
    slowest: Duration,
}

impl Seen {
    /// Checks one answer: a success, or a clean 503 (problem+json, a stable code, Retry-After),
    /// in time. Whether it succeeded.
    fn check(&mut self, what: &str, reply: &Reply, took: Duration) -> bool {
        self.slowest = self.slowest.max(took);
        assert!(took < FUNCTION_TIMEOUT, "{what}: answered after {took:?}");
        if reply.status.is_success() {
            self.ok += 1;
            return true;
        }
        assert_eq!(
            reply.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{what}: {:?}",
            reply.body
        );
        assert_eq!(
            reply.headers["content-type"], "application/problem+json",
            "{what}: {:?}",
            reply.body
        );
        let code = reply.body["code"].as_str().unwrap_or_default();
        assert!(
            ["STORE_UNAVAILABLE", "ROOM_BUSY"].contains(&code),
            "{what}: code {code}"
        );
        assert!(
            reply
                .headers
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok())
                .is_some_and(|s| s >= 1),
            "{what}: {code} without a Retry-After: {:?}",
            reply.headers
        );
        self.unavailable += 1;
        false
    }
}

static KEYS: AtomicU64 = AtomicU64::new(0);

/// A fresh `Idempotency-Key` (32 characters, as the JS client's).
fn new_key() -> String {
    format!(
        "{:016x}{:016x}",
        std::process::id(),
        KEYS.fetch_add(1, Ordering::Relaxed)
    )
}

/// Sends a request (with `key` as `Idempotency-Key`); the answer, held against the contract,
/// and how long it took.
async fn send(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    key: Option<&str>,
    body: Option<Value>,
) -> (Reply, Duration) {
    let name = method.as_str().to_ascii_lowercase();
    let mut request = app.http.request(method, format!("{}{path}", app.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let started = Instant::now();
    let reply = TestApp::reply(request.send().await.unwrap()).await;
    let took = started.elapsed();
    madang_tests::contract::check_answer(&name, path, &reply);
    (reply, took)
}

/// An action as the JS client sends it: with an `Idempotency-Key`, retried with the same key
/// after a 503 until it is answered. Its answer.
async fn act_keyed(
    app: &TestApp,
    seen: &mut Seen,
    room: &str,
    who: &Player,
    action: &Value,
) -> Value {
    let key = new_key();
    let path = format!("/rooms/{room}/actions");
    for _ in 0..60 {
        let (reply, took) = send(
            app,
            reqwest::Method::POST,
            &path,
            Some(&who.token),
            Some(&key),
            Some(json!({ "action": action })),
        )
        .await;
        if seen.check(&format!("{action}"), &reply, took) {
            return reply.body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{action} was never answered");
}

/// The stones of a cell: black on column 2, white on column 6, never touching (no capture).
fn stone(i: usize) -> (u64, u64) {
    ((if i.is_multiple_of(2) { 2 } else { 6 }), (i / 2) as u64)
}

/// Stones each game cell plays.
const STONES: usize = 8;

/// A started 9×9 바둑 game (faults off): its id, black (the host), white, its version.
async fn baduk(app: &TestApp, seed: u64) -> (String, Player, Player, u64) {
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            seed,
        )
        .await;
    let white = app.join(&room, "백").await;
    let started = app.act_ok(&room, &black, json!({"type": "start"})).await;
    let version = started["room"]["version"].as_u64().unwrap();
    (room, black, white, version)
}

/// Plays [`STONES`] keyed moves (and, between them, a spectator's and a player's read), every
/// answer checked.
async fn play_stones(app: &TestApp, seen: &mut Seen, room: &str, black: &Player, white: &Player) {
    for i in 0..STONES {
        let who = if i.is_multiple_of(2) { black } else { white };
        let (x, y) = stone(i);
        act_keyed(
            app,
            seen,
            room,
            who,
            &json!({"type": "place", "x": x, "y": y}),
        )
        .await;
        let path = format!("/rooms/{room}");
        for token in [None, Some(who.token.as_str())] {
            let (reply, took) = send(app, reqwest::Method::GET, &path, token, None, None).await;
            seen.check("a read", &reply, took);
        }
    }
}

/// With faults off: the room's version grew by exactly the stones sent (each applied once),
/// and its move list is exactly those stones, in order (none lost, none twice).
async fn check_stones(app: &TestApp, room: &str, version: u64, cell: &str) {
    let view = app.room(room, None).await;
    let moves: Vec<(u64, u64)> = view["state"]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["kind"], "place", "{cell}: {m}");
            (
                m["pt"]["x"].as_u64().unwrap(),
                m["pt"]["y"].as_u64().unwrap(),
            )
        })
        .collect();
    let sent: Vec<(u64, u64)> = (0..STONES).map(stone).collect();
    assert_eq!(moves, sent, "{cell}: the move list is the stones sent");
    assert_eq!(
        view["version"].as_u64().unwrap(),
        version + STONES as u64,
        "{cell}: one version per action"
    );
}

/// A stack of two `api` environments (and the live channel if asked) whose functions reach
/// dynalite through a [`FaultProxy`].
async fn faulty(tag: &str, live: bool) -> (LambdaStack, FaultProxy) {
    let store = Arc::new(dynalite_store(tag).await);
    let proxy = FaultProxy::start(&dynalite()).await;
    let config = StackConfig {
        api_environments: 2,
        live,
        ..StackConfig::default()
    };
    let stack = LambdaStack::start(store, &proxy.url, config).await;
    (stack, proxy)
}

fn report(target: Target, fault: Fault, calls: (u64, u64), seen: &Seen, more: &str) {
    println!(
        "{target:?} × {fault:?}: {} of {} matching calls failed; {} answers 2xx, {} clean 503s, slowest {:?}{more}",
        calls.1, calls.0, seen.ok, seen.unavailable, seen.slowest
    );
    assert!(calls.1 > 0, "{target:?} × {fault:?}: no fault was injected");
}

/// Loads and saves of a room under every fault: moves keyed and retried, reads checked.
async fn game_matrix(target: Target, tag: &str) {
    let started = Instant::now();
    let (stack, proxy) = faulty(tag, false).await;
    for (n, fault) in FAULTS.into_iter().enumerate() {
        let (room, black, white, version) = baduk(&stack.app, 20 + n as u64).await;
        let mut seen = Seen::default();
        proxy.set(target, fault);
        play_stones(&stack.app, &mut seen, &room, &black, &white).await;
        let calls = proxy.off();
        check_stones(
            &stack.app,
            &room,
            version,
            &format!("{target:?} × {fault:?}"),
        )
        .await;
        report(target, fault, calls, &seen, "");
    }
    println!("{target:?} matrix: {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loads_of_a_room_under_every_fault_answer_cleanly_and_lose_nothing() {
    game_matrix(Target::Load, "l-fault-load").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_of_a_room_under_every_fault_land_exactly_once() {
    game_matrix(Target::Save, "l-fault-save").await;
}

/// Chat under every fault: posts as the JS client sends them (not retried: a post carries no
/// key), polls between them; after, every answered message is in the log, and none twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_under_every_fault_keeps_every_answered_message_once() {
    let started = Instant::now();
    let (stack, proxy) = faulty("l-fault-chat", false).await;
    let app = &stack.app;
    for (n, fault) in FAULTS.into_iter().enumerate() {
        let (room, host) = app
            .create("baduk", json!({"boardSize": 9}), 40 + n as u64)
            .await;
        let guest = app.join(&room, "손님").await;
        let mut seen = Seen::default();
        let mut answered = Vec::new();
        proxy.set(Target::Chat, fault);
        // Four posts each: under the rate (five in ten seconds).
        for i in 0..8_usize {
            let who = if i.is_multiple_of(2) { &host } else { &guest };
            let text = format!("{fault:?} {i}");
            let (reply, took) = send(
                app,
                reqwest::Method::POST,
                &format!("/rooms/{room}/chat"),
                Some(&who.token),
                None,
                Some(json!({ "text": text })),
            )
            .await;
            if seen.check(&format!("chat {text}"), &reply, took) {
                assert_eq!(reply.status, StatusCode::CREATED);
                answered.push((text, reply.body["seq"].as_u64().unwrap()));
            }
            let (reply, took) = send(
                app,
                reqwest::Method::GET,
                &format!("/rooms/{room}/chat?after=0"),
                Some(&host.token),
                None,
                None,
            )
            .await;
            seen.check("a chat poll", &reply, took);
        }
        let calls = proxy.off();
        let cell = format!("Chat × {fault:?}");
        let log = app
            .get(&format!("/rooms/{room}/chat?after=0"), Some(&host.token))
            .await;
        assert_eq!(log.status, StatusCode::OK, "{cell}: {:?}", log.body);
        let texts: Vec<(String, u64)> = log.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["text"].as_str().unwrap_or_default().to_owned(),
                    m["seq"].as_u64().unwrap(),
                )
            })
            .collect();
        for (text, seq) in &answered {
            assert!(
                texts.contains(&(text.clone(), *seq)),
                "{cell}: {text} (seq {seq}) was answered 201 and is not in the log: {texts:?}"
            );
        }
        for (i, (text, _)) in texts.iter().enumerate() {
            assert!(
                !texts[i + 1..].iter().any(|(t, _)| t == text),
                "{cell}: {text} is in the log twice: {texts:?}"
            );
        }
        report(
            Target::Chat,
            fault,
            calls,
            &seen,
            &format!(
                "; {} of 8 posts answered, {} in the log",
                answered.len(),
                texts.len()
            ),
        );
    }
    println!("Chat matrix: {:?}", started.elapsed());
}

/// The live registry under every fault: watchers say hello (refused at worst with
/// `UNAVAILABLE`, never as over a bound), the players' keyed moves are answered as ever (the
/// registry is read after a save, and a failed read fails no action), and once faults are off a
/// new watcher is admitted and told the room's version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_registry_under_every_fault_fails_no_action_and_refuses_only_as_unavailable() {
    let started = Instant::now();
    let (stack, proxy) = faulty("l-fault-live", true).await;
    let app = &stack.app;
    let url = stack.live_url().unwrap();
    for (n, fault) in FAULTS.into_iter().enumerate() {
        let (room, black, white, version) = baduk(app, 60 + n as u64).await;
        let cell = format!("Live × {fault:?}");
        // A source address of this cell's own: the per-client bound counts per address.
        let ip = format!("127.0.0.{}", 10 + n);
        let mut seen = Seen::default();
        proxy.set(Target::Live, fault);
        let mut watchers = Vec::new();
        let mut refusals = Vec::new();
        for who in [&black, &white, &black] {
            let mut live = Live::connect_as(&url, &ip).await.unwrap();
            match live.admitted(&room, Some(&who.token), version).await {
                Ok(()) => watchers.push(live),
                Err(code) => refusals.push(code),
            }
        }
        play_stones(app, &mut seen, &room, &black, &white).await;
        let calls = proxy.off();
        assert!(
            refusals.iter().all(|c| c == "UNAVAILABLE"),
            "{cell}: refused otherwise than UNAVAILABLE: {refusals:?}"
        );
        assert_eq!(
            seen.unavailable, 0,
            "{cell}: a registry fault failed an action"
        );
        check_stones(app, &room, version, &cell).await;
        drop(watchers);
        let mut fresh = Live::connect_as(&url, &format!("127.0.1.{}", 10 + n))
            .await
            .unwrap();
        fresh.hello(&room, Some(&white.token), 0).await;
        assert_eq!(
            fresh.next().await,
            Heard::Version(version + STONES as u64),
            "{cell}: a watcher after the faults hears the room's version"
        );
        report(
            Target::Live,
            fault,
            calls,
            &seen,
            &format!("; hellos refused: {refusals:?}"),
        );
    }
    println!("Live matrix: {:?}", started.elapsed());
}

/// The key the `live` function counts a source address under (`WsEvent::client` in
/// `functions/src/live/aws.rs`): a digest of the address, IPv6 per /64.
fn client_key(ip: &str) -> String {
    use sha2::Digest;
    let key = madang_functions::limits::client::key_of(ip.parse().unwrap()).to_string();
    let sum = sha2::Sha256::digest(key.as_bytes());
    sum[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// One item of the rooms table, read strongly straight from dynalite (not through the proxy).
async fn raw_item(
    store: &madang_infra::DynamoStore,
    id: &str,
) -> std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue> {
    store
        .client()
        .get_item()
        .table_name(store.table())
        .key(
            "id",
            aws_sdk_dynamodb::types::AttributeValue::S(id.to_owned()),
        )
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_default()
}

fn raw_number(
    item: &std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>,
    name: &str,
) -> i64 {
    item.get(name)
        .map_or(0, |v| v.as_n().unwrap().parse().unwrap())
}

/// Holds the registry against what the open connections imply: the room's `#live#` item has
/// exactly `players` as entries (a player's id each, `""` for a spectator), its count `n` is
/// their number and `g` the spectators'; the client's `#client#` item counts exactly as many
/// connections; with nothing open, no `#conn#` item is left in the table.
async fn check_registry(
    store: &madang_infra::DynamoStore,
    room: &str,
    client: &str,
    players: &[&str],
    cell: &str,
) {
    let live = raw_item(store, &format!("#live#{room}")).await;
    let mut entries: Vec<&str> = live
        .iter()
        .filter(|(name, _)| name.starts_with("c:"))
        .map(|(_, v)| v.as_s().unwrap().as_str())
        .collect();
    entries.sort_unstable();
    let mut expected = players.to_vec();
    expected.sort_unstable();
    assert_eq!(
        entries, expected,
        "{cell}: the room's registry entries: {live:?}"
    );
    assert_eq!(
        raw_number(&live, "n"),
        players.len() as i64,
        "{cell}: the room's registry count: {live:?}"
    );
    assert_eq!(
        raw_number(&live, "g"),
        players.iter().filter(|p| p.is_empty()).count() as i64,
        "{cell}: the room's spectators: {live:?}"
    );
    let counted = raw_item(store, &format!("#client#{client}")).await;
    assert_eq!(
        raw_number(&counted, "n"),
        players.len() as i64,
        "{cell}: the client's count of its registered connections: {counted:?}"
    );
    if players.is_empty() {
        let left = store
            .client()
            .scan()
            .table_name(store.table())
            .consistent_read(true)
            .filter_expression("begins_with(id, :conn)")
            .expression_attribute_values(
                ":conn",
                aws_sdk_dynamodb::types::AttributeValue::S("#conn#".into()),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(
            left.count(),
            0,
            "{cell}: connection items left after every socket closed: {:?}",
            left.items()
        );
    }
}

/// The live registry when answers are lost: every registry call's first answer is lost (the
/// call applied, then the connection cut or a 500 answered) and the SDK resends it. Watchers
/// say hello (one moves from spectator to player), two close, all under the fault; every hello
/// is admitted, and once faults are off the room's registry holds exactly the open connections
/// and the client's count is theirs; a change posts to them only (no `410 Gone`); after every
/// socket closed (under the fault too) the counts are back to 0 and no connection item is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_registry_under_lost_answers_holds_exactly_the_open_connections() {
    let started = Instant::now();
    let (stack, proxy) = faulty("l-fault-live-exact", true).await;
    let app = &stack.app;
    let store = &stack.store;
    let url = stack.live_url().unwrap();
    let mut closed = 0;
    for (n, fault) in [Fault::LostCut, Fault::Lost500].into_iter().enumerate() {
        let (room, black, white, version) = baduk(app, 80 + n as u64).await;
        let cell = format!("Live exact × {fault:?}");
        let ip = format!("127.0.2.{}", 10 + n);
        let client = client_key(&ip);
        proxy.set_first_attempts(Target::Live, fault);
        let mut open = Vec::new();
        for who in [Some(&black), Some(&white), None, None] {
            let mut live = Live::connect_as(&url, &ip).await.unwrap();
            let admitted = live
                .admitted(&room, who.map(|p| p.token.as_str()), version)
                .await;
            assert_eq!(admitted, Ok(()), "{cell}: a hello refused");
            open.push(live);
        }
        // The last spectator becomes white: its registration moves.
        let moved = open.last_mut().unwrap();
        let admitted = moved.admitted(&room, Some(&white.token), version).await;
        assert_eq!(admitted, Ok(()), "{cell}: the second hello refused");
        // White's first socket and the first spectator's close.
        open.drain(1..3);
        closed += 2;
        stack.wait_for_disconnects(closed).await;
        let calls = proxy.off();
        check_registry(store, &room, &client, &[&black.id, &white.id], &cell).await;
        // A move by each: each open socket hears the other's (an actor's own connections
        // are told nothing), and nothing is posted to a closed one.
        let gone = stack.live_posts().1;
        let mut heard = Vec::new();
        for (i, who) in [&black, &white].into_iter().enumerate() {
            let (x, y) = stone(i);
            let played = app
                .act_ok(&room, who, json!({"type": "place", "x": x, "y": y}))
                .await;
            heard.push(played["room"]["version"].as_u64().unwrap());
        }
        let [black_live, white_live] = &mut open[..] else {
            unreachable!()
        };
        assert_eq!(
            white_live.versions_until(heard[0]).await.last(),
            Some(&heard[0]),
            "{cell}: white hears black's move"
        );
        assert_eq!(
            black_live.versions_until(heard[1]).await.last(),
            Some(&heard[1]),
            "{cell}: black hears white's move"
        );
        assert_eq!(
            stack.live_posts().1,
            gone,
            "{cell}: a change posted to a closed connection"
        );
        // The rest close under the fault too.
        proxy.set_first_attempts(Target::Live, fault);
        closed += open.len() as u64;
        drop(open);
        stack.wait_for_disconnects(closed).await;
        let (seen, injected) = proxy.off();
        check_registry(store, &room, &client, &[], &cell).await;
        let (seen, injected) = (calls.0 + seen, calls.1 + injected);
        println!("{cell}: {injected} of {seen} registry calls lost their first answer");
        assert!(injected > 0, "{cell}: no fault was injected");
    }
    println!("Live exact: {:?}", started.elapsed());
}
